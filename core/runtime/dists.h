/*
 * Installed distributions read in C the way importlib.metadata.version()
 * finds them, so the plugin matrix can answer "is X installed, which
 * version" without starting Python.
 *
 * The search path is the one the install's own interpreter reported (the
 * marker's search_path, relative to the install's python/ prefix).  For a
 * name, the directories are walked in that order; in each, the entries
 * ending ".dist-info" (any case) whose name before the first '-' normalises
 * to the same as the requirement's name (runs of '-', '_', '.' one '_',
 * lowercase) match, and the first directory with a match wins; its
 * METADATA's Version header is the answer, when the distribution is
 * installed whole: its RECORD is there and so is every file it lists
 * (pyrt_dists_intact).  A dist-info alone is "not installed", the verdict
 * status, plugins, doctor and baseline share.
 *
 * Anything unusual is -1, "ask Python", never a guess: a matching
 * .egg-info, two matches in one directory, a directory that is a file
 * (zip), a symlink on the way (nothing is followed), an unreadable
 * directory, METADATA missing, not UTF-8, or without one plain Version.
 */
#ifndef PYRT_DISTS_H
#define PYRT_DISTS_H

#include <stddef.h>

#include "core/runtime/marker.h"
#include "core/util/error.h"

typedef struct pyrt_dists pyrt_dists;

/** A reader for the n directories rel (relative to prefix, an absolute
 *  path to the install's python/ directory).  Directories are listed on
 *  first use and kept.  NULL when out of memory. */
pyrt_dists *pyrt_dists_new(const char *prefix, const char *const *rel,
			   size_t n);

void pyrt_dists_free(pyrt_dists *d);

/** The reader for the install at install_dir, from its marker m's search
 *  path; NULL when the marker has none (an older one) or out of memory. */
pyrt_dists *pyrt_dists_for_install(const char *install_dir,
				   const pyrt_marker *m);

/** For a reader that only reads (status, plugins; never one that
 *  installs, repairs or checks deep): whether each distribution is whole
 *  is remembered in cache_dir (the box's private cache) on the identities
 *  it depends on, and asked once per reader (dists_memo.h says why a
 *  remembered answer cannot hide a missing file).  Call before the first
 *  look-up; 0, or -1 (no memo: everything is read as before). */
int pyrt_dists_keep_memo(pyrt_dists *d, const char *cache_dir);

/** The installed version of name: 1 with version[len] filled, 0 when not
 *  installed (every directory readable or absent; or its dist-info has
 *  no RECORD, or a file RECORD lists is missing), -1 ask Python. */
int pyrt_dists_version(pyrt_dists *d, const char *name, char *version,
		       size_t len);

/** Whether name's distribution is installed whole: 1 when its dist-info
 *  has a RECORD and every file RECORD lists (bytecode caches aside) is
 *  there, 0 when not (why[whylen] names the first thing missing), 2 when
 *  no such distribution is found, -1 ask Python.  One stat per listed file,
 *  nothing remembered: a file deleted a moment ago counts. */
int pyrt_dists_intact(pyrt_dists *d, const char *name, char *why,
		      size_t whylen);

typedef void (*pyrt_dists_broken_fn)(const char *name, const char *version,
				     const char *why, void *ctx);

/** How why starts for a dist-info that is not whole and whose RECORD
 *  names a file outside the runtime (an absolute path, or ".." past the
 *  prefix): never to be reinstalled, since pip's uninstall would delete
 *  that file (issue 26, door 1). */
#define PYRT_DISTS_RECORD_LEAVES "its RECORD names a file outside the runtime"

/** Call fn for each dist-info in the directories that is not installed
 *  whole (pyrt_dists_intact's 0), with its PEP 503 name and its METADATA
 *  version ("" when unreadable); the count. */
int pyrt_dists_each_broken(pyrt_dists *d, pyrt_dists_broken_fn fn, void *ctx);

/** When name's dist-info has no RECORD (an installer died before writing
 *  it), remove that dist-info: pip cannot uninstall it ("RECORD file not
 *  found"), so a reinstall over it would fail every time, and which files
 *  it had written is unknown.  1 when removed, 0 when there was nothing
 *  to do, or a negative pyrt_code. */
int pyrt_dists_drop_unrecorded(pyrt_dists *d, const char *name,
			       pyrt_error *err);

/** What identifies the installed distribution requirement req names (its
 *  leading name): "<dist-info> <version> <inode> <mtime>" in out, 1 when it
 *  is installed whole, 0 when not, -1 ask Python.  Equal stamps before
 *  and after a pip run: pip left it as it was ("already present"). */
int pyrt_dists_stamp(pyrt_dists *d, const char *req, char *out, size_t len);

typedef void (*pyrt_dists_require_fn)(const char *req, void *ctx);

/** Each Requires-Dist of name's installed METADATA without a marker (an
 *  extra's or a platform's: Python's to evaluate), as written ("lxml>=2.3");
 *  the count, or -1 when name is not found or its METADATA not read. */
int pyrt_dists_requires(pyrt_dists *d, const char *name,
			pyrt_dists_require_fn fn, void *ctx);

/** How many distributions of the install at install_dir (marker m) are
 *  not installed whole; 0 too when that cannot be told. */
int pyrt_dists_broken_count(const char *install_dir, const pyrt_marker *m);

/** The file in a dist-info that lists, one a line, the paths its RECORD
 *  names but its wheel never held (found by pyrt after an installer wrote
 *  every file of the wheel): those do not make it "not whole". */
#define PYRT_DISTS_WHEEL_FAULTS "PYRT-WHEEL-FAULTS"
/** Call right after an installer (re)wrote name's distribution from its
 *  wheel: every file its RECORD lists that is missing now was never in the
 *  wheel; each is added to PYRT_DISTS_WHEEL_FAULTS.  The count (first gets
 *  the first path), or a negative pyrt_code. */
int pyrt_dists_mark_wheel_faults(pyrt_dists *d, const char *name, char *first,
				 size_t len, pyrt_error *err);
/** 1 when some directory holds pip/_vendor/packaging/requirements.py or
 *  packaging/requirements.py (the checker can parse specifiers), else 0. */
int pyrt_dists_have_packaging(pyrt_dists *d);

#endif
