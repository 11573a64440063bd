/*
 * What the fuzz targets share.  Each tests/fuzz/fuzz_<name>.c defines
 * LLVMFuzzerTestOneInput; built with clang and libFuzzer under
 * -DPYRT_FUZZ=ON, and always with the normal compiler and replay.c, which
 * feeds it every file of tests/fuzz/<name>/ (the corpus and crashes/), so a
 * crash found once stays a regression test in every build.
 *
 * A broken property (something the code promises, not just "no crash")
 * calls fuzz_fail, which aborts: libFuzzer and the replay both report it.
 * The targets keep state only in the harness (a private scratch
 * directory), never in core.
 */
#ifndef PYRT_FUZZ_H
#define PYRT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print "fuzz: <what>" to stderr and abort. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						    noreturn));

/* A private (0700) scratch directory for this process, created on first use
 * under $TMPDIR (or /tmp) and removed at exit. */
const char *fuzz_scratch(void);

/* Write data to path, created owner-only (replacing a file there). */
void fuzz_write(const char *path, const uint8_t *data, size_t size);

/* Remove path and everything under it, never following a symlink. */
void fuzz_rmtree(const char *path);

/* A NUL-terminated copy (malloc'd) of the input. */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
