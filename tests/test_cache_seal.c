/* ctest: test_cache_seal */
/* core/util/cache_seal: the checksum is FNV-1a 64 as 16 lowercase hex
 * digits, and any one changed byte, a cut, or a malformed sum is refused. */
#include <criterion/criterion.h>

#include <string.h>

#include "core/util/cache_seal.h"

Test(cache_seal, known_values)
{
	char hex[PYRT_CACHE_SUM_LEN + 1];
	pyrt_cache_sum("", 0, hex);
	cr_assert_str_eq(hex, "cbf29ce484222325"); /* FNV-1a 64 offset basis */
	pyrt_cache_sum("a", 1, hex);
	cr_assert_str_eq(hex, "af63dc4c8601ec8c");
}

Test(cache_seal, any_change_is_refused)
{
	const char *data = "entry line 1\nentry line 2\n";
	size_t len = strlen(data);
	char hex[PYRT_CACHE_SUM_LEN + 1], copy[64];
	pyrt_cache_sum(data, len, hex);
	cr_assert(pyrt_cache_sum_ok(hex, data, len));
	for (size_t i = 0; i < len; i++) {
		memcpy(copy, data, len);
		copy[i] ^= 0x01;
		cr_assert_not(pyrt_cache_sum_ok(hex, copy, len), "byte %zu", i);
	}
	cr_assert_not(pyrt_cache_sum_ok(hex, data, len - 1), "a torn write");
	char upper[PYRT_CACHE_SUM_LEN + 1];
	for (size_t i = 0; i <= PYRT_CACHE_SUM_LEN; i++)
		upper[i] = (char)(hex[i] >= 'a' && hex[i] <= 'f'
				  ? hex[i] - 32 : hex[i]);
	if (strcmp(upper, hex) != 0)
		cr_assert_not(pyrt_cache_sum_ok(upper, data, len),
			      "upper case is not the form written");
	cr_assert_not(pyrt_cache_sum_ok("123", data, len), "too short");
}
