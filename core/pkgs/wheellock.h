/*
 * The wheel lock at install time: with a `wheels:` lock in the pins for the
 * runtime's platform, a baseline or plugin install takes exactly the locked
 * files and nothing else.
 *
 * With a wheelhouse, every *.whl in it is judged before any installer
 * starts: a locked file is opened once and copied, while it is hashed, into
 * the box's private 0700 folder <box>/runtime/python/wheels/files (the
 * --from-file rule, applied to wheels), and the copy is kept only when its
 * SHA-256 and size are the lock's; a file in the lock of another platform
 * is left alone; any other wheel is refused.  pyrt's installer and pip read
 * only that copy.  Without a wheelhouse pip downloads from its index, and
 * --require-hashes makes it check each download against the lock before it
 * unpacks it.  Either way pip gets a requirements file pyrt writes from the
 * lock (`name[extras]==version --hash=sha256:...` lines), never one of the
 * operator's, and every requirement asked for must name a locked project.
 *
 * Before any installer starts, the runtime's interpreter checks the
 * requirements as written against the lock (py/lock_closure.py, with pip's
 * own packaging): each version specifier must be satisfied by the locked
 * version, or the install is refused with "re-lock: pyrt lock ...".  With a
 * wheelhouse, the file then names only the requested projects and the
 * locked dependencies they need, read from the Requires-Dist of the locked
 * wheels' METADATA with markers evaluated for that interpreter (a marker it
 * cannot evaluate is refused, naming it); from an index, where no wheel is
 * at hand before pip downloads, it names every locked project.
 *
 * Everything here runs under the box lock, which keeps the private folder
 * to one run; it is emptied before and removed after.
 */
#ifndef PYRT_WHEELLOCK_H
#define PYRT_WHEELLOCK_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/pkgs/pip.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_WHEELLOCK_DIR "wheels" /**< under <box>/runtime/python */

typedef struct pyrt_wheellock pyrt_wheellock;

/**
 * Stage the lock of platform for an install of reqs (PEP 508 strings, each
 * of whose names must be a locked project) from wheelhouse (NULL: pip's
 * index).  Returns 0 with *out, or PYRT_E_VERIFY naming the file, the
 * expected and the actual SHA-256 (a wheel not in the lock, or with another
 * digest or size; a requirement outside the lock, or one the locked
 * version does not satisfy; pins that lock other platforms only),
 * PYRT_E_INTERPRETER (the check above did not answer), PYRT_E_USAGE (an unreadable wheelhouse), PYRT_E_IO,
 * PYRT_E_UNTRUSTED or PYRT_E_CANCELLED.  Nothing is installed here.  box
 * is the caller's (opened once, lock held); the copy goes under it.
 */
int pyrt_wheellock_stage(pyrt_wheellock **out, const pyrt_box *box,
			 const pyrt_pins *pins, const char *platform,
			 const char *wheelhouse, const char *const *reqs,
			 size_t nreqs, const pyrt_events *ev,
			 pyrt_error *err);

/** The private copy of the wheelhouse; NULL when pip reads its index. */
const char *pyrt_wheellock_wheelhouse(const pyrt_wheellock *wl);
/** The requirements file pip gets with --require-hashes. */
const char *pyrt_wheellock_requirements(const pyrt_wheellock *wl);
/** How many locked wheels were copied (0 without a wheelhouse). */
size_t pyrt_wheellock_copied(const pyrt_wheellock *wl);

/** Remove the private folder and free; NULL is a no-op. */
void pyrt_wheellock_free(pyrt_wheellock *wl);

/**
 * pyrt_pip_install_each, through the lock when the pins carry one (the
 * platform is the active install's): staged as above, then the installer
 * and pip read only the copy and pip checks the hashes.  Without a lock
 * (the built-in pins) it is pyrt_pip_install_each unchanged.  Call with
 * the box lock held.  result is filled (and must be cleared) in every case.
 */
int pyrt_wheellock_pip_install(const pyrt_pip_opts *opts,
			       const pyrt_pins *pins, const pyrt_events *ev,
			       pyrt_pip_each_result *result, pyrt_error *err);

/**
 * The lock of platform for a wheelhouse the operator trusts: every *.whl
 * of dir whose platform tag fits the key ("any", or the key's os, arch and
 * libc) hashed and set as pins' lock (pyrt_pins_set_lock).  *count gets
 * how many; *skipped those that fit another platform.  PYRT_E_UNTRUSTED
 * when dir or a wheel in it fails the gate (trust.h); PYRT_E_USAGE for an
 * unreadable dir, no wheel that fits, or two versions of one project.
 */
int pyrt_wheellock_make(pyrt_pins *pins, const char *platform,
			const char *dir, size_t *count, size_t *skipped,
			pyrt_error *err);

/** 1 when a wheel's platform tag fits a platform key. */
int pyrt_wheellock_fits(const char *file, const char *platform);

#endif
