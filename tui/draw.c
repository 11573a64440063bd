/*
 * Drawing primitives.  Text from outside is sanitised and cut to fit
 * before it reaches curses, so no screen can wrap a line into the next
 * row, and in a non-UTF-8 locale no UTF-8 byte is ever written (boxes are
 * drawn with + - | rather than the alternate character set, which tmux and
 * screen logs show as "lqqk").
 */
#include "tui/draw.h"

#include <stdio.h>
#include <string.h>

#include "app/text.h"
#include "tui/format.h"

#define TEXT_MAX 4096

static const tui_glyphs utf8_glyphs = {
	.h = "─", .v = "│", .tl = "┌", .tr = "┐", .bl = "└", .br = "┘",
	.lt = "├", .rt = "┤",
	.ok = "✓", .fail = "✗", .pending = "·", .skip = "–", .warn = "!",
	.spin = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" },
	.nspin = 10,
	.bar_full = "█", .bar_empty = "░",
	.eighths = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" },
	.ellipsis = "…", .times = "×", .dash = "—", .dot = "·", .sel = "▶",
};

static const tui_glyphs ascii_glyphs = {
	.h = "-", .v = "|", .tl = "+", .tr = "+", .bl = "+", .br = "+",
	.lt = "+", .rt = "+",
	.ok = "+", .fail = "x", .pending = ".", .skip = "-", .warn = "!",
	.spin = { "|", "/", "-", "\\" },
	.nspin = 4,
	.bar_full = "#", .bar_empty = ".",
	.eighths = { "", "", "", "", "", "", "", "" },
	.ellipsis = "...", .times = "x", .dash = "-", .dot = "-", .sel = ">",
};

const tui_glyphs *tui_draw_glyphs(int utf8)
{
	return utf8 ? &utf8_glyphs : &ascii_glyphs;
}

static attr_t curses_attrs(unsigned a)
{
	attr_t out = A_NORMAL;
	if (a & TUI_ATTR_BOLD)
		out |= A_BOLD;
	if (a & TUI_ATTR_REVERSE)
		out |= A_REVERSE;
	if (a & TUI_ATTR_UNDERLINE)
		out |= A_UNDERLINE;
	if (a & TUI_ATTR_DIM)
		out |= A_DIM;
	return out;
}

void tui_draw_apply_theme(tui_paint *p, const tui_theme *t)
{
	const tui_style *bg = &t->roles[TUI_ROLE_BACKGROUND];
	for (int r = 0; r < TUI_ROLE__COUNT; r++) {
		const tui_style *s = &t->roles[r];
		attr_t a = curses_attrs(s->attrs);
		if (p->color) {
			int bold_fg = 0, bold_bg = 0;
			int fg = s->fg == TUI_COLOR_DEFAULT ? bg->fg : s->fg;
			int b = s->bg == TUI_COLOR_DEFAULT ? bg->bg : s->bg;
			fg = tui_theme_fallback_color(fg, COLORS, &bold_fg);
			b = tui_theme_fallback_color(b, COLORS, &bold_bg);
			init_pair((short)(r + 1), (short)fg, (short)b);
			a |= COLOR_PAIR(r + 1);
			if (bold_fg)
				a |= A_BOLD;
		}
		p->role[r] = a;
	}
	bkgdset(p->role[TUI_ROLE_BACKGROUND] | ' ');
}

/* Sanitise for the locale, then cut to fit; out has TEXT_MAX bytes. */
static void fit(const tui_paint *p, const char *s, int width, int middle,
		char *out)
{
	char clean[TEXT_MAX];
	pyrt_sanitize(s ? s : "", p->utf8, clean, sizeof clean);
	if (middle)
		tui_format_trunc_middle(clean, (size_t)width, p->utf8, out,
					TEXT_MAX);
	else
		tui_format_trunc_end(clean, (size_t)width, p->utf8, out,
				     TEXT_MAX);
}

/* Every text draw ends here: clipped to the screen and to width. */
static int put(const tui_paint *p, int y, int x, int width, tui_role role,
	       const char *s, int middle)
{
	char out[TEXT_MAX];
	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	fit(p, s, width, middle, out);
	attrset(p->role[role]);
	mvaddstr(y, x, out);
	return (int)tui_format_columns(out);
}

int tui_draw_text(const tui_paint *p, int y, int x, int width, tui_role role,
		  const char *s)
{
	return put(p, y, x, width, role, s, 0);
}

int tui_draw_path(const tui_paint *p, int y, int x, int width, tui_role role,
		  const char *s)
{
	return put(p, y, x, width, role, s, 1);
}

/*
 * Rows of s at most maxlines high: words wrapped (text) or cut into exact
 * column pieces (path).  When rows run out, the last one shows that more
 * was cut: text keeps its start, a path keeps its end in view.
 */
static int draw_rows(const tui_paint *p, int y, int x, int width, int maxlines,
		     tui_role role, const char *s, int path)
{
	char clean[TEXT_MAX], line[TEXT_MAX];
	size_t start[32], len[32];
	if (maxlines > 32)
		maxlines = 32;
	if (width <= 0 || maxlines <= 0)
		return 0;
	pyrt_sanitize(s ? s : "", p->utf8, clean, sizeof clean);
	size_t need = path ? tui_format_chunks(clean, (size_t)width, start, len,
					       (size_t)maxlines)
			   : tui_format_wrap(clean, (size_t)width, start, len,
					     (size_t)maxlines);
	size_t n = need < (size_t)maxlines ? need : (size_t)maxlines;
	for (size_t i = 0; i < n; i++) {
		int cut = path ? need > n
			       : start[i] + len[i] < strlen(clean) &&
					 tui_format_columns(clean + start[i]) >
						 (size_t)width;
		if (i + 1 == n && cut) {
			put(p, y + (int)i, x, width, role, clean + start[i], path);
			continue;
		}
		snprintf(line, sizeof line, "%.*s", (int)len[i], clean + start[i]);
		tui_draw_text(p, y + (int)i, x, width, role, line);
	}
	return path && !n ? 1 : (int)n;
}

int tui_draw_wrap(const tui_paint *p, int y, int x, int width, int maxlines,
		  tui_role role, const char *s)
{
	return draw_rows(p, y, x, width, maxlines, role, s, 0);
}

int tui_draw_path_rows(const tui_paint *p, int width, const char *s)
{
	char clean[TEXT_MAX];
	if (width <= 0)
		return 1;
	pyrt_sanitize(s ? s : "", p->utf8, clean, sizeof clean);
	size_t n = tui_format_chunks(clean, (size_t)width, NULL, NULL, 0);
	return n ? (int)n : 1;
}

int tui_draw_path_wrap(const tui_paint *p, int y, int x, int width,
		       int maxlines, tui_role role, const char *s)
{
	return draw_rows(p, y, x, width, maxlines, role, s, 1);
}

void tui_draw_fill(const tui_paint *p, int y, int x, int width, tui_role role)
{
	if (y < 0 || y >= LINES || width <= 0)
		return;
	if (x + width > COLS)
		width = COLS - x;
	attrset(p->role[role]);
	mvhline(y, x, ' ', width);
}

/* A glyph repeated n times from (y, x). */
static void repeat(const tui_paint *p, int y, int x, int n, const char *g,
		   tui_role role)
{
	attrset(p->role[role]);
	move(y, x);
	for (int i = 0; i < n; i++)
		addstr(g);
}

void tui_draw_box(const tui_paint *p, int y, int x, int h, int w,
		  const char *title)
{
	const tui_glyphs *g = p->g;
	if (h < 2 || w < 2)
		return;
	attrset(p->role[TUI_ROLE_BORDER]);
	mvaddstr(y, x, g->tl);
	repeat(p, y, x + 1, w - 2, g->h, TUI_ROLE_BORDER);
	addstr(g->tr);
	for (int i = 1; i < h - 1; i++) {
		mvaddstr(y + i, x, g->v);
		mvaddstr(y + i, x + w - 1, g->v);
	}
	mvaddstr(y + h - 1, x, g->bl);
	repeat(p, y + h - 1, x + 1, w - 2, g->h, TUI_ROLE_BORDER);
	addstr(g->br);
	if (title && *title && w > 6) {
		tui_draw_fill(p, y, x + 2, 1, TUI_ROLE_BORDER);
		int used = tui_draw_text(p, y, x + 3, w - 6, TUI_ROLE_ACCENT,
					 title);
		tui_draw_fill(p, y, x + 3 + used, 1, TUI_ROLE_BORDER);
	}
}

void tui_draw_rule(const tui_paint *p, int y, int x, int w)
{
	if (w < 2)
		return;
	attrset(p->role[TUI_ROLE_BORDER]);
	mvaddstr(y, x, p->g->lt);
	repeat(p, y, x + 1, w - 2, p->g->h, TUI_ROLE_BORDER);
	addstr(p->g->rt);
}

void tui_draw_titlebar(const tui_paint *p, const char *left,
		       const char *right)
{
	tui_draw_fill(p, 0, 0, COLS, TUI_ROLE_TITLE);
	int rw = right ? (int)tui_format_columns(right) : 0;
	if (rw > COLS / 2)
		rw = COLS / 2;
	tui_draw_text(p, 0, 1, COLS - rw - 3, TUI_ROLE_TITLE, left);
	if (right && rw)
		tui_draw_text(p, 0, COLS - rw - 1, rw, TUI_ROLE_TITLE, right);
}

/* Columns "key label" takes. */
static int footer_item(const char *const *items, size_t i)
{
	return (int)(tui_format_columns(items[i]) +
		     tui_format_columns(items[i + 1])) + 1;
}

static int footer_draw_item(const tui_paint *p, int y, int x,
			    const char *const *items, size_t i)
{
	int need = footer_item(items, i);
	x += tui_draw_text(p, y, x, need, TUI_ROLE_ACCENT, items[i]);
	x += tui_draw_text(p, y, x, 1, TUI_ROLE_DIM, " ");
	x += tui_draw_text(p, y, x, need, TUI_ROLE_TEXT, items[i + 1]);
	return x;
}

void tui_draw_footer(const tui_paint *p, const char *const *items)
{
	int y = LINES - 1, x = 1, gap = 2, want = 1;
	size_t n = 0;
	tui_draw_fill(p, y, 0, COLS, TUI_ROLE_TEXT);
	for (n = 0; items[n] && items[n + 1]; n += 2)
		want += footer_item(items, n) + gap;
	/* Every key shown beats roomy spacing on an 80-column terminal. */
	if (want - gap > COLS - 1)
		gap = 1;
	/* The last pair (how to leave) is always shown: what does not fit
	 * goes from before it, and `?` lists it all. */
	int last = n >= 2 ? footer_item(items, n - 2) : 0;
	int reserve = want - gap > COLS - 1 ? last + gap : 0;
	for (size_t i = 0; i < n; i += 2) {
		int need = footer_item(items, i);
		if (reserve && i + 2 == n)
			break;
		if (x + need + (reserve && i + 2 < n ? reserve : 0) > COLS - 1)
			break;
		x = footer_draw_item(p, y, x, items, i) + gap;
	}
	if (reserve && x + last <= COLS - 1)
		footer_draw_item(p, y, x, items, n - 2);
}

int tui_draw_button(const tui_paint *p, int y, int x, const char *label,
		    int selected)
{
	char text[128];
	snprintf(text, sizeof text, "[ %s ]", label);
	return tui_draw_text(p, y, x, (int)tui_format_columns(text),
			     selected ? TUI_ROLE_SELECTION : TUI_ROLE_TEXT,
			     text);
}

void tui_draw_bar(const tui_paint *p, int y, int x, int width, uint64_t done,
		  uint64_t total)
{
	int full, eighths;
	tui_format_bar(done, total, width, &full, &eighths);
	repeat(p, y, x, full, p->g->bar_full, TUI_ROLE_PROGRESS);
	int rest = width - full;
	if (eighths && p->g->eighths[eighths][0] && rest > 0) {
		attrset(p->role[TUI_ROLE_PROGRESS]);
		addstr(p->g->eighths[eighths]);
		rest--;
	}
	repeat(p, y, x + width - rest, rest, p->g->bar_empty, TUI_ROLE_DIM);
}

void tui_draw_dialog(const tui_paint *p, int h, int w, const char *title,
		     int *y, int *x)
{
	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	*y = (LINES - h) / 2;
	*x = (COLS - w) / 2;
	for (int i = 0; i < h; i++)
		tui_draw_fill(p, *y + i, *x, w, TUI_ROLE_TEXT);
	tui_draw_box(p, *y, *x, h, w, title);
}
