/*
 * What a stopped run left in the runtime's site folders, settled before any
 * package work (the first step of every reconcile, under the box lock):
 *
 * - the wheelhouse installer's staging, <site>/.pyrt-fastwheel/<dist>/
 *   (py/fastwheel.py finishes a complete one on its next run).  A staged
 *   distribution is dropped, never committed, when the site folder holds a
 *   .dist-info of that name (something installed it since: committing would
 *   put older files over it) or when it is older than the last finished
 *   reconcile (that reconcile judged the runtime without it: committing now
 *   would bring back what was uninstalled since).  Any other is kept, for
 *   the installer to finish.
 * - pip's stash folders, <site>/~xxx (pip renames what it uninstalls to a
 *   name starting with '~' and removes it when it succeeds; a killed pip
 *   leaves them for good).  No pip runs while the box lock is held, so
 *   each is a leftover: removed.  What they held is missing afterwards and
 *   the reconcile installs it again from the declared state.
 */
#ifndef PYRT_SETTLE_H
#define PYRT_SETTLE_H

#include <stdint.h>

#include "core/runtime/marker.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_FASTWHEEL_STAGING ".pyrt-fastwheel"

typedef struct pyrt_settle_report {
	int staged_dropped;   /**< staged distributions dropped */
	int staged_kept;      /**< left for the installer to finish */
	int stashes;          /**< pip stash folders (removed, or found) */
	char first[512];      /**< the first leftover found, as a path */
} pyrt_settle_report;

/**
 * Settle the install at install_dir (its marker m names the site folders):
 * reconciled_ns is when the last reconcile finished (declared.h; 0 never).
 * With dry_run nothing is removed and the report counts what would be (for
 * doctor; staged_dropped then counts every staged distribution).  Each
 * removal is logged through ev.  0, or a negative pyrt_code (err set).
 */
int pyrt_settle(const char *install_dir, const pyrt_marker *m,
		int64_t reconciled_ns, int dry_run, const pyrt_events *ev,
		pyrt_settle_report *rep, pyrt_error *err);

#endif
