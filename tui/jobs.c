/*
 * The TUI's engine work, one job per worker thread.  Every job calls the
 * same core functions (and the same app/ glue) as the headless command it
 * stands for, reports through the view model's events, and leaves its
 * answer in the job struct for the UI thread, which reads it only after
 * joining.  The worker never touches the screen.
 */
#include "jobs.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline_step.h"
#include "box.h"
#include "common.h"
#include "doctor_json.h"
#include "front.h"
#include "pip.h"
#include "plugin_ops.h"
#include "plugin_text.h"
#include "testhook.h"

static int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Record a failure's words into the result. */
static void result_fail(tui_result *r, int rc, const pyrt_error *err,
			const char *unchanged)
{
	r->code = rc;
	snprintf(r->error, sizeof r->error, "%s",
		 err && err->msg[0] ? err->msg : pyrt_strerror(rc));
	snprintf(r->unchanged, sizeof r->unchanged, "%s",
		 unchanged ? unchanged : "");
}

/* The marker's baseline and the plugin check, as the result shows them. */
static void result_report(tui_result *r, const cli_baseline_report *rep,
			  const cli_outcome *o)
{
	if (o->pip_log)
		snprintf(r->pip_log, sizeof r->pip_log, "%s", o->pip_log);
	if (o->baseline_state)
		snprintf(r->baseline_state, sizeof r->baseline_state, "%s",
			 o->baseline_state);
	for (size_t i = 0; i < o->baseline_missing_count; i++)
		cli_cat(r->baseline_missing, sizeof r->baseline_missing, "%s%s",
		    i ? ", " : "", o->baseline_missing[i]);
	if (!rep->plugins)
		return;
	r->plugins_checked = 1;
	r->plugin_count = pyrt_plugins_count(rep->plugins);
	for (size_t i = 0; i < pyrt_plugins_count(rep->plugins); i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(rep->plugins, i);
		if (pl->verdict == PYRT_VERDICT_READY)
			cli_cat(r->ready_plugins, sizeof r->ready_plugins, "%s%s",
			    r->ready_plugins[0] ? ", " : "", pl->name);
		else if (pl->enabled && pl->needs_runtime)
			cli_cat(r->waiting_plugins, sizeof r->waiting_plugins,
			    "%s%s (%s)", r->waiting_plugins[0] ? ", " : "",
			    pl->name, pyrt_verdict_name(pl->verdict));
	}
}

/* Tee the install into a log under the box, as `pyrt install` does; the
 * box is created now, after consent. */
static cli_front *install_log(tui_job *j, cli_front *front)
{
	pyrt_box *box = NULL;
	tui_result *r = &j->result;
	if (pyrt_box_open(&box, j->opts->box_root, 1, NULL) != 0)
		return front; /* core reports the same failure in a moment */
	cli_front *logged = cli_front_with_log(front, pyrt_box_logs_dir(box),
					       "install", r->log_path,
					       sizeof r->log_path);
	pyrt_box_free(box);
	if (logged && r->log_path[0])
		cli_front_log(logged, PYRT_LOG_INFO, "install log: %s",
			      r->log_path);
	return logged;
}

/* The baseline after activation, skipped as `pyrt install` skips it. */
static int install_baseline(tui_job *j, const pyrt_install_result *res,
			    const pyrt_events *ev, cli_baseline_report *rep,
			    int *ran, pyrt_error *err)
{
	const cli_opts *o = j->opts;
	int skipped = cli_baseline_skip(o, res->already_current, ev, err);
	if (skipped)
		return skipped < 0 ? skipped : 0;
	*ran = 1;
	return cli_baseline_run(o, j->pins, ev, rep, err);
}

/* The success sentence, as `pyrt install` words it. */
static void install_summary(tui_job *j, const pyrt_install_result *res,
			    const char *destination, int baseline_ran)
{
	const pyrt_pins *p = j->pins;
	const char *where = res->current[0] ? res->current : destination;
	const char *baseline = j->opts->no_baseline
		? "; baseline skipped (--no-baseline)"
		: baseline_ran ? "; baseline complete" : "";
	char *out = j->result.summary;
	size_t len = sizeof j->result.summary;
	if (res->already_current && !baseline_ran)
		snprintf(out, len, "%s %s (build %s) is already installed and active at %s; nothing to do (I on the dashboard reinstalls it)",
			 cli_impl_name(p), pyrt_pins_version(p), pyrt_pins_build(p),
			 where);
	else if (res->already_current)
		snprintf(out, len, "%s %s (build %s) is already installed and active at %s%s",
			 cli_impl_name(p), pyrt_pins_version(p), pyrt_pins_build(p),
			 where, baseline);
	else
		snprintf(out, len, "installed %s %s (build %s) at %s%s",
			 cli_impl_name(p), pyrt_pins_version(p), pyrt_pins_build(p),
			 where, baseline);
}

/* install → baseline → plugin check, then one outcome into the log. */
static void job_install(tui_job *j, cli_front *front)
{
	const cli_opts *o = j->opts;
	tui_result *r = &j->result;
	pyrt_install_plan plan;
	memset(&plan, 0, sizeof plan);
	pyrt_error perr = PYRT_ERROR_INIT;
	int had_current = pyrt_install_plan_make(&j->iopts, &plan, &perr) == 0
			  ? path_exists(plan.destination) : 0;
	pyrt_events ev = cli_front_events(front, tui_model_events(j->model).cancel);
	pyrt_install_result res;
	memset(&res, 0, sizeof res);
	pyrt_error err = PYRT_ERROR_INIT;
	cli_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	int baseline_ran = 0;
	/* What plugins install added is installed again after a switch
	 * (app/plugin_ops.h), as `pyrt install` does. */
	app_plugins_keep *keep = had_current
		? app_plugins_keep_before(o, j->pins, j->iopts.platform_key, &ev)
		: NULL;
	int rc = pyrt_install_run(&j->iopts, &ev, &res, &err);
	int active = rc == 0;
	if (active)
		rc = install_baseline(j, &res, &ev, &rep, &baseline_ran, &err);
	if (active && !res.already_current &&
	    (rc == 0 || rc == PYRT_E_BASELINE)) {
		pyrt_error kerr = PYRT_ERROR_INIT;
		if (app_plugins_keep_reapply(keep, o, j->pins,
					     j->iopts.platform_key, &ev, NULL,
					     &kerr) && rc == 0)
			rc = pyrt_error_set(&err, kerr.code, "%s", kerr.msg);
	}
	app_plugins_keep_free(keep);
	cli_outcome oc = { .command = "install", .code = rc };
	if (active) {
		oc.install_dir = res.install_dir;
		oc.sha256 = res.sha256;
		oc.already_current = res.already_current;
		cli_baseline_report_fill(&rep, o->box_root, &oc);
		if (rc != PYRT_E_CANCELLED)
			cli_baseline_ready_plugins(&rep, front, o, j->pins,
						   j->platform_key, &ev, &oc);
		result_report(r, &rep, &oc);
	}
	if (rc == 0) {
		install_summary(j, &res, plan.destination, baseline_ran);
		oc.summary = r->summary;
	} else {
		result_fail(r, rc, &err, active
			? "the runtime itself is installed and active; only the doc-library baseline is incomplete"
			: had_current ? "the previous runtime is still active"
				      : "nothing was installed");
		oc.error = r->error;
		oc.unchanged = r->unchanged;
	}
	cli_front_result(front, &oc);
	cli_baseline_report_clear(&rep);
}

/* `pyrt baseline`, reported the same way. */
static void job_baseline(tui_job *j, cli_front *front)
{
	const cli_opts *o = j->opts;
	tui_result *r = &j->result;
	pyrt_events ev = cli_front_events(front, tui_model_events(j->model).cancel);
	cli_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = cli_baseline_run(o, j->pins, &ev, &rep, &err);
	cli_outcome oc = { .command = "baseline", .code = rc };
	if (rc == 0) {
		cli_baseline_summary(&rep.result, r->summary, sizeof r->summary);
	} else {
		result_fail(r, rc, &err,
			    rc == PYRT_E_NOT_READY || rc == PYRT_E_USAGE
				    ? "nothing was changed"
				    : "the runtime itself was not changed and is still active");
	}
	cli_baseline_report_fill(&rep, o->box_root, &oc);
	if (rc != PYRT_E_CANCELLED)
		cli_baseline_ready_plugins(&rep, front, o, j->pins,
					   j->platform_key, &ev, &oc);
	result_report(r, &rep, &oc);
	cli_baseline_report_clear(&rep);
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
	int rc = pyrt_status_read_memo(j->opts->box_root, j->pins,
				       j->platform_key, j->opts->deep,
				       j->status, &err);
	if (rc == 0)
		rc = pyrt_plugins_check_memo(&j->plugins, j->opts->box_root,
					     j->pins, j->platform_key,
					     j->status, ev, &err);
	if (rc < 0)
		snprintf(j->refresh_error, sizeof j->refresh_error, "%s",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
	return rc;
}

/* `pyrt plugins install NAME`: the requirements, then the new verdict. */
static void job_plugin(tui_job *j, cli_front *front)
{
	tui_result *r = &j->result;
	pyrt_events ev = cli_front_events(front, tui_model_events(j->model).cancel);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_pip_result res;
	memset(&res, 0, sizeof res);
	int rc = read_state(j, &ev);
	const pyrt_plugin *pl = rc == 0 ? pyrt_plugins_find(j->plugins, j->plugin)
					: NULL;
	if (rc == 0 && !pl)
		rc = pyrt_error_set(&err, PYRT_E_USAGE, "no plugin named '%s'",
				    j->plugin);
	else if (rc < 0)
		pyrt_error_set(&err, rc, "%s", j->refresh_error);
	/* One bracket around every pip run, so the checklist shows one step
	 * that ends once, as the baseline's does. */
	if (rc == 0) {
		char detail[320];
		snprintf(detail, sizeof detail, "%zu requirement%s of %s",
			 pl->require_count, pl->require_count == 1 ? "" : "s",
			 pl->name);
		if (pyrt_events_step(&ev, PYRT_STEP_BASELINE, PYRT_STEP_BEGIN,
				     detail))
			rc = pyrt_error_set(&err, PYRT_E_CANCELLED, "cancelled");
	}
	if (rc == 0) {
		rc = cli_plugin_install(j->opts, pl, &ev, &res, &err);
		pyrt_events_step(&ev, PYRT_STEP_BASELINE,
				 rc ? PYRT_STEP_FAIL : PYRT_STEP_END,
				 rc ? err.msg : NULL);
	}
	if (res.log_path[0])
		snprintf(r->pip_log, sizeof r->pip_log, "%s", res.log_path);
	if (rc != PYRT_E_CANCELLED) {
		pl = NULL; /* it dies with the old matrix */
		if (read_state(j, &ev) == 0)
			pl = pyrt_plugins_find(j->plugins, j->plugin);
	}
	if (rc == 0 && pl)
		tui_plugin_explain(pl, pyrt_plugins_runtime_ready(j->plugins),
				   r->summary, sizeof r->summary);
	else if (rc == 0)
		snprintf(r->summary, sizeof r->summary,
			 "installed the requirements of %s", j->plugin);
	else
		result_fail(r, rc, &err,
			    "the runtime is still active; what pip did install stays installed");
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
	int rc = pyrt_smoke_run(j->opts->box_root, NULL, &ev, &j->smoke, &err);
	if (rc)
		result_fail(&j->result, rc, &err, NULL);
}

static void job_doctor(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_doctor_opts dopts = PYRT_DOCTOR_OPTS_INIT;
	dopts.box_root = j->opts->box_root;
	dopts.pins = j->pins;
	dopts.platform_key = j->platform_key;
	dopts.cacert = cli_cacert(j->opts);
	int rc = pyrt_doctor_run(&j->doctor, &dopts, &ev, &err);
	if (rc)
		result_fail(&j->result, rc, &err, NULL);
}

/* `pyrt rollback`: swap current and previous.  The TUI never waits for
 * the box lock behind a spinner: busy is said at once. */
static void job_rollback(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_install_opts io = PYRT_INSTALL_OPTS_INIT;
	io.box_root = j->opts->box_root;
	io.pins = j->pins;
	io.platform_key = j->platform_key;
	io.no_wait = 1;
	int rc = pyrt_install_rollback(&io, &ev, &err);
	if (rc)
		result_fail(&j->result, rc, &err,
			    "the active runtime was not changed");
	else
		snprintf(j->result.summary, sizeof j->result.summary,
			 "rolled back: the previous runtime is active again");
}

/* `pyrt uninstall`, after the dialog's yes. */
static void job_uninstall(tui_job *j)
{
	pyrt_events ev = tui_model_events(j->model);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_install_uninstall(j->opts->box_root, 1, &ev, &err);
	if (rc)
		result_fail(&j->result, rc, &err, NULL);
	else
		snprintf(j->result.summary, sizeof j->result.summary,
			 "uninstalled the managed runtime (I installs it again)");
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
		result_fail(&j->result, rc, &err, NULL);
	else
		snprintf(j->result.summary, sizeof j->result.summary,
			 "support bundle written: %s", j->bundle_path);
}

/* Jobs that change the box report through a cli_front (so install can be
 * tee'd into its log); the others use the model's events directly. */
static void run_with_front(tui_job *j)
{
	cli_front *front = tui_model_front(j->model);
	if (!front) {
		result_fail(&j->result, PYRT_E_NOMEM, NULL, "nothing was changed");
		return;
	}
	/* Nothing to do is not worth a log (as `pyrt install` skips it). */
	if (j->kind == TUI_JOB_INSTALL &&
	    !(j->already_current && !j->iopts.force))
		front = install_log(j, front);
	if (!front) {
		result_fail(&j->result, PYRT_E_NOMEM, NULL, "nothing was installed");
		return;
	}
	if (j->kind == TUI_JOB_INSTALL)
		job_install(j, front);
	else if (j->kind == TUI_JOB_BASELINE)
		job_baseline(j, front);
	else
		job_plugin(j, front);
	cli_front_free(front);
}

static void *job_main(void *arg)
{
	tui_job *j = arg;
	switch (j->kind) {
	case TUI_JOB_INSTALL:
	case TUI_JOB_BASELINE:
	case TUI_JOB_PLUGIN:
		run_with_front(j);
		break;
	case TUI_JOB_REFRESH: job_refresh(j); break;
	case TUI_JOB_SMOKE: job_smoke(j); break;
	case TUI_JOB_DOCTOR: job_doctor(j); break;
	case TUI_JOB_ROLLBACK: job_rollback(j); break;
	case TUI_JOB_UNINSTALL: job_uninstall(j); break;
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
