/*
 * The one place that includes the curses headers (htop's ProvideCurses.h):
 * every other tui/ file includes this instead, and nothing outside tui/
 * includes curses at all.  The wide-character API is needed for UTF-8
 * glyphs, so ncursesw is asked for explicitly.  The library itself is
 * loaded when the TUI starts (lazy_curses.c), so its five globals are
 * macros over accessors here.
 */
#ifndef PYRT_TUI_PROVIDE_CURSES_H
#define PYRT_TUI_PROVIDE_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#include "core/util/error.h"

/* libncursesw is dlopen()ed when the TUI starts (lazy_curses.c): 0, or
 * PYRT_E_UNSUPPORTED naming the library and its Debian package. */
int tui_lazy_curses(pyrt_error *err);

/* Its globals, in the loaded library. */
int *tui_curses_COLS(void);
int *tui_curses_LINES(void);
int *tui_curses_COLORS(void);
WINDOW **tui_curses_stdscr(void);
WINDOW **tui_curses_curscr(void);
#ifndef TUI_LAZY_CURSES_SELF
#undef COLS
#undef LINES
#undef COLORS
#undef stdscr
#undef curscr
#define COLS (*tui_curses_COLS())
#define LINES (*tui_curses_LINES())
#define COLORS (*tui_curses_COLORS())
#define stdscr (*tui_curses_stdscr())
#define curscr (*tui_curses_curscr())
#endif

#endif
