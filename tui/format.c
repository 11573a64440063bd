/*
 * Text helpers for the screens.  Everything here is pure (no curses, no
 * locale, no clock), so the screens stay thin and the rules that decide
 * what fits where are unit-tested in tests/test_tui_format.c.
 */
#include "tui/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/text.h"

void tui_format_rate(double bytes_per_s, char *buf, size_t len)
{
	char size[32];
	if (!(bytes_per_s > 0) || isinf(bytes_per_s))
		bytes_per_s = 0;
	app_human_bytes((uint64_t)bytes_per_s, size, sizeof size);
	snprintf(buf, len, "%s/s", size);
}

/* Whole seconds as "9s", "1m05s" or "2h03m" (seconds dropped past an
 * hour: nobody waits for them). */
static void format_clock(long s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%lds", s);
	else if (s < 3600)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
}

long tui_ceil_nonneg(double x)
{
	long whole = (long)x;
	return (double)whole < x ? whole + 1 : whole;
}

void tui_format_eta(double seconds, char *buf, size_t len)
{
	if (isnan(seconds) || isinf(seconds) || seconds < 0) {
		snprintf(buf, len, "--");
		return;
	}
	if (seconds >= 99.0 * 3600.0) {
		snprintf(buf, len, ">99h");
		return;
	}
	/* Round up: "0s" left while bytes are still coming reads wrong. */
	format_clock(tui_ceil_nonneg(seconds), buf, len);
}

void tui_format_duration(double seconds, char *buf, size_t len)
{
	if (isnan(seconds) || isinf(seconds) || seconds < 0)
		seconds = 0;
	if (seconds < 59.95)
		snprintf(buf, len, "%.1fs", seconds);
	else
		format_clock((long)(seconds + 0.5), buf, len);
}

double tui_format_eta_seconds(uint64_t done, uint64_t total, double rate)
{
	if (!total || done > total || !(rate > 0) || isinf(rate))
		return -1;
	return (double)(total - done) / rate;
}

int tui_format_percent(uint64_t done, uint64_t total)
{
	if (!total)
		return 0;
	if (done >= total)
		return 100;
	/* Never 100 before the end: floor, computed without overflow. */
	return (int)((double)done * 100.0 / (double)total);
}

/* Columns of the character at s and its bytes (a broken byte is one
 * column, as the sanitiser turns it into '?'). */
static size_t char_cols(const char *s, size_t *bytes)
{
	return (size_t)app_text_char_width(s, bytes);
}

size_t tui_format_columns(const char *s)
{
	return app_text_width(s);
}

size_t tui_format_head(const char *s, size_t cols)
{
	size_t off = 0, used = 0, n;
	while (s[off]) {
		size_t w = char_cols(s + off, &n);
		if (used + w > cols)
			break;
		used += w;
		off += n;
	}
	return off;
}

/* Byte offset after the first cols columns of s: never inside a
 * character, never half of a wide one (it stays out). */
static size_t head_bytes(const char *s, size_t cols)
{
	return tui_format_head(s, cols);
}

/* Byte offset where the last cols columns of s begin (a wide character
 * that would straddle the cut stays out). */
static size_t tail_start(const char *s, size_t cols)
{
	size_t total = tui_format_columns(s), off = 0, used = 0, n;
	if (cols >= total)
		return 0;
	while (s[off] && total - used > cols) {
		used += char_cols(s + off, &n);
		off += n;
	}
	return off;
}

size_t tui_format_skip(const char *s, size_t cols)
{
	size_t off = 0, used = 0, n;
	while (s[off] && used < cols) {
		used += char_cols(s + off, &n);
		off += n;
	}
	/* Marks that combine with the last character skipped go with it. */
	while (s[off] && char_cols(s + off, &n) == 0)
		off += n;
	return off;
}

/* Copy at most n bytes of s into out (which has room left bytes). */
static size_t put(char *out, size_t used, size_t outlen, const char *s,
		  size_t n)
{
	if (used >= outlen)
		return used;
	if (n > outlen - 1 - used)
		n = outlen - 1 - used;
	memcpy(out + used, s, n);
	out[used + n] = '\0';
	return used + n;
}

void tui_format_trunc_middle(const char *s, size_t width, int utf8,
			     char *out, size_t outlen)
{
	const char *dots = utf8 ? "…" : "...";
	size_t dots_cols = utf8 ? 1 : 3;
	size_t cols = tui_format_columns(s);
	if (!outlen)
		return;
	out[0] = '\0';
	if (cols <= width) {
		put(out, 0, outlen, s, strlen(s));
		return;
	}
	if (width <= dots_cols) {
		put(out, 0, outlen, s, head_bytes(s, width));
		return;
	}
	/* The tail gets the odd column: for a path it is the more telling
	 * half (the file name). */
	size_t keep = width - dots_cols;
	size_t head = keep / 2, tail = keep - head;
	size_t used = put(out, 0, outlen, s, head_bytes(s, head));
	used = put(out, used, outlen, dots, strlen(dots));
	const char *t = s + tail_start(s, tail);
	put(out, used, outlen, t, strlen(t));
}

void tui_format_trunc_end(const char *s, size_t width, int utf8, char *out,
			  size_t outlen)
{
	const char *dots = utf8 ? "…" : "...";
	size_t dots_cols = utf8 ? 1 : 3;
	if (!outlen)
		return;
	out[0] = '\0';
	if (tui_format_columns(s) <= width) {
		put(out, 0, outlen, s, strlen(s));
		return;
	}
	if (width <= dots_cols) {
		put(out, 0, outlen, s, head_bytes(s, width));
		return;
	}
	size_t used = put(out, 0, outlen, s, head_bytes(s, width - dots_cols));
	put(out, used, outlen, dots, strlen(dots));
}

void tui_format_bar(uint64_t done, uint64_t total, int width, int *full,
		    int *eighths)
{
	*full = 0;
	*eighths = 0;
	if (width <= 0 || !total)
		return;
	if (done >= total) {
		*full = width;
		return;
	}
	uint64_t units = (uint64_t)((double)done / (double)total *
				    (double)width * 8.0);
	*full = (int)(units / 8);
	*eighths = (int)(units % 8);
	if (*full >= width) {
		*full = width - 1;
		*eighths = 7;
	}
}

size_t tui_format_wrap(const char *s, size_t width, size_t *start,
		       size_t *len, size_t max)
{
	size_t n = 0, pos = 0, total = strlen(s);
	if (!width)
		return 0;
	while (n < max) {
		while (s[pos] == ' ')
			pos++;
		if (pos >= total)
			break;
		/* Walk up to width columns, remembering the last space. */
		size_t end = pos, cols = 0, brk = 0, bytes;
		while (s[end]) {
			size_t w = char_cols(s + end, &bytes);
			if (cols + w > width && end > pos)
				break;
			if (s[end] == ' ')
				brk = end;
			end += bytes;
			cols += w;
		}
		if (s[end] && s[end] != ' ' && brk > pos)
			end = brk; /* break at the last space instead */
		size_t e = end;
		while (e > pos && s[e - 1] == ' ')
			e--;
		start[n] = pos;
		len[n] = e - pos;
		n++;
		pos = end;
	}
	return n;
}

size_t tui_format_chunks(const char *s, size_t width, size_t *start,
			 size_t *len, size_t max)
{
	size_t n = 0, pos = 0;
	if (!width)
		return 0;
	while (s[pos]) {
		size_t end = pos + head_bytes(s + pos, width);
		if (end == pos) /* a wide character in a 1-column piece */
			end = pos + (size_t)pyrt_sanitize_utf8_len(s + pos) +
			      !pyrt_sanitize_utf8_len(s + pos);
		if (n < max) {
			start[n] = pos;
			len[n] = end - pos;
		}
		n++;
		pos = end;
	}
	return n;
}

/* Sum of widths of the first n columns plus the gaps between them. */
static int used_width(const int *widths, int n, int gap)
{
	int sum = 0, shown = 0;
	for (int i = 0; i < n; i++)
		if (widths[i] > 0) {
			sum += widths[i];
			shown++;
		}
	return sum + (shown > 1 ? (shown - 1) * gap : 0);
}

int tui_format_layout(const tui_column *cols, int n, int total, int gap,
		      int *widths)
{
	int shown = n;
	for (int i = 0; i < n; i++)
		widths[i] = cols[i].min;
	while (shown > 0 && used_width(widths, shown, gap) > total)
		widths[--shown] = 0;
	for (int i = shown; i < n; i++)
		widths[i] = 0;
	int room = total - used_width(widths, shown, gap);
	for (int i = 0; i < shown && room > 0; i++) {
		int more = cols[i].want - widths[i];
		if (more <= 0)
			continue;
		if (more > room)
			more = room;
		widths[i] += more;
		room -= more;
	}
	for (int i = 0; i < shown && room > 0; i++)
		if (cols[i].flex) {
			widths[i] += room;
			room = 0;
		}
	return shown;
}
