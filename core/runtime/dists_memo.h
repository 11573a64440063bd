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
 * The file is <box>/runtime/python/cache/dists-whole (cache_seal.h's
 * rules: the owner's, private; another user neither reads nor writes it):
 *   pyrt-dists-whole SCHEMA
 *   S <site folder>
 *   D <folder, relative to the site folder> <identity>
 *   R <dist-info> <RECORD's identity>
 * strings as <length>:<bytes>.
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
