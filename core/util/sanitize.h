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
#ifndef PYRT_SANITIZE_H
#define PYRT_SANITIZE_H

#include <stddef.h>

/** Length of the well-formed UTF-8 sequence at s (1 for ASCII), or 0 when
 * it is malformed (bad lead byte, missing continuation, overlong,
 * surrogate, beyond U+10FFFF). */
size_t pyrt_sanitize_utf8_len(const char *s);

/** Clean s into out (outlen bytes, always terminated; cut when full). */
void pyrt_sanitize(const char *s, int utf8, char *out, size_t outlen);

#endif
