/*
 * Pure text helpers for the screens: rates, durations and ETAs,
 * column-aware truncation, progress-bar cells and the column layout of
 * tables.  No curses and no locale here, so the unit tests check them
 * directly.  Sizes are app_human_bytes (app/common.h) and text from
 * outside is cleaned by pyrt_sanitize (app/text.h), as in the CLI.
 *
 * Widths are display columns (app_text_char_width: wcwidth in a UTF-8
 * locale): a CJK character or an emoji takes two, a combining mark none.
 * No cut ever splits a character, and a wide one that does not fit whole
 * is left out rather than drawn half over a border.
 */
#ifndef PYRT_TUI_FORMAT_H
#define PYRT_TUI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "292.4 KiB/s"; "0 B/s" for a rate that is zero, negative or not a
 * number. */
void tui_format_rate(double bytes_per_s, char *buf, size_t len);

/* An estimate: "9s", "1m05s", "2h03m"; "--" when unknown (negative, not
 * a number, infinite) and ">99h" beyond 99 hours. */
void tui_format_eta(double seconds, char *buf, size_t len);

/** The smallest whole number >= x, for 0 <= x < LONG_MAX (libm's ceil()
 *  was pyrt's only use of libm: one library fewer mapped at every start). */
long tui_ceil_nonneg(double x);

/* How long a step took: "0.4s", "12.3s", "1m05s", "2h03m". */
void tui_format_duration(double seconds, char *buf, size_t len);

/* Seconds left at the given rate, or -1 when that cannot be told (no
 * total, no rate, or more done than the total). */
double tui_format_eta_seconds(uint64_t done, uint64_t total, double rate);

/* Whole percent, 0-100 (0 when total is 0). */
int tui_format_percent(uint64_t done, uint64_t total);

/* Columns a UTF-8 string takes on a terminal (see above). */
size_t tui_format_columns(const char *s);

/* Bytes of the longest head of s that fits in cols columns. */
size_t tui_format_head(const char *s, size_t cols);

/* Bytes to skip so that s starts cols columns in (a wide character that
 * straddles the mark is skipped whole): horizontal scrolling. */
size_t tui_format_skip(const char *s, size_t cols);

/*
 * Fit s into width columns by cutting out its middle ("/home/…/current"),
 * which keeps both the root and the file name of a path in view.  The
 * ellipsis is "…" when utf8, else "...".  A width too small for the
 * ellipsis gets the head only.  out always ends with '\0'.
 */
void tui_format_trunc_middle(const char *s, size_t width, int utf8,
			     char *out, size_t outlen);

/* Fit s into width columns by cutting its end ("python-docx, openp…"). */
void tui_format_trunc_end(const char *s, size_t width, int utf8, char *out,
			  size_t outlen);

/* A progress bar of width cells: how many are full, and the eighths of
 * the next one (0-7) for block glyphs. */
void tui_format_bar(uint64_t done, uint64_t total, int width, int *full,
		    int *eighths);

/*
 * Break s into lines of at most width columns at spaces (a word longer
 * than width is split).  Line i is the bytes s[start[i]] .. +len[i], with
 * the breaking spaces left out.  Returns how many lines (at most max; the
 * rest of s is dropped).
 */
size_t tui_format_wrap(const char *s, size_t width, size_t *start,
		       size_t *len, size_t max);

/*
 * Cut s into pieces of exactly width columns (the last may be shorter),
 * keeping every byte, spaces included: a path shown this way can be read
 * and copied whole.  Fills at most max pieces; returns how many s needs.
 */
size_t tui_format_chunks(const char *s, size_t width, size_t *start,
			 size_t *len, size_t max);

/* One column of a table for tui_format_layout. */
typedef struct tui_column {
	int min;   /* below this the column is dropped */
	int want;  /* what its widest cell needs */
	int flex;  /* 1: takes whatever room is left (at most one column) */
} tui_column;

/*
 * Widths for n columns in total columns with gap columns between them.
 * Columns get their minimum first, then, in order, up to what they want;
 * the flex column takes what is left.  When even the minimums do not fit,
 * columns are dropped from the end (width 0) until they do.  Returns the
 * number of columns shown.
 */
int tui_format_layout(const tui_column *cols, int n, int total, int gap,
		      int *widths);

#endif
