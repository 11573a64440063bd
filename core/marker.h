/*
 * The version marker written beside each install (installs/<id>/marker.json):
 * what was installed, from where (a URL without credentials or query
 * values), when, under which pins.
 */
#ifndef PYRT_MARKER_H
#define PYRT_MARKER_H

#include <stdint.h>

#include "error.h"
#include "sha256.h"

#define PYRT_MARKER_MISSING_MAX 32

typedef struct pyrt_marker {
	int schema;                  /**< 1 */
	char implementation[16];
	char version[32];
	char build[32];
	char platform[48];
	char sha256[PYRT_SHA256_HEX_LEN + 1]; /**< of the archive */
	char source[2048];           /**< URL fetched or local archive path */
	char installed_at[40];       /**< RFC 3339 UTC */
	char pins[1024];             /**< "builtin" or the pins file path */
	uint64_t archive_bytes;
	uint64_t files;              /**< manifest entries */
	char baseline_state[16];     /**< "complete", "partial", "none" */
	char baseline_missing[PYRT_MARKER_MISSING_MAX][128];
	int baseline_missing_count;
	char baseline_error[512];    /**< pip's reason for a partial baseline */
} pyrt_marker;

/** Write marker JSON to path atomically (0600). */
int pyrt_marker_write(const char *path, const pyrt_marker *m, pyrt_error *err);

/** Read; PYRT_E_IO when absent/unreadable, PYRT_E_NOT_READY when malformed. */
int pyrt_marker_read(const char *path, pyrt_marker *m, pyrt_error *err);

#endif
