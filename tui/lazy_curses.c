/*
 * The curses functions and globals tui/ uses, forwarded to libncursesw.so.6
 * loaded when the TUI starts (core/util/lazylib.h says why: ncursesw and its
 * libtinfo were a tenth of every start's loader time, while status,
 * plugins, --help and --version never draw).  Each function takes its
 * prototype from <curses.h>; the five globals are reached through
 * provide_curses.h's macros.  A function tui/ starts to call must be added
 * here (the link fails until it is).
 */
#define TUI_LAZY_CURSES_SELF 1
#include "tui/provide_curses.h"

#include "core/util/lazy_loader.h"

#define CURSES_SYMS(X) \
	X(clearok) X(curs_set) X(curses_version) X(delscreen) X(doupdate) \
	X(endwin) X(has_colors) X(init_pair) X(keypad) X(newterm) \
	X(nodelay) X(noecho) X(nonl) X(raw) X(set_escdelay) X(set_term) \
	X(start_color) X(use_default_colors) X(waddnstr) X(wattrset) \
	X(wbkgdset) X(werase) X(wgetch) X(whline) X(wmove) X(wnoutrefresh) \
	X(COLORS) X(COLS) X(LINES) X(curscr) X(stdscr)

LAZY_LIB_DEFINE(curses_lib, CURSES_SYMS, "libncursesw.so.6", "PYRT_TEST_LIBNCURSES",
		"libncursesw6");

int tui_lazy_curses(pyrt_error *err)
{
	return pyrt_lazy_lib_load(&curses_lib) ? 0
					  : pyrt_lazy_lib_error(&curses_lib, err);
}

#define F(name) (pyrt_lazy_lib_need(&curses_lib), LAZY_FN(curses_lib_table, name))
#define V(type, name) \
	(pyrt_lazy_lib_need(&curses_lib), (type *)curses_lib_table[LAZY_I_##name])

int *tui_curses_COLS(void) { return V(int, COLS); }
int *tui_curses_LINES(void) { return V(int, LINES); }
int *tui_curses_COLORS(void) { return V(int, COLORS); }
WINDOW **tui_curses_stdscr(void) { return V(WINDOW *, stdscr); }
WINDOW **tui_curses_curscr(void) { return V(WINDOW *, curscr); }

/* The names in parentheses: curses.h may make any of them a macro. */
int (clearok)(WINDOW *w, bool b) { return F(clearok)(w, b); }
int (curs_set)(int v) { return F(curs_set)(v); }
const char *(curses_version)(void) { return F(curses_version)(); }
void (delscreen)(SCREEN *s) { F(delscreen)(s); }
int (doupdate)(void) { return F(doupdate)(); }
int (endwin)(void) { return F(endwin)(); }
bool (has_colors)(void) { return F(has_colors)(); }
int (init_pair)(NCURSES_PAIRS_T p, NCURSES_COLOR_T f, NCURSES_COLOR_T b)
{
	return F(init_pair)(p, f, b);
}
int (keypad)(WINDOW *w, bool b) { return F(keypad)(w, b); }
SCREEN *(newterm)(NCURSES_CONST char *t, FILE *o, FILE *i)
{
	return F(newterm)(t, o, i);
}
int (nodelay)(WINDOW *w, bool b) { return F(nodelay)(w, b); }
int (noecho)(void) { return F(noecho)(); }
int (nonl)(void) { return F(nonl)(); }
int (raw)(void) { return F(raw)(); }
int (set_escdelay)(int ms) { return F(set_escdelay)(ms); }
SCREEN *(set_term)(SCREEN *s) { return F(set_term)(s); }
int (start_color)(void) { return F(start_color)(); }
int (use_default_colors)(void) { return F(use_default_colors)(); }
int (waddnstr)(WINDOW *w, const char *s, int n) { return F(waddnstr)(w, s, n); }
int (wattrset)(WINDOW *w, int a) { return F(wattrset)(w, a); }
void (wbkgdset)(WINDOW *w, chtype c) { F(wbkgdset)(w, c); }
int (werase)(WINDOW *w) { return F(werase)(w); }
int (wgetch)(WINDOW *w) { return F(wgetch)(w); }
int (whline)(WINDOW *w, chtype c, int n) { return F(whline)(w, c, n); }
int (wmove)(WINDOW *w, int y, int x) { return F(wmove)(w, y, x); }
int (wnoutrefresh)(WINDOW *w) { return F(wnoutrefresh)(w); }
