/* ctest: test_error */
/* core/util/error: the first failure wins, a message is one line, a cut
 * one says so, and every code has a description. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util/error.h"

Test(error, the_first_failure_wins)
{
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_error_set(&err, PYRT_E_IO, "disk %d", 1), PYRT_E_IO);
	cr_assert_eq(pyrt_error_set(&err, PYRT_E_NETWORK, "net"), PYRT_E_IO,
		     "a later failure returns the first one's code");
	cr_assert_str_eq(err.msg, "disk 1");
	pyrt_error_clear(&err);
	cr_assert_eq(err.code, 0);
	cr_assert_str_eq(err.msg, "");
	cr_assert_eq(pyrt_error_set(&err, PYRT_E_NETWORK, "net"),
		     PYRT_E_NETWORK);
	cr_assert_eq(pyrt_error_set(NULL, PYRT_E_USAGE, "x"), PYRT_E_USAGE);
	pyrt_error_clear(NULL);
}

Test(error, errno_text_is_appended)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_error_set_errno(&err, PYRT_E_IO, ENOENT, "cannot open %s", "/x");
	char want[256];
	snprintf(want, sizeof want, "cannot open /x: %s", strerror(ENOENT));
	cr_assert_str_eq(err.msg, want);
}

Test(error, a_message_is_one_line)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_error_set(&err, PYRT_E_PINS, "line one\nline two\r");
	cr_assert_str_eq(err.msg, "line one line two ");
}

Test(error, a_cut_message_ends_in_a_mark)
{
	char big[PYRT_ERROR_MSG_MAX * 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_error_set_errno(&err, PYRT_E_IO, ENOENT, "%s", big);
	size_t n = strlen(err.msg);
	cr_assert_eq(n, PYRT_ERROR_MSG_MAX - 1);
	cr_assert_str_eq(err.msg + n - 3, "...", "%s", err.msg + n - 8);
}

Test(error, every_code_has_a_description)
{
	for (int code = PYRT_E_READONLY; code <= 0; code++)
		cr_assert_str_neq(pyrt_strerror(code), "unknown error",
				  "code %d", code);
	cr_assert_str_eq(pyrt_strerror(-999), "unknown error");
}
