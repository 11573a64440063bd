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
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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

/*
 * The running process answers from memory what pyrt_platform_libc_of()
 * reads from /proc/self/exe and the file system (~15 system calls on every
 * command that names the platform, --version and status included): the
 * PT_INTERP the program was started with, and the DT_SONAME of the loader
 * the kernel actually mapped (at AT_BASE).  That soname is the loader's
 * own, whatever path named it: glibc's ld.so says ld-linux-*, musl's says
 * something else, so gcompat's alias of musl under glibc's name never
 * passes here.  Anything this cannot read plainly (a static or
 * loader-started program, an unusual layout) is left to the file path.
 */
typedef struct loaded_object {
	uintptr_t addr;		  /* load bias */
	const ElfW(Phdr) *phdr;
	size_t phnum;
} loaded_object;

/* [lo, hi) of the object's mapped image, as addresses. */
static int object_extent(const loaded_object *o, uintptr_t *lo,
			 uintptr_t *hi)
{
	uintptr_t l = UINTPTR_MAX, h = 0;
	for (size_t i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < l)
			l = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > h)
			h = ph->p_vaddr + ph->p_memsz;
	}
	if (l >= h)
		return 0;
	*lo = o->addr + l;
	*hi = o->addr + h;
	return 1;
}

/* The NUL-ended string of at most cap bytes at address p, if it lies in
 * the file-backed part of one of o's PT_LOAD segments (mapped, readable). */
static const char *mapped_string(const loaded_object *o, uintptr_t p,
				 size_t cap)
{
	for (size_t i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		uintptr_t start = o->addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || p < start ||
		    p - start >= ph->p_filesz)
			continue;
		size_t room = ph->p_filesz - (p - start);
		const char *s = (const char *)p;
		return memchr(s, '\0', room < cap ? room : cap) ? s : NULL;
	}
	return NULL;
}

/* DT_SONAME of a mapped object.  Some loaders relocate their dynamic
 * section's addresses in place and some (read-only sections) do not:
 * an address that could be read either way is not guessed at. */
static const char *object_soname(const loaded_object *o)
{
	uintptr_t lo, hi;
	if (!object_extent(o, &lo, &hi))
		return NULL;
	const ElfW(Dyn) *dyn = NULL;
	for (size_t i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(o->addr + o->phdr[i].p_vaddr);
	if (!dyn || (uintptr_t)dyn < lo || (uintptr_t)dyn >= hi)
		return NULL;
	uintptr_t strtab = 0, strsz = 0, soname = UINTPTR_MAX;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_STRTAB)
			strtab = dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_STRSZ)
			strsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SONAME)
			soname = dyn->d_un.d_val;
	}
	if (!strtab || soname >= strsz)
		return NULL;
	int absolute = strtab >= lo && strtab < hi;
	int relative = strtab < hi - o->addr && strtab + o->addr >= lo;
	if (absolute == relative)
		return NULL;
	uintptr_t at = (relative ? strtab + o->addr : strtab) + soname;
	return mapped_string(o, at, strsz - soname);
}

typedef struct loader_search {
	uintptr_t base;
	loaded_object found;
	int hit;
} loader_search;

static int find_loader(struct dl_phdr_info *info, size_t size, void *data)
{
	loader_search *q = data;
	(void)size;
	if (info->dlpi_addr != q->base)
		return 0;
	q->found = (loaded_object){ info->dlpi_addr, info->dlpi_phdr,
				    info->dlpi_phnum };
	q->hit = 1;
	return 1;
}

/* The PT_INTERP this program was started with, from its mapped headers. */
static const char *running_interp(void)
{
	loaded_object self = { 0, (const ElfW(Phdr) *)getauxval(AT_PHDR),
			       getauxval(AT_PHNUM) };
	if (!self.phdr || !self.phnum ||
	    getauxval(AT_PHENT) != sizeof(ElfW(Phdr)))
		return NULL;
	const ElfW(Phdr) *interp = NULL;
	int bias_known = 0;
	for (size_t i = 0; i < self.phnum; i++) {
		if (self.phdr[i].p_type == PT_PHDR) {
			self.addr = (uintptr_t)self.phdr - self.phdr[i].p_vaddr;
			bias_known = 1;
		} else if (self.phdr[i].p_type == PT_INTERP) {
			interp = &self.phdr[i];
		}
	}
	if (!interp || !bias_known || interp->p_filesz < 2)
		return NULL;
	const char *s = mapped_string(&self, self.addr + interp->p_vaddr,
				      interp->p_filesz);
	/* Exactly as the file path reads it: one string filling the segment. */
	return s && strlen(s) == interp->p_filesz - 1 ? s : NULL;
}

const char *pyrt_platform_libc_running(void)
{
	uintptr_t base = getauxval(AT_BASE);
	if (!base)
		return NULL;
	const char *interp = running_interp();
	const char *want = interp ? pyrt_platform_libc_of_loader(interp) : NULL;
	if (!want)
		return NULL;
	loader_search q = { .base = base };
	dl_iterate_phdr(find_loader, &q);
	const char *soname = q.hit ? object_soname(&q.found) : NULL;
	const char *have = soname ? pyrt_platform_libc_of_loader(soname) : NULL;
	return have && strcmp(have, want) == 0 ? want : NULL;
}

int pyrt_platform_detect(pyrt_platform *out, pyrt_error *err)
{
	struct utsname u;

	if (uname(&u) != 0)
		return pyrt_error_set_errno(err, PYRT_E_UNSUPPORTED, errno,
					    "cannot name this machine (uname)");
	/* The running binary's loader, not the host's: a glibc pyrt needs
	 * the glibc runtime wherever it runs (under qemu as on the metal). */
	const char *libc = strcmp(u.sysname, "Linux") == 0
				   ? pyrt_platform_libc_running() : NULL;
	if (libc)
		return pyrt_platform_make(out, u.sysname, u.machine, libc, err);
	return pyrt_platform_detect_exe(out, u.sysname, u.machine,
					"/proc/self/exe", err);
}
