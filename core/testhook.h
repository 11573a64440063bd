/*
 * Named crash points for the fault tests.  In a build with PYRT_TEST_HOOKS
 * (cmake -DPYRT_TEST_HOOKS=ON: the test builds, never a release) the
 * environment variable PYRT_TEST_HOOK="<point>:pause" makes the process
 * stop at that point, announce it by creating the file PYRT_TEST_HOOK_FILE
 * (its pid inside), and wait until the test removes the file (or kills or
 * signals it); "<point>:kill" raises SIGKILL there.  In any other build a
 * crash point compiles to nothing.
 */
#ifndef PYRT_TESTHOOK_H
#define PYRT_TESTHOOK_H

#ifdef PYRT_TEST_HOOKS
void pyrt_testhook(const char *point);
#else
static inline void pyrt_testhook(const char *point)
{
	(void)point;
}
#endif

#endif
