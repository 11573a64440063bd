/*
 * Which distributions were found installed whole (dists.h), remembered in
 * the box on the identities their verdict depends on (issue 25: "memoised
 * on the identities of the folders it read"), so that `pyrt status` and
 * `pyrt plugins` on an unchanged box stat each folder that holds a
 * RECORD-listed file once instead of every listed file, and read no RECORD.
 *
 * Why a remembered "whole" can never hide a missing file: the verdict of a
 * dist-info is a function of its RECORD's bytes and of whether each listed
 * path names an entry.  Whether path a/b/c names an entry is decided by the
 * entries of the folder a/b resolves to, and by nothing else.  The memo
 * records, for each site folder, the identity (cache_seal.h: device, inode,
 * mode, owner, size, mtime and ctime to the ns) of the site folder itself
 * and of every folder on the way to every listed file (a/, a/b/, following
 * links as the check does), and the identity of each whole dist-info's
 * RECORD.  Adding, removing or renaming any entry changes its folder's
 * mtime and ctime; swapping a link changes the folder holding the link;
 * chmod/chown changes the ctime; writing RECORD changes its ctime; replacing
 * a folder by another gives another inode.  A look-up stats every recorded
 * folder of the site and answers only when all are as recorded, and then
 * for a dist-info only when its RECORD is as recorded; anything else is a
 * miss and the full check runs.  Only settled identities are recorded
 * (cache_seal.h's racy rule), only verdicts of "whole" that did not depend
 * on PYRT-WHEEL-FAULTS, and a memo is kept only for the readers that ask
 * (status and plugins; `status --deep`, doctor, baseline and install read
 * every file every time).
 *
 * The same file keeps, for each folder of the search path, what listing
 * it gave the reader (the dist-info and egg-info names it holds, in the
 * order they were listed) on the folder's own identity: an entry added,
 * removed or renamed changes the folder's mtime and ctime, so a folder as
 * recorded (one fstatat, no symlink followed) lists as recorded.  And for
 * each dist-info whose METADATA was read, what the reader takes from it
 * (its one plain Version, its Requires-Dist without a marker) on the
 * identities of the dist-info folder and of METADATA (both stat'ed without
 * following a symlink: a METADATA written in place changes its ctime, one
 * renamed over has another inode, a dist-info folder swapped or chmod'ed
 * changes its own).  Both are recorded only when settled.
 *
 * The file is <box>/runtime/python/cache/dists-whole (cache_seal.h's
 * rules: the owner's, private; another user neither reads nor writes it):
 *   pyrt-dists-whole SCHEMA
 *   S <site folder>
 *   L <the folder's identity>               its listing follows
 *   E <dist-info or egg-info name>          one per entry, in order
 *   M <dist-info> <its identity> <METADATA's identity> <Version or "">
 *   Q <Requires-Dist>                       of the M before, in order
 *   D <folder, relative to the site folder> <identity>
 *   R <dist-info> <RECORD's identity>
 * strings as <length>:<bytes>, identities as their 64 raw bytes
 * (cache_seal.h's pyrt_cache_cur_id: reading 8 decimal numbers per folder
 * was a tenth of status's instructions).
 */
#ifndef PYRT_DISTS_MEMO_H
#define PYRT_DISTS_MEMO_H

#include <stddef.h>
#include <sys/stat.h>

#define PYRT_DISTS_MEMO_FILE "dists-whole"

typedef struct pyrt_dists_memo pyrt_dists_memo;

/** The memo kept in cache_dir, read now (empty when missing, not ours or
 *  damaged); the settle rule counts from now.  NULL when out of memory. */
pyrt_dists_memo *pyrt_dists_memo_new(const char *cache_dir);

/** Write back (when something new was learnt and the folders it depends
 *  on are settled), then free.  Call while the site descriptors given to
 *  pyrt_dists_memo_site are still open. */
void pyrt_dists_memo_free(pyrt_dists_memo *m);

/** The site folder at path (absolute), open as fd (borrowed until
 *  pyrt_dists_memo_free): its index for the calls below, or -1. */
int pyrt_dists_memo_site(pyrt_dists_memo *m, const char *path, int fd);

/** The search-path folder at path (absolute), before it is opened: its
 *  index (the one pyrt_dists_memo_site gives it later), or -1. */
int pyrt_dists_memo_folder(pyrt_dists_memo *m, const char *path);

/** How many entries the listing remembered for folder idx holds, or -1
 *  when none is. */
long pyrt_dists_memo_listed(const pyrt_dists_memo *m, int idx);

/** 1 when folder idx is what sb says now (its stat, no symlink followed)
 *  and its listing was remembered on that identity: *names (borrowed until
 *  pyrt_dists_memo_free) and *n are that listing, in order.  0: list it. */
int pyrt_dists_memo_listing(pyrt_dists_memo *m, int idx,
			    const struct stat *sb, char *const **names,
			    size_t *n);

/** Remember folder idx's listing: sb its fstat taken before it was
 *  listed, names the entries the reader kept, in order. */
void pyrt_dists_memo_put_listing(pyrt_dists_memo *m, int idx,
				 const struct stat *sb,
				 const char *const *names, size_t n);

/** What the reader takes from a dist-info's METADATA (dists.c). */
typedef struct pyrt_dists_meta {
	char *version;  /* its one plain Version header; NULL: ask Python */
	char **reqs;    /* its Requires-Dist without a marker, in order */
	size_t nreqs;
} pyrt_dists_meta;

void pyrt_dists_meta_clear(pyrt_dists_meta *meta);

/** 1 with *meta (borrowed until pyrt_dists_memo_free) when what was read
 *  from dist-info name's METADATA in folder idx (open as fd) is
 *  remembered, and the dist-info folder and METADATA are as they were
 *  then (two fstatat); 0: read it. */
int pyrt_dists_memo_meta(pyrt_dists_memo *m, int idx, int fd,
			 const char *name, const pyrt_dists_meta **meta);

/** Remember meta (copied) for dist-info name of folder idx: dir the
 *  dist-info folder's and file METADATA's fstat, taken before reading. */
void pyrt_dists_memo_put_meta(pyrt_dists_memo *m, int idx, const char *name,
			      const struct stat *dir, const struct stat *file,
			      const pyrt_dists_meta *meta);

/** 1 when dist-info name of site was whole when remembered and nothing
 *  its verdict depends on has changed since; 0: check it. */
int pyrt_dists_memo_whole(pyrt_dists_memo *m, int site, const char *name);

/** The folders on the way to path (a row of a whole dist-info's RECORD,
 *  relative to the site folder) join what site's memo depends on. */
void pyrt_dists_memo_path(pyrt_dists_memo *m, int site, const char *path);

/** Remember that dist-info name of site is whole, its RECORD as record
 *  says (the fstat of what was read); its rows given to
 *  pyrt_dists_memo_path. */
void pyrt_dists_memo_put(pyrt_dists_memo *m, int site, const char *name,
			 const struct stat *record);

#endif
