/*
 * The version marker written beside each install (installs/<id>/marker.json):
 * what was installed, from where (a URL without credentials or query
 * values), when, under which pins.
 */
#ifndef PYRT_MARKER_H
#define PYRT_MARKER_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/util/sha256.h"

#define PYRT_MARKER_MISSING_MAX 32
#define PYRT_MARKER_SEARCH_MAX 16
#define PYRT_MARKER_SEARCH_LEN 256
/** Written now: 2 adds the manifest digest and the marker's own digest.
 * 1 (older pyrt) is still read; verify and doctor then fail for want of
 * the manifest digest. */
#define PYRT_MARKER_SCHEMA 2

typedef struct pyrt_marker {
	int schema;                  /**< as read; the writer writes 2 */
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
	char manifest_sha256[PYRT_SHA256_HEX_LEN + 1]; /**< of manifest.tsv;
					 "" in a schema 1 marker */
	char baseline_state[16];     /**< "complete", "partial", "none" */
	char baseline_missing[PYRT_MARKER_MISSING_MAX][128];
	int baseline_missing_count;
	char baseline_error[512];    /**< pip's reason for a partial baseline */
	/** Where the plugin checker's interpreter looks for distributions
	 *  (its absolute sys.path under -I -S plus site.getsitepackages(), in
	 *  that order), relative to the install's python/ directory, as the
	 *  interpreter reported it at install.  Optional ("search_path"): 0
	 *  when not recorded, and then only Python can answer. */
	int search_path_known;
	int search_path_count;
	char search_path[PYRT_MARKER_SEARCH_MAX][PYRT_MARKER_SEARCH_LEN];
} pyrt_marker;

/** 1 when rel is a search_path entry a marker may hold: relative, plain
 *  components (no ".", "..", empty), printable ASCII, shorter than
 *  PYRT_MARKER_SEARCH_LEN. */
int pyrt_marker_search_entry_ok(const char *rel);

/**
 * Write marker JSON to path atomically (0600), with the digest of its own
 * content: schema 2, or 1 when m has no manifest_sha256 (an older install's
 * marker rewritten, e.g. by pyrt baseline).  Every field is checked first (as pyrt_marker_read does):
 * PYRT_E_INTERNAL names the first that is wrong, and nothing is written.
 */
int pyrt_marker_write(const char *path, const pyrt_marker *m, pyrt_error *err);

/**
 * Read and check every field.  PYRT_E_IO when absent or unreadable,
 * PYRT_E_UNTRUSTED when not a regular file of ours (see pyrt_fs_open_state),
 * PYRT_E_NOT_READY when malformed, of another schema, a field is missing or
 * wrong, or the content does not match its digest.  Messages name the path.
 */
int pyrt_marker_read(const char *path, pyrt_marker *m, pyrt_error *err);

struct pyrt_digest_memo;

/** pyrt_marker_read, trusting the digest check memo remembers for this very
 *  file (digest_memo.h), and remembering it there once made.  memo may be
 *  NULL. */
int pyrt_marker_read_memo(const char *path, pyrt_marker *m,
			  struct pyrt_digest_memo *memo, pyrt_error *err);

struct pyrt_manifest;

/**
 * Load dir/manifest.tsv and require it to be the one marker m recorded:
 * its digest and its entry count.  On success *out holds the manifest.
 * PYRT_E_NOT_READY when it differs or m records no digest (schema 1),
 * otherwise pyrt_manifest_load's codes; messages name the file and say why.
 */
int pyrt_marker_load_manifest(const pyrt_marker *m, const char *dir,
			      struct pyrt_manifest **out, pyrt_error *err);

#endif
