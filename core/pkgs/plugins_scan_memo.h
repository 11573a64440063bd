/*
 * The plugin matrix's scan, remembered on what it depends on (issue 28):
 * so that `pyrt plugins` on a box where no plugin changed costs one stat of
 * each plugin folder and of its plugin.yaml, instead of opening and reading
 * every manifest and loading the byte-keyed manifest memo (plugins_memo.h).
 *
 * A row as the scan leaves it (before any runtime question) is a function
 * of the plugins folder (its owner and mode decide whether it is trusted),
 * the plugin folder (owner, mode) and the bytes of its plugin.yaml (and that
 * file's owner, mode and type).  The file records, for the plugins folder,
 * every plugin folder and every plugin.yaml, the identity
 * (dev, inode, mode, uid, gid, size, mtime and ctime to the ns); folders
 * that hold no plugin.yaml are recorded too (creating one changes the
 * folder's mtime, not the plugins folder's).  Any entry added, removed or
 * renamed in plugins/ changes its mtime; any write, chmod, chown or rename
 * over a file changes its ctime, which no user can set back.  A look-up
 * stats every recorded name and answers only when all of them match; any
 * difference is a miss, and the scan runs in full.
 *
 * The runtime's side (which requirement is installed at which version) is
 * not in this memo: it is decided per distinct requirement after the scan
 * (plugins.c), so its cost does not grow with the number of plugins.
 *
 * Only an identity whose ctime and mtime are older than the scan's start
 * by PYRT_SCAN_MEMO_SETTLE_S is recorded: a change in the same clock tick
 * as the scan's read would otherwise leave the identity as it was with the
 * bytes changed.  Nothing is recorded when the plugins folder is not
 * trusted, holds a symlink (whose target can change without any of these
 * times), holds more than the matrix shows, or changed during the scan.
 *
 * Format (text; the first line is the body's checksum, cache_seal.h):
 *   pyrt-plugins-scan SCHEMA
 *   D <plugins_dir> <identity>
 *   N <name> <folder identity>                      a folder, no manifest
 *   P <name> <folder identity> <yaml identity> <row>
 * where strings are written as <length>:<bytes>.  Same file rules as
 * plugins_memo.h: in the box's private cache, 0600, O_CREAT|O_EXCL on a
 * temporary name then renamed; read only when ours and not a symlink.
 */
#ifndef PYRT_PLUGINS_SCAN_MEMO_H
#define PYRT_PLUGINS_SCAN_MEMO_H

#include <stddef.h>
#include <time.h>

#include "core/pkgs/plugins.h"
#include "core/util/cache_seal.h"

#define PYRT_PLUGINS_SCAN_MEMO_FILE "plugins-scan"
#define PYRT_SCAN_MEMO_SETTLE_S PYRT_CACHE_SETTLE_S /* cache_seal.h */

/** One row as the scan left it: error non-NULL means invalid. */
typedef struct pyrt_scan_row {
	const char *name;
	int enabled;
	int needs_runtime;
	const char *error;
	size_t require_count;
	const pyrt_requirement *requires; /* spec and name only */
	const size_t *lines;
} pyrt_scan_row;

/** Called once per remembered row, in the order stored; non-zero stops. */
typedef int (*pyrt_scan_row_fn)(void *ctx, const pyrt_scan_row *row);

/**
 * When every identity recorded for plugins_dir in dir (the box's private
 * cache) is what it is now, calls fn for each remembered row and returns 1
 * (or -1 when fn returned non-zero: it stopped); 0 on any miss, in
 * which case fn was never called.
 */
int pyrt_plugins_scan_memo_load(const char *dir, const char *plugins_dir,
				pyrt_scan_row_fn fn, void *ctx);

/**
 * Remember rows[0..n) (the complete scan of plugins_dir, started at
 * started) in dir, when plugins_dir is as it was then and every entry of it
 * can be recorded (see above).  Best effort: nothing is an error.
 */
void pyrt_plugins_scan_memo_store(const char *dir, const char *plugins_dir,
				  const struct timespec *started,
				  const pyrt_scan_row *rows, size_t n);

#endif
