/*
 * `pyrt mirror DIR`: a verified local mirror of the pinned archives (and
 * the baseline's wheels) that any static web server can serve to
 * `pyrt install --mirror URL --wheelhouse DIR/wheels`.  `pyrt mirror
 * --verify DIR` re-hashes every file its index names: exit 0 when all
 * match, 5 (verification) naming each file that does not.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "core/dist/mirror.h"
#include "core/util/error.h"

/* Progress lines to stderr; debug ones only with -v, none with -q. */
static int on_log(pyrt_log_level level, const char *line, void *payload)
{
	const app_request *opts = payload;
	if (opts->quiet && level != PYRT_LOG_WARN)
		return 0;
	if (level == PYRT_LOG_DEBUG && !opts->verbose)
		return 0;
	app_text_printf(stderr, "pyrt: mirror: %s%s\n",
			level == PYRT_LOG_WARN ? "warning: " : "", line);
	return 0;
}

static void print_json(json_t *obj)
{
	if (obj &&
	    json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS) == 0)
		fputc('\n', stdout);
	json_decref(obj);
}

typedef struct verify_ctx {
	const app_request *opts;
	json_t *problems;
} verify_ctx;

static void on_problem(const char *file, const char *what, void *payload)
{
	verify_ctx *v = payload;
	if (v->problems)
		json_array_append_new(v->problems,
				      json_pack("{s:o, s:o}", "file",
						app_text_json(file), "problem",
						app_text_json(what)));
	else
		app_text_printf(stdout, "%s: %s\n", file, what);
}

static int run_verify(const app_request *opts, const pyrt_pins *pins)
{
	const char *dir = opts->positional[0];
	verify_ctx v = { opts, opts->json ? json_array() : NULL };
	size_t checked = 0, locked = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	char msg[PYRT_ERROR_MSG_MAX + 256];
	int rc = pyrt_mirror_verify(dir, on_problem, &v, &checked, &err);
	/* The index lives on the mirror: whoever changes a wheel can change
	 * it too.  The pins' lock is the anchor they cannot edit. */
	int lrc = rc >= 0 ? pyrt_mirror_verify_lock(dir, pins, on_problem, &v,
						    &locked, &err) : 0;
	if (lrc < 0)
		rc = lrc;
	else if (rc >= 0)
		rc += lrc;
	char against[PYRT_ERROR_MSG_MAX];
	if (pyrt_pins_lock_count(pins))
		snprintf(against, sizeof against, "its index and the wheel lock "
			 "of the pins (%s, %zu wheels)", pyrt_pins_source(pins),
			 locked);
	else
		snprintf(against, sizeof against, "its index (the pins (%s) lock "
			 "no wheel, so the wheels are checked against the index "
			 "alone)", pyrt_pins_source(pins));
	if (rc > 0 && locked)
		snprintf(msg, sizeof msg, "%d problem(s) among the %zu files "
			 "in %s, checked against %s", rc, checked, dir,
			 against);
	else if (rc > 0)
		snprintf(msg, sizeof msg, "%d of %zu files in %s differ from "
			 "%s", rc, checked, dir, against);
	else if (rc == 0)
		snprintf(msg, sizeof msg, "%zu files in %s match %s", checked,
			 dir, against);
	else
		snprintf(msg, sizeof msg, "%s", err.msg);
	int status = rc > 0 ? app_exit_code(PYRT_E_VERIFY) : app_exit_code(rc);
	if (opts->json) {
		print_json(json_pack("{s:b, s:o, s:o, s:I, s:o}", "ok", rc == 0,
				     "message", app_text_json(msg), "dir",
				     app_text_json(dir), "checked",
				     (json_int_t)checked, "problems",
				     v.problems ? v.problems : json_array()));
		if (rc < 0)
			app_errorf("mirror: %s", msg);
	} else if (rc == 0) {
		app_text_printf(stdout, "mirror: %s\n", msg);
	} else {
		app_text_printf(stderr, "pyrt: mirror: %s\n", msg);
	}
	return status;
}

static void report(const app_request *opts, int rc, const pyrt_mirror_result *r,
		   const char *msg)
{
	const char *dir = opts->positional[0];
	if (opts->json) {
		print_json(json_pack("{s:b, s:o, s:o, s:I, s:I, s:I, s:s?, s:s}",
				     "ok", rc == 0, "message",
				     app_text_json(msg), "dir",
				     app_text_json(dir), "fetched",
				     (json_int_t)r->fetched, "kept",
				     (json_int_t)r->kept, "wheels",
				     (json_int_t)r->wheels, "wheels_missing",
				     r->missing_wheels ? r->missing : NULL,
				     "code", app_code_name(rc)));
		if (rc)
			app_errorf("mirror: %s", msg);
		return;
	}
	if (rc)
		app_errorf("mirror: %s", msg);
	else
		app_text_printf(stdout, "mirror: %s\n", msg);
}

/* Pins that cannot be read: --verify words it as its other failures. */
int cli_refuse_mirror(const cli_ctx *c, int code, const char *msg)
{
	if (c->opts->mirror_verify)
		app_errorf("mirror: %s", msg);
	else
		app_errorf("%s", msg);
	return app_exit_code(code);
}

int cli_cmd_mirror(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	const pyrt_pins *pins = c->pins;
	if (opts->mirror_verify)
		return run_verify(opts, pins);
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int rc;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_mirror_result res;
	memset(&res, 0, sizeof res);
	/* An unknown key is refused before DIR is created or a byte fetched. */
	rc = pyrt_mirror_check_platforms(pins, opts->platforms,
					 opts->nplatforms, &err);
	if (!rc && cli_signals_install(!opts->quiet) != 0)
		rc = pyrt_error_set(&err, PYRT_E_INTERNAL,
				    "cannot install the signal handlers");
	if (!rc) {
		pyrt_events ev = PYRT_EVENTS_INIT;
		ev.on_log = on_log;
		ev.payload = (void *)opts;
		ev.cancel = cli_cancel_flag();
		pyrt_mirror_opts mo = PYRT_MIRROR_OPTS_INIT;
		mo.dir = opts->positional[0];
		mo.pins = pins;
		mo.platforms = opts->platforms;
		mo.nplatforms = opts->nplatforms;
		mo.source_mirror = opts->mirror;
		mo.cacert = opts->cacert;
		mo.wheelhouse_from = opts->wheelhouse_from;
		rc = pyrt_mirror_run(&mo, &ev, &res, &err);
	}
	if (rc)
		snprintf(msg, sizeof msg, "%s", err.msg[0] ? err.msg
							   : pyrt_strerror(rc));
	else
		snprintf(msg, sizeof msg, "%zu archive(s) in %s (%zu fetched, "
			 "%zu already there and matching), %zu wheel(s); "
			 "index %s/%s", res.fetched + res.kept,
			 opts->positional[0], res.fetched, res.kept, res.wheels,
			 opts->positional[0], PYRT_MIRROR_INDEX);
	report(opts, rc, &res, msg);
	return app_exit_code(rc);
}
