/*
 * The NDJSON front end: one JSON object per line on stdout for every event,
 * flushed at once so a script reading the pipe sees progress live.  Objects
 * are built with jansson (no hand-written escaping).  Progress is thinned to
 * at most two events a second; everything else is passed through.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/event_json.h"
#include "app/exitcodes.h"
#include "app/status_json.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "core/util/clock.h"
#include "core/util/error.h"

#define JSON_PROGRESS_INTERVAL_S 0.5

typedef struct json_state {
	FILE *out;
	int verbose;
	/* "plugins install" runs pip through the baseline's step: its events
	 * say "plugins", so a script never reads a plugin's pip run as the
	 * baseline's. */
	int plugin_install; /* pip's step is named "plugins" */
	double start;
	double last_progress; /* < 0: none emitted yet */
} json_state;

/* Seconds since the front end started. */
static double elapsed(const json_state *s)
{
	return pyrt_now() - s->start;
}

/* Write and free one event object (a NULL object, out of memory, is
 * skipped: losing one event must not stop an install). */
static void emit(json_state *s, json_t *obj)
{
	if (!obj)
		return;
	if (json_dumpf(obj, s->out, JSON_COMPACT | JSON_REAL_PRECISION(10) |
		       APP_TEXT_JSON_FLAGS) == 0)
		fputc('\n', s->out);
	fflush(s->out);
	json_decref(obj);
}

static const char *json_step_name(const json_state *s, pyrt_step step)
{
	return app_event_step_name(step, s->plugin_install);
}

/* {"event":"step",...} for every step change, unthinned. */
static int json_step(pyrt_step step, pyrt_step_state st, const char *detail,
		     void *state)
{
	json_state *s = state;
	emit(s, app_event_step(json_step_name(s, step), st, detail, elapsed(s)));
	return 0;
}

/* {"event":"progress",...}, at most one per JSON_PROGRESS_INTERVAL_S. */
static int json_progress(pyrt_step step, const pyrt_progress *p, void *state)
{
	json_state *s = state;
	double now = pyrt_now();
	if (s->last_progress >= 0 &&
	    now - s->last_progress < JSON_PROGRESS_INTERVAL_S)
		return 0;
	s->last_progress = now;
	emit(s, app_event_progress(json_step_name(s, step), p, elapsed(s)));
	return 0;
}

/* {"event":"log",...}; debug lines only with -v. */
static int json_log(pyrt_log_level level, const char *line, void *state)
{
	json_state *s = state;
	if (level == PYRT_LOG_DEBUG && !s->verbose)
		return 0;
	emit(s, app_event_log(level, line, elapsed(s)));
	return 0;
}

/* The final {"event":"result",...}; a script reads only this line.  A
 * plugin install's row, as `pyrt plugins --json` has it, comes first. */
static void json_result(const app_outcome *o, void *state)
{
	json_state *s = state;
	if (o->plugin)
		emit(s, json_pack("{s:s, s:o}", "event", "plugin", "plugin",
				  app_plugin_json(o->plugin,
						  o->plugin_runtime_ready)));
	emit(s, app_event_result(o, elapsed(s)));
	/* People reading a terminal while a script runs still see why. */
	if (o->code != 0) {
		if (o->before_start)
			app_errorf("%s", o->error ? o->error
						  : pyrt_strerror(o->code));
		else if (o->code == PYRT_E_CANCELLED)
			app_errorf("%s cancelled", o->command);
		else
			app_errorf("%s failed: %s", o->command,
				   o->error ? o->error : pyrt_strerror(o->code));
		if (o->unchanged)
			app_errorf("%s", o->unchanged);
		if (o->fix)
			app_text_printf(stderr, "fix: %s\n", o->fix);
	}
}

static void json_destroy(void *state)
{
	free(state);
}

static const app_front_ops json_ops = {
	.on_step = json_step,
	.on_progress = json_progress,
	.on_log = json_log,
	.on_result = json_result,
	.destroy = json_destroy,
};

void cli_json_usage_result(const char *command, const char *msg)
{
	app_outcome o = { 0 };
	o.command = command;
	o.code = PYRT_E_USAGE;
	o.error = msg;
	o.before_start = 1;
	json_state s = { .out = stdout, .start = pyrt_now() };
	json_t *obj = app_event_result(&o, elapsed(&s));
	/* status --json answers with its own shape, state first: a script
	 * (the Ansible fact) reads "state" from every answer; a usage error
	 * has none to give, so null, and the message says why. */
	if (obj && strcmp(command, "status") == 0) {
		json_object_set_new(obj, "state", json_null());
		json_object_set_new(obj, "message", app_text_json(msg));
	}
	emit(&s, obj);
}

app_front *cli_front_json_new(const app_request *opts)
{
	json_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->out = stdout;
	s->verbose = opts->verbose;
	if (cli_command_of(opts) == CLI_CMD_PLUGINS)
		s->plugin_install = 1;
	s->start = pyrt_now();
	s->last_progress = -1.0;
	return app_front_wrap(&json_ops, s);
}
