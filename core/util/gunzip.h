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

#endif
