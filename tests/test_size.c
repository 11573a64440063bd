/*
 * The one size format (core/util/size.h): binary units, one decimal, the unit
 * moved up before rounding could print "1024.0".
 */
#include <criterion/criterion.h>

#include "core/util/size.h"

static void expect(uint64_t n, const char *want)
{
	char buf[32];
	pyrt_size_human(n, buf, sizeof buf);
	cr_assert_str_eq(buf, want, "%llu", (unsigned long long)n);
}

Test(size, binary_units_one_decimal)
{
	expect(0, "0 B");
	expect(1023, "1023 B");
	expect(1024, "1.0 KiB");
	expect(7879307, "7.5 MiB");
	expect(36700160, "35.0 MiB");
	expect(1048575, "1.0 MiB");
	expect(3ull << 30, "3.0 GiB");
}
