/*
 * The curses library's own version string, for `pyrt --version`: only tui/
 * may include the curses headers.
 */
#include "tui/tui.h"

#include "tui/provide_curses.h"

#define TUI_STR_(x) #x
#define TUI_STR(x) TUI_STR_(x)
#define NCURSES_VERSION_PATCH_STR TUI_STR(NCURSES_VERSION_PATCH)

/* The version built against: asking the library would load it into a
 * command that only prints (lazy_curses.c). */
const char *tui_curses_version(void)
{
	return "ncurses " NCURSES_VERSION "." NCURSES_VERSION_PATCH_STR
	       " (loaded when used)";
}
