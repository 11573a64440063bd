/*
 * core/runtime/dists.h: installed means a dist-info with a RECORD whose files are
 * all there; bytecode caches and absolute paths are not held against it;
 * RECORD's CSV quoting is read as csv does.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/dists.h"
#include "support.h"

static char *work;

static void setup(void)
{
	work = pt_tmpdir("dists");
	cr_assert_eq(pt_sh("cd '%s' && mkdir -p site/good site/good-1.0.dist-info "
			   "site/gone-2.0.dist-info site/norec-3.0.dist-info && "
			   "touch site/good/__init__.py 'site/good/a,b.py' && "
			   "for d in good-1.0 gone-2.0 norec-3.0; do "
			   "n=${d%%-*}; v=${d#*-}; printf 'Metadata-Version: 2.1\\n"
			   "Name: %%s\\nVersion: %%s\\n' $n $v "
			   "> site/$d.dist-info/METADATA; done", work), 0);
	char *rec = pt_join(work, "site/good-1.0.dist-info/RECORD");
	pt_write(rec, "good/__init__.py,sha256=x,0\n"
		      "\"good/a,b.py\",sha256=y,0\n"
		      "good/__pycache__/__init__.cpython-311.pyc,,\n"
		      "/opt/elsewhere/data.txt,,\n"
		      "good-1.0.dist-info/METADATA,,\n"
		      "good-1.0.dist-info/RECORD,,\n");
	free(rec);
	rec = pt_join(work, "site/gone-2.0.dist-info/RECORD");
	pt_write(rec, "gone-2.0.dist-info/METADATA,,\r\n"
		      "gone/__init__.py,sha256=z,0\r\n");
	free(rec);
}

static void teardown(void)
{
	pt_rmtree(work);
	free(work);
}

TestSuite(dists, .init = setup, .fini = teardown);

static pyrt_dists *reader(void)
{
	const char *rel[] = { "absent", "site" };
	pyrt_dists *d = pyrt_dists_new(work, rel, 2);
	cr_assert_not_null(d);
	return d;
}

Test(dists, a_record_whose_files_are_there_is_installed)
{
	pyrt_dists *d = reader();
	char why[256] = "", v[64];
	cr_assert_eq(pyrt_dists_intact(d, "Good", why, sizeof why), 1, "%s",
		     why);
	cr_assert_eq(pyrt_dists_version(d, "good", v, sizeof v), 1);
	cr_assert_str_eq(v, "1.0");
	cr_assert_eq(pyrt_dists_intact(d, "nosuch", why, sizeof why), 2);
	pyrt_dists_free(d);
}

Test(dists, a_listed_file_missing_or_no_record_is_not_installed)
{
	pyrt_dists *d = reader();
	char why[256] = "", v[64];
	cr_assert_eq(pyrt_dists_intact(d, "gone", why, sizeof why), 0);
	cr_assert_str_eq(why, "gone/__init__.py is missing", "a CRLF RECORD "
			 "names the path without its \\r");
	cr_assert_eq(pyrt_dists_version(d, "gone", v, sizeof v), 0);
	cr_assert_eq(pyrt_dists_intact(d, "norec", why, sizeof why), 0);
	cr_assert_str_eq(why, "norec-3.0.dist-info has no RECORD");
	cr_assert_eq(pyrt_dists_version(d, "norec", v, sizeof v), 0);
	pyrt_dists_free(d);
}

static void count_broken(const char *name, const char *version,
			 const char *why, void *ctx)
{
	char *seen = ctx;
	(void)why;
	strcat(seen, name);
	strcat(seen, "=");
	strcat(seen, version);
	strcat(seen, " ");
}

Test(dists, each_broken_names_them_with_their_version)
{
	pyrt_dists *d = reader();
	char seen[256] = "";
	cr_assert_eq(pyrt_dists_each_broken(d, count_broken, seen), 2);
	cr_assert(strstr(seen, "gone=2.0 ") && strstr(seen, "norec=3.0 "),
		  "%s", seen);
	pyrt_dists_free(d);
}

Test(dists, the_stamp_changes_when_pip_writes_the_dist_info_anew)
{
	pyrt_dists *d = reader();
	char a[512], b[512];
	cr_assert_eq(pyrt_dists_stamp(d, "good>=1.0", a, sizeof a), 1);
	cr_assert_eq(pyrt_dists_stamp(d, "gone", b, sizeof b), 0,
		     "not whole: no stamp");
	pyrt_dists_free(d);
	cr_assert_eq(pt_sh("cd '%s/site' && cp -a good-1.0.dist-info x && "
			   "rm -rf good-1.0.dist-info && mv x good-1.0.dist-info",
			   work), 0);
	d = reader();
	cr_assert_eq(pyrt_dists_stamp(d, "good", b, sizeof b), 1);
	cr_assert_str_neq(a, b, "a reinstalled dist-info is a new one");
	pyrt_dists_free(d);
}

/* The reader keeps one descriptor per folder (every folder on the way
 * opened once): a folder named twice on the path is still listed twice,
 * as Python's search does, and a link on the way is still refused. */
Test(dists, a_folder_named_twice_is_listed_twice_and_a_link_is_refused)
{
	const char *rel[] = { "site", "site/" };
	pyrt_dists *d = pyrt_dists_new(work, rel, 2);
	cr_assert_not_null(d);
	char seen[512] = "";
	cr_assert_eq(pyrt_dists_each_broken(d, count_broken, seen), 4, "%s",
		     seen);
	pyrt_dists_free(d);

	cr_assert_eq(pt_sh("cd '%s' && mkdir -p real && ln -s ../site real/s && "
			   "ln -s real via", work), 0);
	const char *linked[] = { "via/s" };
	char v[64];
	d = pyrt_dists_new(work, linked, 1);
	cr_assert_eq(pyrt_dists_version(d, "good", v, sizeof v), -1,
		     "a link on the way: Python's to say");
	pyrt_dists_free(d);
	const char *last[] = { "real/s" };
	d = pyrt_dists_new(work, last, 1);
	cr_assert_eq(pyrt_dists_version(d, "good", v, sizeof v), -1,
		     "the folder itself a link: Python's to say");
	pyrt_dists_free(d);
}
