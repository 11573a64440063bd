/*
 * One installer at a time per box root: flock(2) on a lock file that also
 * records who holds it (pid, host, start time), and the sweep of staging
 * directories left behind by installers that died.
 */
#ifndef PYRT_LOCK_H
#define PYRT_LOCK_H

#include "core/util/error.h"
#include "core/util/events.h"

typedef struct pyrt_lock pyrt_lock;

typedef struct pyrt_lock_holder {
	long pid;
	char host[256];
	char started[40]; /**< RFC 3339 */
} pyrt_lock_holder;

/**
 * Take the lock at lock_path (created 0600).  When another process holds it:
 * with wait=0 fail with PYRT_E_BUSY naming the holder; with wait=1 log one
 * "waiting for …" line through ev and poll until it is free or ev cancels.
 */
int pyrt_lock_acquire(pyrt_lock **out, const char *lock_path, int wait,
		      const pyrt_events *ev, pyrt_error *err);

/** The lock's descriptor, for a child that must hold the lock as long as
 *  it lives (pyrt_proc_opts.keep_fd); -1 for NULL. */
int pyrt_lock_fd(const pyrt_lock *lock);

/** Release and free; NULL is a no-op. */
void pyrt_lock_release(pyrt_lock *lock);

/**
 * Is the lock held by someone?  Returns 1 (held, *holder filled when not
 * NULL), 0 (free or no lock file), or a negative pyrt_code.  Never blocks and
 * never creates the file.
 */
int pyrt_lock_probe(const char *lock_path, pyrt_lock_holder *holder,
		    pyrt_error *err);

/**
 * Owner marker for a staging directory: writes dir/.owner (pid, host, start).
 */
int pyrt_staging_mark_owner(const char *dir, pyrt_error *err);

/**
 * Remove every directory under staging_root whose .owner names a pid that is
 * dead on this host (or that has no readable .owner and is older than an
 * hour).  Directories of live owners are left alone.  Removal is bounded and
 * never follows symlinks.  Logs one line per removed directory through ev.
 * Returns the number removed or a negative pyrt_code.
 */
int pyrt_staging_sweep(const char *staging_root, const pyrt_events *ev,
		       pyrt_error *err);

/** Count stale staging directories without removing them (for doctor). */
int pyrt_staging_count_stale(const char *staging_root, pyrt_error *err);

#endif
