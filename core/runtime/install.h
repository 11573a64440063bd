/*
 * The install pipeline: lock → download (or a local archive) → verify →
 * guarded extract → check the staged interpreter → atomic activation.
 * Also rollback, uninstall and verify of an installed tree.
 */
#ifndef PYRT_INSTALL_H
#define PYRT_INSTALL_H

#include <stdint.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "core/util/events.h"
#include "core/util/sha256.h"

#define PYRT_INSTALL_OPTS_VERSION 1

typedef struct pyrt_install_opts {
	unsigned int version;
	const pyrt_pins *pins;
	const char *platform_key;  /**< the detected key */
	const char *mirror;        /**< NULL: the pin's URL */
	const char *cacert;        /**< extra CA bundle, NULL: system */
	const char *from_file;     /**< local archive instead of downloading */
	int no_wait;               /**< busy lock: fail instead of waiting */
	int force;                 /**< reinstall even when the pin is active */
	unsigned int fetch_attempts;  /**< 0: default */
	long low_speed_time_s;        /**< 0: default */
	double check_timeout_s;       /**< interpreter check; 0: default */
} pyrt_install_opts;

#define PYRT_INSTALL_OPTS_INIT { PYRT_INSTALL_OPTS_VERSION, NULL, NULL, \
	NULL, NULL, NULL, 0, 0, 0, 0, 0 }

typedef struct pyrt_install_result {
	int already_current;     /**< the pin was already active: nothing done */
	char install_dir[4096];  /**< installs/<id> */
	char current[4096];
	char sha256[PYRT_SHA256_HEX_LEN + 1];
	uint64_t archive_bytes;
	uint64_t files;
	char previous[4096];     /**< kept as rollback target, "" if none */
} pyrt_install_result;

/** What an install would do, for the consent prompt. */
typedef struct pyrt_install_plan {
	char version[32];
	char build[32];
	char platform[48];
	char url[2048];          /**< after --mirror, for display: credentials
				      and query values redacted; "" with
				      --from-file */
	char host[256];
	uint64_t size;           /**< 0 when the pin does not say */
	char sha256[PYRT_SHA256_HEX_LEN + 1];
	char destination[4096];  /**< <box>/runtime/python/current */
	uint64_t free_bytes;
	int already_current;
} pyrt_install_plan;

/**
 * The plan for box (opened by the caller with create=0: nothing is
 * written before the consent).  PYRT_E_READONLY for another user on
 * root's shared box (pyrt_box_check_change).
 */
int pyrt_install_plan_make(const pyrt_box *box, const pyrt_install_opts *opts,
			   pyrt_install_plan *plan, pyrt_error *err);

/**
 * Install into box (the caller's handle, opened once; this makes its
 * directories, pyrt_box_create, then asks pyrt_box_check_change).
 */
int pyrt_install_run(const pyrt_box *box, const pyrt_install_opts *opts,
		     const pyrt_events *ev, pyrt_install_result *result,
		     pyrt_error *err);

/**
 * Swap current and previous in box (opts: pins, platform_key, no_wait,
 * force; the caller opened the box once).
 * The target first passes the quick checks status runs
 * (pyrt_status_check_link): a broken one is refused with PYRT_E_NOT_READY
 * naming what is broken, current untouched, unless opts->force.
 * PYRT_E_NOT_READY too when there is no previous.
 */
int pyrt_install_rollback(const pyrt_box *box, const pyrt_install_opts *opts,
			  const pyrt_events *ev, pyrt_error *err);

/** Remove everything under <box>/runtime/python (takes the lock). */
int pyrt_install_uninstall(const pyrt_box *box, int no_wait,
			   const pyrt_events *ev, pyrt_error *err);

#endif
