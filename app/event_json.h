/*
 * The event objects of `pyrt install --json` (NDJSON lines) and of the
 * API's job event streams: step, progress, log, result.  One builder, so a
 * script reading either sees the same fields.  t is seconds since the run
 * began.
 */
#ifndef PYRT_APP_EVENT_JSON_H
#define PYRT_APP_EVENT_JSON_H

#include <jansson.h>

#include "app/front.h"
#include "core/util/events.h"

/** "begin", "end", "fail", "skip". */
const char *app_step_state_name(pyrt_step_state st);

/** The step's name in events: pip's step is "plugins" when a plugin install
 *  runs it (plugin is non-zero), else pyrt_step_name(step). */
const char *app_event_step_name(pyrt_step step, int plugin);

json_t *app_event_step(const char *step, pyrt_step_state st, const char *detail,
		       double t);
json_t *app_event_progress(const char *step, const pyrt_progress *p, double t);
/** "level": "debug", "info" or "warn". */
json_t *app_event_log(pyrt_log_level level, const char *line, double t);
/** The final {"event":"result",...}. */
json_t *app_event_result(const app_outcome *o, double t);

#endif
