/*
 * Box root layout: every path pyrt reads or writes is derived here, so that
 * nothing is ever written outside <box>/runtime/python.
 */
#include "core/runtime/box.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/trust.h"

/* Each path malloc'd to its length: ten PATH_MAX arrays were 40 KB that
 * every command zeroed, ten fresh pages and as many page faults (~25 us
 * each on the bench VM) on the path of `pyrt status`. */
struct pyrt_box {
	char *root;
	char *runtime_parent; /* <root>/runtime */
	char *runtime;
	char *current;
	char *previous;
	char *installs;
	char *staging;
	char *downloads;
	char *logs;
	char *lock;
	char *plugins;
	int shared;   /* root's box, opened by another user: read-only */
};

/* Join into a fixed buffer; a path too long for PATH_MAX is refused. */
static int box_path(char *out, const char *a, const char *b, pyrt_error *err)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", a, b);
	if (n < 0 || n >= PATH_MAX)
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "box root path too long: %s", a);
	return 0;
}

/* *out = a/b, malloc'd. */
static int box_dup(char **out, const char *a, const char *b, pyrt_error *err)
{
	char buf[PATH_MAX];
	int rc = box_path(buf, a, b, err);
	if (rc)
		return rc;
	*out = strdup(buf);
	return *out ? 0 : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
}

/* Absolute form of root without resolving symlinks (it may not exist yet). */
static int box_absolute(char *out, const char *root, pyrt_error *err)
{
	if (!root || !*root)
		return pyrt_error_set(err, PYRT_E_USAGE, "empty box root");
	if (root[0] == '/') {
		if (strlen(root) >= PATH_MAX)
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "box root path too long");
		strcpy(out, root);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "cannot resolve box root %s",
						    root);
		if (box_path(out, cwd, root, err))
			return err ? err->code : PYRT_E_USAGE;
	}
	size_t len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		out[--len] = '\0';
	return 0;
}

/*
 * The box root as given may be a folder everyone shares (/tmp) or not a
 * folder at all (/etc/passwd).  Neither is fixed by changing it ("chmod
 * go-w /tmp" breaks every other program, "remove it" a system file): the
 * fix is a folder of the box's own, which pyrt creates.
 */
static int box_root_kind(const char *root, const struct stat *known,
			 pyrt_error *err)
{
	struct stat st;
	if (known)
		st = *known;
	else if (lstat(root, &st) != 0)
		return 0; /* the private-dir rule says what is wrong */
	if (S_ISLNK(st.st_mode))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing the box root %s: it is not a "
				      "directory — leave it as it is and pass "
				      "--box-root naming a folder of the box's "
				      "own (a new path: pyrt creates it 0700)",
				      root);
	if ((st.st_mode & S_ISVTX) && (st.st_mode & (S_IWGRP | S_IWOTH)))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing the box root %s: it is a folder "
				      "shared by every user (mode %04o), not "
				      "one of its own — leave its mode as it "
				      "is and pass a dedicated folder in it "
				      "(pyrt creates it 0700), e.g. --box-root "
				      "%s/pyrt-box", root,
				      (unsigned)(st.st_mode & 07777),
				      strcmp(root, "/") ? root : "");
	return 0;
}

/*
 * Every directory pyrt keeps state or code in, from the root down, must be
 * ours or root's, and nobody else's to write (StrictModes, as OpenSSH does
 * it): a box someone else made or can write could hand root a planted
 * interpreter or a symlinked partial.  Checked before anything runs, and
 * again after creating what was missing.
 */
static int box_check_trust(const pyrt_box *box, const struct stat *root_st,
			   int *foreign, pyrt_error *err)
{
	int rc = box_root_kind(box->root, root_st, err);
	if (rc)
		return rc;
	const char *dirs[] = { box->root, box->runtime_parent, box->runtime,
			       box->installs, box->staging, box->downloads,
			       box->logs };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		int missing = 0;
		struct stat st;
		rc = pyrt_fs_check_private_dir_stat(dirs[i], i ? NULL : root_st,
						    &missing, &st, err);
		if (rc)
			return rc;
		/* Below a missing directory nothing exists either. */
		if (missing && i < 3)
			return 0;
		if (!missing && foreign && st.st_uid != geteuid())
			*foreign = 1;
	}
	return 0;
}

/*
 * The runtime tree is every user's to read and run, like /usr: the box
 * root, runtime/, runtime/python and installs/ get r-x for all (never w).
 * What stays private is below them: downloads, staging, logs, caches,
 * pip's home, the token (0700/0600).  A box of one user's is kept private
 * by the folder it lives in (a 0700 home).
 */
static int box_share(const pyrt_box *box, pyrt_error *err)
{
	const char *dirs[] = { box->root, box->runtime_parent, box->runtime,
			       box->installs };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		struct stat st;
		if (lstat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || (st.st_mode & 0055) == 0055)
			continue;
		if (chmod(dirs[i], (st.st_mode & 07777) | 0055) != 0)
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "cannot make %s readable "
						    "by every user", dirs[i]);
	}
	return 0;
}

/* The walk's lstat of the box root itself, when it exists. */
static const struct stat *root_seen(const char *root, const pyrt_fs_seen *seen)
{
	size_t depth = 0;
	for (const char *c = root; *c; c++)
		depth += *c == '/' && c[1] && c[1] != '/';
	return pyrt_fs_seen_at(seen, depth);
}

int pyrt_box_open(pyrt_box **out, const char *root, int create,
		  pyrt_error *err)
{
	return pyrt_box_open_seen(out, root, create, NULL, err);
}

int pyrt_box_open_seen(pyrt_box **out, const char *root, int create,
		       const pyrt_fs_seen *walked, pyrt_error *err)
{
	*out = NULL;
	pyrt_box *box = calloc(1, sizeof *box);
	if (!box)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	char given[PATH_MAX], resolved[PATH_MAX];
	/* What the walk lstat()ed of the resolved path's folders is judged
	 * again below without a second stat of each. */
	pyrt_fs_seen *seen = malloc(sizeof *seen);
	int rc = seen ? box_absolute(given, root, err)
		      : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* Walked as given: a link on the way decides which box this is.
	 * The folders of the resolved path are checked just below. */
	if (!rc) rc = pyrt_trust_path_walked("box root", given,
					     PYRT_TRUST_MISSING_OK |
					     PYRT_TRUST_LINKS_ONLY, resolved,
					     sizeof resolved, seen, walked,
					     err);
	if (!rc && !(box->root = strdup(resolved)))
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!rc) rc = pyrt_fs_check_ancestors_seen(box->root, seen, err);
	if (!rc) rc = box_dup(&box->runtime_parent, box->root, "runtime", err);
	if (!rc) rc = box_dup(&box->runtime, box->root, "runtime/python", err);
	if (!rc) rc = box_dup(&box->current, box->runtime, "current", err);
	if (!rc) rc = box_dup(&box->previous, box->runtime, "previous", err);
	if (!rc) rc = box_dup(&box->installs, box->runtime, "installs", err);
	if (!rc) rc = box_dup(&box->staging, box->runtime, "staging", err);
	if (!rc) rc = box_dup(&box->downloads, box->runtime, "downloads", err);
	if (!rc) rc = box_dup(&box->logs, box->runtime, "logs", err);
	if (!rc) rc = box_dup(&box->lock, box->runtime, "lock", err);
	if (!rc) rc = box_dup(&box->plugins, box->root, "plugins", err);
	/* Root's box seen by another user: trusted (root could change ours
	 * too), but only to read.  Any directory of root's in it makes it so:
	 * we could not write there.  box_check_trust lets through only
	 * folders of ours or root's, and tells whether one was root's. */
	int foreign = 0;
	if (!rc) rc = box_check_trust(box, root_seen(box->root, seen),
				      geteuid() ? &foreign : NULL, err);
	free(seen);
	if (!rc)
		box->shared = foreign;
	if (!rc && create)
		rc = pyrt_box_create(box, err);
	if (rc) {
		pyrt_box_free(box);
		return rc;
	}
	*out = box;
	return 0;
}

int pyrt_box_create(const pyrt_box *box, pyrt_error *err)
{
	/* Nothing is ours to create in a shared box; its changes refuse
	 * through pyrt_box_check_change. */
	if (box->shared)
		return 0;
	const char *dirs[] = { box->installs, box->staging, box->downloads,
			       box->logs };
	int rc = 0;
	for (size_t i = 0; !rc && i < sizeof dirs / sizeof *dirs; i++)
		rc = pyrt_fs_mkdirs(dirs[i], err);
	if (!rc) rc = box_share(box, err);
	if (!rc) rc = box_check_trust(box, NULL, NULL, err);
	return rc;
}

void pyrt_box_free(pyrt_box *box)
{
	if (!box)
		return;
	char *paths[] = { box->root, box->runtime_parent, box->runtime,
			  box->current,
			  box->previous, box->installs, box->staging,
			  box->downloads, box->logs, box->lock, box->plugins };
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		free(paths[i]);
	free(box);
}

int pyrt_box_interpreter(const char *install_dir, const pyrt_pins *pins,
			 char *out, size_t len, pyrt_error *err)
{
	const char *rel = pyrt_pins_layout_interpreter(pins);
	return pyrt_fmt_path(out, len, err, "%s/%s", install_dir,
			     rel && rel[0] ? rel : "python/bin/python3");
}

const char *pyrt_box_root(const pyrt_box *b) { return b->root; }
int pyrt_box_shared(const pyrt_box *b) { return b->shared; }

int pyrt_box_check_change(const pyrt_box *box, const char *command,
			  pyrt_error *err)
{
	if (!box->shared)
		return 0;
	char me[128];
	pyrt_fs_owner_name(geteuid(), me, sizeof me);
	return pyrt_error_set(err, PYRT_E_READONLY,
			      "the box %s is root's, shared read-only with "
			      "every user: you (%s) may read it (status, "
			      "doctor, plugins, smoke, its interpreter) but "
			      "not change it — run it as root: \"sudo pyrt "
			      "%s --box-root %s\" (or keep a box of your own: "
			      "--box-root DIR)", box->root, me, command,
			      box->root);
}
const char *pyrt_box_runtime_dir(const pyrt_box *b) { return b->runtime; }
const char *pyrt_box_current(const pyrt_box *b) { return b->current; }
const char *pyrt_box_previous(const pyrt_box *b) { return b->previous; }
const char *pyrt_box_installs_dir(const pyrt_box *b) { return b->installs; }
const char *pyrt_box_staging_dir(const pyrt_box *b) { return b->staging; }
const char *pyrt_box_downloads_dir(const pyrt_box *b) { return b->downloads; }
const char *pyrt_box_logs_dir(const pyrt_box *b) { return b->logs; }
const char *pyrt_box_lock_path(const pyrt_box *b) { return b->lock; }
const char *pyrt_box_plugins_dir(const pyrt_box *b) { return b->plugins; }

int pyrt_box_active_interpreter(const pyrt_box *box, const pyrt_pins *pins,
				char *install_dir, size_t dirlen,
				char *python, size_t pylen, pyrt_error *err)
{
	int rc = pyrt_box_active_install(box, install_dir, dirlen, err);
	if (!rc)
		rc = pyrt_box_interpreter(install_dir, pins, python, pylen,
					  err);
	if (rc)
		return rc;
	if (access(python, X_OK) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime is broken (%s is "
				      "missing or not executable) — run \"pyrt "
				      "install --force\"", python);
	return 0;
}

int pyrt_box_default_root(char *buf, size_t len, pyrt_error *err)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/pyrt", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/share/pyrt", home);
	else
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "no box root: set --box-root, PYRT_BOX_ROOT or HOME");
	if (n < 0 || (size_t)n >= len)
		return pyrt_error_set(err, PYRT_E_USAGE, "box root path too long");
	return 0;
}

int pyrt_box_link_install(const pyrt_box *box, const char *link,
			  char *install_dir, size_t len, pyrt_error *err)
{
	char target[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n < 0 && errno == ENOENT)
		return pyrt_error_set(err, PYRT_E_NOT_READY, "%s does not exist",
				      link);
	if (n < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "%s is not a symlink", link);
	target[n] = '\0';
	/* Only the shape pyrt writes is trusted: installs/<id>/python. */
	const char *prefix = "installs/";
	size_t plen = strlen(prefix);
	char *slash = strrchr(target, '/');
	if (strncmp(target, prefix, plen) != 0 || !slash ||
	    strcmp(slash, "/python") != 0 || strstr(target, "..") ||
	    slash == target + plen - 1 || strchr(target + plen, '/') != slash)
		return pyrt_error_set(err, PYRT_E_IO,
				      "%s points to %s, not to an install pyrt made",
				      link, target);
	*slash = '\0';
	int w = snprintf(install_dir, len, "%s/%s", box->runtime, target);
	if (w < 0 || (size_t)w >= len)
		return pyrt_error_set(err, PYRT_E_IO, "install path too long");
	char probe[PATH_MAX];
	int rc = pyrt_fmt_path(probe, sizeof probe, err, "%s/python",
			       install_dir);
	if (rc)
		return rc;
	if (access(probe, F_OK) != 0)
		return pyrt_error_set(err, PYRT_E_IO,
				      "%s is dangling: %s is missing", link,
				      probe);
	/* What pyrt runs from here must be ours alone. */
	rc = pyrt_fs_check_private_dir(install_dir, NULL, err);
	return rc ? rc : pyrt_fs_check_private_dir(probe, NULL, err);
}

int pyrt_box_active_install(const pyrt_box *box, char *install_dir,
			    size_t len, pyrt_error *err)
{
	pyrt_error lerr = PYRT_ERROR_INIT;
	int rc = pyrt_box_link_install(box, box->current, install_dir, len,
				       &lerr);
	if (rc == PYRT_E_NOT_READY)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime not provisioned — "
				      "run \"pyrt install\" first");
	if (rc == PYRT_E_UNTRUSTED)
		return pyrt_error_set(err, rc, "%s", lerr.msg);
	if (rc)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime is broken (%s) — run "
				      "\"pyrt install --force\"", lerr.msg);
	return 0;
}
