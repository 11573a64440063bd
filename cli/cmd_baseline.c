/*
 * `pyrt baseline`: (re)install the doc-library baseline into the active
 * runtime with its own pip, reported through the same front ends as
 * install (plain lines or NDJSON events, pip's lines as log events).  The
 * step itself is shared with install and the TUI (app/baseline_step.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_step.h"
#include "commands.h"
#include "common.h"
#include "error.h"
#include "exitcodes.h"
#include "fronts.h"
#include "signals.h"

/* Report a failure that happened before anything was started. */
static int refuse(cli_front *front, int code, const char *msg)
{
	cli_outcome o = { .command = "baseline", .code = code, .error = msg,
			  .before_start = 1 };
	cli_front_result(front, &o);
	return cli_exit_code(code);
}

int cli_cmd_baseline(const cli_opts *opts)
{
	cli_front *front = cli_front_for(opts);
	if (!front || cli_signals_install(!opts->quiet) != 0) {
		cli_front_free(front);
		cli_errorf("cannot start: out of memory or no signal handlers");
		return cli_exit_code(PYRT_E_INTERNAL);
	}
	char msg[PYRT_ERROR_MSG_MAX + 512];
	pyrt_pins *pins = NULL;
	int rc = cli_load_pins(opts, &pins, msg, sizeof msg);
	if (rc < 0) {
		int status = refuse(front, rc, msg);
		cli_front_free(front);
		return status;
	}
	cli_baseline_report rep;
	memset(&rep, 0, sizeof rep);
	pyrt_events ev = cli_front_events(front, cli_cancel_flag());
	pyrt_error err = PYRT_ERROR_INIT;
	rc = cli_cancelled() ? pyrt_error_set(&err, PYRT_E_CANCELLED,
					      "cancelled")
			     : cli_baseline_run(opts, pins, &ev, &rep, &err);
	cli_outcome o = { .command = "baseline", .code = rc };
	if (rc == 0) {
		cli_baseline_summary(&rep.result, msg, sizeof msg);
		o.summary = msg;
	} else {
		o.error = err.msg[0] ? err.msg : pyrt_strerror(rc);
		/* "baseline partial: ..." names itself. */
		if (rc == PYRT_E_BASELINE)
			o.failure = "";
		if (rc != PYRT_E_NOT_READY && rc != PYRT_E_USAGE)
			o.unchanged = "the runtime itself stays active (a "
				      "baseline failure never deactivates it)";
	}
	cli_baseline_report_fill(&rep, opts->box_root, &o);
	cli_front_result(front, &o);
	cli_baseline_report_clear(&rep);
	cli_front_free(front);
	pyrt_pins_free(pins);
	return cli_exit_code(rc);
}
