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
