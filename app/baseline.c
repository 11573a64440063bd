/*
 * The baseline as a step: `pyrt baseline` runs only it, `pyrt install`
 * and the TUI run it after activation, and all of them say, in their
 * result, what the baseline is and which plugins are ready.
 */
#include "app/baseline.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/fix.h"
#include "app/plugin.h"
#include "core/runtime/box.h"
#include "core/runtime/status.h"
#include "core/util/error.h"

int app_baseline_run(const app_request *opts, const pyrt_box *box,
		     const pyrt_pins *pins, const pyrt_events *ev,
		     app_baseline_report *rep, pyrt_error *err)
{
	app_request with;
	char source[4096];
	opts = app_with_source(opts, &with, source, sizeof source);
	pyrt_baseline_opts bo = PYRT_BASELINE_OPTS_INIT;
	bo.box = box;
	bo.pins = pins;
	bo.requirements_file = opts->requirements;
	bo.wheelhouse = opts->wheelhouse;
	bo.cacert = opts->cacert;
	bo.index_url = opts->index_url;
	bo.no_wait = opts->no_wait;
	return pyrt_baseline_run(&bo, ev, &rep->result, err);
}

/*
 * The marker of the install `current` points at, its baseline as the one
 * verdict says it (status.h: the declared baseline against what is
 * installed), and how many installed distributions are not whole; 0 or -1.
 */
static int active_marker(const pyrt_box *box, pyrt_marker *m, int *broken)
{
	char dir[4096], path[4200];
	int rc = !box;
	if (!rc)
		rc = pyrt_box_link_install(box, pyrt_box_current(box), dir,
					   sizeof dir, NULL);
	if (!rc)
		rc = snprintf(path, sizeof path, "%s/marker.json", dir) >=
		     (int)sizeof path;
	if (!rc)
		rc = pyrt_marker_read(path, m, NULL);
	int n = rc ? 0 : pyrt_status_baseline_verdict(pyrt_box_runtime_dir(box),
						      dir, m, NULL, 0);
	if (broken)
		*broken = n;
	return rc ? -1 : 0;
}

int app_baseline_complete(const pyrt_box *box)
{
	pyrt_marker m;
	int broken = 0;
	/* A package whose files went away since, or that the declared
	 * baseline names and is not installed, is not complete: the
	 * baseline runs, and repairs it. */
	return active_marker(box, &m, &broken) == 0 &&
	       strcmp(m.baseline_state, "complete") == 0 && broken == 0;
}

void app_baseline_summary(const pyrt_baseline_result *r, char *buf,
			  size_t len)
{
	size_t n = r->requirement_count, present = r->present_count;
	size_t installed = n > present ? n - present : 0;
	int used;
	if (installed == 0)
		used = snprintf(buf, len, "baseline complete: %s%zu "
				"requirement%s already present, nothing "
				"installed", n == 1 ? "" : "all ", n,
				n == 1 ? "" : "s");
	else
		used = snprintf(buf, len, "baseline complete: %zu requirement%s "
				"installed in the managed runtime", installed,
				installed == 1 ? "" : "s");
	if (present && installed && used > 0 && (size_t)used < len)
		used += snprintf(buf + used, len - (size_t)used,
				 ", %zu already present", present);
	for (int i = 0; i < r->repaired_count && used > 0 && (size_t)used < len;
	     i++)
		used += snprintf(buf + used, len - (size_t)used, "%s%s",
				 i ? ", " : "; reinstalled (its files were "
				 "missing or it did not import): ", r->repaired[i]);
}

/* The marker's word, not the run's: a refusal leaves the marker as it was,
 * and the result must not claim more than the marker says. */
void app_baseline_report_fill(app_baseline_report *rep, const pyrt_box *box,
			      app_outcome *o)
{
	if (rep->result.log_path[0])
		o->pip_log = rep->result.log_path;
	rep->have_marker = active_marker(box, &rep->marker, NULL) == 0;
	if (!rep->have_marker)
		return;
	const pyrt_marker *m = &rep->marker;
	int n = m->baseline_missing_count;
	for (int i = 0; i < n && i < PYRT_MARKER_MISSING_MAX; i++)
		rep->missing[i] = m->baseline_missing[i];
	o->baseline_state = m->baseline_state;
	o->baseline_missing = rep->missing;
	o->baseline_missing_count = (size_t)n;
}

void app_baseline_ready_plugins(app_baseline_report *rep,
				const app_front *front, const app_request *opts,
				const pyrt_box *box, const pyrt_pins *pins,
				const char *platform_key, const pyrt_events *ev,
				app_outcome *o)
{
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = box ? pyrt_plugins_check(&rep->plugins, box, pins,
					  platform_key, ev, &err)
		     : app_plugins_check(&rep->plugins, opts->box_root, pins,
					 platform_key, 0, NULL, ev, &err);
	if (rc != 0) {
		app_front_log(front, PYRT_LOG_WARN,
			      "could not check the plugins: %s",
			      err.msg[0] ? err.msg : pyrt_strerror(err.code));
		return;
	}
	if (app_fix_plugins(opts, rep->plugins)) {
		app_front_log(front, PYRT_LOG_WARN, "out of memory");
		return;
	}
	size_t n = pyrt_plugins_count(rep->plugins);
	rep->ready = calloc(n + 1, sizeof *rep->ready);
	if (!rep->ready)
		return;
	for (size_t i = 0; i < n; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(rep->plugins, i);
		if (pl->verdict == PYRT_VERDICT_READY)
			rep->ready[rep->ready_count++] = pl->name;
	}
	o->ready_plugins = rep->ready;
	o->ready_plugin_count = rep->ready_count;
	o->plugins = rep->plugins;
	if (n == 0)
		return; /* no plugins in this box: nothing worth a line */
	char names[2048];
	app_join(rep->ready, rep->ready_count, names, sizeof names);
	app_front_log(front, PYRT_LOG_INFO, "plugins ready: %s%s",
		      rep->ready_count ? names : "none",
		      rep->ready_count < n ? " (see \"pyrt plugins\" for the rest)"
					   : "");
}

void app_baseline_report_clear(app_baseline_report *rep)
{
	pyrt_plugins_free(rep->plugins);
	free(rep->ready);
	memset(rep, 0, sizeof *rep);
}

int app_baseline_skip(const app_request *opts, const pyrt_box *box,
		      int already_current, const pyrt_events *ev,
		      pyrt_error *err)
{
	const char *skip = NULL;
	if (opts->no_baseline)
		skip = "--no-baseline";
	else if (already_current && !opts->requirements &&
		 app_baseline_complete(box))
		skip = "already complete";
	if (!skip)
		return 0;
	if (pyrt_events_step(ev, PYRT_STEP_BASELINE, PYRT_STEP_SKIP, skip))
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	return 1;
}

int app_baseline_execute(const app_request *req, const pyrt_pins *pins,
			 const char *platform_key, const app_front *front,
			 const atomic_int *cancel)
{
	app_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	pyrt_events ev = app_front_events(front, cancel);
	pyrt_error err = PYRT_ERROR_INIT;
	/* The box, opened once for the whole use case: the trust gate and
	 * the shared-box rule run here; core opens nothing by path. */
	pyrt_box *box = NULL;
	int rc = cancel && atomic_load(cancel)
		? pyrt_error_set(&err, PYRT_E_CANCELLED, "cancelled")
		: pyrt_box_open(&box, req->box_root, 0, &err);
	if (!rc)
		rc = app_baseline_run(req, box, pins, &ev, &rep, &err);
	if (rc == 0 || rc == PYRT_E_BASELINE) {
		pyrt_error perr = PYRT_ERROR_INIT;
		if (app_plugins_finish_pending(req, box, pins, &ev, NULL,
					       &perr) &&
		    rc == 0)
			rc = pyrt_error_set(&err, perr.code, "%s", perr.msg);
	}
	char msg[1024], fixed[PYRT_ERROR_MSG_MAX + 1024];
	app_outcome o = { .command = "baseline", .code = rc };
	if (rc == 0) {
		app_baseline_summary(&rep.result, msg, sizeof msg);
		o.summary = msg;
	} else {
		app_fix_text(req, err.msg[0] ? err.msg : pyrt_strerror(rc),
			     fixed, sizeof fixed);
		o.error = fixed;
		/* "baseline partial: ..." names itself. */
		if (rc == PYRT_E_BASELINE)
			o.failure = "";
		/* Refused before it began: nothing to say was kept. */
		if (rc == PYRT_E_READONLY)
			o.before_start = 1;
		else if (rc != PYRT_E_NOT_READY && rc != PYRT_E_USAGE)
			o.unchanged = "the runtime itself stays active (a baseline failure never deactivates it)";
	}
	app_baseline_report_fill(&rep, box, &o);
	if (platform_key && rc != PYRT_E_CANCELLED)
		app_baseline_ready_plugins(&rep, front, req, box, pins,
					   platform_key, &ev, &o);
	app_front_result(front, &o);
	app_baseline_report_clear(&rep);
	pyrt_box_free(box);
	return rc;
}
