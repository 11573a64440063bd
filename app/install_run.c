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
#include "plugin_ops.h"

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
			cli_baseline_report *rep, int *ran, pyrt_error *err)
{
	int skipped = cli_baseline_skip(r->opts, res->already_current, ev, err);
	/* A cancel that lands after the swap finds nothing left to stop
	 * when the baseline is skipped: the install stands as a success. */
	if (skipped)
		return skipped < 0 && skipped != PYRT_E_CANCELLED ? skipped : 0;
	*ran = 1;
	return cli_baseline_run(r->opts, r->pins, ev, rep, err);
}

/*
 * A new install starts from the baseline alone: what the plugins had
 * before (plugins install) is installed again, as rustup keeps a
 * toolchain's components.  Only after a switch to a new install: an
 * install already current dropped nothing.
 */
static int keep_plugins(const app_install_run *r,
			const pyrt_install_result *res,
			const app_plugins_keep *keep, const pyrt_events *ev,
			size_t *reapplied, pyrt_error *err)
{
	if (!keep || res->already_current)
		return 0;
	return app_plugins_keep_reapply(keep, r->opts, r->pins, r->platform_key,
					ev, reapplied, err);
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
			 cli_impl_name(r->pins), p->version, p->build, where,
			 r->reinstall_hint);
	else if (res->already_current)
		snprintf(buf, len,
			 "%s %s (build %s) is already installed and active at %s%s",
			 cli_impl_name(r->pins), p->version, p->build, where,
			 baseline);
	else
		snprintf(buf, len, "installed %s %s (build %s) at %s%s",
			 cli_impl_name(r->pins), p->version, p->build, where,
			 baseline);
}

int app_install_execute(const app_install_run *r, const cli_front *front,
			const atomic_int *cancel)
{
	int had_current = path_exists(r->plan->destination);
	pyrt_events ev = cli_front_events(front, cancel);
	pyrt_install_result res;
	memset(&res, 0, sizeof res);
	pyrt_error err = PYRT_ERROR_INIT;
	cli_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	int baseline_ran = 0;
	size_t reapplied = 0;
	app_plugins_keep *keep = had_current && !(cancel && atomic_load(cancel))
		? app_plugins_keep_before(r->opts, r->pins, r->platform_key,
					  &ev)
		: NULL;
	int rc = cancel && atomic_load(cancel)
		? pyrt_error_set(&err, PYRT_E_CANCELLED, "cancelled")
		: pyrt_install_run(r->iopts, &ev, &res, &err);
	int active = rc == 0;
	if (active)
		rc = run_baseline(r, &res, &ev, &rep, &baseline_ran, &err);
	if (active && (rc == 0 || rc == PYRT_E_BASELINE)) {
		pyrt_error kerr = PYRT_ERROR_INIT;
		if (keep_plugins(r, &res, keep, &ev, &reapplied, &kerr) &&
		    rc == 0)
			rc = pyrt_error_set(&err, kerr.code, "%s", kerr.msg);
	}
	app_plugins_keep_free(keep);
	char text[8192];
	cli_outcome o = { .command = "install", .code = rc };
	if (active) {
		o.install_dir = res.install_dir;
		o.sha256 = res.sha256;
		o.already_current = res.already_current;
		cli_baseline_report_fill(&rep, r->opts->box_root, &o);
		if (rc != PYRT_E_CANCELLED)
			cli_baseline_ready_plugins(&rep, front, r->opts, r->pins,
						   r->platform_key, &ev, &o);
	}
	if (rc == 0) {
		summary(r, &res, baseline_ran, text, sizeof text);
		size_t n = strlen(text);
		if (reapplied)
			snprintf(text + n, sizeof text - n, "; the requirements "
				 "of %zu plugin%s re-applied", reapplied,
				 reapplied == 1 ? "" : "s");
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
	cli_front_result(front, &o);
	cli_baseline_report_clear(&rep);
	return rc;
}
