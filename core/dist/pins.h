/*
 * The pinned interpreter table: which archive to fetch for which platform,
 * its SHA-256, and the doc-library baseline.  Parsed from pins.yaml with
 * libyaml; the default table is pins.yaml, parsed at build time and
 * compiled into the binary as C data.
 */
#ifndef PYRT_PINS_H
#define PYRT_PINS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"
#include "core/util/sha256.h"

typedef struct pyrt_pins pyrt_pins;

/** One archives: entry. Strings are owned by the pins handle. */
typedef struct pyrt_pin_archive {
	const char *key;    /**< "<os>-<arch>-<libc>", e.g. linux-x86_64-gnu */
	const char *url;
	const char *sha256; /**< 64 lowercase hex */
	uint64_t size;      /**< bytes; 0 when the pin does not say */
	/** What the archive unpacks to, for the extraction caps (0 when the
	 * pin does not say): bytes of its members, and how many members. */
	uint64_t unpacked_size;
	uint64_t entries;
} pyrt_pin_archive;

/**
 * Parse a pins document.  source names it in messages and in
 * pyrt_pins_source() ("builtin" or a path).  A malformed document fails with
 * PYRT_E_PINS and a message "<source>:<line>: <what was expected>".
 */
int pyrt_pins_parse(pyrt_pins **out, const char *data, size_t len,
		    const char *source, pyrt_error *err);

/** Read and parse a file; the source is the path as given. */
int pyrt_pins_load_file(pyrt_pins **out, const char *path, pyrt_error *err);

struct pyrt_fs_seen;
/**
 * pyrt_pins_load_file whose trust walk judges what an earlier walk of the
 * same resolved path saw (seen, core/util/fs.h; NULL: walk afresh).
 */
int pyrt_pins_load_file_seen(pyrt_pins **out, const char *path,
			     const struct pyrt_fs_seen *seen, pyrt_error *err);

/*
 * The pins fields that become directory names (the install id) and marker
 * fields, so the marker reader judges them by the same rules.  Lengths fit
 * pyrt_marker's fields: nothing is ever cut short.
 */
typedef enum pyrt_pins_field {
	PYRT_PINS_IMPLEMENTATION, /**< [a-z][a-z0-9_]*, at most 15 bytes */
	PYRT_PINS_VERSION,        /**< [0-9][A-Za-z0-9.]*, at most 31 */
	PYRT_PINS_BUILD,          /**< [A-Za-z0-9][A-Za-z0-9._+-]*, at most 31 */
	PYRT_PINS_PLATFORM        /**< <os>-<arch>-<libc>, at most 47 */
} pyrt_pins_field;

#define PYRT_PINS_URL_MAX 1024       /**< bytes of an archive URL */
#define PYRT_PINS_INTERPRETER_MAX 512 /**< bytes of layout.interpreter */
#define PYRT_PINS_ENTRIES_MAX 1000000 /**< an archive's members */

/** NULL when s is a valid value of field, else what was expected. */
const char *pyrt_pins_field_check(pyrt_pins_field field, const char *s);

/**
 * The table compiled in from pins.yaml; the source is "builtin".  pins.yaml
 * was parsed and checked at build time (tools/pins_embed.c), so this copies
 * const data and never parses YAML.
 */
int pyrt_pins_load_builtin(pyrt_pins **out, pyrt_error *err);

void pyrt_pins_free(pyrt_pins *pins);

const char *pyrt_pins_source(const pyrt_pins *pins);
/** Name where the pins came from (a pylock.toml over the built-in pins,
 *  pylock_read.h); 0 or PYRT_E_NOMEM. */
int pyrt_pins_set_source(pyrt_pins *pins, const char *source);
const char *pyrt_pins_implementation(const pyrt_pins *pins);
const char *pyrt_pins_version(const pyrt_pins *pins);
const char *pyrt_pins_build(const pyrt_pins *pins);

size_t pyrt_pins_archive_count(const pyrt_pins *pins);
const pyrt_pin_archive *pyrt_pins_archive_at(const pyrt_pins *pins, size_t i);
/** The archive for a platform key, or NULL when the key is not pinned. */
const pyrt_pin_archive *pyrt_pins_find(const pyrt_pins *pins, const char *key);

size_t pyrt_pins_baseline_count(const pyrt_pins *pins);
const char *pyrt_pins_baseline_at(const pyrt_pins *pins, size_t i);

/*
 * The wheel lock (optional): per platform key, every wheel the baseline
 * may install, by file name, SHA-256, size, project name and version.
 * With a lock for the runtime's platform, a baseline installs those files
 * and nothing else (wheellock.h).  The built-in pins carry none.  A lock
 * written before name and version were recorded reads them from the file
 * name; when given, they must be the file name's.
 */
typedef struct pyrt_pin_wheel {
	const char *file;   /**< a wheel file name, no directory */
	const char *sha256; /**< 64 lowercase hex */
	uint64_t size;      /**< bytes, > 0 */
	/** the project, PEP 503-normalised ("python-docx"), and its version,
	 *  as the file name says them; NULL in what is given to
	 *  pyrt_pins_set_lock means "from the file name" */
	const char *name;
	const char *version;
	/** the wheel's Requires-Dist as its METADATA says them (markers
	 *  kept), recorded by `pyrt lock`: with them a locked install from
	 *  an index gives pip only the requested projects and their locked
	 *  closure.  requires_known 0: not recorded (an older lock); then
	 *  requires is NULL and nrequires 0. */
	const char *const *requires;
	size_t nrequires;
	int requires_known;
} pyrt_pin_wheel;

#define PYRT_PINS_WHEEL_FILE_MAX 255
#define PYRT_PINS_WHEEL_SIZE_MAX (UINT64_C(1) << 32) /**< 4 GiB a wheel */

/** Platform keys that have a lock (0: the pins lock no wheel). */
size_t pyrt_pins_lock_count(const pyrt_pins *pins);
const char *pyrt_pins_lock_key_at(const pyrt_pins *pins, size_t i);
/** The lock of a platform key, *n its wheels; NULL when it has none. */
const pyrt_pin_wheel *pyrt_pins_lock_find(const pyrt_pins *pins,
					  const char *key, size_t *n);

/**
 * The digest of key's wheel lock: the SHA-256 of its wheels' lines
 * "file sha256 size\n" in file-name order, as 64 hex digits into hex.
 * 1 with hex filled; 0 with hex "" when key has no lock; -1 (hex "") when
 * out of memory or without libcrypto.  What declared.json records as the
 * lock a box's packages were installed under (declared.h).
 */
int pyrt_pins_lock_digest(const pyrt_pins *pins, const char *key,
			  char hex[PYRT_SHA256_HEX_LEN + 1]);

/**
 * Replace (or add) the lock of key with copies of the n wheels, each
 * checked as the parser checks one: PYRT_E_PINS naming the first that is
 * not a wheel file name, 64 hex digits or a positive size, or a second
 * version of one project.
 */
int pyrt_pins_set_lock(pyrt_pins *pins, const char *key,
		       const pyrt_pin_wheel *wheels, size_t n,
		       pyrt_error *err);

/**
 * A wheel file name (PEP 427: name-version[-build]-py-abi-platform.whl,
 * no directory, not hidden, at most PYRT_PINS_WHEEL_FILE_MAX bytes):
 * NULL when file is one, else what was expected.
 */
const char *pyrt_pins_wheel_file_check(const char *file);

/**
 * The project of a wheel file name, PEP 503-normalised ("python-docx"),
 * and its version, into name and version; -1 when they do not fit or the
 * name is not a wheel file name.
 */
int pyrt_pins_wheel_project(const char *file, char *name, size_t nlen,
			    char *version, size_t vlen);

/**
 * The pins as a pins.yaml document (schema, runtime, archives, layout,
 * baseline and the wheel lock) that pyrt_pins_parse reads back to the same
 * table: malloc'd into *out.  PYRT_E_NOMEM is the only failure.
 */
int pyrt_pins_format(const pyrt_pins *pins, char **out, size_t *len,
		     pyrt_error *err);

/**
 * Layout check for extracted archives: the member that must exist
 * ("python/bin/python3" unless the pins say `layout: {interpreter: …}`;
 * NULL when the pins say `layout: none`, as bench-only pins do).
 */
const char *pyrt_pins_layout_interpreter(const pyrt_pins *pins);

#endif
