/*
 * A checksum on every cache entry pyrt keeps in the box (cache/digests,
 * cache/plugins-check.json, cache/plugin-manifests.json).  A cache is only
 * an optimisation: an entry whose checksum does not verify (a flipped bit,
 * a torn write, a hand edit) is ignored and its answer computed again, so
 * damage can never become a verdict.
 *
 * The checksum is 64-bit FNV-1a over the entry's exact bytes: each step is
 * a bijection of the running value, so any one changed byte always changes
 * it, and other damage escapes with odds near 2^-64.  It guards against
 * accidents, not an adversary: whoever can write the box's private cache
 * could rewrite the marker and the manifest it vouches for.
 */
#ifndef PYRT_CACHE_SEAL_H
#define PYRT_CACHE_SEAL_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#define PYRT_CACHE_SUM_LEN 16 /* hex digits */

/** The checksum of len bytes as 16 lowercase hex digits plus NUL. */
void pyrt_cache_sum(const void *data, size_t len,
		    char hex[PYRT_CACHE_SUM_LEN + 1]);

/** Non-zero when hex (exactly 16 lowercase hex digits, then NUL or any
 *  byte that ends it at hex[16]) is the checksum of len bytes at data. */
int pyrt_cache_sum_ok(const char *hex, const void *data, size_t len);

/*
 * The machinery every whole-file memo of the box shares (the plugin scan,
 * plugins_scan_memo.h; the distributions found whole, dists.h):
 *
 *   - a file or folder is known by its identity: device, inode, mode,
 *     owner, group, size, mtime and ctime to the nanosecond.  Any entry
 *     added, removed or renamed in a folder changes the folder's mtime and
 *     ctime; any write, chmod, chown or rename over a file its ctime, which
 *     no user can set back.
 *   - only an identity whose mtime and ctime are PYRT_CACHE_SETTLE_S older
 *     than the start of the read it vouches for is recorded (git's "racily
 *     clean" rule): file times advance by the kernel's clock tick, so a
 *     change in the same tick as the read could leave them as they were.
 *   - the file lives in the box's private cache (owned by the effective
 *     user, 0700, not a symlink: pyrt_fs_check_private_dir), is written
 *     0600 through O_CREAT|O_EXCL on a temporary name and renamed over,
 *     and read only with pyrt_fs_open_state's rules (ours, regular, not a
 *     symlink, writable by no one else).  A user other than the box's
 *     owner can neither read nor write it, so such a user always reads
 *     everything in full.
 *   - its first line is the checksum of the rest; a file whose checksum
 *     does not verify is a miss.
 */
#define PYRT_CACHE_SETTLE_S 2
#define PYRT_CACHE_ID_FIELDS 8

typedef struct pyrt_cache_id {
	long long f[PYRT_CACHE_ID_FIELDS];
} pyrt_cache_id;

/** sb's identity (the fields above). */
void pyrt_cache_id_of(const struct stat *sb, pyrt_cache_id *id);

/** Whether two identities are the same. */
int pyrt_cache_id_same(const pyrt_cache_id *a, const pyrt_cache_id *b);

/** Whether sb's mtime and ctime are PYRT_CACHE_SETTLE_S older than
 *  started (the start of the read an entry would vouch for). */
int pyrt_cache_settled(const struct stat *sb, const struct timespec *started);

/** A sealed file's body as it is built: text appended, grown by doubling
 *  up to max bytes (the size its reader accepts; past it, failed is set
 *  and the memo is not written: a miss, never a cut file).  Zero it, set
 *  max, append, write s/len when !failed, free(s). */
typedef struct pyrt_cache_text {
	char *s;
	size_t len, cap, max;
	int failed;
} pyrt_cache_text;

void pyrt_cache_text_add(pyrt_cache_text *t, const char *p, size_t n);

/** " " and id's fields as raw bytes in the host's order (a memo carried
 *  to a machine of the other order reads as other identities: a miss). */
#define PYRT_CACHE_ID_BYTES (8 * PYRT_CACHE_ID_FIELDS)
void pyrt_cache_text_add_id(pyrt_cache_text *t, const pyrt_cache_id *id);

/** Reading a sealed body back: a cursor over it that turns bad at the
 *  first byte out of place and stays bad (every read after it is a
 *  no-op), so a parser checks once, at the end. */
typedef struct pyrt_cache_cursor {
	const char *p, *end;
	int bad;
} pyrt_cache_cursor;

/** The byte ch: 1, or 0 (the cursor is bad). */
int pyrt_cache_cur_char(pyrt_cache_cursor *c, char ch);
/** " <decimal>" (a leading '-' allowed, at most 19 digits, fits a long
 *  long); 0 when bad. */
long long pyrt_cache_cur_num(pyrt_cache_cursor *c);
/** " " and an identity's PYRT_CACHE_ID_BYTES raw bytes, as
 *  pyrt_cache_text_add_id wrote them: 1, or 0 (the cursor is bad).  Eight
 *  decimal numbers cost ten times the instructions to read, and a memo
 *  holds one identity per folder it vouches for. */
int pyrt_cache_cur_id(pyrt_cache_cursor *c, pyrt_cache_id *id);
/** " <length>:<bytes>", length ≤ max, no NUL in the bytes: malloc'd and
 *  NUL-terminated ("" for length 0), or NULL with the cursor bad. */
char *pyrt_cache_cur_str(pyrt_cache_cursor *c, size_t max);

/** Write body (len bytes) as dir/name, sealed: its checksum line, then
 *  body.  dir is created 0700 when missing; nothing is written when it is
 *  not private.  Best effort: nothing is an error. */
void pyrt_cache_write_sealed(const char *dir, const char *name,
			     const char *body, size_t len);

/** Read dir/name when dir is private, the file ours and its seal verifies:
 *  0 with *data (malloc'd, the caller frees, NUL-ended) and *body, *len
 *  the part after the checksum line; -1 (a miss) otherwise. */
int pyrt_cache_read_sealed(const char *dir, const char *name, size_t max,
			   char **data, const char **body, size_t *len);

#endif
