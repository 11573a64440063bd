/* app/text: the one cleaner for text from outside on its way to a terminal
 * or a log, and the JSON strings made from such text. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/text.h"

#define BUF 256

static const char *clean(const char *s, int utf8)
{
	static char buf[BUF];
	pyrt_sanitize(s, utf8, buf, sizeof buf);
	return buf;
}

/* No ESC, no C1 as a raw byte, no C1 as UTF-8 (C2 80..C2 9F), valid
 * UTF-8 throughout: what every cleaned string must be. */
static void assert_inert(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; p[i]; i++) {
		cr_assert((p[i] >= 0x20 && p[i] != 0x7f) || p[i] >= 0x80,
			  "control byte 0x%02x at %zu in \"%s\"", p[i], i, s);
		if (p[i] == 0xc2)
			cr_assert(p[i + 1] >= 0xa0, "C1 as UTF-8 at %zu", i);
	}
	for (const char *q = s; *q;) {
		size_t n = pyrt_sanitize_utf8_len(q);
		cr_assert(n > 0, "malformed UTF-8 at \"%s\"", q);
		unsigned char c = (unsigned char)*q;
		cr_assert(n > 1 || c < 0x80, "raw byte 0x%02x", c);
		q += n;
	}
}

Test(app_text, c0_del_and_esc_become_spaces)
{
	cr_assert_str_eq(clean("a\tb\rc\nd", 1), "a b c d");
	cr_assert_str_eq(clean("x\x7fy", 1), "x y");
	cr_assert_str_eq(clean("\x01\x1f", 0), "  ");
}

Test(app_text, escape_sequences_lose_their_esc)
{
	/* OSC 52 (clipboard write), CSI (colour, cursor), a title. */
	const char *in = "\033]52;c;aGk=\007 \033[31mred\033[0m \033[2J \033]0;t\033\\";
	const char *out = clean(in, 1);
	cr_assert_null(strchr(out, '\033'));
	cr_assert_null(strchr(out, '\007'));
	cr_assert_str_eq(out, " ]52;c;aGk=   [31mred [0m  [2J  ]0;t \\");
	assert_inert(out);
}

Test(app_text, c1_controls_as_utf8_become_spaces)
{
	/* U+009D is OSC, U+009B CSI, U+009C ST, U+0085 NEL, U+0080 PAD. */
	cr_assert_str_eq(clean("\xc2\x9d" "52;c;aGk=\xc2\x9c", 1), " 52;c;aGk= ");
	cr_assert_str_eq(clean("c1\xc2\x9b" "31m", 1), "c1 31m");
	cr_assert_str_eq(clean("\xc2\x80\xc2\x85\xc2\x9f|", 1), "   |");
	cr_assert_str_eq(clean("\xc2\x9d" "52", 0), " 52");
	/* U+00A0 and up are text, not controls. */
	cr_assert_str_eq(clean("\xc2\xa0\xc2\xa9", 1), "\xc2\xa0\xc2\xa9");
}

Test(app_text, c1_controls_as_raw_bytes_become_question_marks)
{
	/* Latin-1 style input: 0x9b is CSI, 0x9d OSC on an 8-bit terminal. */
	cr_assert_str_eq(clean("\x9b" "31m\x9d" "52;c;x\x9c", 1), "?31m?52;c;x?");
	cr_assert_str_eq(clean("\x9b" "31m\x9d", 0), "?31m?");
	cr_assert_str_eq(clean("a\x80\x9f\xff", 1), "a???");
}

Test(app_text, malformed_utf8_becomes_question_marks)
{
	cr_assert_str_eq(clean("a\x80z", 1), "a?z");          /* lone continuation */
	cr_assert_str_eq(clean("a\xe2\x9c", 1), "a??");       /* truncated */
	cr_assert_str_eq(clean("\xc0\xaf", 1), "??");         /* overlong '/' */
	cr_assert_str_eq(clean("\xe0\x80\x9b", 1), "???");    /* overlong CSI */
	cr_assert_str_eq(clean("\xed\xa0\x80", 1), "???");    /* surrogate */
	cr_assert_str_eq(clean("\xf4\x90\x80\x80", 1), "????"); /* > U+10FFFF */
	cr_assert_str_eq(clean("\xff\xfe", 1), "??");
}

Test(app_text, bidi_overrides_and_separators_become_spaces)
{
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+2028 LINE SEPARATOR. */
	cr_assert_str_eq(clean("a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\xa8" "d", 1),
			 "a b c d");
}

Test(app_text, wide_text_is_kept_in_utf8_locales)
{
	const char *in = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\x8d \xe2\x80\x94 ok";
	cr_assert_str_eq(clean(in, 1), in);
	cr_assert_str_eq(clean("caf\xc3\xa9 \xe6\x97\xa5", 0), "caf? ?");
}

Test(app_text, core_punctuation_is_spelled_in_ascii_without_utf8)
{
	const char *msg = "not provisioned — run \"pyrt install\" (~8 MB) …";
	const char *out = clean(msg, 0);
	cr_assert_str_eq(out, "not provisioned - run \"pyrt install\" (~8 MB) ...");
	for (const char *p = out; *p; p++)
		cr_assert_lt((unsigned char)*p, 0x80);
	cr_assert_str_eq(clean("✓ ok ✗ no 80×24", 0), "+ ok x no 80x24");
}

Test(app_text, output_is_always_terminated_and_never_split_mid_character)
{
	char small[6];
	pyrt_sanitize("ab\xe6\x97\xa5\xe6\x97\xa5", 1, small, sizeof small);
	cr_assert_str_eq(small, "ab\xe6\x97\xa5");
	pyrt_sanitize("abcdefgh", 1, small, sizeof small);
	cr_assert_str_eq(small, "abcde");
}

Test(app_text, everything_hostile_at_once_comes_out_inert)
{
	char in[512];
	size_t n = 0;
	for (unsigned c = 1; c < 0x100; c++)
		in[n++] = (char)c;
	const char *extra = "\xc2\x80\xc2\x9b\xc2\x9d\xe2\x80\xae\xed\xa0\x80";
	memcpy(in + n, extra, strlen(extra) + 1);
	char out[512];
	pyrt_sanitize(in, 1, out, sizeof out);
	assert_inert(out);
	pyrt_sanitize(in, 0, out, sizeof out);
	assert_inert(out);
	for (const char *p = out; *p; p++)
		cr_assert_lt((unsigned char)*p, 0x80);
}

/* What app_text_printf("<prefix>%s<nl>", arg) wrote to a file (not a
 * terminal: UTF-8 kept). */
static char *printed(const char *prefix, const char *arg, int nl)
{
	static char buf[BUF];
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	app_text_printf(f, "%s%s%s", prefix, arg, nl ? "\n" : "");
	rewind(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(app_text, printf_cleans_values_and_keeps_only_the_final_newline)
{
	cr_assert_str_eq(printed("pyrt: ", "bad\n[   0.1] result ok: forged", 1),
			 "pyrt: bad [   0.1] result ok: forged\n");
	cr_assert_str_eq(printed("", "\033]52;c;aGk=\007\xc2\x9d", 0), " ]52;c;aGk=  ");
	cr_assert_str_eq(printed("", "caf\xc3\xa9 \x9b", 1), "caf\xc3\xa9 ?\n");
}

Test(app_text, puts_keeps_the_lines_of_a_block)
{
	FILE *f = tmpfile();
	char buf[BUF];
	app_text_puts(f, "one\033[2J\ntwo\xc2\x9b\nask? ");
	rewind(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	cr_assert_str_eq(buf, "one [2J\ntwo \nask? ");
}

Test(app_text, json_strings_survive_malformed_utf8)
{
	json_t *j = app_text_json("/tmp/box\xff/runtime");
	cr_assert_not_null(j, "malformed UTF-8 must not lose the value");
	cr_assert_str_eq(json_string_value(j), "/tmp/box\xef\xbf\xbd/runtime");
	json_decref(j);
	j = app_text_json("caf\xc3\xa9");
	cr_assert_str_eq(json_string_value(j), "caf\xc3\xa9");
	json_decref(j);
	j = app_text_json(NULL);
	cr_assert(json_is_null(j));
	json_decref(j);
}

Test(app_text, json_dumps_escape_esc_and_c1)
{
	json_t *o = json_pack("{s:o}", "m", app_text_json("\033]52;c;x\007\xc2\x9d\xc2\x9b"));
	char *text = json_dumps(o, APP_TEXT_JSON_FLAGS | JSON_COMPACT);
	cr_assert_not_null(text);
	cr_assert_str_eq(text, "{\"m\":\"\\u001B]52;c;x\\u0007\\u009D\\u009B\"}");
	free(text);
	json_decref(o);
}

Test(app_text, width_counts_display_columns)
{
	size_t n;
	cr_assert_eq(app_text_width("abc"), 3);
	cr_assert_eq(app_text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);   /* 日本 */
	cr_assert_eq(app_text_width("\xf0\x9f\x90\x8d"), 2);            /* 🐍 */
	cr_assert_eq(app_text_width("e\xcc\x81"), 1);                     /* e + U+0301 */
	cr_assert_eq(app_text_width("a\xff"), 2);  /* a broken byte: one '?' */
	cr_assert_eq(app_text_char_width("\xe6\x97\xa5", &n), 2);
	cr_assert_eq(n, 3);
}

Test(app_text, an_explicit_c_locale_gets_ascii_in_a_pipe_too)
{
	setenv("LC_ALL", "C", 1);
	cr_assert_str_eq(printed("", "not provisioned \xe2\x80\x94 run", 1),
			 "not provisioned - run\n");
	setenv("LC_ALL", "C.UTF-8", 1);
	cr_assert_str_eq(printed("", "a \xe2\x80\x94 b", 0), "a \xe2\x80\x94 b");
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	/* No locale named: the reader's is unknown, UTF-8 stays. */
	cr_assert_str_eq(printed("", "a \xe2\x80\x94 b", 0), "a \xe2\x80\x94 b");
}
