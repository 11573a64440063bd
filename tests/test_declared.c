/*
 * core/runtime/declared.h: the declared state round-trips through its file,
 * keeps no secret of an index URL, refuses a damaged file by field, and its
 * comparison with the installed distributions names what is missing or at
 * a version its specifier excludes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/runtime/declared.h"
#include "support.h"

static char *work;

static void setup(void)
{
	work = pt_tmpdir("declared");
}

static void teardown(void)
{
	pt_rmtree(work);
	free(work);
}

TestSuite(declared, .init = setup, .fini = teardown);

Test(declared, round_trip)
{
	pyrt_declared *d = pyrt_declared_new();
	const char *base[] = { "openpyxl", "python-docx>=0.8" };
	const char *plug[] = { "relpkg-a==1.0" };
	cr_assert_eq(pyrt_declared_set_baseline(d, base, 2), 0);
	cr_assert_eq(pyrt_declared_set_plugin(d, "relplug", plug, 1), 0);
	cr_assert_eq(pyrt_declared_set_source(d, "/srv/wheels", NULL), 0);
	cr_assert_eq(pyrt_declared_set_lock(d, "abc123"), 0);
	cr_assert_eq(pyrt_declared_pending_add(d, PYRT_DECLARED_REAPPLY,
					       "relplug"), 0);
	cr_assert_eq(pyrt_declared_pending_add(d, PYRT_DECLARED_REAPPLY,
					       "relplug"), 0);
	pyrt_declared_set_reconciled(d, 1234567890123LL);
	char path[4096];
	cr_assert_eq(pyrt_declared_path(work, path, sizeof path, NULL), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_declared_write(d, path, &err), 0, "%s", err.msg);
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0644);
	pyrt_declared_free(d);

	d = pyrt_declared_new();
	int found = 0;
	cr_assert_eq(pyrt_declared_read(d, path, &found, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(found, 1);
	cr_assert(pyrt_declared_baseline_known(d));
	cr_assert_eq(pyrt_declared_baseline_count(d), 2);
	cr_assert_str_eq(pyrt_declared_baseline_at(d, 1), "python-docx>=0.8");
	cr_assert_eq(pyrt_declared_plugin_count(d), 1);
	size_t n = 0;
	const char *const *r = pyrt_declared_plugin_reqs(d, 0, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(r[0], "relpkg-a==1.0");
	cr_assert_str_eq(pyrt_declared_wheelhouse(d), "/srv/wheels");
	cr_assert_null(pyrt_declared_index_url(d));
	cr_assert_str_eq(pyrt_declared_lock(d), "abc123");
	cr_assert_eq(pyrt_declared_pending_count(d), 1);
	const char *pl = NULL;
	cr_assert_str_eq(pyrt_declared_pending_at(d, 0, &pl), "reapply");
	cr_assert_str_eq(pl, "relplug");
	cr_assert_eq(pyrt_declared_reconciled(d), 1234567890123LL);
	cr_assert_eq(pyrt_declared_pending_clear(d, "reapply", "relplug"), 1);
	cr_assert_eq(pyrt_declared_pending_count(d), 0);
	cr_assert_eq(pyrt_declared_set_plugin(d, "relplug", NULL, 0), 0);
	cr_assert_eq(pyrt_declared_plugin_count(d), 0);
	pyrt_declared_free(d);
}

Test(declared, absent_file_is_nothing_declared)
{
	pyrt_declared *d = pyrt_declared_new();
	char *path = pt_join(work, "declared.json");
	int found = 1;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_declared_read(d, path, &found, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(found, 0);
	cr_assert_not(pyrt_declared_baseline_known(d));
	free(path);
	pyrt_declared_free(d);
}

Test(declared, index_url_with_a_secret_is_not_kept)
{
	pyrt_declared *d = pyrt_declared_new();
	pyrt_declared_set_source(d, NULL, "https://user:tok@idx.example/simple");
	cr_assert_null(pyrt_declared_index_url(d));
	pyrt_declared_set_source(d, NULL, "https://idx.example/simple");
	cr_assert_str_eq(pyrt_declared_index_url(d),
			 "https://idx.example/simple");
	char *path = pt_join(work, "declared.json");
	pyrt_declared_set_source(d, NULL, "https://idx.example/s?token=abc");
	cr_assert_eq(pyrt_declared_write(d, path, NULL), 0);
	char *text = pt_read(path);
	cr_assert_null(strstr(text, "abc"));
	free(text);
	free(path);
	pyrt_declared_free(d);
}

Test(declared, damaged_file_names_the_field)
{
	char *path = pt_join(work, "declared.json");
	pt_write(path, "{\"schema\": 1, \"baseline\": [\"ok\", \"--index-url x\"],"
		       " \"plugins\": {}, \"pending\": [], \"source\": {},"
		       " \"lock_sha256\": \"\", \"reconciled_ns\": 0}");
	pyrt_declared *d = pyrt_declared_new();
	int found = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_declared_read(d, path, &found, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "baseline"), "%s", err.msg);
	cr_assert_eq(found, 0);
	pt_write(path, "{\"schema\": 1, \"baseline\": null, \"plugins\": {},"
		       " \"pending\": [], \"source\": {\"wheelhouse\": \"rel\"},"
		       " \"lock_sha256\": \"\", \"reconciled_ns\": 0}");
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_declared_read(d, path, &found, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "source"), "%s", err.msg);
	free(path);
	pyrt_declared_free(d);
}

static void note(const char *req, const char *name, pyrt_declared_gap gap,
		 const char *have, void *ctx)
{
	char *out = ctx;
	(void)req;
	size_t n = strlen(out);
	snprintf(out + n, 512 - n, "%s:%d:%s;", name, (int)gap, have);
}

Test(declared, diff_names_missing_and_wrong_version)
{
	cr_assert_eq(pt_sh("cd '%s' && mkdir -p site/lib site/lib-1.0.dist-info "
			   "site/gone-2.0.dist-info && touch site/lib/__init__.py && "
			   "printf 'Metadata-Version: 2.1\\nName: lib\\nVersion: 1.0\\n"
			   "Requires-Dist: dep1 (>=1)\\nRequires-Dist: gone\\n"
			   "Requires-Dist: win; sys_platform == \\\"win32\\\"\\n' "
			   "> site/lib-1.0.dist-info/METADATA && "
			   "printf 'Metadata-Version: 2.1\\nName: gone\\nVersion: 2.0\\n' "
			   "> site/gone-2.0.dist-info/METADATA && "
			   "printf 'lib/__init__.py,,\\n' > site/lib-1.0.dist-info/RECORD && "
			   "printf 'gone/__init__.py,,\\n' > site/gone-2.0.dist-info/RECORD",
			   work), 0);
	const char *rel[] = { "site" };
	pyrt_dists *ds = pyrt_dists_new(work, rel, 1);
	const char *reqs[] = { "lib>=2", "gone", "absent", "lib<2", "lib[x]" };
	char out[512] = "";
	int unknown = 0;
	int gaps = pyrt_declared_diff_reqs(reqs, 5, ds, note, out, &unknown);
	cr_assert_eq(gaps, 4, "%s", out);
	/* lib's own requirements after the declared ones: dep1 is missing
	 * (gone was judged already; win's marker is Python's). */
	cr_assert_str_eq(out, "lib:2:1.0;gone:1:;absent:1:;dep1:3:;");
	cr_assert_eq(unknown, 1);
	pyrt_dists_free(ds);
}
