/*
 * The shared view model.  Writers are the engine's callbacks in the worker
 * thread; the reader is the UI thread, once per frame.  Callbacks hold the
 * mutex only to copy a few bytes and never block on the UI: the wake-up is
 * one non-blocking byte on a pipe, written only when the UI has not been
 * woken already, so a fast download cannot fill the pipe or spin the UI.
 */
#include "tui/model.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util/clock.h"
#include "core/util/os.h"

#define RING_LINES 2000

struct tui_model {
	pthread_mutex_t mu;
	int pipe_rd, pipe_wr;
	atomic_int poked;
	atomic_int cancel;
	int verbose;
	/* under mu: */
	tui_step_view steps[PYRT_STEP__COUNT];
	int depth[PYRT_STEP__COUNT];  /* nested begins (pip inside baseline) */
	int active;                   /* the step log lines belong to */
	pyrt_progress progress;
	int have_progress;
	pyrt_progress xprogress;
	int have_xprogress;
	int done;
	unsigned dirty;
	tui_line *ring;
	unsigned long seq;            /* lines ever appended */
	unsigned long job_seq;        /* seq when the job began */
};

/* Wake the UI unless it is already awake; a full pipe is as good as a
 * written byte. */
static void poke(tui_model *m)
{
	if (atomic_exchange(&m->poked, 1))
		return;
	ssize_t w = write(m->pipe_wr, "", 1);
	(void)w;
}

tui_model *tui_model_new(int verbose)
{
	tui_model *m = calloc(1, sizeof *m);
	int fds[2];
	if (!m)
		return NULL;
	m->ring = calloc(RING_LINES, sizeof *m->ring);
	if (!m->ring || pyrt_os_pipe(fds, PYRT_OS_NONBLOCK) != 0) {
		free(m->ring);
		free(m);
		return NULL;
	}
	m->pipe_rd = fds[0];
	m->pipe_wr = fds[1];
	m->verbose = verbose;
	m->active = PYRT_STEP__COUNT;
	pthread_mutex_init(&m->mu, NULL);
	return m;
}

void tui_model_free(tui_model *m)
{
	if (!m)
		return;
	close(m->pipe_rd);
	close(m->pipe_wr);
	pthread_mutex_destroy(&m->mu);
	free(m->ring);
	free(m);
}

int tui_model_fd(const tui_model *m)
{
	return m->pipe_rd;
}

void tui_model_drain(tui_model *m)
{
	char buf[64];
	atomic_store(&m->poked, 0);
	while (read(m->pipe_rd, buf, sizeof buf) > 0)
		;
}

void tui_model_begin(tui_model *m)
{
	pthread_mutex_lock(&m->mu);
	memset(m->steps, 0, sizeof m->steps);
	memset(m->depth, 0, sizeof m->depth);
	memset(&m->progress, 0, sizeof m->progress);
	m->have_progress = 0;
	memset(&m->xprogress, 0, sizeof m->xprogress);
	m->have_xprogress = 0;
	m->active = PYRT_STEP__COUNT;
	m->done = 0;
	m->job_seq = m->seq;
	m->dirty |= TUI_DIRTY_STEPS | TUI_DIRTY_PROGRESS | TUI_DIRTY_LOG;
	atomic_store(&m->cancel, 0);
	pthread_mutex_unlock(&m->mu);
}

void tui_model_finish(tui_model *m)
{
	pthread_mutex_lock(&m->mu);
	m->done = 1;
	m->dirty |= TUI_DIRTY_DONE;
	pthread_mutex_unlock(&m->mu);
	poke(m);
}

void tui_model_cancel(tui_model *m)
{
	atomic_store(&m->cancel, 1);
}

static void set_detail(tui_step_view *s, const char *detail)
{
	if (detail)
		snprintf(s->detail, sizeof s->detail, "%s", detail);
}

/*
 * Steps may nest: the baseline's own begin/end brackets each pip run's.
 * Only the outermost bracket changes the mark, so the checklist shows one
 * baseline that runs until the baseline as a whole ends.
 */
static void record_step(tui_model *m, pyrt_step step, pyrt_step_state st,
			const char *detail)
{
	tui_step_view *s = &m->steps[step];
	int *depth = &m->depth[step];
	switch (st) {
	case PYRT_STEP_BEGIN:
		if ((*depth)++ == 0) {
			s->mark = TUI_MARK_RUNNING;
			s->started = pyrt_now();
			s->ended = 0;
			s->detail[0] = '\0';
			set_detail(s, detail);
		}
		m->active = (int)step;
		break;
	case PYRT_STEP_END:
	case PYRT_STEP_FAIL:
		if (*depth > 0 && --*depth > 0)
			break;
		s->mark = st == PYRT_STEP_END ? TUI_MARK_DONE : TUI_MARK_FAILED;
		if (!s->started)
			s->started = pyrt_now();
		s->ended = pyrt_now();
		set_detail(s, detail);
		if (m->active == (int)step)
			m->active = PYRT_STEP__COUNT;
		break;
	case PYRT_STEP_SKIP:
		s->mark = TUI_MARK_SKIPPED;
		s->started = s->ended = pyrt_now();
		set_detail(s, detail);
		break;
	}
}

/* The engine's callbacks (worker thread): record, poke, never block. */
static int on_step(pyrt_step step, pyrt_step_state st, const char *detail,
		   void *payload)
{
	tui_model *m = payload;
	if ((unsigned)step >= PYRT_STEP__COUNT)
		return 0;
	pthread_mutex_lock(&m->mu);
	record_step(m, step, st, detail);
	m->dirty |= TUI_DIRTY_STEPS;
	pthread_mutex_unlock(&m->mu);
	poke(m);
	return 0;
}

/* The download's and the extraction's bytes, each kept apart: the bar
 * shows the step that runs, never one step's counters under another's
 * name. */
static int on_progress(pyrt_step step, const pyrt_progress *p, void *payload)
{
	tui_model *m = payload;
	if (step != PYRT_STEP_DOWNLOAD && step != PYRT_STEP_EXTRACT)
		return 0;
	pthread_mutex_lock(&m->mu);
	if (step == PYRT_STEP_EXTRACT) {
		m->xprogress = *p;
		m->have_xprogress = 1;
	} else {
		m->progress = *p;
		m->have_progress = 1;
	}
	m->dirty |= TUI_DIRTY_PROGRESS;
	pthread_mutex_unlock(&m->mu);
	poke(m);
	return 0;
}

/* Lines go into a ring tagged with the running step, so the progress
 * pane can show pip's output alone. */
static int on_log(pyrt_log_level level, const char *line, void *payload)
{
	tui_model *m = payload;
	if (level == PYRT_LOG_DEBUG && !m->verbose)
		return 0;
	pthread_mutex_lock(&m->mu);
	tui_line *l = &m->ring[m->seq % RING_LINES];
	snprintf(l->text, sizeof l->text, "%s", line ? line : "");
	l->level = (unsigned char)level;
	l->step = (unsigned char)m->active;
	m->seq++;
	m->dirty |= TUI_DIRTY_LOG;
	pthread_mutex_unlock(&m->mu);
	poke(m);
	return 0;
}

pyrt_events tui_model_events(tui_model *m)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = on_step;
	ev.on_progress = on_progress;
	ev.on_log = on_log;
	ev.payload = m;
	ev.cancel = &m->cancel;
	return ev;
}

/* The model outlives every front made from it. */
static void front_destroy(void *state)
{
	(void)state;
}

static const app_front_ops model_front_ops = {
	.on_step = on_step,
	.on_progress = on_progress,
	.on_log = on_log,
	.on_result = NULL,
	.destroy = front_destroy,
};

app_front *tui_model_front(tui_model *m)
{
	return app_front_wrap(&model_front_ops, m);
}

unsigned tui_model_take(tui_model *m, tui_view *v)
{
	pthread_mutex_lock(&m->mu);
	memcpy(v->steps, m->steps, sizeof v->steps);
	v->progress = m->progress;
	v->have_progress = m->have_progress;
	v->xprogress = m->xprogress;
	v->have_xprogress = m->have_xprogress;
	v->done = m->done;
	v->cancelling = atomic_load(&m->cancel) != 0;
	v->lines = m->seq - m->job_seq;
	unsigned dirty = m->dirty;
	m->dirty = 0;
	pthread_mutex_unlock(&m->mu);
	return dirty;
}

size_t tui_model_lines(tui_model *m, tui_line *out, size_t max, int job_only,
		       int step)
{
	size_t n = 0;
	pthread_mutex_lock(&m->mu);
	unsigned long oldest = m->seq > RING_LINES ? m->seq - RING_LINES : 0;
	if (job_only && m->job_seq > oldest)
		oldest = m->job_seq;
	/* Walk back from the newest, then reverse into place. */
	for (unsigned long i = m->seq; i > oldest && n < max; i--) {
		const tui_line *l = &m->ring[(i - 1) % RING_LINES];
		if (step != PYRT_STEP__COUNT && l->step != step)
			continue;
		out[n++] = *l;
	}
	pthread_mutex_unlock(&m->mu);
	for (size_t i = 0; i < n / 2; i++) {
		tui_line t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

size_t tui_model_all_lines(tui_model *m, tui_line **out)
{
	*out = malloc(RING_LINES * sizeof **out);
	if (!*out)
		return 0;
	return tui_model_lines(m, *out, RING_LINES, 0, PYRT_STEP__COUNT);
}
