/*
 * Gzip decompression of a file on a worker thread.
 *
 * The worker reads the file in large chunks and inflates it (zlib; every
 * member of a multi-member file, as `cat a.gz b.gz` makes) into a bounded
 * ring of buffers, while the caller consumes the plain bytes block by block:
 * inflating overlaps with whatever the caller does with them (extraction
 * writes and hashes files).  Memory is fixed: the ring and one input buffer.
 *
 * Bytes after a member that do not begin with the gzip magic's first byte
 * (zero padding, most trailing junk) end the stream and are ignored, as
 * gzip(1) and libarchive ignore them.  A stream that ends inside a member,
 * or whose data, header or CRC is wrong, is an error, reported after every
 * good byte before it.
 */
#ifndef PYRT_GUNZIP_H
#define PYRT_GUNZIP_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

typedef struct pyrt_gunzip pyrt_gunzip;

/** Non-zero when the file at path starts with the gzip magic (1f 8b). */
int pyrt_gunzip_is_gzip(const char *path);

/**
 * Open path and start inflating it on a worker thread.  Returns 0,
 * PYRT_E_IO (cannot open, cannot start the thread) or PYRT_E_NOMEM.
 */
int pyrt_gunzip_open(pyrt_gunzip **out, const char *path, pyrt_error *err);

/**
 * The next block of plain bytes: *data stays valid until the next call or
 * pyrt_gunzip_free.  *len is 0 at the end of the stream.  Returns 0, or
 * PYRT_E_IO (read error; truncated, corrupt or not gzip data) once every
 * good block before the failure has been handed out.
 */
int pyrt_gunzip_read(pyrt_gunzip *g, const void **data, size_t *len,
		     pyrt_error *err);

/** Compressed bytes read from the file so far (the worker's read-ahead
 * included); callable from the consuming thread at any time. */
uint64_t pyrt_gunzip_bytes_in(const pyrt_gunzip *g);

/**
 * Stop the worker (promptly, also in the middle of the stream: this is how
 * a caller cancels), join it and free everything.  NULL is a no-op.
 */
void pyrt_gunzip_free(pyrt_gunzip *g);

/*
 * The SHA-256 of each extracted file, computed by the worker (issue 28):
 * between pyrt_gunzip_hash_begin(TAG) and pyrt_gunzip_hash_end, the bytes
 * given to pyrt_gunzip_hash_data (copied: the caller's buffer is free at
 * once) and pyrt_gunzip_hash_zeros are one file's.  fn gets (TAG, digest) on the consumer's thread,
 * from inside these calls, in the order the files were begun;
 * pyrt_gunzip_hash_finish waits until every file begun has been given.
 * Memory is bounded (a fixed queue: a full one waits for the worker).
 * Each returns 0, PYRT_E_NOMEM, or PYRT_E_INTERNAL (fn failed, or a file
 * begun and never given).  The caller must have loaded libcrypto
 * (pyrt_sha256_ready).
 */
#define PYRT_GUNZIP_DIGEST_LEN 32
typedef int (*pyrt_gunzip_digest_fn)(void *ctx, size_t tag,
				     const unsigned char *digest);
int pyrt_gunzip_hash_start(pyrt_gunzip *g, pyrt_gunzip_digest_fn fn,
			   void *ctx);
int pyrt_gunzip_hash_begin(pyrt_gunzip *g, size_t tag);
int pyrt_gunzip_hash_data(pyrt_gunzip *g, const void *data, size_t len);
/** n zero bytes of the file (a sparse hole), without copying them. */
int pyrt_gunzip_hash_zeros(pyrt_gunzip *g, uint64_t n);
int pyrt_gunzip_hash_end(pyrt_gunzip *g);
int pyrt_gunzip_hash_finish(pyrt_gunzip *g);

#endif
