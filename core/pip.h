/*
 * pip, run inside the managed runtime: `current/bin/python3 -I -m pip
 * install --only-binary=:all: --disable-pip-version-check --no-input ...`
 * with the scrubbed environment and a private 0700 HOME, in its own process
 * group under a hard timeout.  pip's output streams to the front end as log
 * events (capped: first 40% and last 60%), and goes whole to a 0600 log file
 * under <box>/runtime/python/logs.
 *
 * The baseline (pins.yaml's list, or --requirements FILE) and a plugin's
 * requires_pip both go through pyrt_pip_install.
 */
#ifndef PYRT_PIP_H
#define PYRT_PIP_H

#include <stddef.h>

#include "error.h"
#include "events.h"

#define PYRT_PIP_OPTS_VERSION 1

typedef struct pyrt_pip_opts {
	unsigned int version;
	const char *box_root;
	/** requirement strings (pip syntax), or NULL with requirements_file */
	const char *const *requirements;
	size_t requirement_count;
	const char *requirements_file; /**< -r FILE instead of the list */
	const char *wheelhouse;        /**< adds --no-index --find-links DIR */
	double timeout_s;              /**< 0: default (900 s) */
	const char *purpose;           /**< "baseline" or "plugin cowork": log names */
} pyrt_pip_opts;

#define PYRT_PIP_OPTS_INIT { PYRT_PIP_OPTS_VERSION, NULL, NULL, 0, NULL, \
	NULL, 0, NULL }

typedef struct pyrt_pip_result {
	/** pip's exit status; -1 if it never ran or was stopped (timeout) */
	int exit_code;
	char log_path[4096];     /**< the full output */
	char reason[512];        /**< pip's last ERROR: line, when it failed */
	char failed_requirement[128]; /**< the one pip named, if it did */
	/** 1: pip retried connections (network, proxy, TLS): its "no
	 * matching distribution" then means it never reached the index */
	int index_unreachable;
} pyrt_pip_result;

/**
 * Install into the active runtime's own site-packages.  Returns 0,
 * PYRT_E_NOT_READY (no active runtime: message has the fix),
 * PYRT_E_BASELINE (pip failed: message has pip's reason and the log path;
 * an EXTERNALLY-MANAGED interpreter gets its own sentence), or
 * PYRT_E_CANCELLED.  Emits PYRT_STEP_BASELINE begin/end/fail.
 */
int pyrt_pip_install(const pyrt_pip_opts *opts, const pyrt_events *ev,
		     pyrt_pip_result *result, pyrt_error *err);

#endif
