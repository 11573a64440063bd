/*
 * The view model between the engine and the screens.  The worker thread's
 * pyrt_events callbacks only record here (under a mutex) and poke a
 * self-pipe; the UI thread polls that pipe with the keyboard, takes a
 * snapshot and draws from it on its own throttled tick.  Nothing in here
 * draws, and nothing in the engine waits for the screen.
 */
#ifndef PYRT_TUI_MODEL_H
#define PYRT_TUI_MODEL_H

#include <stdatomic.h>
#include <stddef.h>

#include "app/front.h"
#include "core/util/events.h"

typedef enum tui_mark {
	TUI_MARK_PENDING = 0,
	TUI_MARK_RUNNING,
	TUI_MARK_DONE,
	TUI_MARK_FAILED,
	TUI_MARK_SKIPPED
} tui_mark;

typedef struct tui_step_view {
	tui_mark mark;
	double started;    /* monotonic seconds */
	double ended;
	char detail[256];  /* the step's phrase, or its failure */
} tui_step_view;

#define TUI_LINE_MAX 256

/* One log line and the step that was running when it came. */
typedef struct tui_line {
	char text[TUI_LINE_MAX];
	unsigned char level;  /* pyrt_log_level */
	unsigned char step;   /* pyrt_step, PYRT_STEP__COUNT for none */
} tui_line;

/* What changed since the last snapshot. */
enum {
	TUI_DIRTY_STEPS = 1u << 0,
	TUI_DIRTY_PROGRESS = 1u << 1,
	TUI_DIRTY_LOG = 1u << 2,
	TUI_DIRTY_DONE = 1u << 3,
};

/* A frame's copy of the shared state. */
typedef struct tui_view {
	tui_step_view steps[PYRT_STEP__COUNT];
	pyrt_progress progress;   /* of the download */
	int have_progress;
	pyrt_progress xprogress;  /* of the extraction (archive bytes read) */
	int have_xprogress;
	int done;                 /* the job's thread has finished */
	int cancelling;
	unsigned long lines;      /* log lines since the job began */
} tui_view;

typedef struct tui_model tui_model;

/* verbose: keep debug lines too.  NULL when out of memory or no pipe. */
tui_model *tui_model_new(int verbose);
void tui_model_free(tui_model *m);

/* The read end of the self-pipe, for poll(2). */
int tui_model_fd(const tui_model *m);

/* Empty the self-pipe (call before tui_model_take). */
void tui_model_drain(tui_model *m);

/* A new job begins: steps pending, no progress, cancel cleared.  The log
 * is kept (the viewer shows the whole session); the job's pane starts
 * empty. */
void tui_model_begin(tui_model *m);

/* The worker is about to return. */
void tui_model_finish(tui_model *m);

/* Ask the running job to stop (the core checks the flag). */
void tui_model_cancel(tui_model *m);

/* The events struct the worker passes to core. */
pyrt_events tui_model_events(tui_model *m);

/* The same callbacks as a app_front (so app_front_with_log can tee an
 * install into its log); free with app_front_free, the model stays. */
app_front *tui_model_front(tui_model *m);

/* Copy the shared state into v; returns the TUI_DIRTY_* bits since the
 * last call and clears them. */
unsigned tui_model_take(tui_model *m, tui_view *v);

/*
 * The newest lines into out (oldest first), at most max.  job_only: only
 * lines since tui_model_begin; step: only lines that came while that step
 * ran (PYRT_STEP__COUNT: any).  Returns how many were copied.
 */
size_t tui_model_lines(tui_model *m, tui_line *out, size_t max, int job_only,
		       int step);

/* Every line of the session, oldest first, into a malloc'd array. */
size_t tui_model_all_lines(tui_model *m, tui_line **out);

#endif
