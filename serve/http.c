/*
 * The HTTP layer: libmicrohttpd in its own poll(2) thread pool, a connection
 * limit and a per-connection timeout.  Every request passes the same gate
 * before routing: one Host, and it names loopback (DNS rebinding); an
 * Origin, when sent, is a loopback one (a web page in a browser); on TCP the
 * bearer token, compared in constant time.  No CORS header is ever sent.
 * Bodies are JSON objects of at most 16 KiB with known fields only, and
 * none of them says where code comes from: the mirror, wheelhouse, index,
 * CA and requirements are the server's own options (a token holder can run
 * the pinned operations, never choose what they install).  A connection
 * that has not passed the gate lives under serve/guard.c's deadline and cap.
 */
#include <ctype.h>
#include <microhttpd.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/doctor.h"
#include "app/box.h"
#include "app/doctor_json.h"
#include "app/fix.h"
#include "app/plugin.h"
#include "app/status_json.h"
#include "app/text.h"
#include "core/diagnose/doctor.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/status.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "serve/internal.h"

#define POOL_THREADS_MAX 8
#define CONN_TIMEOUT_S 30
/* Each connection's memory pool, which libmicrohttpd zeroes between two
 * requests on a kept-alive connection: its 32 KiB default was the largest
 * user-space cost of a status poll.  A request's headers and the
 * response's own fit in a few hundred bytes (a body is never copied into
 * it: status answers are shared, others malloc'd); headers past ~7 KiB are
 * answered 431. */
#define CONN_MEMORY 8192
#define SRV_BODY_DRAIN_MAX (1024 * 1024)

struct srv_http {
	struct MHD_Daemon *d;
	const srv_ctx *ctx;
	srv_jobs *jobs;
	srv_guard *guard;
	int need_token;
	char token[SRV_TOKEN_HEX + 1];
};

/* Per request: the body read so far. */
typedef struct req {
	char *body;
	size_t len;
	int too_big;
	int answered;
	const char *if_none_match; /* in libmicrohttpd's pool, per request */
} req;

static enum MHD_Result send_json_header(struct MHD_Connection *c,
					unsigned status, json_t *obj,
					const char *header, const char *value);

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned status,
				 json_t *obj, const char *location)
{
	return send_json_header(c, status, obj, location ? "Location" : NULL,
				location);
}

/* The JSON body with one more header (Location, Allow) when named. */
static enum MHD_Result send_json_header(struct MHD_Connection *c,
					unsigned status, json_t *obj,
					const char *header, const char *value)
{
	char *text = obj ? json_dumps(obj, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS)
			 : NULL;
	json_decref(obj);
	if (!text) {
		text = strdup("{\"error\": {\"code\": \"internal\", \"message\": \"out of memory\", \"fix\": null}}");
		status = 500;
		if (!text)
			return MHD_NO;
	}
	size_t n = strlen(text);
	text[n] = '\n'; /* the NUL is not sent; a newline ends the body */
	struct MHD_Response *r = MHD_create_response_from_buffer(
		n + 1, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (header && value)
		MHD_add_response_header(r, header, value);
	if (status == 401)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status,
				  const char *code, const char *message,
				  const char *fix)
{
	return send_json(c, status, srv_error(code, message, fix), NULL);
}

static enum MHD_Result too_large(struct MHD_Connection *c)
{
	return send_error(c, 413, "too_large", "the request body is larger than 16 KiB", "send a smaller JSON object");
}

/* "localhost", "127.0.0.1" or "[::1]", then ":digits" or nothing. */
static int loopback_hostport(const char *s, size_t len)
{
	static const char *const names[] = { "localhost", "127.0.0.1", "[::1]" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(names[i]);
		if (len < n || strncasecmp(s, names[i], n) != 0)
			continue;
		if (len == n)
			return 1;
		if (s[n] != ':' || len == n + 1 || len > n + 6)
			return 0;
		for (size_t k = n + 1; k < len; k++)
			if (!isdigit((unsigned char)s[k]))
				return 0;
		return 1;
	}
	return 0;
}

/* The headers the gate and the routes read, found in one pass over the
 * request's headers: the first of each name (what a lookup would give)
 * and how many Host and Origin headers there are. */
typedef struct req_headers {
	const char *host, *origin, *auth, *content_length, *transfer_encoding,
		*if_none_match;
	int hosts, origins;
} req_headers;

static void keep_first(const char **slot, const char *value)
{
	if (!*slot)
		*slot = value;
}

static enum MHD_Result note_header(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	req_headers *rh = cls;
	(void)kind;
	if (strcasecmp(key, "Host") == 0) {
		rh->hosts++;
		keep_first(&rh->host, value);
	} else if (strcasecmp(key, "Origin") == 0) {
		rh->origins++;
		keep_first(&rh->origin, value);
	} else if (strcasecmp(key, "Authorization") == 0) {
		keep_first(&rh->auth, value);
	} else if (strcasecmp(key, "Content-Length") == 0) {
		keep_first(&rh->content_length, value);
	} else if (strcasecmp(key, "Transfer-Encoding") == 0) {
		keep_first(&rh->transfer_encoding, value);
	} else if (strcasecmp(key, "If-None-Match") == 0) {
		keep_first(&rh->if_none_match, value);
	}
	return MHD_YES;
}

/* An Origin a browser page on this machine would send: one header,
 * http(s)://loopback[:port]. */
static int origin_ok(const req_headers *rh)
{
	const char *origin = rh->origin;
	if (!origin)
		return 1;
	/* A lookup would give the first Origin only; a proxy or browser
	 * component in between may act on the other: refuse both. */
	if (rh->origins > 1)
		return 0;
	const char *rest = strncmp(origin, "http://", 7) == 0 ? origin + 7
		: strncmp(origin, "https://", 8) == 0 ? origin + 8 : NULL;
	return rest && loopback_hostport(rest, strlen(rest));
}

/* Host, Origin, then the token; 0 when the request may go on, else the
 * error is queued and its MHD result is in *out. */
static int gate(srv_http *h, struct MHD_Connection *c, const char *url,
		const req_headers *rh, enum MHD_Result *out)
{
	const char *host = rh->host;
	if (rh->hosts > 1 || url[0] != '/' || (host && strchr(host, ','))) {
		*out = send_error(c, 400, "bad_host", "the request names more than one host", "send one Host header and a path-only request target");
		return 1;
	}
	if (!host || !loopback_hostport(host, strlen(host))) {
		*out = send_error(c, 421, "misdirected", "the Host header must be localhost, 127.0.0.1 or [::1] (with any port); this server answers nothing else",
				  "connect to the loopback address directly (no DNS name, no proxy)");
		return 1;
	}
	if (!origin_ok(rh)) {
		*out = send_error(c, 403, "forbidden_origin", "requests from a web page of another origin (or with more than one Origin header) are refused",
				  "call the API from a local program, not from a browser page");
		return 1;
	}
	if (!h->need_token)
		return 0;
	const char *auth = rh->auth;
	int ok = auth && strncmp(auth, "Bearer ", 7) == 0 &&
		 strlen(auth + 7) == SRV_TOKEN_HEX &&
		 pyrt_bytes_equal_ct(auth + 7, h->token, SRV_TOKEN_HEX);
	if (!ok) {
		*out = send_error(c, 401, "unauthorized", auth ? "the bearer token is wrong" : "this TCP listener needs a bearer token",
				  "send Authorization: Bearer <the token in the --token-file>");
		return 1;
	}
	return 0;
}

/* Fields older clients sent to choose where code comes from. */
static int names_code_source(const char *key)
{
	static const char *const sources[] = { "mirror", "wheelhouse",
		"index_url", "index", "cacert", "requirements", "from_file",
		NULL };
	for (size_t i = 0; sources[i]; i++)
		if (strcmp(key, sources[i]) == 0)
			return 1;
	return 0;
}

static enum MHD_Result unknown_field(struct MHD_Connection *c,
				     const char *key)
{
	char msg[300];
	if (names_code_source(key)) {
		snprintf(msg, sizeof msg, "unknown field '%s': where code comes from is the server's configuration, never a request field", key);
		return send_error(c, 400, "bad_request", msg,
				  "start pyrt serve with --mirror URL, --wheelhouse DIR, --index-url URL, --requirements FILE or --cacert FILE, and send only the fields docs/api.yaml lists");
	}
	snprintf(msg, sizeof msg, "unknown field '%.100s'", key);
	return send_error(c, 400, "bad_request", msg, "send only the fields docs/api.yaml lists");
}

/* The body as a JSON object with only the allowed fields; NULL (with the
 * error queued) otherwise.  An empty body is {}. */
static json_t *body_object(struct MHD_Connection *c, const req *r,
			   const char *const *allowed, enum MHD_Result *out)
{
	if (r->too_big) {
		*out = too_large(c);
		return NULL;
	}
	if (r->len == 0)
		return json_object();
	json_error_t jerr;
	json_t *o = json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(o)) {
		char msg[300];
		snprintf(msg, sizeof msg, "the body is not a JSON object: %s",
			 o ? "not an object" : jerr.text);
		json_decref(o);
		*out = send_error(c, 400, "bad_request", msg, "send a JSON object, see docs/api.yaml");
		return NULL;
	}
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		int known = 0;
		for (size_t i = 0; allowed[i]; i++)
			known |= strcmp(key, allowed[i]) == 0;
		if (!known) {
			*out = unknown_field(c, key);
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* A change this server's user may not make is answered now, not by a job
 * that fails later: 403 read_only with the whole command to run instead. */
static int refuse_change(srv_http *h, struct MHD_Connection *c,
			 const srv_job_params *p, enum MHD_Result *out)
{
	char command[320], msg[PYRT_ERROR_MSG_MAX + 1024], fix[1024];
	snprintf(command, sizeof command, "%s%s",
		 p->kind == SRV_KIND_INSTALL ? "install"
		 : p->kind == SRV_KIND_BASELINE ? "baseline" : "plugins install ",
		 p->kind == SRV_KIND_PLUGIN && p->plugin ? p->plugin : "");
	if (app_may_change(h->ctx->opts, command, msg, sizeof msg, fix,
			   sizeof fix) != PYRT_E_READONLY)
		return 0;
	*out = send_error(c, 403, "read_only", msg, fix);
	return 1;
}

static enum MHD_Result start_job(srv_http *h, struct MHD_Connection *c,
				 const srv_job_params *p)
{
	json_t *job = NULL, *err = NULL;
	char id[64], loc[96];
	enum MHD_Result refused;
	if (refuse_change(h, c, p, &refused))
		return refused;
	int status = srv_jobs_start(h->jobs, p, &job, id, sizeof id, &err);
	if (status)
		return send_json(c, (unsigned)status, err, NULL);
	snprintf(loc, sizeof loc, "/api/jobs/%s", id);
	return send_json(c, 202, job, loc);
}

static enum MHD_Result post_install(srv_http *h, struct MHD_Connection *c,
				    const req *r)
{
	static const char *const allowed[] = { "consent", "no_baseline",
					       NULL };
	enum MHD_Result out;
	json_t *o = body_object(c, r, allowed, &out);
	if (!o)
		return out;
	srv_job_params p = { .kind = SRV_KIND_INSTALL };
	json_t *consent = json_object_get(o, "consent");
	json_t *nb = json_object_get(o, "no_baseline");
	const char *bad = NULL;
	if (!json_is_true(consent))
		bad = "consent";
	else if (nb && !json_is_boolean(nb))
		bad = "no_baseline";
	if (bad && strcmp(bad, "consent") == 0)
		out = send_error(c, 400, "consent_required", "installing downloads and runs a Python runtime; it needs the user's consent: {\"consent\": true}",
				 "ask the user, then send {\"consent\": true}");
	else if (bad) {
		char msg[128];
		snprintf(msg, sizeof msg, "field '%s' has the wrong type", bad);
		out = send_error(c, 400, "bad_request", msg, "see docs/api.yaml for the field types");
	} else {
		p.no_baseline = json_is_true(nb);
		out = start_job(h, c, &p);
	}
	json_decref(o);
	return out;
}

/* A plugin install the CLI would refuse as a usage error (no such
 * plugin, an invalid manifest) is refused here, not a job that fails. */
static enum MHD_Result plugin_refusal(srv_http *h, struct MHD_Connection *c,
				      const char *name, int *refused)
{
	pyrt_plugins *plugins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_events ev = PYRT_EVENTS_INIT;
	int rc = app_plugins_check(&plugins, h->ctx->opts->box_root,
				   h->ctx->pins, h->ctx->platform_key, 0, NULL,
				   &ev, &err);
	const pyrt_plugin *pl = NULL;
	int lrc = rc == 0 ? app_plugin_lookup(plugins, h->ctx->opts->box_root,
					      name, &pl, &err) : 0;
	enum MHD_Result out = MHD_YES;
	*refused = 1;
	if (rc != 0) {
		out = send_error(c, 500, "plugins", err.msg[0] ? err.msg : pyrt_strerror(rc), "run pyrt doctor");
	} else if (lrc && !pl) {
		out = send_error(c, 404, "unknown_plugin", err.msg, "GET /api/plugins lists them");
	} else if (lrc) {
		out = send_error(c, 400, "invalid_plugin", err.msg, "fix its plugin.yaml (GET /api/plugins says what is wrong)");
	} else {
		*refused = 0;
	}
	pyrt_plugins_free(plugins);
	return out;
}

/* POST /baseline and /plugins/<name>/install: an empty object. */
static enum MHD_Result post_simple(srv_http *h, struct MHD_Connection *c,
				   const req *r, srv_job_kind kind,
				   const char *plugin)
{
	static const char *const allowed[] = { NULL };
	enum MHD_Result out;
	json_t *o = body_object(c, r, allowed, &out);
	if (!o)
		return out;
	json_decref(o);
	int refused = 0;
	if (plugin) {
		out = plugin_refusal(h, c, plugin, &refused);
		if (refused)
			return out;
	}
	srv_job_params p = { .kind = kind, .plugin = plugin };
	return start_job(h, c, &p);
}

/* One thread per CPU the process may run on: more only queue behind each
 * other (and behind a client on the same machine) and stretch the tail. */
static unsigned pool_threads(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 2;
	int n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > POOL_THREADS_MAX ? POOL_THREADS_MAX : (unsigned)n;
}

static enum MHD_Result get_status(srv_http *h, struct MHD_Connection *c,
				  const req *rq)
{
	const char *deep = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "deep");
	if (deep && strcmp(deep, "0") != 0 && strcmp(deep, "1") != 0) {
		char msg[200];
		snprintf(msg, sizeof msg, "deep=%.40s: deep is 0 or 1", deep);
		return send_error(c, 400, "bad_request", msg, "send ?deep=1 to also start the interpreter, or leave it out");
	}
	pyrt_error err = PYRT_ERROR_INIT;
	srv_status_answer *a = deep && strcmp(deep, "1") == 0
		? srv_status_read_answer(h->ctx, 1, &err)
		: srv_status_memo_get(h->ctx->status_memo, h->ctx, &err);
	if (!a)
		return send_error(c, 500, "status", err.msg[0] ? err.msg : "out of memory", "run pyrt doctor");
	/* The answer's own responses, headers and all: the connection
	 * takes its reference to the one it sends before ours goes. */
	int same = rq->if_none_match && strcmp(rq->if_none_match, a->etag) == 0;
	enum MHD_Result out = MHD_queue_response(c, same ? 304 : 200,
						 same ? a->not_modified : a->ok);
	srv_status_answer_release(a);
	return out;
}

static enum MHD_Result get_plugins(srv_http *h, struct MHD_Connection *c)
{
	pyrt_plugins *plugins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_events ev = PYRT_EVENTS_INIT;
	int rc = app_plugins_check(&plugins, h->ctx->opts->box_root,
				   h->ctx->pins, h->ctx->platform_key, 0, NULL,
				   &ev, &err);
	if (rc == 0 && app_fix_plugins(h->ctx->opts, plugins))
		rc = pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	json_t *obj = rc == 0 ? app_plugins_json(plugins) : NULL;
	pyrt_plugins_free(plugins);
	if (!obj)
		return send_error(c, 500, "plugins", err.msg[0] ? err.msg : pyrt_strerror(rc), "run pyrt doctor");
	return send_json(c, 200, obj, NULL);
}

/* The first query argument's name (MHD's iterator stops at it). */
static enum MHD_Result first_key(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	(void)kind;
	(void)value;
	*(const char **)cls = key;
	return MHD_NO;
}

/*
 * doctor as `pyrt doctor` runs it, network included, reaching only what the
 * server was started with (--mirror, --index-url, --cacert): a caller
 * choosing a URL would make the server connect where it says, so the
 * request takes no arguments at all.
 */
static enum MHD_Result get_doctor(srv_http *h, struct MHD_Connection *c)
{
	const char *arg = NULL;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, first_key, &arg);
	if (arg)
		return unknown_field(c, arg);
	const app_request *srv = h->ctx->opts;
	app_request own = {
		.box_root = srv->box_root,
		.mirror = srv->mirror,
		.index_url = srv->index_url,
		.wheelhouse = srv->wheelhouse,
		.cacert = h->ctx->cacert,
	};
	pyrt_doctor *d = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_events ev = PYRT_EVENTS_INIT;
	int rc = app_doctor_run(&own, h->ctx->pins, h->ctx->platform_key, &ev,
				&d, &err);
	json_t *obj = rc == 0 ? app_doctor_json(d) : NULL;
	pyrt_doctor_free(d);
	if (!obj)
		return send_error(c, 500, "doctor", err.msg[0] ? err.msg : pyrt_strerror(rc), "run pyrt doctor");
	return send_json(c, 200, obj, NULL);
}

static enum MHD_Result get_events(srv_http *h, struct MHD_Connection *c,
				  const char *id)
{
	int full = 0;
	srv_sub *s = srv_sub_new(h->jobs, id, c, &full);
	if (!s)
		return full ? send_error(c, 503, "too_many_subscribers", "too many event streams are open", "close one and retry, or poll GET /api/jobs/<id>")
			    : send_error(c, 404, "not_found", "no such job", "GET a job's href from the POST that started it");
	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 4096, srv_sub_read, s, srv_sub_free);
	if (!r) {
		srv_sub_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	enum MHD_Result out = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return out;
}

/* /api/jobs/<id>[/events]: the id (32 hex digits) and whether /events. */
static int job_path(const char *url, char *id, size_t idlen, int *events)
{
	const char *p = url + strlen("/api/jobs/");
	size_t n = strspn(p, "0123456789abcdef");
	if (n != 32 || n >= idlen)
		return -1;
	memcpy(id, p, n);
	id[n] = '\0';
	*events = strcmp(p + n, "/events") == 0;
	return (p[n] == '\0' || *events) ? 0 : -1;
}

/* 405 says which methods the path takes (RFC 9110 15.5.6: Allow is
 * required). */
static enum MHD_Result method_not_allowed(struct MHD_Connection *c,
					  const char *allow)
{
	char msg[128];
	snprintf(msg, sizeof msg, "this method is not allowed on this path; it takes %s", allow);
	return send_json_header(c, 405, srv_error("method_not_allowed", msg, "see docs/api.yaml"),
				"Allow", allow);
}

#define ALLOW_GET "GET, HEAD"
#define ALLOW_POST "POST"

static enum MHD_Result route_jobs(srv_http *h, struct MHD_Connection *c,
				  const char *url, const char *method)
{
	char id[40];
	int events = 0;
	if (job_path(url, id, sizeof id, &events) != 0)
		return send_error(c, 404, "not_found", "no such job", "GET a job's href from the POST that started it");
	if (events)
		return strcmp(method, "GET") == 0 ? get_events(h, c, id)
						  : method_not_allowed(c, "GET");
	if (strcmp(method, "GET") == 0) {
		json_t *o = srv_jobs_get(h->jobs, id);
		return o ? send_json(c, 200, o, NULL)
			 : send_error(c, 404, "not_found", "no such job", "GET a job's href from the POST that started it");
	}
	if (strcmp(method, "DELETE") != 0)
		return method_not_allowed(c, "GET, DELETE");
	json_t *o = NULL;
	int st = srv_jobs_cancel(h->jobs, id, &o);
	if (st == 404)
		return send_error(c, 404, "not_found", "no such job", "GET a job's href from the POST that started it");
	if (st == 409) {
		json_t *e = srv_error("finished", "the job has already finished", "nothing to cancel");
		json_object_set_new(e, "job", o);
		return send_json(c, 409, e, NULL);
	}
	return send_json(c, 202, o, NULL);
}

/* /api/plugins/<name>/install → the name, or NULL. */
static int plugin_path(const char *url, char *name, size_t len)
{
	const char *p = url + strlen("/api/plugins/");
	const char *slash = strchr(p, '/');
	if (!slash || slash == p || strcmp(slash, "/install") != 0 ||
	    (size_t)(slash - p) >= len)
		return -1;
	snprintf(name, len, "%.*s", (int)(slash - p), p);
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(name) ? 0 : -1;
}

static enum MHD_Result route(srv_http *h, struct MHD_Connection *c,
			     const char *url, const char *method, const req *r)
{
	int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	int post = strcmp(method, "POST") == 0;
	if (strcmp(url, "/api/health") == 0)
		return get ? send_json(c, 200, json_pack("{s:s, s:s}", "status", "ok", "version", PYRT_VERSION), NULL)
			   : method_not_allowed(c, ALLOW_GET);
	if (strcmp(url, "/api/runtime/python") == 0)
		return get ? get_status(h, c, r) : method_not_allowed(c, ALLOW_GET);
	if (strcmp(url, "/api/plugins") == 0)
		return get ? get_plugins(h, c) : method_not_allowed(c, ALLOW_GET);
	if (strcmp(url, "/api/doctor") == 0)
		return get ? get_doctor(h, c) : method_not_allowed(c, ALLOW_GET);
	if (strcmp(url, "/api/runtime/python/install") == 0)
		return post ? post_install(h, c, r) : method_not_allowed(c, ALLOW_POST);
	if (strcmp(url, "/api/runtime/python/baseline") == 0)
		return post ? post_simple(h, c, r, SRV_KIND_BASELINE, NULL)
			    : method_not_allowed(c, ALLOW_POST);
	if (strncmp(url, "/api/jobs/", 10) == 0)
		return route_jobs(h, c, url, method);
	char name[256];
	if (strncmp(url, "/api/plugins/", 13) == 0 &&
	    plugin_path(url, name, sizeof name) == 0)
		return post ? post_simple(h, c, r, SRV_KIND_PLUGIN, name)
			    : method_not_allowed(c, ALLOW_POST);
	return send_error(c, 404, "not_found", "no such endpoint", "see docs/api.yaml");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	srv_http *h = cls;
	req *r = *con_cls;
	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		*con_cls = r;
		req_headers rh = { 0 };
		MHD_get_connection_values(c, MHD_HEADER_KIND, note_header, &rh);
		r->if_none_match = rh.if_none_match;
		enum MHD_Result out;
		if (gate(h, c, url, &rh, &out)) {
			r->answered = 1;
			return out;
		}
		srv_guard_trust(h->guard, c);
		/* A body a little too big is read and dropped, so the client
		 * (still sending) gets its 413; a huge one is answered at
		 * once and the connection closed.  A chunked body says its
		 * size only at its end, and libmicrohttpd can answer only
		 * before a body or after all of it: it is refused at once,
		 * never read for ever. */
		const char *cl = rh.content_length;
		if (rh.transfer_encoding) {
			r->answered = 1;
			return send_error(c, 413, "too_large", "a request body without a Content-Length (Transfer-Encoding: chunked) is refused: its size cannot be held to the 16 KiB cap before it is read",
					  "send the JSON object (at most 16 KiB) with a Content-Length");
		}
		if (cl && strtoull(cl, NULL, 10) > SRV_BODY_DRAIN_MAX) {
			r->answered = 1;
			return too_large(c);
		}
		return MHD_YES;
	}
	if (r->answered) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		*upload_size = 0;
		if (r->too_big || r->len + n > SRV_BODY_MAX) {
			r->too_big = 1;
			return MHD_YES;
		}
		char *b = realloc(r->body, r->len + n + 1);
		if (!b)
			return MHD_NO;
		memcpy(b + r->len, upload, n);
		r->body = b;
		r->len += n;
		return MHD_YES;
	}
	r->answered = 1;
	return route(h, c, url, method, r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	req *r = *con_cls;
	if (r) {
		free(r->body);
		free(r);
	}
	*con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	srv_logf("http: %s", line);
}

srv_http *srv_http_start(const srv_ctx *ctx, srv_jobs *jobs,
			 const srv_listener *l, const char *token,
			 char *msg, size_t msglen)
{
	srv_http *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(msg, msglen, "out of memory");
		return NULL;
	}
	h->ctx = ctx;
	h->jobs = jobs;
	h->need_token = l->is_tcp;
	if (token)
		snprintf(h->token, sizeof h->token, "%s", token);
	h->guard = srv_guard_new(SRV_HEADER_DEADLINE_S, SRV_UNTRUSTED_MAX,
				 SRV_UNTRUSTED_GRACE_S);
	if (!h->guard) {
		snprintf(msg, msglen, "cannot start the connection guard (out of memory or threads)");
		free(h);
		return NULL;
	}
	/* poll(2), not epoll: libmicrohttpd's epoll loop (0.9.75, and still
	 * upstream) reads at most 128 events per epoll_wait and, when it got
	 * exactly 128, calls epoll_wait again with the full timeout (up to
	 * CONN_TIMEOUT_S) before handling any of them.  A pool thread holding
	 * 128 keep-alive connections that all asked at once then sleeps until
	 * a new event or the timeout, and those 128 requests hang 30 s and
	 * are closed (issue 19; docs/RELIABILITY.md, e2e_serve_load).  poll
	 * handles what one call returned. */
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, l->fd,
		MHD_OPTION_THREAD_POOL_SIZE, pool_threads(),
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)SRV_CONN_LIMIT,
		MHD_OPTION_NOTIFY_CONNECTION, srv_guard_notify, h->guard,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_CONNECTION_MEMORY_INCREMENT, (size_t)1024,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!h->d) {
		snprintf(msg, msglen, "libmicrohttpd could not start on %s", l->where);
		srv_guard_free(h->guard);
		free(h);
		return NULL;
	}
	return h;
}

void srv_http_stop(srv_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	srv_guard_free(h->guard);
	free(h);
}
