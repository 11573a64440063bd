/*
 * The one place that includes the curses headers (htop's ProvideCurses.h):
 * every other tui/ file includes this instead, and nothing outside tui/
 * includes curses at all.  The wide-character API is needed for UTF-8
 * glyphs, so ncursesw is asked for explicitly.
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

#endif
