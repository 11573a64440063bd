/*
 * The result of an install, baseline or plugin install: what became
 * ready, or which step failed, why, and what was left as it was; then
 * Dashboard or Retry, View log, Quit.
 */
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "tui/loop.h"

/* Which step failed: the first marked failed, else (a cancel) the one
 * that was running; "" when none had begun. */
static void find_failed_step(tui_app *a)
{
	a->failed_step[0] = '\0';
	for (int s = 0; s < PYRT_STEP__COUNT && !a->failed_step[0]; s++)
		if (a->view.steps[s].mark == TUI_MARK_FAILED)
			snprintf(a->failed_step, sizeof a->failed_step, "%s",
				 tui_step_label(a, (pyrt_step)s));
	for (int s = 0; s < PYRT_STEP__COUNT && !a->failed_step[0]; s++)
		if (a->view.steps[s].mark == TUI_MARK_RUNNING)
			snprintf(a->failed_step, sizeof a->failed_step, "%s",
				 tui_step_label(a, (pyrt_step)s));
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
	if (r->fix[0]) {
		tui_draw_text(&a->paint, y, 4, 16, TUI_ROLE_DIM, "Fix");
		/* As many rows as leave the log's two and the buttons
		 * theirs: it is read to be typed. */
		int rows = LINES - y - 8;
		y += tui_draw_wrap(&a->paint, y, 20, COLS - 24,
				   rows < 1 ? 1 : rows > 8 ? 8 : rows,
				   TUI_ROLE_TEXT, r->fix);
	}
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
		/* Three rows at least, unless the buttons need them (a
		 * failure's fix above took them on a small screen). */
		int least = a->result.fix[0] ? 1 : 3;
		y += tui_draw_path_wrap(&a->paint, y, 20, COLS - 24,
					room > least ? room : least,
					TUI_ROLE_DIM, log);
	}
	const char *const *buttons = r->code == 0 ? ok_buttons : fail_buttons;
	int x = COLS / 2 - 22;
	y = y + 2 < LINES - 4 ? y + 2 : LINES - 4;
	for (int i = 0; i < 3; i++)
		x += tui_draw_button(&a->paint, y, x, buttons[i],
				     a->result_sel == i) + 3;
	tui_draw_footer(&a->paint, r->code == 0 ? ok_keys : fail_keys);
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
