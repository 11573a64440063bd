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

#define PYRT_CACHE_SUM_LEN 16 /* hex digits */

/** The checksum of len bytes as 16 lowercase hex digits plus NUL. */
void pyrt_cache_sum(const void *data, size_t len,
		    char hex[PYRT_CACHE_SUM_LEN + 1]);

/** Non-zero when hex (exactly 16 lowercase hex digits, then NUL or any
 *  byte that ends it at hex[16]) is the checksum of len bytes at data. */
int pyrt_cache_sum_ok(const char *hex, const void *data, size_t len);

#endif
