/*
 * The curses library's own version string, for `pyrt --version`: only tui/
 * may include the curses headers.
 */
#include "tui.h"

#include "provide_curses.h"

const char *tui_curses_version(void)
{
	return curses_version();
}
