/*
 * `pyrt smoke [--out FILE]`: the ADR's acceptance test from the command
 * line.  Core makes the managed interpreter write a real .docx and checks
 * it; this prints the one-line answer (or one JSON object) and maps the
 * failure to its exit code.  Progress lines go to stderr through the lines
 * front end; with --json only the final object is printed.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/doctor.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "core/diagnose/smoke.h"
#include "core/dist/pins.h"
#include "core/util/error.h"

/* {"ok", "paragraph", "docx", "bytes", "seconds"} or {"ok", "code",
 * "error"}. */
static int print_json(int rc, const pyrt_smoke_result *res,
		      const pyrt_error *err)
{
	json_t *obj;
	if (rc == 0)
		obj = json_pack("{s:b, s:o, s:o, s:I, s:f}", "ok", 1,
				"paragraph", app_text_json(res->paragraph), "docx",
				res->docx_path[0] ? app_text_json(res->docx_path)
						  : json_null(),
				"bytes", (json_int_t)res->docx_bytes,
				/* to the millisecond, as every "t" */
				"seconds", (double)(long long)(res->seconds *
							       1000.0 + 0.5) /
					   1000.0);
	else
		obj = json_pack("{s:b, s:s, s:o}", "ok", 0, "code",
				app_code_name(rc), "error",
				app_text_json(err->msg[0] ? err->msg
						: pyrt_strerror(rc)));
	if (!obj) {
		app_errorf("out of memory");
		return PYRT_E_NOMEM;
	}
	int w = json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
	fputc('\n', stdout);
	json_decref(obj);
	return w == 0 ? 0 : PYRT_E_IO;
}

static void print_human(const pyrt_smoke_result *res)
{
	if (res->docx_path[0])
		app_text_printf(stdout, "smoke test passed: %s holds \"%s\"\n",
				res->docx_path, res->paragraph);
	else
		app_text_printf(stdout,
				"smoke test passed: the managed runtime wrote a .docx "
				"holding \"%s\" (not kept; --out FILE keeps it)\n",
				res->paragraph);
}

int cli_cmd_smoke(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	pyrt_events ev = PYRT_EVENTS_INIT;
	if (c->front)
		ev = app_front_events(c->front, cli_cancel_flag());
	else
		ev.cancel = cli_cancel_flag();
	/* The pins say where the interpreter is (layout.interpreter). */
	pyrt_smoke_result *res = calloc(1, sizeof *res);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = res ? app_smoke_run(opts, c->pins, opts->out, &ev, res, &err)
		     : pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	int status = app_exit_code(rc);
	if (rc)
		app_fix_in_place(opts, err.msg, sizeof err.msg);
	if (opts->json && res) {
		int w = print_json(rc, res, &err);
		if (w && !rc)
			status = app_exit_code(w);
	} else if (rc == 0) {
		print_human(res);
	} else {
		app_errorf("smoke: %s", err.msg[0] ? err.msg : pyrt_strerror(rc));
	}
	free(res);
	return status;
}
