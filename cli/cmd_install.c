/*
 * The commands that change the box: install, rollback, uninstall.
 *
 * Each one checks everything it can before touching the disk (pins,
 * platform, consent), then hands the work to core with a front end's events
 * and the signal-driven cancel flag, and reports one outcome through the
 * same front end, so the plain, JSON and (later) curses front ends all say
 * the same thing.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "box.h"
#include "commands.h"
#include "common.h"
#include "consent.h"
#include "error.h"
#include "exitcodes.h"
#include "fronts.h"
#include "install.h"
#include "install_run.h"
#include "marker.h"
#include "pins.h"
#include "platform.h"
#include "signals.h"

/* Everything an install run holds, so one cleanup frees it on every path. */
typedef struct install_ctx {
	const cli_opts *opts;
	cli_front *front;
	pyrt_pins *pins;
	pyrt_platform platform;
	pyrt_install_opts iopts;
	pyrt_install_plan plan;
	char msg[PYRT_ERROR_MSG_MAX + 512];
} install_ctx;

/* Report a failure that happened before anything was started. */
static int refuse(cli_front *front, const char *command, int code,
		  const char *msg)
{
	cli_outcome o = { .command = command, .code = code, .error = msg,
			  .before_start = 1 };
	cli_front_result(front, &o);
	return cli_exit_code(code);
}

static const char *impl_name(const pyrt_pins *pins)
{
	const char *impl = pyrt_pins_implementation(pins);
	return (!impl || strcmp(impl, "cpython") == 0) ? "CPython" : impl;
}

/* What the baseline step will do: pip may reach the package index, so
 * the person consenting is told, and told where from. */
static void baseline_line(const install_ctx *c, char *buf, size_t len)
{
	const cli_opts *o = c->opts;
	if (o->no_baseline) {
		snprintf(buf, len, "skipped (--no-baseline)");
		return;
	}
	size_t n = pyrt_pins_baseline_count(c->pins);
	char what[4200];
	if (o->requirements)
		snprintf(what, sizeof what, "the requirements in %s",
			 o->requirements);
	else
		snprintf(what, sizeof what, "%zu doc librar%s", n,
			 n == 1 ? "y" : "ies");
	snprintf(buf, len, "%s with the runtime's own pip, from %s%s", what,
		 o->wheelhouse ? "the wheelhouse " : "the package index",
		 o->wheelhouse ? o->wheelhouse : "");
}

/* The facts a person needs to say yes: what, from where, to where, how
 * big, and whether it fits. */
static void consent_block(const install_ctx *c, char *buf, size_t len)
{
	const pyrt_install_plan *p = &c->plan;
	char size[32], free_disk[32];
	if (p->size)
		cli_human_bytes(p->size, size, sizeof size);
	else
		snprintf(size, sizeof size, "size unknown");
	if (p->free_bytes)
		cli_human_bytes(p->free_bytes, free_disk, sizeof free_disk);
	else
		snprintf(free_disk, sizeof free_disk, "unknown");
	/* The whole URL (redacted by core) and the whole digest: what the
	 * operator agrees to is what can be checked against the release. */
	const char *source = c->opts->from_file ? c->opts->from_file : p->url;
	char baseline[4400];
	baseline_line(c, baseline, sizeof baseline);
	snprintf(buf, len,
		 "pyrt is about to install a managed Python runtime:\n"
		 "  runtime:      %s %s (build %s)%s\n"
		 "  platform:     %s\n"
		 "  size:         %s\n"
		 "  source:       %s%s\n"
		 "  destination:  %s\n"
		 "  sha256:       %s\n"
		 "  free disk:    %s\n"
		 "  baseline:     %s\n",
		 impl_name(c->pins), p->version, p->build,
		 p->already_current ? " (reinstall: --force)" : "",
		 p->platform, size, source,
		 c->opts->from_file ? " (local file)" : "",
		 p->destination, p->sha256, free_disk, baseline);
}

/* pins → platform → pin for it → plan.  Returns 0 or an exit status
 * (already reported). */
static int install_prepare(install_ctx *c)
{
	const cli_opts *o = c->opts;
	int rc = cli_load_pins(o, &c->pins, c->msg, sizeof c->msg);
	if (rc == 0)
		rc = cli_detect_platform(&c->platform, c->msg, sizeof c->msg);
	if (rc < 0)
		return refuse(c->front, "install", rc, c->msg);
	/* A --requirements file pip will not be given is refused before
	 * anything is downloaded, not after the runtime is active. */
	pyrt_error ferr = PYRT_ERROR_INIT;
	if (o->requirements && !o->no_baseline &&
	    (rc = pyrt_baseline_check_file(o->requirements, NULL, &ferr)) < 0)
		return refuse(c->front, "install", rc, ferr.msg);
	if (!pyrt_pins_find(c->pins, c->platform.key)) {
		char keys[1024];
		cli_supported_keys(c->pins, keys, sizeof keys);
		snprintf(c->msg, sizeof c->msg,
			 "unsupported platform %s: no pinned runtime for it (supported: %s)",
			 c->platform.key, keys);
		return refuse(c->front, "install", PYRT_E_UNSUPPORTED, c->msg);
	}
	pyrt_install_opts init = PYRT_INSTALL_OPTS_INIT;
	c->iopts = init;
	c->iopts.box_root = o->box_root;
	c->iopts.pins = c->pins;
	c->iopts.platform_key = c->platform.key;
	c->iopts.mirror = o->mirror;
	c->iopts.cacert = o->cacert;
	c->iopts.from_file = o->from_file;
	c->iopts.no_wait = o->no_wait;
	c->iopts.force = o->force;
	pyrt_error err = PYRT_ERROR_INIT;
	rc = pyrt_install_plan_make(&c->iopts, &c->plan, &err);
	if (rc < 0)
		return refuse(c->front, "install", rc,
			      err.msg[0] ? err.msg : pyrt_strerror(rc));
	return 0;
}

/* Ask only when something will actually be done. */
static int install_consent(install_ctx *c)
{
	if (c->plan.already_current && !c->opts->force)
		return 0;
	char block[8192];
	consent_block(c, block, sizeof block);
	int rc = cli_consent(c->opts, block, "Install?", c->msg, sizeof c->msg);
	if (rc < 0)
		return refuse(c->front, "install", rc, c->msg);
	return 0;
}

/* Tee the run into an install log under the box (created now, after
 * consent: nothing is written to the box before the operator agreed). */
static void install_start_log(install_ctx *c)
{
	if (c->plan.already_current && !c->opts->force)
		return;
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_box_open(&box, c->iopts.box_root, 1, &err) != 0)
		return; /* core reports the same failure in a moment */
	char path[4096];
	cli_front *logged = cli_front_with_log(c->front, pyrt_box_logs_dir(box),
					       "install", path, sizeof path);
	pyrt_box_free(box);
	if (!logged) {
		c->front = NULL;
		return;
	}
	c->front = logged;
	if (path[0])
		cli_front_log(c->front, PYRT_LOG_INFO, "install log: %s", path);
}

/* Run core, then the baseline and the plugin check, and report the
 * outcome (app/install_run.c, shared with the API server). */
static int install_execute(install_ctx *c)
{
	install_start_log(c);
	if (!c->front)
		return cli_exit_code(PYRT_E_NOMEM);
	app_install_run run = {
		.opts = c->opts, .pins = c->pins,
		.platform_key = c->platform.key, .iopts = &c->iopts,
		.plan = &c->plan, .reinstall_hint = "use --force to reinstall",
	};
	return cli_exit_code(app_install_execute(&run, c->front,
						 cli_cancel_flag()));
}

int cli_cmd_install(const cli_opts *opts)
{
	install_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		cli_errorf("out of memory");
		return cli_exit_code(PYRT_E_NOMEM);
	}
	c->opts = opts;
	int status;
	c->front = cli_front_for(opts);
	if (!c->front || cli_signals_install(!opts->quiet) != 0) {
		cli_errorf("cannot start: out of memory or no signal handlers");
		status = cli_exit_code(PYRT_E_INTERNAL);
		goto cleanup;
	}
	status = install_prepare(c);
	if (status == 0)
		status = install_consent(c);
	if (status == 0)
		status = install_execute(c);
cleanup:
	cli_front_free(c->front);
	pyrt_pins_free(c->pins);
	free(c);
	return status;
}

/* After a rollback: name what is active now, from its marker. */
static void rollback_summary(const char *box_root, char *buf, size_t len)
{
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	snprintf(buf, len, "rolled back: the previous runtime is active again");
	if (pyrt_box_open(&box, box_root, 0, &err) != 0)
		return;
	char *real = realpath(pyrt_box_current(box), NULL);
	char *marker_path = NULL;
	/* current → installs/<id>/python; the marker sits in installs/<id>. */
	char *slash = real ? strrchr(real, '/') : NULL;
	if (slash) {
		*slash = '\0';
		if (asprintf(&marker_path, "%s/marker.json", real) < 0)
			marker_path = NULL;
	}
	pyrt_marker m;
	if (marker_path && pyrt_marker_read(marker_path, &m, &err) == 0)
		snprintf(buf, len, "rolled back to %s %s (build %s) at %s",
			 strcmp(m.implementation, "cpython") == 0
				 ? "CPython" : m.implementation,
			 m.version, m.build, pyrt_box_current(box));
	free(marker_path);
	free(real);
	pyrt_box_free(box);
}

int cli_cmd_rollback(const cli_opts *opts)
{
	/* The pins and platform the target's quick checks need. */
	pyrt_pins *pins = NULL;
	pyrt_platform platform;
	char msg[PYRT_ERROR_MSG_MAX];
	int rc = cli_load_pins(opts, &pins, msg, sizeof msg);
	if (rc == 0)
		rc = cli_detect_platform(&platform, msg, sizeof msg);
	if (rc < 0) {
		cli_errorf("%s", msg);
		pyrt_pins_free(pins);
		return cli_exit_code(rc);
	}
	cli_front *front = cli_front_for(opts);
	if (!front || cli_signals_install(!opts->quiet) != 0) {
		cli_front_free(front);
		pyrt_pins_free(pins);
		cli_errorf("cannot start: out of memory or no signal handlers");
		return cli_exit_code(PYRT_E_INTERNAL);
	}
	pyrt_events ev = cli_front_events(front, cli_cancel_flag());
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_install_opts io = PYRT_INSTALL_OPTS_INIT;
	io.box_root = opts->box_root;
	io.pins = pins;
	io.platform_key = platform.key;
	io.no_wait = opts->no_wait;
	io.force = opts->force;
	rc = pyrt_install_rollback(&io, &ev, &err);
	char summary[8192];
	cli_outcome o = { .command = "rollback", .code = rc };
	if (rc == 0) {
		rollback_summary(opts->box_root, summary, sizeof summary);
		o.summary = summary;
	} else {
		o.error = err.msg[0] ? err.msg : pyrt_strerror(rc);
		o.unchanged = "the active runtime was not changed";
	}
	cli_front_result(front, &o);
	cli_front_free(front);
	pyrt_pins_free(pins);
	return cli_exit_code(rc);
}

/* Whether the box holds an install: current, previous, or anything in
 * installs/ (a box with only a lock and logs has nothing to remove). */
static int has_install(const pyrt_box *box)
{
	struct stat st;
	if (lstat(pyrt_box_current(box), &st) == 0 ||
	    lstat(pyrt_box_previous(box), &st) == 0)
		return 1;
	DIR *d = opendir(pyrt_box_installs_dir(box));
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d)))
		found = strcmp(de->d_name, ".") != 0 &&
			strcmp(de->d_name, "..") != 0;
	closedir(d);
	return found;
}

int cli_cmd_uninstall(const cli_opts *opts)
{
	cli_front *front = cli_front_for(opts);
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int status;
	if (!front || cli_signals_install(!opts->quiet) != 0) {
		cli_errorf("cannot start: out of memory or no signal handlers");
		status = cli_exit_code(PYRT_E_INTERNAL);
		goto cleanup;
	}
	int rc = pyrt_box_open(&box, opts->box_root, 0, &err);
	/* Another user of root's box is told before being asked. */
	if (!rc)
		rc = pyrt_box_check_change(box, "uninstall", &err);
	if (rc < 0) {
		status = refuse(front, "uninstall", rc, err.msg);
		goto cleanup;
	}
	const char *runtime = pyrt_box_runtime_dir(box);
	cli_outcome o = { .command = "uninstall" };
	if (!has_install(box)) {
		snprintf(msg, sizeof msg, "nothing to uninstall: no runtime is "
			 "installed under %s", runtime);
		o.summary = msg;
		cli_front_result(front, &o);
		status = 0;
		goto cleanup;
	}
	char block[8192];
	snprintf(block, sizeof block,
		 "pyrt is about to remove the managed Python runtime:\n"
		 "  remove:       %s/{current,previous,installs,staging,downloads}\n"
		 "  effect:       tools that need the managed runtime stop working until \"pyrt install\"\n",
		 runtime);
	rc = cli_consent(opts, block, "Uninstall?", msg, sizeof msg);
	if (rc < 0) {
		status = refuse(front, "uninstall", rc, msg);
		goto cleanup;
	}
	pyrt_events ev = cli_front_events(front, cli_cancel_flag());
	rc = pyrt_install_uninstall(opts->box_root, opts->no_wait, &ev, &err);
	o.code = rc;
	if (rc == 0) {
		snprintf(msg, sizeof msg, "uninstalled the managed runtime from %s",
			 runtime);
		o.summary = msg;
	} else {
		o.error = err.msg[0] ? err.msg : pyrt_strerror(rc);
	}
	cli_front_result(front, &o);
	status = cli_exit_code(rc);
cleanup:
	pyrt_box_free(box);
	cli_front_free(front);
	return status;
}
