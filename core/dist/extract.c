/*
 * Guarded extraction of a runtime archive into a staging directory.
 *
 * libarchive only reads and decompresses.  Everything that touches the disk
 * is ours and goes through openat-family calls relative to an O_DIRECTORY fd
 * of dest, walking parent directories one component at a time with
 * O_NOFOLLOW, and creating with O_EXCL / mkdirat / symlinkat / linkat, which
 * never replace an existing entry.  So no member can be written through a
 * symlink, and an earlier member can never be overwritten by a later one.
 *
 * We never call archive_read_extract or archive_write_disk, so owners,
 * xattrs, ACLs, file flags and capabilities in the archive are simply never
 * applied: files are owned by whoever runs pyrt.
 *
 * Created entries go to the manifest file as they are made (issue 28: a
 * table of 250,000 entries in memory was most of the peak), with a file's
 * digest and a re-moded directory's mode patched in later
 * (manifest.h's writer); it gets its name only when everything
 * succeeded.  Only directories are remembered (a directory member may
 * come after its contents and re-mode it).  "Was this an earlier file
 * member?" (hardlinks, the layout check) is asked of the tree itself:
 * dest holds nothing but what this extraction made below the top folder,
 * so a regular file there is one.
 *
 * A gzip archive (the usual case) is inflated on a worker thread (gunzip.c)
 * and libarchive reads the plain tar from it: inflating overlaps with
 * writing and hashing files.  Other archives use libarchive's own filters.
 */
#include "core/dist/extract.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "core/util/clock.h"
#include "core/util/fmt.h"
#include "core/util/gunzip.h"
#include "core/util/lazylib.h"
#include "core/util/sha256.h"
#include "core/util/testhook.h"

#define X_BLOCK_SIZE (1024 * 1024)
#define X_LINK_HOPS 8
#define X_IMPLICIT_DIR_MODE 0755u
#define X_GZ_TAIL_MAX (1024 * 1024)

/* The state of one pyrt_extract call. */
typedef struct xstate {
	struct archive *a;
	const char *label; /* the current member's name as in the archive */
	int destfd;
	const pyrt_extract_opts *opts;
	const pyrt_events *ev;
	pyrt_error *err;
	char *cache_dir;   /* last parent directory opened, relative */
	int cache_fd;
	pyrt_manifest_writer *mw; /* the manifest being written, or NULL */
	pyrt_manifest *dirs; /* every directory created, relative to dest */
	uint64_t *dir_at;  /* with mw: each directory's line (dirs' order) */
	size_t dir_cap;
	uint64_t records;  /* entries recorded */
	/* What dest held before (its top level): never a member's. */
	struct { uint64_t dev, ino; } *before;
	size_t nbefore;
	pyrt_gunzip *gz;   /* the inflating worker, for gzip archives */
	char *top;         /* first component of required_file, or NULL */
	uint64_t declared, written, entries;
	pyrt_sha256 *sha;
	int gz_hash;       /* the worker hashes each file (gunzip.h) */
	uint64_t archive_size;
	double start, last_tick; /* pyrt_now() */
	char last_done[256]; /* the last member extracted (label is libarchive's
			      * and goes with the next header) */
} xstate;

static int x_cancelled_now(xstate *st)
{
	return pyrt_error_set(st->err, PYRT_E_CANCELLED,
			      "extraction cancelled");
}

/* Report compressed bytes read, at most once per progress interval. */
static int x_tick(xstate *st, int force)
{
	double now = pyrt_now();
	double since = now - st->last_tick;
	if (!force && since < st->opts->progress_interval_s)
		return 0;
	st->last_tick = now;
	pyrt_progress p = { 0 };
	if (st->gz) {
		p.done = pyrt_gunzip_bytes_in(st->gz);
	} else {
		la_int64_t done = archive_filter_bytes(st->a, -1);
		p.done = done > 0 ? (uint64_t)done : 0;
	}
	p.total = st->archive_size;
	p.elapsed = now - st->start;
	p.rate = p.elapsed > 0 ? (double)p.done / p.elapsed : 0;
	if (pyrt_events_progress(st->ev, PYRT_STEP_EXTRACT, &p) != 0)
		return x_cancelled_now(st);
	return 0;
}

static int x_cancelled(xstate *st)
{
	return pyrt_events_cancelled(st->ev) ? x_cancelled_now(st) : 0;
}

/* Refuse the current member: "<member>: <rule>". */
static int x_refuse(xstate *st, const char *rule)
{
	return pyrt_error_set(st->err, PYRT_E_UNSAFE, "%s: %s", st->label,
			      rule);
}

static int x_io(xstate *st, int errnum, const char *what)
{
	return pyrt_error_set_errno(st->err, PYRT_E_IO, errnum, "%s: %s",
				    st->label, what);
}

static int x_nomem(xstate *st)
{
	return pyrt_error_set(st->err, PYRT_E_NOMEM, "out of memory");
}

static int x_archive_error(xstate *st)
{
	const char *msg = archive_error_string(st->a);
	return pyrt_error_set(st->err, PYRT_E_IO, "cannot read archive: %s",
			      msg ? msg : "unknown error");
}

/* ---- the record of created entries ---- */

/* Remember a directory created at path, whose line is at `at`. */
static int x_remember_dir(xstate *st, unsigned int mode, const char *path,
			  uint64_t at)
{
	size_t n = pyrt_manifest_count(st->dirs);
	if (st->mw && n == st->dir_cap) {
		size_t cap = st->dir_cap ? st->dir_cap * 2 : 256;
		uint64_t *v = realloc(st->dir_at, cap * sizeof *v);
		if (!v)
			return x_nomem(st);
		st->dir_at = v;
		st->dir_cap = cap;
	}
	int rc = pyrt_manifest_add(st->dirs, 'd', mode, 0, "-", path);
	if (rc == PYRT_E_NOMEM)
		return x_nomem(st);
	if (rc)
		return pyrt_error_set(st->err, rc, "%s: cannot record the "
				      "entry", st->label);
	if (st->mw)
		st->dir_at[n] = at;
	return 0;
}

/*
 * Record a created entry (its path must not be recorded yet): a line of
 * the manifest when one is written (*at, may be NULL: where), and a
 * directory in the table.  extra NULL on a file: its digest comes later.
 */
static int x_record_at(xstate *st, char type, unsigned int mode,
		       uint64_t size, const char *extra, const char *path,
		       uint64_t *at)
{
	uint64_t pos = 0;
	if (st->mw) {
		int rc = pyrt_manifest_writer_add(st->mw, type, mode, size,
						  extra, path, &pos);
		if (rc == PYRT_E_IO)
			return x_io(st, errno, "cannot write the manifest");
		if (rc)
			return pyrt_error_set(st->err, rc, "%s: cannot record "
					      "the entry", st->label);
	}
	if (at)
		*at = pos;
	st->records++;
	return type == 'd' ? x_remember_dir(st, mode, path, pos) : 0;
}

static int x_record(xstate *st, char type, unsigned int mode, uint64_t size,
		    const char *extra, const char *path)
{
	return x_record_at(st, type, mode, size, extra, path, NULL);
}

/* ---- names ---- */

/*
 * Normalise a member name: repeated slashes and "." components dropped.
 * Returns a malloc'd path (possibly "" for the destination itself) and its
 * component count, or NULL with *rule set (rule NULL: out of memory).
 */
static char *x_normalize(const char *raw, size_t *ncomp, const char **rule)
{
	*rule = NULL;
	if (!raw || !*raw) {
		*rule = "empty name";
		return NULL;
	}
	if (raw[0] == '/') {
		*rule = "absolute path";
		return NULL;
	}
	/* The manifest is tab-separated and line-based. */
	if (strpbrk(raw, "\t\n")) {
		*rule = "name contains a tab or newline";
		return NULL;
	}
	char *out = malloc(strlen(raw) + 1);
	if (!out)
		return NULL;
	size_t o = 0, n = 0;
	for (const char *c = raw; *c;) {
		size_t len = strcspn(c, "/");
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			free(out);
			*rule = "path contains '..'";
			return NULL;
		}
		if (len > 0 && !(len == 1 && c[0] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, c, len);
			o += len;
			n++;
		}
		c += len;
		while (*c == '/')
			c++;
	}
	out[o] = '\0';
	*ncomp = n;
	return out;
}

/*
 * The symlink rules: relative, only leading ".." components, and no more of
 * them than the link's depth below dest.  Since every member's parents are
 * real directories (we never walk through a symlink), such a target resolves
 * inside dest, and chains of such links do too.  NULL when allowed.
 */
static const char *x_symlink_rule(const char *target, size_t depth)
{
	if (!*target)
		return "empty symlink target";
	if (target[0] == '/')
		return "absolute symlink target";
	if (strpbrk(target, "\t\n"))
		return "symlink target contains a tab or newline";
	size_t up = 0;
	int named = 0;
	for (const char *c = target; *c;) {
		size_t len = strcspn(c, "/");
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			if (named)
				return "symlink target climbs after a name";
			up++;
		} else if (len > 0 && !(len == 1 && c[0] == '.')) {
			named = 1;
		}
		c += len;
		while (*c == '/')
			c++;
	}
	if (up > depth)
		return "symlink target leaves the destination";
	return NULL;
}

/* The declared size of a member (0 when absent or negative). */
static uint64_t x_entry_size(struct archive_entry *e)
{
	if (!archive_entry_size_is_set(e) || archive_entry_size(e) <= 0)
		return 0;
	return (uint64_t)archive_entry_size(e);
}

/* Clear setuid/setgid/sticky and group/other write; give the owner `owner`. */
static unsigned int x_sanitize(mode_t perm, unsigned int owner)
{
	return ((unsigned int)perm & 0777u & ~022u) | owner;
}

/*
 * A file's mode exactly as tarfile's data filter leaves it: no high bits,
 * no group/other write, the exec bits only when the owner may execute,
 * and the owner reads and writes (0677 becomes 0644, not 0655).
 */
static unsigned int x_file_mode(mode_t perm)
{
	unsigned int mode = (unsigned int)perm & 0755u;
	if (!(mode & 0100u))
		mode &= ~0111u;
	return mode | 0600u;
}

/* ---- directories ---- */

/*
 * Open one directory component below cur without following a symlink,
 * creating it (0755, recorded) when missing and create is set.  prefix is
 * the component's full relative path, for messages and the record.
 */
static int x_open_comp(xstate *st, int cur, const char *comp,
		       const char *prefix, int create, int *out)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int made = 0;
	int fd = openat(cur, comp, flags);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(cur, comp, 0700) == 0)
			made = 1;
		else if (errno != EEXIST)
			return x_io(st, errno, "cannot create a directory");
		fd = openat(cur, comp, flags);
	}
	if (fd < 0) {
		int saved = errno;
		struct stat sb;
		char rule[PYRT_ERROR_MSG_MAX];
		if (fstatat(cur, comp, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(sb.st_mode)) {
			pyrt_fmt_text(rule, sizeof rule, S_ISLNK(sb.st_mode) ?
				      "would write through symlink %s" :
				      "parent %s is not a directory", prefix);
			return x_refuse(st, rule);
		}
		return x_io(st, saved, "cannot open a parent directory");
	}
	if (made) {
		int rc = fchmod(fd, X_IMPLICIT_DIR_MODE) != 0
			? x_io(st, errno, "cannot set a directory mode")
			: x_record(st, 'd', X_IMPLICIT_DIR_MODE, 0, "-",
				   prefix);
		if (rc) {
			close(fd);
			return rc;
		}
	}
	*out = fd;
	return 0;
}

/*
 * Open dir (relative to dest) starting from start, which already is the
 * directory dir[0..skip-1).  *out is always a new fd the caller closes.
 */
static int x_walk(xstate *st, int start, char *dir, size_t skip, int create,
		  int *out)
{
	int cur = start, owned = 0, rc = 0;
	size_t pos = skip;
	while (dir[pos]) {
		size_t len = strcspn(dir + pos, "/");
		char saved = dir[pos + len];
		dir[pos + len] = '\0';
		int next = -1;
		rc = x_open_comp(st, cur, dir + pos, dir, create, &next);
		dir[pos + len] = saved;
		if (owned)
			close(cur);
		if (rc)
			return rc;
		cur = next;
		owned = 1;
		pos += len;
		while (dir[pos] == '/')
			pos++;
	}
	if (!owned) {
		cur = fcntl(start, F_DUPFD_CLOEXEC, 0);
		if (cur < 0)
			return x_io(st, errno, "cannot duplicate a descriptor");
	}
	*out = cur;
	return 0;
}

/* Make (dir, fd) the cached parent, taking ownership of both. */
static void x_set_cache(xstate *st, char *dir, int fd)
{
	if (st->cache_fd >= 0)
		close(st->cache_fd);
	free(st->cache_dir);
	st->cache_dir = dir;
	st->cache_fd = fd;
}

/*
 * The parent directory of path (borrowed fd) and its leaf name, creating
 * missing parents.  Members come grouped by directory, so the last parent is
 * cached, and a deeper one is walked from it rather than from dest.
 */
static int x_parent(xstate *st, const char *path, const char **leaf, int *out)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	*leaf = slash ? slash + 1 : path;
	if (dlen == 0) {
		*out = st->destfd;
		return 0;
	}
	size_t clen = st->cache_dir ? strlen(st->cache_dir) : 0;
	if (st->cache_dir && clen == dlen &&
	    memcmp(st->cache_dir, path, dlen) == 0) {
		*out = st->cache_fd;
		return 0;
	}
	int start = st->destfd;
	size_t skip = 0;
	if (st->cache_dir && clen < dlen && path[clen] == '/' &&
	    memcmp(st->cache_dir, path, clen) == 0) {
		start = st->cache_fd;
		skip = clen + 1;
	}
	char *dir = strndup(path, dlen);
	if (!dir)
		return x_nomem(st);
	int fd = -1;
	int rc = x_walk(st, start, dir, skip, 1, &fd);
	if (rc) {
		free(dir);
		return rc;
	}
	x_set_cache(st, dir, fd);
	*out = fd;
	return 0;
}

/* A directory member: create it, or re-mode one this extraction created. */
static int x_dir(xstate *st, struct archive_entry *e, const char *path)
{
	const char *leaf;
	int pfd;
	int rc = x_parent(st, path, &leaf, &pfd);
	if (rc)
		return rc;
	unsigned int mode = x_sanitize(archive_entry_perm(e), 0700);
	if (mkdirat(pfd, leaf, 0700) != 0) {
		if (errno != EEXIST)
			return x_io(st, errno, "cannot create directory");
		size_t i = 0;
		int found = pyrt_manifest_find(st->dirs, path, &i);
		if (found < 0)
			return x_nomem(st);
		if (!found)
			return x_refuse(st, "duplicate member");
		pyrt_manifest_set_mode(st->dirs, i, mode);
		if (st->mw && (rc = pyrt_manifest_writer_set_mode(
				       st->mw, st->dir_at[i], mode)) != 0)
			return rc == PYRT_E_IO
			       ? x_io(st, errno, "cannot write the manifest")
			       : pyrt_error_set(st->err, rc, "%s: cannot "
						"record the entry", st->label);
	} else if ((rc = x_record(st, 'd', mode, 0, "-", path)) != 0) {
		return rc;
	}
	int fd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					   O_CLOEXEC);
	if (fd < 0)
		return x_io(st, errno, "cannot open directory");
	if (fchmod(fd, mode) != 0) {
		int saved = errno;
		close(fd);
		return x_io(st, saved, "cannot set directory mode");
	}
	char *dir = strdup(path);
	if (!dir) {
		close(fd);
		return x_nomem(st);
	}
	/* Its contents usually follow: make it the cached parent. */
	x_set_cache(st, dir, fd);
	return 0;
}

/* ---- regular files ---- */

static int x_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Over a cap: name it, and the pinned figure it came from if any. */
static int x_refuse_cap(xstate *st, uint64_t cap, uint64_t pinned,
			const char *unit, const char *declared)
{
	char rule[192];
	if (pinned)
		pyrt_fmt_text(rule, sizeof rule, "archive exceeds the cap of %llu "
			      "%s (%dx the %s%llu its pin declares; decompression "
			      "bomb?)", (unsigned long long)cap, unit,
			      PYRT_EXTRACT_PIN_SLACK, declared,
			      (unsigned long long)pinned);
	else
		pyrt_fmt_text(rule, sizeof rule, "archive exceeds the cap of %llu "
			      "%s (decompression bomb?)", (unsigned long long)cap,
			      unit);
	return x_refuse(st, rule);
}

static int x_refuse_cap_bytes(xstate *st)
{
	return x_refuse_cap(st, st->opts->max_total_bytes,
			    st->opts->pinned_bytes, "bytes", "unpacked_size ");
}

/* Count bytes written against the cap: declared sizes may lie. */
static int x_charge(xstate *st, uint64_t n)
{
	if (n > st->opts->max_total_bytes - st->written)
		return x_refuse_cap_bytes(st);
	st->written += n;
	return 0;
}

/* Hash the zeros of a sparse hole so the digest matches the file's bytes. */
static void x_hash_zeros(xstate *st, uint64_t n)
{
	static const unsigned char zeros[64 * 1024];
	while (n > 0) {
		size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
		pyrt_sha256_update(st->sha, zeros, k);
		n -= k;
	}
}

/* Account for a hole of n zero bytes: the cap, the digest, the length. */
static int x_hole(xstate *st, uint64_t n)
{
	int rc = x_charge(st, n);
	if (!rc && st->gz_hash && pyrt_gunzip_hash_zeros(st->gz, n) != 0)
		rc = x_nomem(st);
	else if (!rc && st->sha && !st->gz_hash)
		x_hash_zeros(st, n);
	return rc;
}

/*
 * Copy the member's data into fd; sparse holes become holes, including a
 * trailing one (libarchive reports data blocks only, so the file is
 * extended to the entry's size at the end).
 */
static int x_hash_failed(xstate *st, int rc);

static int x_copy(xstate *st, struct archive_entry *e, int fd, uint64_t *size)
{
	uint64_t pos = 0;
	int holes = 0;
	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;
		int rc = x_cancelled(st);
		if (rc)
			return rc;
		int r = archive_read_data_block(st->a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN || off < 0 || (uint64_t)off < pos)
			return x_archive_error(st);
		if ((uint64_t)off > pos) {
			if ((rc = x_hole(st, (uint64_t)off - pos)) != 0)
				return rc;
			if (lseek(fd, (off_t)off, SEEK_SET) < 0)
				return x_io(st, errno, "cannot seek");
			pos = (uint64_t)off;
			holes = 1;
		}
		if ((rc = x_charge(st, len)) != 0)
			return rc;
		if (x_write_all(fd, buf, len) != 0)
			return x_io(st, errno, "cannot write");
		if (st->gz_hash &&
		    (rc = pyrt_gunzip_hash_data(st->gz, buf, len)) != 0)
			return x_hash_failed(st, rc);
		else if (st->sha && !st->gz_hash)
			pyrt_sha256_update(st->sha, buf, len);
		pos += len;
		if ((rc = x_tick(st, 0)) != 0)
			return rc;
	}
	uint64_t want = x_entry_size(e);
	if (want > pos) {
		int rc = x_hole(st, want - pos);
		if (rc)
			return rc;
		pos = want;
		holes = 1;
	}
	if (holes && ftruncate(fd, (off_t)pos) != 0)
		return x_io(st, errno, "cannot extend sparse file");
	*size = pos;
	return 0;
}

/* The worker's hashing failed (gunzip.h's codes). */
static int x_hash_failed(xstate *st, int rc)
{
	if (rc == PYRT_E_NOMEM)
		return x_nomem(st);
	return pyrt_error_set(st->err, PYRT_E_INTERNAL,
			      "%s: SHA-256 of the extracted files failed",
			      st->label);
}

/* A file's digest from the worker: into its line (tag: where x_file
 * wrote it). */
static int x_digest(void *ctx, size_t tag, const unsigned char *digest)
{
	xstate *st = ctx;
	return pyrt_manifest_writer_set_digest(st->mw, (uint64_t)tag, digest);
}

/* Set the archive's mtime (pyc caches compare it) and the exact mode. */
static int x_finish_file(xstate *st, struct archive_entry *e, int fd,
			 unsigned int mode)
{
	if (fchmod(fd, mode) != 0)
		return x_io(st, errno, "cannot set file mode");
	if (!archive_entry_mtime_is_set(e))
		return 0;
	struct timespec ts[2];
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = archive_entry_mtime(e);
	ts[1].tv_nsec = archive_entry_mtime_nsec(e);
	if (futimens(fd, ts) != 0)
		return x_io(st, errno, "cannot set file time");
	return 0;
}

/* A regular file member: a new file (O_EXCL), never an existing one. */
static int x_file(xstate *st, struct archive_entry *e, const char *path)
{
	const char *leaf;
	int pfd;
	int rc = x_parent(st, path, &leaf, &pfd);
	if (rc)
		return rc;
	unsigned int mode = x_file_mode(archive_entry_perm(e));
	int fd = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					   O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return x_refuse(st, "duplicate member");
		return x_io(st, errno, "cannot create file");
	}
	uint64_t size = 0;
	char hex[PYRT_SHA256_HEX_LEN + 1] = "-";
	/* The worker's digest lands in this file's line, the next one: no
	 * other entry is recorded before it, and the worker gives a file's
	 * digest only in a call made after the file's end, so after that. */
	size_t tag = (size_t)pyrt_manifest_writer_tell(st->mw);
	if (st->gz_hash && (rc = pyrt_gunzip_hash_begin(st->gz, tag)) != 0) {
		close(fd);
		return x_hash_failed(st, rc);
	}
	rc = x_copy(st, e, fd, &size);
	if (!rc && st->gz_hash && (rc = pyrt_gunzip_hash_end(st->gz)) != 0)
		rc = x_hash_failed(st, rc);
	if (!rc)
		rc = x_finish_file(st, e, fd, mode);
	if (close(fd) != 0 && !rc)
		rc = x_io(st, errno, "cannot write file");
	if (rc)
		return rc;
	if (!st->gz_hash && st->sha &&
	    pyrt_sha256_final_hex(st->sha, hex) != 0)
		return pyrt_error_set(st->err, PYRT_E_INTERNAL,
				      "%s: SHA-256 failed", st->label);
	uint64_t at = 0;
	/* With the worker hashing, the digest's place is filled later. */
	rc = x_record_at(st, 'f', mode, size, st->gz_hash ? NULL : hex, path,
			 &at);
	if (!rc && st->gz_hash && at != (uint64_t)tag)
		rc = pyrt_error_set(st->err, PYRT_E_INTERNAL, "%s: the "
				    "manifest moved under a file's digest",
				    st->label);
	return rc;
}

/* ---- links ---- */

/* A symlink member, checked against the target rules first. */
static int x_symlink(xstate *st, struct archive_entry *e, const char *path,
		     size_t ncomp)
{
	const char *target = archive_entry_symlink(e);
	const char *rule = x_symlink_rule(target ? target : "", ncomp - 1);
	if (rule)
		return x_refuse(st, rule);
	const char *leaf;
	int pfd;
	int rc = x_parent(st, path, &leaf, &pfd);
	if (rc)
		return rc;
	if (symlinkat(target, pfd, leaf) != 0) {
		if (errno == EEXIST)
			return x_refuse(st, "duplicate member");
		return x_io(st, errno, "cannot create symlink");
	}
	struct stat sb;
	if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return x_io(st, errno, "cannot stat symlink");
	return x_record(st, 'l', (unsigned int)(sb.st_mode & 07777),
			(uint64_t)sb.st_size, target, path);
}

/* Every member must lie under the top folder of the required file. */
static int x_in_top(const xstate *st, const char *path)
{
	if (!st->top)
		return 1;
	size_t n = strlen(st->top);
	return strncmp(path, st->top, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* Whether sb is something dest held before extraction began. */
static int x_was_there(const xstate *st, const struct stat *sb)
{
	for (size_t i = 0; i < st->nbefore; i++)
		if (st->before[i].dev == (uint64_t)sb->st_dev &&
		    st->before[i].ino == (uint64_t)sb->st_ino)
			return 1;
	return 0;
}

/*
 * Remember what dest holds at the start (install's owner record; nothing,
 * for an empty dest), so that x_probe never takes it for a member's file
 * when there is no top folder to tell them apart.
 */
static int x_note_before(xstate *st)
{
	int fd = openat(st->destfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return x_io(st, errno, "cannot read the destination");
	}
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		struct stat sb;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(st->destfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue;
		void *v = realloc(st->before, (st->nbefore + 1) *
						 sizeof *st->before);
		if (!v) {
			rc = x_nomem(st);
			break;
		}
		st->before = v;
		st->before[st->nbefore].dev = (uint64_t)sb.st_dev;
		st->before[st->nbefore].ino = (uint64_t)sb.st_ino;
		st->nbefore++;
	}
	closedir(d);
	return rc;
}

/*
 * What this extraction made at path (relative to dest), from the tree:
 * lstat of it with every parent opened without following a link, and a
 * symlink's target into link (NULL: not wanted).  Only in a directory
 * this extraction created (the table), so nothing dest held before counts
 * (a caller's files, install's owner record beside the top folder), nor
 * our manifest's temp file; with no top folder, dest itself is searched
 * too, less what it held at the start.  Nobody else writes into dest while it runs (install's
 * staging is private), so a regular file there is a member's.  0 when
 * found; -1 when not (no error set).
 */
static int x_probe(xstate *st, char *path, struct stat *sb, char *link,
		   size_t linklen)
{
	if (!x_in_top(st, path))
		return -1;
	char *slash = strrchr(path, '/');
	const char *leaf = slash ? slash + 1 : path;
	int fd = -1, found = -1;
	if (!slash && st->top)
		return -1; /* the top folder itself: no file */
	if (slash)
		*slash = '\0';
	size_t di = 0;
	if (slash && pyrt_manifest_find(st->dirs, path, &di) != 1) {
		*slash = '/';
		return -1;
	}
	pyrt_error quiet = PYRT_ERROR_INIT;
	pyrt_error *saved = st->err;
	st->err = &quiet; /* a failed walk here means "missing", not an error */
	char none[1] = "";
	int rc = x_walk(st, st->destfd, slash ? path : none, 0, 0, &fd);
	st->err = saved;
	if (slash)
		*slash = '/';
	if (!rc && fstatat(fd, leaf, sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !pyrt_manifest_writer_is_file(st->mw, (uint64_t)sb->st_dev,
					  (uint64_t)sb->st_ino) &&
	    !x_was_there(st, sb))
		found = 0;
	if (!found && link && S_ISLNK(sb->st_mode)) {
		ssize_t n = readlinkat(fd, leaf, link, linklen - 1);
		if (n < 0 || (size_t)n >= linklen - 1)
			found = -1;
		else
			link[n] = '\0';
	}
	if (fd >= 0)
		close(fd);
	return found;
}

/* A hardlink member: only to a regular file this extraction created. */
static int x_hardlink(xstate *st, const char *raw_target, const char *path)
{
	static const char *const not_member =
		"hardlink target is not an earlier file member";
	size_t tn = 0;
	const char *rule = NULL;
	char *target = x_normalize(raw_target, &tn, &rule);
	if (!target)
		return rule ? x_refuse(st, not_member) : x_nomem(st);
	int rc = 0, tfd = -1;
	struct stat tsb;
	if (x_probe(st, target, &tsb, NULL, 0) != 0 ||
	    !S_ISREG(tsb.st_mode)) {
		rc = x_refuse(st, not_member);
		goto cleanup;
	}
	/* As x_file set them: its mode exactly, its bytes. */
	unsigned int mode = (unsigned int)(tsb.st_mode & 07777);
	uint64_t size = (uint64_t)tsb.st_size;
	const char *leaf;
	int pfd;
	if ((rc = x_parent(st, path, &leaf, &pfd)) != 0)
		goto cleanup;
	char *slash = strrchr(target, '/');
	const char *tleaf = slash ? slash + 1 : target;
	if (slash)
		*slash = '\0';
	char none[1] = "";
	rc = x_walk(st, st->destfd, slash ? target : none, 0, 0, &tfd);
	if (slash)
		*slash = '/';
	if (rc)
		goto cleanup;
	if (linkat(tfd, tleaf, pfd, leaf, 0) != 0) {
		rc = errno == EEXIST
			? x_refuse(st, "duplicate member")
			: x_io(st, errno, "cannot create hardlink");
		goto cleanup;
	}
	rc = x_record(st, 'h', mode, size, target, path);
cleanup:
	if (tfd >= 0)
		close(tfd);
	free(target);
	return rc;
}

/* ---- members ---- */

static int x_refuse_cap_entries(xstate *st)
{
	return x_refuse_cap(st, st->opts->max_entries,
			    st->opts->pinned_entries, "entries", "");
}

/* Dispatch one member on its type after the name and cap checks. */
static int x_dispatch(xstate *st, struct archive_entry *e, const char *path,
		      size_t ncomp)
{
	const char *hardlink = archive_entry_hardlink(e);
	if (hardlink)
		return x_hardlink(st, hardlink, path);
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return x_file(st, e, path);
	case AE_IFDIR:
		return x_dir(st, e, path);
	case AE_IFLNK:
		return x_symlink(st, e, path, ncomp);
	case AE_IFCHR:
	case AE_IFBLK:
	case AE_IFIFO:
	case AE_IFSOCK:
		return x_refuse(st, "device/fifo member not allowed");
	default:
		return x_refuse(st, "unsupported member type");
	}
}

/*
 * One member: the entry cap, the name rules, the top-folder rule and the
 * declared-size cap, then creation by type.
 */
static int x_member(xstate *st, struct archive_entry *e)
{
	const char *raw = archive_entry_pathname(e);
	if (!raw)
		raw = archive_entry_pathname_utf8(e);
	st->label = raw && *raw ? raw : "(unnamed member)";
	if (++st->entries > st->opts->max_entries)
		return x_refuse_cap_entries(st);
	size_t ncomp = 0;
	const char *rule = NULL;
	char *path = x_normalize(raw, &ncomp, &rule);
	if (!path)
		return rule ? x_refuse(st, rule) : x_nomem(st);
	int rc = 0;
	if (!*path) {
		/* "./": dest itself, which is not ours to re-mode. */
		if (archive_entry_filetype(e) != AE_IFDIR ||
		    archive_entry_hardlink(e))
			rc = x_refuse(st, "empty name");
		goto cleanup;
	}
	if (!x_in_top(st, path)) {
		char msg[PYRT_ERROR_MSG_MAX];
		pyrt_fmt_text(msg, sizeof msg, "member outside the expected "
			      "top folder '%s/'", st->top);
		rc = x_refuse(st, msg);
		goto cleanup;
	}
	uint64_t size = x_entry_size(e);
	if (size > st->opts->max_total_bytes - st->declared) {
		rc = x_refuse_cap_bytes(st);
		goto cleanup;
	}
	st->declared += size;
	rc = x_dispatch(st, e, path, ncomp);
cleanup:
	free(path);
	return rc;
}

/* ---- layout ---- */

/* Resolve target lexically from linkpath's directory; NULL if it climbs out. */
static char *x_resolve(const char *linkpath, const char *target)
{
	size_t cap = strlen(linkpath) + strlen(target) + 2;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	const char *slash = strrchr(linkpath, '/');
	size_t o = slash ? (size_t)(slash - linkpath) : 0;
	memcpy(out, linkpath, o);
	out[o] = '\0';
	for (const char *c = target; *c;) {
		size_t len = strcspn(c, "/");
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			if (o == 0) {
				free(out);
				return NULL;
			}
			char *up = strrchr(out, '/');
			o = up ? (size_t)(up - out) : 0;
			out[o] = '\0';
		} else if (len > 0 && !(len == 1 && c[0] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, c, len);
			o += len;
			out[o] = '\0';
		}
		c += len;
		while (*c == '/')
			c++;
	}
	return out;
}

/*
 * The required file must be a regular file we created, or a symlink (chain)
 * to one that resolves inside dest.
 */
static int x_layout(xstate *st)
{
	const char *req = st->opts->required_file;
	if (!req)
		return 0;
	size_t n = 0;
	const char *rule = NULL;
	char *path = x_normalize(req, &n, &rule);
	if (!path && !rule)
		return x_nomem(st);
	int ok = 0;
	char link[PATH_MAX];
	for (int hop = 0; path && hop <= X_LINK_HOPS; hop++) {
		struct stat sb;
		if (x_probe(st, path, &sb, link, sizeof link) != 0)
			break;
		if (S_ISREG(sb.st_mode)) {
			ok = 1;
			break;
		}
		if (!S_ISLNK(sb.st_mode))
			break;
		char *next = x_resolve(path, link);
		free(path);
		path = next;
	}
	free(path);
	if (ok)
		return 0;
	return pyrt_error_set(st->err, PYRT_E_UNSAFE, "layout: %s missing; "
			      "not a python-build-standalone install_only "
			      "archive", req);
}

/* ---- driver ---- */

/* The first component of the required file: every member must be below it. */
static int x_set_top(xstate *st)
{
	const char *req = st->opts->required_file;
	if (!req)
		return 0;
	size_t n = 0;
	const char *rule = NULL;
	char *path = x_normalize(req, &n, &rule);
	if (!path && !rule)
		return x_nomem(st);
	if (!path || n < 2) {
		free(path);
		return pyrt_error_set(st->err, PYRT_E_INTERNAL,
				      "extract: bad required file '%s'", req);
	}
	path[strcspn(path, "/")] = '\0';
	st->top = path;
	return 0;
}

/*
 * libarchive's read callback on the gzip worker: its blocks, as they are.
 * A failure is recorded here, where its message is known; libarchive then
 * fails the current read, and the first failure is the one reported.
 */
static la_ssize_t x_gz_read(struct archive *a, void *data, const void **buf)
{
	xstate *st = data;
	size_t len = 0;
	pyrt_error gzerr = PYRT_ERROR_INIT;
	int rc = pyrt_gunzip_read(st->gz, buf, &len, &gzerr);
	if (rc) {
		pyrt_error_set(st->err, rc, "cannot read archive: %s",
			       gzerr.msg);
		archive_set_error(a, EIO, "%s", gzerr.msg);
		return ARCHIVE_FATAL;
	}
	return (la_ssize_t)len;
}

/*
 * Start reading: a gzip archive through the inflating worker (libarchive
 * sees a plain tar), anything else through libarchive's own filters.
 */
static int x_open_reader(xstate *st, const char *archive_path)
{
	if (!pyrt_gunzip_is_gzip(archive_path)) {
		archive_read_support_filter_gzip(st->a);
		archive_read_support_filter_xz(st->a);
		archive_read_support_filter_zstd(st->a);
		archive_read_support_filter_bzip2(st->a);
		return archive_read_open_filename(st->a, archive_path,
						  X_BLOCK_SIZE);
	}
	pyrt_error gzerr = PYRT_ERROR_INIT;
	if (pyrt_gunzip_open(&st->gz, archive_path, &gzerr) != 0) {
		archive_set_error(st->a, EIO, "%s", gzerr.msg);
		return ARCHIVE_FATAL;
	}
	return archive_read_open(st->a, st, NULL, x_gz_read, NULL);
}

/* Read-only libarchive handle: tar formats and the usual compressions. */
static int x_open_archive(xstate *st, const char *archive_path)
{
	st->a = archive_read_new();
	if (!st->a)
		return x_nomem(st);
	archive_read_support_format_tar(st->a);
	archive_read_support_format_gnutar(st->a);
	if (x_open_reader(st, archive_path) != ARCHIVE_OK) {
		const char *msg = archive_error_string(st->a);
		return pyrt_error_set(st->err, PYRT_E_IO, "cannot open archive "
				      "%s: %s", archive_path,
				      msg ? msg : "unknown error");
	}
	struct stat sb;
	if (stat(archive_path, &sb) == 0)
		st->archive_size = (uint64_t)sb.st_size;
	return 0;
}

/*
 * After the tar's end: read the rest of the gzip stream (tar pads to 10 KiB
 * records) so that its CRC is checked too.  A long tail is left unread, as
 * libarchive's own filter leaves it.
 */
static int x_gz_drain(xstate *st)
{
	uint64_t tail = 0;
	while (st->gz && tail <= X_GZ_TAIL_MAX) {
		const void *buf = NULL;
		size_t len = 0;
		pyrt_error gzerr = PYRT_ERROR_INIT;
		int rc = pyrt_gunzip_read(st->gz, &buf, &len, &gzerr);
		if (rc)
			return pyrt_error_set(st->err, rc, "cannot read "
					      "archive: %s", gzerr.msg);
		if (len == 0)
			break;
		tail += len;
	}
	return 0;
}

/*
 * libarchive gives up on an extended (pax or GNU long-name) header over
 * 1 MiB: 3.6 fails the read ("Special header too large"), later versions
 * warn and skip it ("Special header too large: N > 1MiB", "Ignoring
 * oversized pax extensions").  What it drops may be the member's real name,
 * link target or size, so either way the archive is unsafe, not unreadable.
 * Only libarchive's message tells this case apart.
 */
static int x_header_oversized(xstate *st)
{
	const char *msg = archive_error_string(st->a);
	return msg && (strstr(msg, "header too large") ||
		       strstr(msg, "oversized pax"));
}

static int x_refuse_header(xstate *st)
{
	char where[PYRT_ERROR_MSG_MAX / 2];
	if (st->last_done[0])
		pyrt_fmt_text(where, sizeof where, "after member %s",
			      st->last_done);
	else
		pyrt_fmt_text(where, sizeof where, "at the start of the archive");
	return pyrt_error_set(st->err, PYRT_E_UNSAFE, "an extended (pax) "
			      "header over 1 MiB %s (libarchive: %s); "
			      "refused: a runtime archive has none so large",
			      where, archive_error_string(st->a));
}

/* Walk the archive member by member. */
static int x_run(xstate *st)
{
	int rc = x_tick(st, 1);
	unsigned long members = 0;
	while (!rc) {
		struct archive_entry *e = NULL;
		if ((rc = x_cancelled(st)) != 0)
			break;
		int r = archive_read_next_header(st->a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r <= ARCHIVE_WARN && x_header_oversized(st)) {
			rc = x_refuse_header(st);
			break;
		}
		if (r < ARCHIVE_WARN) {
			rc = x_archive_error(st);
			break;
		}
		if (r == ARCHIVE_WARN &&
		    pyrt_events_log(st->ev, PYRT_LOG_WARN, "archive: %s",
				    archive_error_string(st->a)) != 0) {
			rc = x_cancelled_now(st);
			break;
		}
		rc = x_member(st, e);
		/* A staging tree that is visibly partial (fault tests). */
		if (++members == 100)
			pyrt_testhook("mid-extract");
		if (!rc)
			pyrt_fmt_text(st->last_done, sizeof st->last_done, "%s",
				      st->label);
		if (!rc)
			rc = x_tick(st, 0);
	}
	if (!rc)
		rc = x_gz_drain(st);
	if (!rc)
		rc = x_layout(st);
	if (!rc)
		rc = x_tick(st, 1);
	return rc;
}

/* n times the pinned number, saturating; the default when not pinned. */
static uint64_t x_cap(uint64_t pinned, uint64_t fallback)
{
	if (!pinned)
		return fallback;
	if (pinned > UINT64_MAX / PYRT_EXTRACT_PIN_SLACK)
		return UINT64_MAX;
	return pinned * PYRT_EXTRACT_PIN_SLACK;
}

void pyrt_extract_caps_from_pin(pyrt_extract_opts *opts,
				uint64_t unpacked_size, uint64_t entries)
{
	opts->max_total_bytes = x_cap(unpacked_size,
				      PYRT_EXTRACT_DEFAULT_BYTES);
	opts->max_entries = x_cap(entries, PYRT_EXTRACT_DEFAULT_ENTRIES);
	opts->pinned_bytes = unpacked_size;
	opts->pinned_entries = entries;
}

int pyrt_extract(const char *archive_path, const char *dest_dir,
		 const pyrt_extract_opts *opts, const pyrt_events *ev,
		 const char *manifest_path, pyrt_extract_result *result,
		 pyrt_error *err)
{
	pyrt_extract_opts defaults = PYRT_EXTRACT_OPTS_INIT;
	xstate st = { .destfd = -1, .cache_fd = -1, .ev = ev, .err = err,
		      .opts = opts ? opts : &defaults, .label = archive_path };
	int rc = 0;

	if (!archive_path || !dest_dir)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "extract: no archive or destination");
	if (st.opts->version != PYRT_EXTRACT_OPTS_VERSION)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "extract: options version %u unknown",
				      st.opts->version);
	if ((rc = pyrt_lazy_archive(err)) != 0 ||
	    (rc = pyrt_lazy_zlib(err)) != 0)
		return rc;
	st.start = pyrt_now();
	st.last_tick = st.start;
	if ((rc = x_set_top(&st)) != 0)
		goto cleanup;
	if (!(st.dirs = pyrt_manifest_new())) {
		rc = x_nomem(&st);
		goto cleanup;
	}
	if (manifest_path &&
	    (rc = pyrt_manifest_writer_open(&st.mw, manifest_path, err)) != 0)
		goto cleanup;
	/* Digests only go to a manifest: without one there is no hashing. */
	int hash = st.opts->hash_files && st.mw;
	if (hash && (rc = pyrt_sha256_ready(err)) != 0)
		goto cleanup;
	if (hash && !(st.sha = pyrt_sha256_new())) {
		rc = x_nomem(&st);
		goto cleanup;
	}
	st.destfd = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st.destfd < 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot open %s", dest_dir);
		goto cleanup;
	}
	if (!st.top && (rc = x_note_before(&st)) != 0)
		goto cleanup;
	if ((rc = x_open_archive(&st, archive_path)) != 0)
		goto cleanup;
	/* Hash on the inflating worker when there is one (issue 28). */
	if (st.sha && st.gz) {
		rc = pyrt_gunzip_hash_start(st.gz, x_digest, &st);
		if (rc == PYRT_E_NOMEM) {
			rc = x_nomem(&st);
			goto cleanup;
		}
		st.gz_hash = rc == 0;
		rc = 0;
	}
	if ((rc = x_run(&st)) != 0)
		goto cleanup;
	if (st.gz_hash && (rc = pyrt_gunzip_hash_finish(st.gz)) != 0) {
		rc = x_hash_failed(&st, rc);
		goto cleanup;
	}
	if (st.mw)
		rc = pyrt_manifest_writer_commit(st.mw, err);
cleanup:
	if (result) {
		result->entries = st.entries;
		result->bytes = st.written;
		result->records = st.records;
	}
	if (st.a)
		archive_read_free(st.a);
	pyrt_gunzip_free(st.gz); /* after libarchive: it reads from it */
	x_set_cache(&st, NULL, -1);
	if (st.destfd >= 0)
		close(st.destfd);
	pyrt_manifest_writer_free(st.mw); /* uncommitted: removed */
	pyrt_manifest_free(st.dirs);
	free(st.dir_at);
	free(st.before);
	free(st.top);
	pyrt_sha256_free(st.sha);
	return rc;
}
