/*
 * Glue between a front end's ops and the pyrt_events struct core expects.
 */
#include "front.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

cli_front *cli_front_wrap(const cli_front_ops *ops, void *state)
{
	if (!state)
		return NULL;
	cli_front *f = malloc(sizeof *f);
	if (!f) {
		ops->destroy(state);
		return NULL;
	}
	f->ops = ops;
	f->state = state;
	return f;
}

void cli_front_free(cli_front *front)
{
	if (!front)
		return;
	if (front->ops->destroy)
		front->ops->destroy(front->state);
	free(front);
}

pyrt_events cli_front_events(const cli_front *front, const atomic_int *cancel)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = front->ops->on_step;
	ev.on_progress = front->ops->on_progress;
	ev.on_log = front->ops->on_log;
	ev.payload = front->state;
	ev.cancel = cancel;
	return ev;
}

void cli_front_log(const cli_front *front, pyrt_log_level level,
		   const char *fmt, ...)
{
	if (!front->ops->on_log)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	front->ops->on_log(level, line, front->state);
}

void cli_front_result(const cli_front *front, const cli_outcome *outcome)
{
	if (front->ops->on_result)
		front->ops->on_result(outcome, front->state);
}
