/*
 * The progress screen: the checklist, the download bar and the live
 * output pane of an install, or of the dashboard's baseline and plugin
 * installs with their one step.  It redraws only its regions that
 * changed (steps and timers, the bar, the pane).
 */
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "core/util/clock.h"
#include "tui/loop.h"
#include "tui/format.h"

#define LABEL_COL 4
#define LABEL_W 19
#define PANE_MAX 64

static const char *const step_labels[PYRT_STEP__COUNT] = {
	[PYRT_STEP_LOCK] = "Box lock",
	[PYRT_STEP_DOWNLOAD] = "Download",
	[PYRT_STEP_VERIFY] = "Verify",
	[PYRT_STEP_EXTRACT] = "Extract",
	[PYRT_STEP_CHECK] = "Check interpreter",
	[PYRT_STEP_ACTIVATE] = "Activate",
	[PYRT_STEP_BASELINE] = "Baseline",
};

static const pyrt_step install_steps[] = {
	PYRT_STEP_DOWNLOAD, PYRT_STEP_VERIFY, PYRT_STEP_EXTRACT,
	PYRT_STEP_CHECK, PYRT_STEP_ACTIVATE, PYRT_STEP_BASELINE,
};

const char *tui_step_label(const tui_app *a, pyrt_step s)
{
	if (s == PYRT_STEP_BASELINE && a->run_kind == TUI_JOB_PLUGIN)
		return "pip install";
	return step_labels[s];
}

/* The steps the running kind shows, in order. */
static size_t shown_steps(const tui_app *a, const pyrt_step **out)
{
	static const pyrt_step one[] = { PYRT_STEP_BASELINE };
	if (a->run_kind == TUI_JOB_INSTALL) {
		*out = install_steps;
		return sizeof install_steps / sizeof install_steps[0];
	}
	*out = one;
	return 1;
}

/* Where the progress screen's regions are at this size. */
typedef struct progress_layout {
	int status_y;
	int steps_y;
	int bar_y;     /* -1: no bar */
	int pane_y, pane_h;
} progress_layout;

/* Rows for this terminal size: the pane takes what the checklist and
 * the bar leave. */
static progress_layout layout(const tui_app *a)
{
	const pyrt_step *steps;
	size_t n = shown_steps(a, &steps);
	progress_layout l;
	/* Compact: no blank rows between the regions, so a 16-row terminal
	 * still has the checklist, the bar and two lines of output. */
	int gap = tui_app_compact() ? 0 : 1;
	l.status_y = 1 + gap;
	l.steps_y = l.status_y + 1;
	l.bar_y = a->run_kind == TUI_JOB_INSTALL ? l.steps_y + (int)n + gap : -1;
	l.pane_y = (l.bar_y >= 0 ? l.bar_y + 2 + gap : l.steps_y + (int)n + gap);
	l.pane_h = LINES - 2 - l.pane_y;
	return l;
}

/* Every step shown has ended (the job still runs its last checks). */
static int steps_settled(const tui_app *a)
{
	const pyrt_step *steps;
	size_t n = shown_steps(a, &steps);
	for (size_t i = 0; i < n; i++) {
		tui_mark m = a->view.steps[steps[i]].mark;
		if (m == TUI_MARK_PENDING || m == TUI_MARK_RUNNING)
			return 0;
	}
	return 1;
}

/* The line over the checklist: cancelling, waiting for the lock,
 * checking the plugins, or empty. */
static void draw_status(tui_app *a, const progress_layout *l)
{
	const tui_view *v = &a->view;
	char line[256];
	tui_role role = TUI_ROLE_DIM;
	line[0] = '\0';
	if (v->cancelling) {
		snprintf(line, sizeof line, "Cancelling; cleaning up what this run created%s",
			 a->paint.g->ellipsis);
		role = TUI_ROLE_WARN;
	} else if (v->steps[PYRT_STEP_LOCK].mark == TUI_MARK_RUNNING &&
		   pyrt_now() - v->steps[PYRT_STEP_LOCK].started > 0.5) {
		snprintf(line, sizeof line,
			 "Waiting for the box lock (another pyrt is installing)%s",
			 a->paint.g->ellipsis);
		role = TUI_ROLE_WARN;
	} else if (a->job_running && steps_settled(a)) {
		snprintf(line, sizeof line, "%s Checking which plugins are ready%s",
			 tui_app_spinner(a), a->paint.g->ellipsis);
		role = TUI_ROLE_ACCENT;
	} else if (v->steps[PYRT_STEP_LOCK].mark == TUI_MARK_FAILED) {
		/* one screen row: what does not fit is cut by the row anyway */
		snprintf(line, sizeof line, "Could not take the box lock: %.200s",
			 v->steps[PYRT_STEP_LOCK].detail);
		role = TUI_ROLE_ERROR;
	}
	tui_draw_fill(&a->paint, l->status_y, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_text(&a->paint, l->status_y, 2, COLS - 4, role, line);
}

static const char *mark_glyph(const tui_app *a, tui_mark m, tui_role *role)
{
	const tui_glyphs *g = a->paint.g;
	switch (m) {
	case TUI_MARK_RUNNING: *role = TUI_ROLE_ACCENT; return tui_app_spinner(a);
	case TUI_MARK_DONE: *role = TUI_ROLE_OK; return g->ok;
	case TUI_MARK_FAILED: *role = TUI_ROLE_ERROR; return g->fail;
	case TUI_MARK_SKIPPED: *role = TUI_ROLE_DIM; return g->skip;
	case TUI_MARK_PENDING: break;
	}
	*role = TUI_ROLE_DIM;
	return g->pending;
}

/* One checklist row: mark, label, detail, duration. */
static void draw_step(tui_app *a, int y, pyrt_step s)
{
	const tui_step_view *sv = &a->view.steps[s];
	tui_role role;
	const char *glyph = mark_glyph(a, sv->mark, &role);
	char dur[32] = "", detail[300];
	tui_draw_fill(&a->paint, y, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_text(&a->paint, y, 2, 1, role, glyph);
	tui_draw_text(&a->paint, y, LABEL_COL, LABEL_W,
		      sv->mark == TUI_MARK_PENDING ? TUI_ROLE_DIM : TUI_ROLE_TEXT,
		      tui_step_label(a, s));
	if (sv->mark == TUI_MARK_RUNNING)
		tui_format_duration(pyrt_now() - sv->started, dur, sizeof dur);
	else if (sv->mark == TUI_MARK_DONE || sv->mark == TUI_MARK_FAILED)
		tui_format_duration(sv->ended - sv->started, dur, sizeof dur);
	if (sv->mark == TUI_MARK_SKIPPED)
		snprintf(detail, sizeof detail, "skipped (%s)", sv->detail);
	else
		snprintf(detail, sizeof detail, "%s", sv->detail);
	int dx = LABEL_COL + LABEL_W + 1;
	tui_draw_text(&a->paint, y, dx, COLS - dx - 10,
		      sv->mark == TUI_MARK_FAILED ? TUI_ROLE_ERROR : TUI_ROLE_DIM,
		      detail);
	int dw = (int)strlen(dur);
	tui_draw_text(&a->paint, y, COLS - 2 - dw, dw, TUI_ROLE_DIM, dur);
}

static void draw_steps(tui_app *a, const progress_layout *l)
{
	const pyrt_step *steps;
	size_t n = shown_steps(a, &steps);
	for (size_t i = 0; i < n; i++)
		draw_step(a, l->steps_y + (int)i, steps[i]);
}

/* Once extraction has begun, the bar is its own: the archive's bytes read
 * of its size, then what it took.  The download's 100 % stays on its row
 * in the checklist. */
static int draw_extract_bar(tui_app *a, const progress_layout *l)
{
	const tui_view *v = &a->view;
	const tui_step_view *x = &v->steps[PYRT_STEP_EXTRACT];
	if (x->mark != TUI_MARK_RUNNING && x->mark != TUI_MARK_DONE &&
	    x->mark != TUI_MARK_FAILED)
		return 0;
	const pyrt_progress *p = &v->xprogress;
	char done[32], total[32], line[256];
	int y = l->bar_y, bw = COLS - 12;
	tui_draw_fill(&a->paint, y, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_fill(&a->paint, y + 1, 0, COLS, TUI_ROLE_TEXT);
	uint64_t shown = x->mark == TUI_MARK_DONE && p->total ? p->total
							       : p->done;
	tui_draw_bar(&a->paint, y, 4, bw, shown, p->total);
	snprintf(line, sizeof line, "%3d%%",
		 tui_format_percent(shown, p->total));
	tui_draw_text(&a->paint, y, 4 + bw + 2, 5, TUI_ROLE_TEXT, line);
	app_human_bytes(shown, done, sizeof done);
	app_human_bytes(p->total, total, sizeof total);
	if (x->mark == TUI_MARK_DONE)
		snprintf(line, sizeof line, "extracted the %s archive in %.1fs",
			 total, x->ended - x->started);
	else if (!v->have_xprogress)
		snprintf(line, sizeof line, "extracting");
	else
		snprintf(line, sizeof line, "extracting: %s of %s of the "
			 "archive read", done, total);
	tui_draw_text(&a->paint, y + 1, 4, COLS - 8,
		      x->mark == TUI_MARK_FAILED ? TUI_ROLE_ERROR : TUI_ROLE_TEXT,
		      line);
	return 1;
}

/* Once the baseline has begun, the bar is the run's: its steps done of
 * those shown, and what the baseline is doing (pip's lines are in the
 * pane), not the extraction's last words. */
static int draw_baseline_bar(tui_app *a, const progress_layout *l)
{
	const tui_step_view *b = &a->view.steps[PYRT_STEP_BASELINE];
	if (b->mark != TUI_MARK_RUNNING && b->mark != TUI_MARK_DONE &&
	    b->mark != TUI_MARK_FAILED)
		return 0;
	const pyrt_step *steps;
	size_t n = shown_steps(a, &steps), done = 0;
	for (size_t i = 0; i < n; i++)
		done += a->view.steps[steps[i]].mark == TUI_MARK_DONE ||
			a->view.steps[steps[i]].mark == TUI_MARK_SKIPPED;
	char line[256];
	int y = l->bar_y, bw = COLS - 12;
	tui_draw_fill(&a->paint, y, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_fill(&a->paint, y + 1, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_bar(&a->paint, y, 4, bw, done, n);
	snprintf(line, sizeof line, "%3d%%", tui_format_percent(done, n));
	tui_draw_text(&a->paint, y, 4 + bw + 2, 5, TUI_ROLE_TEXT, line);
	if (b->mark == TUI_MARK_DONE)
		snprintf(line, sizeof line, "baseline done in %.1fs",
			 b->ended - b->started);
	else if (b->mark == TUI_MARK_FAILED)
		snprintf(line, sizeof line, "the baseline failed (pip's output "
			 "below)");
	else
		snprintf(line, sizeof line, "installing the baseline: step %zu "
			 "of %zu (pip's output below)", done + 1, n);
	tui_draw_text(&a->paint, y + 1, 4, COLS - 8,
		      b->mark == TUI_MARK_FAILED ? TUI_ROLE_ERROR : TUI_ROLE_TEXT,
		      line);
	return 1;
}

/* The download's bar and numbers: bytes, total, rate, ETA. */
static void draw_bar(tui_app *a, const progress_layout *l)
{
	if (draw_baseline_bar(a, l) || draw_extract_bar(a, l))
		return;
	const tui_view *v = &a->view;
	const tui_step_view *dl = &v->steps[PYRT_STEP_DOWNLOAD];
	const pyrt_progress *p = &v->progress;
	char done[32], total[32], rate[32], eta[32], line[256];
	int y = l->bar_y, bw = COLS - 12;
	tui_draw_fill(&a->paint, y, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_fill(&a->paint, y + 1, 0, COLS, TUI_ROLE_TEXT);
	uint64_t shown_total = p->total;
	uint64_t shown_done = dl->mark == TUI_MARK_DONE && p->total ? p->total
								    : p->done;
	tui_draw_bar(&a->paint, y, 4, bw, shown_done, shown_total);
	snprintf(line, sizeof line, "%3d%%",
		 tui_format_percent(shown_done, shown_total));
	tui_draw_text(&a->paint, y, 4 + bw + 2, 5, TUI_ROLE_TEXT, line);
	app_human_bytes(shown_done, done, sizeof done);
	app_human_bytes(p->total, total, sizeof total);
	tui_format_rate(p->rate, rate, sizeof rate);
	const char *dot = a->paint.g->dot;
	if (dl->mark == TUI_MARK_SKIPPED)
		snprintf(line, sizeof line, "no download: %.200s", dl->detail);
	else if (dl->mark == TUI_MARK_DONE)
		snprintf(line, sizeof line, "downloaded %s in %.1fs", done,
			 dl->ended - dl->started);
	else if (!v->have_progress)
		snprintf(line, sizeof line, "%s",
			 dl->mark == TUI_MARK_RUNNING ? "connecting"
						       : "download not started");
	else {
		tui_format_eta(tui_format_eta_seconds(p->done, p->total, p->rate),
			       eta, sizeof eta);
		if (p->total)
			snprintf(line, sizeof line, "%s of %s %s %s %s ETA %s",
				 done, total, dot, rate, dot, eta);
		else
			snprintf(line, sizeof line, "%s (size unknown) %s %s",
				 done, dot, rate);
	}
	tui_draw_text(&a->paint, y + 1, 4, COLS - 8,
		      dl->mark == TUI_MARK_FAILED ? TUI_ROLE_ERROR : TUI_ROLE_TEXT,
		      line);
}

/* The live pane: pip's output while the baseline runs, else the job's
 * log lines. */
static void draw_pane(tui_app *a, const progress_layout *l)
{
	tui_line lines[PANE_MAX];
	int inner = l->pane_h - 2;
	if (l->pane_h < 3)
		return;
	if (inner > PANE_MAX)
		inner = PANE_MAX;
	tui_mark bm = a->view.steps[PYRT_STEP_BASELINE].mark;
	int pip = bm != TUI_MARK_PENDING && bm != TUI_MARK_SKIPPED;
	size_t n = tui_model_lines(a->model, lines, (size_t)inner, 1,
				   pip ? PYRT_STEP_BASELINE : PYRT_STEP__COUNT);
	for (int i = 0; i < l->pane_h; i++)
		tui_draw_fill(&a->paint, l->pane_y + i, 1, COLS - 2, TUI_ROLE_TEXT);
	tui_draw_box(&a->paint, l->pane_y, 1, l->pane_h, COLS - 2,
		     pip ? "pip output" : "Log");
	if (!n && pip && bm == TUI_MARK_RUNNING)
		tui_draw_text(&a->paint, l->pane_y + 1, 3, COLS - 6, TUI_ROLE_DIM,
			      "waiting for pip's first line");
	for (size_t i = 0; i < n; i++)
		tui_draw_text(&a->paint, l->pane_y + 1 + (int)i, 3, COLS - 6,
			      lines[i].level == PYRT_LOG_WARN ? TUI_ROLE_WARN
							      : TUI_ROLE_TEXT,
			      lines[i].text);
}

/* Drawn over the regions each frame while the question is open. */
static void draw_cancel_question(tui_app *a)
{
	int y, x;
	char q[128];
	snprintf(q, sizeof q, "Cancel the %s? [y/N]", a->run_noun);
	tui_draw_dialog(&a->paint, 6, 60, "Cancel", &y, &x);
	tui_draw_text(&a->paint, y + 2, x + 3, 54, TUI_ROLE_WARN, q);
	tui_draw_text(&a->paint, y + 3, x + 3, 54, TUI_ROLE_DIM,
		      "pyrt stops and removes only what this run created.");
}

/* Regions redraw as their part of the model changes; the checklist
 * every frame for its spinner and timers. */
void tui_progress_draw(tui_app *a, unsigned dirty)
{
	static const char *const keys[] = { "Esc/Ctrl-C", "cancel", NULL };
	progress_layout l = layout(a);
	int all = dirty == ~0u;
	if (all) {
		tui_app_titlebar(a, a->run_title);
		tui_draw_footer(&a->paint, keys);
	}
	/* Timers and the spinner move every frame. */
	draw_status(a, &l);
	draw_steps(a, &l);
	if (l.bar_y >= 0 && (all || (dirty & (TUI_DIRTY_PROGRESS | TUI_DIRTY_STEPS))))
		draw_bar(a, &l);
	if (all || (dirty & (TUI_DIRTY_LOG | TUI_DIRTY_STEPS)))
		draw_pane(a, &l);
	if (a->asking)
		draw_cancel_question(a);
}

/* Esc, Ctrl-C or q ask first; y (or a second Ctrl-C) cancels through
 * the core, which removes only what this run created. */
void tui_progress_key(tui_app *a, int ch)
{
	if (a->asking) {
		if (ch == 'y' || ch == 'Y' || ch == TUI_KEY_CTRL_C)
			tui_model_cancel(a->model);
		a->asking = 0;
		a->full = 1;
		return;
	}
	if (ch == TUI_KEY_ESC || ch == TUI_KEY_CTRL_C || ch == 'q' ||
	    ch == 'Q') {
		if (a->view.cancelling)
			return;
		a->asking = 1;
		a->full = 1;
	}
}
