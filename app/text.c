/*
 * The one cleaner for text from outside (see text.h for the rules).
 */
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

size_t app_text_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The code point of a well-formed sequence of n bytes. */
static unsigned code_point(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Characters a terminal acts on or that change how a line reads: C1
 * controls (CSI is U+009B, OSC U+009D), line and paragraph separators,
 * bidi embeddings, overrides and isolates. */
static int is_control_cp(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Punctuation core's messages use, spelled in ASCII for a C locale. */
static const struct { const char *utf8, *ascii; } translit[] = {
	{ "\u2014", "-" }, { "\u2013", "-" }, { "\u2026", "..." },
	{ "\u00d7", "x" }, { "\u2018", "'" }, { "\u2019", "'" },
	{ "\u201c", "\"" }, { "\u201d", "\"" }, { "\u2713", "+" },
	{ "\u2717", "x" }, { "\u2192", "->" }, { "\u00a0", " " },
};

/* The ASCII spelling of the sequence at s (n bytes), or NULL. */
static const char *ascii_for(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof translit / sizeof translit[0]; i++)
		if (strlen(translit[i].utf8) == n &&
		    memcmp(s, translit[i].utf8, n) == 0)
			return translit[i].ascii;
	return NULL;
}

/* What the n-byte sequence at s (0: a malformed byte) becomes: *rep and
 * its length.  Never longer than what it replaces. */
static const char *replacement(const char *s, size_t n, int utf8,
			       size_t *len)
{
	unsigned char c = (unsigned char)*s;
	if (c < 0x20 || c == 0x7f || (n > 1 && is_control_cp(code_point(
			(const unsigned char *)s, n)))) {
		*len = 1;
		return " ";
	}
	if (n == 0 || (!utf8 && n > 1 && !ascii_for(s, n))) {
		*len = 1;
		return "?";
	}
	const char *a = !utf8 && n > 1 ? ascii_for(s, n) : NULL;
	*len = a ? strlen(a) : n;
	return a ? a : s;
}

void app_text_clean(const char *s, int utf8, char *out, size_t outlen)
{
	size_t used = 0;
	if (!outlen)
		return;
	while (*s) {
		size_t n = app_text_utf8_len(s), len;
		const char *rep = replacement(s, n, utf8, &len);
		if (used + len >= outlen)
			break;
		memmove(out + used, rep, len);
		used += len;
		s += n ? n : 1;
	}
	out[used] = '\0';
}

int app_text_utf8_locale(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return 0;
}

int app_text_utf8_for(int fd)
{
	return !isatty(fd) || app_text_utf8_locale();
}

void app_text_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char *raw = NULL;
	int n = vasprintf(&raw, fmt, ap);
	if (n < 0)
		return;
	int newline = n > 0 && raw[n - 1] == '\n';
	if (newline)
		raw[n - 1] = '\0';
	/* Cleaning never lengthens, so in place is safe (memmove). */
	app_text_clean(raw, app_text_utf8_for(fileno(f)), raw, (size_t)n + 1);
	fputs(raw, f);
	if (newline)
		fputc('\n', f);
	free(raw);
}

void app_text_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_text_vprintf(f, fmt, ap);
	va_end(ap);
}

void app_text_puts(FILE *f, const char *text)
{
	const char *nl;
	while ((nl = strchr(text, '\n'))) {
		app_text_printf(f, "%.*s\n", (int)(nl - text), text);
		text = nl + 1;
	}
	if (*text)
		app_text_printf(f, "%s", text);
}

/* A copy of s with each malformed byte replaced by U+FFFD. */
static char *utf8_repaired(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len * 3 + 1), *o = out;
	if (!out)
		return NULL;
	while (*s) {
		size_t n = app_text_utf8_len(s);
		if (n) {
			memcpy(o, s, n);
			o += n;
			s += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
		}
	}
	*o = '\0';
	return out;
}

json_t *app_text_json(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *fixed = utf8_repaired(s);
	j = fixed ? json_string(fixed) : NULL;
	free(fixed);
	return j;
}
