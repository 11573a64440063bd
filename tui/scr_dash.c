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
#include <time.h>
#include <unistd.h>

#include "app/box.h"
#include "app/common.h"
#include "app/plugin.h"
#include "core/runtime/box.h"
#include "core/util/sanitize.h"
#include "tui/loop.h"
#include "tui/format.h"
#include "tui/plugin_text.h"

#define NCOLS 6

static const char *const dash_keys[] = {
	"Enter", "details", "i", "deps", "b", "baseline", "I", "install",
	"d", "doctor", "l", "log", "?", "more keys", "q", "quit", NULL,
};
/* Another user of root's shared box: only the keys that read. */
static const char *const dash_keys_read_only[] = {
	"Enter", "details", "s", "smoke", "d", "doctor", "l", "log",
	"?", "more keys", "q", "quit", NULL,
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

/* The state as `pyrt status` says it, as the card shows it. */
static void state_line(tui_app *a, char *line, size_t len)
{
	const char *mark;
	tui_role role;
	snprintf(line, len, "%s: %s", state_word(a, &mark, &role),
		 a->status->message);
	/* The card watches the box: it needs no "run pyrt status again". */
	char *again = a->status->state == PYRT_STATE_INSTALLING
		? strstr(line, "run \"pyrt status") : NULL;
	if (again)
		snprintf(again, len - (size_t)(again - line),
			 "this card updates by itself when it ends");
}

/* Rows the state sentence needs (1 to 3) beside its label. */
static int state_rows_needed(tui_app *a)
{
	char line[1200], clean[1200];
	size_t start[3], len[3];
	if (!a->status)
		return 1;
	state_line(a, line, sizeof line);
	pyrt_sanitize(line, a->paint.utf8, clean, sizeof clean);
	size_t n = tui_format_wrap(clean, (size_t)(COLS - 6 - 13), start, len,
				   3);
	return n < 1 ? 1 : (int)n;
}

/* The card's height: at most 9 rows (3 for the state, 4 of facts) when
 * the matrix keeps 8 (3 plugin rows); less on a short terminal, and no
 * taller than what it holds: a state of one row leaves no blank rows
 * while the plugin list below says "N more". */
static int card_height(tui_app *a)
{
	int h = LINES - 3 - 8;
	h = h > 9 ? 9 : h < 4 ? 4 : h;
	int need = 2 + state_rows_needed(a) + 4;
	return a->status && need < h ? need : h;
}

/* Row i (0-3) of the marker's facts in two columns; "-" where there is
 * no install.  The most telling rows first: a short card keeps them. */
static void card_field(tui_app *a, int i, int y, int x, int w)
{
	const pyrt_status *st = a->status;
	const pyrt_marker *m = &st->marker;
	int have = st->have_marker;
	/* The right column holds short words (platform key, baseline state):
	 * the left one gets the rest. */
	int half = w - 31 > w / 2 ? w - 31 : w / 2;
	char buf[256];
	switch (i) {
	case 0:
		if (have)
			snprintf(buf, sizeof buf, "%s %s (build %s)",
				 strcmp(m->implementation, "cpython") == 0
					 ? "CPython" : m->implementation,
				 m->version, m->build);
		label(a, y, x, "Version");
		value(a, y, x, half - 1, have ? buf : "-", 0);
		label(a, y, x + half, "Platform");
		value(a, y, x + half, w - half,
		      st->platform[0] ? st->platform : "-", 0);
		break;
	case 1:
		label(a, y, x, "Path");
		value(a, y, x, w, st->path, 1);
		break;
	case 2:
		label(a, y, x, "Installed");
		value(a, y, x, half - 1, have ? m->installed_at : "-", 0);
		label(a, y, x + half, "Baseline");
		if (have && m->baseline_missing_count)
			snprintf(buf, sizeof buf, "%s (%d missing)",
				 m->baseline_state, m->baseline_missing_count);
		else
			snprintf(buf, sizeof buf, "%s", have && m->baseline_state[0]
					? m->baseline_state : "none");
		tui_draw_text(&a->paint, y, x + half + 11, w - half - 11,
			      have && strcmp(m->baseline_state, "complete") == 0
				      ? TUI_ROLE_OK : TUI_ROLE_WARN, buf);
		break;
	default:
		label(a, y, x, "Pins");
		value(a, y, x, w, st->pins[0] ? st->pins : "-", 1);
		break;
	}
}

/* What the card's border says is running: a refresh, or an operation
 * started from the dashboard. */
static void card_busy(tui_app *a)
{
	char line[160];
	if (a->refreshing <= 0 && !a->op_label[0])
		return;
	snprintf(line, sizeof line, " %s %s%s%s%s ", tui_app_spinner(a),
		 a->op_label[0] ? a->op_label : "checking",
		 a->queued ? ", then " : "",
		 a->queued ? tui_app_job_doing(a->queued) : "",
		 a->paint.g->ellipsis);
	int w = (int)tui_format_columns(line);
	if (w > COLS - 20) { /* keep the card's title in view */
		snprintf(line, sizeof line, " %s %s%s ", tui_app_spinner(a),
			 a->queued ? "1 queued" : "busy", a->paint.g->ellipsis);
		w = (int)tui_format_columns(line);
	}
	tui_draw_text(&a->paint, 1, COLS - 4 - w, w, TUI_ROLE_DIM, line);
}

/* Rows 1..: the runtime card.  The state reads as `pyrt status` says it
 * ("broken: <what failed> — run ..."), in up to three rows so the fix at
 * the end of the sentence stays in view; a short card gives it fewer and
 * shows fewer facts. */
static void draw_card(tui_app *a)
{
	int x = 3, w = COLS - 6, h = card_height(a), inner = h - 2;
	char line[1200];
	tui_draw_box(&a->paint, 1, 1, h, COLS - 2, "Runtime");
	card_busy(a);
	if (!a->status) {
		tui_draw_text(&a->paint, 2, x, w, a->state_error[0]
			      ? TUI_ROLE_ERROR : TUI_ROLE_DIM,
			      a->state_error[0] ? a->state_error
						: "reading the runtime's state");
		return;
	}
	const char *mark;
	tui_role role;
	state_word(a, &mark, &role);
	int state_rows = inner >= 7 ? 3 : inner >= 3 ? 2 : 1;
	int needed = state_rows_needed(a);
	if (needed < state_rows)
		state_rows = needed;
	label(a, 2, x, "State");
	tui_draw_text(&a->paint, 2, x + 11, 1, role, mark);
	state_line(a, line, sizeof line);
	for (int i = 0; i < state_rows; i++)
		tui_draw_fill(&a->paint, 2 + i, x + 13, w - 13, TUI_ROLE_TEXT);
	tui_draw_wrap(&a->paint, 2, x + 13, w - 13, state_rows, role, line);
	for (int i = 0; i < inner - state_rows && i < 4; i++)
		card_field(a, i, 2 + state_rows + i, x, w);
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
		app_plugin_deps(pl, ready, deps, sizeof deps);
		len = (int)strlen(deps);
		cols[3].want = len > cols[3].want ? len : cols[3].want;
	}
	/* Narrow: ENABLED and RUNTIME go first (DEPS and the verdict say
	 * more), so the verdict is never the column that is cut. */
	if (total < 70)
		cols[1].min = cols[1].want = cols[2].min = cols[2].want = 0;
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
	app_plugin_deps(pl, pyrt_plugins_runtime_ready(a->plugins), deps,
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

/* Under the card to LINES-3: the plugin matrix and the selected row's
 * detail. */
static void draw_matrix(tui_app *a)
{
	static const char *const heads[NCOLS] = {
		"PLUGIN", "ENABLED", "RUNTIME", "DEPS", "VERDICT", "FIX",
	};
	static const tui_role head_roles[NCOLS] = {
		TUI_ROLE_ACCENT, TUI_ROLE_ACCENT, TUI_ROLE_ACCENT,
		TUI_ROLE_ACCENT, TUI_ROLE_ACCENT, TUI_ROLE_ACCENT,
	};
	int top = 1 + card_height(a), h = LINES - 2 - top, x = 3, total = COLS - 6;
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
	tui_draw_rule(&a->paint, top + h - 2 - detail, 1, COLS - 2);
	if (a->top + rows < (int)n) {
		/* On the rule, never over a row. */
		char more[64];
		snprintf(more, sizeof more, " %d more%s ",
			 (int)n - a->top - rows, a->paint.g->ellipsis);
		int mw = (int)tui_format_columns(more);
		tui_draw_text(&a->paint, top + h - 2 - detail, COLS - 4 - mw, mw,
			      TUI_ROLE_DIM, more);
	}
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
	tui_draw_footer(&a->paint, a->read_only ? dash_keys_read_only
						   : dash_keys);
}

/* A change this user may not make: the refusal and the whole command to
 * type instead, wrapped and never cut, with nothing to retry. */
static void show_refusal(tui_app *a, const char *title, const char *msg,
			 const char *fix)
{
	char text[TUI_DIALOG_TEXT];
	/* The line to type first: on a short screen the rest scrolls. */
	if (fix[0])
		snprintf(text, sizeof text,
			 "You may read this box, not change it.\n\nfix: %s\n\n%s",
			 fix, msg);
	else
		snprintf(text, sizeof text, "%s", msg);
	tui_dialog_open(a, TUI_ASK_NONE, title, text);
}

/* "May I?" before any question (app_may_change): 0, or the refusal shown
 * and -1.  command as the CLI spells it ("plugins install NAME"). */
static int may_change(tui_app *a, const char *command, const char *title)
{
	char msg[PYRT_ERROR_MSG_MAX + 1024], fix[2048];
	if (app_may_change(a->opts, command, msg, sizeof msg, fix,
			   sizeof fix) == 0)
		return 0;
	show_refusal(a, title, msg, fix);
	return -1;
}

/* Where pip will get packages from, in the words of the consent. */
static void pip_source(const tui_app *a, char *buf, size_t len)
{
	if (a->opts->wheelhouse)
		snprintf(buf, len, "from: the wheelhouse %s (no network)",
			 a->opts->wheelhouse);
	else
		snprintf(buf, len,
			 "from: the package index, over the network (pip, as the install's baseline step)");
}

/* `i`'s question: which packages, from where, into what. */
static void ask_plugin(tui_app *a, const pyrt_plugin *pl)
{
	char missing[1024], src[4200], text[TUI_DIALOG_TEXT];
	tui_plugin_missing(pl, 1, missing, sizeof missing);
	pip_source(a, src, sizeof src);
	snprintf(text, sizeof text,
		 "Install the requirements of %s with the runtime's pip?\n\n"
		 "missing: %s\n%s\ninto: the managed runtime at %s",
		 pl->name, missing[0] ? missing : "(see the plugin's requires_pip)",
		 src, a->status->path);
	snprintf(a->ask_arg, sizeof a->ask_arg, "%s", pl->name);
	tui_dialog_open(a, TUI_ASK_PLUGIN, "Plugin install", text);
}

/* `b`'s question. */
static void ask_baseline(tui_app *a)
{
	char list[1024] = "", src[4200], text[TUI_DIALOG_TEXT];
	size_t n = pyrt_pins_baseline_count(a->pins);
	for (size_t i = 0; i < n; i++)
		app_cat(list, sizeof list, "%s%s", i ? ", " : "",
		    pyrt_pins_baseline_at(a->pins, i));
	pip_source(a, src, sizeof src);
	snprintf(text, sizeof text,
		 "Install the doc-library baseline again with the runtime's pip?\n\n"
		 "what: %s\n%s\ninto: the managed runtime at %s",
		 a->opts->requirements ? a->opts->requirements : list, src,
		 a->status->path);
	tui_dialog_open(a, TUI_ASK_BASELINE, "Baseline", text);
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
	else {
		char cmd[300];
		snprintf(cmd, sizeof cmd, "plugins install %s", pl->name);
		if (may_change(a, cmd, "Plugin install") == 0)
			ask_plugin(a, pl);
	}
}

static int runtime_ready(const tui_app *a)
{
	return a->status && a->status->state == PYRT_STATE_READY;
}

/* `I`: the wizard; on a ready runtime its consent is to reinstall. */
static void open_installer(tui_app *a)
{
	if (may_change(a, "install", "Install") != 0)
		return;
	a->force_reinstall = runtime_ready(a) && a->plugins &&
			     pyrt_plugins_runtime_ready(a->plugins);
	tui_app_wizard(a);
	a->force_reinstall = 0;
}

/* Enter: the selected plugin's whole text, every requirement and the
 * fix, none of it cut. */
static void plugin_details(tui_app *a)
{
	char text[TUI_DIALOG_TEXT], title[300];
	if (!a->plugins || !pyrt_plugins_count(a->plugins))
		return;
	const pyrt_plugin *pl = pyrt_plugins_at(a->plugins, (size_t)a->sel);
	int ready = pyrt_plugins_runtime_ready(a->plugins);
	char deps[64];
	app_plugin_deps(pl, ready, deps, sizeof deps);
	snprintf(text, sizeof text, "verdict: %s (deps: %s)\n",
		 pyrt_verdict_name(pl->verdict), deps);
	for (size_t i = 0; i < pl->require_count; i++) {
		const pyrt_requirement *q = &pl->requires[i];
		app_cat(text, sizeof text, "requires %s: %s%s%s\n", q->spec,
		    q->installed ? "installed " : "not installed",
		    q->installed ? q->installed : "",
		    q->conflict ? " (outside the specifier)" : "");
	}
	if (pl->error)
		app_cat(text, sizeof text, "error: %s\n", pl->error);
	app_cat(text, sizeof text, "fix: %s", pl->fix ? pl->fix : "none needed");
	if (pl->verdict == PYRT_VERDICT_MISSING_DEPS && ready)
		app_cat(text, sizeof text, " (i here does it)");
	else if (pl->verdict == PYRT_VERDICT_NEEDS_RUNTIME)
		app_cat(text, sizeof text, " (I here installs the runtime)");
	snprintf(title, sizeof title, "Plugin %s", pl->name);
	tui_dialog_open(a, TUI_ASK_NONE, title, text);
}

/* The question app/ words (app_box_consent) in a dialog, after its
 * preconditions: refused, nothing to do, or asked. */
static void ask_box_change(tui_app *a, int rc, const app_box_consent *c,
			   tui_ask ask, const char *title)
{
	char text[TUI_DIALOG_TEXT];
	if (rc < 0) {
		show_refusal(a, title, c->msg, c->fix);
		return;
	}
	if (rc == 0) {
		tui_app_notice(a, TUI_ROLE_WARN, "%s", c->msg);
		return;
	}
	snprintf(text, sizeof text, "%s\n", c->question);
	for (int i = 0; i < APP_BOX_FACTS; i++)
		app_cat(text, sizeof text, "\n%s: %s", c->label[i],
			c->value[i]);
	tui_dialog_open(a, ask, title, text);
}

/* `R`: the previous runtime must exist; the question names it. */
static void ask_rollback(tui_app *a)
{
	app_box_consent *c = calloc(1, sizeof *c);
	if (!c) {
		tui_app_notice(a, TUI_ROLE_ERROR, "out of memory");
		return;
	}
	ask_box_change(a, app_rollback_consent(a->opts, c), c,
		       TUI_ASK_ROLLBACK, "Rollback");
	free(c);
}

/* `U`: as `pyrt uninstall` asks, in the dialog. */
static void ask_uninstall(tui_app *a)
{
	app_box_consent *c = calloc(1, sizeof *c);
	if (!c) {
		tui_app_notice(a, TUI_ROLE_ERROR, "out of memory");
		return;
	}
	ask_box_change(a, app_uninstall_consent(a->opts, c), c,
		       TUI_ASK_UNINSTALL, "Uninstall");
	free(c);
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
	case TUI_KEY_ENTER_LF: case TUI_KEY_ENTER_CR: case KEY_ENTER:
		plugin_details(a);
		break;
	case 'R': ask_rollback(a); break;
	case 'U': ask_uninstall(a); break;
	case 'B':
		a->bundle_after_doctor = 1;
		if (tui_app_run(a, TUI_JOB_DOCTOR, NULL) != 0)
			a->bundle_after_doctor = 0;
		break;
	case 'b':
		if (runtime_ready(a)) {
			if (may_change(a, "baseline", "Baseline") == 0)
				ask_baseline(a);
		}
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
