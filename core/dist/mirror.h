/*
 * A verified local mirror: the pinned archives (all, or some platforms)
 * fetched through pyrt_fetch and checked against the pins, and the wheels
 * the baseline needs copied from a local wheelhouse, in the layout that
 * `install --mirror URL` (URL/<build>/<file>) and `--wheelhouse DIR/wheels`
 * read, with an index (pyrt-mirror.json) that pyrt_mirror_verify re-checks.
 *
 * The tree is meant to be served by any static web server, so its
 * directories are 0755 and its files 0644 (created so, never chmod-ed).
 * Every file appears under its final name only complete and verified: it
 * is written to a hidden ".<name>.partial" beside it, checked, fsync-ed and
 * renamed.
 */
#ifndef PYRT_MIRROR_H
#define PYRT_MIRROR_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_MIRROR_INDEX "pyrt-mirror.json"
#define PYRT_MIRROR_WHEELS "wheels"
#define PYRT_MIRROR_OPTS_VERSION 1

typedef struct pyrt_mirror_opts {
	unsigned int version;
	const char *dir;               /**< the mirror root (created if absent) */
	const pyrt_pins *pins;
	const char *const *platforms;  /**< keys to fetch; NULL/0: every pin */
	size_t nplatforms;
	const char *source_mirror;     /**< fetch from this mirror, NULL: the pins' URLs */
	const char *cacert;            /**< NULL: the system CAs */
	const char *wheelhouse_from;   /**< local wheelhouse to copy from, or NULL */
	unsigned int fetch_attempts;   /**< 0: pyrt_fetch's default */
} pyrt_mirror_opts;

#define PYRT_MIRROR_OPTS_INIT { PYRT_MIRROR_OPTS_VERSION, NULL, NULL, NULL, \
	0, NULL, NULL, NULL, 0 }

typedef struct pyrt_mirror_result {
	size_t fetched;        /**< archives downloaded in this run */
	size_t kept;           /**< archives already present and matching */
	size_t wheels;         /**< wheels in the index (copied now or before) */
	size_t missing_wheels; /**< baseline names the wheelhouse lacked */
	char missing[512];     /**< their names, ", "-separated (cut short) */
} pyrt_mirror_result;

/** A wheel pyrt_mirror_wheels_needed chose (file NULL: a needed name the
 *  wheelhouse lacks). */
typedef void (*pyrt_mirror_wheel_fn)(const char *name, const char *file,
				     void *ctx);

/**
 * The wheels of the wheelhouse dir (a folder that passed the gate) that the n
 * requirements reqs need, following each chosen wheel's Requires-Dist as
 * `pyrt mirror --wheelhouse-from` does (the baseline's wheels): fn once per
 * chosen file with its project's PEP 503 name, then once per needed name
 * the folder lacks.  Reads the wheels' METADATA only; writes nothing.
 * Returns 0, PYRT_E_USAGE (the folder unreadable) or PYRT_E_NOMEM.
 */
int pyrt_mirror_wheels_needed(const char *dir,
			      const char *const *reqs, size_t n,
			      pyrt_mirror_wheel_fn fn, void *ctx,
			      pyrt_error *err);

/**
 * 0 when every key is pinned; else PYRT_E_USAGE naming the first unknown
 * key and the pinned ones.  Called before anything is written.
 */
int pyrt_mirror_check_platforms(const pyrt_pins *pins,
				const char *const *platforms, size_t n,
				pyrt_error *err);

/**
 * The path of a pinned URL inside the mirror: its last two path segments
 * ("<build>/<file>"), percent-decoded, as a static web server maps
 * URL/<build>/<file> back to a file.  PYRT_E_PINS when a segment is
 * empty, hidden, "..", or holds '/' or a control byte once decoded.
 */
int pyrt_mirror_relpath(const char *url, char *out, size_t len,
			pyrt_error *err);

/** Fetch, verify and index; see the file comment. */
int pyrt_mirror_run(const pyrt_mirror_opts *opts, const pyrt_events *ev,
		    pyrt_mirror_result *result, pyrt_error *err);

typedef void (*pyrt_mirror_problem_fn)(const char *file, const char *what,
				       void *payload);

/**
 * Re-hash every file the index of dir names.  Returns the number of files
 * that are missing or differ in size or SHA-256 (each reported through
 * on_problem, file relative to dir), or a negative code when the index
 * cannot be read (PYRT_E_NOT_READY when there is none).  *checked is the
 * number of files in the index.
 */
int pyrt_mirror_verify(const char *dir, pyrt_mirror_problem_fn on_problem,
		       void *payload, size_t *checked, pyrt_error *err);

/**
 * Re-hash every wheel in dir/wheels against the pins' wheel lock, the
 * anchor the mirror does not control (its own index can be edited along
 * with a wheel): a wheel that no platform's lock names, or whose size or
 * SHA-256 is not the lock's, is a problem (expected and actual digest).
 * Returns the number of problems (0 when the pins lock nothing) or a
 * negative code; *checked counts the wheels hashed.
 */
int pyrt_mirror_verify_lock(const char *dir, const pyrt_pins *pins,
			    pyrt_mirror_problem_fn on_problem, void *payload,
			    size_t *checked, pyrt_error *err);

#endif
