/*
 * Drawing primitives shared by the screens: the glyph set for the locale
 * (UTF-8 box drawing and marks, or plain ASCII), theme roles turned into
 * curses attributes, and text, boxes, bars, buttons and bars of keys that
 * always fit the width they are given.  Everything draws into stdscr; the
 * main loop flushes once per frame.
 */
#ifndef PYRT_TUI_DRAW_H
#define PYRT_TUI_DRAW_H

#include <stdint.h>

#include "tui/provide_curses.h"
#include "tui/theme.h"

typedef struct tui_glyphs {
	const char *h, *v, *tl, *tr, *bl, *br, *lt, *rt;  /* box drawing */
	const char *ok, *fail, *pending, *skip, *warn;    /* step marks */
	const char *spin[10];
	int nspin;
	const char *bar_full, *bar_empty;
	const char *eighths[8];   /* partial cells; [0] unused */
	const char *ellipsis, *times, *dash, *dot, *sel;
} tui_glyphs;

/* What every draw call needs: the glyphs and the roles' attributes. */
typedef struct tui_paint {
	int utf8;
	int color;                         /* colours in use */
	const tui_glyphs *g;
	attr_t role[TUI_ROLE__COUNT];
} tui_paint;

/* The glyph set for a UTF-8 locale or for anything else (ASCII only). */
const tui_glyphs *tui_draw_glyphs(int utf8);

/*
 * Turn a theme into attributes (and colour pairs when p->color): each
 * role gets pair role+1, colours beyond the terminal's fall back to the
 * nearest basic one, and a role's "default" background is the background
 * role's.  Also sets stdscr's background.
 */
void tui_draw_apply_theme(tui_paint *p, const tui_theme *t);

/* Text at (y, x) cut to width columns (end cut); returns columns used. */
int tui_draw_text(const tui_paint *p, int y, int x, int width, tui_role role,
		  const char *s);

/* As tui_draw_text, cutting the middle (for paths). */
int tui_draw_path(const tui_paint *p, int y, int x, int width, tui_role role,
		  const char *s);

/* s wrapped at spaces into at most maxlines rows of width columns from
 * (y, x); returns the rows used. */
int tui_draw_wrap(const tui_paint *p, int y, int x, int width, int maxlines,
		  tui_role role, const char *s);

/* A path cut into rows of width columns from (y, x), nothing left out
 * (when it needs more than maxlines rows, the last row cuts its middle);
 * returns the rows used. */
int tui_draw_path_wrap(const tui_paint *p, int y, int x, int width,
		       int maxlines, tui_role role, const char *s);

/* Rows tui_draw_path_wrap needs for s at width (at least 1). */
int tui_draw_path_rows(const tui_paint *p, int width, const char *s);

/* width blanks in role's attributes. */
void tui_draw_fill(const tui_paint *p, int y, int x, int width, tui_role role);

/* A box with an optional title in its top border; the inside is not
 * touched. */
void tui_draw_box(const tui_paint *p, int y, int x, int h, int w,
		  const char *title);

/* A separator across a box at row y: ├────┤. */
void tui_draw_rule(const tui_paint *p, int y, int x, int w);

/* The title bar (row 0): left text, right text. */
void tui_draw_titlebar(const tui_paint *p, const char *left,
		       const char *right);

/*
 * The key footer (last row): items are pairs {key, label, key, label,
 * ..., NULL}, shown as "key label  key label" as far as they fit.
 */
void tui_draw_footer(const tui_paint *p, const char *const *items);

/* "[ Install ]", in the selection role when selected; returns width. */
int tui_draw_button(const tui_paint *p, int y, int x, const char *label,
		    int selected);

/* A bar of width cells for done of total. */
void tui_draw_bar(const tui_paint *p, int y, int x, int width, uint64_t done,
		  uint64_t total);

/* A centred dialog box of h×w, its inside cleared; returns its top row and
 * left column through y and x. */
void tui_draw_dialog(const tui_paint *p, int h, int w, const char *title,
		     int *y, int *x);

#endif
