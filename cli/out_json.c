/*
 * The NDJSON front end: one JSON object per line on stdout for every event,
 * flushed at once so a script reading the pipe sees progress live.  Objects
 * are built with jansson (no hand-written escaping).  Progress is thinned to
 * at most two events a second; everything else is passed through.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "error.h"
#include "exitcodes.h"
#include "fronts.h"
#include "text.h"

#define JSON_PROGRESS_INTERVAL_S 0.5

typedef struct json_state {
	FILE *out;
	int verbose;
	/* "plugins install" runs pip through the baseline's step: its events
	 * say "plugins", so a script never reads a plugin's pip run as the
	 * baseline's. */
	const char *pip_step;
	double start;
	double last_progress; /* < 0: none emitted yet */
} json_state;

static const char *const step_state_names[] = {
	[PYRT_STEP_BEGIN] = "begin",
	[PYRT_STEP_END] = "end",
	[PYRT_STEP_FAIL] = "fail",
	[PYRT_STEP_SKIP] = "skip",
};

static const char *const level_names[] = {
	[PYRT_LOG_DEBUG] = "debug",
	[PYRT_LOG_INFO] = "info",
	[PYRT_LOG_WARN] = "warn",
};

/* Seconds since the front end started, to the millisecond. */
static json_t *elapsed(const json_state *s)
{
	long long ms = (long long)((cli_now() - s->start) * 1000.0 + 0.5);
	return json_real((double)ms / 1000.0);
}

/* A missing or empty value is null: "unknown". */
static json_t *str_or_null(const char *v)
{
	return v && *v ? app_text_json(v) : json_null();
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
	return step == PYRT_STEP_BASELINE && s->pip_step ? s->pip_step
							 : pyrt_step_name(step);
}

/* {"event":"step",...} for every step change, unthinned. */
static int json_step(pyrt_step step, pyrt_step_state st, const char *detail,
		     void *state)
{
	json_state *s = state;
	const char *sn = (unsigned)st <= PYRT_STEP_SKIP ? step_state_names[st]
							 : "unknown";
	emit(s, json_pack("{s:s, s:s, s:s, s:o, s:o}", "event", "step",
			  "step", json_step_name(s, step), "state", sn,
			  "detail", str_or_null(detail), "t", elapsed(s)));
	return 0;
}

/* {"event":"progress",...}, at most one per JSON_PROGRESS_INTERVAL_S. */
static int json_progress(pyrt_step step, const pyrt_progress *p, void *state)
{
	json_state *s = state;
	double now = cli_now();
	if (s->last_progress >= 0 &&
	    now - s->last_progress < JSON_PROGRESS_INTERVAL_S)
		return 0;
	s->last_progress = now;
	emit(s, json_pack("{s:s, s:s, s:I, s:I, s:I, s:o}", "event", "progress",
			  "step", json_step_name(s, step),
			  "done", (json_int_t)p->done,
			  "total", (json_int_t)p->total,
			  "rate", (json_int_t)(p->rate > 0 ? p->rate : 0),
			  "t", elapsed(s)));
	return 0;
}

/* {"event":"log",...}; debug lines only with -v. */
static int json_log(pyrt_log_level level, const char *line, void *state)
{
	json_state *s = state;
	if (level == PYRT_LOG_DEBUG && !s->verbose)
		return 0;
	const char *ln = (unsigned)level <= PYRT_LOG_WARN ? level_names[level]
							  : "info";
	emit(s, json_pack("{s:s, s:s, s:o, s:o}", "event", "log", "level", ln,
			  "message", str_or_null(line), "t", elapsed(s)));
	return 0;
}

/* An array of strings (NULL entries skipped). */
static json_t *str_array(const char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (v[i])
			json_array_append_new(a, app_text_json(v[i]));
	return a;
}

/* "baseline" and "ready_plugins", only for the commands that report them. */
static json_t *with_extras(json_t *obj, const cli_outcome *o)
{
	if (!obj)
		return NULL;
	if (o->baseline_state)
		json_object_set_new(obj, "baseline", json_pack(
			"{s:o, s:o, s:o}", "state",
			app_text_json(o->baseline_state),
			"missing", str_array(o->baseline_missing,
					     o->baseline_missing_count),
			"log", str_or_null(o->pip_log)));
	if (o->ready_plugins)
		json_object_set_new(obj, "ready_plugins",
				    str_array(o->ready_plugins,
					      o->ready_plugin_count));
	return obj;
}

/* The final {"event":"result",...}; a script reads only this line. */
static void json_result(const cli_outcome *o, void *state)
{
	json_state *s = state;
	emit(s, with_extras(json_pack("{s:s, s:s, s:b, s:i, s:o, s:s, s:o, s:o, s:b, s:o}",
			  "event", "result", "command", o->command,
			  "ok", o->code == 0,
			  "exit_code", cli_exit_code(o->code),
			  "error", o->code ? str_or_null(o->error ? o->error
					    : pyrt_strerror(o->code))
					   : json_null(),
			  "code", cli_code_name(o->code),
			  "install_dir", str_or_null(o->install_dir),
			  "sha256", str_or_null(o->sha256),
			  "already_current", o->already_current,
			  "t", elapsed(s)), o));
	/* People reading a terminal while a script runs still see why. */
	if (o->code != 0) {
		if (o->before_start)
			cli_errorf("%s", o->error ? o->error
						  : pyrt_strerror(o->code));
		else if (o->code == PYRT_E_CANCELLED)
			cli_errorf("%s cancelled", o->command);
		else
			cli_errorf("%s failed: %s", o->command,
				   o->error ? o->error : pyrt_strerror(o->code));
		if (o->unchanged)
			cli_errorf("%s", o->unchanged);
	}
}

static void json_destroy(void *state)
{
	free(state);
}

static const cli_front_ops json_ops = {
	.on_step = json_step,
	.on_progress = json_progress,
	.on_log = json_log,
	.on_result = json_result,
	.destroy = json_destroy,
};

cli_front *cli_front_json_new(const cli_opts *opts)
{
	json_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->out = stdout;
	s->verbose = opts->verbose;
	if (opts->command == CLI_CMD_PLUGINS)
		s->pip_step = "plugins";
	s->start = cli_now();
	s->last_progress = -1.0;
	return cli_front_wrap(&json_ops, s);
}
