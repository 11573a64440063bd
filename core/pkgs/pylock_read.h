/*
 * `--pins pylock.toml`: a PEP 751 lock (from `uv export --format
 * pylock.toml`, `pip lock`, or `pyrt lock`) as the pins' wheel lock
 * (issue 29, item 6, the reading half).  The runtime part of the pins is
 * the built-in pins'; the wheels are the lock's, for this machine's
 * platform: a baseline or plugin install then takes exactly those files,
 * as with a `wheels:` section (wheellock.h).
 *
 * pyrt parses no TOML in C: the box's runtime reads the file with its own
 * tomllib (py/pylock_read.py), from the descriptor pyrt opened through the
 * trust gate, so a pylock.toml is read only once a runtime is installed.
 */
#ifndef PYRT_PYLOCK_READ_H
#define PYRT_PYLOCK_READ_H

#include "core/dist/pins.h"
#include "core/util/error.h"

/** 1 when path's file name is pylock.toml or pylock.NAME.toml (PEP 751). */
int pyrt_pylock_is_name(const char *path);

/**
 * The built-in pins with the wheel lock of the pylock.toml at path for
 * this machine's platform (wheels whose tag fits it; packages whose marker
 * does not hold are left out).  Returns 0 with *out; PYRT_E_UNTRUSTED (the
 * gate), PYRT_E_NOT_READY (no runtime in box_root to read it with: the
 * message has the fix), PYRT_E_PINS naming the file and the rule it breaks
 * (not TOML, not PEP 751, a package without wheels, a wheel without sha256
 * or size, none for this platform), PYRT_E_INTERPRETER, PYRT_E_NOMEM.
 */
int pyrt_pylock_load_pins(pyrt_pins **out, const char *path,
			  const char *box_root, pyrt_error *err);

#endif
