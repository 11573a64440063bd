/*
 * The install wizard's screens: consent (what will happen, before anything
 * is fetched), progress (the checklist, the download bar, the live output
 * pane), and the result or error.  The progress screen also runs the
 * dashboard's baseline and plugin installs, with their one step.
 *
 * Progress redraws only its regions that changed (steps and timers, the
 * bar, the pane); the other screens change on keys only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/app.h"
#include "core/clock.h"
#include "app/common.h"
#include "app/exitcodes.h"
#include "tui/format.h"
#include "app/install.h"

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

static const char *step_label(const tui_app *a, pyrt_step s)
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

static void footer(tui_app *a, const char *const *items)
{
	tui_draw_footer(&a->paint, items);
}


/* ---- loading ---------------------------------------------------------- */

void tui_loading_draw(tui_app *a)
{
	static const char *const keys[] = { "q", "quit", NULL };
	char line[128];
	if (a->full) {
		tui_app_titlebar(a, "Managed Python runtime");
		footer(a, keys);
	}
	snprintf(line, sizeof line, "%s Reading the runtime's state%s",
		 tui_app_spinner(a), a->paint.g->ellipsis);
	tui_draw_text(&a->paint, LINES / 2, (COLS - 32) / 2, 40,
		      TUI_ROLE_TEXT, line);
}

/* ---- consent ---------------------------------------------------------- */

/* One "Label  value" row inside the consent box. */
static void field(tui_app *a, int y, int x, int w, const char *label,
		  const char *value, tui_role role, int path)
{
	tui_draw_text(&a->paint, y, x, 13, TUI_ROLE_DIM, label);
	if (path)
		tui_draw_path(&a->paint, y, x + 13, w - 13, role, value);
	else
		tui_draw_text(&a->paint, y, x + 13, w - 13, role, value);
}

/* Which optional rows of the consent fit: the full layout at 80x23 and
 * up; below it the intro line goes, then URL, Platform and Free disk, so
 * that what, how big, where to and which digest always stay. */
typedef struct consent_layout {
	int compact;
	int by;                /* the box's top row */
	int dest_rows;
	int platform, url, free_disk;
} consent_layout;

static consent_layout consent_layout_for(tui_app *a, int w)
{
	consent_layout l = { 0, 4, 1, 1, 1, 1 };
	int fixed = 5 + (a->full_sha ? 2 : 1);   /* Runtime..Baseline, SHA */
	int need = tui_draw_path_rows(&a->paint, w - 13, a->plan.destination);
	l.compact = tui_app_compact();
	if (!l.compact) {
		/* Box, note, buttons and footer take 11 rows more. */
		int spare = LINES - 11 - (fixed + 3);
		l.dest_rows = need - 1 > spare ? (spare > 0 ? spare + 1 : 1) : need;
		return l;
	}
	/* Title, box borders, note, buttons, notice, footer: 7 rows. */
	int room = LINES - 7 - fixed;
	l.by = 1;
	l.url = l.platform = l.free_disk = 0;
	/* fixed counts the destination's first row; it may take all that is
	 * left before the optional rows do. */
	l.dest_rows = need <= room + 1 ? need : (room > 0 ? room + 1 : 1);
	room -= l.dest_rows - 1;
	if (room > 0) { l.free_disk = 1; room--; }
	if (room > 0) { l.platform = 1; room--; }
	if (room > 0) { l.url = 1; room--; }
	return l;
}

/* The plan (what, from where, to where, how big, which digest, how much
 * room) and the two choices; nothing is fetched or written until yes. */
void tui_consent_draw(tui_app *a)
{
	static const char *const keys[] = {
		"y/Enter", "install", "Tab", "choose", "f", "full SHA-256",
		"n/q/Esc", "cancel", NULL,
	};
	const pyrt_install_plan *p = &a->plan;
	char buf[4400], size[32], free_disk[32];
	tui_app_titlebar(a, "Install the managed Python runtime");
	int bx = 2, bw = COLS - 4, x = bx + 2, w = bw - 4;
	consent_layout l = consent_layout_for(a, w);
	if (!l.compact)
		tui_draw_text(&a->paint, 2, 2, COLS - 4, TUI_ROLE_TEXT,
			      "pyrt is about to install a managed Python runtime:");
	int rows = 5 + (a->full_sha ? 2 : 1) + l.dest_rows - 1 + l.platform +
		   l.url + l.free_disk;
	int by = l.by;
	tui_draw_box(&a->paint, by, bx, rows + 2, bw, "What will happen");
	int y = by + 1;
	snprintf(buf, sizeof buf, "%s %s (build %s)%s", app_impl_name(a->pins),
		 p->version, p->build,
		 p->already_current ? " (reinstall)" : "");
	field(a, y++, x, w, "Runtime", buf, TUI_ROLE_ACCENT, 0);
	if (l.platform)
		field(a, y++, x, w, "Platform", p->platform, TUI_ROLE_TEXT, 0);
	if (p->size)
		app_human_bytes(p->size, size, sizeof size);
	else
		snprintf(size, sizeof size, "unknown (the pin does not say)");
	field(a, y++, x, w, "Download", size, TUI_ROLE_TEXT, 0);
	if (a->opts->from_file)
		snprintf(buf, sizeof buf, "%s (local file)", a->opts->from_file);
	else
		snprintf(buf, sizeof buf, "%s", p->host[0] ? p->host : p->url);
	field(a, y++, x, w, "Source", buf, TUI_ROLE_TEXT, 1);
	if (l.url)
		field(a, y++, x, w, "URL", a->opts->from_file ? "-" : p->url,
		      TUI_ROLE_DIM, 1);
	tui_draw_text(&a->paint, y, x, 13, TUI_ROLE_DIM, "Destination");
	y += tui_draw_path_wrap(&a->paint, y, x + 13, w - 13, l.dest_rows,
				TUI_ROLE_TEXT, p->destination);
	if (a->full_sha) {
		snprintf(buf, sizeof buf, "%.32s", p->sha256);
		field(a, y++, x, w, "SHA-256", buf, TUI_ROLE_TEXT, 0);
		field(a, y++, x, w, "", p->sha256 + 32, TUI_ROLE_TEXT, 0);
	} else {
		snprintf(buf, sizeof buf, "%.16s%s  (f: show full)", p->sha256,
			 a->paint.g->ellipsis);
		field(a, y++, x, w, "SHA-256", buf, TUI_ROLE_TEXT, 0);
	}
	if (l.free_disk) {
		if (p->free_bytes)
			app_human_bytes(p->free_bytes, free_disk, sizeof free_disk);
		else
			snprintf(free_disk, sizeof free_disk, "unknown");
		field(a, y++, x, w, "Free disk", free_disk,
		      p->size && p->free_bytes && p->free_bytes < 3 * p->size
			      ? TUI_ROLE_WARN : TUI_ROLE_TEXT, 0);
	}
	app_install_baseline_fact(a->opts, a->pins, buf, sizeof buf);
	field(a, y++, x, w, "Baseline", buf, TUI_ROLE_TEXT, 0);
	y = by + rows + 2 + !l.compact;
	tui_draw_text(&a->paint, y, 2, COLS - 4, TUI_ROLE_DIM,
		      "Nothing has been downloaded or written yet.");
	int bxl = COLS / 2 - 14;
	y += l.compact ? 1 : 2;
	tui_draw_button(&a->paint, y, bxl, "Install", a->consent_sel == 0);
	tui_draw_button(&a->paint, y, bxl + 16, "Cancel", a->consent_sel == 1);
	footer(a, keys);
}

/* Declined: nothing was written; `pyrt install` leaves with exit 3. */
static void consent_declined(tui_app *a)
{
	if (a->wizard_mode) {
		snprintf(a->farewell, sizeof a->farewell,
			 "pyrt install: consent refused; nothing was changed");
		a->exit_status = app_exit_code(PYRT_E_CONSENT);
		a->quit = 1;
		return;
	}
	tui_app_show(a, TUI_SCR_DASHBOARD);
	tui_app_notice(a, TUI_ROLE_WARN,
		       "install cancelled; nothing was changed (I opens the installer again)");
}

/* y or Enter on Install consents; n, q, Esc and Ctrl-C decline. */
void tui_consent_key(tui_app *a, int ch)
{
	switch (ch) {
	case 'y': case 'Y':
		tui_app_run(a, TUI_JOB_INSTALL, NULL);
		break;
	case TUI_KEY_ENTER_LF: case TUI_KEY_ENTER_CR: case KEY_ENTER:
		if (a->consent_sel == 0)
			tui_app_run(a, TUI_JOB_INSTALL, NULL);
		else
			consent_declined(a);
		break;
	case 'n': case 'N': case 'q': case 'Q': case TUI_KEY_ESC:
	case TUI_KEY_CTRL_C:
		consent_declined(a);
		break;
	case KEY_LEFT: case KEY_RIGHT: case '\t': case KEY_BTAB:
	case 'h': case 'l':
		a->consent_sel = !a->consent_sel;
		a->full = 1;
		break;
	case 'f': case 'F':
		a->full_sha = !a->full_sha;
		a->full = 1;
		break;
	}
}

/* ---- progress --------------------------------------------------------- */

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
		      step_label(a, s));
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

/* The download's bar and numbers: bytes, total, rate, ETA. */
static void draw_bar(tui_app *a, const progress_layout *l)
{
	if (draw_extract_bar(a, l))
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
		footer(a, keys);
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

/* ---- result and error ------------------------------------------------- */

/* Which step failed: the first marked failed, else (a cancel) the one
 * that was running; "" when none had begun. */
static void find_failed_step(tui_app *a)
{
	a->failed_step[0] = '\0';
	for (int s = 0; s < PYRT_STEP__COUNT && !a->failed_step[0]; s++)
		if (a->view.steps[s].mark == TUI_MARK_FAILED)
			snprintf(a->failed_step, sizeof a->failed_step, "%s",
				 step_label(a, (pyrt_step)s));
	for (int s = 0; s < PYRT_STEP__COUNT && !a->failed_step[0]; s++)
		if (a->view.steps[s].mark == TUI_MARK_RUNNING)
			snprintf(a->failed_step, sizeof a->failed_step, "%s",
				 step_label(a, (pyrt_step)s));
}

void tui_wizard_finished(tui_app *a)
{
	tui_model_take(a->model, &a->view);
	find_failed_step(a);
	a->asking = 0;
	a->result_sel = 0;
	if (a->run_kind == TUI_JOB_INSTALL)
		a->exit_status = app_exit_code(a->result.code);
	tui_app_show(a, TUI_SCR_RESULT);
}

/* The headline: "Installed", "Install failed", "Baseline cancelled". */
static void result_title(const tui_app *a, char *buf, size_t len)
{
	const tui_result *r = &a->result;
	const char *what = a->run_kind == TUI_JOB_INSTALL ? "Install"
			   : a->run_kind == TUI_JOB_BASELINE ? "Baseline"
							     : "Plugin install";
	if (r->code == 0)
		snprintf(buf, len, "%s complete", what);
	else if (r->code == PYRT_E_CANCELLED)
		snprintf(buf, len, "%s cancelled", what);
	else
		snprintf(buf, len, "%s failed", what);
}

/* "Label: value" on one row; returns the next row. */
static int kv(tui_app *a, int y, const char *label, const char *value,
	      tui_role role)
{
	tui_draw_text(&a->paint, y, 4, 16, TUI_ROLE_DIM, label);
	return y + tui_draw_wrap(&a->paint, y, 20, COLS - 24, 2, role, value);
}

/* What became ready: the runtime, the baseline, the plugins. */
static int draw_success(tui_app *a, int y)
{
	const tui_result *r = &a->result;
	char line[2048];
	tui_draw_text(&a->paint, y, 2, 1, TUI_ROLE_OK, a->paint.g->ok);
	y += tui_draw_wrap(&a->paint, y, 4, COLS - 6, 3, TUI_ROLE_OK,
			   r->summary) + 1;
	if (r->baseline_state[0]) {
		if (r->baseline_missing[0])
			snprintf(line, sizeof line, "%s; missing: %s",
				 r->baseline_state, r->baseline_missing);
		else
			snprintf(line, sizeof line, "%s", r->baseline_state);
		y = kv(a, y, "Baseline",  line,
		       strcmp(r->baseline_state, "complete") == 0 ? TUI_ROLE_OK
								  : TUI_ROLE_WARN);
	}
	if (r->plugins_checked && r->plugin_count) {
		y = kv(a, y, "Plugins ready", r->ready_plugins[0] ? r->ready_plugins
								  : "none",
		       r->ready_plugins[0] ? TUI_ROLE_OK : TUI_ROLE_WARN);
		if (r->waiting_plugins[0])
			y = kv(a, y, "Not ready yet", r->waiting_plugins,
			       TUI_ROLE_WARN);
	}
	return y;
}

/* Which step failed, why in one sentence, and what was left as it was. */
static int draw_failure(tui_app *a, int y)
{
	const tui_result *r = &a->result;
	char line[256];
	if (r->code == PYRT_E_CANCELLED)
		snprintf(line, sizeof line, "Cancelled%s%s",
			 a->failed_step[0] ? " during " : "", a->failed_step);
	else if (a->failed_step[0])
		snprintf(line, sizeof line, "%s failed", a->failed_step);
	else
		snprintf(line, sizeof line, "Could not start");
	tui_draw_text(&a->paint, y, 2, 1, TUI_ROLE_ERROR, a->paint.g->fail);
	tui_draw_text(&a->paint, y, 4, COLS - 6, TUI_ROLE_ERROR, line);
	y += 2;
	tui_draw_text(&a->paint, y, 4, 16, TUI_ROLE_DIM, "Reason");
	y += tui_draw_wrap(&a->paint, y, 20, COLS - 24, 5, TUI_ROLE_TEXT,
			   r->error);
	if (r->unchanged[0])
		y = kv(a, y, "Unchanged", r->unchanged, TUI_ROLE_OK);
	return y;
}

/* The buttons the result offers, in order. */
static const char *const ok_buttons[] = { "Dashboard", "View log", "Quit" };
static const char *const fail_buttons[] = { "Retry", "View log", "Quit" };

/* Success or failure, the run's log, and the three choices. */
void tui_result_draw(tui_app *a)
{
	static const char *const ok_keys[] = {
		"Enter", "dashboard", "l", "view log", "q", "quit", NULL,
	};
	static const char *const fail_keys[] = {
		"r", "retry", "l", "view log", "q", "quit", "d", "dashboard",
		"Tab", "choose", NULL,
	};
	const tui_result *r = &a->result;
	char title[128];
	result_title(a, title, sizeof title);
	tui_app_titlebar(a, title);
	int y = r->code == 0 ? draw_success(a, 2) : draw_failure(a, 2);
	const char *log = r->log_path[0] ? r->log_path : r->pip_log;
	if (log[0]) {
		tui_draw_text(&a->paint, y, 4, 16, TUI_ROLE_DIM,
			      r->log_path[0] ? "Install log" : "pip log");
		/* Whole, over every row left above the buttons: it is read
		 * to be copied, and a box deep in a CI workspace or a long
		 * home directory makes it long. */
		int room = LINES - 6 - y;
		y += tui_draw_path_wrap(&a->paint, y, 20, COLS - 24,
					room > 3 ? room : 3, TUI_ROLE_DIM, log);
	}
	const char *const *buttons = r->code == 0 ? ok_buttons : fail_buttons;
	int x = COLS / 2 - 22;
	y = y + 2 < LINES - 4 ? y + 2 : LINES - 4;
	for (int i = 0; i < 3; i++)
		x += tui_draw_button(&a->paint, y, x, buttons[i],
				     a->result_sel == i) + 3;
	footer(a, r->code == 0 ? ok_keys : fail_keys);
}

static void result_log(tui_app *a)
{
	/* The install log has everything; otherwise this session's lines
	 * hold every pip run (the pip log is only the last one's). */
	tui_app_open_log(a, a->result.log_path);
}

static void result_retry(tui_app *a)
{
	char plugin[256];
	snprintf(plugin, sizeof plugin, "%s", a->run_plugin);
	tui_app_run(a, a->run_kind, plugin);
}

/* Button i of the result: Dashboard/Retry, View log, Quit. */
static void result_press(tui_app *a, int i)
{
	if (i == 1)
		result_log(a);
	else if (i == 2)
		a->quit = 1;
	else if (a->result.code == 0)
		tui_app_show(a, TUI_SCR_DASHBOARD);
	else
		result_retry(a);
}

/* r retries (a download resumes), l shows the log, d the dashboard. */
void tui_result_key(tui_app *a, int ch)
{
	switch (ch) {
	case TUI_KEY_ENTER_LF: case TUI_KEY_ENTER_CR: case KEY_ENTER:
		result_press(a, a->result_sel);
		break;
	case KEY_LEFT: case KEY_BTAB: case 'h':
		a->result_sel = (a->result_sel + 2) % 3;
		a->full = 1;
		break;
	case KEY_RIGHT: case '\t':
		a->result_sel = (a->result_sel + 1) % 3;
		a->full = 1;
		break;
	case 'r': case 'R':
		if (a->result.code != 0)
			result_retry(a);
		break;
	case 'l': case 'L':
		result_log(a);
		break;
	case 'd': case 'D': case TUI_KEY_ESC:
		tui_app_show(a, TUI_SCR_DASHBOARD);
		break;
	case 'q': case 'Q': case TUI_KEY_CTRL_C:
		a->quit = 1;
		break;
	}
}
