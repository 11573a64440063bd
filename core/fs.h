/*
 * Filesystem helpers that every module needs and that must be safe against
 * symlinks: private directory creation, bounded tree removal that never
 * follows links, atomic small-file writes.
 */
#ifndef PYRT_FS_H
#define PYRT_FS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** mkdir -p with mode 0700 for each directory it creates. */
int pyrt_fs_mkdirs(const char *path, pyrt_error *err);

typedef struct pyrt_fs_remove_limits {
	uint64_t max_entries; /**< give up (PYRT_E_IO) after this many */
	double max_seconds;   /**< give up after this long */
} pyrt_fs_remove_limits;

#define PYRT_FS_REMOVE_LIMITS_INIT { 1000000, 120.0 }

/**
 * Remove path and everything below it without following any symlink
 * (a symlink is unlinked, never traversed).  A missing path is success.
 * limits may be NULL for the defaults.
 */
int pyrt_fs_remove_tree(const char *path, const pyrt_fs_remove_limits *limits,
			pyrt_error *err);

/**
 * Write data to path atomically: a 0600 temp file in the same directory,
 * fsync, rename over path.
 */
int pyrt_fs_write_file_atomic(const char *path, const void *data, size_t len,
			      pyrt_error *err);

/** Read a whole (small) file; *out is malloc'd and NUL-terminated. */
int pyrt_fs_read_file(const char *path, size_t max_len, char **out,
		      size_t *len, pyrt_error *err);

/** Free bytes available to an unprivileged writer at path, or 0. */
uint64_t pyrt_fs_free_bytes(const char *path);

/** Current time as RFC 3339 UTC ("2026-11-29T17:40:21Z"). */
void pyrt_fs_now_rfc3339(char *buf, size_t len);

#endif
