/*
 * The event objects, built with jansson (no hand-written escaping).
 */
#include "app/event_json.h"

#include "app/exitcodes.h"
#include "app/text.h"
#include "core/util/error.h"

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

/* To the millisecond. */
static json_t *elapsed(double t)
{
	long long ms = (long long)(t * 1000.0 + 0.5);
	return json_real((double)ms / 1000.0);
}

/* A missing or empty value is null: "unknown". */
static json_t *str_or_null(const char *v)
{
	return v && *v ? app_text_json(v) : json_null();
}

const char *app_step_state_name(pyrt_step_state st)
{
	return (unsigned)st <= PYRT_STEP_SKIP ? step_state_names[st] : "unknown";
}

const char *app_event_step_name(pyrt_step step, int plugin)
{
	return step == PYRT_STEP_BASELINE && plugin ? "plugins"
						     : pyrt_step_name(step);
}

json_t *app_event_step(const char *step, pyrt_step_state st, const char *detail,
		       double t)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o}", "event", "step",
			 "step", step,
			 "state", app_step_state_name(st),
			 "detail", str_or_null(detail), "t", elapsed(t));
}

json_t *app_event_progress(const char *step, const pyrt_progress *p, double t)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:o}", "event", "progress",
			 "step", step,
			 "done", (json_int_t)p->done,
			 "total", (json_int_t)p->total,
			 "rate", (json_int_t)(p->rate > 0 ? p->rate : 0),
			 "t", elapsed(t));
}

json_t *app_event_log(pyrt_log_level level, const char *line, double t)
{
	const char *ln = (unsigned)level <= PYRT_LOG_WARN ? level_names[level]
							  : "info";
	return json_pack("{s:s, s:s, s:o, s:o}", "event", "log", "level", ln,
			 "message", str_or_null(line), "t", elapsed(t));
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
static json_t *with_extras(json_t *obj, const app_outcome *o)
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
	if (o->fix)
		json_object_set_new(obj, "fix", app_text_json(o->fix));
	if (o->ready_plugins)
		json_object_set_new(obj, "ready_plugins",
				    str_array(o->ready_plugins,
					      o->ready_plugin_count));
	return obj;
}

json_t *app_event_result(const app_outcome *o, double t)
{
	return with_extras(json_pack("{s:s, s:s, s:b, s:i, s:o, s:o, s:s, s:o, s:o, s:b, s:o}",
			  "event", "result", "command", o->command,
			  "ok", o->code == 0,
			  "exit_code", app_exit_code(o->code),
			  "error", o->code ? str_or_null(o->error ? o->error
					    : pyrt_strerror(o->code))
					   : json_null(),
			  "summary", o->code ? json_null()
					     : str_or_null(o->summary),
			  "code", app_code_name(o->code),
			  "install_dir", str_or_null(o->install_dir),
			  "sha256", str_or_null(o->sha256),
			  "already_current", o->already_current,
			  "t", elapsed(t)), o);
}
