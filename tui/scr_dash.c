/*
 * The dashboard: the runtime card (state and its honest message, version,
 * build, platform, path, installed_at, baseline, pins) over the plugin
 * readiness matrix, with the selected row's missing requirements and fix
 * below it.  Its keys start the same work as `pyrt plugins install`,
 * `pyrt baseline`, `pyrt smoke` and `pyrt doctor`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "format.h"
#include "plugin_ops.h"
#include "plugin_text.h"

#define NCOLS 6

static const char *const dash_keys[] = {
	"i", "deps", "b", "baseline", "s", "smoke", "d", "doctor", "l", "log",
	"r", "refresh", "t", "theme", "?", "help", "q", "quit", NULL,
};

/* The card's state word with its mark and role. */
static const char *state_word(const tui_app *a, const char **mark,
			      tui_role *role)
{
	const tui_glyphs *g = a->paint.g;
	switch (a->status->state) {
	case PYRT_STATE_READY:
		if (a->plugins && !pyrt_plugins_runtime_ready(a->plugins)) {
			*mark = g->fail;
			*role = TUI_ROLE_ERROR;
			return "broken (it could not check the plugins)";
		}
		*mark = g->ok;
		*role = TUI_ROLE_OK;
		return "ready";
	case PYRT_STATE_NOT_PROVISIONED:
		*mark = g->warn;
		*role = TUI_ROLE_WARN;
		return "not provisioned";
	case PYRT_STATE_BROKEN:
		*mark = g->fail;
		*role = TUI_ROLE_ERROR;
		return "broken";
	case PYRT_STATE_UNSUPPORTED:
		*mark = g->fail;
		*role = TUI_ROLE_ERROR;
		return "unsupported";
	case PYRT_STATE_INSTALLING:
		*mark = tui_app_spinner(a);
		*role = TUI_ROLE_WARN;
		return "installing";
	case PYRT_STATE_UNTRUSTED:
		*mark = g->fail;
		*role = TUI_ROLE_ERROR;
		return "untrusted";
	}
	*mark = "?";
	*role = TUI_ROLE_WARN;
	return "unknown";
}

static void label(tui_app *a, int y, int x, const char *text)
{
	tui_draw_text(&a->paint, y, x, 11, TUI_ROLE_DIM, text);
}

/* A value after its label, cut to width (paths in the middle). */
static void value(tui_app *a, int y, int x, int w, const char *text,
		  int path)
{
	if (path)
		tui_draw_path(&a->paint, y, x + 11, w - 11, TUI_ROLE_TEXT, text);
	else
		tui_draw_text(&a->paint, y, x + 11, w - 11, TUI_ROLE_TEXT, text);
}

/* The marker's facts in two columns; "-" where there is no install. */
static void card_fields(tui_app *a, int y, int x, int w)
{
	const pyrt_status *st = a->status;
	const pyrt_marker *m = &st->marker;
	int have = st->have_marker;
	/* The right column holds short words (platform key, baseline state):
	 * the left one gets the rest. */
	int half = w - 31 > w / 2 ? w - 31 : w / 2;
	char buf[256];
	if (have)
		snprintf(buf, sizeof buf, "%s %s (build %s)",
			 strcmp(m->implementation, "cpython") == 0 ? "CPython"
								    : m->implementation,
			 m->version, m->build);
	label(a, y, x, "Version");
	value(a, y, x, half - 1, have ? buf : "-", 0);
	label(a, y, x + half, "Platform");
	value(a, y, x + half, w - half, st->platform[0] ? st->platform : "-", 0);
	label(a, y + 1, x, "Path");
	value(a, y + 1, x, w, st->path, 1);
	label(a, y + 2, x, "Installed");
	value(a, y + 2, x, half - 1, have ? m->installed_at : "-", 0);
	label(a, y + 2, x + half, "Baseline");
	if (have && m->baseline_missing_count)
		snprintf(buf, sizeof buf, "%s (%d missing)", m->baseline_state,
			 m->baseline_missing_count);
	else
		snprintf(buf, sizeof buf, "%s", have && m->baseline_state[0]
				? m->baseline_state : "none");
	tui_draw_text(&a->paint, y + 2, x + half + 11, w - half - 11,
		      have && strcmp(m->baseline_state, "complete") == 0
			      ? TUI_ROLE_OK : TUI_ROLE_WARN, buf);
	label(a, y + 3, x, "Pins");
	value(a, y + 3, x, w, st->pins[0] ? st->pins : "-", 1);
}

/* Rows 1..9: the runtime card.  The state reads as `pyrt status` says it
 * ("broken: <what failed> — run ..."), in up to three rows so the fix at
 * the end of the sentence stays in view. */
static void draw_card(tui_app *a)
{
	int x = 3, w = COLS - 6;
	char line[1200];
	tui_draw_box(&a->paint, 1, 1, 9, COLS - 2, "Runtime");
	if (a->refreshing > 0) {
		snprintf(line, sizeof line, " %s checking%s ", tui_app_spinner(a),
			 a->paint.g->ellipsis);
		tui_draw_text(&a->paint, 1, COLS - 18, 14, TUI_ROLE_DIM, line);
	}
	if (!a->status) {
		tui_draw_text(&a->paint, 2, x, w, a->state_error[0]
			      ? TUI_ROLE_ERROR : TUI_ROLE_DIM,
			      a->state_error[0] ? a->state_error
						: "reading the runtime's state");
		return;
	}
	const char *mark;
	tui_role role;
	const char *word = state_word(a, &mark, &role);
	label(a, 2, x, "State");
	tui_draw_text(&a->paint, 2, x + 11, 1, role, mark);
	snprintf(line, sizeof line, "%s: %s", word, a->status->message);
	for (int i = 0; i < 3; i++)
		tui_draw_fill(&a->paint, 2 + i, x + 13, w - 13, TUI_ROLE_TEXT);
	tui_draw_wrap(&a->paint, 2, x + 13, w - 13, 3, role, line);
	card_fields(a, 5, x, w);
}

/* Column widths of the matrix for this width. */
static void matrix_columns(tui_app *a, int total, int *widths)
{
	tui_column cols[NCOLS] = {
		{ 8, 6, 0 }, { 7, 7, 0 }, { 7, 7, 0 }, { 6, 4, 0 },
		{ 12, 17, 0 }, { 8, 3, 1 },
	};
	size_t n = pyrt_plugins_count(a->plugins);
	int ready = pyrt_plugins_runtime_ready(a->plugins);
	for (size_t i = 0; i < n; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(a->plugins, i);
		char deps[64];
		int len = (int)tui_format_columns(pl->name);
		cols[0].want = len > cols[0].want ? (len > 24 ? 24 : len)
						  : cols[0].want;
		cli_plugin_deps(pl, ready, deps, sizeof deps);
		len = (int)strlen(deps);
		cols[3].want = len > cols[3].want ? len : cols[3].want;
	}
	tui_format_layout(cols, NCOLS, total, 2, widths);
}

/* Colour follows meaning: ready green, needs work yellow, broken red. */
static tui_role verdict_role(pyrt_verdict v)
{
	switch (v) {
	case PYRT_VERDICT_READY: return TUI_ROLE_OK;
	case PYRT_VERDICT_NO_RUNTIME_NEEDED: return TUI_ROLE_TEXT;
	case PYRT_VERDICT_DISABLED: return TUI_ROLE_DIM;
	case PYRT_VERDICT_INVALID: return TUI_ROLE_ERROR;
	case PYRT_VERDICT_NEEDS_RUNTIME:
	case PYRT_VERDICT_MISSING_DEPS: break;
	}
	return TUI_ROLE_WARN;
}

/* One row of cells at y, in the selection role when selected. */
static void draw_cells(tui_app *a, int y, int x, const int *widths,
		       const char *const *cells, const tui_role *roles,
		       int selected, int total)
{
	tui_draw_fill(&a->paint, y, x - 1, total + 2,
		      selected ? TUI_ROLE_SELECTION : TUI_ROLE_TEXT);
	for (int c = 0; c < NCOLS; c++) {
		if (widths[c] <= 0)
			continue;
		tui_draw_text(&a->paint, y, x, widths[c],
			      selected ? TUI_ROLE_SELECTION : roles[c], cells[c]);
		x += widths[c] + 2;
	}
}

/* One plugin as `pyrt plugins` prints it; enabled and runtime are "-"
 * for an invalid manifest, which says nothing trustworthy. */
static void draw_row(tui_app *a, int y, int x, const int *widths, size_t i,
		     int total)
{
	const pyrt_plugin *pl = pyrt_plugins_at(a->plugins, i);
	int invalid = pl->verdict == PYRT_VERDICT_INVALID;
	char deps[64];
	cli_plugin_deps(pl, pyrt_plugins_runtime_ready(a->plugins), deps,
			sizeof deps);
	const char *cells[NCOLS] = {
		pl->name, invalid ? "-" : pl->enabled ? "yes" : "no",
		invalid ? "-" : pl->needs_runtime ? "yes" : "no", deps,
		pyrt_verdict_name(pl->verdict), pl->fix ? pl->fix : "-",
	};
	tui_role roles[NCOLS] = {
		TUI_ROLE_TEXT, TUI_ROLE_TEXT, TUI_ROLE_TEXT, TUI_ROLE_TEXT,
		verdict_role(pl->verdict), TUI_ROLE_DIM,
	};
	draw_cells(a, y, x, widths, cells, roles, (int)i == a->sel, total);
}

/* Keep the selection inside the visible rows. */
static void scroll_to_sel(tui_app *a, int rows)
{
	if (a->sel < a->top)
		a->top = a->sel;
	if (a->sel >= a->top + rows)
		a->top = a->sel - rows + 1;
	if (a->top < 0)
		a->top = 0;
}

/* Under the matrix: what the selected row is missing and its fix. */
static void draw_detail(tui_app *a, int y, int x, int w, int rows)
{
	char text[2048];
	if (!a->plugins || !pyrt_plugins_count(a->plugins))
		return;
	const pyrt_plugin *pl = pyrt_plugins_at(a->plugins, (size_t)a->sel);
	tui_plugin_explain(pl, pyrt_plugins_runtime_ready(a->plugins), text,
			   sizeof text);
	tui_draw_wrap(&a->paint, y, x, w, rows, verdict_role(pl->verdict), text);
}

/* Rows 10..LINES-3: the plugin matrix and the selected row's detail. */
static void draw_matrix(tui_app *a)
{
	static const char *const heads[NCOLS] = {
		"PLUGIN", "ENABLED", "RUNTIME", "DEPS", "VERDICT", "FIX",
	};
	static const tui_role head_roles[NCOLS] = {
		TUI_ROLE_ACCENT, TUI_ROLE_ACCENT, TUI_ROLE_ACCENT,
		TUI_ROLE_ACCENT, TUI_ROLE_ACCENT, TUI_ROLE_ACCENT,
	};
	int top = 10, h = LINES - 2 - top, x = 3, total = COLS - 6;
	int detail = LINES >= 26 ? 2 : 1;
	int rows = h - 2 - 1 - 1 - detail;
	tui_draw_box(&a->paint, top, 1, h, COLS - 2, "Plugins");
	if (!a->plugins) {
		tui_draw_text(&a->paint, top + 1, x, total, TUI_ROLE_DIM,
			      a->state_error[0] ? a->state_error
						: "reading the plugins");
		return;
	}
	size_t n = pyrt_plugins_count(a->plugins);
	if (!n) {
		char msg[4200];
		snprintf(msg, sizeof msg, "no plugins in %s/plugins",
			 a->opts->box_root);
		tui_draw_path(&a->paint, top + 1, x, total, TUI_ROLE_DIM, msg);
		return;
	}
	int widths[NCOLS];
	matrix_columns(a, total, widths);
	draw_cells(a, top + 1, x, widths, heads, head_roles, 0, total);
	scroll_to_sel(a, rows);
	for (int r = 0; r < rows && a->top + r < (int)n; r++)
		draw_row(a, top + 2 + r, x, widths, (size_t)(a->top + r), total);
	if (a->top + rows < (int)n)
		tui_draw_text(&a->paint, top + 1 + rows, COLS - 12, 8,
			      TUI_ROLE_DIM, "more...");
	tui_draw_rule(&a->paint, top + h - 2 - detail, 1, COLS - 2);
	draw_detail(a, top + h - 1 - detail, x, total, detail);
}

/* Redrawn whole on keys and new state; between them only the card's
 * spinner turns while a refresh runs. */
void tui_dash_draw(tui_app *a)
{
	if (!a->full && !a->refreshing && a->status &&
	    a->status->state != PYRT_STATE_INSTALLING)
		return; /* nothing moves: no bytes for the terminal */
	if (!a->full) {
		/* Only the spinners turn. */
		draw_card(a);
		return;
	}
	tui_app_titlebar(a, "Dashboard");
	draw_card(a);
	draw_matrix(a);
	tui_draw_footer(&a->paint, dash_keys);
}

/* `?`: every dashboard key, including those the footer has no room for. */
void tui_help_draw(tui_app *a)
{
	static const char *const lines[][2] = {
		{ "Up/Down j/k", "move between plugins" },
		{ "i", "install the selected plugin's missing requirements" },
		{ "b", "rerun the doc-library baseline" },
		{ "s", "smoke test: write and check a real .docx" },
		{ "d", "doctor: every check with its fix" },
		{ "l", "log viewer (/ search, n next, Tab next log)" },
		{ "r", "read the runtime's state again" },
		{ "t", "next colour theme" },
		{ "I", "install (or repair) the runtime" },
		{ "?", "this help" },
		{ "q", "quit" },
	};
	size_t n = sizeof lines / sizeof lines[0];
	int y, x;
	tui_draw_dialog(&a->paint, (int)n + 4, 72, "Keys", &y, &x);
	for (size_t i = 0; i < n; i++) {
		tui_draw_text(&a->paint, y + 1 + (int)i, x + 2, 12,
			      TUI_ROLE_ACCENT, lines[i][0]);
		tui_draw_text(&a->paint, y + 1 + (int)i, x + 15, 55,
			      TUI_ROLE_TEXT, lines[i][1]);
	}
	tui_draw_text(&a->paint, y + (int)n + 2, x + 2, 60, TUI_ROLE_DIM,
		      "any key closes this help");
}

/* `i` on the selected row: only when there is something to install. */
static void install_selected(tui_app *a)
{
	if (!a->plugins || !pyrt_plugins_count(a->plugins)) {
		tui_app_notice(a, TUI_ROLE_WARN, "no plugin selected");
		return;
	}
	const pyrt_plugin *pl = pyrt_plugins_at(a->plugins, (size_t)a->sel);
	if (pl->verdict == PYRT_VERDICT_INVALID)
		tui_app_notice(a, TUI_ROLE_ERROR, "%s: invalid plugin.yaml: %s",
			       pl->name, pl->error ? pl->error : "unreadable");
	else if (!pyrt_plugins_runtime_ready(a->plugins))
		tui_app_notice(a, TUI_ROLE_WARN,
			       "the managed runtime is not ready; press I to install it first");
	else if (!pl->require_count)
		tui_app_notice(a, TUI_ROLE_ACCENT,
			       "%s requires no packages; nothing to install",
			       pl->name);
	else if (pl->verdict == PYRT_VERDICT_READY)
		tui_app_notice(a, TUI_ROLE_OK,
			       "%s is ready; nothing to install", pl->name);
	else
		tui_app_run(a, TUI_JOB_PLUGIN, pl->name);
}

static int runtime_ready(const tui_app *a)
{
	return a->status && a->status->state == PYRT_STATE_READY;
}

/* `I`: the wizard, unless the pinned runtime is already active. */
static void open_installer(tui_app *a)
{
	if (runtime_ready(a) && a->plugins &&
	    pyrt_plugins_runtime_ready(a->plugins)) {
		tui_app_notice(a, TUI_ROLE_ACCENT,
			       "the runtime is ready; \"pyrt install --force\" reinstalls it");
		return;
	}
	tui_app_wizard(a);
}

static void move_sel(tui_app *a, int delta)
{
	int n = a->plugins ? (int)pyrt_plugins_count(a->plugins) : 0;
	a->sel += delta;
	if (a->sel >= n)
		a->sel = n - 1;
	if (a->sel < 0)
		a->sel = 0;
	a->full = 1;
}

/* Each key starts the same work as its headless command. */
void tui_dash_key(tui_app *a, int ch)
{
	switch (ch) {
	case KEY_UP: case 'k': move_sel(a, -1); break;
	case KEY_DOWN: case 'j': move_sel(a, 1); break;
	case KEY_PPAGE: move_sel(a, -5); break;
	case KEY_NPAGE: move_sel(a, 5); break;
	case KEY_HOME: case 'g': move_sel(a, -1000000); break;
	case KEY_END: case 'G': move_sel(a, 1000000); break;
	case 'i': install_selected(a); break;
	case 'b':
		if (runtime_ready(a))
			tui_app_run(a, TUI_JOB_BASELINE, NULL);
		else
			tui_app_notice(a, TUI_ROLE_WARN,
				       "the managed runtime is not ready; press I to install it first");
		break;
	case 's': tui_app_run(a, TUI_JOB_SMOKE, NULL); break;
	case 'd': tui_app_run(a, TUI_JOB_DOCTOR, NULL); break;
	case 'l': tui_app_open_log(a, NULL); break;
	case 'r': tui_app_run(a, TUI_JOB_REFRESH, NULL); break;
	case 't': tui_app_cycle_theme(a); break;
	case 'I': open_installer(a); break;
	case '?': a->help = 1; a->full = 1; break;
	case 'q': case 'Q': case TUI_KEY_CTRL_C: a->quit = 1; break;
	}
}
