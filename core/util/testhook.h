/*
 * Named crash points for the fault tests.  In a build with PYRT_TEST_HOOKS
 * (cmake -DPYRT_TEST_HOOKS=ON: the test builds, never a release) the
 * environment variable PYRT_TEST_HOOK="<point>:pause" makes the process
 * stop at that point, announce it by creating the file PYRT_TEST_HOOK_FILE
 * ("<pid> <point>" inside), and wait until the test removes the file (or
 * kills or signals it); "<point>:hold" does the same only when the test
 * created that file first; "<point>:kill" raises SIGKILL there.  Several
 * points may be listed, comma-separated ("before-move:pause,cleanup:pause").
 * In any other build a crash point compiles to nothing.
 *
 * The points, in the order an install passes them:
 *   locked         the box lock is held and the box repaired (install)
 *   after-download the archive is on disk, not yet verified
 *   staging-made   the staging directory exists, no owner record yet
 *   mid-extract    about half of the archive's entries are in staging
 *   before-check   the staged interpreter is about to be started
 *   before-marker, before-move, before-swap   activation, before `current`
 *   link-made      a temporary .link.<pid> exists, not yet renamed
 *   between-swaps  `current` is the new install, `previous` not yet moved
 *   after-swap     both links moved, superseded installs not yet pruned
 *   cleanup        a failed or cancelled install is about to clean up
 *   baseline-begin the baseline step has begun, pip not started yet
 *   baseline-repaired  distributions missing files are reinstalled, the
 *                  requirements not yet installed
 *   wheels-staged  the locked wheels are copied and verified, no installer
 *                  started yet (also plugins install)
 *   mid-baseline   pip has run, the marker does not yet say so
 *   plugin-reapply after a switch, a plugin's re-apply is announced, its
 *                  pip not started yet (app/plugin.c)
 *   plugin-declare a plugin's requirements are about to be written to
 *                  declared.json, under the box lock (app/plugin.c)
 * and in the TUI:
 *   tui-refresh    the dashboard's check has begun, nothing read yet
 * and in serve:
 *   job-start      a job is running (its 202 sent), its lock not yet taken
 * The wheelhouse installer (py/fastwheel.py) has its own, numbered by how
 * often each was passed: fw-member-N (before the Nth member is staged),
 * fw-compile-1, fw-installer-N and fw-record-N (the Nth distribution's),
 * fw-move-N (before the Nth file is renamed into place), fw-dist-info-N
 * (before the Nth .dist-info is); PYRT_TEST_HOOK_TRACE=FILE makes it list
 * every point it passes there.  pyrt_testhook_env passes these variables
 * to it.
 */
#ifndef PYRT_TESTHOOK_H
#define PYRT_TESTHOOK_H

#ifdef PYRT_TEST_HOOKS
void pyrt_testhook(const char *point);
/** env (a pyrt_proc_*_env array) with the hook variables that are set
 *  added; NULL (env freed) when out of memory. */
char **pyrt_testhook_env(char **env);
#else
static inline void pyrt_testhook(const char *point)
{
	(void)point;
}
static inline char **pyrt_testhook_env(char **env)
{
	return env;
}
#endif

#endif
