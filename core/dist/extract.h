/*
 * Guarded extraction of a runtime archive (tar.gz, or whatever libarchive
 * reads) into a private staging directory.
 *
 * The rules are Python tarfile's filter="data" (PEP 706) made stricter:
 *  - absolute member names, and names with a ".." component: refused;
 *  - symlinks: absolute targets refused; a relative target may start with
 *    ".." components and must then hold only plain names (no ".." after a
 *    name), and must stay inside the destination when resolved from the
 *    link's directory;
 *  - hardlinks: target must be an earlier regular-file member, inside
 *    (asked of the tree: dest must hold nothing else under the top folder,
 *    or, with no required_file, at all);
 *  - nothing is ever written through a symlink (openat with O_NOFOLLOW on
 *    every component; existing entries are never replaced);
 *  - character/block devices, FIFOs and sockets: refused;
 *  - permissions: setuid, setgid, sticky and group/other write bits
 *    cleared; files as tarfile's data filter leaves them (owner read+write,
 *    exec bits kept only when the owner had exec: 0677 becomes 0644);
 *    directories also get owner rwx;
 *  - an extended (pax) header libarchive will not read (over 1 MiB):
 *    refused as unsafe, since what it drops may be a name or size;
 *  - owners, xattrs, ACLs, file flags, capabilities: never restored;
 *  - totals capped: extracted bytes and entry count (decompression bombs),
 *    at twice what the pin declares or 1 GiB and 100,000 entries;
 *  - layout: when opts->required_file is set, it must exist as a regular
 *    file or a symlink to one inside, and every member must lie under its
 *    first path component.
 * A refusal names the member and the rule, and leaves cleanup of dest to the
 * caller (which removes the whole staging directory).
 */
#ifndef PYRT_EXTRACT_H
#define PYRT_EXTRACT_H

#include <stdint.h>

#include "core/dist/manifest.h"
#include "core/util/error.h"
#include "core/util/events.h"

#define PYRT_EXTRACT_OPTS_VERSION 1

typedef struct pyrt_extract_opts {
	unsigned int version;
	uint64_t max_total_bytes;  /**< sum of member sizes */
	uint64_t max_entries;
	const char *required_file; /**< e.g. "python/bin/python3"; NULL: no check */
	int hash_files;            /**< write file digests into the manifest */
	double progress_interval_s;
	/** What the pin says the tree holds (0: it does not say), for the
	 * refusal message; set by pyrt_extract_caps_from_pin. */
	uint64_t pinned_bytes;
	uint64_t pinned_entries;
} pyrt_extract_opts;

/*
 * Caps without a pinned size or count: a CPython runtime unpacks to a few
 * hundred MB in about 10,000 entries, so 1 GiB and 100,000 leave room for
 * growth while bounding a decompression bomb.
 */
#define PYRT_EXTRACT_DEFAULT_BYTES (1024ull * 1024 * 1024)
#define PYRT_EXTRACT_DEFAULT_ENTRIES 100000ull

/*
 * With a pinned size and count the caps are this multiple of them.  The
 * digest already fixes the archive, so the numbers only have to be near
 * what a person measured and wrote down (sizes of files or of everything,
 * directories counted or not); twice them still bounds a bomb to twice the
 * real tree, where the defaults allow several times it.
 */
#define PYRT_EXTRACT_PIN_SLACK 2

#define PYRT_EXTRACT_OPTS_INIT { PYRT_EXTRACT_OPTS_VERSION, \
	PYRT_EXTRACT_DEFAULT_BYTES, PYRT_EXTRACT_DEFAULT_ENTRIES, \
	"python/bin/python3", 1, 0.1, 0, 0 }

/**
 * Set the caps from what the pin says the archive unpacks to (bytes of its
 * members, number of members; 0 when the pin does not say):
 * PYRT_EXTRACT_PIN_SLACK times each, or the default.
 */
void pyrt_extract_caps_from_pin(pyrt_extract_opts *opts,
				uint64_t unpacked_size, uint64_t entries);

typedef struct pyrt_extract_result {
	uint64_t entries;
	uint64_t bytes;
	uint64_t records;  /**< entries the manifest lists (created ones) */
} pyrt_extract_result;

/**
 * Extract archive_path into dest_dir (an existing, empty directory).
 * manifest_path may be NULL; when given, every created entry is written
 * there (manifest.h's format, paths relative to dest_dir) as it is made,
 * through a temp file beside it that gets the name only when everything
 * succeeded: a refusal, an error or a kill leaves nothing at
 * manifest_path.  It may lie in dest_dir only beside the top folder of
 * required_file.  Memory does not grow with the number of files.
 * Progress counts compressed bytes read of the archive file.  Returns 0,
 * PYRT_E_UNSAFE (message: "<member>: <rule>"), PYRT_E_IO,
 * PYRT_E_CANCELLED or PYRT_E_NOMEM.
 */
int pyrt_extract(const char *archive_path, const char *dest_dir,
		 const pyrt_extract_opts *opts, const pyrt_events *ev,
		 const char *manifest_path, pyrt_extract_result *result,
		 pyrt_error *err);

#endif
