/*
 * install → baseline → plugin check → one outcome, for every front end.
 */
#include "install_run.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline_step.h"
#include "common.h"
#include "error.h"

static int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/*
 * The baseline, last: after a fresh activation, or on an already active
 * runtime whose marker does not say complete (or when --requirements names
 * something new to install).  Skipped with --no-baseline.
 */
static int run_baseline(const app_install_run *r,
			const pyrt_install_result *res, const pyrt_events *ev,
			app_baseline_report *rep, int *ran, pyrt_error *err)
{
	int skipped = app_baseline_skip(r->opts, res->already_current, ev, err);
	/* A cancel that lands after the swap finds nothing left to stop
	 * when the baseline is skipped: the install stands as a success. */
	if (skipped)
		return skipped < 0 && skipped != PYRT_E_CANCELLED ? skipped : 0;
	*ran = 1;
	return app_baseline_run(r->opts, r->pins, ev, rep, err);
}

/* The success sentence: what is active, and what the baseline did. */
static void summary(const app_install_run *r, const pyrt_install_result *res,
		    int baseline_ran, char *buf, size_t len)
{
	const pyrt_install_plan *p = r->plan;
	const char *where = res->current[0] ? res->current : p->destination;
	const char *baseline = r->opts->no_baseline
		? "; baseline skipped (--no-baseline)"
		: baseline_ran ? "; baseline complete" : "";
	if (res->already_current && !baseline_ran)
		snprintf(buf, len,
			 "%s %s (build %s) is already installed and active at %s; nothing to do (%s)",
			 app_impl_name(r->pins), p->version, p->build, where,
			 r->reinstall_hint);
	else if (res->already_current)
		snprintf(buf, len,
			 "%s %s (build %s) is already installed and active at %s%s",
			 app_impl_name(r->pins), p->version, p->build, where,
			 baseline);
	else
		snprintf(buf, len, "installed %s %s (build %s) at %s%s",
			 app_impl_name(r->pins), p->version, p->build, where,
			 baseline);
}

int app_install_execute(const app_install_run *r, const app_front *front,
			const atomic_int *cancel)
{
	int had_current = path_exists(r->plan->destination);
	pyrt_events ev = app_front_events(front, cancel);
	pyrt_install_result res;
	memset(&res, 0, sizeof res);
	pyrt_error err = PYRT_ERROR_INIT;
	app_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	int baseline_ran = 0;
	int rc = cancel && atomic_load(cancel)
		? pyrt_error_set(&err, PYRT_E_CANCELLED, "cancelled")
		: pyrt_install_run(r->iopts, &ev, &res, &err);
	int active = rc == 0;
	if (active)
		rc = run_baseline(r, &res, &ev, &rep, &baseline_ran, &err);
	char text[8192];
	app_outcome o = { .command = "install", .code = rc };
	if (active) {
		o.install_dir = res.install_dir;
		o.sha256 = res.sha256;
		o.already_current = res.already_current;
		app_baseline_report_fill(&rep, r->opts->box_root, &o);
		if (rc != PYRT_E_CANCELLED)
			app_baseline_ready_plugins(&rep, front, r->opts, r->pins,
						   r->platform_key, &ev, &o);
	}
	if (rc == 0) {
		summary(r, &res, baseline_ran, text, sizeof text);
		o.summary = text;
	} else {
		o.error = err.msg[0] ? err.msg : pyrt_strerror(rc);
		if (active) {
			/* Not "install failed": the install stands. */
			o.failure = rc == PYRT_E_BASELINE ? ""
				    : "the runtime is installed, but the baseline failed";
			o.unchanged = "the runtime itself is installed and active; only the doc-library baseline is incomplete";
		} else {
			o.unchanged = had_current
				? "the previous runtime is still active"
				: "nothing was installed";
		}
	}
	app_front_result(front, &o);
	app_baseline_report_clear(&rep);
	return rc;
}
