/* ctest: test_events */
/* core/util/events: a NULL sink is silent, a callback's non-zero answer
 * and the cancel flag both cancel, log lines are formatted (and a long one
 * marked cut), and the folded events drop steps but pass the rest on. */
#include <criterion/criterion.h>

#include <stdatomic.h>
#include <string.h>

#include "core/util/error.h"
#include "core/util/events.h"

typedef struct rec {
	int steps, progress, logs, refuse;
	char line[2048];
} rec;

static int on_step(pyrt_step s, pyrt_step_state st, const char *d, void *p)
{
	(void)s, (void)st, (void)d;
	rec *r = p;
	r->steps++;
	return r->refuse;
}

static int on_progress(pyrt_step s, const pyrt_progress *pr, void *p)
{
	(void)s, (void)pr;
	rec *r = p;
	r->progress++;
	return r->refuse;
}

static int on_log(pyrt_log_level l, const char *line, void *p)
{
	(void)l;
	rec *r = p;
	r->logs++;
	strncpy(r->line, line, sizeof r->line - 1);
	return r->refuse;
}

static pyrt_events sink(rec *r, const atomic_int *cancel)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = on_step;
	ev.on_progress = on_progress;
	ev.on_log = on_log;
	ev.payload = r;
	ev.cancel = cancel;
	return ev;
}

Test(events, no_sink_is_silent)
{
	pyrt_progress pr = { 1, 2, 0, 0 };
	cr_assert_eq(pyrt_events_step(NULL, PYRT_STEP_LOCK, PYRT_STEP_END,
				      NULL), 0);
	cr_assert_eq(pyrt_events_progress(NULL, PYRT_STEP_LOCK, &pr), 0);
	cr_assert_eq(pyrt_events_log(NULL, PYRT_LOG_INFO, "x"), 0);
	cr_assert_eq(pyrt_events_cancelled(NULL), 0);
}

Test(events, a_refusing_callback_or_the_flag_cancels)
{
	rec r = { 0 };
	atomic_int cancel = 0;
	pyrt_events ev = sink(&r, &cancel);
	cr_assert_eq(pyrt_events_log(&ev, PYRT_LOG_INFO, "%s %d", "n", 3), 0);
	cr_assert_str_eq(r.line, "n 3");
	r.refuse = 1;
	cr_assert_eq(pyrt_events_log(&ev, PYRT_LOG_INFO, "x"),
		     PYRT_E_CANCELLED);
	cr_assert_eq(pyrt_events_step(&ev, PYRT_STEP_LOCK, PYRT_STEP_END,
				      NULL), PYRT_E_CANCELLED);
	r.refuse = 0;
	atomic_store(&cancel, 1);
	cr_assert_eq(pyrt_events_cancelled(&ev), 1);
	cr_assert_eq(pyrt_events_log(&ev, PYRT_LOG_INFO, "x"),
		     PYRT_E_CANCELLED);
}

Test(events, a_long_log_line_is_marked_cut)
{
	rec r = { 0 };
	pyrt_events ev = sink(&r, NULL);
	char big[1500];
	memset(big, 'b', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	cr_assert_eq(pyrt_events_log(&ev, PYRT_LOG_INFO, "%s", big), 0);
	size_t n = strlen(r.line);
	cr_assert_lt(n, sizeof big - 1);
	cr_assert_str_eq(r.line + n - 3, "...");
}

Test(events, folded_events_drop_steps_only)
{
	rec r = { 0 };
	atomic_int cancel = 0;
	pyrt_events outer = sink(&r, &cancel);
	pyrt_events ev = pyrt_events_fold_steps(&outer);
	pyrt_progress pr = { 1, 2, 0, 0 };
	cr_assert_eq(pyrt_events_step(&ev, PYRT_STEP_LOCK, PYRT_STEP_END,
				      NULL), 0);
	cr_assert_eq(pyrt_events_progress(&ev, PYRT_STEP_LOCK, &pr), 0);
	cr_assert_eq(pyrt_events_log(&ev, PYRT_LOG_INFO, "y"), 0);
	cr_assert_eq(r.steps, 0);
	cr_assert_eq(r.progress, 1);
	cr_assert_eq(r.logs, 1);
	atomic_store(&cancel, 1);
	cr_assert_eq(pyrt_events_cancelled(&ev), 1);
}

Test(events, every_step_has_a_name)
{
	cr_assert_str_eq(pyrt_step_name(PYRT_STEP_LOCK), "lock");
}
