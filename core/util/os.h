/*
 * The operating system's part: every call that differs between the ADR's
 * platforms (linux, darwin, windows) goes through here, so a port replaces
 * one file (core/util/os_linux.c today; docs/PORTING.md says what each
 * function needs elsewhere).  Plain POSIX stays where it is used.
 *
 * Each function returns 0 (or a count, a descriptor) on success and -1 with
 * errno set, as the calls it wraps do.
 */
#ifndef PYRT_OS_H
#define PYRT_OS_H

#include <stddef.h>
#include <sys/types.h>

/* pyrt_os_pipe flags. */
#define PYRT_OS_NONBLOCK 1

/** A pipe whose two ends are close-on-exec from the start (no window in
 *  which a child started by another thread inherits them). */
int pyrt_os_pipe(int fds[2], int flags);

/** In a child just forked: be killed when the parent dies, so a pip left
 *  running never writes into a runtime nobody holds the lock for.  The
 *  caller checks getppid() afterwards (a parent gone before is missed). */
int pyrt_os_die_with_parent(void);

/** Flush the whole filesystem holding fd (an activation's many files at
 *  once; a plain fsync where the system has no such call). */
int pyrt_os_sync_fs(int fd);

/** A lock on the whole file fd owned by the open file description, not the
 *  process: a child's copy of the descriptor does not hold it, closing
 *  another descriptor of the same file does not drop it.  exclusive: a
 *  write lock (fd open for writing), else a read lock.  Never waits: -1
 *  with EAGAIN or EACCES when another holds a conflicting one. */
int pyrt_os_lock_file(int fd, int exclusive);

/** Drop the lock pyrt_os_lock_file took on fd (closing fd drops it too). */
int pyrt_os_unlock_file(int fd);

/** 1 when another open file description holds a write lock on fd's file,
 *  0 when none, -1 when the system cannot tell. */
int pyrt_os_lock_held(int fd);

/** A path that names name inside the directory open as dirfd, for calls
 *  that take only a path (bind(2) on a long socket path, libcurl's output
 *  file): "/proc/self/fd/N/name" on Linux.  -1 (ENAMETOOLONG, ENOENT when
 *  the system has no such names) when it cannot be made. */
int pyrt_os_fd_path(char *buf, size_t len, int dirfd, const char *name);

/** The running binary's own path (themes next to it). */
int pyrt_os_self_exe(char *buf, size_t len);

/** n bytes from the kernel's random source (tokens, job ids). */
int pyrt_os_random(void *buf, size_t n);

/*
 * Watching folders for changes (serve's status memo).  A watcher is a
 * descriptor that poll(2) reports readable while a change is queued; a
 * system without one returns -1 and the memo reads the box every time.
 */

/** A non-blocking, close-on-exec watcher, or -1. */
int pyrt_os_watch_new(void);

/** Watch the folder dir for entries created, removed, renamed, written or
 *  changed in mode/owner, and for itself going; the watch's id, or -1. */
int pyrt_os_watch_add(int watcher, const char *dir);

/** Stop the watch id (its removal is queued as a change, like any other). */
void pyrt_os_watch_rm(int watcher, int id);

/** One queued change: the watch id (-1 when the queue overflowed and
 *  changes were lost) and the entry it names ("" for the folder itself). */
typedef void (*pyrt_os_watch_fn)(int id, const char *name, void *ctx);

/** Call fn for every queued change; 0 when the queue is read to its end,
 *  -1 when reading failed (then treat everything as changed). */
int pyrt_os_watch_drain(int watcher, pyrt_os_watch_fn fn, void *ctx);

#endif
