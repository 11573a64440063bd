/*
 * The list of files an install put down, written next to the install so
 * that `pyrt verify` can re-check the tree later.
 *
 * File format (manifest.tsv), one entry a line, tab-separated:
 *   <type> <mode octal> <size> <sha256 or symlink target or "-"> <path>
 * type: f (file), d (directory), l (symlink), h (hardlink; the 4th field is
 * the target path).  Paths are relative to the install directory and are
 * written last so they may hold any byte but tab and newline.
 */
#ifndef PYRT_MANIFEST_H
#define PYRT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"
#include "core/util/sha256.h"

typedef struct pyrt_manifest pyrt_manifest;

/*
 * What a manifest.tsv may hold: extraction refuses more than twice a pin's
 * entries, and pins may say at most PYRT_PINS_ENTRIES_MAX; a line is far
 * shorter than 256 bytes on average.  A bigger file is refused before it is
 * read.
 */
#define PYRT_MANIFEST_MAX_ENTRIES 2000000
#define PYRT_MANIFEST_MAX_BYTES ((uint64_t)PYRT_MANIFEST_MAX_ENTRIES * 256)

typedef struct pyrt_manifest_entry {
	char type;          /**< 'f', 'd', 'l', 'h' */
	unsigned int mode;  /**< permission bits as installed */
	uint64_t size;
	const char *extra;  /**< sha256 hex (f), link target (l, h), "-" (d) */
	const char *path;
} pyrt_manifest_entry;

pyrt_manifest *pyrt_manifest_new(void);
void pyrt_manifest_free(pyrt_manifest *m);

int pyrt_manifest_add(pyrt_manifest *m, char type, unsigned int mode,
		      uint64_t size, const char *extra, const char *path);
size_t pyrt_manifest_count(const pyrt_manifest *m);
/**
 * Entry i, or NULL.  The first call builds a view of every entry (digests
 * as hex); pointers stay valid until the manifest is changed or freed.  For
 * tests and occasional callers: pyrt_manifest_get reads one entry without it.
 */
const pyrt_manifest_entry *pyrt_manifest_at(const pyrt_manifest *m, size_t i);

/*
 * The extractor keeps its table of created entries in a manifest (each path
 * stored once, digests as 32 raw bytes), so it needs lookups and updates.
 */

/**
 * Entry i copied into *out.  A file digest is written into hex and
 * out->extra points there; the other strings point into m and stay valid
 * until m is changed or freed.  Returns 0 or PYRT_E_INTERNAL (no entry i).
 */
int pyrt_manifest_get(const pyrt_manifest *m, size_t i,
		      pyrt_manifest_entry *out,
		      char hex[PYRT_SHA256_HEX_LEN + 1]);

/**
 * The index of the entry with this path: returns 1 and sets *index when
 * present, 0 when not, PYRT_E_NOMEM.  The first call builds a path index
 * that later additions keep up to date.
 */
int pyrt_manifest_find(pyrt_manifest *m, const char *path, size_t *index);

/** Change the mode of entry i (a directory whose member came after its
 * contents).  Returns 0 or PYRT_E_INTERNAL. */
int pyrt_manifest_set_mode(pyrt_manifest *m, size_t i, unsigned int mode);

/*
 * Writing a manifest as it is made (issue 28): an extraction of 250,000
 * files would otherwise hold every entry in memory until the end.  Lines
 * go to a temp file beside path (".<name>.tmp-XXXXXX", 0600) through a
 * bounded buffer; a field learnt later (a file's digest, given by the
 * hashing worker after the line; a directory's mode, when its own member
 * comes after its contents) is patched in place, in the buffer or in the
 * file: the digest is 64 characters and the mode 4 octal digits whatever
 * they hold.  Until commit the file has the temp name and a file whose
 * digest is still to come holds 64 '?' (a line pyrt_manifest_load
 * refuses), so a run killed half way leaves nothing at path, and no half
 * manifest anyone trusts.  Memory is the buffer, whatever the count.
 */
typedef struct pyrt_manifest_writer pyrt_manifest_writer;

/** Start writing toward path.  PYRT_E_IO / PYRT_E_NOMEM with a message. */
int pyrt_manifest_writer_open(pyrt_manifest_writer **out, const char *path,
			      pyrt_error *err);

/** Where the next line will start: its position for the patches below. */
uint64_t pyrt_manifest_writer_tell(const pyrt_manifest_writer *w);

/**
 * Append an entry, as pyrt_manifest_add takes it; extra NULL on a file:
 * its digest comes later (pyrt_manifest_writer_set_digest).  *at (may be
 * NULL) gets the line's position.  0, PYRT_E_INTERNAL (a bad field or a
 * line over 64 KiB) or PYRT_E_IO (errno set).
 */
int pyrt_manifest_writer_add(pyrt_manifest_writer *w, char type,
			     unsigned int mode, uint64_t size,
			     const char *extra, const char *path,
			     uint64_t *at);

/** The digest of the file whose line is at `at` (added with extra NULL,
 * not given yet).  0, PYRT_E_INTERNAL or PYRT_E_IO (errno set). */
int pyrt_manifest_writer_set_digest(pyrt_manifest_writer *w, uint64_t at,
				    const unsigned char *digest);

/** A new mode for the entry whose line is at `at`.  Same returns. */
int pyrt_manifest_writer_set_mode(pyrt_manifest_writer *w, uint64_t at,
				  unsigned int mode);

/** Entries appended so far. */
size_t pyrt_manifest_writer_count(const pyrt_manifest_writer *w);

/** The temp file's identity, so a caller can tell it from its own files. */
int pyrt_manifest_writer_is_file(const pyrt_manifest_writer *w,
				 uint64_t dev, uint64_t ino);

/**
 * Write what is buffered, make it 0644 and rename it to path (refused
 * while a digest is missing).  No fsync: the caller syncs the file system
 * before anything trusts the tree (install's syncfs); a crash before that
 * loses a staging directory, never a published manifest.  0, or
 * PYRT_E_INTERNAL / PYRT_E_IO with a message.
 */
int pyrt_manifest_writer_commit(pyrt_manifest_writer *w, pyrt_error *err);

/** Close; an uncommitted temp file is removed.  NULL is a no-op. */
void pyrt_manifest_writer_free(pyrt_manifest_writer *w);

/** Write to path (created 0600, replaced atomically). */
int pyrt_manifest_write(const pyrt_manifest *m, const char *path,
			pyrt_error *err);
int pyrt_manifest_read(pyrt_manifest **out, const char *path, pyrt_error *err);

/**
 * Read path as a state file (pyrt_fs_open_state: never a link, a FIFO or a
 * device) of at most PYRT_MANIFEST_MAX_BYTES: every line complete, at most
 * PYRT_MANIFEST_MAX_ENTRIES, each entry well formed.  With out, the entries
 * are kept; with digest, the SHA-256 of the file's bytes is written there
 * (NULL out and a digest: only the bytes are checked, as status does).
 * PYRT_E_IO / PYRT_E_UNTRUSTED / PYRT_E_NOMEM with a message naming path.
 */
int pyrt_manifest_load(pyrt_manifest **out, const char *path,
		       char digest[PYRT_SHA256_HEX_LEN + 1], pyrt_error *err);

/**
 * Whether path (relative to the install) is a bytecode cache: a component
 * named __pycache__, or a name ending in .pyc or .pyo.  CPython rewrites a
 * cache whose recorded source mtime or size no longer matches the source
 * (extraction gives the sources new times) and pip compiles what it
 * installs, so a cache that differs from the archive is routine: the
 * integrity check does not compare caches by content alone (see
 * pyrt_manifest_verify for what it asks of them).
 */
int pyrt_manifest_is_cache(const char *path);

/** The entries pyrt_manifest_verify checks: all but the caches. */
size_t pyrt_manifest_checked_count(const pyrt_manifest *m);

/**
 * Check the tree under root against the manifest: every entry present with
 * its type, mode, size, and content digest / link target.  Calls on_problem
 * once per mismatch (path, what is wrong); returns the number of problems, or
 * a negative pyrt_code when the check itself could not run.
 *
 * What the check covers: every entry the archive shipped, so a changed
 * .py, a missing file, a
 * changed binary, mode or link fail it.  A .pyc the archive shipped is
 * either still the bytes shipped, or a timestamp cache (which CPython runs
 * only while it records its source's mtime and size, and rewrites when
 * stale); a hash-based cache that changed fails (issue 26, door 5).  A
 * cache that is gone is fine.  What pip adds later (the
 * baseline's and plugins' packages, their scripts, new caches) is in no
 * manifest and is never looked at here; the baseline check reads it.
 * Files the archive itself shipped under site-packages (python-build-
 * standalone's pip) are checked like the rest: pip runs as root at every
 * baseline, pyrt never asks it to upgrade itself, so a change there is
 * damage or tampering.  A requirement that makes pip replace them (a
 * plugin asking for pip>=N) shows up here as changed files.
 */
int pyrt_manifest_verify(const pyrt_manifest *m, const char *root,
			 void (*on_problem)(const char *path, const char *what,
					    void *payload),
			 void *payload, pyrt_error *err);

#endif
