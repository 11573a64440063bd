/*
 * The first screen: a spinner while the runtime's state is read.
 */
#include <stdio.h>

#include "tui/loop.h"

void tui_loading_draw(tui_app *a)
{
	static const char *const keys[] = { "q", "quit", NULL };
	char line[128];
	if (a->full) {
		tui_app_titlebar(a, "Managed Python runtime");
		tui_draw_footer(&a->paint, keys);
	}
	snprintf(line, sizeof line, "%s Reading the runtime's state%s",
		 tui_app_spinner(a), a->paint.g->ellipsis);
	tui_draw_text(&a->paint, LINES / 2, (COLS - 32) / 2, 40,
		      TUI_ROLE_TEXT, line);
}
