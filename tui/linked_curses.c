/*
 * A PYRT_LAZY=OFF build links libncursesw (CMakeLists.txt) and leaves out
 * lazy_curses.c: the globals provide_curses.h reaches through accessors are
 * the library's own.
 */
#define TUI_LAZY_CURSES_SELF 1
#include "tui/provide_curses.h"

int tui_lazy_curses(pyrt_error *err)
{
	(void)err;
	return 0;
}

int *tui_curses_COLS(void) { return &COLS; }
int *tui_curses_LINES(void) { return &LINES; }
int *tui_curses_COLORS(void) { return &COLORS; }
WINDOW **tui_curses_stdscr(void) { return &stdscr; }
WINDOW **tui_curses_curscr(void) { return &curscr; }
