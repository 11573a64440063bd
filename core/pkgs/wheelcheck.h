/*
 * Wheels carry only themselves (issue 26, door 1).  pip refuses a second
 * .dist-info only at a wheel's top level; under <name>.data/purelib or
 * platlib it installs one, with a RECORD of the wheel's choosing, and a
 * later repair (pip uninstall of that "distribution") deletes whatever
 * that RECORD names, as root.  A __pycache__ member overwrites another
 * package's bytecode cache.  So pyrt reads every wheel's table of contents
 * itself (the zip's central directory, the one pip's zipfile reads, through
 * libarchive), before any installer sees the wheel, and refuses one that
 * carries:
 *
 *   - a .dist-info or .egg-info other than its own, at the top level or
 *     at the top of a .data/<scheme>/ folder (where it lands in
 *     site-packages);
 *   - a __pycache__/ member anywhere.
 *
 * Members that leave the install folder ("..", absolute) are refused by
 * the installers themselves (py/fastwheel.py names them, pip too).
 *
 * Its own .dist-info is <name>-<version>.dist-info for the name and
 * version of its file name, compared as PEP 503 normalises names.
 */
#ifndef PYRT_WHEELCHECK_H
#define PYRT_WHEELCHECK_H

#include "core/util/error.h"

/**
 * The check of one wheel open on fd (seekable); file is its file name
 * ("python_docx-0.8.11-py3-none-any.whl"), shown how messages name it.
 * Returns 0, PYRT_E_UNSAFE naming the wheel, the member and why, or
 * PYRT_E_UNSUPPORTED (no libarchive) / PYRT_E_IO (not a readable zip).
 */
int pyrt_wheelcheck_fd(int fd, const char *file, const char *shown,
		       pyrt_error *err);

/**
 * Every *.whl of dir (a wheelhouse that passed the gate, trust.h), each
 * opened relative to the folder's descriptor without following a link.
 * The first refusal is returned; nothing is written.
 */
int pyrt_wheelcheck_dir(const char *dir, pyrt_error *err);

/**
 * Every *.whl pip fetched from an index into dir, pyrt's own private
 * folder (pip.c), before pip installs from it: refusals name the wheel by
 * its file name, as the index serves it, and the fix for an index.
 */
int pyrt_wheelcheck_fetched(const char *dir, pyrt_error *err);

/**
 * The Requires-Dist of the wheel open on fd (its top-level
 * *.dist-info/METADATA, headers only, folded lines joined), as *n strings
 * in *out (malloc'd, each and the array; free with
 * pyrt_wheel_requires_free).  PYRT_E_VERIFY naming shown when the wheel
 * has no single METADATA or a Requires-Dist with a control character;
 * PYRT_E_UNSUPPORTED without libarchive.
 */
int pyrt_wheel_requires_fd(int fd, const char *shown, char ***out, size_t *n,
			   pyrt_error *err);
void pyrt_wheel_requires_free(char **v, size_t n);

#endif
