/* Null-safe emitters for the events callback struct. */
#include "core/util/events.h"

#include <stdio.h>

#include "core/util/error.h"
#include "core/util/fmt.h"

const char *pyrt_step_name(pyrt_step step)
{
	static const char *const names[PYRT_STEP__COUNT] = {
		"lock", "download", "verify", "extract",
		"check", "activate", "baseline",
	};
	if ((unsigned)step >= PYRT_STEP__COUNT)
		return "unknown";
	return names[step];
}

int pyrt_events_cancelled(const pyrt_events *ev)
{
	return ev && ev->cancel && atomic_load(ev->cancel) != 0;
}

int pyrt_events_step(const pyrt_events *ev, pyrt_step step,
		     pyrt_step_state state, const char *detail)
{
	if (!ev)
		return 0;
	if (ev->on_step && ev->on_step(step, state, detail, ev->payload) != 0)
		return PYRT_E_CANCELLED;
	return pyrt_events_cancelled(ev) ? PYRT_E_CANCELLED : 0;
}

int pyrt_events_progress(const pyrt_events *ev, pyrt_step step,
			 const pyrt_progress *progress)
{
	if (!ev)
		return 0;
	if (ev->on_progress && ev->on_progress(step, progress, ev->payload) != 0)
		return PYRT_E_CANCELLED;
	return pyrt_events_cancelled(ev) ? PYRT_E_CANCELLED : 0;
}

int pyrt_events_log(const pyrt_events *ev, pyrt_log_level level,
		    const char *fmt, ...)
{
	if (!ev)
		return 0;
	if (ev->on_log) {
		char line[1024];
		va_list ap;
		va_start(ap, fmt);
		pyrt_fmt_vtext(line, sizeof line, fmt, ap);
		va_end(ap);
		if (ev->on_log(level, line, ev->payload) != 0)
			return PYRT_E_CANCELLED;
	}
	return pyrt_events_cancelled(ev) ? PYRT_E_CANCELLED : 0;
}

static int fold_step(pyrt_step step, pyrt_step_state state, const char *detail,
		     void *payload)
{
	(void)step, (void)state, (void)detail, (void)payload;
	return 0;
}

/* Passed on as they are: a pip line may be longer than a formatted one. */
static int fold_progress(pyrt_step step, const pyrt_progress *progress,
			 void *payload)
{
	const pyrt_events *ev = payload;
	return ev && ev->on_progress
		       ? ev->on_progress(step, progress, ev->payload) : 0;
}

static int fold_log(pyrt_log_level level, const char *line, void *payload)
{
	const pyrt_events *ev = payload;
	return ev && ev->on_log ? ev->on_log(level, line, ev->payload) : 0;
}

pyrt_events pyrt_events_fold_steps(const pyrt_events *outer)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = fold_step;
	ev.on_progress = fold_progress;
	ev.on_log = fold_log;
	ev.payload = (void *)outer;
	ev.cancel = outer ? outer->cancel : NULL;
	return ev;
}
