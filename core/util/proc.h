/*
 * Run a child program the way execute_code does: its own process group, a
 * scrubbed environment, output captured (capped), a hard timeout that
 * escalates SIGINT → SIGTERM → SIGKILL to the whole group with bounded grace
 * periods.  A child never outlives pyrt: it gets SIGKILL when the thread
 * that started it dies (PR_SET_PDEATHSIG, checked against a parent that
 * died before it was set), and a pyrt that exits on a signal first stops
 * the group.
 */
#ifndef PYRT_PROC_H
#define PYRT_PROC_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/util/error.h"

#define PYRT_PROC_OPTS_VERSION 1

typedef struct pyrt_proc_opts {
	unsigned int version;
	const char *const *argv;  /**< argv[0] is a path, not searched in PATH */
	const char *const *envp;  /**< the whole environment of the child */
	const char *cwd;          /**< NULL: inherit */
	double timeout_s;         /**< then SIGINT to the group */
	double grace_s;           /**< between SIGINT, SIGTERM and SIGKILL */
	size_t capture_max;       /**< bytes of output kept: first 40% + last 60% */
	/** called for each complete line of combined stdout+stderr */
	int (*on_line)(const char *line, void *payload);
	void *payload;
	const atomic_int *cancel; /**< set: stop the child as on timeout */
	/** >= 0: a descriptor the child keeps (as its fd 4): the box lock's,
	 *  so the lock stays held while a child that writes into the box
	 *  lives, even past a pyrt killed with SIGKILL */
	int keep_fd;
} pyrt_proc_opts;

#define PYRT_PROC_OPTS_INIT { PYRT_PROC_OPTS_VERSION, NULL, NULL, NULL, \
	30.0, 2.0, 64 * 1024, NULL, NULL, NULL, -1 }

typedef struct pyrt_proc_result {
	int exited;        /**< 1: exit_code is valid */
	int exit_code;
	int term_signal;   /**< signal that ended it, 0 if none */
	int timed_out;
	int cancelled;
	char *output;      /**< captured output (NUL-terminated), malloc'd */
	size_t output_len;
	int truncated;     /**< a "[… N bytes truncated …]" marker was inserted */
} pyrt_proc_result;

/**
 * Run and wait.  Returns 0 when the child was started and reaped (whatever
 * its exit status; look at result), or a negative pyrt_code when it could
 * not be started or its exit status was lost (reaped by someone else, as
 * when SIGCHLD is ignored; PYRT_E_INTERNAL).  Free result with
 * pyrt_proc_result_clear.
 */
int pyrt_proc_run(const pyrt_proc_opts *opts, pyrt_proc_result *result,
		  pyrt_error *err);

void pyrt_proc_result_clear(pyrt_proc_result *result);

/**
 * The minimal environment for a child: PATH=/usr/bin:/bin, LANG and
 * LC_ALL=C.UTF-8, HOME=home (when not NULL), nothing from the parent.
 * Returns a malloc'd NULL-terminated array; free with pyrt_proc_env_free.
 */
char **pyrt_proc_scrubbed_env(const char *home);

/**
 * pip's environment: the minimal one plus, when set in the parent,
 * http_proxy https_proxy no_proxy (both cases), PIP_INDEX_URL,
 * PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST, PIP_CERT, SSL_CERT_FILE,
 * SSL_CERT_DIR, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE.  Only pip reaches the
 * network; an index URL may carry credentials, so no other child gets it.
 */
char **pyrt_proc_network_env(const char *home);
void pyrt_proc_env_free(char **envp);

#endif
