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
 * METADATA's Version header is the answer.
 *
 * Anything unusual is -1, "ask Python", never a guess: a matching
 * .egg-info, two matches in one directory, a directory that is a file
 * (zip), a symlink on the way (nothing is followed), an unreadable
 * directory, METADATA missing, not UTF-8, or without one plain Version.
 */
#ifndef PYRT_DISTS_H
#define PYRT_DISTS_H

#include <stddef.h>

typedef struct pyrt_dists pyrt_dists;

/** A reader for the n directories rel (relative to prefix, an absolute
 *  path to the install's python/ directory).  Directories are listed on
 *  first use and kept.  NULL when out of memory. */
pyrt_dists *pyrt_dists_new(const char *prefix, const char *const *rel,
			   size_t n);

void pyrt_dists_free(pyrt_dists *d);

/** The installed version of name: 1 with version[len] filled, 0 when not
 *  installed (every directory readable or absent), -1 ask Python. */
int pyrt_dists_version(pyrt_dists *d, const char *name, char *version,
		       size_t len);

/** 1 when some directory holds pip/_vendor/packaging/requirements.py or
 *  packaging/requirements.py (the checker can parse specifiers), else 0. */
int pyrt_dists_have_packaging(pyrt_dists *d);

#endif
