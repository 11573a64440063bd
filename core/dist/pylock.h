/*
 * The wheel lock in the ecosystem's format: PEP 751's pylock.toml, written
 * beside the pins file `pyrt lock` writes (issue 29, item 6), so uv, pip
 * and every other tool that reads PEP 751 reads the same lock.  Plain
 * text: the TOML written here is a fixed shape (lock-version, created-by,
 * one [[packages]] per project and version, one [[packages.wheels]] per
 * locked file, with name, path, size and hashes.sha256), not a general
 * TOML writer.
 */
#ifndef PYRT_PYLOCK_H
#define PYRT_PYLOCK_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/util/error.h"

/** The file name PEP 751 gives a lock when there is one in a folder. */
#define PYRT_PYLOCK_NAME "pylock.toml"

/**
 * Every wheel locked in pins (all platform keys; a file locked for two
 * keys once) as a pylock.toml document, malloc'd into *out.  wheel_dir is
 * the folder the wheels were locked from: each wheel's path is
 * wheel_dir/FILE (PEP 751 allows an absolute path).  PYRT_E_USAGE when
 * the pins lock no wheel; PYRT_E_NOMEM.
 */
int pyrt_pylock_format(const pyrt_pins *pins, const char *wheel_dir,
		       char **out, size_t *len, pyrt_error *err);

#endif
