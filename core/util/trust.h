/*
 * Paths the user types that decide what runs (--pins, --requirements,
 * --wheelhouse, the mirror directory, the box root, the serve socket's
 * folder): may pyrt take what they name?  Whoever can change such a file,
 * or re-point a link or rename a folder on the way to it, picks the code
 * pyrt runs, as root when root runs pyrt.  The rule is the box's (fs.h):
 *
 *   - every folder on the way is owned by root or the effective user and
 *     writable by others only when sticky (/tmp);
 *   - a symbolic link on the way is followed only when owned by root or
 *     the effective user (its folder passed the rule already), and its
 *     target is walked by the same rule;
 *   - what the path names is owned by root or the effective user and
 *     writable by no one else.
 *
 * The path is walked as typed, one component at a time, not only its
 * realpath: a link in it is part of what decides where it leads.
 */
#ifndef PYRT_TRUST_H
#define PYRT_TRUST_H

#include <stddef.h>

#include "core/util/error.h"
#include "core/util/fs.h"

/** A tail that does not exist yet is fine: pyrt creates it. */
#define PYRT_TRUST_MISSING_OK 1u
/** Leave the object itself to the caller (the box checks its own). */
#define PYRT_TRUST_NO_FINAL 2u
/** Check only the links on the way and the folders that hold them: what a
 * walk of the resolved path (which has no links) cannot see.  For a front
 * end that resolves a path once and hands core the result, which core then
 * walks in full where it uses it. */
#define PYRT_TRUST_LINKS_ONLY 4u

/**
 * Walk path (relative to the working directory unless absolute) by the
 * rule above.  label names it in the message ("--pins").  resolved (may be
 * NULL) gets the absolute path with every link followed, the missing tail
 * appended as typed ("." and ".." refused there).  Returns 0,
 * PYRT_E_UNTRUSTED naming the label, the path, the part at fault, its
 * owner and the fix, or PYRT_E_USAGE when the path is missing (without
 * PYRT_TRUST_MISSING_OK), loops or is too long.
 */
int pyrt_trust_path(const char *label, const char *path, unsigned flags,
		    char *resolved, size_t len, pyrt_error *err);

/**
 * pyrt_trust_path that also tells what its walk lstat()ed of the folders
 * of the resolved path (fs.h's pyrt_fs_seen, whose path is that path), so a
 * caller judging them again (the box's ancestors) need not stat them.
 */
int pyrt_trust_path_seen(const char *label, const char *path, unsigned flags,
			 char *resolved, size_t len, pyrt_fs_seen *seen,
			 pyrt_error *err);

/** pyrt_trust_open: open a folder (O_DIRECTORY), not a file. */
#define PYRT_TRUST_DIR 8u

/**
 * The gate: every file and folder that decides what runs (pins,
 * requirements, a wheelhouse and each wheel in it, --cacert, the mirror
 * directory, the box's plugins tree, serve's inputs) passes here before it
 * is read.  path is walked by pyrt_trust_path, then opened with O_NOFOLLOW
 * relative to the descriptor of its folder and the rule applied again to
 * the descriptor, so what is read is what was checked: every folder on the
 * way is writable only by root or us, so no one else can swap a name
 * between the walk and the open.  *fd gets the descriptor (O_CLOEXEC).
 * Returns 0, or pyrt_trust_path's errors.
 */
int pyrt_trust_open(const char *label, const char *path, unsigned flags,
		    int *fd, pyrt_error *err);

/**
 * pyrt_trust_path_seen whose walk judges reuse (an earlier walk's record
 * of the same resolved path, or NULL) as pyrt_trust_path_reuse does, and
 * records into seen what it judged.
 */
int pyrt_trust_path_walked(const char *label, const char *path,
			   unsigned flags, char *resolved, size_t len,
			   pyrt_fs_seen *seen, const pyrt_fs_seen *reuse,
			   pyrt_error *err);

/**
 * pyrt_trust_path of the path an earlier walk resolved (reuse->path, from
 * pyrt_trust_path_seen), judging that walk's lstat of each folder instead
 * of its own: the same rule and messages.  reuse of another path (or NULL)
 * is not used.
 */
int pyrt_trust_path_reuse(const char *label, const char *path, unsigned flags,
			  char *resolved, size_t len,
			  const pyrt_fs_seen *reuse, pyrt_error *err);

/**
 * pyrt_trust_open of the path a walk just resolved (seen->path, from
 * pyrt_trust_path_seen), judging what that walk lstat()ed of each folder
 * instead of a second lstat: the same rule and messages.  seen of another
 * path (or NULL) is not used.
 */
int pyrt_trust_open_seen(const char *label, const char *path, unsigned flags,
			 const pyrt_fs_seen *seen, int *fd, pyrt_error *err);

/**
 * The rule on a descriptor opened relative to a folder that passed the
 * gate (a plugin folder or its plugin.yaml, a wheel in a wheelhouse):
 * owned by root or the effective user, writable by no one else.  shown
 * names it in the message: "refusing LABEL SHOWN: it is owned by uid 1234,
 * who could change it — ...".  Returns 0 or PYRT_E_UNTRUSTED.
 */
int pyrt_trust_fd(const char *label, int fd, const char *shown,
		  pyrt_error *err);

/**
 * A folder every file of which is read (a wheelhouse: pip and the
 * installer open any archive in it): the folder by pyrt_trust_path, then
 * each entry in it by the same rule.
 */
int pyrt_trust_dir_entries(const char *label, const char *dir,
			   pyrt_error *err);

#endif
