/*
 * The one cleaner for text from outside on its way to a terminal or a log
 * (see text.h for the rules).  In core because core writes logs too (pip's
 * output); the front ends print through app/text.c, which uses it.
 */
#include "core/util/sanitize.h"

#include <string.h>

size_t pyrt_sanitize_utf8_len(const char *str)
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

void pyrt_sanitize(const char *s, int utf8, char *out, size_t outlen)
{
	size_t used = 0;
	if (!outlen)
		return;
	while (*s) {
		size_t n = pyrt_sanitize_utf8_len(s), len;
		const char *rep = replacement(s, n, utf8, &len);
		if (used + len >= outlen)
			break;
		memmove(out + used, rep, len);
		used += len;
		s += n ? n : 1;
	}
	out[used] = '\0';
}

