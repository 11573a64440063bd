/*
 * `pyrt baseline`: (re)install the doc-library baseline into the active
 * runtime with its own pip, reported through the same front ends as
 * install (plain lines or NDJSON events, pip's lines as log events).  The
 * step itself is shared with install and the TUI (app/baseline.h).
 */
#include "app/baseline.h"
#include "app/exitcodes.h"
#include "cli/commands.h"
#include "cli/signals.h"

int cli_cmd_baseline(const cli_ctx *c)
{
	return app_exit_code(app_baseline_execute(c->opts, c->pins, NULL,
						  c->front, cli_cancel_flag()));
}
