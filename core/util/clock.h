/*
 * Seconds on a monotonic clock: the one "now" for elapsed times, rates,
 * deadlines and redraw ticks, which a change of the wall clock must not
 * move.
 */
#ifndef PYRT_CLOCK_H
#define PYRT_CLOCK_H

/** Seconds since an arbitrary point, from CLOCK_MONOTONIC. */
double pyrt_now(void);

#endif
