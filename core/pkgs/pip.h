/*
 * pip, run inside the managed runtime: `current/bin/python3 -I -m pip
 * install --only-binary=:all: --disable-pip-version-check --no-input ...`
 * with the scrubbed environment and a private 0700 HOME, in its own process
 * group under a hard timeout.  pip's output streams to the front end as log
 * events (capped: first 40% and last 60%), and goes whole to a 0600 log file
 * under <box>/runtime/python/logs.
 *
 * The baseline (pins.yaml's list, or the lines of --requirements FILE) and
 * a plugin's requires_pip both go through pyrt_pip_install, and through
 * pyrt_pip_install_each when a failed batch is to be retried one
 * requirement at a time.  pip is only ever given PEP 508 requirements
 * (requirement.h) after "--": never a requirements file, whose option
 * lines pip would obey.
 *
 * With a wheelhouse, pyrt_pip_install first runs pyrt's own wheelhouse
 * installer (fastwheel.h) the same way, with the scrubbed environment: when
 * it decides, pip never starts; when it leaves the case to pip (exit 3,
 * nothing written), pip runs as it always did, into the same log.
 *
 * From an index (no wheelhouse), pip first downloads (`pip download -d`,
 * the same index, CA, lock and options) into a fresh 0700 folder inside
 * its private TMPDIR; pyrt inspects every wheel there (wheelcheck.h) and
 * only then pip installs from that folder alone (--no-index --find-links),
 * so no installer sees a wheel pyrt has not read.  A refused wheel fails
 * PYRT_E_UNSAFE naming it; the folder is removed after every run.
 */
#ifndef PYRT_PIP_H
#define PYRT_PIP_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_PIP_OPTS_VERSION 1

typedef struct pyrt_pip_opts {
	unsigned int version;
	/** the box the caller opened (and holds the lock of): pip runs its
	 *  active install; core never reopens it from a path */
	const pyrt_box *box;
	/** PEP 508 requirements (requirement.h), given to pip after "--" */
	const char *const *requirements;
	size_t requirement_count;
	const char *wheelhouse;        /**< adds --no-index --find-links DIR */
	/** where the runtime's interpreter is (pyrt_box_interpreter); NULL:
	 *  python/bin/python3 */
	const pyrt_pins *pins;
	double timeout_s;              /**< 0: default (900 s) */
	const char *purpose;           /**< "baseline" or "plugin cowork": log names */
	/** CA bundle pip verifies the index with (--cert FILE), as --cacert
	 * gives it to downloads; NULL: pip's own */
	const char *cacert;
	/** pip's index URL (https, or http to loopback), given to pip as
	 * PIP_INDEX_URL in its environment, never on its command line;
	 * credentials in it, and the URL's path and query wherever pip prints
	 * them, never reach a log or a message.  NULL: pip's default or
	 * PIP_INDEX_URL from the environment */
	const char *index_url;
	/** The box lock's descriptor (pyrt_lock_fd), inherited by pip and
	 *  the wheelhouse installer so the lock is held while they write
	 *  into the runtime, even after a pyrt killed by SIGKILL; -1: none */
	int lock_fd;
	/** a requirements file pyrt wrote from the wheel lock (wheellock.h):
	 * pip gets --require-hashes -r FILE instead of the list, so it
	 * installs the locked projects and checks every file's SHA-256; the
	 * wheelhouse installer still gets the list.  A failed batch is then
	 * not retried one by one (each run would install the same lock). */
	const char *hashed_requirements;
	/** 1: pip --force-reinstall --no-deps, and pip only (the wheelhouse
	 *  installer takes what is there as installed): the repair of a
	 *  distribution whose dist-info outlived its files (dists.h) */
	int reinstall;
} pyrt_pip_opts;

#define PYRT_PIP_OPTS_INIT { PYRT_PIP_OPTS_VERSION, NULL, NULL, 0, NULL, NULL, \
	0, NULL, NULL, NULL, -1, NULL, 0 }

/** The fixes for a pip that could not reach its index, in one clause. */
#define PYRT_PIP_OFFLINE_FIX "without network use --wheelhouse DIR; " \
	"behind a proxy set https_proxy (and no_proxy); for an internal " \
	"index pass --index-url URL; for a private or TLS-inspecting CA pass " \
	"--cacert FILE"

/** pip's network bounds: a dead network costs seconds, not minutes. */
#define PYRT_PIP_RETRIES "1"
#define PYRT_PIP_NET_TIMEOUT_S "15"

typedef struct pyrt_pip_result {
	/** pip's exit status; -1 if it never ran or was stopped (timeout) */
	int exit_code;
	char log_path[4096];     /**< the full output */
	char reason[512];        /**< pip's last ERROR: line, when it failed */
	char failed_requirement[128]; /**< the one pip named, if it did */
	/** 1: pip retried connections (network, proxy, TLS): its "no
	 * matching distribution" then means it never reached the index */
	int index_unreachable;
	/** 1: pip refused a file whose SHA-256 is not the lock's
	 * (--require-hashes): the run fails PYRT_E_VERIFY */
	int hash_mismatch;
	/** then, from pip's lines after it: "NAME==VER from URL: expected
	 * sha256 X, got Y" for the first file it refused */
	char hash_detail[768];
} pyrt_pip_result;

/**
 * Install into the active runtime's own site-packages.  Returns 0,
 * PYRT_E_USAGE (a requirement is not PEP 508: the message names it and the
 * rule; pip is not started), PYRT_E_NOT_READY (no active runtime: message
 * has the fix),
 * PYRT_E_BASELINE (pip failed: message has pip's reason and the log path;
 * an EXTERNALLY-MANAGED interpreter gets its own sentence), or
 * PYRT_E_CANCELLED.  Emits PYRT_STEP_BASELINE begin/end/fail.
 */
int pyrt_pip_install(const pyrt_pip_opts *opts, const pyrt_events *ev,
		     pyrt_pip_result *result, pyrt_error *err);

typedef struct pyrt_pip_each_result {
	pyrt_pip_result batch;  /**< the run of the whole list (or file) */
	pyrt_pip_result first;  /**< the first requirement that failed alone */
	pyrt_pip_result last;   /**< the last run, whichever it was */
	/** 1: the batch failed and every requirement was then tried alone */
	int retried;
	/** indices into opts->requirements of those that failed alone, in
	 * order (malloc'd: pyrt_pip_each_result_clear frees it) */
	size_t *failed;
	size_t failed_count;
	/** 1: the batch or a run that failed alone could not reach the
	 * index.  An unreachable batch is not retried one by one (each run
	 * would only fail the same way): every requirement is then in
	 * failed, and retried stays 0 */
	int index_unreachable;
} pyrt_pip_each_result;

/**
 * pip resolves a batch as a whole, so one unavailable requirement keeps
 * all the others out: install opts' list as one batch and, when it fails as
 * retry says, each requirement of the list alone so that what can be
 * installed is installed.  The retry happens only when pip ran and refused
 * the batch (exit status above 0); a timeout, a signal, a cancel or a PEP
 * 668 refusal ends the operation as it is.
 *
 * Returns 0 when everything was installed.  When requirements failed alone
 * (result->retried, result->failed) it returns the first one's code with
 * its message, or with "could not install A, B; the first failure: ..."
 * for more than one.  Otherwise the batch's or the ending retry's code and
 * message.  result is filled in every case; clear it afterwards.
 */
int pyrt_pip_install_each(const pyrt_pip_opts *opts,
			  const pyrt_events *ev, pyrt_pip_each_result *result,
			  pyrt_error *err);

/**
 * What one line of pip's output says (trailing CR and blanks trimmed): an
 * "ERROR: " line sets result->reason and, when it names one,
 * result->failed_requirement; a "WARNING: Retrying (" line sets
 * result->index_unreachable and, when net_cause is still empty, the cause
 * ("NewConnectionError: [Errno -2] Name or service not known") into
 * net_cause.  pyrt_pip_install calls it for every line; exposed for the
 * tests and the fuzz target.
 */
void pyrt_pip_parse_line(const char *line, pyrt_pip_result *result,
			 char *net_cause, size_t net_cause_len);

/** Free what a pyrt_pip_each_result holds; NULL is a no-op. */
void pyrt_pip_each_result_clear(pyrt_pip_each_result *result);

#endif
