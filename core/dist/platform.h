/*
 * Which machine this is, as a pin key "<os>-<arch>-<libc>".
 */
#ifndef PYRT_PLATFORM_H
#define PYRT_PLATFORM_H

#include <stddef.h>

#include "core/util/error.h"

typedef struct pyrt_platform {
	char os[16];   /**< linux, darwin, windows, or uname's word lowercased */
	char arch[16]; /**< x86_64, aarch64, or uname's machine */
	char libc[8];  /**< gnu, musl, none */
	char key[48];  /**< "<os>-<arch>-<libc>" */
} pyrt_platform;

/**
 * Detect the running machine: uname, and on Linux glibc vs musl from the
 * dynamic loader the running binary names (PT_INTERP of /proc/self/exe),
 * not from the host.  PYRT_E_UNSUPPORTED (exit 8) for a loader pyrt does
 * not know, or a glibc pyrt started through musl's loader (gcompat).
 */
int pyrt_platform_detect(pyrt_platform *out, pyrt_error *err);

/** pyrt_platform_detect with the uname words and the program given (tests). */
int pyrt_platform_detect_exe(pyrt_platform *out, const char *sysname,
			     const char *machine, const char *exe,
			     pyrt_error *err);

/**
 * The C library of the Linux program at exe: "gnu" or "musl" (static
 * strings) by its PT_INTERP, checked against what that path is on this
 * host; a static program is asked with confstr.
 */
int pyrt_platform_libc_of(const char *exe, const char **libc, pyrt_error *err);

/**
 * The C library of the running process, decided from memory with no
 * system call: "gnu" or "musl" when its PT_INTERP names that library's
 * loader and the loader mapped at AT_BASE is that library's by its own
 * DT_SONAME; NULL when that cannot be told so (a static or loader-started
 * program, gcompat), and pyrt_platform_libc_of("/proc/self/exe") decides.
 */
const char *pyrt_platform_libc_running(void);

/** PT_INTERP of the ELF at path into buf ("" for a static program). */
int pyrt_platform_elf_interp(const char *path, char *buf, size_t cap,
			     pyrt_error *err);

/** "gnu" for ld-linux*, "musl" for ld-musl-*, else NULL (by base name). */
const char *pyrt_platform_libc_of_loader(const char *loader);

/**
 * Normalise uname-style words into a platform: "Linux"→linux, "Darwin"→
 * darwin, "amd64"/"x86_64"→x86_64, "arm64"/"aarch64"→aarch64; libc is taken
 * as given ("gnu", "musl", "none").  Pure; used by detect and by tests.
 */
int pyrt_platform_make(pyrt_platform *out, const char *os, const char *arch,
		       const char *libc, pyrt_error *err);

#endif
