/*
 * The install manifest: the list of entries an extraction created, kept as
 * manifest.tsv beside the install so `pyrt verify` can re-check the tree.
 *
 * Storage is compact because the extractor uses a manifest as its table of
 * created entries while it runs (a runtime has thousands): a fixed-size
 * record per entry, every string once in one arena addressed by offsets, a
 * file digest as its 32 raw bytes (hex only when written out or returned),
 * "-" as a flag.  A path index for lookups is built only when asked for.
 *
 * Verification looks at every listed entry without following symlinks
 * (each parent component is opened with O_NOFOLLOW), so a tampered tree
 * cannot steer the check outside the install.  Entries that are not listed
 * are not reported.
 */
#include "core/dist/manifest.h"

#include "core/util/fmt.h"
#include "core/util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST_READ_BUF (1024 * 1024)
#define MANIFEST_MAX_LINE (64 * 1024)
#define MANIFEST_DIGEST_LEN 32
#define MANIFEST_ARENA_MIN (64 * 1024)

/* What a record's extra field holds. */
enum { EXTRA_DASH, EXTRA_DIGEST, EXTRA_TEXT };

/* One entry: strings are arena offsets. */
typedef struct mrec {
	uint64_t size;
	uint32_t path;   /* NUL-terminated path */
	uint32_t extra;  /* 32-byte digest or NUL-terminated text */
	uint16_t mode;
	char type;
	uint8_t kind;    /* EXTRA_* */
} mrec;

struct pyrt_manifest {
	mrec *v;
	size_t n, cap;
	char *arena;
	size_t alen, acap;
	uint32_t *index;  /* open addressing: entry + 1, 0 empty; or NULL */
	size_t icap;      /* a power of two, at least twice n */
	/* The view pyrt_manifest_at hands out, built on demand. */
	pyrt_manifest_entry *view;
	char *view_hex;
};

pyrt_manifest *pyrt_manifest_new(void)
{
	return calloc(1, sizeof(pyrt_manifest));
}

/* Forget the view: the entries or the arena are about to change. */
static void manifest_view_drop(pyrt_manifest *m)
{
	free(m->view);
	free(m->view_hex);
	m->view = NULL;
	m->view_hex = NULL;
}

/* Free every entry, leaving an empty manifest. */
static void manifest_clear(pyrt_manifest *m)
{
	manifest_view_drop(m);
	free(m->v);
	free(m->arena);
	free(m->index);
	memset(m, 0, sizeof *m);
}

void pyrt_manifest_free(pyrt_manifest *m)
{
	if (!m)
		return;
	manifest_clear(m);
	free(m);
}

/* Fields are tab-separated and entries newline-separated, so neither may
 * appear inside one. */
static int manifest_field_ok(const char *s)
{
	return s && *s && !strpbrk(s, "\t\n");
}

static const char *manifest_str(const pyrt_manifest *m, uint32_t off)
{
	return m->arena + off;
}

/* Room for len more bytes in the arena (offsets must fit 32 bits). */
static int manifest_arena_reserve(pyrt_manifest *m, size_t len)
{
	if (len > UINT32_MAX - m->alen)
		return PYRT_E_NOMEM;
	if (m->alen + len <= m->acap)
		return 0;
	size_t cap = m->acap ? m->acap : MANIFEST_ARENA_MIN;
	while (cap < m->alen + len)
		cap *= 2;
	char *a = realloc(m->arena, cap);
	if (!a)
		return PYRT_E_NOMEM;
	m->arena = a;
	m->acap = cap;
	return 0;
}

/* Copy len bytes into the arena (reserved by the caller); their offset. */
static uint32_t manifest_arena_put(pyrt_manifest *m, const void *p,
				   size_t len)
{
	uint32_t off = (uint32_t)m->alen;
	memcpy(m->arena + off, p, len);
	m->alen += len;
	return off;
}

static int hex_nibble(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* 64 lowercase hex digits (already validated) into 32 bytes. */
static void manifest_unhex(const char *hex, unsigned char *out)
{
	for (size_t i = 0; i < MANIFEST_DIGEST_LEN; i++)
		out[i] = (unsigned char)(hex_nibble(hex[2 * i]) << 4 |
					 hex_nibble(hex[2 * i + 1]));
}

static void manifest_tohex(const unsigned char *d,
			   char hex[PYRT_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < MANIFEST_DIGEST_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 0x0f];
	}
	hex[PYRT_SHA256_HEX_LEN] = '\0';
}

/* ---- the path index ---- */

static uint64_t manifest_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void manifest_index_put(pyrt_manifest *m, size_t i)
{
	size_t mask = m->icap - 1;
	size_t s = manifest_hash(manifest_str(m, m->v[i].path)) & mask;
	while (m->index[s])
		s = (s + 1) & mask;
	m->index[s] = (uint32_t)(i + 1);
}

/* (Re)build the index so that it stays at most half full with one more. */
static int manifest_index_grow(pyrt_manifest *m)
{
	if (m->index && (m->n + 1) * 2 <= m->icap)
		return 0;
	if (m->n >= UINT32_MAX / 4)
		return PYRT_E_NOMEM;
	size_t cap = m->icap ? m->icap : 1024;
	while ((m->n + 1) * 2 > cap)
		cap *= 2;
	uint32_t *t = calloc(cap, sizeof *t);
	if (!t)
		return PYRT_E_NOMEM;
	free(m->index);
	m->index = t;
	m->icap = cap;
	for (size_t i = 0; i < m->n; i++)
		manifest_index_put(m, i);
	return 0;
}

int pyrt_manifest_find(pyrt_manifest *m, const char *path, size_t *index)
{
	if (!m || !path)
		return 0;
	if (!m->index && manifest_index_grow(m) != 0)
		return PYRT_E_NOMEM;
	size_t mask = m->icap - 1;
	for (size_t s = manifest_hash(path) & mask;; s = (s + 1) & mask) {
		uint32_t slot = m->index[s];
		if (!slot)
			return 0;
		if (strcmp(manifest_str(m, m->v[slot - 1].path), path) == 0) {
			*index = slot - 1;
			return 1;
		}
	}
}

/* ---- adding and reading entries ---- */

int pyrt_manifest_add(pyrt_manifest *m, char type, unsigned int mode,
		      uint64_t size, const char *extra, const char *path)
{
	if (!m || !strchr("fdlh", type) || type == '\0' || mode > 07777 ||
	    !manifest_field_ok(extra) || !manifest_field_ok(path))
		return PYRT_E_INTERNAL;
	uint8_t kind = strcmp(extra, "-") == 0 ? EXTRA_DASH
		       : type == 'f' && pyrt_sha256_hex_valid(extra)
		       ? EXTRA_DIGEST : EXTRA_TEXT;
	size_t plen = strlen(path) + 1;
	size_t elen = kind == EXTRA_DIGEST ? MANIFEST_DIGEST_LEN
		      : kind == EXTRA_TEXT ? strlen(extra) + 1 : 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		mrec *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return PYRT_E_NOMEM;
		m->v = v;
		m->cap = cap;
	}
	if (manifest_arena_reserve(m, plen + elen) != 0 ||
	    (m->index && manifest_index_grow(m) != 0))
		return PYRT_E_NOMEM;
	manifest_view_drop(m);
	mrec *r = &m->v[m->n];
	*r = (mrec){ .size = size, .mode = (uint16_t)mode, .type = type,
		     .kind = kind };
	r->path = manifest_arena_put(m, path, plen);
	if (kind == EXTRA_DIGEST) {
		unsigned char d[MANIFEST_DIGEST_LEN];
		manifest_unhex(extra, d);
		r->extra = manifest_arena_put(m, d, sizeof d);
	} else if (kind == EXTRA_TEXT) {
		r->extra = manifest_arena_put(m, extra, elen);
	}
	m->n++;
	if (m->index)
		manifest_index_put(m, m->n - 1);
	return 0;
}

size_t pyrt_manifest_count(const pyrt_manifest *m)
{
	return m ? m->n : 0;
}

int pyrt_manifest_get(const pyrt_manifest *m, size_t i,
		      pyrt_manifest_entry *out,
		      char hex[PYRT_SHA256_HEX_LEN + 1])
{
	if (!m || i >= m->n || !out)
		return PYRT_E_INTERNAL;
	const mrec *r = &m->v[i];
	out->type = r->type;
	out->mode = r->mode;
	out->size = r->size;
	out->path = manifest_str(m, r->path);
	if (r->kind == EXTRA_DIGEST) {
		manifest_tohex((const unsigned char *)m->arena + r->extra, hex);
		out->extra = hex;
	} else {
		out->extra = r->kind == EXTRA_TEXT ? manifest_str(m, r->extra)
						   : "-";
	}
	return 0;
}

/* Build the view of every entry that pyrt_manifest_at hands out. */
static int manifest_view_build(pyrt_manifest *m)
{
	pyrt_manifest_entry *view = calloc(m->n ? m->n : 1, sizeof *view);
	char *hex = malloc((m->n ? m->n : 1) * (PYRT_SHA256_HEX_LEN + 1));
	if (!view || !hex) {
		free(view);
		free(hex);
		return PYRT_E_NOMEM;
	}
	for (size_t i = 0; i < m->n; i++)
		pyrt_manifest_get(m, i, &view[i],
				  hex + i * (PYRT_SHA256_HEX_LEN + 1));
	m->view = view;
	m->view_hex = hex;
	return 0;
}

const pyrt_manifest_entry *pyrt_manifest_at(const pyrt_manifest *m, size_t i)
{
	if (!m || i >= m->n)
		return NULL;
	/* The view is a cache: building it does not change the entries. */
	pyrt_manifest *mm = (pyrt_manifest *)m;
	if (!mm->view && manifest_view_build(mm) != 0)
		return NULL;
	return &mm->view[i];
}

int pyrt_manifest_set_mode(pyrt_manifest *m, size_t i, unsigned int mode)
{
	if (!m || i >= m->n || mode > 07777)
		return PYRT_E_INTERNAL;
	m->v[i].mode = (uint16_t)mode;
	if (m->view)
		m->view[i].mode = mode;
	return 0;
}

/* Split path into its directory (malloc'd, "." when none) and base name. */
static char *manifest_dirname(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		*base = path;
		return strdup(".");
	}
	*base = slash + 1;
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Write every entry to an open stream; 0 or -1 with errno set. */
static int manifest_emit(const pyrt_manifest *m, FILE *f)
{
	for (size_t i = 0; i < m->n; i++) {
		pyrt_manifest_entry e;
		char hex[PYRT_SHA256_HEX_LEN + 1];
		pyrt_manifest_get(m, i, &e, hex);
		if (fprintf(f, "%c\t%04o\t%" PRIu64 "\t%s\t%s\n", e.type,
			    e.mode, e.size, e.extra, e.path) < 0)
			return -1;
	}
	return fflush(f) == 0 ? 0 : -1;
}

/* fsync a directory so a rename in it survives a crash. */
static void manifest_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

/*
 * A temp file in the same directory (mkostemp creates it 0600), filled,
 * synced and renamed over path: readers see the old or the new manifest,
 * never a torn one.
 */
int pyrt_manifest_write(const pyrt_manifest *m, const char *path,
			pyrt_error *err)
{
	const char *base = NULL;
	char *dir = NULL, *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, rc = 0;

	if (!m || !path || !*path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "manifest write: no manifest or path");
	dir = manifest_dirname(path, &base);
	if (!dir || asprintf(&tmp, "%s/.%s.tmp-XXXXXX", dir, base) < 0) {
		tmp = NULL;
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot create a temp file in %s",
					  dir);
		free(tmp);
		tmp = NULL;
		goto cleanup;
	}
	/* 0644 like the tree it lists: every user of a shared box verifies. */
	f = fchmod(fd, 0644) == 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
		goto cleanup;
	}
	fd = -1;
	if (manifest_emit(m, f) != 0 || fsync(fileno(f)) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
		goto cleanup;
	}
	int cr = fclose(f);
	f = NULL;
	if (cr != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
		goto cleanup;
	}
	if (rename(tmp, path) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot rename %s to %s", tmp, path);
		goto cleanup;
	}
	free(tmp);
	tmp = NULL;
	manifest_sync_dir(dir);
cleanup:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	return rc;
}

/* ---- writing as entries are made ---- */

/*
 * The buffer keeps its last MANIFEST_WKEEP bytes when it flushes: digests
 * come from the hashing worker a few hundred small files behind, so their
 * lines are nearly always still here and a patch is a memcpy, not a
 * pwrite.  A line is at most MANIFEST_MAX_LINE, so one always fits after
 * a flush.
 */
#define MANIFEST_WBUF (128 * 1024)
#define MANIFEST_WKEEP (64 * 1024)
#define MANIFEST_PENDING '?'

struct pyrt_manifest_writer {
	int fd;
	char *path;        /* where commit puts it */
	char *tmp;         /* NULL once renamed */
	char *buf;         /* MANIFEST_WBUF */
	size_t blen;
	uint64_t flushed;  /* bytes in the file before buf[0] */
	size_t count;
	size_t pending;    /* files whose digest has not been given */
	uint64_t dev, ino; /* of the temp file */
};

uint64_t pyrt_manifest_writer_tell(const pyrt_manifest_writer *w)
{
	return w ? w->flushed + w->blen : 0;
}

size_t pyrt_manifest_writer_count(const pyrt_manifest_writer *w)
{
	return w ? w->count : 0;
}

int pyrt_manifest_writer_is_file(const pyrt_manifest_writer *w,
				 uint64_t dev, uint64_t ino)
{
	return w && w->dev == dev && w->ino == ino;
}

static int mw_write_all(int fd, const char *p, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Write all but the last keep bytes of the buffer; -1 with errno. */
static int mw_flush(pyrt_manifest_writer *w, size_t keep)
{
	if (w->blen <= keep)
		return 0;
	size_t out = w->blen - keep;
	if (mw_write_all(w->fd, w->buf, out, w->flushed) != 0)
		return -1;
	memmove(w->buf, w->buf + out, keep);
	w->blen = keep;
	w->flushed += out;
	return 0;
}

/* Copy len bytes at file position off out of the buffer or the file. */
static int mw_read_at(pyrt_manifest_writer *w, uint64_t off, char *out,
		      size_t len)
{
	uint64_t end = w->flushed + w->blen;
	if (off > end || len > end - off)
		return errno = EINVAL, -1;
	while (len > 0 && off < w->flushed) {
		size_t k = (size_t)(w->flushed - off) < len
			   ? (size_t)(w->flushed - off) : len;
		ssize_t n = pread(w->fd, out, k, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		out += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	if (len > 0)
		memcpy(out, w->buf + (off - w->flushed), len);
	return 0;
}

/* Overwrite len bytes at file position off, in the buffer or the file. */
static int mw_patch(pyrt_manifest_writer *w, uint64_t off, const char *p,
		    size_t len)
{
	if (off < w->flushed) {
		size_t k = (size_t)(w->flushed - off) < len
			   ? (size_t)(w->flushed - off) : len;
		if (mw_write_all(w->fd, p, k, off) != 0)
			return -1;
		p += k;
		off += k;
		len -= k;
	}
	if (len > 0)
		memcpy(w->buf + (off - w->flushed), p, len);
	return 0;
}

int pyrt_manifest_writer_open(pyrt_manifest_writer **out, const char *path,
			      pyrt_error *err)
{
	const char *base = NULL;
	struct stat st;
	*out = NULL;
	if (!path || !*path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "manifest writer: no path");
	pyrt_manifest_writer *w = calloc(1, sizeof *w);
	if (!w)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	w->fd = -1;
	char *dir = manifest_dirname(path, &base);
	char *tmp = NULL;
	if (!dir || asprintf(&tmp, "%s/.%s.tmp-XXXXXX", dir, base) < 0)
		tmp = NULL;
	free(dir);
	w->path = strdup(path);
	w->buf = malloc(MANIFEST_WBUF);
	if (!tmp || !w->path || !w->buf) {
		free(tmp);
		pyrt_manifest_writer_free(w);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	w->fd = mkostemp(tmp, O_CLOEXEC);
	if (w->fd < 0) {
		int rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					      "cannot create a temp file "
					      "beside %s", path);
		free(tmp);
		pyrt_manifest_writer_free(w);
		return rc;
	}
	w->tmp = tmp;
	if (fstat(w->fd, &st) != 0) {
		int rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					      "cannot stat %s", tmp);
		pyrt_manifest_writer_free(w);
		return rc;
	}
	w->dev = (uint64_t)st.st_dev;
	w->ino = (uint64_t)st.st_ino;
	*out = w;
	return 0;
}

/* Decimal digits of v into p (at most 20); their count. */
static size_t mw_u64(char *p, uint64_t v)
{
	char t[20];
	size_t n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

int pyrt_manifest_writer_add(pyrt_manifest_writer *w, char type,
			     unsigned int mode, uint64_t size,
			     const char *extra, const char *path,
			     uint64_t *at)
{
	int later = type == 'f' && !extra;
	if (!w || !type || !strchr("fdlh", type) || mode > 07777 ||
	    (!later && !manifest_field_ok(extra)) ||
	    !manifest_field_ok(path) ||
	    (type == 'f' && extra && strcmp(extra, "-") != 0 &&
	     !pyrt_sha256_hex_valid(extra)))
		return PYRT_E_INTERNAL;
	size_t plen = strlen(path);
	size_t elen = later ? PYRT_SHA256_HEX_LEN : strlen(extra);
	/* type, mode, size, extra, path; four tabs and a newline. */
	size_t len = 1 + 4 + 20 + elen + plen + 5;
	if (len >= MANIFEST_MAX_LINE)
		return PYRT_E_INTERNAL;
	if (MANIFEST_WBUF - w->blen < len && mw_flush(w, MANIFEST_WKEEP) != 0)
		return PYRT_E_IO;
	if (at)
		*at = w->flushed + w->blen;
	char *p = w->buf + w->blen;
	*p++ = type;
	*p++ = '\t';
	for (int i = 3; i >= 0; i--)
		*p++ = (char)('0' + ((mode >> (3 * i)) & 7));
	*p++ = '\t';
	p += mw_u64(p, size);
	*p++ = '\t';
	if (later)
		memset(p, MANIFEST_PENDING, elen);
	else
		memcpy(p, extra, elen);
	p += elen;
	*p++ = '\t';
	memcpy(p, path, plen);
	p += plen;
	*p++ = '\n';
	w->blen = (size_t)(p - w->buf);
	w->count++;
	w->pending += (size_t)later;
	return 0;
}

int pyrt_manifest_writer_set_digest(pyrt_manifest_writer *w, uint64_t at,
				    const unsigned char *digest)
{
	/* "f\t0644\t<size>\t": at most 28 bytes, then the digest. */
	char head[28 + PYRT_SHA256_HEX_LEN + 1];
	if (!w || !digest)
		return PYRT_E_INTERNAL;
	uint64_t end = w->flushed + w->blen;
	size_t len = at < end && end - at < sizeof head ? (size_t)(end - at)
							: sizeof head;
	if (at >= end || mw_read_at(w, at, head, len) != 0)
		return PYRT_E_INTERNAL;
	char *f = len > 7 && head[0] == 'f' ? memchr(head + 7, '\t', len - 7)
					    : NULL;
	if (!f || (size_t)(head + len - f) < PYRT_SHA256_HEX_LEN + 2 ||
	    f[1 + PYRT_SHA256_HEX_LEN] != '\t')
		return PYRT_E_INTERNAL;
	for (size_t i = 1; i <= PYRT_SHA256_HEX_LEN; i++)
		if (f[i] != MANIFEST_PENDING)
			return PYRT_E_INTERNAL; /* given already */
	char hex[PYRT_SHA256_HEX_LEN + 1];
	manifest_tohex(digest, hex);
	if (mw_patch(w, at + (uint64_t)(f + 1 - head), hex,
		     PYRT_SHA256_HEX_LEN) != 0)
		return PYRT_E_IO;
	w->pending--;
	return 0;
}

int pyrt_manifest_writer_set_mode(pyrt_manifest_writer *w, uint64_t at,
				  unsigned int mode)
{
	char head[7];
	if (!w || mode > 07777 || mw_read_at(w, at, head, sizeof head) != 0 ||
	    !strchr("fdlh", head[0]) || !head[0] || head[1] != '\t' ||
	    head[6] != '\t')
		return PYRT_E_INTERNAL;
	char digits[4];
	for (int i = 3; i >= 0; i--)
		digits[3 - i] = (char)('0' + ((mode >> (3 * i)) & 7));
	return mw_patch(w, at + 2, digits, sizeof digits) == 0 ? 0 : PYRT_E_IO;
}

int pyrt_manifest_writer_commit(pyrt_manifest_writer *w, pyrt_error *err)
{
	if (!w || !w->tmp)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "manifest writer: nothing to commit");
	if (w->pending)
		return pyrt_error_set(err, PYRT_E_INTERNAL, "manifest %s: "
				      "%zu file digests never came", w->path,
				      w->pending);
	/* 0644 like the tree it lists: every user of a shared box verifies. */
	if (mw_flush(w, 0) != 0 || fchmod(w->fd, 0644) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot write %s", w->tmp);
	int fd = w->fd;
	w->fd = -1;
	if (close(fd) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot write %s", w->tmp);
	if (rename(w->tmp, w->path) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot rename %s to %s", w->tmp,
					    w->path);
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

void pyrt_manifest_writer_free(pyrt_manifest_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w->buf);
	free(w);
}

/* Parse an unsigned number in base; the whole string must be digits. */
static int manifest_parse_u64(const char *s, int base, uint64_t *out)
{
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A manifest path must stay inside the install: relative, no "..". */
static int manifest_path_ok(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *c = p; *c;) {
		size_t len = strcspn(c, "/");
		if (len == 2 && c[0] == '.' && c[1] == '.')
			return 0;
		c += len;
		if (*c == '/')
			c++;
	}
	return 1;
}

/* Parse one line (without its newline) into m; a message on failure. */
static int manifest_parse_line(pyrt_manifest *m, char *line,
			       const char **why)
{
	char *f[5];
	char *p = line;
	for (int i = 0; i < 4; i++) {
		char *tab = strchr(p, '\t');
		if (!tab) {
			*why = "expected 5 tab-separated fields";
			return PYRT_E_IO;
		}
		*tab = '\0';
		f[i] = p;
		p = tab + 1;
	}
	f[4] = p;
	uint64_t mode = 0, size = 0;
	if (strlen(f[0]) != 1 || !strchr("fdlh", f[0][0])) {
		*why = "unknown entry type";
		return PYRT_E_IO;
	}
	if (manifest_parse_u64(f[1], 8, &mode) != 0 || mode > 07777) {
		*why = "bad mode";
		return PYRT_E_IO;
	}
	if (manifest_parse_u64(f[2], 10, &size) != 0) {
		*why = "bad size";
		return PYRT_E_IO;
	}
	if (!*f[3] || !manifest_path_ok(f[4])) {
		*why = "bad target or path";
		return PYRT_E_IO;
	}
	/* A file's digest is 64 hex digits or "-" (extracted without
	 * hashing); a directory has none.  Anything else was changed. */
	int dash = strcmp(f[3], "-") == 0;
	if ((f[0][0] == 'f' && !dash && !pyrt_sha256_hex_valid(f[3])) ||
	    (f[0][0] == 'd' && !dash)) {
		*why = "bad digest";
		return PYRT_E_IO;
	}
	int rc = pyrt_manifest_add(m, f[0][0], (unsigned int)mode, size, f[3],
				   f[4]);
	if (rc == PYRT_E_NOMEM)
		*why = "out of memory";
	else if (rc)
		*why = "bad field";
	return rc == PYRT_E_NOMEM ? rc : rc ? PYRT_E_IO : 0;
}

/* One read of a manifest file: where it is, what has been seen. */
typedef struct mload {
	const char *path;
	int fd;
	pyrt_manifest *m;     /* NULL: bytes only */
	pyrt_sha256 *sha;
	char *buf;            /* MANIFEST_MAX_LINE + MANIFEST_READ_BUF */
	size_t have;          /* bytes of an unfinished line at buf */
	uint64_t total;
	unsigned long lineno;
	pyrt_error *err;
} mload;

/* Refuse a manifest that could not be one before reading it. */
static int mload_check_size(mload *l)
{
	struct stat st;
	if (fstat(l->fd, &st) != 0)
		return pyrt_error_set_errno(l->err, PYRT_E_IO, errno,
					    "cannot stat %s", l->path);
	if ((uint64_t)st.st_size > PYRT_MANIFEST_MAX_BYTES)
		return pyrt_error_set(l->err, PYRT_E_IO,
				      "manifest %s is %llu bytes, more than a "
				      "manifest may have (%llu)", l->path,
				      (unsigned long long)st.st_size,
				      (unsigned long long)PYRT_MANIFEST_MAX_BYTES);
	return 0;
}

/* One complete line (newline replaced by NUL, len without it). */
static int mload_line(mload *l, char *line, size_t len)
{
	const char *why = NULL;
	l->lineno++;
	if (l->lineno > PYRT_MANIFEST_MAX_ENTRIES)
		why = "more entries than a manifest may have";
	else if (len >= MANIFEST_MAX_LINE)
		why = "line too long";
	else if (memchr(line, '\0', len))
		why = "holds a NUL byte";
	if (why)
		return pyrt_error_set(l->err, PYRT_E_IO,
				      "manifest %s line %lu: %s", l->path,
				      l->lineno, why);
	if (!l->m)
		return 0;
	int rc = manifest_parse_line(l->m, line, &why);
	if (rc)
		return pyrt_error_set(l->err, rc, "manifest %s line %lu: %s",
				      l->path, l->lineno, why);
	return 0;
}

/* Every complete line in the buffer; what is left moves to its start. */
static int mload_lines(mload *l)
{
	size_t start = 0;
	char *nl;
	while ((nl = memchr(l->buf + start, '\n', l->have - start))) {
		*nl = '\0';
		int rc = mload_line(l, l->buf + start,
				    (size_t)(nl - (l->buf + start)));
		if (rc)
			return rc;
		start = (size_t)(nl - l->buf) + 1;
	}
	memmove(l->buf, l->buf + start, l->have - start);
	l->have -= start;
	if (l->have >= MANIFEST_MAX_LINE)
		return pyrt_error_set(l->err, PYRT_E_IO,
				      "manifest %s line %lu: line too long",
				      l->path, l->lineno + 1);
	return 0;
}

/* Read to the end in chunks: memory stays bounded whatever the file. */
static int mload_run(mload *l)
{
	int rc = mload_check_size(l);
	for (;;) {
		if (rc)
			return rc;
		ssize_t n = read(l->fd, l->buf + l->have, MANIFEST_READ_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pyrt_error_set_errno(l->err, PYRT_E_IO, errno,
						    "cannot read manifest %s",
						    l->path);
		if (n == 0)
			break;
		l->total += (uint64_t)n;
		if (l->total > PYRT_MANIFEST_MAX_BYTES)
			return pyrt_error_set(l->err, PYRT_E_IO,
					      "manifest %s is larger than a "
					      "manifest may be", l->path);
		pyrt_sha256_update(l->sha, l->buf + l->have, (size_t)n);
		l->have += (size_t)n;
		rc = mload_lines(l);
	}
	if (l->have)
		return pyrt_error_set(l->err, PYRT_E_IO,
				      "manifest %s line %lu: truncated (no "
				      "newline at the end)", l->path,
				      l->lineno + 1);
	return 0;
}

int pyrt_manifest_load(pyrt_manifest **out, const char *path,
		       char digest[PYRT_SHA256_HEX_LEN + 1], pyrt_error *err)
{
	mload l = { .path = path, .fd = -1, .err = err };
	char hex[PYRT_SHA256_HEX_LEN + 1];
	int rc = 0;

	if (out)
		*out = NULL;
	l.fd = pyrt_fs_open_state(path, O_RDONLY, 0, err);
	if (l.fd < 0)
		return l.fd;
	rc = pyrt_sha256_ready(err);
	if (rc)
		goto cleanup;
	l.sha = pyrt_sha256_new();
	l.buf = malloc(MANIFEST_MAX_LINE + MANIFEST_READ_BUF);
	l.m = out ? pyrt_manifest_new() : NULL;
	if (!l.sha || !l.buf || (out && !l.m)) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	rc = mload_run(&l);
	if (!rc && pyrt_sha256_final_hex(l.sha, hex) != 0)
		rc = pyrt_error_set(err, PYRT_E_INTERNAL, "SHA-256 failed");
	if (rc)
		goto cleanup;
	if (digest)
		memcpy(digest, hex, sizeof hex);
	if (out) {
		*out = l.m;
		l.m = NULL;
	}
cleanup:
	close(l.fd);
	pyrt_sha256_free(l.sha);
	free(l.buf);
	pyrt_manifest_free(l.m);
	return rc;
}

int pyrt_manifest_read(pyrt_manifest **out, const char *path, pyrt_error *err)
{
	return pyrt_manifest_load(out, path, NULL, err);
}

/* ---- verification ---- */

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

int pyrt_manifest_is_cache(const char *path)
{
	for (const char *c = path; *c;) {
		size_t len = strcspn(c, "/");
		if (len == 11 && memcmp(c, "__pycache__", 11) == 0)
			return 1;
		if (!c[len] && (ends_with(c, len, ".pyc") ||
				ends_with(c, len, ".pyo")))
			return 1;
		c += len;
		if (*c == '/')
			c++;
	}
	return 0;
}

size_t pyrt_manifest_checked_count(const pyrt_manifest *m)
{
	size_t n = 0;
	for (size_t i = 0; m && i < m->n; i++)
		if (!pyrt_manifest_is_cache(manifest_str(m, m->v[i].path)))
			n++;
	return n;
}

/* The state of one verify run: the open root and the last parent opened. */
typedef struct verify_ctx {
	int rootfd;
	char *cache_dir; /* relative dir whose fd is cache_fd; NULL: none */
	int cache_fd;
	pyrt_sha256 *sha;
	unsigned char *buf;
	void (*on_problem)(const char *, const char *, void *);
	void *payload;
	int problems;
	/* The files reported (caches are checked after them): a cache
	 * whose source is one of them is not reported again. */
	char **reported;
	size_t nreported, capreported;
} verify_ctx;

static void verify_problem(verify_ctx *v, const char *path, const char *fmt,
			   ...) __attribute__((format(printf, 3, 4)));

/* Report one mismatch to the caller and count it. */
static void verify_problem(verify_ctx *v, const char *path, const char *fmt,
			   ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	pyrt_fmt_vtext(what, sizeof what, fmt, ap);
	va_end(ap);
	v->problems++;
	if (v->on_problem)
		v->on_problem(path, what, v->payload);
	if (v->nreported == v->capreported) {
		size_t cap = v->capreported ? v->capreported * 2 : 16;
		char **grown = realloc(v->reported, cap * sizeof *grown);
		if (!grown)
			return; /* then a cache may be named beside its source */
		v->reported = grown;
		v->capreported = cap;
	}
	if ((v->reported[v->nreported] = strdup(path)))
		v->nreported++;
}

/* Whether path was reported already. */
static int verify_reported(const verify_ctx *v, const char *path)
{
	for (size_t i = 0; i < v->nreported; i++)
		if (strcmp(v->reported[i], path) == 0)
			return 1;
	return 0;
}

/*
 * Open the directory dir (relative to the root) one component at a time,
 * never following a symlink.  Returns a new fd, or -1 with errno set
 * (ELOOP/ENOTDIR when a component is a symlink or not a directory).
 */
static int verify_open_dir(int rootfd, const char *dir)
{
	int cur = dup(rootfd);
	const char *c = dir;
	while (cur >= 0 && *c) {
		size_t len = strcspn(c, "/");
		char comp[NAME_MAX + 1];
		if (len > NAME_MAX) {
			close(cur);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, c, len);
		comp[len] = '\0';
		c += len;
		while (*c == '/')
			c++;
		if (len == 0 || strcmp(comp, ".") == 0)
			continue;
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY |
					     O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(cur);
		errno = saved;
		cur = next;
	}
	return cur;
}

/* The parent directory fd of path (borrowed, cached), and its leaf name. */
static int verify_parent(verify_ctx *v, const char *path, const char **leaf)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	*leaf = slash ? slash + 1 : path;
	if (v->cache_dir && strlen(v->cache_dir) == dlen &&
	    memcmp(v->cache_dir, path, dlen) == 0)
		return v->cache_fd;
	char *dir = strndup(path, dlen);
	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	int fd = verify_open_dir(v->rootfd, dir);
	if (fd < 0) {
		int saved = errno;
		free(dir);
		errno = saved;
		return -1;
	}
	if (v->cache_fd >= 0)
		close(v->cache_fd);
	free(v->cache_dir);
	v->cache_dir = dir;
	v->cache_fd = fd;
	return fd;
}

static const char *verify_type_name(mode_t m)
{
	if (S_ISREG(m))
		return "a file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symlink";
	return "a special file";
}

static const char *verify_expected_name(char type)
{
	switch (type) {
	case 'd': return "a directory";
	case 'l': return "a symlink";
	default: return "a file";
	}
}

/* Hash the regular file leaf in dirfd; 0, or -1 with errno set. */
static int verify_hash(verify_ctx *v, int dirfd, const char *leaf,
		       const struct stat *expect,
		       char hex[PYRT_SHA256_HEX_LEN + 1])
{
	int fd = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
					     O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_ino != expect->st_ino ||
	    st.st_dev != expect->st_dev) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, v->buf, MANIFEST_READ_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		pyrt_sha256_update(v->sha, v->buf, (size_t)n);
	}
	close(fd);
	return pyrt_sha256_final_hex(v->sha, hex) == 0 ? 0 : -1;
}

/* Content and size of a regular file entry. */
static void verify_file(verify_ctx *v, const pyrt_manifest_entry *e,
			int dirfd, const char *leaf, const struct stat *st)
{
	if ((uint64_t)st->st_size != e->size) {
		verify_problem(v, e->path, "size %" PRIu64 ", expected "
			       "%" PRIu64, (uint64_t)st->st_size, e->size);
		return;
	}
	if (!pyrt_sha256_hex_valid(e->extra))
		return; /* extracted without hashing: size is all we know */
	char hex[PYRT_SHA256_HEX_LEN + 1];
	if (verify_hash(v, dirfd, leaf, st, hex) != 0) {
		verify_problem(v, e->path, "cannot read: %s", strerror(errno));
		return;
	}
	if (!pyrt_sha256_hex_equal(hex, e->extra))
		verify_problem(v, e->path, "content changed (sha256 differs)");
}

/* A hardlink entry must share the inode of its target. */
static void verify_hardlink(verify_ctx *v, const pyrt_manifest_entry *e,
			    const struct stat *st)
{
	const char *slash = strrchr(e->extra, '/');
	const char *tleaf = slash ? slash + 1 : e->extra;
	char *tdir = strndup(e->extra, slash ? (size_t)(slash - e->extra) : 0);
	int tfd = tdir ? verify_open_dir(v->rootfd, tdir) : -1;
	struct stat tst;
	int ok = tfd >= 0 &&
		 fstatat(tfd, tleaf, &tst, AT_SYMLINK_NOFOLLOW) == 0 &&
		 S_ISREG(tst.st_mode) && tst.st_ino == st->st_ino &&
		 tst.st_dev == st->st_dev;
	if (tfd >= 0)
		close(tfd);
	free(tdir);
	if (!ok)
		verify_problem(v, e->path, "no longer a hard link to %s",
			       e->extra);
	else if ((uint64_t)st->st_size != e->size)
		verify_problem(v, e->path, "size %" PRIu64 ", expected "
			       "%" PRIu64, (uint64_t)st->st_size, e->size);
}

/* A symlink entry must still point where it did. */
static void verify_symlink(verify_ctx *v, const pyrt_manifest_entry *e,
			   int dirfd, const char *leaf)
{
	char target[PATH_MAX + 1];
	ssize_t n = readlinkat(dirfd, leaf, target, sizeof target - 1);
	if (n < 0) {
		verify_problem(v, e->path, "cannot read link: %s",
			       strerror(errno));
		return;
	}
	target[n] = '\0';
	if (strcmp(target, e->extra) != 0)
		verify_problem(v, e->path, "symlink target '%s', expected '%s'",
			       target, e->extra);
}

/* Check one entry; mismatches go to on_problem. */
static void verify_entry(verify_ctx *v, const pyrt_manifest_entry *e)
{
	const char *leaf = NULL;
	if (!manifest_path_ok(e->path)) {
		verify_problem(v, e->path, "path leaves the install");
		return;
	}
	int dirfd = verify_parent(v, e->path, &leaf);
	if (dirfd < 0) {
		if (errno == ENOENT)
			verify_problem(v, e->path, "missing");
		else if (errno == ELOOP || errno == ENOTDIR)
			verify_problem(v, e->path, "a parent directory was "
				       "replaced by a symlink or a file");
		else
			verify_problem(v, e->path, "cannot open parent: %s",
				       strerror(errno));
		return;
	}
	struct stat st;
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			verify_problem(v, e->path, "missing");
		else
			verify_problem(v, e->path, "cannot stat: %s",
				       strerror(errno));
		return;
	}
	int is_file = e->type == 'f' || e->type == 'h';
	int type_ok = (e->type == 'd' && S_ISDIR(st.st_mode)) ||
		      (e->type == 'l' && S_ISLNK(st.st_mode)) ||
		      (is_file && S_ISREG(st.st_mode));
	if (!type_ok) {
		verify_problem(v, e->path, "is %s, expected %s",
			       verify_type_name(st.st_mode),
			       verify_expected_name(e->type));
		return;
	}
	if ((st.st_mode & 07777) != e->mode)
		verify_problem(v, e->path, "mode %04o, expected %04o",
			       (unsigned)(st.st_mode & 07777), e->mode);
	if (e->type == 'f')
		verify_file(v, e, dirfd, leaf, &st);
	else if (e->type == 'h')
		verify_hardlink(v, e, &st);
	else if (e->type == 'l')
		verify_symlink(v, e, dirfd, leaf);
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/*
 * Whether the timestamp cache leaf (open as fd, its header in head) records
 * its source's mtime and size, as CPython checks before it runs one: the
 * source is ../NAME.py for __pycache__/NAME.TAG.pyc, NAME.py beside a
 * legacy NAME.pyc.  A __pycache__ cache without its source is never run;
 * a legacy one without it runs as it is, so it fails.
 */
static int cache_fits_source(const verify_ctx *v, int dirfd, const char *path,
			     const char *leaf, const unsigned char *head)
{
	char src[NAME_MAX + 8], rel[PATH_MAX];
	size_t dlen = (size_t)(leaf - path);
	int in_cache = dlen >= 12 &&
		       memcmp(leaf - 12, "__pycache__/", 12) == 0 &&
		       (dlen == 12 || leaf[-13] == '/');
	size_t name = in_cache ? strcspn(leaf, ".") : strlen(leaf) - 1;
	if (name == 0 || name > NAME_MAX)
		return 0;
	if (pyrt_fmt_path(src, sizeof src, NULL, "%s%.*s%s",
			  in_cache ? "../" : "", (int)name, leaf,
			  in_cache ? ".py" : "") != 0)
		return 0;
	/* A source named changed already: its line has the fix for both. */
	if (pyrt_fmt_path(rel, sizeof rel, NULL, "%.*s%.*s%s",
			  (int)(in_cache ? dlen - 12 : dlen), path, (int)name,
			  leaf, in_cache ? ".py" : "") != 0)
		return 0;
	if (verify_reported(v, rel))
		return 1;
	struct stat st;
	if (fstatat(dirfd, src, &st, 0) != 0 || !S_ISREG(st.st_mode))
		return in_cache;
	return le32(head + 8) == (uint32_t)st.st_mtime &&
	       le32(head + 12) == (uint32_t)st.st_size;
}

/* A bytecode cache the archive shipped (issue 26, door 5): the bytes
 * shipped, or a timestamp cache (PEP 552 flags 0) that records its
 * source's mtime and size — CPython runs a timestamp cache only then, and
 * rewrites a stale one (as after extraction), so such a rewrite is
 * routine.  A hash-based one that changed is refused, since an unchecked
 * one (check_source=0) runs without a look at the source, and so is a
 * timestamp one that no longer fits its source: not what CPython wrote
 * from it. */
static void verify_cache(verify_ctx *v, const pyrt_manifest_entry *e)
{
	const char *leaf = NULL;
	size_t plen = strlen(e->path);
	if (e->type != 'f' || plen < 4 || strcmp(e->path + plen - 4, ".pyc") ||
	    !manifest_path_ok(e->path))
		return;
	int dirfd = verify_parent(v, e->path, &leaf);
	struct stat st;
	if (dirfd < 0 || fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return; /* a cache gone is only a slower start */
	if (!S_ISREG(st.st_mode)) {
		verify_problem(v, e->path, "is %s, expected a bytecode cache",
			       verify_type_name(st.st_mode));
		return;
	}
	char hex[PYRT_SHA256_HEX_LEN + 1];
	if (pyrt_sha256_hex_valid(e->extra) &&
	    (uint64_t)st.st_size == e->size &&
	    verify_hash(v, dirfd, leaf, &st, hex) == 0 &&
	    pyrt_sha256_hex_equal(hex, e->extra))
		return;
	unsigned char head[16];
	int fd = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
			O_NONBLOCK);
	ssize_t n = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
	if (fd >= 0)
		close(fd);
	if (n == (ssize_t)sizeof head && le32(head + 4) != 0)
		verify_problem(v, e->path, "a hash-based bytecode cache that "
			       "changed — not the cache the archive shipped, "
			       "and CPython may run it without checking its "
			       "source; remove it (CPython rebuilds it) or run "
			       "pyrt install --force");
	else if (n != (ssize_t)sizeof head ||
		 !cache_fits_source(v, dirfd, e->path, leaf, head))
		verify_problem(v, e->path, "a timestamp bytecode cache that "
			       "changed and does not record its source's "
			       "mtime and size — not the cache the archive "
			       "shipped, nor one CPython wrote from the "
			       "source; remove it (CPython rebuilds it) or run "
			       "pyrt install --force");
}

int pyrt_manifest_verify(const pyrt_manifest *m, const char *root,
			 void (*on_problem)(const char *path, const char *what,
					    void *payload),
			 void *payload, pyrt_error *err)
{
	verify_ctx v = { .rootfd = -1, .cache_fd = -1,
			 .on_problem = on_problem, .payload = payload };
	int rc = 0;

	if (!m || !root)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "manifest verify: no manifest or root");
	v.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.rootfd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", root);
	rc = pyrt_sha256_ready(err);
	if (rc)
		goto cleanup;
	v.sha = pyrt_sha256_new();
	v.buf = malloc(MANIFEST_READ_BUF);
	if (!v.sha || !v.buf) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	/* Files first, then the caches, which may defer to their sources. */
	for (int caches = 0; caches <= 1; caches++) {
		for (size_t i = 0; i < m->n; i++) {
			pyrt_manifest_entry e;
			char hex[PYRT_SHA256_HEX_LEN + 1];
			pyrt_manifest_get(m, i, &e, hex);
			if (pyrt_manifest_is_cache(e.path) != caches)
				continue;
			if (caches)
				verify_cache(&v, &e);
			else
				verify_entry(&v, &e);
		}
	}
	rc = v.problems;
cleanup:
	for (size_t i = 0; i < v.nreported; i++)
		free(v.reported[i]);
	free(v.reported);
	if (v.cache_fd >= 0)
		close(v.cache_fd);
	free(v.cache_dir);
	close(v.rootfd);
	pyrt_sha256_free(v.sha);
	free(v.buf);
	return rc;
}
