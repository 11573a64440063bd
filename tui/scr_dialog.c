/*
 * Two dialogs over any screen.  The question: what a key is about to do
 * (pip from the network, a rollback, an uninstall, a support bundle), and
 * only y does it; every other key says no and changes nothing, as a
 * declined consent does.  The details: the whole text of a focused row
 * (a plugin's requirements and fix, a doctor check's detail and fix),
 * wrapped, never cut, scrolled when it is longer than the screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/text.h"
#include "tui/loop.h"
#include "tui/format.h"

#define DLG_LINES 512

void tui_dialog_open(tui_app *a, tui_ask ask, const char *title,
		     const char *text)
{
	a->ask = ask;
	a->details = ask == TUI_ASK_NONE;
	a->dlg_top = 0;
	snprintf(a->dlg_title, sizeof a->dlg_title, "%s", title);
	snprintf(a->dlg_text, sizeof a->dlg_text, "%s", text);
	a->full = 1;
}

/* The dialog's text cleaned, one paragraph a line, each wrapped to width:
 * line i is clean[start[i]] .. +len[i].  Returns the number of lines. */
static size_t dialog_lines(const tui_app *a, char *clean, size_t cleanlen,
			   int width, size_t *start, size_t *len)
{
	size_t n = 0, off = 0;
	snprintf(clean, cleanlen, "%s", a->dlg_text);
	while (n < DLG_LINES) {
		char *nl = strchr(clean + off, '\n');
		if (nl)
			*nl = '\0';
		/* Cleaned in place, each paragraph on its own (the cleaner
		 * would turn the '\n' into a space). */
		pyrt_sanitize(clean + off, a->paint.utf8, clean + off,
			      strlen(clean + off) + 1);
		size_t got = tui_format_wrap(clean + off, (size_t)width,
					     start + n, len + n, DLG_LINES - n);
		for (size_t i = n; i < n + got; i++)
			start[i] += off;
		if (!got && n < DLG_LINES) { /* an empty paragraph: a blank line */
			start[n] = off;
			len[n] = 0;
			got = 1;
		}
		n += got;
		if (!nl)
			break;
		off = (size_t)(nl - clean) + 1;
	}
	return n;
}

void tui_dialog_draw(tui_app *a)
{
	static char clean[TUI_DIALOG_TEXT];
	static size_t start[DLG_LINES], len[DLG_LINES];
	int w = COLS - 4 < 76 ? COLS - 4 : 76;
	int inner = w - 4;
	size_t n = dialog_lines(a, clean, sizeof clean, inner, start, len);
	int room = LINES - 6;      /* borders, hint, a row above and below */
	int shown = (int)n < room ? (int)n : room;
	int y, x;
	a->dlg_lines = (int)n;
	if (a->dlg_top > (int)n - shown)
		a->dlg_top = (int)n - shown;
	if (a->dlg_top < 0)
		a->dlg_top = 0;
	tui_draw_dialog(&a->paint, shown + 4, w, a->dlg_title, &y, &x);
	char line[TUI_DIALOG_TEXT];
	for (int i = 0; i < shown; i++) {
		size_t at = (size_t)(a->dlg_top + i);
		snprintf(line, sizeof line, "%.*s", (int)len[at], clean + start[at]);
		tui_draw_text(&a->paint, y + 1 + i, x + 2, inner,
			      a->ask && at == 0 ? TUI_ROLE_WARN : TUI_ROLE_TEXT,
			      line);
	}
	char hint[160];
	if (a->ask)
		snprintf(hint, sizeof hint, "y: yes   n/Esc/any other key: no");
	else if ((int)n > shown)
		snprintf(hint, sizeof hint, "Up/Down scroll (%d-%d of %zu)  Esc/Enter close",
			 a->dlg_top + 1, a->dlg_top + shown, n);
	else
		snprintf(hint, sizeof hint, "Esc/Enter close");
	tui_draw_text(&a->paint, y + shown + 2, x + 2, inner, TUI_ROLE_DIM,
		      hint);
}

/* y answers a question; Up/Down scroll the details; other keys close. */
void tui_dialog_key(tui_app *a, int ch)
{
	a->full = 1;
	if (a->details) {
		switch (ch) {
		case KEY_UP: case 'k': a->dlg_top--; return;
		case KEY_DOWN: case 'j': a->dlg_top++; return;
		case KEY_PPAGE: a->dlg_top -= LINES / 2; return;
		case KEY_NPAGE: case ' ': a->dlg_top += LINES / 2; return;
		}
		a->details = 0;
		return;
	}
	tui_ask ask = a->ask;
	a->ask = TUI_ASK_NONE;
	if (ch == 'y' || ch == 'Y') {
		tui_ask_yes(a, ask);
		return;
	}
	tui_app_notice(a, TUI_ROLE_WARN, "%s cancelled; nothing was changed",
		       a->dlg_title);
}

void tui_ask_yes(tui_app *a, tui_ask ask)
{
	switch (ask) {
	case TUI_ASK_PLUGIN:
		tui_app_run_confirmed(a, TUI_JOB_PLUGIN, a->ask_arg);
		break;
	case TUI_ASK_BASELINE:
		tui_app_run_confirmed(a, TUI_JOB_BASELINE, NULL);
		break;
	case TUI_ASK_ROLLBACK:
		tui_app_run_confirmed(a, TUI_JOB_ROLLBACK, NULL);
		break;
	case TUI_ASK_UNINSTALL:
		tui_app_run_confirmed(a, TUI_JOB_UNINSTALL, NULL);
		break;
	case TUI_ASK_BUNDLE:
		tui_app_run_confirmed(a, TUI_JOB_BUNDLE, a->ask_arg);
		break;
	case TUI_ASK_NONE:
		break;
	}
}
