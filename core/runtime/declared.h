/*
 * The declared state of the runtime's packages: one small file in the box,
 * <box>/runtime/python/declared.json, next to `current`, that says what the
 * runtime should hold whatever install `current` points at: the baseline's
 * requirements, each ready plugin's requirements, the wheel lock's digest,
 * where packages come from (a wheelhouse folder or an index URL, never with
 * credentials: redact.h) and the work a stopped run left pending (a plugin
 * re-apply after a switch).  It is written before a switch, a baseline or a
 * plugin install starts, so a run stopped at any point leaves a file that
 * says what the next run must finish; pending work is cleared when done.
 *
 * Owned by the box owner, 0644 like the marker (every user of a shared box
 * reads status), written atomically (a temp file, then rename).  An absent
 * file is an older box: nothing is declared, and the marker alone speaks.
 */
#ifndef PYRT_DECLARED_H
#define PYRT_DECLARED_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime/dists.h"
#include "core/util/error.h"

#define PYRT_DECLARED_FILE "declared.json"
#define PYRT_DECLARED_SCHEMA 1
/** Pending work kinds. */
#define PYRT_DECLARED_REAPPLY "reapply"   /**< a plugin's requirements */
#define PYRT_DECLARED_BASELINE "baseline" /**< the baseline's pip run */

typedef struct pyrt_declared pyrt_declared;

/** An empty declared state (nothing known).  NULL when out of memory. */
pyrt_declared *pyrt_declared_new(void);

void pyrt_declared_free(pyrt_declared *d);

/** The file's path for the box's runtime folder (<box>/runtime/python);
 *  0 or PYRT_E_INTERNAL when it does not fit. */
int pyrt_declared_path(const char *runtime_dir, char *out, size_t len,
		       pyrt_error *err);

/**
 * Read path into d (replacing what d held).  0 with *found 1; 0 with
 * *found 0 and d emptied when there is no file (an older box);
 * PYRT_E_UNTRUSTED when it is not a regular file of ours (fs.h's state
 * rules); PYRT_E_NOT_READY when it is malformed (the message names the
 * path and the field).
 */
int pyrt_declared_read(pyrt_declared *d, const char *path, int *found,
		       pyrt_error *err);

/** Write d to path atomically, mode 0644. */
int pyrt_declared_write(const pyrt_declared *d, const char *path,
			pyrt_error *err);

/** The baseline's requirements (PEP 508 strings), replacing the last. */
int pyrt_declared_set_baseline(pyrt_declared *d, const char *const *reqs,
			       size_t n);
/** 1 once a baseline was declared (even an empty one). */
int pyrt_declared_baseline_known(const pyrt_declared *d);
size_t pyrt_declared_baseline_count(const pyrt_declared *d);
const char *pyrt_declared_baseline_at(const pyrt_declared *d, size_t i);

/** Plugin name's requirements, replacing its last; n 0 removes it. */
int pyrt_declared_set_plugin(pyrt_declared *d, const char *name,
			     const char *const *reqs, size_t n);
size_t pyrt_declared_plugin_count(const pyrt_declared *d);
const char *pyrt_declared_plugin_name(const pyrt_declared *d, size_t i);
/** Plugin i's requirements as an array of *n strings (owned by d). */
const char *const *pyrt_declared_plugin_reqs(const pyrt_declared *d, size_t i,
					     size_t *n);
/** The index of plugin name, or -1. */
long pyrt_declared_plugin_find(const pyrt_declared *d, const char *name);

/** Where packages come from: a wheelhouse folder (an absolute path, kept
 *  as is) and/or an index URL (kept only when redaction leaves it as it
 *  was, i.e. it holds no secret: a redacted URL could not be used again).
 *  NULL clears each. */
int pyrt_declared_set_source(pyrt_declared *d, const char *wheelhouse,
			     const char *index_url);
const char *pyrt_declared_wheelhouse(const pyrt_declared *d); /**< or NULL */
const char *pyrt_declared_index_url(const pyrt_declared *d);  /**< or NULL */

/** The wheel lock's digest ("" or NULL: none). */
int pyrt_declared_set_lock(pyrt_declared *d, const char *sha256_hex);
const char *pyrt_declared_lock(const pyrt_declared *d); /**< "" when none */

/** Add pending work (kind, and the plugin for a re-apply or ""); a second
 *  add of the same is one. */
int pyrt_declared_pending_add(pyrt_declared *d, const char *kind,
			      const char *plugin);
/** Clear it; 1 when it was pending. */
int pyrt_declared_pending_clear(pyrt_declared *d, const char *kind,
				const char *plugin);
size_t pyrt_declared_pending_count(const pyrt_declared *d);
/** Pending work i: its kind, and its plugin in *plugin ("" when none). */
const char *pyrt_declared_pending_at(const pyrt_declared *d, size_t i,
				     const char **plugin);

/** When the last reconcile finished (CLOCK_REALTIME ns; 0 never): staging
 *  older than that was left by a stopped run and is never committed. */
void pyrt_declared_set_reconciled(pyrt_declared *d, int64_t ns);
int64_t pyrt_declared_reconciled(const pyrt_declared *d);

/** What the comparison of one declared requirement found. */
typedef enum pyrt_declared_gap {
	PYRT_GAP_MISSING = 1,     /**< not installed (or not whole) */
	PYRT_GAP_WRONG_VERSION,   /**< installed outside its specifier */
	PYRT_GAP_DEP_MISSING,     /**< what an installed one requires (its
				       Requires-Dist without a marker) is
				       not installed */
} pyrt_declared_gap;

typedef void (*pyrt_declared_gap_fn)(const char *req, const char *name,
				     pyrt_declared_gap gap,
				     const char *have, void *ctx);

/**
 * Compare the declared baseline with the observed distributions d: fn for
 * each requirement that is missing (pyrt_dists_version's 0: no dist-info,
 * or one whose RECORD's files are not all there) or installed at a version
 * its specifier excludes, and for each distribution an installed one
 * requires (transitively) that is missing.  Returns how many gaps; *unknown (may be NULL)
 * counts the requirements only Python could judge (left out).
 */
int pyrt_declared_diff_baseline(const pyrt_declared *decl, pyrt_dists *d,
				pyrt_declared_gap_fn fn, void *ctx,
				int *unknown);

/** The same comparison for a list of requirements. */
int pyrt_declared_diff_reqs(const char *const *reqs, size_t n,
			    pyrt_dists *d, pyrt_declared_gap_fn fn, void *ctx,
			    int *unknown);

#endif
