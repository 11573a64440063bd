/*
 * The server's modules: the listener (socket, systemd activation, token),
 * the jobs (install, baseline, plugin install in worker threads, their
 * event logs and SSE subscribers) and the HTTP layer (libmicrohttpd).
 */
#ifndef PYRT_SERVE_INTERNAL_H
#define PYRT_SERVE_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

#include "app/args.h"
#include "core/dist/pins.h"
#include "core/runtime/status.h"
#include "core/util/error.h"

#define SRV_TOKEN_HEX 64

/* ---- lazy_mhd.c ---- */
/** Load libmicrohttpd (once); PYRT_E_UNSUPPORTED naming the library and its
 *  Debian package when it cannot be loaded. */
int srv_lazy_mhd(pyrt_error *err);
#define SRV_BODY_MAX 16384
#define SRV_SSE_MAX 32
#define SRV_JOBS_KEPT 64

/* ---- listen.c ---- */
typedef struct srv_listener {
	int fd;
	int is_tcp;             /* a token is required */
	int activated;          /* passed by systemd */
	char where[4200];       /* "unix:/path", "127.0.0.1:8080" */
	char unlink_path[4096]; /* our socket file, removed at exit; "" */
	int long_path;          /* over sun_path's 107 bytes: bound via /proc */
} srv_listener;

/** Refuse a --listen that names no loopback TCP address, before anything
 * is created. */
int srv_listen_check(const app_request *opts, char *msg, size_t msglen);

/** Open the listener the options ask for (or systemd's).  Returns 0, or -1
 * with msg naming what was wrong and the fix. */
int srv_listen_open(const app_request *opts, const char *runtime_dir,
		    srv_listener *out, char *msg, size_t msglen);
void srv_listen_close(srv_listener *l);

/** Write a new token to the token file (0600) at each start, replacing
 *  the last one (which must be a private file of ours); *created is 1
 *  when there was none. */
int srv_token_load(const char *path, char token[SRV_TOKEN_HEX + 1],
		   int *created, char *msg, size_t msglen);

/* ---- jobs.c ---- */
typedef enum srv_job_state {
	SRV_JOB_QUEUED = 0,
	SRV_JOB_RUNNING,
	SRV_JOB_SUCCEEDED,
	SRV_JOB_FAILED,
	SRV_JOB_CANCELLED
} srv_job_state;

typedef enum srv_job_kind {
	SRV_KIND_INSTALL = 0,
	SRV_KIND_BASELINE,
	SRV_KIND_PLUGIN
} srv_job_kind;

typedef struct srv_job_params {
	srv_job_kind kind;
	int no_baseline;
	const char *plugin;     /* copied */
} srv_job_params;

typedef struct srv_jobs srv_jobs;
typedef struct srv_job srv_job;
typedef struct srv_sub srv_sub;

/** The context every job runs with (read-only, outlives the registry). */
typedef struct srv_ctx {
	const app_request *opts;
	const pyrt_pins *pins;
	const char *platform_key;
	const char *cacert;
	const char *lock_path;
	pyrt_status_cache *status_cache; /* the manifest digest, per file */
	struct srv_status_memo *status_memo; /* the last answer, watched */
} srv_ctx;

/* ---- status_memo.c ---- */
typedef struct srv_status_memo srv_status_memo;
srv_status_memo *srv_status_memo_new(void);
void srv_status_memo_free(srv_status_memo *m);
/** One GET /api/runtime/python answer, immutable once made and shared by
 *  every request that serves it: its body ('\n'-ended, len bytes), ETag,
 *  and its two libmicrohttpd responses, made once with their headers (200
 *  with the body, 304 without) and queued as they are on every
 *  connection (libmicrohttpd counts its own references to a response).
 *  Each holder releases the answer once; the last release drops the
 *  responses, and the memory goes when the last connection sending the
 *  200 is done with it. */
typedef struct srv_status_answer {
	int refs;                /* atomic */
	struct MHD_Response *ok, *not_modified;
	size_t len;
	char etag[24];
	char body[];
} srv_status_answer;
void srv_status_answer_release(srv_status_answer *a);
/** The answer from memory while nothing it was made from changed, a new
 *  reference; NULL with err when the box cannot be read. */
srv_status_answer *srv_status_memo_get(srv_status_memo *m, const srv_ctx *ctx,
				       pyrt_error *err);
/** The same answer read from the box now (deep: also start the
 *  interpreter); the caller holds the only reference. */
srv_status_answer *srv_status_read_answer(const srv_ctx *ctx, int deep,
					  pyrt_error *err);

srv_jobs *srv_jobs_new(const srv_ctx *ctx);
/** Cancel the running job, join it, end every subscriber's stream. */
void srv_jobs_shutdown(srv_jobs *jobs);
void srv_jobs_free(srv_jobs *jobs);

/**
 * Start a job.  Returns 0 with *job_json (the job object) and id filled;
 * or an HTTP status (409 busy, 500) with *err_json (an error object).
 */
int srv_jobs_start(srv_jobs *jobs, const srv_job_params *p, json_t **job_json,
		   char *id, size_t idlen, json_t **err_json);

/** The job object, or NULL (unknown id). */
json_t *srv_jobs_get(srv_jobs *jobs, const char *id);
/** Set its cancel flag: 202, 404 unknown, 409 already finished. */
int srv_jobs_cancel(srv_jobs *jobs, const char *id, json_t **job_json);

/** A new SSE subscriber (from the job's first event); NULL: unknown id
 * (*full = 0) or too many subscribers (*full = 1). */
srv_sub *srv_sub_new(srv_jobs *jobs, const char *id,
		     struct MHD_Connection *conn, int *full);
/** The MHD content reader and its free callback. */
ssize_t srv_sub_read(void *cls, uint64_t pos, char *buf, size_t max);
void srv_sub_free(void *cls);
/** Let every waiting subscriber send a keep-alive comment. */
void srv_jobs_keepalive(srv_jobs *jobs);

/** {"error": {"code", "message", "fix"}} */
json_t *srv_error(const char *code, const char *message, const char *fix);

/* ---- guard.c ---- */
/* A connection that has not sent a request passing the gate is shut down
 * this long after its accept, however slowly it trickles bytes... */
#define SRV_HEADER_DEADLINE_S 10.0
/* ...and at most this many of them are open once SRV_UNTRUSTED_GRACE_S
 * old: the oldest goes when another is accepted or the watchdog looks.
 * The grace is for a burst of real clients: hundreds may connect before
 * the server has read the request each sent at once. */
#define SRV_UNTRUSTED_MAX 64
#define SRV_UNTRUSTED_GRACE_S 2.0
/* The whole server's connections: 300 keep-alive pollers and a full cap
 * of untrusted ones fit, well under the usual 1024 descriptors.  Also the
 * listen backlog, so a burst of connects waits in the kernel's queue
 * rather than being refused (Unix) or retried a second later (TCP). */
#define SRV_CONN_LIMIT 512
typedef struct srv_guard srv_guard;
/** Start the watchdog thread; NULL when out of memory or threads. */
srv_guard *srv_guard_new(double deadline_s, unsigned max, double grace_s);
/** Stop it; after the daemon is stopped. */
void srv_guard_free(srv_guard *g);
/** MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the guard). */
void srv_guard_notify(void *cls, struct MHD_Connection *conn,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code);
/** A request of conn passed the gate: no deadline, out of the cap. */
void srv_guard_trust(srv_guard *g, struct MHD_Connection *conn);

/* ---- http.c ---- */
typedef struct srv_http srv_http;
srv_http *srv_http_start(const srv_ctx *ctx, srv_jobs *jobs,
			 const srv_listener *l, const char *token,
			 char *msg, size_t msglen);
void srv_http_stop(srv_http *h);

/* ---- serve.c ---- */
void srv_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
