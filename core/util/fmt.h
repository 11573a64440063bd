/*
 * printf into a fixed buffer without a silent cut.  A path or URL that
 * does not fit is an error (a cut one names another file); a text shown
 * to a person that does not fit ends in "..." so the reader sees the cut.
 */
#ifndef PYRT_FMT_H
#define PYRT_FMT_H

#include <stdarg.h>
#include <stddef.h>

#include "core/util/error.h"

/**
 * Format a path into out[len].  0, or PYRT_E_USAGE "path too long (N
 * bytes, at most M): START...END" with out emptied: a path that does not
 * fit is never used.  err may be NULL.
 */
int pyrt_fmt_path(char *out, size_t len, pyrt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * Format a text for display into out[len]; what does not fit is cut and
 * marked with a trailing "...".  1 when it was cut, else 0.
 */
int pyrt_fmt_text(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** pyrt_fmt_text with a va_list, for the functions that take a format. */
int pyrt_fmt_vtext(char *out, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
