/* platform: uname words to pin keys, and detection on this machine. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/dist/platform.h"
#include "support.h"

static void expect_key(const char *os, const char *arch, const char *libc,
		       const char *key)
{
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_platform_make(&p, os, arch, libc, &err), 0,
		     "%s/%s/%s: %s", os, arch, libc, err.msg);
	cr_assert_str_eq(p.key, key);
}

static void expect_refused(const char *os, const char *arch, const char *libc,
			   const char *named)
{
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	memset(&p, 0x5a, sizeof p);
	cr_assert_eq(pyrt_platform_make(&p, os, arch, libc, &err),
		     PYRT_E_UNSUPPORTED, "%s/%s/%s accepted", os, arch, libc);
	cr_assert_eq(err.code, PYRT_E_UNSUPPORTED);
	cr_assert_not_null(strstr(err.msg, named), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "expected"), "%s", err.msg);
	/* out is untouched on failure */
	cr_assert_eq((unsigned char)p.key[0], 0x5a);
}

Test(platform, make_normalises)
{
	expect_key("Linux", "x86_64", "gnu", "linux-x86_64-gnu");
	expect_key("Darwin", "arm64", "none", "darwin-aarch64-none");
	expect_key("Linux", "aarch64", "musl", "linux-aarch64-musl");
	expect_key("FreeBSD", "amd64", "none", "freebsd-x86_64-none");
	expect_key("Windows", "AMD64", "none", "windows-x86_64-none");
	expect_key("Linux", "ARM64", "gnu", "linux-aarch64-gnu");
	/* unknown machines pass through lowercased */
	expect_key("Linux", "riscv64", "gnu", "linux-riscv64-gnu");
	expect_key("Linux", "ppc64le", "gnu", "linux-ppc64le-gnu");
}

Test(platform, make_fills_parts)
{
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_platform_make(&p, "Darwin", "amd64", "none", &err), 0);
	cr_assert_str_eq(p.os, "darwin");
	cr_assert_str_eq(p.arch, "x86_64");
	cr_assert_str_eq(p.libc, "none");
	cr_assert_str_eq(p.key, "darwin-x86_64-none");
}

Test(platform, make_refuses_invalid_words)
{
	expect_refused("", "x86_64", "gnu", "operating system");
	expect_refused("linux-x", "x86_64", "gnu", "linux-x");
	expect_refused("lin ux", "x86_64", "gnu", "lin ux");
	expect_refused("../etc", "x86_64", "gnu", "../etc");
	expect_refused("averyveryverylongosname", "x86_64", "gnu",
		       "averyveryverylongosname");
	expect_refused("linux", "", "gnu", "machine");
	expect_refused("linux", "x86-64", "gnu", "x86-64");
	expect_refused("linux", "x86/64", "gnu", "x86/64");
	expect_refused("linux", "x86_64", "glibc", "glibc");
	expect_refused("linux", "x86_64", "", "C library");
	expect_refused("linux", "x86_64", "GNU", "GNU");
}

/* The machine's own uname, read through the shell rather than uname(2). */
static char *shell_word(const char *dir, const char *flag)
{
	char *out = pt_join(dir, flag + 1);
	cr_assert_eq(pt_sh("uname %s | tr -d '\\n' > '%s'", flag, out), 0);
	char *word = pt_read(out);
	cr_assert_not_null(word);
	free(out);
	return word;
}

Test(platform, detect_matches_uname)
{
	char *dir = pt_tmpdir("platform");
	char *os = shell_word(dir, "-s");
	char *machine = shell_word(dir, "-m");
	pyrt_platform p, want;
	pyrt_error err = PYRT_ERROR_INIT;

	/* getconf answers GNU_LIBC_VERSION on glibc only */
	const char *libc = "none";
	if (strcmp(os, "Linux") == 0)
		libc = pt_sh("getconf GNU_LIBC_VERSION 2>/dev/null | "
			     "grep -q '^glibc'") == 0 ? "gnu" : "musl";

	cr_assert_eq(pyrt_platform_detect(&p, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_platform_make(&want, os, machine, libc, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(p.key, want.key);
	cr_assert_str_eq(p.os, want.os);
	cr_assert_str_eq(p.arch, want.arch);
	cr_assert_str_eq(p.libc, want.libc);
	if (strcmp(os, "Linux") == 0 && strcmp(machine, "x86_64") == 0 &&
	    strcmp(libc, "gnu") == 0)
		cr_assert_str_eq(p.key, "linux-x86_64-gnu");
	pt_rmtree(dir);
	free(os);
	free(machine);
	free(dir);
}
