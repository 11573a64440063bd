/*
 * The keys overlay (?) over the dashboard.
 */
#include <string.h>

#include "tui/loop.h"

/* `?`: every dashboard key, including those the footer has no room for.
 * Each description fits the 41 columns a 60-column terminal leaves; when
 * the rows are short (60x16) the closing hint moves into the title so
 * that no key is cut off. */
void tui_help_draw(tui_app *a)
{
	static const char *const lines[][2] = {
		{ "Up/Down j/k", "move between plugins" },
		{ "Enter", "the selected plugin's whole text and fix" },
		{ "i", "install the plugin's missing requirements" },
		{ "b", "rerun the doc-library baseline" },
		{ "I", "install, repair or reinstall the runtime" },
		{ "s", "smoke test: write and check a real .docx" },
		{ "d", "doctor: every check with its fix" },
		{ "B", "support bundle: doctor, logs, marker" },
		{ "R", "roll back to the previous runtime" },
		{ "U", "uninstall the managed runtime" },
		{ "l", "logs (/ search, w wrap, Tab next log)" },
		{ "r", "read the state again (it is watched)" },
		{ "t", "next colour theme" },
		{ "q F10", "quit (F1 or ? shows these keys)" },
	};
	/* Another user of root's shared box: the keys that would change it
	 * are refused (the footer leaves them out too). */
	static const char changes[] = "ibIRU";
	const char *shown_lines[sizeof lines / sizeof lines[0]][2];
	int n = 0;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (a->read_only && lines[i][0][1] == '\0' &&
		    strchr(changes, lines[i][0][0]))
			continue;
		shown_lines[n][0] = lines[i][0];
		shown_lines[n++][1] = lines[i][1];
	}
	int y, x, w = COLS - 2 < 72 ? COLS - 2 : 72;
	int roomy = n + 4 <= LINES;
	int h = roomy ? n + 4 : n + 2 < LINES ? n + 2 : LINES;
	int shown = h - (roomy ? 4 : 2);
	tui_draw_dialog(&a->paint, h, w, roomy ? "Keys" : "Keys (any key closes)",
			&y, &x);
	for (int i = 0; i < shown; i++) {
		tui_draw_text(&a->paint, y + 1 + i, x + 2, 12,
			      TUI_ROLE_ACCENT, shown_lines[i][0]);
		tui_draw_text(&a->paint, y + 1 + i, x + 15, w - 17,
			      TUI_ROLE_TEXT, shown_lines[i][1]);
	}
	if (roomy)
		tui_draw_text(&a->paint, y + shown + 2, x + 2, w - 4,
			      TUI_ROLE_DIM, "any key closes this help");
}
