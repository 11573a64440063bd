/*
 * Streaming SHA-256 (libcrypto's SHA256_* calls, not EVP: see sha256.c)
 * and digest comparison.
 */
#ifndef PYRT_SHA256_H
#define PYRT_SHA256_H

#include <stddef.h>

#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_SHA256_HEX_LEN 64

typedef struct pyrt_sha256 pyrt_sha256;

/** libcrypto loaded (core/util/lazy_crypto.c): 0, or PYRT_E_UNSUPPORTED naming
 *  the library and its package.  Call before pyrt_sha256_new where a
 *  refusal can be reported; pyrt_sha256_new alone returns NULL then. */
int pyrt_sha256_ready(pyrt_error *err);

/** A fresh context, or NULL when out of memory or without libcrypto. */
pyrt_sha256 *pyrt_sha256_new(void);
void pyrt_sha256_free(pyrt_sha256 *ctx);

/** Start over (after a resume that had to restart from byte 0). */
int pyrt_sha256_reset(pyrt_sha256 *ctx);
int pyrt_sha256_update(pyrt_sha256 *ctx, const void *data, size_t len);
/** Finish and write 64 lowercase hex digits plus NUL into hex. */
int pyrt_sha256_final_hex(pyrt_sha256 *ctx, char hex[PYRT_SHA256_HEX_LEN + 1]);

/** Hash a whole file (used to re-hash a partial download before resuming). */
int pyrt_sha256_file_hex(const char *path, char hex[PYRT_SHA256_HEX_LEN + 1],
			 pyrt_error *err);

/**
 * Copy the open file in to out while hashing it, at most cap bytes: the
 * one way pyrt takes a file someone else may change (--from-file, a
 * locked wheel) -- read once, and only the copy is used.  in_name and
 * out_name go into messages.  0 with hex and *bytes set; PYRT_E_VERIFY
 * when in holds more than cap bytes ("<in_name> is larger than <cap>
 * bytes"), PYRT_E_IO, PYRT_E_NOMEM, PYRT_E_UNSUPPORTED (no libcrypto) or
 * PYRT_E_CANCELLED when ev's cancel flag is set (ev may be NULL).
 */
int pyrt_sha256_copy(int in, int out, unsigned long long cap,
		     const char *in_name, const char *out_name,
		     const pyrt_events *ev,
		     char hex[PYRT_SHA256_HEX_LEN + 1],
		     unsigned long long *bytes, pyrt_error *err);

/** Non-zero when s is exactly 64 lowercase hex digits. */
int pyrt_sha256_hex_valid(const char *s);

/**
 * Non-zero when two 64-digit hex digests are equal; the comparison takes the
 * same time wherever they differ.
 */
int pyrt_sha256_hex_equal(const char *a, const char *b);

/** 1 when the n bytes at a and b are equal, in a time that does not depend
 *  on where they differ (tokens, digests). */
int pyrt_bytes_equal_ct(const void *a, const void *b, size_t n);

#endif
