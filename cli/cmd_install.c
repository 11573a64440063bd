/*
 * The commands that change the box: install, rollback, uninstall.
 *
 * Each one checks everything it can before touching the disk (pins,
 * platform, consent), then hands the work to core with a front end's events
 * and the signal-driven cancel flag, and reports one outcome through the
 * same front end, so the plain, JSON and (later) curses front ends all say
 * the same thing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/box.h"
#include "app/common.h"
#include "app/exitcodes.h"
#include "app/install.h"
#include "cli/commands.h"
#include "cli/consent.h"
#include "cli/signals.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"
#include "core/pkgs/baseline.h"
#include "core/runtime/box.h"
#include "core/runtime/install.h"
#include "core/util/error.h"

/* Everything an install run holds, so one cleanup frees it on every path
 * (the front, the pins and the platform are cli/main.c's). */
typedef struct install_ctx {
	const cli_ctx *cli;
	pyrt_install_opts iopts;
	pyrt_install_plan plan;
	char msg[PYRT_ERROR_MSG_MAX + 512];
} install_ctx;

/* The facts a person needs to say yes (app/install.h), one per line,
 * whole. */
static void consent_block(const install_ctx *c, char *buf, size_t len)
{
	app_install_facts *f = malloc(sizeof *f);
	if (!f) {
		snprintf(buf, len, "pyrt is about to install a managed Python "
			 "runtime into %s\n", c->plan.destination);
		return;
	}
	app_install_facts_fill(c->cli->opts, c->cli->pins, &c->plan, f);
	size_t n = (size_t)snprintf(buf, len, "%s\n", f->headline);
	for (int i = 0; i < APP_FACT_COUNT && n < len; i++) {
		char label[32];
		snprintf(label, sizeof label, "%s:", f->label[i]);
		n += (size_t)snprintf(buf + n, len - n, "  %-13s %s\n", label,
				      f->value[i]);
	}
	free(f);
}

/* The pin for this platform → the plan.  Returns 0 or an exit status
 * (already reported). */
static int install_prepare(install_ctx *c)
{
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_install_prepare(c->cli->opts, c->cli->pins,
				     c->cli->platform.key, &c->iopts, &c->plan,
				     &err);
	if (rc < 0)
		return cli_refuse_front(c->cli, rc, err.msg);
	return 0;
}

/* Ask only when something will actually be done. */
static int install_consent(install_ctx *c)
{
	if (c->plan.already_current && !c->cli->opts->force)
		return 0;
	char block[16384]; /* every fact whole: a URL, two paths, the baseline */
	consent_block(c, block, sizeof block);
	int rc = cli_consent(c->cli->opts, block, "Install?", c->msg,
			     sizeof c->msg);
	if (rc < 0)
		return cli_refuse_front(c->cli, rc, c->msg);
	return 0;
}

/* Run core (tee'd into the install log), then the baseline and the
 * plugin check, and report the outcome (app/install.c, shared with the
 * TUI and the API server). */
static int install_execute(install_ctx *c)
{
	app_install_run run = {
		.opts = c->cli->opts, .pins = c->cli->pins,
		.platform_key = c->cli->platform.key, .iopts = &c->iopts,
		.plan = &c->plan, .reinstall_hint = "use --force to reinstall",
	};
	return app_exit_code(app_install_execute(&run, c->cli->front,
						 cli_cancel_flag()));
}

int cli_cmd_install(const cli_ctx *cli)
{
	install_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		app_errorf("out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	c->cli = cli;
	int status = install_prepare(c);
	if (status == 0)
		status = install_consent(c);
	if (status == 0)
		status = install_execute(c);
	free(c);
	return status;
}

int cli_cmd_rollback(const cli_ctx *c)
{
	return app_exit_code(app_rollback_execute(c->opts, c->pins,
						  c->platform.key, c->front,
						  cli_cancel_flag()));
}

int cli_cmd_uninstall(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	app_front *front = c->front;
	char block[8192] = "pyrt is about to remove the managed Python runtime:\n";
	size_t used = strlen(block);
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int rc = app_uninstall_prepare(opts, front, block + used,
				       sizeof block - used);
	if (rc == 1) {
		rc = cli_consent(opts, block, "Uninstall?", msg, sizeof msg);
		if (rc < 0)
			app_front_refuse(front, "uninstall", rc, msg);
		else
			rc = app_uninstall_execute(opts, front,
						   cli_cancel_flag());
	}
	return app_exit_code(rc);
}
