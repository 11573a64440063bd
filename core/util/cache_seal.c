/* Checksums for cache entries (see cache_seal.h). */
#include "core/util/cache_seal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util/fmt.h"

static uint64_t fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void pyrt_cache_sum(const void *data, size_t len,
		    char hex[PYRT_CACHE_SUM_LEN + 1])
{
	pyrt_fmt_text(hex, PYRT_CACHE_SUM_LEN + 1, "%016llx",
		      (unsigned long long)fnv1a64(data, len));
}

int pyrt_cache_sum_ok(const char *hex, const void *data, size_t len)
{
	char want[PYRT_CACHE_SUM_LEN + 1];
	pyrt_cache_sum(data, len, want);
	return strncmp(hex, want, PYRT_CACHE_SUM_LEN) == 0;
}
