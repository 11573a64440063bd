/*
 * Printing text from outside to a terminal or a log, for the front ends:
 * every byte goes through core's one cleaner (core/sanitize.h has the
 * rules), and JSON strings are repaired so no object is ever lost.
 */
#ifndef PYRT_APP_TEXT_H
#define PYRT_APP_TEXT_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "sanitize.h"

/** Whether the user's terminal decodes UTF-8: the first set of LC_ALL,
 * LC_CTYPE, LANG names UTF-8 (no setlocale: that is global state). */
int app_text_utf8_locale(void);

/** Whether text for fd may be UTF-8: on a terminal, its locale's word;
 * into a file or a pipe, always (the reader's locale is unknown and
 * cleaned UTF-8 carries no control either way). */
int app_text_utf8_for(int fd);

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

#define APP_TEXT_JSON_FLAGS JSON_ENSURE_ASCII

#endif
