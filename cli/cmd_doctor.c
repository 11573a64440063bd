/*
 * `pyrt doctor [--json] [--bundle FILE]`: core's checklist as a table for
 * people (✓ ✗ ! - in UTF-8 locales, PASS FAIL WARN SKIP otherwise) or one
 * JSON object, and optionally a support bundle.  Everything printed was
 * redacted by core.  Exit 0 only when no check failed, 1 otherwise.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "app/common.h"
#include "app/doctor.h"
#include "app/doctor_json.h"
#include "app/exitcodes.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "core/diagnose/doctor.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"
#include "core/util/error.h"

static const char *verdict_mark(pyrt_check_verdict v, int utf8)
{
	static const char *const glyphs[] = { "✓", "!", "✗", "-" };
	static const char *const words[] = { "PASS", "WARN", "FAIL", "SKIP" };
	if ((unsigned)v > PYRT_CHECK_SKIP)
		return "?";
	return utf8 ? glyphs[v] : words[v];
}

/* Green, yellow, red, dim: only on a terminal that allows colour. */
static const char *verdict_color(pyrt_check_verdict v)
{
	static const char *const colors[] = { "\033[32m", "\033[33m",
					      "\033[31m", "\033[2m" };
	return (unsigned)v <= PYRT_CHECK_SKIP ? colors[v] : "";
}

static void print_table(const pyrt_doctor *d, const app_request *opts, FILE *out)
{
	int utf8 = app_text_utf8_locale();
	int color = !opts->no_color && app_is_terminal(fileno(out));
	size_t width = 0, n = pyrt_doctor_count(d);
	int tally[PYRT_CHECK_SKIP + 1] = { 0 };
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(pyrt_doctor_at(d, i)->title);
		width = w > width ? w : width;
	}
	for (size_t i = 0; i < n; i++) {
		const pyrt_check *c = pyrt_doctor_at(d, i);
		tally[c->verdict <= PYRT_CHECK_SKIP ? c->verdict : 0]++;
		/* -q: the failures and the tally only. */
		if (opts->quiet && c->verdict != PYRT_CHECK_FAIL)
			continue;
		/* Glyphs are one column wide, words four: pad by mode.  The
		 * mark and its colour are ours; the rest is cleaned. */
		fprintf(out, "%s%s%s ", color ? verdict_color(c->verdict) : "",
		       verdict_mark(c->verdict, utf8), color ? "\033[0m" : "");
		app_text_printf(out, "%-*s  %s\n", (int)width, c->title,
				c->detail);
		if (c->fix)
			app_text_printf(out, "%*s %-*s  fix: %s\n",
					utf8 ? 1 : 4, "", (int)width, "", c->fix);
	}
	fprintf(out, "doctor: %d passed, %d warning%s, %d failed, %d skipped\n",
	       tally[PYRT_CHECK_PASS], tally[PYRT_CHECK_WARN],
	       tally[PYRT_CHECK_WARN] == 1 ? "" : "s", tally[PYRT_CHECK_FAIL],
	       tally[PYRT_CHECK_SKIP]);
}

/* Print the answer (and write the bundle); returns the exit status. */
static int doctor_report(const pyrt_doctor *d, const app_request *opts)
{
	char *text = app_doctor_json_text(d);
	if (!text) {
		app_errorf("doctor: out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	/* With --bundle - the bundle owns stdout; the answer moves to
	 * stderr. */
	int to_stdout = opts->bundle && strcmp(opts->bundle, "-") == 0;
	FILE *out = to_stdout ? stderr : stdout;
	if (opts->json)
		fprintf(out, "%s\n", text); /* escaped by jansson, ASCII only */
	else
		print_table(d, opts, out);
	fflush(out);
	int status = pyrt_doctor_passed(d) ? APP_EXIT_OK : APP_EXIT_NOT_READY;
	if (opts->bundle) {
		pyrt_error err = PYRT_ERROR_INIT;
		int rc = pyrt_doctor_bundle(d, text, opts->bundle, &err);
		if (rc) {
			app_errorf("doctor: cannot write the support bundle: %s",
				   err.msg[0] ? err.msg : pyrt_strerror(rc));
			status = app_exit_code(rc);
		} else if (!opts->quiet && !to_stdout) {
			app_text_printf(stderr, "support bundle written: %s\n",
				opts->bundle);
		}
	}
	free(text);
	return status;
}

int cli_check_doctor(const app_request *opts)
{
	if (opts->bundle && strcmp(opts->bundle, "-") == 0 &&
	    isatty(STDOUT_FILENO)) {
		app_errorf("doctor: --bundle - writes a tar.gz to stdout, which is "
			   "a terminal; redirect it (> bundle.tar.gz) or pipe it");
		return APP_EXIT_USAGE;
	}
	return 0;
}

int cli_cmd_doctor(const cli_ctx *c)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	if (c->front)
		ev = app_front_events(c->front, cli_cancel_flag());
	else
		ev.cancel = cli_cancel_flag();
	pyrt_doctor *d = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_doctor_run(c->opts, c->pins, c->platform.key, &ev, &d,
				&err);
	int status;
	if (rc < 0) {
		app_errorf("doctor: %s", err.msg[0] ? err.msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
	} else {
		status = doctor_report(d, c->opts);
	}
	pyrt_doctor_free(d);
	return status;
}
