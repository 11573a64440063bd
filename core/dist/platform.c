/*
 * Names the running machine as a pin key "<os>-<arch>-<libc>": uname(2) for
 * the kernel and machine, and on Linux whether we run on glibc or musl,
 * since python-build-standalone ships a separate archive for each.
 */
#include "core/dist/platform.h"

#include <errno.h>
#include <stdio.h>
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
		snprintf(p.arch, sizeof p.arch, "%s", norm);
	if (strcmp(libc, "gnu") != 0 && strcmp(libc, "musl") != 0 &&
	    strcmp(libc, "none") != 0)
		return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
				      "unsupported C library \"%.32s\": "
				      "expected gnu, musl or none",
				      libc);
	snprintf(p.libc, sizeof p.libc, "%s", libc);
	snprintf(p.key, sizeof p.key, "%s-%s-%s", p.os, p.arch, p.libc);
	*out = p;
	return 0;
}

/*
 * glibc answers _CS_GNU_LIBC_VERSION with "glibc X.Y"; musl defines the
 * name but fails the call, and other C libraries may lack it entirely.
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

int pyrt_platform_detect(pyrt_platform *out, pyrt_error *err)
{
	struct utsname u;

	if (uname(&u) != 0)
		return pyrt_error_set_errno(err, PYRT_E_UNSUPPORTED, errno,
					    "cannot name this machine (uname)");
	const char *libc = "none";
	if (strcmp(u.sysname, "Linux") == 0)
		libc = linux_libc();
	return pyrt_platform_make(out, u.sysname, u.machine, libc, err);
}
