/*
 * The TUI's engine work, one job per worker thread.  A job that changes
 * the box runs the app/ use case the headless command runs (install,
 * baseline, plugin install, rollback, uninstall: the same code, so the
 * same words and exit codes), reports through the view model's events, and leaves the outcome
 * in the job struct for the UI thread, which reads it only after joining.
 * The worker never touches the screen.
 */
#include "tui/jobs.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/baseline.h"
#include "app/box.h"
#include "app/common.h"
#include "app/doctor.h"
#include "app/doctor_json.h"
#include "app/fix.h"
#include "app/front.h"
#include "app/install.h"
#include "app/plugin.h"
#include "app/status.h"
#include "core/runtime/box.h"
#include "core/util/testhook.h"

/* Record a failure's words into the result. */
static void result_fail(const app_request *req, tui_result *r, int rc,
			const pyrt_error *err, const char *unchanged)
{
	r->code = rc;
	app_fix_text(req, err && err->msg[0] ? err->msg : pyrt_strerror(rc),
		     r->error, sizeof r->error);
	snprintf(r->unchanged, sizeof r->unchanged, "%s",
		 unchanged ? unchanged : "");
	r->fix[0] = '\0';
}

/* The marker's baseline and the plugin check, as the result shows them. */
static void result_report(tui_result *r, const app_outcome *o)
{
	if (o->pip_log)
		snprintf(r->pip_log, sizeof r->pip_log, "%s", o->pip_log);
	if (o->baseline_state)
		snprintf(r->baseline_state, sizeof r->baseline_state, "%s",
			 o->baseline_state);
	app_join(o->baseline_missing, o->baseline_missing_count,
		 r->baseline_missing, sizeof r->baseline_missing);
	if (!o->plugins)
		return;
	r->plugins_checked = 1;
	r->plugin_count = pyrt_plugins_count(o->plugins);
	for (size_t i = 0; i < pyrt_plugins_count(o->plugins); i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(o->plugins, i);
		if (pl->verdict == PYRT_VERDICT_READY)
			app_cat(r->ready_plugins, sizeof r->ready_plugins, "%s%s",
			    r->ready_plugins[0] ? ", " : "", pl->name);
		else if (pl->enabled && pl->needs_runtime)
			app_cat(r->waiting_plugins, sizeof r->waiting_plugins,
			    "%s%s (%s)", r->waiting_plugins[0] ? ", " : "",
			    pl->name, pyrt_verdict_name(pl->verdict));
	}
}

/* The outcome app/ composed, kept in words for the UI thread. */
static void result_record(const app_outcome *o, void *arg)
{
	tui_result *r = arg;
	r->code = o->code;
	snprintf(r->error, sizeof r->error, "%s", o->error ? o->error : "");
	snprintf(r->unchanged, sizeof r->unchanged, "%s",
		 o->unchanged ? o->unchanged : "");
	snprintf(r->fix, sizeof r->fix, "%s", o->fix ? o->fix : "");
	snprintf(r->summary, sizeof r->summary, "%s",
		 o->summary ? o->summary : "");
	result_report(r, o);
}

/* install → baseline → plugin check, run and worded as `pyrt install`
 * runs and words it: app/ decides, the UI shows the outcome. */
static void job_install(tui_job *j, app_front *front)
{
	app_install_run run = {
		.opts = j->opts, .pins = j->pins,
		.platform_key = j->platform_key, .iopts = &j->iopts,
		.plan = &j->plan,
		.reinstall_hint = "I on the dashboard reinstalls it",
		.log_path = j->result.log_path,
		.log_path_len = sizeof j->result.log_path,
	};
	app_install_execute(&run, front, tui_model_events(j->model).cancel);
}

/* `pyrt baseline`, run and worded as the CLI does, with the plugins
 * that are ready afterwards. */
static void job_baseline(tui_job *j, app_front *front)
{
	app_baseline_execute(j->opts, j->pins, j->platform_key, front,
			     tui_model_events(j->model).cancel);
}

/* The runtime's state and the matrix, as `pyrt plugins` reads them. */
static int read_state(tui_job *j, const pyrt_events *ev)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_plugins_free(j->plugins);
	j->plugins = NULL;
	if (!j->status && !(j->status = calloc(1, sizeof *j->status))) {
		snprintf(j->refresh_error, sizeof j->refresh_error, "out of memory");
		return PYRT_E_NOMEM;
	}
	int rc = app_status_read_memo(j->opts->box_root, j->pins,
				       j->platform_key, j->opts->deep,
				       j->status, &err);
	if (rc == 0)
		rc = app_plugins_check(&j->plugins, j->opts->box_root,
				       j->pins, j->platform_key, 1,
				       j->status, ev, &err);
	if (rc == 0 && app_fix_plugins(j->opts, j->plugins))
		rc = pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	if (rc == 0)
		app_fix_status(j->opts, j->status);
	/* The dashboard offers only the keys this user can use. */
	char msg[PYRT_ERROR_MSG_MAX + 1024], fix[2048];
	j->read_only = rc == 0 && app_may_change(j->opts, "install", msg,
						  sizeof msg, fix, sizeof fix)
				  == PYRT_E_READONLY;
	if (rc < 0)
		snprintf(j->refresh_error, sizeof j->refresh_error, "%s",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
	return rc;
}

/* `pyrt plugins install NAME`, run and worded as the CLI does; then the
 * state the dashboard shows, read again. */
static void job_plugin(tui_job *j, app_front *front)
{
	pyrt_events ev = app_front_events(front,
					  tui_model_events(j->model).cancel);
	int rc = app_plugin_install_execute(j->opts, j->pins, j->platform_key,
					    j->plugin, front, ev.cancel);
	if (rc != PYRT_E_CANCELLED)
		read_state(j, &ev);
}

/* The dashboard's state, read off the UI thread (plugins start Python). */
static void job_refresh(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_testhook("tui-refresh");
	j->result.code = read_state(j, &ev);
}

static void job_smoke(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_smoke_run(j->opts, j->pins, NULL, &ev, &j->smoke,
			       &err);
	if (rc)
		result_fail(j->opts, &j->result, rc, &err, NULL);
}

/* In the worker: the network checks can wait seconds per host. */
static void job_doctor(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_doctor_run(j->opts, j->pins, j->platform_key, &ev,
				&j->doctor, &err);
	if (rc)
		result_fail(j->opts, &j->result, rc, &err, NULL);
}

/* The request the dashboard's keys make: the command line's box, and
 * never a wait for the box lock behind a spinner (busy is said at once). */
static app_request box_request(const tui_job *j)
{
	app_request req = { .box_root = j->opts->box_root, .no_wait = 1,
			    /* what its fixes repeat (app/fix.h) */
			    .box_root_from = j->opts->box_root_from,
			    .pins_path = j->opts->pins_path,
			    .pins_from = j->opts->pins_from,
			    .cacert = j->opts->cacert };
	return req;
}

/* `pyrt rollback`, run and worded as the CLI does. */
static void job_rollback(tui_job *j, app_front *front)
{
	app_request req = box_request(j);
	app_rollback_execute(&req, j->pins, j->platform_key, front,
			     tui_model_events(j->model).cancel);
}

/* `pyrt uninstall`, after the dialog's yes. */
static void job_uninstall(tui_job *j, app_front *front)
{
	app_request req = box_request(j);
	app_uninstall_execute(&req, front, tui_model_events(j->model).cancel);
}

/* `pyrt doctor --bundle FILE`, from the doctor answer on the screen. */
static void job_bundle(tui_job *j)
{
	pyrt_error err = PYRT_ERROR_INIT;
	char *text = app_doctor_json_text(j->bundle_doctor);
	int rc = text ? pyrt_doctor_bundle(j->bundle_doctor, text,
					   j->bundle_path, &err)
		      : pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	free(text);
	if (rc)
		result_fail(j->opts, &j->result, rc, &err, NULL);
	else
		snprintf(j->result.summary, sizeof j->result.summary,
			 "support bundle written: %s", j->bundle_path);
}

/* Jobs that change the box run their app_* use case through a front that
 * keeps the outcome in the job's result; the others read, with the
 * model's events directly. */
static void run_with_front(tui_job *j)
{
	app_front *front = app_front_tap(tui_model_front(j->model),
					 result_record, &j->result);
	if (!front) {
		result_fail(j->opts, &j->result, PYRT_E_NOMEM, NULL, "nothing was changed");
		return;
	}
	if (j->kind == TUI_JOB_INSTALL)
		job_install(j, front);
	else if (j->kind == TUI_JOB_BASELINE)
		job_baseline(j, front);
	else if (j->kind == TUI_JOB_ROLLBACK)
		job_rollback(j, front);
	else if (j->kind == TUI_JOB_UNINSTALL)
		job_uninstall(j, front);
	else
		job_plugin(j, front);
	app_front_free(front);
}

static void *job_main(void *arg)
{
	tui_job *j = arg;
	switch (j->kind) {
	case TUI_JOB_INSTALL:
	case TUI_JOB_BASELINE:
	case TUI_JOB_PLUGIN:
	case TUI_JOB_ROLLBACK:
	case TUI_JOB_UNINSTALL:
		run_with_front(j);
		break;
	case TUI_JOB_REFRESH: job_refresh(j); break;
	case TUI_JOB_SMOKE: job_smoke(j); break;
	case TUI_JOB_DOCTOR: job_doctor(j); break;
	case TUI_JOB_BUNDLE: job_bundle(j); break;
	case TUI_JOB_NONE: break;
	}
	tui_model_finish(j->model);
	return NULL;
}

int tui_job_start(tui_job *job, char *msg, size_t msglen)
{
	sigset_t all, old;
	memset(&job->result, 0, sizeof job->result);
	job->refresh_error[0] = '\0';
	memset(&job->smoke, 0, sizeof job->smoke);
	tui_model_begin(job->model);
	/* The thread inherits this mask: SIGWINCH, SIGINT and SIGTERM must
	 * interrupt the UI thread's poll, not land in the worker. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&job->thread, NULL, job_main, job);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		snprintf(msg, msglen, "cannot start a worker thread: %s",
			 strerror(rc));
		return -1;
	}
	job->started = 1;
	return 0;
}

void tui_job_join(tui_job *job)
{
	if (!job->started)
		return;
	pthread_join(job->thread, NULL);
	job->started = 0;
}

void tui_job_clear(tui_job *job)
{
	tui_job_join(job);
	free(job->status);
	pyrt_plugins_free(job->plugins);
	pyrt_doctor_free(job->doctor);
	job->status = NULL;
	job->plugins = NULL;
	job->doctor = NULL;
	job->kind = TUI_JOB_NONE;
}
