/* ctest: test_interp */
/*
 * interp: what doctor and the baseline learn from one run of
 * py/doctor_interp.py, from the real interpreter and from stand-ins that
 * print what an odd runtime would.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/runtime/interp.h"
#include "core/util/error.h"
#include "support.h"

static char *work;
static pyrt_interp_report rep;

static void setup(void)
{
	work = pt_tmpdir("interp");
	memset(&rep, 0, sizeof rep);
}

static void teardown(void)
{
	pt_rmtree(work);
	free(work);
}

TestSuite(interp, .init = setup, .fini = teardown, .timeout = 120);

/* An executable stand-in for python that runs body (sh). */
static char *fake_python(const char *body)
{
	char *path = pt_join(work, "python3");
	char *text = NULL;
	cr_assert_geq(asprintf(&text, "#!/bin/sh\n%s\n", body), 0);
	pt_write(path, text);
	free(text);
	chmod(path, 0755);
	return path;
}

static int run(const char *python, const char *const *reqs, size_t n)
{
	return pyrt_interp_report_run(python, work, reqs, n, 30, NULL, &rep);
}

Test(interp, a_real_interpreter_reports_version_prefix_and_imports)
{
	const char *reqs[] = { "no-such-dist-pyrt" };
	cr_assert_eq(run("/usr/bin/python3", reqs, 1), 0);
	cr_assert_str_empty(rep.why);
	cr_assert(rep.version[0] >= '3', "%s", rep.version);
	cr_assert_eq(rep.prefix[0], '/', "%s", rep.prefix);
	cr_assert(rep.imports_known);
	cr_assert_str_empty(rep.imports, "ssl imports: %s", rep.imports);
}

Test(interp, the_last_tag_line_is_the_answer)
{
	char *py = fake_python("echo 3.12.1; echo /p\n"
			       "echo 'PYRT-IMPORTS ok'\n"
			       "echo 'xPYRT-IMPORTS not a line start'\n"
			       "echo 'PYRT-IMPORTS lxml of lxml (ImportError: x)'");
	cr_assert_eq(run(py, NULL, 0), 0);
	cr_assert_str_empty(rep.why);
	cr_assert_str_eq(rep.version, "3.12.1");
	cr_assert_str_eq(rep.prefix, "/p");
	cr_assert(rep.imports_known);
	cr_assert_str_eq(rep.imports, "lxml of lxml (ImportError: x)");
	free(py);
}

Test(interp, no_tag_is_no_result_and_ok_is_no_failure)
{
	char *py = fake_python("echo 3.12.1; echo /p");
	cr_assert_eq(run(py, NULL, 0), 0);
	cr_assert_eq(rep.imports_known, 0);
	cr_assert_str_eq(rep.version, "3.12.1");
	free(py);
	py = fake_python("echo 3.12.1; echo /p; echo 'PYRT-IMPORTS ok'");
	cr_assert_eq(run(py, NULL, 0), 0);
	cr_assert(rep.imports_known);
	cr_assert_str_empty(rep.imports);
	free(py);
}

Test(interp, the_requirements_are_passed_after_the_program)
{
	char *py = fake_python("shift 7; echo 3.12.1; echo /p; "
			       "echo \"PYRT-IMPORTS $*\"");
	const char *reqs[] = { "python-docx>=1", "lxml" };
	cr_assert_eq(run(py, reqs, 2), 0);
	cr_assert_str_eq(rep.imports, "python-docx>=1 lxml");
	free(py);
}

Test(interp, a_failing_interpreter_says_how_and_reports_nothing)
{
	char *py = fake_python("echo boom; exit 3");
	cr_assert_eq(run(py, NULL, 0), 0);
	cr_assert(strstr(rep.why, "does not start (exit 3"), "%s", rep.why);
	cr_assert(strstr(rep.why, "boom"), "%s", rep.why);
	cr_assert_str_empty(rep.version);
	cr_assert_eq(rep.imports_known, 0);
	free(py);
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/nope", work);
	cr_assert_eq(run(missing, NULL, 0), 0);
	cr_assert_str_not_empty(rep.why);
}
