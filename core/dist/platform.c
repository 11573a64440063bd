/*
 * Names the running machine as a pin key "<os>-<arch>-<libc>": uname(2) for
 * the kernel and machine, and on Linux whether we run on glibc or musl,
 * since python-build-standalone ships a separate archive for each.
 */
#include "core/dist/platform.h"
#include "core/util/fmt.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* uname spellings of one architecture, mapped to the pin-key word. */
static const struct {
	const char *alias;
	const char *arch;
} arch_aliases[] = {
	{ "x86_64", "x86_64" },
	{ "amd64", "x86_64" },
	{ "aarch64", "aarch64" },
	{ "arm64", "aarch64" },
};

/* Copy word lowercased into dst; 0 when it does not fit. */
static int copy_lower(char *dst, size_t cap, const char *word)
{
	size_t n = strlen(word);
	if (n >= cap)
		return 0;
	for (size_t i = 0; i <= n; i++) {
		char c = word[i];
		dst[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	return 1;
}

/* A key word must not be able to smuggle a '-' (it separates the parts). */
static int word_valid(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++) {
		char c = *w;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return 1;
}

static const char *arch_normalise(const char *arch)
{
	for (size_t i = 0; i < sizeof arch_aliases / sizeof arch_aliases[0];
	     i++)
		if (strcmp(arch, arch_aliases[i].alias) == 0)
			return arch_aliases[i].arch;
	return arch;
}

int pyrt_platform_make(pyrt_platform *out, const char *os, const char *arch,
		       const char *libc, pyrt_error *err)
{
	pyrt_platform p;

	if (!out || !os || !arch || !libc)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "platform: missing argument");
	memset(&p, 0, sizeof p);
	if (!copy_lower(p.os, sizeof p.os, os) || !word_valid(p.os))
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unsupported operating system \"%.32s\": "
				      "expected a short word of a-z, 0-9, _",
				      os);
	if (!copy_lower(p.arch, sizeof p.arch, arch) || !word_valid(p.arch))
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unsupported machine \"%.32s\": "
				      "expected a short word of a-z, 0-9, _",
				      arch);
	const char *norm = arch_normalise(p.arch);
	/* Known names are shorter than the buffer, so this cannot cut. */
	if (norm != p.arch)
		pyrt_fmt_text(p.arch, sizeof p.arch, "%s", norm);
	if (strcmp(libc, "gnu") != 0 && strcmp(libc, "musl") != 0 &&
	    strcmp(libc, "none") != 0)
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unsupported C library \"%.32s\": "
				      "expected gnu, musl or none",
				      libc);
	pyrt_fmt_text(p.libc, sizeof p.libc, "%s", libc);
	pyrt_fmt_text(p.key, sizeof p.key, "%s-%s-%s", p.os, p.arch, p.libc);
	*out = p;
	return 0;
}

/*
 * glibc answers _CS_GNU_LIBC_VERSION with "glibc X.Y"; musl defines the
 * name but fails the call, and other C libraries may lack it entirely.
 * Only for a static pyrt, which names no loader.
 */
static const char *linux_libc(void)
{
#ifdef _CS_GNU_LIBC_VERSION
	char buf[64];
	size_t n = confstr(_CS_GNU_LIBC_VERSION, buf, sizeof buf);
	if (n > 0 && strncmp(buf, "glibc", 5) == 0)
		return "gnu";
#endif
	return "musl";
}

const char *pyrt_platform_libc_of_loader(const char *loader)
{
	const char *base = strrchr(loader, '/');
	base = base ? base + 1 : loader;
	if (strncmp(base, "ld-musl-", 8) == 0)
		return "musl";
	/* ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-linux.so.2, ... */
	if (strncmp(base, "ld-linux", 8) == 0)
		return "gnu";
	return NULL;
}

#if __SIZEOF_POINTER__ == 8
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Off elf_off;
#define ELF_NATIVE_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Off elf_off;
#define ELF_NATIVE_CLASS ELFCLASS32
#endif

static int read_at(int fd, void *buf, size_t len, off_t at)
{
	ssize_t n = pread(fd, buf, len, at);
	return n >= 0 && (size_t)n == len;
}

/* PT_INTERP of an open ELF of this machine's class and byte order. */
static int elf_interp_fd(int fd, const char *path, char *buf, size_t cap,
			 pyrt_error *err)
{
	unsigned char ident[EI_NIDENT];
	if (!read_at(fd, ident, sizeof ident, 0) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "%s is not an ELF program", path);
	/* The native class and byte order only: pyrt reads its own binary. */
	if (ident[EI_CLASS] != ELF_NATIVE_CLASS ||
	    ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				       ? ELFDATA2LSB
				       : ELFDATA2MSB))
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "%s is an ELF of another class or byte "
				      "order than this machine's", path);
	elf_ehdr h;
	if (!read_at(fd, &h, sizeof h, 0) || h.e_phentsize != sizeof(elf_phdr) ||
	    h.e_phnum > 4096)
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "%s: unreadable ELF program headers", path);
	buf[0] = '\0';
	for (unsigned i = 0; i < h.e_phnum; i++) {
		elf_phdr ph;
		if (!read_at(fd, &ph, sizeof ph,
			     (off_t)(h.e_phoff + (elf_off)i * sizeof ph)))
			return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
					      "%s: truncated ELF program header",
					      path);
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > cap ||
		    !read_at(fd, buf, ph.p_filesz, (off_t)ph.p_offset) ||
		    buf[ph.p_filesz - 1] != '\0' || strlen(buf) != ph.p_filesz - 1) {
			buf[0] = '\0';
			return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
					      "%s: malformed ELF interpreter "
					      "(PT_INTERP)", path);
		}
		return 0;
	}
	return 0;
}

int pyrt_platform_elf_interp(const char *path, char *buf, size_t cap,
			     pyrt_error *err)
{
	if (!path || !buf || cap == 0)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "platform: missing argument");
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_UNSUPPORTED, errno,
					    "cannot read %s", path);
	int rc = elf_interp_fd(fd, path, buf, cap, err);
	close(fd);
	return rc;
}

int pyrt_platform_libc_of(const char *exe, const char **libc, pyrt_error *err)
{
	char interp[PATH_MAX];
	int rc = pyrt_platform_elf_interp(exe, interp, sizeof interp, err);
	if (rc < 0)
		return rc;
	if (!interp[0]) {
		*libc = linux_libc();
		return 0;
	}
	const char *want = pyrt_platform_libc_of_loader(interp);
	if (!want)
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unknown dynamic loader %.200s: pyrt knows "
				      "glibc's (ld-linux*) and musl's (ld-musl-*)",
				      interp);
	/* gcompat lets a glibc program start on a musl host by naming musl's
	 * loader with glibc's name; the glibc runtime pyrt would fetch for
	 * it would not run there. */
	char *real = realpath(interp, NULL);
	const char *have = real ? pyrt_platform_libc_of_loader(real) : NULL;
	if (have && strcmp(have, want) != 0) {
		rc = pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				    "this pyrt is built for %s (its loader is "
				    "%.200s) but that loader here is %s's (%.200s): "
				    "the %s runtime it would install cannot run on "
				    "this host; use a pyrt built for %s",
				    want, interp, have, real, want, have);
		free(real);
		return rc;
	}
	free(real);
	*libc = want;
	return 0;
}

int pyrt_platform_detect_exe(pyrt_platform *out, const char *sysname,
			     const char *machine, const char *exe,
			     pyrt_error *err)
{
	const char *libc = "none";
	if (strcmp(sysname, "Linux") == 0) {
		int rc = pyrt_platform_libc_of(exe, &libc, err);
		if (rc < 0)
			return rc;
	}
	return pyrt_platform_make(out, sysname, machine, libc, err);
}

int pyrt_platform_detect(pyrt_platform *out, pyrt_error *err)
{
	struct utsname u;

	if (uname(&u) != 0)
		return pyrt_error_set_errno(err, PYRT_E_UNSUPPORTED, errno,
					    "cannot name this machine (uname)");
	/* The running binary's loader, not the host's: a glibc pyrt needs
	 * the glibc runtime wherever it runs (under qemu as on the metal). */
	return pyrt_platform_detect_exe(out, u.sysname, u.machine,
					"/proc/self/exe", err);
}
