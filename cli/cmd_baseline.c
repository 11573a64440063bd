/*
 * `pyrt baseline`: (re)install the doc-library baseline into the active
 * runtime with its own pip, reported through the same front ends as
 * install (plain lines or NDJSON events, pip's lines as log events).  The
 * step itself is shared with install and the TUI (app/baseline.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/baseline.h"
#include "app/common.h"
#include "app/exitcodes.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/signals.h"
#include "core/util/error.h"

int cli_cmd_baseline(const app_request *opts)
{
	if (opts->dry_run)
		return cli_cmd_dry_run(opts);
	app_front *front = cli_front_for(opts);
	if (!front || cli_signals_install(!opts->quiet) != 0) {
		app_front_free(front);
		app_errorf("cannot start: out of memory or no signal handlers");
		return app_exit_code(PYRT_E_INTERNAL);
	}
	char msg[PYRT_ERROR_MSG_MAX + 512];
	pyrt_pins *pins = NULL;
	int rc = app_load_pins(opts, &pins, msg, sizeof msg);
	if (rc < 0) {
		int status = app_exit_code(app_front_refuse(front, "baseline",
							    rc, msg));
		app_front_free(front);
		return status;
	}
	rc = app_baseline_execute(opts, pins, NULL, front, cli_cancel_flag());
	app_front_free(front);
	pyrt_pins_free(pins);
	return app_exit_code(rc);
}
