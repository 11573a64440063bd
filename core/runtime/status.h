/*
 * The runtime's state as one honest answer: ready, not_provisioned, broken,
 * unsupported, installing or untrusted (a box path someone else controls),
 * with a one-sentence message carrying the fix.
 * While an installer holds the box lock a ready runtime stays ready (with
 * upgrade_in_progress set); installing means no usable runtime meanwhile.
 * Reads only (never writes, never takes the lock); starts Python only when
 * deep is requested.
 */
#ifndef PYRT_STATUS_H
#define PYRT_STATUS_H

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/runtime/marker.h"
#include "core/util/error.h"

typedef enum pyrt_state {
	PYRT_STATE_READY = 0,
	PYRT_STATE_NOT_PROVISIONED,
	PYRT_STATE_BROKEN,
	PYRT_STATE_UNSUPPORTED,
	PYRT_STATE_INSTALLING,
	PYRT_STATE_UNTRUSTED     /**< box owned or writable by someone else */
} pyrt_state;

typedef struct pyrt_status {
	pyrt_state state;
	char message[1024];
	char platform[48];
	char path[4096];         /**< <box>/runtime/python/current */
	char interpreter[4096];  /**< <path>/bin/python3 */
	char pins[1024];         /**< source of the pins in use */
	int have_marker;
	pyrt_marker marker;      /**< valid when have_marker */
	char install_dir[4096];  /**< where `current` pointed when the marker
				      was read (valid when have_marker) */
	char failed_check[64];   /**< for broken: which check failed */
	char failed_why[768];    /**< for broken: what that check saw */
	long installer_pid;      /**< an installer holds the box lock (0: none
				      or not recorded) */
	int upgrade_in_progress; /**< ready, and an installer holds the lock */
	/** wheels the pins in use lock for this platform: a baseline or
	 * plugin install with these pins takes only those files (0: not
	 * hash-locked, pip installs what its index or wheelhouse serves) */
	size_t baseline_locked_wheels;
	/** distributions in the runtime whose dist-info is there but whose
	 *  files are not (dists.h): they count as missing, so a marker's
	 *  "complete" reads "partial" and they join marker.baseline_missing;
	 *  the first one's name and what is missing */
	int baseline_broken;
	char baseline_broken_why[640];
	/** plugins whose re-apply a stopped run left pending (declared.h):
	 *  the next install, baseline or plugins install finishes it */
	int pending_count;
	char pending[4][128];
	/** the wheel lock the box declares its packages were installed
	 *  under (declared.json's lock digest, "" none) and the digest of
	 *  the lock of the pins in effect ("" none; pins.h); lock_differs
	 *  when the box declares a baseline and the two are not the same:
	 *  a baseline with these pins would install other wheels */
	char lock_declared[PYRT_SHA256_HEX_LEN + 1];
	char lock_in_effect[PYRT_SHA256_HEX_LEN + 1];
	int lock_differs;
	/** the runtime is ready but the pins want another archive (another
	 * version, build or digest): "pyrt install" would replace it.  The
	 * pinned version, build and digest are what it would install. */
	int update_available;
	char update_version[32];
	char update_build[32];
	char update_sha256[PYRT_SHA256_HEX_LEN + 1];
} pyrt_status;

/**
 * The baseline verdict of the install at install_dir (its marker m): the
 * declared baseline (declared.h, in runtime_dir, the box's runtime/python;
 * NULL: none read) against the distributions installed, plus every
 * distribution not installed whole (dists.h).  Rewrites m's baseline state
 * and missing list to say what is true now; returns how many installed
 * distributions are not whole (the first one's name and why in why).
 * status, install's "already complete", the install and baseline results
 * and doctor all read this one verdict.
 */
int pyrt_status_baseline_verdict(const char *runtime_dir,
				 const char *install_dir, pyrt_marker *m,
				 char *why, size_t whylen);

/** "ready", "not_provisioned", ... */
const char *pyrt_state_name(pyrt_state state);

/**
 * A long-running reader (pyrt serve) answers status many times a second:
 * the manifest digest it checks is remembered per file identity (device,
 * inode, size, mtime and ctime), so an unchanged manifest is not hashed
 * again while any change to it (a write, a truncate, a rename over it) is.
 * Owned by the caller (core keeps no global state); safe to share between
 * threads.
 */
typedef struct pyrt_status_cache pyrt_status_cache;

pyrt_status_cache *pyrt_status_cache_new(void);
/** A cache that also keeps the digests it checked in the box (the file
 *  digest_memo.h describes), so that the next process's status need not
 *  hash marker.json and manifest.tsv, nor load libcrypto, again: for the
 *  short-lived readers (status, plugins, the TUI). */
pyrt_status_cache *pyrt_status_cache_new_in_box(void);
void pyrt_status_cache_free(pyrt_status_cache *cache);

/**
 * The status of the open box for the given pins and platform key; cache
 * NULL: every digest checked afresh.  deep=1 also starts the interpreter
 * (scrubbed env, timeout) and checks it reports the marker's version and
 * runs from its own install.  Returns 0 when a status was computed
 * (whatever the state), negative only when it could not be.  A box root
 * pyrt_box_open refuses as untrusted is an answer too, not a failure: the
 * caller that opened it says so with pyrt_status_untrusted.
 */
int pyrt_status_read(const pyrt_box *box, const pyrt_pins *pins,
		     const char *platform_key, int deep,
		     pyrt_status_cache *cache, pyrt_status *out,
		     pyrt_error *err);

/** The answer for a box root that is not trusted (why: the gate's
 *  refusal): nothing in the box is read or run. */
void pyrt_status_untrusted(pyrt_status *out, const pyrt_pins *pins,
			   const char *platform_key, const char *why);

/**
 * The quick checks pyrt_status_read runs on current, run on the install
 * behind another link of the box (rollback checks its target with them):
 * the link leads to an install, its marker reads, the manifest is the one
 * the marker recorded, the interpreter is there and executable, the
 * platform matches.  st->state is READY, or BROKEN with failed_check and a
 * message.  Reads only; starts nothing.
 */
void pyrt_status_check_link(const pyrt_box *box, const char *link,
			    const pyrt_pins *pins, const char *platform_key,
			    pyrt_status *st);

#endif
