/*
 * Digests a short-lived reader checked, remembered in the box so the next
 * `pyrt status` need not hash marker.json and manifest.tsv again (nor load
 * libcrypto to do it: core/util/lazy_crypto.c).
 *
 * Each entry ties a digest to a file's identity: its path and what fstat
 * says about it (device, inode, size, mtime and ctime to the nanosecond).
 * Any write, truncation, chmod or rename over the file changes its ctime,
 * which no process can set back, so an entry never vouches for content it
 * did not see; and since file times advance by the kernel's clock tick, a
 * file is remembered only once its ctime is 2 s old (git's "racily clean"
 * rule), so no later change can share its times.  The file lives in <box>/runtime/python/cache (private: ours,
 * 0700, not a symlink) as `digests`, is read with pyrt_fs_open_state's rules
 * and written 0600 through O_CREAT|O_EXCL on a temporary name, then renamed;
 * every line carries a checksum (cache_seal.h), and a line that does not
 * verify, or anything else unexpected in it, is a miss, never an error.  Whoever could write
 * it could rewrite the marker and the manifest themselves.
 */
#ifndef PYRT_DIGEST_MEMO_H
#define PYRT_DIGEST_MEMO_H

#include <sys/stat.h>

#include "core/util/sha256.h"

#define PYRT_DIGEST_MEMO_FILE "digests"

typedef struct pyrt_digest_memo pyrt_digest_memo;

/** The memo kept in dir (read now; empty when missing or not trusted).
 *  NULL only when out of memory. */
pyrt_digest_memo *pyrt_digest_memo_new(const char *dir);

/** Write back what changed (best effort: a box this user cannot write is
 *  no error), then free. */
void pyrt_digest_memo_free(pyrt_digest_memo *memo);

/** The digest remembered for path when sb (its fstat or lstat now) is the
 *  file it was remembered for: 1 and hex filled, or 0. */
int pyrt_digest_memo_get(const pyrt_digest_memo *memo, const char *path,
			 const struct stat *sb,
			 char hex[PYRT_SHA256_HEX_LEN + 1]);

/** Remember hex for path as sb describes it (replacing path's entry). */
void pyrt_digest_memo_put(pyrt_digest_memo *memo, const char *path,
			  const struct stat *sb, const char *hex);

#endif
