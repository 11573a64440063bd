/*
 * The jobs the API starts: an install (with its baseline and plugin check,
 * app/install.c, as `pyrt install` runs it), the baseline alone, one
 * plugin's requirements.  Each runs in its own worker thread with its own
 * cancel flag (DELETE, SIGTERM) and takes the box lock as the CLI does, so
 * a CLI install and a server job exclude each other.
 *
 * Every event is kept, already framed as SSE, so a late subscriber reads the
 * job from its start.  A subscriber with nothing to read is suspended (no
 * thread waits) and resumed by the next event, the result or a keep-alive.
 */
#include <errno.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/baseline.h"
#include "app/event_json.h"
#include "app/fix.h"
#include "app/front.h"
#include "app/install.h"
#include "app/plugin.h"
#include "app/text.h"
#include "core/runtime/lock.h"
#include "core/util/clock.h"
#include "core/util/os.h"
#include "core/util/error.h"
#include "core/util/testhook.h"
#include "serve/internal.h"

/* Progress is kept at most this often (the stream stays live, the log
 * bounded). */
#define PROGRESS_INTERVAL_S 0.1
#define EVENTS_MAX 20000

struct srv_job {
	char id[33];
	srv_job_kind kind;
	srv_job_state state;
	char step[16];
	json_t *progress;       /* the last progress event, or NULL */
	json_t *result;         /* the result event, or NULL */
	char **events;          /* SSE frames */
	size_t nevents, cap;
	double start, last_progress;
	atomic_int cancel;
	int no_baseline;
	char *plugin;
	srv_jobs *owner;
	pthread_t thread;
	int joinable;
	int subs;               /* subscribers holding it */
};

struct srv_sub {
	srv_job *job;
	struct MHD_Connection *conn;
	size_t next;            /* next event to send */
	size_t off;             /* bytes of it already sent */
	int suspended;
	int keepalive;          /* send a comment when idle */
	srv_sub *prev, *nextsub;
};

struct srv_jobs {
	const srv_ctx *ctx;
	pthread_mutex_t mu;
	srv_job *list[SRV_JOBS_KEPT];
	size_t count;
	srv_job *running;
	srv_sub *subs;
	int nsubs;
	int closing;
};

static const char *const state_names[] = {
	[SRV_JOB_QUEUED] = "queued", [SRV_JOB_RUNNING] = "running",
	[SRV_JOB_SUCCEEDED] = "succeeded", [SRV_JOB_FAILED] = "failed",
	[SRV_JOB_CANCELLED] = "cancelled",
};

static const char *const kind_names[] = {
	[SRV_KIND_INSTALL] = "install", [SRV_KIND_BASELINE] = "baseline",
	[SRV_KIND_PLUGIN] = "plugin_install",
};

json_t *srv_error(const char *code, const char *message, const char *fix)
{
	return json_pack("{s:{s:s, s:o, s:o}}", "error", "code", code,
			 "message", app_text_json(message),
			 "fix", fix ? app_text_json(fix) : json_null());
}

static int terminal(srv_job_state s)
{
	return s >= SRV_JOB_SUCCEEDED;
}

/* Wake every suspended subscriber of job (all of them when job is NULL).
 * Called with mu held. */
static void wake(srv_jobs *jobs, const srv_job *job, int keepalive)
{
	for (srv_sub *s = jobs->subs; s; s = s->nextsub) {
		if (job && s->job != job)
			continue;
		if (keepalive)
			s->keepalive = 1;
		if (s->suspended) {
			s->suspended = 0;
			MHD_resume_connection(s->conn);
		}
	}
}

/* Keep one event (framed as SSE) and wake the job's subscribers; obj is
 * consumed.  Called with mu held. */
static void record(srv_job *j, json_t *obj)
{
	if (!obj)
		return;
	const char *name = json_string_value(json_object_get(obj, "event"));
	int is_result = name && strcmp(name, "result") == 0;
	char *data = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(10) |
				APP_TEXT_JSON_FLAGS);
	char *frame = NULL;
	if (data && asprintf(&frame, "event: %s\ndata: %s\n\n",
			     name ? name : "message", data) < 0)
		frame = NULL;
	free(data);
	json_decref(obj);
	if (!frame)
		return;
	if (j->nevents == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 64;
		/* Past the cap only the result is still kept: a stream
		 * always ends with it. */
		int keep = j->nevents < EVENTS_MAX || is_result;
		char **ev = keep ? realloc(j->events, cap * sizeof *ev) : NULL;
		if (!ev) {
			free(frame);
			return;
		}
		j->events = ev;
		j->cap = cap;
	}
	j->events[j->nevents++] = frame;
	wake(j->owner, j, 0);
}

static int job_step(pyrt_step step, pyrt_step_state st, const char *detail,
		    void *state)
{
	srv_job *j = state;
	pthread_mutex_lock(&j->owner->mu);
	const char *name = app_event_step_name(step, j->kind == SRV_KIND_PLUGIN);
	snprintf(j->step, sizeof j->step, "%s", name);
	record(j, app_event_step(name, st, detail, pyrt_now() - j->start));
	pthread_mutex_unlock(&j->owner->mu);
	return 0;
}

static int job_progress(pyrt_step step, const pyrt_progress *p, void *state)
{
	srv_job *j = state;
	double now = pyrt_now();
	if (j->last_progress >= 0 && now - j->last_progress < PROGRESS_INTERVAL_S)
		return 0;
	j->last_progress = now;
	json_t *ev = app_event_progress(
		app_event_step_name(step, j->kind == SRV_KIND_PLUGIN), p,
		now - j->start);
	pthread_mutex_lock(&j->owner->mu);
	json_decref(j->progress);
	j->progress = json_incref(ev);
	record(j, ev);
	pthread_mutex_unlock(&j->owner->mu);
	return 0;
}

static int job_log(pyrt_log_level level, const char *line, void *state)
{
	srv_job *j = state;
	if (level == PYRT_LOG_DEBUG)
		return 0;
	pthread_mutex_lock(&j->owner->mu);
	record(j, app_event_log(level, line, pyrt_now() - j->start));
	pthread_mutex_unlock(&j->owner->mu);
	return 0;
}

/* The job's final state; called with mu held. */
static void settle(srv_job *j, int rc)
{
	j->state = rc == 0 ? SRV_JOB_SUCCEEDED
		 : rc == PYRT_E_CANCELLED ? SRV_JOB_CANCELLED : SRV_JOB_FAILED;
	if (j->owner->running == j)
		j->owner->running = NULL;
}

static void job_result(const app_outcome *o, void *state)
{
	srv_job *j = state;
	json_t *ev = app_event_result(o, pyrt_now() - j->start);
	srv_jobs *jobs = j->owner;
	pthread_mutex_lock(&jobs->mu);
	/* Settled before anyone sees the result: a client that reads it and
	 * posts the next job at once must not get "busy" (the box lock is
	 * free by now), nor GET the job still running. */
	settle(j, o->code);
	json_decref(j->result);
	j->result = json_incref(ev);
	record(j, ev);
	pthread_mutex_unlock(&jobs->mu);
}

static void job_front_destroy(void *state)
{
	(void)state; /* the job outlives its front */
}

static const app_front_ops job_ops = {
	.on_step = job_step,
	.on_progress = job_progress,
	.on_log = job_log,
	.on_result = job_result,
	.destroy = job_front_destroy,
};

/*
 * The request a job runs: the server's sources of code (--mirror,
 * --wheelhouse, --index-url, --requirements, --cacert) named one by one,
 * plus no_baseline, the one choice a request makes; nothing else of the
 * command line that started the server.
 *
 * The lock is waited for, cancellably: a held lock was answered 409 before
 * the job started (busy()), so a holder found now took it in the instant
 * since; the job waits for it (its log says whom for) instead of failing
 * "busy" after the client was told 202.
 */
static app_request job_request(const srv_job *j)
{
	const app_request *srv = j->owner->ctx->opts;
	app_request r = {
		.box_root = srv->box_root,
		.mirror = srv->mirror,
		.cacert = j->owner->ctx->cacert,
		.wheelhouse = srv->wheelhouse,
		.index_url = srv->index_url,
		.requirements = srv->requirements,
		.no_baseline = j->no_baseline,
	};
	return r;
}

static int run_install(srv_job *j, app_front *front)
{
	const srv_ctx *ctx = j->owner->ctx;
	app_request o = job_request(j);
	pyrt_install_opts io;
	pyrt_install_plan plan;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_install_prepare(&o, ctx->pins, ctx->platform_key, &io,
				     &plan, &err);
	if (rc < 0) {
		char fixed[PYRT_ERROR_MSG_MAX + 1024];
		app_fix_text(&o, err.msg, fixed, sizeof fixed);
		app_front_refuse(front, "install", rc, fixed);
		app_front_free(front);
		return rc;
	}
	app_install_run run = {
		.opts = &o, .pins = ctx->pins, .platform_key = ctx->platform_key,
		.iopts = &io, .plan = &plan,
		.reinstall_hint = "pyrt install --force reinstalls it",
	};
	rc = app_install_execute(&run, front, &j->cancel);
	app_front_free(front);
	return rc;
}

static int run_baseline(srv_job *j, app_front *front)
{
	app_request o = job_request(j);
	int rc = app_baseline_execute(&o, j->owner->ctx->pins, NULL, front,
				      &j->cancel);
	app_front_free(front);
	return rc;
}

static int run_plugin(srv_job *j, app_front *front)
{
	const srv_ctx *ctx = j->owner->ctx;
	app_request o = job_request(j);
	int rc = app_plugin_install_execute(&o, ctx->pins, ctx->platform_key,
					    j->plugin, front, &j->cancel);
	app_front_free(front);
	return rc;
}

static void *job_main(void *arg)
{
	srv_job *j = arg;
	srv_jobs *jobs = j->owner;
	pthread_mutex_lock(&jobs->mu);
	j->state = SRV_JOB_RUNNING;
	pthread_mutex_unlock(&jobs->mu);
	srv_logf("job %s (%s) started", j->id, kind_names[j->kind]);
	/* Tests hold a job here, between its 202 and its lock. */
	pyrt_testhook("job-start");
	app_front *front = app_front_wrap(&job_ops, j);
	int rc = PYRT_E_NOMEM;
	if (front) {
		if (j->kind == SRV_KIND_INSTALL)
			rc = run_install(j, front);
		else if (j->kind == SRV_KIND_BASELINE)
			rc = run_baseline(j, front);
		else
			rc = run_plugin(j, front);
	}
	/* Only this thread settles j, so reading its state needs no lock.
	 * Once settled, another thread may join this one while holding mu
	 * (make_room): mu must not be taken again here. */
	srv_job_state done = j->state;
	if (!terminal(done)) { /* it ended without a result */
		pthread_mutex_lock(&jobs->mu);
		settle(j, rc);
		done = j->state;
		wake(jobs, j, 0);
		pthread_mutex_unlock(&jobs->mu);
	}
	srv_logf("job %s (%s) %s", j->id, kind_names[j->kind],
		 state_names[done]);
	return NULL;
}

static void job_free(srv_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nevents; i++)
		free(j->events[i]);
	free(j->events);
	json_decref(j->progress);
	json_decref(j->result);
	free(j->plugin);
	free(j);
}

/* The job object.  Called with mu held. */
static json_t *job_json(const srv_job *j)
{
	json_t *progress = json_null();
	if (j->progress)
		progress = json_pack("{s:O, s:O, s:O}",
				     "done", json_object_get(j->progress, "done"),
				     "total", json_object_get(j->progress, "total"),
				     "rate", json_object_get(j->progress, "rate"));
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:O, s:s, s:s}",
			 "id", j->id, "kind", kind_names[j->kind],
			 "state", state_names[j->state],
			 "step", j->step[0] ? json_string(j->step) : json_null(),
			 "progress", progress ? progress : json_null(),
			 "result", j->result ? j->result : json_null(),
			 "href", "", "events", "");
}

static json_t *job_object(const srv_job *j)
{
	json_t *o = job_json(j);
	char href[64];
	snprintf(href, sizeof href, "/api/jobs/%s", j->id);
	json_object_set_new(o, "href", json_string(href));
	snprintf(href, sizeof href, "/api/jobs/%s/events", j->id);
	json_object_set_new(o, "events", json_string(href));
	return o;
}

srv_jobs *srv_jobs_new(const srv_ctx *ctx)
{
	srv_jobs *jobs = calloc(1, sizeof *jobs);
	if (!jobs)
		return NULL;
	jobs->ctx = ctx;
	pthread_mutex_init(&jobs->mu, NULL);
	return jobs;
}

static srv_job *find(srv_jobs *jobs, const char *id)
{
	for (size_t i = 0; i < jobs->count; i++)
		if (strcmp(jobs->list[i]->id, id) == 0)
			return jobs->list[i];
	return NULL;
}

/* Room for one more: drop the oldest finished job nobody reads.  Called
 * with mu held; 0 when there is room. */
static int make_room(srv_jobs *jobs)
{
	if (jobs->count < SRV_JOBS_KEPT)
		return 0;
	for (size_t i = 0; i < jobs->count; i++) {
		srv_job *j = jobs->list[i];
		if (!terminal(j->state) || j->subs)
			continue;
		if (j->joinable)
			pthread_join(j->thread, NULL);
		job_free(j);
		memmove(&jobs->list[i], &jobs->list[i + 1],
			(jobs->count - i - 1) * sizeof jobs->list[0]);
		jobs->count--;
		return 0;
	}
	return -1;
}

/* 409's body: this server's job, or the other process holding the lock. */
static int busy(srv_jobs *jobs, json_t **err_json)
{
	if (jobs->running) {
		json_t *e = srv_error("busy", "another job is running on this box; wait for its result or cancel it (DELETE its href)",
				      "wait for the running job, or DELETE it");
		json_object_set_new(e, "job", job_object(jobs->running));
		*err_json = e;
		return 409;
	}
	pyrt_lock_holder h;
	memset(&h, 0, sizeof h);
	if (pyrt_lock_probe(jobs->ctx->lock_path, &h, NULL) != 1)
		return 0;
	char msg[600];
	snprintf(msg, sizeof msg, "another installer holds the box lock (pid %ld on %s since %s)",
		 h.pid, h.host[0] ? h.host : "?", h.started[0] ? h.started : "?");
	json_t *e = srv_error("busy", msg, "wait for that install to finish, then retry");
	json_object_set_new(e, "lock_holder", json_pack("{s:I, s:s, s:s}",
			    "pid", (json_int_t)h.pid, "host", h.host,
			    "started", h.started));
	*err_json = e;
	return 409;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int srv_jobs_start(srv_jobs *jobs, const srv_job_params *p, json_t **job_js,
		   char *id, size_t idlen, json_t **err_json)
{
	*job_js = NULL;
	*err_json = NULL;
	pthread_mutex_lock(&jobs->mu);
	int status = jobs->closing ? 503 : busy(jobs, err_json);
	if (status == 503)
		*err_json = srv_error("shutting_down", "the server is stopping", "retry once it is back");
	if (status == 0 && make_room(jobs) != 0) {
		status = 503;
		*err_json = srv_error("too_many_jobs", "too many jobs are being read", "close some event streams and retry");
	}
	srv_job *j = status ? NULL : calloc(1, sizeof *j);
	unsigned char raw[16];
	if (!status && (!j || pyrt_os_random(raw, sizeof raw) != 0)) {
		status = 500;
		*err_json = srv_error("internal", "cannot create a job (out of memory or no randomness)", NULL);
	}
	if (status) {
		free(j);
		pthread_mutex_unlock(&jobs->mu);
		return status;
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(j->id + 2 * i, 3, "%02x", raw[i]);
	j->kind = p->kind;
	j->owner = jobs;
	j->start = pyrt_now();
	j->last_progress = -1.0;
	j->no_baseline = p->no_baseline;
	j->plugin = dup_or_null(p->plugin);
	atomic_init(&j->cancel, 0);
	/* Signals belong to the main thread's sigwait, not the worker. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&j->thread, NULL, job_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		job_free(j);
		pthread_mutex_unlock(&jobs->mu);
		*err_json = srv_error("internal", "cannot start a worker thread", NULL);
		return 500;
	}
	j->joinable = 1;
	jobs->list[jobs->count++] = j;
	jobs->running = j;
	snprintf(id, idlen, "%s", j->id);
	*job_js = job_object(j);
	pthread_mutex_unlock(&jobs->mu);
	return 0;
}

json_t *srv_jobs_get(srv_jobs *jobs, const char *id)
{
	pthread_mutex_lock(&jobs->mu);
	srv_job *j = find(jobs, id);
	json_t *o = j ? job_object(j) : NULL;
	pthread_mutex_unlock(&jobs->mu);
	return o;
}

int srv_jobs_cancel(srv_jobs *jobs, const char *id, json_t **job_js)
{
	pthread_mutex_lock(&jobs->mu);
	srv_job *j = find(jobs, id);
	int status = !j ? 404 : terminal(j->state) ? 409 : 202;
	if (status == 202) {
		atomic_store(&j->cancel, 1);
		srv_logf("job %s: cancel requested", j->id);
	}
	*job_js = j ? job_object(j) : NULL;
	pthread_mutex_unlock(&jobs->mu);
	return status;
}

srv_sub *srv_sub_new(srv_jobs *jobs, const char *id,
		     struct MHD_Connection *conn, int *full)
{
	*full = 0;
	pthread_mutex_lock(&jobs->mu);
	srv_job *j = find(jobs, id);
	srv_sub *s = NULL;
	if (j && jobs->nsubs >= SRV_SSE_MAX)
		*full = 1;
	else if (j && (s = calloc(1, sizeof *s))) {
		s->job = j;
		s->conn = conn;
		s->nextsub = jobs->subs;
		if (jobs->subs)
			jobs->subs->prev = s;
		jobs->subs = s;
		jobs->nsubs++;
		j->subs++;
	}
	pthread_mutex_unlock(&jobs->mu);
	return s;
}

/* Copy what is left of one frame. */
static ssize_t copy_frame(srv_sub *s, const char *frame, char *buf, size_t max)
{
	size_t len = strlen(frame) - s->off;
	size_t n = len < max ? len : max;
	memcpy(buf, frame + s->off, n);
	s->off += n;
	if (s->off == strlen(frame)) {
		s->next++;
		s->off = 0;
	}
	return (ssize_t)n;
}

ssize_t srv_sub_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	srv_sub *s = cls;
	srv_job *j = s->job;
	srv_jobs *jobs = j->owner;
	static const char ka[] = ": keep-alive\n\n";
	ssize_t n;
	pthread_mutex_lock(&jobs->mu);
	if (s->next < j->nevents) {
		n = copy_frame(s, j->events[s->next], buf, max);
	} else if (terminal(j->state) || jobs->closing) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (s->keepalive && max >= sizeof ka) {
		s->keepalive = 0;
		memcpy(buf, ka, sizeof ka - 1);
		n = (ssize_t)(sizeof ka - 1);
	} else {
		/* Nothing yet: park the connection until record() wakes it. */
		s->suspended = 1;
		MHD_suspend_connection(s->conn);
		n = 0;
	}
	pthread_mutex_unlock(&jobs->mu);
	return n;
}

void srv_sub_free(void *cls)
{
	srv_sub *s = cls;
	srv_jobs *jobs = s->job->owner;
	pthread_mutex_lock(&jobs->mu);
	if (s->prev)
		s->prev->nextsub = s->nextsub;
	else
		jobs->subs = s->nextsub;
	if (s->nextsub)
		s->nextsub->prev = s->prev;
	jobs->nsubs--;
	s->job->subs--;
	pthread_mutex_unlock(&jobs->mu);
	free(s);
}

void srv_jobs_keepalive(srv_jobs *jobs)
{
	pthread_mutex_lock(&jobs->mu);
	wake(jobs, NULL, 1);
	pthread_mutex_unlock(&jobs->mu);
}

void srv_jobs_shutdown(srv_jobs *jobs)
{
	pthread_mutex_lock(&jobs->mu);
	jobs->closing = 1;
	srv_job *running = jobs->running;
	if (running) {
		atomic_store(&running->cancel, 1);
		srv_logf("stopping: cancelling job %s", running->id);
	}
	pthread_mutex_unlock(&jobs->mu);
	for (size_t i = 0; i < jobs->count; i++)
		if (jobs->list[i]->joinable) {
			pthread_join(jobs->list[i]->thread, NULL);
			jobs->list[i]->joinable = 0;
		}
	pthread_mutex_lock(&jobs->mu);
	wake(jobs, NULL, 0);
	pthread_mutex_unlock(&jobs->mu);
}

void srv_jobs_free(srv_jobs *jobs)
{
	if (!jobs)
		return;
	for (size_t i = 0; i < jobs->count; i++)
		job_free(jobs->list[i]);
	pthread_mutex_destroy(&jobs->mu);
	free(jobs);
}
