/*
 * Text from outside on its way to a terminal or a log: pip's output,
 * archive member names, plugin and pins fields, paths, server error
 * bodies, core's messages quoting any of these.  One cleaner for every
 * front end, so that no byte anyone else chose can move a cursor, set a
 * title, write the clipboard (OSC 52) or forge a line of a log.
 *
 * Cleaned text holds no C0 control (ESC, CR, LF, TAB included), no DEL,
 * no C1 control (U+0080-U+009F, nor its raw bytes 0x80-0x9F), no bidi
 * override or isolate and no line or paragraph separator: each becomes a
 * space.  Malformed UTF-8 becomes '?' per byte.  With utf8 off, every
 * non-ASCII character becomes '?' (or the ASCII spelling of common
 * punctuation: "—" -> "-") so a C-locale terminal never gets UTF-8.  The
 * result is never longer than the input.
 */
#ifndef PYRT_APP_TEXT_H
#define PYRT_APP_TEXT_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/** Length of the well-formed UTF-8 sequence at s (1 for ASCII), or 0 when
 * it is malformed (bad lead byte, missing continuation, overlong,
 * surrogate, beyond U+10FFFF). */
size_t app_text_utf8_len(const char *s);

/** Clean s into out (outlen bytes, always terminated; cut when full). */
void app_text_clean(const char *s, int utf8, char *out, size_t outlen);

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
