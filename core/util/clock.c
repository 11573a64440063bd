/* The monotonic "now" (clock.h). */
#include "core/util/clock.h"

#include <time.h>

double pyrt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pyrt_monotonic_after(double seconds, struct timespec *out)
{
	clock_gettime(CLOCK_MONOTONIC, out);
	long ns = (long)(seconds * 1e9);
	out->tv_sec += ns / 1000000000L;
	out->tv_nsec += ns % 1000000000L;
	if (out->tv_nsec >= 1000000000L) {
		out->tv_sec++;
		out->tv_nsec -= 1000000000L;
	}
}
