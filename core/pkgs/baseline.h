/*
 * The doc-library baseline: pins.yaml's list (or --requirements FILE, the
 * desktop app's requirements-docs.txt) installed into the active runtime
 * through pyrt_pip_install, under the box lock, and its outcome recorded in
 * that install's marker: complete, partial (what is missing and pip's
 * reason) or none.  A failed baseline never deactivates the runtime; a rerun
 * installs only what is missing, and first reinstalls (pip
 * --force-reinstall --no-deps, same version) any distribution whose
 * dist-info outlived its files (dists.h), which pip would call satisfied.
 */
#ifndef PYRT_BASELINE_H
#define PYRT_BASELINE_H

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/runtime/marker.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_BASELINE_OPTS_VERSION 1

typedef struct pyrt_baseline_opts {
	unsigned int version;
	const pyrt_box *box;            /**< the caller's: opened once, by app/ */
	const pyrt_pins *pins;          /**< its baseline list is installed... */
	const char *requirements_file;  /**< ...unless this file is given */
	const char *wheelhouse;         /**< pip --no-index --find-links DIR */
	int no_wait;                    /**< busy lock: fail instead of waiting */
	double timeout_s;               /**< per pip run; 0: pip's default */
	const char *cacert;             /**< pip --cert FILE (--cacert) */
	const char *index_url;          /**< pip --index-url URL, or NULL */
} pyrt_baseline_opts;

#define PYRT_BASELINE_OPTS_INIT { PYRT_BASELINE_OPTS_VERSION, NULL, NULL, \
	NULL, NULL, 0, 0, NULL, NULL }

typedef struct pyrt_baseline_result {
	/** as written to the marker; "" when the marker was not updated */
	char state[16];
	char missing[PYRT_MARKER_MISSING_MAX][128];
	int missing_count;
	char error[512];          /**< pip's reason for the first failure */
	char log_path[4096];      /**< the pip log to read first ("" if none) */
	size_t requirement_count; /**< the pins' or the file's */
	/** of those, how many pip left exactly as they were (same dist-info,
	 *  same version): "already present", not "installed" */
	size_t present_count;
	/** distributions reinstalled because their files were missing */
	char repaired[PYRT_MARKER_MISSING_MAX][128];
	int repaired_count;
} pyrt_baseline_result;

/**
 * Install the baseline into the active runtime and record the outcome in
 * its marker.  When the whole batch fails, each requirement is retried
 * alone so what can be installed is installed.  Returns 0 (complete),
 * PYRT_E_BASELINE (partial or none: the message names what failed and the
 * log; also for an EXTERNALLY-MANAGED interpreter or a pip timeout, which
 * leave the marker as it was), PYRT_E_NOT_READY (no runtime: the fix),
 * PYRT_E_BUSY, PYRT_E_USAGE (unreadable --requirements/--wheelhouse, or a
 * line of the file that is not a PEP 508 requirement: "FILE:LINE: ...") or
 * PYRT_E_CANCELLED.  Emits one PYRT_STEP_BASELINE begin/end/fail.
 */
int pyrt_baseline_run(const pyrt_baseline_opts *opts, const pyrt_events *ev,
		      pyrt_baseline_result *result, pyrt_error *err);

/**
 * Read --requirements FILE as the baseline will, without installing: 0 with
 * *count (may be NULL) set to its requirements, PYRT_E_UNTRUSTED (the file
 * or a folder or link on its way is someone else's, trust.h), or
 * PYRT_E_USAGE (unreadable, or "FILE:LINE: ..." for the first line that is
 * not a PEP 508 requirement).  Lets an install refuse the file before it downloads.
 */
int pyrt_baseline_check_file(const char *path, size_t *count,
			     pyrt_error *err);

#endif
