/* ctest: test_fmt */
/* fmt: a path that does not fit is refused, a text that does not fit is
 * marked as cut; what fits is written whole either way. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "core/util/fmt.h"

Test(fmt, path_that_fits_is_written_whole)
{
	char buf[16];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fmt_path(buf, sizeof buf, &err, "%s/%s", "/a", "bc"),
		     0);
	cr_assert_str_eq(buf, "/a/bc");
	cr_assert_eq(err.code, 0);
	/* exactly len - 1 bytes still fits */
	cr_assert_eq(pyrt_fmt_path(buf, sizeof buf, &err, "%s",
				   "/123456789abcde"), 0);
	cr_assert_str_eq(buf, "/123456789abcde");
}

Test(fmt, path_one_byte_too_long_is_refused_and_not_left_cut)
{
	char buf[16];
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fmt_path(buf, sizeof buf, &err, "%s/%s",
			       "/123456789", "abcde");
	cr_assert_eq(rc, PYRT_E_USAGE);
	cr_assert_eq(err.code, PYRT_E_USAGE);
	cr_assert_str_eq(buf, "", "a cut path must not be left to use");
	cr_assert(strstr(err.msg, "path too long"), "%s", err.msg);
	cr_assert(strstr(err.msg, "/123456789/abcd"), "names its start: %s",
		  err.msg);
}

Test(fmt, long_path_refusal_quotes_both_ends)
{
	char buf[512], arg[600];
	memset(arg, 'x', sizeof arg - 1);
	arg[sizeof arg - 1] = '\0';
	arg[0] = '/';
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fmt_path(buf, sizeof buf, &err, "%s/marker.json",
				   arg), PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "(611 bytes, at most 511)"), "%s", err.msg);
	cr_assert(strstr(err.msg, ": /xxx"), "%s", err.msg);
	cr_assert(strstr(err.msg, "...xxx"), "%s", err.msg);
	size_t n = strlen(err.msg);
	cr_assert_str_eq(err.msg + n - 12, "/marker.json");
}

Test(fmt, path_error_keeps_the_first_failure)
{
	char buf[4];
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_error_set(&err, PYRT_E_IO, "earlier");
	cr_assert_eq(pyrt_fmt_path(buf, sizeof buf, &err, "%s", "/long"),
		     PYRT_E_IO);
	cr_assert_str_eq(err.msg, "earlier");
	cr_assert_eq(pyrt_fmt_path(buf, sizeof buf, NULL, "%s", "/long"),
		     PYRT_E_USAGE);
}

Test(fmt, text_that_fits_is_not_marked)
{
	char buf[16];
	cr_assert_eq(pyrt_fmt_text(buf, sizeof buf, "%s %d", "abc", 12), 0);
	cr_assert_str_eq(buf, "abc 12");
}

Test(fmt, text_too_long_ends_in_a_cut_mark)
{
	char buf[10];
	cr_assert_eq(pyrt_fmt_text(buf, sizeof buf, "%s", "abcdefghijklmn"), 1);
	cr_assert_str_eq(buf, "abcdef...");
}

Test(fmt, text_cut_never_splits_a_utf8_character)
{
	char buf[10];
	/* "abcde" then U+2014 (3 bytes): the cut falls inside it */
	cr_assert_eq(pyrt_fmt_text(buf, sizeof buf, "%s",
				   "abcde\xe2\x80\x94xyzxyz"), 1);
	cr_assert_str_eq(buf, "abcde...");
}

/* The va_list form, as pyrt_events_log uses it for a log line. */
static int vtext(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cut = pyrt_fmt_vtext(out, len, fmt, ap);
	va_end(ap);
	return cut;
}

Test(fmt, vtext_marks_a_cut_like_text)
{
	char out[10];
	cr_assert_eq(vtext(out, sizeof out, "%s-%d", "ab", 7), 0);
	cr_assert_str_eq(out, "ab-7");
	cr_assert_eq(vtext(out, sizeof out, "%s", "0123456789abc"), 1);
	cr_assert_str_eq(out, "012345...");
	cr_assert_eq(vtext(out, 0, "%s", "x"), 1);
}
