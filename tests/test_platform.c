/* platform: uname words to pin keys, and detection on this machine. */
#include <criterion/criterion.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/dist/pins.h"
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

/*
 * Every key pyrt knows, from the words its machines give: uname(2)'s
 * sysname and machine, and on Linux the loader the running binary names
 * (PT_INTERP).  A key added to pins.yaml without a row here fails
 * known_keys_all_detected.
 */
static const struct {
	const char *sysname, *machine, *loader, *key;
} known[] = {
	{ "Linux", "x86_64", "/lib64/ld-linux-x86-64.so.2", "linux-x86_64-gnu" },
	{ "Linux", "aarch64", "/lib/ld-linux-aarch64.so.1", "linux-aarch64-gnu" },
	{ "Linux", "x86_64", "/lib/ld-musl-x86_64.so.1", "linux-x86_64-musl" },
	{ "Linux", "aarch64", "/lib/ld-musl-aarch64.so.1", "linux-aarch64-musl" },
	{ "Darwin", "arm64", NULL, "darwin-aarch64-none" },
	{ "Darwin", "x86_64", NULL, "darwin-x86_64-none" },
	/* Cygwin/MSYS-style uname words; pyrt pins Windows for other tools. */
	{ "Windows", "AMD64", NULL, "windows-x86_64-none" },
};

#if __SIZEOF_POINTER__ == 8
typedef Elf64_Ehdr t_ehdr;
typedef Elf64_Phdr t_phdr;
#define T_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr t_ehdr;
typedef Elf32_Phdr t_phdr;
#define T_CLASS ELFCLASS32
#endif

/*
 * A minimal ELF of this machine's class and byte order at DIR/NAME whose
 * PT_INTERP is interp (none when NULL: a static program); interp_len
 * bytes of it are written, so a test can drop the NUL.
 */
static char *write_elf(const char *dir, const char *name, const char *interp,
		       size_t interp_len)
{
	unsigned char buf[4096];
	t_ehdr h;
	t_phdr ph;
	memset(buf, 0, sizeof buf);
	memset(&h, 0, sizeof h);
	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = T_CLASS;
	h.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_DYN;
	h.e_version = EV_CURRENT;
	h.e_ehsize = sizeof h;
	h.e_phoff = sizeof h;
	h.e_phentsize = sizeof ph;
	h.e_phnum = interp ? 1 : 0;
	memcpy(buf, &h, sizeof h);
	size_t end = sizeof h;
	if (interp) {
		memset(&ph, 0, sizeof ph);
		ph.p_type = PT_INTERP;
		ph.p_offset = sizeof h + sizeof ph;
		ph.p_filesz = interp_len;
		memcpy(buf + sizeof h, &ph, sizeof ph);
		cr_assert_lt(ph.p_offset + interp_len, sizeof buf);
		memcpy(buf + ph.p_offset, interp, interp_len);
		end = ph.p_offset + interp_len;
	}
	char *path = pt_join(dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, end, f), end);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static char *elf_with(const char *dir, const char *name, const char *interp)
{
	return write_elf(dir, name, interp, strlen(interp) + 1);
}

Test(platform, known_keys_detected_from_uname_and_loader)
{
	char *dir = pt_tmpdir("platform-keys");
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		char *exe = known[i].loader ? elf_with(dir, "prog", known[i].loader)
					    : pt_join(dir, "no-such-program");
		pyrt_platform p;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_platform_detect_exe(&p, known[i].sysname,
						      known[i].machine, exe, &err),
			     0, "%s: %s", known[i].key, err.msg);
		cr_assert_str_eq(p.key, known[i].key);
		free(exe);
	}
	pt_rmtree(dir);
	free(dir);
}

Test(platform, known_keys_all_detected)
{
	pyrt_pins *pins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_builtin(&pins, &err), 0, "%s", err.msg);
	size_t n = pyrt_pins_archive_count(pins);
	cr_assert_geq(n, 7);
	for (size_t i = 0; i < n; i++) {
		const char *key = pyrt_pins_archive_at(pins, i)->key;
		int found = 0;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			found |= strcmp(known[k].key, key) == 0;
		cr_assert(found, "pinned key %s has no detection row in test_platform.c", key);
	}
	pyrt_pins_free(pins);
}

/* The libc is the running binary's: the x86_64 pyrt says gnu by its own
 * loader, and so does the arm64 one when it is built (e2e_cross). */
Test(platform, real_binaries_name_their_loader)
{
	const char *bins[] = { getenv("PYRT_BIN"), "/bin/sh" };
	for (size_t i = 0; i < 2; i++) {
		char interp[256];
		const char *libc = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		if (!bins[i])
			continue;
		cr_assert_eq(pyrt_platform_elf_interp(bins[i], interp, sizeof interp, &err),
			     0, "%s: %s", bins[i], err.msg);
		cr_assert_not_null(strstr(interp, "/ld-linux"), "%s: %s", bins[i], interp);
		cr_assert_eq(pyrt_platform_libc_of(bins[i], &libc, &err), 0, "%s", err.msg);
		cr_assert_str_eq(libc, "gnu");
	}
	char *arm = pt_join(pt_binary_dir(), "cross-arm64/pyrt");
	char interp[256];
	pyrt_error err = PYRT_ERROR_INIT;
	if (access(arm, F_OK) == 0) {
		/* another class of machine but the same byte order and width */
		cr_assert_eq(pyrt_platform_elf_interp(arm, interp, sizeof interp, &err),
			     0, "%s", err.msg);
		cr_assert_str_eq(interp, "/lib/ld-linux-aarch64.so.1");
	}
	free(arm);
}

/*
 * The running process is named from memory (its mapped PT_INTERP and the
 * loader's own DT_SONAME), with the same answer the file path gives: this
 * test binary runs on glibc under glibc's loader.
 */
Test(platform, running_libc_read_from_memory)
{
	const char *from_file = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_platform_libc_of("/proc/self/exe", &from_file, &err), 0,
		     "%s", err.msg);
	const char *from_memory = pyrt_platform_libc_running();
	cr_assert_not_null(from_memory, "the running loader was not recognised");
	cr_assert_str_eq(from_memory, from_file);
	cr_assert_str_eq(from_memory, "gnu");
}

Test(platform, static_program_asks_confstr)
{
	char *dir = pt_tmpdir("platform-static");
	char *exe = write_elf(dir, "static", NULL, 0);
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_platform_detect_exe(&p, "Linux", "x86_64", exe, &err), 0,
		     "%s", err.msg);
	/* this test binary runs on glibc */
	cr_assert_str_eq(p.key, "linux-x86_64-gnu");
	free(exe);
	pt_rmtree(dir);
	free(dir);
}

static void expect_detect_refused(const char *exe, const char *machine,
				  const char *named)
{
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	memset(&p, 0x5a, sizeof p);
	cr_assert_eq(pyrt_platform_detect_exe(&p, "Linux", machine, exe, &err),
		     PYRT_E_UNSUPPORTED, "%s accepted", exe);
	cr_assert_not_null(strstr(err.msg, named), "%s", err.msg);
	cr_assert_eq((unsigned char)p.key[0], 0x5a);
}

/*
 * A glibc pyrt on a musl host (gcompat names musl's loader with glibc's
 * name): the glibc runtime it would fetch cannot run there, so detection
 * refuses (PYRT_E_UNSUPPORTED, exit 8) saying so.
 */
Test(platform, glibc_pyrt_on_musl_host_refused)
{
	char *dir = pt_tmpdir("platform-gcompat");
	char *musl = pt_join(dir, "ld-musl-x86_64.so.1");
	char *alias = pt_join(dir, "ld-linux-x86-64.so.2");
	pt_write(musl, "musl's loader\n");
	cr_assert_eq(symlink("ld-musl-x86_64.so.1", alias), 0);
	char *exe = elf_with(dir, "pyrt", alias);
	expect_detect_refused(exe, "x86_64", "this pyrt is built for gnu");
	expect_detect_refused(exe, "x86_64", "ld-musl-x86_64.so.1");
	/* the same name that is glibc's loader passes */
	cr_assert_eq(unlink(alias), 0);
	char *glibc = pt_join(dir, "ld-linux-x86-64.so.2.real");
	pt_write(glibc, "glibc's loader\n");
	cr_assert_eq(symlink("ld-linux-x86-64.so.2.real", alias), 0);
	pyrt_platform p;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_platform_detect_exe(&p, "Linux", "x86_64", exe, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(p.key, "linux-x86_64-gnu");
	free(glibc);
	free(exe);
	free(alias);
	free(musl);
	pt_rmtree(dir);
	free(dir);
}

Test(platform, unknown_or_malformed_loader_refused)
{
	char *dir = pt_tmpdir("platform-bad");
	char *exe = elf_with(dir, "bionic", "/system/bin/linker64");
	expect_detect_refused(exe, "aarch64", "unknown dynamic loader /system/bin/linker64");
	free(exe);
	exe = write_elf(dir, "nonul", "/lib/ld-musl-x86_64.so.1", 24);
	expect_detect_refused(exe, "x86_64", "malformed ELF interpreter");
	free(exe);
	exe = pt_join(dir, "script");
	pt_write(exe, "#!/bin/sh\n");
	expect_detect_refused(exe, "x86_64", "is not an ELF program");
	free(exe);
	exe = pt_join(dir, "missing");
	expect_detect_refused(exe, "x86_64", "cannot read");
	free(exe);
	pt_rmtree(dir);
	free(dir);
}

/* A platform with no pin: the real binary refuses with exit 8 naming the
 * keys it has, and writes nothing. */
Test(platform, no_pin_for_platform_exits_8)
{
	const char *bin = getenv("PYRT_BIN");
	cr_assert_not_null(bin);
	char *dir = pt_tmpdir("platform-nopin");
	char *pins = pt_join(dir, "pins.yaml");
	pt_write(pins, "schema: 1\n"
		       "runtime:\n  implementation: cpython\n  version: \"3.12.14\"\n"
		       "  build: \"20260814\"\n"
		       "archives:\n  linux-riscv64-gnu:\n"
		       "    url: https://upstream.invalid/a.tar.gz\n"
		       "    sha256: 0000000000000000000000000000000000000000000000000000000000000000\n"
		       "    size: 1\n"
		       "baseline:\n  - python-docx\n");
	char *box = pt_join(dir, "box");
	cr_assert_eq(pt_sh("'%s' install --yes --no-baseline --box-root '%s' --pins '%s' "
			   "</dev/null >'%s/out' 2>&1; test $? -eq 8", bin, box, pins, dir), 0);
	char *out_path = pt_join(dir, "out");
	char *out = pt_read(out_path);
	cr_assert_not_null(strstr(out, "unsupported platform"), "%s", out);
	cr_assert_not_null(strstr(out, "supported: linux-riscv64-gnu"), "%s", out);
	cr_assert_eq(access(box, F_OK), -1, "the refused install wrote %s", box);
	free(out);
	free(out_path);
	free(box);
	free(pins);
	pt_rmtree(dir);
	free(dir);
}
