/* ctest: test_requirement */
/*
 * The requirement check: PEP 508 names with extras, specifiers and markers
 * pass; options, direct references, URLs, paths, file names, empty,
 * control bytes and over-long strings are refused, each naming its rule.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/util/requirement.h"

static void accepts(const char *req)
{
	char why[512] = "";
	cr_assert_eq(pyrt_requirement_check(req, why, sizeof why), 0,
		     "refused [%s]: %s", req, why);
}

/* Refused, with the entry quoted, the reason (needle) and the rule. */
static void refuses(const char *req, const char *needle)
{
	char why[512] = "";
	cr_assert_eq(pyrt_requirement_check(req, why, sizeof why), -1,
		     "accepted [%s]", req);
	cr_assert(strstr(why, needle), "[%s]: %s", req, why);
	cr_assert(strstr(why, "PEP 508"), "[%s]: %s", req, why);
	cr_assert_eq(why[0], '"', "%s", why);
}

Test(requirement, accepts_pep508_names_extras_specifiers_and_markers)
{
	accepts("python-docx");
	accepts("Pillow[extra1,extra2]>=9,<11");
	accepts("Pillow [ extra1 , extra2 ] >= 9 , < 11");
	accepts("foo ; python_version>\"3.8\"");
	accepts("a.b_c-d==1.0.*");
	accepts("x~=1.2");
	accepts("x===abc");
	accepts("x!=1.0.post1+local");
	accepts("x (>=1.0, <2)");
	accepts("x[]");
	accepts("A");
	accepts("  spaced-out  ");
	accepts("x; python_version >= '3.8' and (sys_platform == 'linux' or "
		"os_name != \"nt\")");
	accepts("x; 'linux' in sys_platform");
	accepts("x; platform_machine not in 'x86_64 aarch64'");
	accepts("x; extra == 'docs'");
	accepts("whl");           /* a name, not a file */
	accepts("tarball-tools"); /* ".tar" only as a suffix counts */
}

Test(requirement, refuses_options)
{
	refuses("--log=/tmp/x", "pip option");
	refuses("-r x", "pip option");
	refuses("-e .", "pip option");
	refuses("--index-url=https://evil/simple", "pip option");
	refuses("  --pre", "pip option");
}

Test(requirement, refuses_direct_references)
{
	refuses("pillow @ file:///x.whl", "direct reference");
	refuses("pillow@https://host/pillow-10.whl", "direct reference");
	refuses("pillow[extra] @ https://host/p.whl", "direct reference");
}

Test(requirement, refuses_urls)
{
	refuses("https://host/x.whl", "URL");
	refuses("git+https://github.com/a/b.git#egg=b", "URL");
	refuses("file:x.whl", "URL");
	refuses("x==1; os_name == 'posix' @ https://host/x", "URL");
}

Test(requirement, refuses_paths_and_file_names)
{
	refuses("./x", "path");
	refuses("../x", "path");
	refuses("/abs/x.whl", "path");
	refuses("dir/x", "path");
	refuses("~/x", "path");
	refuses("x.whl", "file name");
	refuses("X.WHL", "file name");
	refuses("pkg-1.0.tar.gz", "file name");
	refuses("pkg.zip[extra]>=1", "file name");
	refuses("x.tgz; python_version > '3'", "file name");
}

Test(requirement, refuses_empty_control_and_long)
{
	refuses("", "empty");
	refuses("   ", "empty");
	char why[512] = "";
	cr_assert_eq(pyrt_requirement_check(NULL, why, sizeof why), -1);
	cr_assert(strstr(why, "empty"), "%s", why);
	refuses("foo\n--log=/tmp/x", "control character");
	refuses("foo\tbar", "control character");
	refuses("foo\x1b[31m", "control character");
	refuses("f\xc3\xb6o", "non-ASCII");
	char longreq[PYRT_REQUIREMENT_MAX + 2];
	memset(longreq, 'a', sizeof longreq - 1);
	longreq[sizeof longreq - 1] = '\0';
	refuses(longreq, "too long");
	longreq[PYRT_REQUIREMENT_MAX] = '\0';
	accepts(longreq);
}

Test(requirement, refuses_what_pep508_does_not_allow)
{
	refuses("foo-", "not a PEP 508 requirement");
	refuses("foo bar", "not a PEP 508 requirement");
	refuses("foo>=", "not a PEP 508 requirement");
	refuses("foo; bogus_var == '1'", "not a PEP 508 requirement");
	refuses("foo; python_version", "not a PEP 508 requirement");
	refuses("foo; python_version > '3' and", "not a PEP 508 requirement");
	refuses("foo; (python_version > '3'", "not a PEP 508 requirement");
	refuses("foo; os_name == 'a\\'", "not a PEP 508 requirement");
	refuses("[x]", "does not start with a package name");
	refuses("foo[bar", "not a PEP 508 requirement");
}

Test(requirement, refusal_quotes_control_bytes_safely)
{
	char why[512] = "";
	cr_assert_eq(pyrt_requirement_check("a\x1b]0;x\x07", why, sizeof why),
		     -1);
	for (const char *p = why; *p; p++)
		cr_assert((unsigned char)*p >= 0x20, "%s", why);
	/* A tiny buffer is not overrun, and NULL is allowed. */
	char small[4] = "zzz";
	cr_assert_eq(pyrt_requirement_check("-x", small, sizeof small), -1);
	cr_assert_eq(pyrt_requirement_check("-x", NULL, 0), -1);
}

Test(requirement, deep_markers_are_refused_not_recursed)
{
	char req[PYRT_REQUIREMENT_MAX + 1] = "x;";
	size_t n = strlen(req);
	while (n < 100)
		req[n++] = '(';
	req[n] = '\0';
	refuses(req, "not a PEP 508 requirement");
}

/* The one normal form of a project name (dists, mirror, wheel lock). */
Test(requirement, name_normal_form)
{
	char out[64];
	cr_assert_eq(pyrt_name_normalize("Python.Docx", 11, '-', out), 0);
	cr_assert_str_eq(out, "python-docx");
	cr_assert_eq(pyrt_name_normalize("zope__.interface", 16, '_', out), 0);
	cr_assert_str_eq(out, "zope_interface");
	cr_assert_eq(pyrt_name_normalize("PyYAML>=6", 6, '-', out), 0);
	cr_assert_str_eq(out, "pyyaml", "only the n bytes given");
	cr_assert_eq(pyrt_name_normalize("caf\xc3\xa9", 5, '-', out), -1,
		     "a byte above 0x7f is said");
}

/* Issue 26, door 7: a refusal is printed, logged and answered by the API;
 * the URL it quotes keeps no credential. */
Test(requirement, refusal_hides_credentials_in_urls)
{
	char why[512];
	cr_assert_eq(pyrt_requirement_check("pkg @ https://bob:hunter2@idx.example/p.whl",
					    why, sizeof why), -1);
	cr_assert(!strstr(why, "hunter2") && !strstr(why, "bob:"), "%s", why);
	cr_assert_eq(pyrt_requirement_check("https://x:s3cr3t@idx.example/simple/p",
					    why, sizeof why), -1);
	cr_assert(!strstr(why, "s3cr3t"), "%s", why);
	cr_assert_eq(pyrt_requirement_check("pkg @ https://idx.example/p.whl?token=t0ps3cret",
					    why, sizeof why), -1);
	cr_assert(!strstr(why, "t0ps3cret"), "%s", why);
}
