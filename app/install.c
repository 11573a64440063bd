/*
 * prepare → (consent) → install → baseline → plugin check → one outcome,
 * for every front end.
 */
#include "app/install.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/baseline.h"
#include "app/common.h"
#include "app/fix.h"
#include "app/plugin.h"
#include "app/status.h"
#include "core/pkgs/baseline.h"
#include "core/runtime/box.h"
#include "core/runtime/status.h"
#include "core/util/error.h"
#include "core/util/fmt.h"

static int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

int app_install_prepare(const app_request *req, const pyrt_pins *pins,
			const char *platform_key, pyrt_install_opts *iopts,
			pyrt_install_plan *plan, pyrt_error *err)
{
	int rc;
	/* A --requirements file pip will not be given is refused before
	 * anything is downloaded, not after the runtime is active. */
	if (req->requirements && !req->no_baseline &&
	    (rc = pyrt_baseline_check_file(req->requirements, NULL, err)) < 0)
		return rc;
	if (!pyrt_pins_find(pins, platform_key)) {
		char keys[1024];
		app_supported_keys(pins, keys, sizeof keys);
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unsupported platform %s: no pinned runtime for it (supported: %s)",
				      platform_key, keys);
	}
	pyrt_install_opts init = PYRT_INSTALL_OPTS_INIT;
	*iopts = init;
	iopts->pins = pins;
	iopts->platform_key = platform_key;
	iopts->mirror = req->mirror;
	iopts->cacert = req->cacert;
	iopts->from_file = req->from_file;
	iopts->no_wait = req->no_wait;
	iopts->force = req->force;
	/* Opened without creating: nothing is written before the consent.
	 * app_install_execute opens it again, in its own call. */
	pyrt_box *box = NULL;
	rc = pyrt_box_open(&box, req->box_root, 0, err);
	if (!rc)
		rc = pyrt_install_plan_make(box, iopts, plan, err);
	pyrt_box_free(box);
	if (rc < 0 && !err->msg[0])
		pyrt_error_set(err, rc, "%s", pyrt_strerror(rc));
	return rc < 0 ? rc : 0;
}

void app_install_baseline_fact(const app_request *req, const pyrt_pins *pins,
			       char *buf, size_t len)
{
	if (req->no_baseline) {
		snprintf(buf, len, "skipped (--no-baseline)");
		return;
	}
	size_t n = pyrt_pins_baseline_count(pins);
	char what[4200];
	if (req->requirements)
		snprintf(what, sizeof what, "the requirements in %s",
			 req->requirements);
	else
		snprintf(what, sizeof what, "%zu doc librar%s", n,
			 n == 1 ? "y" : "ies");
	snprintf(buf, len, "%s with the runtime's own pip, from %s%s", what,
		 req->wheelhouse ? "the wheelhouse " : "the package index",
		 req->wheelhouse ? req->wheelhouse : "");
}

void app_install_facts_fill(const app_request *req, const pyrt_pins *pins,
			    const pyrt_install_plan *p, app_install_facts *f)
{
	static const char *const labels[APP_FACT_COUNT] = {
		"Runtime", "Platform", "Download", "Source", "Destination",
		"SHA-256", "Free disk", "Baseline",
	};
	char (*v)[sizeof f->value[0]] = f->value;
	for (int i = 0; i < APP_FACT_COUNT; i++)
		f->label[i] = labels[i];
	/* What the box holds now decides the verb: a broken runtime is
	 * repaired, a ready one updated or reinstalled. */
	pyrt_status *st = calloc(1, sizeof *st);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_state state = st && app_status_read(req->box_root, pins,
						 p->platform, 0, NULL, st,
						 &err) == 0
		? st->state : PYRT_STATE_NOT_PROVISIONED;
	free(st);
	const char *verb = state == PYRT_STATE_BROKEN ? "repair"
			   : p->already_current ? "reinstall"
			   : state == PYRT_STATE_READY ? "update" : NULL;
	if (verb)
		snprintf(f->headline, sizeof f->headline, "pyrt is about to %s "
			 "the managed Python runtime%s:", verb,
			 state == PYRT_STATE_BROKEN ? " (it is broken)" : "");
	else
		snprintf(f->headline, sizeof f->headline, "pyrt is about to "
			 "install a managed Python runtime:");
	snprintf(v[APP_FACT_RUNTIME], sizeof v[0], "%s %s (build %s)%s%s%s",
		 app_impl_name(pins), p->version, p->build,
		 verb ? " (" : "", verb ? verb : "", verb ? ")" : "");
	snprintf(v[APP_FACT_PLATFORM], sizeof v[0], "%s", p->platform);
	if (p->size)
		app_human_bytes(p->size, v[APP_FACT_DOWNLOAD], sizeof v[0]);
	else
		/* The built-in pins carry no sizes (the release's are not
		 * known offline, and none is invented): said as such; a
		 * pins file's size: is shown above. */
		snprintf(v[APP_FACT_DOWNLOAD], sizeof v[0],
			 "size not pinned (the pins give no size:)");
	if (req->from_file)
		snprintf(v[APP_FACT_SOURCE], sizeof v[0], "%s (local file)",
			 req->from_file);
	else
		snprintf(v[APP_FACT_SOURCE], sizeof v[0], "%s", p->url);
	snprintf(v[APP_FACT_DESTINATION], sizeof v[0], "%s", p->destination);
	snprintf(v[APP_FACT_SHA256], sizeof v[0], "%s", p->sha256);
	if (p->free_bytes)
		app_human_bytes(p->free_bytes, v[APP_FACT_FREE_DISK], sizeof v[0]);
	else
		snprintf(v[APP_FACT_FREE_DISK], sizeof v[0], "unknown");
	f->free_disk_low = p->size && p->free_bytes &&
			   p->free_bytes < 3 * p->size;
	app_install_baseline_fact(req, pins, v[APP_FACT_BASELINE], sizeof v[0]);
}

/* Tee the run into an install log under the box, created now (after
 * consent: nothing is written to the box before the operator agreed);
 * nothing to do is not worth a log.  NULL: report to front as it is. */
static app_front *install_log(const app_install_run *r, const pyrt_box *box,
			       const app_front *front)
{
	if (r->log_path && r->log_path_len)
		r->log_path[0] = '\0';
	if (r->plan->already_current && !r->iopts->force)
		return NULL;
	if (!box || pyrt_box_create(box, NULL) != 0)
		return NULL; /* core reports the same failure in a moment */
	char path[4096];
	app_front *borrowed = app_front_borrow(front);
	app_front *logged = borrowed
		? app_front_with_log(borrowed, pyrt_box_logs_dir(box), "install",
				     path, sizeof path)
		: NULL;
	if (!logged || !path[0])
		return logged;
	app_front_log(logged, PYRT_LOG_INFO, "install log: %s", path);
	if (r->log_path && r->log_path_len)
		snprintf(r->log_path, r->log_path_len, "%s", path);
	return logged;
}

/*
 * The baseline, last: after a fresh activation, or on an already active
 * runtime whose marker does not say complete (or when --requirements names
 * something new to install).  Skipped with --no-baseline.
 */
static int run_baseline(const app_install_run *r, const pyrt_box *box,
			const pyrt_install_result *res, const pyrt_events *ev,
			app_baseline_report *rep, int *ran, pyrt_error *err)
{
	int skipped = app_baseline_skip(r->opts, box, res->already_current, ev,
					err);
	/* A cancel that lands after the swap finds nothing left to stop
	 * when the baseline is skipped: the install stands as a success. */
	if (skipped)
		return skipped < 0 && skipped != PYRT_E_CANCELLED ? skipped : 0;
	*ran = 1;
	return app_baseline_run(r->opts, box, r->pins, ev, rep, err);
}

/*
 * A new install starts from the baseline alone: what the plugins had
 * before (plugins install) is installed again, as rustup keeps a
 * toolchain's components.  Only after a switch to a new install: an
 * install already current dropped nothing.
 */
static int keep_plugins(const app_install_run *r, const pyrt_box *box,
			const pyrt_install_result *res,
			const app_plugins_keep *keep, const pyrt_events *ev,
			size_t *reapplied, pyrt_error *err)
{
	if (!keep || res->already_current)
		return 0;
	return app_plugins_keep_reapply(keep, r->opts, box, r->pins,
					r->platform_key, ev, reapplied, err);
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

/* What doctor would say about a download that failed (its network
 * checks name the stage), and the ways around the network. */
static void network_fix(const app_request *req, char *buf, size_t len)
{
	char doctor[1024];
	app_fix_render(req, "pyrt doctor", doctor, sizeof doctor);
	snprintf(buf, len, "run \"%s\" to see where it stops; or check the "
		 "DNS (/etc/resolv.conf) and the proxy variable (https_proxy); "
		 "or pass --mirror URL for a reachable mirror; or install "
		 "offline with --from-file ARCHIVE", doctor);
}

int app_install_execute(const app_install_run *r, const app_front *caller,
			const atomic_int *cancel)
{
	/* The box, opened once for the install, its baseline and their
	 * reports (the trust gate runs here); core opens nothing by path. */
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_box *box = NULL;
	int orc = pyrt_box_open(&box, r->opts->box_root, 0, &err);
	app_front *logged = install_log(r, box, caller);
	const app_front *front = logged ? logged : caller;
	int had_current = path_exists(r->plan->destination);
	pyrt_events ev = app_front_events(front, cancel);
	pyrt_install_result res;
	memset(&res, 0, sizeof res);
	app_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	int baseline_ran = 0;
	size_t reapplied = 0;
	app_plugins_keep *keep = had_current && !(cancel && atomic_load(cancel))
		? app_plugins_keep_before(box, r->pins, r->platform_key,
					  &ev)
		: NULL;
	/* Declared before the switch: a run stopped after it leaves the
	 * re-apply pending for the next install, baseline or plugins
	 * install to finish. */
	if (keep && (!r->plan->already_current || r->iopts->force))
		app_plugins_keep_declare(keep, box);
	int rc = cancel && atomic_load(cancel)
		? pyrt_error_set(&err, PYRT_E_CANCELLED, "cancelled")
		: orc ? orc : pyrt_install_run(box, r->iopts, &ev, &res, &err);
	int active = rc == 0;
	if (active)
		rc = run_baseline(r, box, &res, &ev, &rep, &baseline_ran, &err);
	/* A stop here is the re-apply's, not the baseline's: say which. */
	int in_reapply = 0;
	if (active && (rc == 0 || rc == PYRT_E_BASELINE)) {
		pyrt_error kerr = PYRT_ERROR_INIT;
		if (keep_plugins(r, box, &res, keep, &ev, &reapplied, &kerr) &&
		    rc == 0) {
			rc = pyrt_error_set(&err, kerr.code, "%s", kerr.msg);
			in_reapply = 1;
		}
	}
	if (active && (rc == 0 || rc == PYRT_E_BASELINE)) {
		pyrt_error perr = PYRT_ERROR_INIT;
		if (app_plugins_finish_pending(r->opts, box, r->pins, &ev,
					       &reapplied, &perr) && rc == 0) {
			rc = pyrt_error_set(&err, perr.code, "%s", perr.msg);
			in_reapply = 1;
		}
	}
	app_plugins_keep_free(keep);
	char text[8192];
	app_outcome o = { .command = "install", .code = rc };
	char fixed[PYRT_ERROR_MSG_MAX + 1024], netfix[2048], pending[1024];
	if (active) {
		o.install_dir = res.install_dir;
		o.sha256 = res.sha256;
		o.already_current = res.already_current;
		app_baseline_report_fill(&rep, box, &o);
		if (rc != PYRT_E_CANCELLED)
			app_baseline_ready_plugins(&rep, front, r->opts, box,
						   r->pins, r->platform_key,
						   &ev, &o);
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
		app_fix_text(r->opts, err.msg[0] ? err.msg : pyrt_strerror(rc),
			     fixed, sizeof fixed);
		o.error = fixed;
		if (rc == PYRT_E_NETWORK && !active) {
			network_fix(r->opts, netfix, sizeof netfix);
			o.fix = netfix;
		}
		if (active && in_reapply) {
			size_t n = app_plugins_pending_names(box, text,
							     sizeof text);
			pyrt_fmt_text(pending, sizeof pending, "the runtime "
				      "is installed and active with its "
				      "baseline; re-applying the requirements "
				      "of %s is pending in the box, and the "
				      "next pyrt install, baseline or plugins "
				      "install finishes it",
				      n ? text : "the plugins");
			o.failure = "the runtime is installed, but re-applying "
				    "the plugins' requirements stopped";
			o.unchanged = pending;
		} else if (active) {
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
	pyrt_box_free(box);
	app_front_free(logged);
	return rc;
}
