/*
 * The doctor checklist, opened from the dashboard and run in the worker
 * while a spinner turns.  Words and marks match `pyrt doctor`, so a
 * support person reads the same thing in both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/common.h"
#include "tui/loop.h"
#include "tui/format.h"


static const char *check_mark(const tui_app *a, pyrt_check_verdict v,
			      tui_role *role)
{
	const tui_glyphs *g = a->paint.g;
	switch (v) {
	case PYRT_CHECK_PASS: *role = TUI_ROLE_OK; return g->ok;
	case PYRT_CHECK_WARN: *role = TUI_ROLE_WARN; return g->warn;
	case PYRT_CHECK_FAIL: *role = TUI_ROLE_ERROR; return g->fail;
	case PYRT_CHECK_SKIP: break;
	}
	*role = TUI_ROLE_DIM;
	return g->skip;
}

/* Failures first, then warnings, then the rest in doctor's order: at
 * 60x16 the one failure must be on screen, not below the fold while the
 * tally says "1 failed". */
static int verdict_rank(pyrt_check_verdict v)
{
	return v == PYRT_CHECK_FAIL ? 0 : v == PYRT_CHECK_WARN ? 1 : 2;
}

/* The check shown at position k. */
static const pyrt_check *shown_at(const pyrt_doctor *d, size_t k)
{
	size_t n = pyrt_doctor_count(d);
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < n; i++) {
			const pyrt_check *c = pyrt_doctor_at(d, i);
			if (verdict_rank(c->verdict) == rank && k-- == 0)
				return c;
		}
	return pyrt_doctor_at(d, n - 1);
}

/* Display rows: one per check, one more for each fix. */
static int doctor_rows(const pyrt_doctor *d)
{
	int rows = 0;
	for (size_t i = 0; i < pyrt_doctor_count(d); i++)
		rows += pyrt_doctor_at(d, i)->fix ? 2 : 1;
	return rows;
}

static int list_height(void)
{
	return LINES - 2 - 2 - 2; /* title+gap, summary+gap, notice, footer */
}

/* The checklist from doc_top, fixes under their checks, then the tally
 * in `pyrt doctor`'s words. */
static void draw_checks(tui_app *a)
{
	const pyrt_doctor *d = a->doctor;
	int tw = 10, row = 0, y0 = 2, h = list_height();
	int tally[PYRT_CHECK_SKIP + 1] = { 0 };
	for (size_t i = 0; i < pyrt_doctor_count(d); i++) {
		int w = (int)tui_format_columns(pyrt_doctor_at(d, i)->title);
		tw = w > tw ? w : tw;
	}
	tw = tw > 28 ? 28 : tw;
	int below = 0;
	for (size_t i = 0; i < pyrt_doctor_count(d); i++) {
		const pyrt_check *c = shown_at(d, i);
		tui_role role;
		const char *mark = check_mark(a, c->verdict, &role);
		tally[c->verdict <= PYRT_CHECK_SKIP ? c->verdict : 0]++;
		int y = y0 + row - a->doc_top;
		if (y >= y0 + h)
			below++;
		int sel = (int)i == a->doc_sel;
		if (y >= y0 && y < y0 + h) {
			tui_draw_fill(&a->paint, y, 1, COLS - 2, sel
				      ? TUI_ROLE_SELECTION : TUI_ROLE_TEXT);
			tui_draw_text(&a->paint, y, 2, 1, sel
				      ? TUI_ROLE_SELECTION : role, mark);
			tui_draw_text(&a->paint, y, 4, tw, sel ? TUI_ROLE_SELECTION
				      : TUI_ROLE_TEXT, c->title);
			tui_draw_text(&a->paint, y, 6 + tw, COLS - 8 - tw, sel
				      ? TUI_ROLE_SELECTION : TUI_ROLE_DIM, c->detail);
		}
		row++;
		if (!c->fix)
			continue;
		y = y0 + row - a->doc_top;
		if (y >= y0 && y < y0 + h) {
			char fix[1200];
			snprintf(fix, sizeof fix, "fix: %s", c->fix);
			tui_draw_text(&a->paint, y, 6 + tw, COLS - 8 - tw,
				      role, fix);
		}
		row++;
	}
	char sum[160];
	snprintf(sum, sizeof sum, "doctor: %d passed, %d warning%s, %d failed, %d skipped",
		 tally[PYRT_CHECK_PASS], tally[PYRT_CHECK_WARN],
		 tally[PYRT_CHECK_WARN] == 1 ? "" : "s", tally[PYRT_CHECK_FAIL],
		 tally[PYRT_CHECK_SKIP]);
	tui_draw_text(&a->paint, LINES - 3, 2, COLS - 4,
		      tally[PYRT_CHECK_FAIL] ? TUI_ROLE_ERROR : TUI_ROLE_OK, sum);
	/* What the list does not show, on the row between it and the tally. */
	char more[64] = "";
	if (below)
		snprintf(more, sizeof more, "%d more %s", below,
			 a->paint.utf8 ? "↓" : "v");
	tui_draw_fill(&a->paint, y0 + h, 1, COLS - 2, TUI_ROLE_TEXT);
	if (more[0])
		tui_draw_text(&a->paint, y0 + h, 4, COLS - 8, TUI_ROLE_ACCENT,
			      more);
}

/* The headline while doctor runs: the network checks can each wait the
 * whole timeout (a dead proxy, a dropped SYN), and their line says so. */
static const char *doctor_phase(tui_app *a)
{
	tui_line last;
	if (tui_model_lines(a->model, &last, 1, 1, PYRT_STEP__COUNT) == 1 &&
	    strncmp(last.text, "checking the network", 20) == 0)
		return "Checking the network";
	return "Running every check";
}

/* A spinner while doctor runs, then its checklist. */
void tui_doctor_draw(tui_app *a)
{
	static const char *const keys[] = {
		"Up/Down", "select", "Enter", "whole text", "r", "run again",
		"B", "support bundle", "Esc/q", "back", NULL,
	};
	if (!a->full && !a->job_running)
		return;
	if (a->full) {
		tui_app_titlebar(a, "Doctor");
		tui_draw_footer(&a->paint, keys);
	}
	if (a->job_running && a->job.kind == TUI_JOB_DOCTOR)
		tui_app_busy(a, doctor_phase(a));
	else if (a->doctor && a->full)
		draw_checks(a);
}

/* The display row where check i begins. */
static int check_row(const pyrt_doctor *d, size_t i)
{
	int row = 0;
	for (size_t k = 0; k < i; k++)
		row += shown_at(d, k)->fix ? 2 : 1;
	return row;
}

/* Keep the selected check (and its fix) in view. */
static void doctor_follow(tui_app *a)
{
	int n = (int)pyrt_doctor_count(a->doctor), h = list_height();
	if (a->doc_sel >= n)
		a->doc_sel = n - 1;
	if (a->doc_sel < 0)
		a->doc_sel = 0;
	if (!n)
		return;
	int row = check_row(a->doctor, (size_t)a->doc_sel);
	int end = row + (shown_at(a->doctor, (size_t)a->doc_sel)->fix ? 2 : 1);
	if (row < a->doc_top)
		a->doc_top = row;
	if (end > a->doc_top + h)
		a->doc_top = end - h;
	int max = doctor_rows(a->doctor) - h;
	if (a->doc_top > max)
		a->doc_top = max;
	if (a->doc_top < 0)
		a->doc_top = 0;
}

/* Enter: the check's whole detail and fix, wrapped, nothing cut. */
static void check_details(tui_app *a)
{
	char text[TUI_DIALOG_TEXT], title[160];
	const pyrt_check *c = shown_at(a->doctor, (size_t)a->doc_sel);
	snprintf(text, sizeof text, "verdict: %s\n%s%s%s",
		 pyrt_check_verdict_name(c->verdict), c->detail,
		 c->fix ? "\nfix: " : "", c->fix ? c->fix : "");
	snprintf(title, sizeof title, "%s", c->title);
	tui_dialog_open(a, TUI_ASK_NONE, title, text);
}

/* B: where the bundle goes (the working directory, else $HOME), asked. */
void tui_doctor_ask_bundle(tui_app *a)
{
	char name[64], text[TUI_DIALOG_TEXT], cwd[4096];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(name, sizeof name, "pyrt-support-%Y%m%d-%H%M%S.tar.gz", &tm);
	const char *home = getenv("HOME");
	const char *dir = getcwd(cwd, sizeof cwd) && access(cwd, W_OK) == 0
		? cwd : home && *home ? home : "/tmp";
	int n = snprintf(a->ask_arg, sizeof a->ask_arg, "%s/%s", dir, name);
	/* A cut path would write the bundle somewhere else: /tmp instead. */
	if (n < 0 || (size_t)n >= sizeof a->ask_arg)
		snprintf(a->ask_arg, sizeof a->ask_arg, "/tmp/%s", name);
	snprintf(text, sizeof text,
		 "Write a support bundle?\n\n"
		 "file: %s (owner-only)\n"
		 "holds: this doctor answer, the newest install log, the marker and platform facts, with URL credentials and tokens redacted",
		 a->ask_arg);
	tui_dialog_open(a, TUI_ASK_BUNDLE, "Support bundle", text);
}

/* Selection, details, rerun, bundle, back (which cancels a running
 * doctor first). */
void tui_doctor_key(tui_app *a, int ch)
{
	int have = a->doctor && pyrt_doctor_count(a->doctor);
	switch (ch) {
	case KEY_UP: case 'k': a->doc_sel--; break;
	case KEY_DOWN: case 'j': a->doc_sel++; break;
	case KEY_PPAGE: a->doc_sel -= list_height() / 2; break;
	case KEY_NPAGE: case ' ': a->doc_sel += list_height() / 2; break;
	case KEY_HOME: case 'g': a->doc_sel = 0; break;
	case KEY_END: case 'G': a->doc_sel = 1 << 20; break;
	case TUI_KEY_ENTER_LF: case TUI_KEY_ENTER_CR: case KEY_ENTER:
		if (have && !a->job_running)
			check_details(a);
		return;
	case 'B':
		if (have && !a->job_running)
			tui_doctor_ask_bundle(a);
		return;
	case 'r': case 'd':
		tui_app_run(a, TUI_JOB_DOCTOR, NULL);
		return;
	case TUI_KEY_ESC: case 'q': case 'Q': case TUI_KEY_CTRL_C:
		if (a->job_running)
			tui_model_cancel(a->model);
		else
			tui_app_show(a, TUI_SCR_DASHBOARD);
		return;
	default:
		return;
	}
	if (have)
		doctor_follow(a);
	a->full = 1;
}
