/*
 * The managed interpreter's own report (py/doctor_interp.py): its version,
 * where it thinks it lives, and which modules it cannot import.  doctor
 * judges the runtime by it; baseline finds what to reinstall by it.
 */
#ifndef PYRT_INTERP_H
#define PYRT_INTERP_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>

/*
 * How every interpreter pyrt starts begins: PATH -I --check-hash-based-pycs
 * always.  -I: no PYTHON* variable, user site or script folder decides
 * what runs.  --check-hash-based-pycs always: a hash-based .pyc (PEP 552)
 * is checked against its source even when it says not to be
 * (check_source=0), so a planted unchecked cache (for ssl, say) never runs
 * in place of its source, as root, in doctor's check (issue 26, door 5).
 * Every start in core/ builds its argv from here (e2e_children checks each
 * start at run time, and that no other file spells these arguments).
 */
#define PYRT_INTERP_PREFIX_LEN 4

/** Write the prefix for python into argv[0..PYRT_INTERP_PREFIX_LEN); the
 *  count written, where the caller's own arguments go. */
size_t pyrt_interp_argv(const char **argv, const char *python);

/*
 * Arguments after the prefix that print the interpreter's version (what
 * platform.python_version() says) without importing anything: the check
 * must stay cheap on archives that carry no .pyc, and -B keeps it from
 * writing __pycache__ into an install.  -S: no site start-up, so no .pth
 * file a package installed runs in a check that needs only the stdlib.
 * The second line is the resolved sys.prefix (os is loaded at start-up
 * anyway), which must lie inside the install (pyrt_fs_path_inside).
 */
#define PYRT_INTERP_VERSION_ARGS "-S", "-B", "-c", \
	"import os, sys; print(sys.version.split()[0]); " \
	"print(os.path.realpath(sys.prefix))"

typedef struct pyrt_interp_report {
	char why[512];        /**< "" or how it failed to start or answer */
	char version[32];     /**< its first line, "" if it printed none */
	char prefix[PATH_MAX];/**< os.path.realpath(sys.prefix) */
	int imports_known;    /**< 0: the import check printed no result */
	char imports[2048];   /**< "" or "; "-joined "module[ of dist]
			       *   (Error: text)" */
} pyrt_interp_report;

/**
 * Run python (-I -S -B) on py/doctor_interp.py in install_dir with its
 * scrubbed environment, asking for the top-level modules of each of the
 * nreqs requirements too.  0 with *out filled (out->why set when it did
 * not start, stopped or timed out), PYRT_E_NOMEM, or PYRT_E_CANCELLED
 * when cancel was set.
 */
int pyrt_interp_report_run(const char *python, const char *install_dir,
			   const char *const *reqs, size_t nreqs,
			   double timeout_s, const atomic_int *cancel,
			   pyrt_interp_report *out);

#endif
