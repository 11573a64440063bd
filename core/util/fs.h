/*
 * Filesystem helpers that every module needs and that must be safe against
 * symlinks: private directory creation, bounded tree removal that never
 * follows links, atomic small-file writes.
 */
#ifndef PYRT_FS_H
#define PYRT_FS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/util/error.h"

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

/** write(2) until all len bytes are written, across short writes and
 *  EINTR; 0, or -1 with errno set. */
int pyrt_fs_write_all(int fd, const void *data, size_t len);

/**
 * Write data to path atomically: a 0600 temp file in the same directory,
 * fsync, rename over path.
 */
int pyrt_fs_write_file_atomic(const char *path, const void *data, size_t len,
			      pyrt_error *err);

/** pyrt_fs_write_file_atomic with the file's mode set exactly (0644 for
 *  what every user of a shared box reads, whatever the umask). */
int pyrt_fs_write_file_atomic_mode(const char *path, const void *data,
				   size_t len, unsigned mode, pyrt_error *err);

/** Read a whole (small) regular file; *out is malloc'd and
 * NUL-terminated.  A FIFO or device is refused, never waited on. */
int pyrt_fs_read_file(const char *path, size_t max_len, char **out,
		      size_t *len, pyrt_error *err);

/** As pyrt_fs_read_file for a state file of the box: opened with
 * pyrt_fs_open_state's rules (no symlink, regular, owned by us). */
int pyrt_fs_read_state(const char *path, size_t max_len, char **out,
		       size_t *len, pyrt_error *err);

/** pyrt_fs_read_state, and *sb: the file's fstat once read whole (what a
 *  digest of this content may be remembered under, digest_memo.h). */
int pyrt_fs_read_state_stat(const char *path, size_t max_len, char **out,
			    size_t *len, struct stat *sb, pyrt_error *err);

/**
 * Open a state file of the box (marker, manifest, partial download, lock,
 * log) the one safe way: never through a symlink, never blocking on a FIFO
 * or device, and only a regular file owned by the effective user.  flags
 * are open(2)'s (O_CREAT with mode allowed); O_NOFOLLOW, O_NONBLOCK (cleared
 * again for a writer once the file is known to be regular; a reader keeps
 * it, a no-op on a regular file) and O_CLOEXEC are added.
 * Returns the descriptor, or a negative pyrt_code with the message set.
 */
int pyrt_fs_open_state(const char *path, int flags, unsigned mode,
		       pyrt_error *err);

/**
 * May pyrt trust the directory path with state and code?  It must be a
 * real directory (not a symlink), owned by the effective user and not
 * writable by group or others.  A missing path is fine (*missing = 1).
 * Returns 0 or PYRT_E_UNTRUSTED naming the path, the owner and the fix.
 */
int pyrt_fs_check_private_dir(const char *path, int *missing,
			      pyrt_error *err);

/**
 * pyrt_fs_check_private_dir judging known (an lstat of path taken just
 * before, by the caller's own walk) instead of a second lstat, when known
 * is not NULL; *seen (may be NULL) gets what was judged, when path exists.
 */
int pyrt_fs_check_private_dir_stat(const char *path, const struct stat *known,
				   int *missing, struct stat *seen,
				   pyrt_error *err);

/*
 * What a walk of a resolved path (trust.h's pyrt_trust_path_seen) saw of
 * its folders: st[i] the lstat of the prefix of i components ([0] is "/")
 * where known[i]; depth components of the path exist.  A walk that reached
 * a folder through no link took the same lstat a stat of it takes now.
 */
#define PYRT_FS_SEEN_MAX 24
typedef struct pyrt_fs_seen {
	char path[PATH_MAX]; /* the resolved path the record is of */
	size_t depth;
	unsigned char known[PYRT_FS_SEEN_MAX + 1];
	struct stat st[PYRT_FS_SEEN_MAX + 1];
} pyrt_fs_seen;

/** The lstat seen of the prefix of path with depth components, or NULL. */
const struct stat *pyrt_fs_seen_at(const pyrt_fs_seen *seen, size_t depth);

/**
 * The directories above a box: each existing one must be owned by root
 * or the effective user, and writable by others only when sticky (as
 * /tmp), or someone else could rename the box away and plant their own.
 * path is absolute and already resolved (no symlinks).
 */
int pyrt_fs_check_ancestors(const char *path, pyrt_error *err);

/** pyrt_fs_check_ancestors judging what seen (may be NULL) holds of path's
 *  folders, and stat()ing only the others: the same rule, the same
 *  messages, in the same order. */
int pyrt_fs_check_ancestors_seen(const char *path, const pyrt_fs_seen *seen,
				 pyrt_error *err);

/**
 * path made absolute and free of symlinks as far as it exists (the rest,
 * not yet created, appended as given, "." and ".." refused).
 */
int pyrt_fs_resolve(const char *path, char *out, size_t len, pyrt_error *err);

/** "uid 1000 (alice)", or just the number when it has no name. */
void pyrt_fs_owner_name(unsigned uid, char *buf, size_t len);

/** 1 when path (already resolved, as Python's os.path.realpath gives it)
 *  lies inside dir once dir is resolved: where an install's sys.prefix
 *  must be (doctor and status --deep ask the same question). */
int pyrt_fs_path_inside(const char *path, const char *dir);

/** Free bytes available to an unprivileged writer at path, or 0. */
uint64_t pyrt_fs_free_bytes(const char *path);

/** The folder prefix/rel (rel relative, '/'-separated), opened one
 *  component at a time with O_NOFOLLOW, so no symlink on the way is
 *  followed: the descriptor, or -1 (errno set) with *absent (may be NULL)
 *  set when some component does not exist. */
int pyrt_fs_open_dir_nofollow(const char *prefix, const char *rel,
			      int *absent);

/** pyrt_fs_open_dir_nofollow from the folder dirfd (left open), for a
 *  reader that opens several folders under one prefix. */
int pyrt_fs_open_dir_nofollow_at(int dirfd, const char *rel, int *absent);

/** Current time as RFC 3339 UTC ("2026-11-29T17:40:21Z"). */
void pyrt_fs_now_rfc3339(char *buf, size_t len);

#endif
