/* tui/format: sizes, rates, ETAs, durations, truncation, bars, wrapping
 * and table layout — the rules that decide what fits on screen.  (The
 * cleaning of text is app/text's: tests/test_app_text.c.) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "tui/format.h"

#define BUF 256

static const char *size(uint64_t n)
{
	static char buf[BUF];
	app_human_bytes(n, buf, sizeof buf);
	return buf;
}

Test(tui_format, sizes_use_binary_units_with_one_decimal)
{
	cr_assert_str_eq(size(0), "0 B");
	cr_assert_str_eq(size(812), "812 B");
	cr_assert_str_eq(size(1023), "1023 B");
	cr_assert_str_eq(size(1024), "1.0 KiB");
	cr_assert_str_eq(size(12595), "12.3 KiB");
	cr_assert_str_eq(size(7871163), "7.5 MiB");
	cr_assert_str_eq(size(1288490189ull), "1.2 GiB");
}

Test(tui_format, sizes_never_print_1024_of_a_unit)
{
	/* 1023.99 KiB rounds to 1024.0 KiB unless the unit moves up. */
	cr_assert_str_eq(size(1048575), "1.0 MiB");
	cr_assert_str_eq(size(1024ull * 1024 * 1024 - 1), "1.0 GiB");
}

Test(tui_format, rates)
{
	char buf[BUF];
	tui_format_rate(299417.6, buf, sizeof buf);
	cr_assert_str_eq(buf, "292.4 KiB/s");
	tui_format_rate(0, buf, sizeof buf);
	cr_assert_str_eq(buf, "0 B/s");
	tui_format_rate(-5, buf, sizeof buf);
	cr_assert_str_eq(buf, "0 B/s");
	tui_format_rate(NAN, buf, sizeof buf);
	cr_assert_str_eq(buf, "0 B/s");
	tui_format_rate(INFINITY, buf, sizeof buf);
	cr_assert_str_eq(buf, "0 B/s");
}

static const char *eta(double s)
{
	static char buf[BUF];
	tui_format_eta(s, buf, sizeof buf);
	return buf;
}

Test(tui_format, eta_minutes_and_seconds)
{
	cr_assert_str_eq(eta(0), "0s");
	cr_assert_str_eq(eta(9), "9s");
	cr_assert_str_eq(eta(8.2), "9s"); /* rounded up */
	cr_assert_str_eq(eta(59), "59s");
	cr_assert_str_eq(eta(60), "1m00s");
	cr_assert_str_eq(eta(65), "1m05s");
	cr_assert_str_eq(eta(3599), "59m59s");
	cr_assert_str_eq(eta(3600), "1h00m");
	cr_assert_str_eq(eta(7380), "2h03m");
}

Test(tui_format, ceil_of_non_negative_values)
{
	cr_assert_eq(tui_ceil_nonneg(0.0), 0);
	cr_assert_eq(tui_ceil_nonneg(0.0001), 1);
	cr_assert_eq(tui_ceil_nonneg(1.0), 1);
	cr_assert_eq(tui_ceil_nonneg(1.5), 2);
	cr_assert_eq(tui_ceil_nonneg(59.999), 60);
	cr_assert_eq(tui_ceil_nonneg(1e9 + 0.25), 1000000001L);
}

Test(tui_format, eta_unknown_and_huge)
{
	cr_assert_str_eq(eta(-1), "--");
	cr_assert_str_eq(eta(NAN), "--");
	cr_assert_str_eq(eta(INFINITY), "--");
	cr_assert_str_eq(eta(99.0 * 3600), ">99h");
}

Test(tui_format, eta_seconds_from_counters)
{
	cr_assert_float_eq(tui_format_eta_seconds(100, 1100, 100.0), 10.0, 1e-9);
	cr_assert_eq(tui_format_eta_seconds(100, 0, 100.0), -1);   /* no total */
	cr_assert_eq(tui_format_eta_seconds(100, 1100, 0), -1);    /* no rate */
	cr_assert_eq(tui_format_eta_seconds(2000, 1100, 10), -1);  /* past it */
	cr_assert_float_eq(tui_format_eta_seconds(1100, 1100, 10), 0.0, 1e-9);
}

Test(tui_format, durations)
{
	char buf[BUF];
	tui_format_duration(0.42, buf, sizeof buf);
	cr_assert_str_eq(buf, "0.4s");
	tui_format_duration(12.34, buf, sizeof buf);
	cr_assert_str_eq(buf, "12.3s");
	tui_format_duration(59.96, buf, sizeof buf);
	cr_assert_str_eq(buf, "1m00s");
	tui_format_duration(65, buf, sizeof buf);
	cr_assert_str_eq(buf, "1m05s");
	tui_format_duration(-3, buf, sizeof buf);
	cr_assert_str_eq(buf, "0.0s");
}

Test(tui_format, percent_floors_and_never_reaches_100_early)
{
	cr_assert_eq(tui_format_percent(0, 0), 0);
	cr_assert_eq(tui_format_percent(1, 3), 33);
	cr_assert_eq(tui_format_percent(999, 1000), 99);
	cr_assert_eq(tui_format_percent(1000, 1000), 100);
	cr_assert_eq(tui_format_percent(5000, 1000), 100);
	/* No overflow on large counts. */
	cr_assert_eq(tui_format_percent(UINT64_MAX / 2, UINT64_MAX), 50);
}

Test(tui_format, columns_count_code_points)
{
	cr_assert_eq(tui_format_columns(""), 0);
	cr_assert_eq(tui_format_columns("abc"), 3);
	cr_assert_eq(tui_format_columns("✓ ok"), 4);
	cr_assert_eq(tui_format_columns("a…b"), 3);
	/* A broken byte still takes a column (the sanitiser shows '?'). */
	cr_assert_eq(tui_format_columns("a\xff" "b"), 3);
}

/* "日本" is two wide characters, "🐍" one wide emoji, "é" as e and a
 * combining acute accent. */
Test(tui_format, columns_are_display_columns_for_wide_text)
{
	cr_assert_eq(tui_format_columns("\xe6\x97\xa5\xe6\x9c\xac"), 4);
	cr_assert_eq(tui_format_columns("py\xf0\x9f\x90\x8d"), 4);
	cr_assert_eq(tui_format_columns("e\xcc\x81"), 1);
	cr_assert_eq(tui_format_columns("\xe2\x80\x94"), 1); /* — */
}

Test(tui_format, cuts_never_split_a_wide_character)
{
	char buf[BUF];
	/* "日本語のプラグイン" is 18 columns; 7 leave room for 6 and "…". */
	const char *jp = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
			 "\xe3\x83\x97\xe3\x83\xa9\xe3\x82\xb0\xe3\x82\xa4"
			 "\xe3\x83\xb3";
	cr_assert_eq(tui_format_columns(jp), 18);
	tui_format_trunc_end(jp, 8, 1, buf, sizeof buf);
	cr_assert_str_eq(buf, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe2\x80\xa6");
	cr_assert_leq(tui_format_columns(buf), 8);
	/* An odd width: the third character would need 2 of the 1 left. */
	tui_format_trunc_end(jp, 6, 1, buf, sizeof buf);
	cr_assert_str_eq(buf, "\xe6\x97\xa5\xe6\x9c\xac\xe2\x80\xa6");
	cr_assert_leq(tui_format_columns(buf), 6);
	tui_format_trunc_middle(jp, 9, 1, buf, sizeof buf);
	cr_assert_leq(tui_format_columns(buf), 9);
	cr_assert_eq(strncmp(buf, "\xe6\x97\xa5\xe6\x9c\xac", 6), 0);
	/* The tail keeps the last characters whole: "…" then "イン". */
	cr_assert_str_eq(buf + strlen(buf) - 9, "\xe2\x80\xa6\xe3\x82\xa4\xe3\x83\xb3");
	cr_assert_eq(tui_format_head(jp, 5), 6);   /* two characters, 4 cols */
	cr_assert_eq(tui_format_head(jp, 1), 0);
}

Test(tui_format, wrap_and_chunks_count_wide_columns)
{
	size_t start[8], len[8];
	const char *jp = "\xe6\x97\xa5\xe6\x9c\xac \xe8\xaa\x9e\xe3\x81\xae";
	/* 4 columns per word: at width 5 each word is one line. */
	cr_assert_eq(tui_format_wrap(jp, 5, start, len, 8), 2);
	cr_assert_eq(len[0], 6);
	cr_assert_eq(len[1], 6);
	/* Chunks of 3 columns hold one wide character and the space. */
	cr_assert_eq(tui_format_chunks("\xe6\x97\xa5\xe6\x9c\xac", 3, start, len, 8), 2);
	cr_assert_eq(len[0], 3);
	/* A 1-column piece still moves on past a wide character. */
	cr_assert_eq(tui_format_chunks("\xe6\x97\xa5" "a", 1, start, len, 8), 2);
}

Test(tui_format, skip_scrolls_by_columns)
{
	cr_assert_eq(tui_format_skip("abcdef", 2), 2);
	cr_assert_eq(tui_format_skip("abc", 10), 3);
	/* Column 1 is inside "日": it is skipped whole. */
	cr_assert_eq(tui_format_skip("\xe6\x97\xa5" "x", 1), 3);
	cr_assert_eq(tui_format_skip("\xe6\x97\xa5" "x", 2), 3);
	/* A combining mark goes with the character it follows. */
	cr_assert_eq(tui_format_skip("e\xcc\x81x", 1), 3);
}

static const char *mid(const char *s, size_t w, int utf8)
{
	static char buf[BUF];
	tui_format_trunc_middle(s, w, utf8, buf, sizeof buf);
	return buf;
}

Test(tui_format, middle_truncation_keeps_both_ends_of_a_path)
{
	const char *p = "/home/operator/.local/share/pyrt/runtime/python/current";
	cr_assert_str_eq(mid(p, 100, 1), p);
	cr_assert_str_eq(mid(p, 20, 1), "/home/ope…on/current");
	cr_assert_eq(tui_format_columns(mid(p, 20, 1)), 20);
	cr_assert_str_eq(mid(p, 20, 0), "/home/op...n/current");
	cr_assert_eq(strlen(mid(p, 20, 0)), 20);
	/* The tail (the file name) gets the odd column. */
	cr_assert_str_eq(mid("abcdefghij", 6, 1), "ab…hij");
}

Test(tui_format, middle_truncation_fits_exactly_and_in_tiny_widths)
{
	cr_assert_str_eq(mid("abcdef", 6, 1), "abcdef");
	cr_assert_str_eq(mid("abcdefg", 6, 1), "ab…efg");
	cr_assert_str_eq(mid("abcdef", 1, 1), "a");
	cr_assert_str_eq(mid("abcdef", 3, 0), "abc");
	cr_assert_str_eq(mid("abcdef", 0, 1), "");
}

Test(tui_format, middle_truncation_never_splits_a_utf8_sequence)
{
	const char *s = "ééééééééé/ñññññ"; /* 15 columns, 2 bytes each but '/' */
	const char *out = mid(s, 7, 1);
	cr_assert_eq(tui_format_columns(out), 7);
	cr_assert_str_eq(out, "ééé…ñññ");
}

Test(tui_format, end_truncation)
{
	char buf[BUF];
	tui_format_trunc_end("python-docx, openpyxl", 15, 1, buf, sizeof buf);
	cr_assert_str_eq(buf, "python-docx, o…");
	tui_format_trunc_end("python-docx, openpyxl", 15, 0, buf, sizeof buf);
	cr_assert_str_eq(buf, "python-docx,...");
	tui_format_trunc_end("short", 15, 1, buf, sizeof buf);
	cr_assert_str_eq(buf, "short");
}

Test(tui_format, truncation_respects_the_output_buffer)
{
	char small[8];
	tui_format_trunc_middle("abcdefghijklmnop", 12, 1, small, sizeof small);
	cr_assert_lt(strlen(small), sizeof small);
	tui_format_trunc_end("abcdefghijklmnop", 12, 1, small, sizeof small);
	cr_assert_lt(strlen(small), sizeof small);
}

Test(tui_format, bar_cells_and_eighths)
{
	int full, e;
	tui_format_bar(0, 100, 40, &full, &e);
	cr_assert(full == 0 && e == 0);
	tui_format_bar(50, 100, 40, &full, &e);
	cr_assert(full == 20 && e == 0);
	tui_format_bar(51, 100, 40, &full, &e); /* 20.4 cells */
	cr_assert(full == 20 && e == 3);
	tui_format_bar(100, 100, 40, &full, &e);
	cr_assert(full == 40 && e == 0);
	tui_format_bar(150, 100, 40, &full, &e);
	cr_assert(full == 40 && e == 0);
	tui_format_bar(99999, 100000, 40, &full, &e); /* never full early */
	cr_assert(full == 39 && e == 7);
	tui_format_bar(5, 0, 40, &full, &e); /* unknown total: empty */
	cr_assert(full == 0 && e == 0);
}

/* The wrapped lines of s at width, joined with '|'. */
static const char *wrap(const char *s, size_t width)
{
	static char buf[BUF];
	size_t start[16], len[16];
	size_t n = tui_format_wrap(s, width, start, len, 16);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, sizeof buf - used, "%s%.*s", i ? "|" : "",
			 (int)len[i], s + start[i]);
	}
	return buf;
}

Test(tui_format, wrap_at_spaces_and_split_long_words)
{
	cr_assert_str_eq(wrap("the quick brown fox", 10), "the quick|brown fox");
	cr_assert_str_eq(wrap("the quick brown fox", 100), "the quick brown fox");
	cr_assert_str_eq(wrap("abcdefghijkl", 5), "abcde|fghij|kl");
	cr_assert_str_eq(wrap("  lead  and   gaps ", 6), "lead|and|gaps");
	cr_assert_str_eq(wrap("", 5), "");
	cr_assert_str_eq(wrap("ééé ééé", 3), "ééé|ééé");
}

Test(tui_format, wrap_stops_at_max_lines)
{
	size_t start[2], len[2];
	cr_assert_eq(tui_format_wrap("a b c d e", 1, start, len, 2), 2);
	cr_assert_eq(tui_format_wrap("a b", 0, start, len, 2), 0);
}

/* Append the n bytes at s to out (used bytes so far), spaces left out. */
static void unspaced(char *out, size_t *used, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *used + 1 < BUF; i++)
		if (s[i] != ' ')
			out[(*used)++] = s[i];
	out[*used] = '\0';
}

/* A details dialog's line: a path with "日本語ツール" in it, wrapped at
 * every width the dialogs can have and at the narrow ones where a wide
 * character meets the edge.  Every line fits its width, and the lines
 * joined again are the text with only the breaking spaces gone: no wide
 * character is dropped or cut, wherever the edge falls. */
Test(tui_format, wrap_keeps_every_wide_character_at_every_width)
{
	const char *s = "error: /tmp/pyrt.ab12/box/plugins/"
			"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"
			"\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab"
			"/plugin.yaml: the directory name";
	char want[BUF], got[BUF];
	size_t wn = 0;
	unspaced(want, &wn, s, strlen(s));
	for (size_t width = 2; width <= 72; width++) {
		size_t start[64], len[64], gn = 0;
		size_t n = tui_format_wrap(s, width, start, len, 64);
		got[0] = '\0';
		for (size_t i = 0; i < n; i++) {
			char line[BUF];
			snprintf(line, sizeof line, "%.*s", (int)len[i],
				 s + start[i]);
			cr_assert_leq(tui_format_columns(line), width,
				      "width %zu: line %zu is %zu columns", width,
				      i, tui_format_columns(line));
			unspaced(got, &gn, line, len[i]);
		}
		cr_assert_str_eq(got, want, "width %zu", width);
	}
}

Test(tui_format, chunks_keep_every_byte_of_a_path)
{
	size_t start[8], len[8];
	const char *p = "/a b/ééé/cd";
	/* Spaces are kept where they fall, even at the start of a piece. */
	cr_assert_eq(tui_format_chunks(p, 4, start, len, 8), 3);
	cr_assert_eq(start[1], 4);
	cr_assert_eq(len[1], 1 + 3 * 2);  /* "/" and three 2-byte é */
	cr_assert_eq(len[2], 3);
	cr_assert_eq(len[0], 4);
	cr_assert_eq(strncmp(p + start[0], "/a b", 4), 0);
	/* Asked for fewer pieces, it still says how many the path needs. */
	cr_assert_eq(tui_format_chunks(p, 2, start, len, 1), 6);
	cr_assert_eq(tui_format_chunks(p, 2, NULL, NULL, 0), 6);
	cr_assert_eq(tui_format_chunks("", 5, start, len, 8), 0);
	cr_assert_eq(tui_format_chunks(p, 0, start, len, 8), 0);
}

Test(tui_format, layout_gives_minimums_then_wants_then_the_rest_to_flex)
{
	tui_column cols[3] = { { 4, 10, 0 }, { 3, 5, 0 }, { 4, 4, 1 } };
	int w[3];
	/* 40 columns, gap 2: mins 11 + 4 gaps; wants give 10 and 5. */
	cr_assert_eq(tui_format_layout(cols, 3, 40, 2, w), 3);
	cr_assert_eq(w[0], 10);
	cr_assert_eq(w[1], 5);
	cr_assert_eq(w[2], 40 - 10 - 5 - 4);
	cr_assert_eq(w[0] + w[1] + w[2] + 4, 40);
}

Test(tui_format, layout_hands_out_wants_in_column_order_when_tight)
{
	tui_column cols[3] = { { 4, 10, 0 }, { 3, 5, 0 }, { 4, 4, 1 } };
	int w[3];
	cr_assert_eq(tui_format_layout(cols, 3, 20, 2, w), 3);
	cr_assert_eq(w[0], 9);  /* 5 spare columns all go to the first */
	cr_assert_eq(w[1], 3);
	cr_assert_eq(w[2], 4);
}

Test(tui_format, layout_drops_columns_from_the_end_when_minimums_do_not_fit)
{
	tui_column cols[3] = { { 10, 10, 0 }, { 10, 10, 0 }, { 10, 10, 1 } };
	int w[3];
	cr_assert_eq(tui_format_layout(cols, 3, 25, 2, w), 2);
	cr_assert_eq(w[2], 0);
	cr_assert_eq(w[0] + w[1] + 2, 22 + 0); /* 10 + 10 + gap, 3 spare */
	cr_assert_eq(tui_format_layout(cols, 3, 5, 2, w), 0);
	cr_assert(w[0] == 0 && w[1] == 0 && w[2] == 0);
}
