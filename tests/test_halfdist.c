/*
 * Half-installed distributions (core/halfdist.h): a site folder with one
 * distribution of each kind, whole or not, and the scan names exactly the
 * ones an installer did not finish.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halfdist.h"
#include "support.h"

static char *site;

static void setup(void)
{
	site = pt_tmpdir("halfdist");
}

static void teardown(void)
{
	pt_rmtree(site);
	free(site);
}

TestSuite(halfdist, .init = setup, .fini = teardown);

/* A file under site, its folders made first. */
static void put(const char *rel, const char *text)
{
	char *path = pt_join(site, rel);
	cr_assert_eq(pt_sh("mkdir -p \"$(dirname '%s')\"", path), 0);
	pt_write(path, text);
	free(path);
}

Test(halfdist, names_only_what_an_installer_left_unfinished)
{
	/* Whole: every file RECORD lists is there, a quoted path with a
	 * comma and a doubled quote too; a missing .pyc does not count. */
	put("whole/__init__.py", "");
	put("whole/a,\"b.py", "");
	put("Whole_Pkg-2.0.dist-info/METADATA", "Name: Whole_Pkg\n");
	put("Whole_Pkg-2.0.dist-info/RECORD",
	    "whole/__init__.py,sha256=x,0\r\n"
	    "\"whole/a,\"\"b.py\",sha256=y,0\n"
	    "whole/__pycache__/__init__.cpython-311.pyc,,\n"
	    "Whole_Pkg-2.0.dist-info/METADATA,,\n"
	    "Whole_Pkg-2.0.dist-info/RECORD,,\n");
	/* No RECORD: the installer stopped after METADATA. */
	put("et_xmlfile-1.0.1.dist-info/METADATA", "Name: et_xmlfile\n");
	/* RECORD is a directory (what e2e_baseline_half puts in the way). */
	put("dirrec-3.dist-info/RECORD/x", "");
	/* A file RECORD lists has gone. */
	put("gone-1.5.dist-info/METADATA", "Name: gone\n");
	put("gone-1.5.dist-info/RECORD", "gone/__init__.py,,\n"
	    "gone-1.5.dist-info/METADATA,,\n");
	/* Not a dist-info at all. */
	put("notes.txt", "");
	put(".dist-info/x", "");

	pyrt_halfdist h[8];
	int n = pyrt_halfdist_scan(site, h, 8);
	cr_assert_eq(n, 3, "found %d", n);
	/* Sorted by folder name. */
	cr_assert_str_eq(h[0].name, "dirrec");
	cr_assert_str_eq(h[0].version, "3");
	cr_assert(h[0].no_record);
	cr_assert_not(h[0].has_metadata);
	cr_assert_not_null(strstr(h[0].why, "dirrec-3.dist-info/RECORD is not "
				  "a file"), "%s", h[0].why);
	cr_assert_str_eq(h[1].name, "et-xmlfile");
	cr_assert_str_eq(h[1].version, "1.0.1");
	cr_assert_str_eq(h[1].folder, "et_xmlfile-1.0.1.dist-info");
	cr_assert(h[1].no_record);
	cr_assert(h[1].has_metadata);
	cr_assert_not_null(strstr(h[1].why, "RECORD is missing"), "%s",
			   h[1].why);
	cr_assert_str_eq(h[2].name, "gone");
	cr_assert_not(h[2].no_record);
	cr_assert_not_null(strstr(h[2].why, "gone/__init__.py, which its "
				  "RECORD lists, is missing"), "%s", h[2].why);

	/* More than max: counted, max filled. */
	cr_assert_eq(pyrt_halfdist_scan(site, h, 1), 3);
	cr_assert_str_eq(h[0].name, "dirrec");
	cr_assert_eq(pyrt_halfdist_scan(site, NULL, 0), 3);

	/* Repaired, they are gone from the answer. */
	cr_assert_eq(pt_sh("cd '%s' && rm -r dirrec-3.dist-info && "
			   "touch et_xmlfile-1.0.1.dist-info/RECORD && "
			   "mkdir gone && touch gone/__init__.py", site), 0);
	cr_assert_eq(pyrt_halfdist_scan(site, h, 8), 0);
}

Test(halfdist, a_missing_folder_has_none)
{
	char *path = pt_join(site, "absent");
	pyrt_halfdist h[1];
	cr_assert_eq(pyrt_halfdist_scan(path, h, 1), 0);
	free(path);
}
