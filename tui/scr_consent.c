/*
 * The install's consent: what will happen (what, from where, to where,
 * how big, which digest, how much disk is free), before anything is
 * fetched; only a yes starts the install.
 */
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/install.h"
#include "core/util/clock.h"
#include "tui/loop.h"

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

static void fact(tui_app *a, int y, int x, int w, const app_install_facts *f,
		 app_fact_id id, tui_role role, int path)
{
	field(a, y, x, w, f->label[id], f->value[id], role, path);
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
	app_install_facts f; /* the words; this screen only lays them out */
	app_install_facts_fill(a->opts, a->pins, p, &f);
	char buf[4400];
	tui_app_titlebar(a, "Install the managed Python runtime");
	int bx = 2, bw = COLS - 4, x = bx + 2, w = bw - 4;
	consent_layout l = consent_layout_for(a, w);
	if (!l.compact)
		tui_draw_text(&a->paint, 2, 2, COLS - 4, TUI_ROLE_TEXT,
			      f.headline);
	int rows = 5 + (a->full_sha ? 2 : 1) + l.dest_rows - 1 + l.platform +
		   l.url + l.free_disk;
	int by = l.by;
	tui_draw_box(&a->paint, by, bx, rows + 2, bw, "What will happen");
	int y = by + 1;
	fact(a, y++, x, w, &f, APP_FACT_RUNTIME, TUI_ROLE_ACCENT, 0);
	if (l.platform)
		fact(a, y++, x, w, &f, APP_FACT_PLATFORM, TUI_ROLE_TEXT, 0);
	fact(a, y++, x, w, &f, APP_FACT_DOWNLOAD, TUI_ROLE_TEXT, 0);
	/* A narrow screen names the URL's host on the Source row and the
	 * whole URL below it when there is room. */
	if (a->opts->from_file || !p->host[0])
		fact(a, y++, x, w, &f, APP_FACT_SOURCE, TUI_ROLE_TEXT, 1);
	else
		field(a, y++, x, w, f.label[APP_FACT_SOURCE], p->host,
		      TUI_ROLE_TEXT, 1);
	if (l.url)
		field(a, y++, x, w, "URL", a->opts->from_file ? "-" : p->url,
		      TUI_ROLE_DIM, 1);
	tui_draw_text(&a->paint, y, x, 13, TUI_ROLE_DIM,
		      f.label[APP_FACT_DESTINATION]);
	y += tui_draw_path_wrap(&a->paint, y, x + 13, w - 13, l.dest_rows,
				TUI_ROLE_TEXT, f.value[APP_FACT_DESTINATION]);
	const char *sha = f.value[APP_FACT_SHA256];
	if (a->full_sha) {
		snprintf(buf, sizeof buf, "%.32s", sha);
		field(a, y++, x, w, f.label[APP_FACT_SHA256], buf,
		      TUI_ROLE_TEXT, 0);
		field(a, y++, x, w, "", strlen(sha) > 32 ? sha + 32 : "",
		      TUI_ROLE_TEXT, 0);
	} else {
		snprintf(buf, sizeof buf, "%.16s%s  (f: show full)", sha,
			 a->paint.g->ellipsis);
		field(a, y++, x, w, f.label[APP_FACT_SHA256], buf,
		      TUI_ROLE_TEXT, 0);
	}
	if (l.free_disk)
		fact(a, y++, x, w, &f, APP_FACT_FREE_DISK,
		     f.free_disk_low ? TUI_ROLE_WARN : TUI_ROLE_TEXT, 0);
	fact(a, y++, x, w, &f, APP_FACT_BASELINE, TUI_ROLE_TEXT, 0);
	y = by + rows + 2 + !l.compact;
	tui_draw_text(&a->paint, y, 2, COLS - 4, TUI_ROLE_DIM,
		      "Nothing has been downloaded or written yet.");
	int bxl = COLS / 2 - 14;
	y += l.compact ? 1 : 2;
	tui_draw_button(&a->paint, y, bxl, "Install", a->consent_sel == 0);
	tui_draw_button(&a->paint, y, bxl + 16, "Cancel", a->consent_sel == 1);
	tui_draw_footer(&a->paint, keys);
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
