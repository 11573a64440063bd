/*
 * Glue between a front end's ops and the pyrt_events struct core expects.
 */
#include "app/front.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

app_front *app_front_wrap(const app_front_ops *ops, void *state)
{
	if (!state)
		return NULL;
	app_front *f = malloc(sizeof *f);
	if (!f) {
		ops->destroy(state);
		return NULL;
	}
	f->ops = ops;
	f->state = state;
	return f;
}

void app_front_free(app_front *front)
{
	if (!front)
		return;
	if (front->ops->destroy)
		front->ops->destroy(front->state);
	free(front);
}

pyrt_events app_front_events(const app_front *front, const atomic_int *cancel)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = front->ops->on_step;
	ev.on_progress = front->ops->on_progress;
	ev.on_log = front->ops->on_log;
	ev.payload = front->state;
	ev.cancel = cancel;
	return ev;
}

void app_front_log(const app_front *front, pyrt_log_level level,
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

void app_front_result(const app_front *front, const app_outcome *outcome)
{
	if (front->ops->on_result)
		front->ops->on_result(outcome, front->state);
}

int app_front_refuse(const app_front *front, const char *command, int code,
		     const char *msg)
{
	app_outcome o = { .command = command, .code = code, .error = msg,
			  .before_start = 1 };
	app_front_result(front, &o);
	return code;
}

typedef struct tap_state {
	app_front *inner;
	int owned;
	void (*fn)(const app_outcome *o, void *arg);
	void *arg;
} tap_state;

static int tap_step(pyrt_step step, pyrt_step_state st, const char *detail,
		    void *state)
{
	const app_front *in = ((tap_state *)state)->inner;
	return in->ops->on_step ? in->ops->on_step(step, st, detail, in->state)
				: 0;
}

static int tap_progress(pyrt_step step, const pyrt_progress *p, void *state)
{
	const app_front *in = ((tap_state *)state)->inner;
	return in->ops->on_progress ? in->ops->on_progress(step, p, in->state)
				    : 0;
}

static int tap_log(pyrt_log_level level, const char *line, void *state)
{
	const app_front *in = ((tap_state *)state)->inner;
	return in->ops->on_log ? in->ops->on_log(level, line, in->state) : 0;
}

static void tap_result(const app_outcome *o, void *state)
{
	tap_state *s = state;
	if (s->fn)
		s->fn(o, s->arg);
	app_front_result(s->inner, o);
}

static void tap_destroy(void *state)
{
	tap_state *s = state;
	if (s->owned)
		app_front_free(s->inner);
	free(s);
}

static const app_front_ops tap_ops = {
	.on_step = tap_step,
	.on_progress = tap_progress,
	.on_log = tap_log,
	.on_result = tap_result,
	.destroy = tap_destroy,
};

app_front *app_front_tap(app_front *inner,
			 void (*fn)(const app_outcome *o, void *arg),
			 void *arg)
{
	if (!inner)
		return NULL;
	tap_state *s = calloc(1, sizeof *s);
	if (!s) {
		app_front_free(inner);
		return NULL;
	}
	s->inner = inner;
	s->owned = 1;
	s->fn = fn;
	s->arg = arg;
	return app_front_wrap(&tap_ops, s);
}

app_front *app_front_borrow(const app_front *inner)
{
	tap_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->inner = (app_front *)inner; /* only forwarded to, never freed */
	return app_front_wrap(&tap_ops, s);
}
