/*
 * The plugin checker's last answer, remembered in the box so that asking
 * again when nothing changed costs a few stats instead of an interpreter
 * start, and the parsed manifests (below; plugins.c is the only user).
 *
 * The answer depends on three things, and the file records all three:
 *   id    the runtime: the interpreter's path and stat, what `current`
 *         points at, the marker's archive digest and install time;
 *   specs every distinct requires_pip string asked about;
 *   seen  the distributions importlib.metadata could find: for each
 *         sys.path entry of the checker, the *.dist-info / *.egg-info
 *         names with inode and mtime, and their METADATA's inode, size,
 *         mtime and ctime (a rewrite in place changes its ctime; one in
 *         the last 2 s is never reused) (a file entry: inode, size, mtime).
 *         The checker lists them itself before it reads any metadata, so
 *         a change during its run makes the next look-up miss, never
 *         serve an old answer.
 * The file's first line is its body's checksum (cache_seal.h).
 * A look-up recomputes id and seen in C and compares them as text; any
 * difference, a checksum that does not verify, a malformed file, or one
 * not owned by the effective user (or
 * a symlink, a FIFO: pyrt_fs_open_state's rules) is a miss.  The file is
 * written 0600 through O_CREAT|O_EXCL on a temporary name, then renamed.
 */
#ifndef PYRT_PLUGINS_MEMO_H
#define PYRT_PLUGINS_MEMO_H

#include <stddef.h>

#include <jansson.h>

#include "core/runtime/box.h"
#include "core/runtime/status.h"

/* In a directory of its own under <box>/runtime/python, so writing it does
 * not touch the runtime directory the TUI watches for changes. */
#define PYRT_PLUGINS_MEMO_DIR PYRT_BOX_CACHE_DIR
#define PYRT_PLUGINS_MEMO_FILE "plugins-check.json"

/** The runtime's identity as text (malloc'd), or NULL when it cannot be
 *  stated (then nothing is remembered). */
char *pyrt_plugins_memo_id(const pyrt_status *st);

/** The remembered checker document ({"results": …}) for exactly these
 *  specs (sorted, distinct), or NULL on any miss.  New reference.  dir is
 *  <box>/runtime/python/cache: a private directory (ours, 0700, not a
 *  symlink) or nothing is read. */
json_t *pyrt_plugins_memo_load(const char *dir, const char *id,
			       const char *const *specs, size_t nspecs);

/** Remember doc (the checker's answer, with its "seen" text) for id and
 *  specs in dir (made 0700 when missing).  Best effort: a box this user
 *  cannot write is no error. */
void pyrt_plugins_memo_store(const char *dir, const char *id,
			     const char *const *specs, size_t nspecs,
			     json_t *doc);

/*
 * The parsed manifests, remembered by their exact bytes (plugins.c): a
 * manifest's row is a function of the plugins directory, the plugin's
 * directory name and the bytes of its plugin.yaml, so an entry whose stored
 * bytes equal the bytes read now is that row, with no YAML parsed (nor
 * libyaml loaded).  Nothing is keyed by time or inode: any change to the
 * bytes is a miss.  Same file rules as the checker's memo.
 */
#define PYRT_PLUGINS_MANIFESTS_FILE "plugin-manifests.json"

/** The remembered {dirname: entry} object for plugins_dir (new
 *  reference), or NULL on any miss. */
json_t *pyrt_plugins_manifests_load(const char *dir, const char *plugins_dir);

/** Remember entries for plugins_dir in dir.  Best effort. */
void pyrt_plugins_manifests_store(const char *dir, const char *plugins_dir,
				  json_t *entries);

#endif
