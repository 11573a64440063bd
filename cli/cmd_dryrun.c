/*
 * `pyrt install|baseline|plugins install NAME --dry-run`: the plan app/
 * composed (app/dryrun.h), as lines or, with --json, the one object.
 * Nothing is asked (no consent: nothing will be done) and nothing written.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/dryrun.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "app/text.h"
#include "cli/commands.h"
#include "core/util/error.h"

/* A plan that cannot be made: on stderr, and with --json as the one
 * object, the fix rendered for the request. */
int cli_refuse_dry_run(const cli_ctx *c, int code, const char *msg)
{
	const app_request *opts = c->opts;
	char fixed[PYRT_ERROR_MSG_MAX + 1024];
	app_fix_text(opts, msg, fixed, sizeof fixed);
	if (opts->json) {
		json_t *e = json_pack("{s:b, s:b, s:i, s:o}", "dry_run", 1, "ok",
				      0, "code", app_exit_code(code), "error",
				      app_text_json(fixed));
		if (e)
			json_dumpf(e, stdout, APP_TEXT_JSON_FLAGS);
		fputc('\n', stdout);
		json_decref(e);
	}
	app_errorf("%s --dry-run: %s", opts->command_word, fixed);
	return app_exit_code(code);
}

int cli_cmd_dry_run(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	pyrt_error err = PYRT_ERROR_INIT;
	json_t *plan = app_dry_run(opts, c->pins, c->platform.key, &err);
	if (!plan) {
		int rc = err.code ? err.code : PYRT_E_INTERNAL;
		return cli_refuse_dry_run(c, rc, err.msg[0] ? err.msg
							    : pyrt_strerror(rc));
	}
	if (opts->json) {
		json_dumpf(plan, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
		fputc('\n', stdout);
	} else {
		/* Line by line: each is cleaned for the terminal. */
		char *text = app_dry_run_text(plan);
		for (char *line = text, *nl; line && *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				nl = line + strlen(line) - 1;
			else
				*nl = '\0';
			app_text_printf(stdout, "%s\n", line);
		}
		free(text);
	}
	json_decref(plan);
	return APP_EXIT_OK;
}
