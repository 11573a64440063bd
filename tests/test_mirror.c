/* ctest: test_mirror */
/*
 * Where a pinned URL's archive goes in a mirror (core/dist/mirror.h): the last
 * two path segments, percent-decoded as a web server decodes a request,
 * never a name that leaves the directory or hides as a temporary; and the
 * verify of a mirror's index.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist/mirror.h"
#include "support.h"

static int relpath(const char *url, char *out, size_t len)
{
	pyrt_error err = PYRT_ERROR_INIT;
	return pyrt_mirror_relpath(url, out, len, &err);
}

Test(mirror, relpath_is_build_and_file_decoded)
{
	char out[512];
	cr_assert_eq(relpath("https://h/releases/download/20260814/"
			     "cpython-3.12.14%2B20260814-x86_64-unknown-linux-"
			     "gnu-install_only_stripped.tar.gz", out,
			     sizeof out), 0);
	cr_assert_str_eq(out, "20260814/cpython-3.12.14+20260814-x86_64-"
			 "unknown-linux-gnu-install_only_stripped.tar.gz");
	cr_assert_eq(relpath("https://h/pbs/fixture/runtime.tar.gz?x=1#f", out,
			     sizeof out), 0);
	cr_assert_str_eq(out, "fixture/runtime.tar.gz");
}

Test(mirror, relpath_refuses_names_that_escape_or_hide)
{
	char out[512];
	const char *bad[] = {
		"https://h/runtime.tar.gz",          /* one segment */
		"https://h/a/..",                    /* dot-dot file */
		"https://h/%2e%2e/runtime.tar.gz",   /* encoded dot-dot build */
		"https://h/a/b%2Fc.tar.gz",          /* encoded slash */
		"https://h/a/.hidden.tar.gz",        /* our temporaries' form */
		"https://h/a/x%0a.tar.gz",           /* control byte */
		"https://h/a/",                      /* empty file */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_neq(relpath(bad[i], out, sizeof out), 0, "%s", bad[i]);
}

static int nproblems;
static char last_file[256];

static void on_problem(const char *file, const char *what, void *payload)
{
	(void)what;
	(void)payload;
	nproblems++;
	snprintf(last_file, sizeof last_file, "%s", file);
}

Test(mirror, verify_names_a_changed_file_and_refuses_escaping_paths)
{
	char *dir = pt_tmpdir("mirror");
	char *sub = pt_join(dir, "b");
	pt_sh("mkdir -p '%s' && printf abc > '%s/f'", sub, sub);
	char *idx = pt_join(dir, PYRT_MIRROR_INDEX);
	/* sha256("abc") */
	pt_write(idx, "{\"archives\": {\"k\": {\"file\": \"b/f\", \"sha256\": "
		 "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
		 " \"size\": 3}},"
		 " \"wheels\": {\"../etc/passwd\": {\"sha256\": "
		 "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
		 " \"size\": 3}}}");
	size_t checked = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	nproblems = 0;
	cr_assert_eq(pyrt_mirror_verify(dir, on_problem, NULL, &checked, &err), 1);
	cr_assert_eq(checked, 2);
	cr_assert_str_eq(last_file, "../etc/passwd");
	pt_sh("printf abd > '%s/f'", sub);
	nproblems = 0;
	cr_assert_eq(pyrt_mirror_verify(dir, on_problem, NULL, &checked, &err), 2);
	pt_rmtree(dir);
	free(idx);
	free(sub);
	free(dir);
}

Test(mirror, verify_without_an_index_is_not_ready)
{
	char *dir = pt_tmpdir("mirror-none");
	size_t checked = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_mirror_verify(dir, on_problem, NULL, &checked, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "not a pyrt mirror"), "%s", err.msg);
	pt_rmtree(dir);
	free(dir);
}
