/* Bounded formatting that refuses or marks a cut (see fmt.h). */
#include "core/util/fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FMT_CUT_MARK "..."
#define FMT_PATH_SHOWN 160 /* bytes of each end a refusal quotes */

static int fmt_path_refuse(char *out, size_t len, pyrt_error *err,
			   const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* Its start and its end name a path too long to quote whole. */
static int fmt_path_refuse(char *out, size_t len, pyrt_error *err,
			   const char *fmt, va_list ap)
{
	char *whole = NULL;
	int n = err && !err->code ? vasprintf(&whole, fmt, ap) : -1;
	if (len)
		out[0] = '\0';
	if (n < 0)
		return pyrt_error_set(err, PYRT_E_USAGE, "path too long (over "
				      "%zu bytes)", len ? len - 1 : 0);
	size_t shown = FMT_PATH_SHOWN;
	int rc = (size_t)n <= 2 * shown
		? pyrt_error_set(err, PYRT_E_USAGE, "path too long (%d bytes, "
				 "at most %zu): %s", n, len ? len - 1 : 0,
				 whole)
		: pyrt_error_set(err, PYRT_E_USAGE, "path too long (%d bytes, "
				 "at most %zu): %.*s" FMT_CUT_MARK "%s", n,
				 len ? len - 1 : 0, (int)shown, whole,
				 whole + n - shown);
	free(whole);
	return rc;
}

int pyrt_fmt_path(char *out, size_t len, pyrt_error *err, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = len ? vsnprintf(out, len, fmt, ap) : -1;
	va_end(ap);
	int rc = 0;
	if (n < 0 || (size_t)n >= len)
		rc = fmt_path_refuse(out, len, err, fmt, again);
	va_end(again);
	return rc;
}

int pyrt_fmt_text(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cut = pyrt_fmt_vtext(out, len, fmt, ap);
	va_end(ap);
	return cut;
}

int pyrt_fmt_vtext(char *out, size_t len, const char *fmt, va_list ap)
{
	if (!len)
		return 1;
	int n = vsnprintf(out, len, fmt, ap);
	if (n >= 0 && (size_t)n < len)
		return 0;
	if (n < 0) {
		out[0] = '\0';
		return 1;
	}
	size_t mark = sizeof FMT_CUT_MARK - 1;
	if (len > mark) {
		/* Cut on a UTF-8 character boundary, then mark it. */
		size_t at = len - 1 - mark;
		while (at > 0 && ((unsigned char)out[at] & 0xC0) == 0x80)
			at--;
		memcpy(out + at, FMT_CUT_MARK, mark + 1);
	}
	return 1;
}
