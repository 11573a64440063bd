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

/** Detect the running machine (uname, and glibc vs musl on Linux). */
int pyrt_platform_detect(pyrt_platform *out, pyrt_error *err);

/**
 * Normalise uname-style words into a platform: "Linux"→linux, "Darwin"→
 * darwin, "amd64"/"x86_64"→x86_64, "arm64"/"aarch64"→aarch64; libc is taken
 * as given ("gnu", "musl", "none").  Pure; used by detect and by tests.
 */
int pyrt_platform_make(pyrt_platform *out, const char *os, const char *arch,
		       const char *libc, pyrt_error *err);

#endif
