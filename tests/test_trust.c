/* ctest: test_trust */
/* Tests for core/util/trust.c: the walk of a typed path that decides what runs. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/trust.h"
#include "support.h"

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("trust");
	chmod(tmp, 0755);
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(trust, .init = setup, .fini = teardown);

static int walk(const char *path, unsigned flags, char *out, pyrt_error *err)
{
	pyrt_error_clear(err);
	return pyrt_trust_path("--pins", path, flags, out, out ? PATH_MAX : 0,
			       err);
}

Test(trust, a_private_file_is_taken_and_resolved)
{
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, out, &err), 0, "%s", err.msg);
	char *real = realpath(f, NULL);
	cr_assert_str_eq(out, real);
	free(real);
	free(f);
}

Test(trust, a_file_others_can_write_is_refused_with_the_fix)
{
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	cr_assert_eq(chmod(f, 0664), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "refusing --pins"), "%s", err.msg);
	cr_assert(strstr(err.msg, "writable by its group (mode 0664)"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, "chmod go-w"), "%s", err.msg);
	/* The object is the caller's with NO_FINAL. */
	cr_assert_eq(walk(f, PYRT_TRUST_NO_FINAL, NULL, &err), 0, "%s",
		     err.msg);
	free(f);
}

Test(trust, a_shared_folder_must_be_sticky)
{
	char *dir = pt_join(tmp, "shared");
	char *f = pt_join(dir, "pins.yaml");
	cr_assert_eq(mkdir(dir, 0777), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	pt_write(f, "x\n");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "not sticky"), "%s", err.msg);
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(walk(f, 0, NULL, &err), 0, "%s", err.msg);
	free(f);
	free(dir);
}

Test(trust, the_missing_tail_is_kept_without_dot_dot)
{
	char *p = pt_join(tmp, "new/sub");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(p, 0, out, &err), PYRT_E_USAGE);
	cr_assert_eq(walk(p, PYRT_TRUST_MISSING_OK, out, &err), 0, "%s",
		     err.msg);
	cr_assert(strstr(out, "/new/sub"), "%s", out);
	char *q = pt_join(tmp, "new/../../etc");
	cr_assert_eq(walk(q, PYRT_TRUST_MISSING_OK, out, &err), PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "\"..\""), "%s", err.msg);
	free(q);
	free(p);
}

Test(trust, dot_dot_of_a_real_folder_climbs_without_checking_it)
{
	/* cwd-relative paths cross folders the user only passes through. */
	char *other = pt_join(tmp, "other");
	cr_assert_eq(mkdir(other, 0777), 0);
	cr_assert_eq(chmod(other, 0777), 0);
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	char *via = pt_join(other, "../pins.yaml");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(via, 0, out, &err), 0, "%s", err.msg);
	free(via);
	free(f);
	free(other);
}

Test(trust, links_loop_and_are_followed_when_ours)
{
	char *a = pt_join(tmp, "a"), *b = pt_join(tmp, "b");
	cr_assert_eq(symlink(a, b), 0);
	cr_assert_eq(symlink(b, a), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(a, 0, NULL, &err), PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "too many symbolic links"), "%s", err.msg);
	char *dir = pt_join(tmp, "real"), *f = pt_join(dir, "pins.yaml");
	char *link = pt_join(tmp, "rel"), *via = pt_join(link, "pins.yaml");
	cr_assert_eq(mkdir(dir, 0755), 0);
	pt_write(f, "x\n");
	cr_assert_eq(symlink("real", link), 0);
	char out[PATH_MAX];
	cr_assert_eq(walk(via, 0, out, &err), 0, "%s", err.msg);
	cr_assert(strstr(out, "/real/pins.yaml"), "%s", out);
	free(a); free(b); free(dir); free(f); free(link); free(via);
}

Test(trust, a_link_someone_else_owns_is_refused_even_links_only)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give a link to another uid");
	char *sticky = pt_join(tmp, "sticky"), *dir = pt_join(tmp, "real");
	char *link = pt_join(sticky, "link"), *via = pt_join(link, "x");
	cr_assert_eq(mkdir(sticky, 0755), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_eq(lchown(link, 1234, 1234), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(via, PYRT_TRUST_MISSING_OK | PYRT_TRUST_LINKS_ONLY,
			  NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "symbolic link owned by uid 1234"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, dir), "names where it points: %s", err.msg);
	cr_assert_eq(lchown(link, 0, 0), 0);
	cr_assert_eq(walk(via, PYRT_TRUST_MISSING_OK, NULL, &err), 0, "%s",
		     err.msg);
	free(sticky); free(dir); free(link); free(via);
}

Test(trust, a_wheelhouse_is_checked_entry_by_entry)
{
	char *wh = pt_join(tmp, "wh"), *w = pt_join(wh, "a-1-py3-none-any.whl");
	cr_assert_eq(mkdir(wh, 0755), 0);
	pt_write(w, "x");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_trust_dir_entries("--wheelhouse", wh, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(chmod(w, 0666), 0);
	cr_assert_eq(pyrt_trust_dir_entries("--wheelhouse", wh, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "a-1-py3-none-any.whl"), "%s", err.msg);
	free(w);
	free(wh);
}
