#include "core/util/size.h"

#include <stdio.h>

#include "core/util/fmt.h"

void pyrt_size_human(uint64_t n, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	if (n < 1024) {
		pyrt_fmt_text(buf, len, "%llu B", (unsigned long long)n);
		return;
	}
	double v = (double)n / 1024.0;
	size_t u = 0;
	/* 1023.96 KiB would print as "1024.0 KiB": move up before rounding
	 * can carry into a fifth digit. */
	while (v >= 1023.95 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024.0;
		u++;
	}
	pyrt_fmt_text(buf, len, "%.1f %s", v, units[u]);
}
