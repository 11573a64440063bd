/*
 * Printing text from outside to a terminal or a log, for the front ends:
 * every byte goes through core's one cleaner (core/util/sanitize.h has the
 * rules), and JSON strings are repaired so no object is ever lost.
 */
#ifndef PYRT_APP_TEXT_H
#define PYRT_APP_TEXT_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "core/util/sanitize.h"

/** Whether the user's terminal decodes UTF-8: the first set of LC_ALL,
 * LC_CTYPE, LANG names UTF-8 (no setlocale: that is global state). */
int app_text_utf8_locale(void);

/** Whether text for fd may be UTF-8: the locale's word when LC_ALL,
 * LC_CTYPE or LANG names one (LANG=C: ASCII, into a pipe too); with none
 * set, on a terminal no, into a file or a pipe yes (the reader's locale is
 * unknown and cleaned UTF-8 carries no control either way). */
int app_text_utf8_for(int fd);

/**
 * Display columns of the character at s (wcwidth(3) in a UTF-8 locale,
 * whatever the process's locale is): 2 for CJK and most emoji, 0 for a
 * combining mark, 1 otherwise, and 1 for a malformed byte or an
 * unprintable character (the cleaner shows each as one '?' or ' ').
 * *len gets the bytes the character takes (at least 1).
 */
int app_text_char_width(const char *s, size_t *len);

/** Display columns of s (the sum of app_text_char_width). */
size_t app_text_width(const char *s);

/**
 * printf to f, cleaned: everything formatted is cleaned for f
 * (app_text_utf8_for), except one '\n' at the very end of the format's
 * output, which stays the line's end.  A newline inside a value becomes a
 * space, so one call is at most one line.
 */
void app_text_printf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void app_text_vprintf(FILE *f, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/** Write text that is several lines (a consent block): each line cleaned,
 * the newlines between them kept. */
void app_text_puts(FILE *f, const char *text);

/**
 * s as a JSON string, NULL as JSON null.  jansson refuses malformed UTF-8
 * (the key, or the whole object with json_pack, would be lost), so each
 * malformed byte becomes U+FFFD first.  Dump with APP_TEXT_JSON_FLAGS:
 * controls, C1 included, leave as \u escapes.
 */
json_t *app_text_json(const char *s);

/* Ten significant digits: jansson's default of 17 shows a time rounded
 * to the millisecond (0.472) as 0.47199999999999998. */
#define APP_TEXT_JSON_FLAGS (JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10))

#endif
