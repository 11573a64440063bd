/*
 * `pyrt serve`: load the pins and the platform once, open the listener (and
 * the token for TCP), start the HTTP layer, then wait in the main thread
 * for SIGTERM/SIGINT.  Stopping cancels a running job the way Ctrl-C
 * cancels `pyrt install` (core leaves nothing half-done), waits for it, ends
 * every event stream and removes the socket file.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve.h"
#include "app/common.h"
#include "app/exitcodes.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "serve/internal.h"

/* Keep-alive comments on idle event streams this often. */
#define KEEPALIVE_S 15

void srv_logf(const char *fmt, ...)
{
	char line[2048], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s pyrt serve: %s\n", stamp, line);
}

/* Everything the server holds, freed in one place. */
typedef struct serve_state {
	pyrt_pins *pins;
	pyrt_platform platform;
	pyrt_box *box;
	srv_listener l;
	srv_ctx ctx;
	srv_jobs *jobs;
	srv_http *http;
	char token[SRV_TOKEN_HEX + 1];
	char msg[PYRT_ERROR_MSG_MAX + 512];
} serve_state;

static int load_token(serve_state *s, const app_request *opts)
{
	char path[4200];
	if (opts->token_file)
		snprintf(path, sizeof path, "%s", opts->token_file);
	else
		snprintf(path, sizeof path, "%s/api.token",
			 pyrt_box_runtime_dir(s->box));
	int created = 0;
	if (srv_token_load(path, s->token, &created, s->msg, sizeof s->msg) != 0)
		return -1;
	srv_logf("bearer token %s %s", created ? "created in" : "renewed in", path);
	return 0;
}

/* pins, platform, box, listener, token, jobs, HTTP. */
static int serve_start(serve_state *s, const app_request *opts)
{
	int rc = app_load_pins(opts, &s->pins, s->msg, sizeof s->msg);
	if (rc == 0)
		rc = app_detect_platform(&s->platform, s->msg, sizeof s->msg);
	if (rc < 0)
		return rc;
	if (srv_listen_check(opts, s->msg, sizeof s->msg) != 0)
		return PYRT_E_USAGE;
	pyrt_error err = PYRT_ERROR_INIT;
	rc = srv_lazy_mhd(&err);
	if (rc < 0) {
		snprintf(s->msg, sizeof s->msg, "%s", err.msg);
		return rc;
	}
	rc = pyrt_box_open(&s->box, opts->box_root, 1, &err);
	if (rc < 0) {
		snprintf(s->msg, sizeof s->msg, "%s", err.msg);
		return rc;
	}
	/* The default socket lives in the box's runtime folder, which only
	 * root may write in root's shared box: say so, not a bind error. */
	if (!opts->listen && pyrt_box_shared(s->box)) {
		snprintf(s->msg, sizeof s->msg,
			 "%s is root's box, shared read-only: its API socket "
			 "cannot be made there by you; run \"sudo pyrt serve "
			 "--box-root %s\", or serve its read-only answers "
			 "yourself with --listen "
			 "unix:$XDG_RUNTIME_DIR/pyrt-api.sock",
			 opts->box_root, opts->box_root);
		return PYRT_E_READONLY;
	}
	if (srv_listen_open(opts, pyrt_box_runtime_dir(s->box), &s->l, s->msg,
			    sizeof s->msg) != 0)
		return PYRT_E_USAGE;
	if (s->l.is_tcp && load_token(s, opts) != 0)
		return PYRT_E_IO;
	s->ctx.opts = opts;
	s->ctx.pins = s->pins;
	s->ctx.platform_key = s->platform.key;
	s->ctx.cacert = app_cacert(opts);
	s->ctx.lock_path = pyrt_box_lock_path(s->box);
	s->ctx.status_cache = pyrt_status_cache_new();
	s->ctx.status_memo = srv_status_memo_new();
	s->jobs = srv_jobs_new(&s->ctx);
	if (!s->jobs || !s->ctx.status_cache || !s->ctx.status_memo) {
		snprintf(s->msg, sizeof s->msg, "out of memory");
		return PYRT_E_NOMEM;
	}
	s->http = srv_http_start(&s->ctx, s->jobs, &s->l,
				 s->l.is_tcp ? s->token : NULL, s->msg,
				 sizeof s->msg);
	if (!s->http)
		return PYRT_E_INTERNAL;
	s->l.fd = -1; /* the daemon owns and closes it now */
	srv_logf("listening on %s%s%s (pyrt %s, box %s)", s->l.where,
		 s->l.activated ? ", passed by systemd" : "",
		 s->l.is_tcp ? ", bearer token required" : "", PYRT_VERSION,
		 opts->box_root);
	if (s->l.long_path)
		srv_logf("the socket path is over 107 bytes, more than most clients can connect to; give them a shorter symlink to it (ln -s %s $XDG_RUNTIME_DIR/pyrt-api.sock) or start with --listen unix:SHORTER_PATH",
			 s->l.where + 5);
	return 0;
}

/* Until SIGTERM or SIGINT; idle event streams get keep-alives. */
static int wait_for_stop(const sigset_t *set, srv_jobs *jobs)
{
	struct timespec ts = { KEEPALIVE_S, 0 };
	for (;;) {
		int sig = sigtimedwait(set, NULL, &ts);
		if (sig > 0)
			return sig;
		if (errno == EAGAIN)
			srv_jobs_keepalive(jobs);
	}
}

int serve_main(const app_request *opts)
{
	serve_state *s = calloc(1, sizeof *s);
	if (!s) {
		app_errorf("serve: out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	s->l.fd = -1;
	/* Every thread started from here on inherits the mask: the signals
	 * reach only sigtimedwait below.  A client that hangs up must not
	 * kill the server. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	int rc = serve_start(s, opts);
	int status = 0;
	if (rc < 0) {
		app_errorf("serve: %s", s->msg[0] ? s->msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
	} else {
		for (;;) {
			int sig = wait_for_stop(&set, s->jobs);
			if (sig == SIGHUP)
				continue;
			srv_logf("%s: stopping", strsignal(sig));
			break;
		}
		srv_jobs_shutdown(s->jobs);
	}
	srv_http_stop(s->http);
	srv_listen_close(&s->l);
	srv_jobs_free(s->jobs);
	pyrt_status_cache_free(s->ctx.status_cache);
	srv_status_memo_free(s->ctx.status_memo);
	pyrt_box_free(s->box);
	pyrt_pins_free(s->pins);
	if (status == 0)
		srv_logf("stopped");
	free(s);
	return status;
}
