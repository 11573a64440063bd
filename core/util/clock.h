/*
 * Seconds on a monotonic clock: the one "now" for elapsed times, rates,
 * deadlines and redraw ticks, which a change of the wall clock must not
 * move.
 */
#ifndef PYRT_CLOCK_H
#define PYRT_CLOCK_H

/** Seconds since an arbitrary point, from CLOCK_MONOTONIC. */
double pyrt_now(void);

struct timespec;

/** The CLOCK_MONOTONIC instant seconds from now, for waits that take an
 *  absolute time (pthread_cond_timedwait on a monotonic condattr). */
void pyrt_monotonic_after(double seconds, struct timespec *out);

#endif
