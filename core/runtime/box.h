/*
 * The box root layout.  Everything pyrt writes lives below
 * <box>/runtime/python (and plugins are read from <box>/plugins):
 *
 *   current            symlink → installs/<id>/python: the active install
 *   previous           symlink → the single rollback target, if any
 *   installs/<id>/     python/ (the tree), marker.json, manifest.tsv
 *   staging/<id>/      private 0700 extraction area with an .owner marker
 *   downloads/         <file>.partial while downloading (resumable)
 *   logs/              install logs
 *   lock               the box-wide installer lock
 *   cache/             answers remembered by readers (plugins-check.json,
 *                      digests): any of it may go at any time
 */
#ifndef PYRT_BOX_H
#define PYRT_BOX_H

#define PYRT_BOX_CACHE_DIR "cache"

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/util/error.h"

typedef struct pyrt_box pyrt_box;

/**
 * Resolve the layout under root.  With create=1 the directories are made
 * (the runtime tree 0755 like /usr, private state 0700); with create=0
 * nothing is written (status, doctor).  A box owned by root is trusted by
 * every user; opened by another user it is shared (read-only) and create
 * makes nothing.
 */
int pyrt_box_open(pyrt_box **out, const char *root, int create,
		  pyrt_error *err);

struct pyrt_fs_seen;
/**
 * pyrt_box_open whose walk of root judges walked (what the front end's
 * walk of the same resolved path lstat()ed, core/util/fs.h; NULL: none)
 * instead of lstat()ing each folder again.  Only for a record taken just
 * before (a one-shot command), never a long-lived one.
 */
int pyrt_box_open_seen(pyrt_box **out, const char *root, int create,
		       const struct pyrt_fs_seen *walked, pyrt_error *err);

/**
 * What create=1 makes, for a box opened with create=0 (a plan is made
 * before the consent, the change after it, on the same handle): the
 * directories, then the trust check again.  Nothing in a shared box.
 */
int pyrt_box_create(const pyrt_box *box, pyrt_error *err);
void pyrt_box_free(pyrt_box *box);

const char *pyrt_box_root(const pyrt_box *box);

/** 1 when the box is root's and we are not root: we may read it only. */
int pyrt_box_shared(const pyrt_box *box);

/**
 * 0 when we may change the box; else PYRT_E_READONLY, the message naming
 * the box and the fix ("sudo pyrt COMMAND --box-root BOX").  Every change
 * (install, baseline, plugins install, rollback, uninstall) asks first.
 */
int pyrt_box_check_change(const pyrt_box *box, const char *command,
			  pyrt_error *err);
const char *pyrt_box_runtime_dir(const pyrt_box *box); /* <root>/runtime/python */
const char *pyrt_box_current(const pyrt_box *box);
const char *pyrt_box_previous(const pyrt_box *box);
const char *pyrt_box_installs_dir(const pyrt_box *box);
const char *pyrt_box_staging_dir(const pyrt_box *box);
const char *pyrt_box_downloads_dir(const pyrt_box *box);
const char *pyrt_box_logs_dir(const pyrt_box *box);
const char *pyrt_box_lock_path(const pyrt_box *box);
const char *pyrt_box_plugins_dir(const pyrt_box *box);

/**
 * Where a link (current or previous) points: the install directory
 * (installs/<id>, the parent of the linked python/ tree) into install_dir.
 * Returns 0, PYRT_E_NOT_READY when the link is absent (message says so),
 * or PYRT_E_IO when it is not a symlink into installs/ or is dangling.
 */
int pyrt_box_link_install(const pyrt_box *box, const char *link,
			  char *install_dir, size_t len, pyrt_error *err);

/**
 * The active install (where `current` points) into install_dir, for the
 * operations that work inside it (pip, the baseline).  Returns 0 or
 * PYRT_E_NOT_READY with the fix in the message: "pyrt install" when there
 * is none, "pyrt install --force" when the link is broken.
 */
int pyrt_box_active_install(const pyrt_box *box, char *install_dir,
			    size_t len, pyrt_error *err);

/** The interpreter of the install at install_dir, where the pins' layout
 *  puts it (layout.interpreter; "python/bin/python3" without pins): every
 *  part of pyrt that starts the runtime asks here, so a layout whose
 *  archive has python3.11 only works everywhere or nowhere.  0, or the
 *  path did not fit (err says so). */
int pyrt_box_interpreter(const char *install_dir, const pyrt_pins *pins,
			 char *out, size_t len, pyrt_error *err);

/** The active install (pyrt_box_active_install) and its interpreter
 *  (pyrt_box_interpreter), checked executable: where everything that runs
 *  the runtime (pip, smoke) starts.  0, or PYRT_E_NOT_READY with the fix in
 *  the message ("pyrt install", or "pyrt install --force" when the link or
 *  the interpreter is broken), PYRT_E_UNTRUSTED, or a path that did not
 *  fit. */
int pyrt_box_active_interpreter(const pyrt_box *box, const pyrt_pins *pins,
				char *install_dir, size_t dirlen,
				char *python, size_t pylen, pyrt_error *err);

/** The default box root: $XDG_DATA_HOME/pyrt or $HOME/.local/share/pyrt. */
int pyrt_box_default_root(char *buf, size_t len, pyrt_error *err);

#endif
