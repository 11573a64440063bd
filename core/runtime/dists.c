/*
 * Installed distributions as importlib.metadata finds them (see dists.h).
 * Python's lookup (importlib.metadata's FastPath/Lookup) is followed
 * step by step; where C could only approximate it, the answer is -1.
 */
#include "core/runtime/dists.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runtime/dists_memo.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/os.h"
#include "core/util/requirement.h"

#define METADATA_MAX (1024 * 1024)
#define RECORD_MAX (8 * 1024 * 1024)
#define ENTRIES_MAX 100000

typedef enum dir_state { DIR_UNREAD, DIR_ABSENT, DIR_OK, DIR_BAD } dir_state;

typedef struct entry {
	char *norm;  /* the name importlib files it under */
	char *raw;   /* the directory entry */
	int egg;     /* .egg-info: not read here */
	int known_whole; /* with a memo: found whole by this reader */
	int meta_state;  /* with a memo: 1 meta read once, -1 unreadable */
	pyrt_dists_meta meta;
} entry;

typedef struct site_dir {
	char *rel;
	dir_state state;
	int fd;         /* the reader's (opened), -1 until needed */
	entry *e;
	size_t n, cap;
	pyrt_dists_memo *memo;  /* the reader's, or NULL */
	int memo_site;          /* this folder in it (dists_memo.h) */
} site_dir;

/* A folder on the way to the search path's folders, opened once. */
typedef struct opened_dir {
	char *rel;
	int fd;
} opened_dir;

struct pyrt_dists {
	char *prefix;
	int prefix_fd;  /* prefix, opened at the first folder read */
	site_dir *dirs;
	size_t n;
	pyrt_dists_memo *memo;
	opened_dir *opened;     /* every folder opened, each once */
	size_t nopened;
};

pyrt_dists *pyrt_dists_new(const char *prefix, const char *const *rel,
			   size_t n)
{
	pyrt_dists *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->prefix_fd = -1;
	d->prefix = strdup(prefix);
	d->dirs = calloc(n ? n : 1, sizeof *d->dirs);
	if (!d->prefix || !d->dirs) {
		pyrt_dists_free(d);
		return NULL;
	}
	for (; d->n < n; d->n++) {
		d->dirs[d->n].fd = -1;
		if (!(d->dirs[d->n].rel = strdup(rel[d->n]))) {
			pyrt_dists_free(d);
			return NULL;
		}
	}
	return d;
}

pyrt_dists *pyrt_dists_for_install(const char *install_dir,
				   const pyrt_marker *m)
{
	if (!m->search_path_known)
		return NULL;
	const char *rel[PYRT_MARKER_SEARCH_MAX];
	for (int i = 0; i < m->search_path_count; i++)
		rel[i] = m->search_path[i];
	char prefix[4200];
	if (snprintf(prefix, sizeof prefix, "%s/python", install_dir) >=
	    (int)sizeof prefix)
		return NULL;
	return pyrt_dists_new(prefix, rel, (size_t)m->search_path_count);
}

void pyrt_dists_free(pyrt_dists *d)
{
	if (!d)
		return;
	pyrt_dists_memo_free(d->memo); /* while the folders are open */
	for (size_t i = 0; i < d->n; i++) {
		site_dir *s = &d->dirs[i];
		for (size_t j = 0; j < s->n; j++) {
			free(s->e[j].norm);
			free(s->e[j].raw);
			if (s->e[j].meta_state == 1) /* 2: the memo's */
				pyrt_dists_meta_clear(&s->e[j].meta);
		}
		free(s->e);
		free(s->rel);
	}
	for (size_t i = 0; i < d->nopened; i++) {
		free(d->opened[i].rel);
		close(d->opened[i].fd);
	}
	free(d->opened);
	free(d->dirs);
	free(d->prefix);
	if (d->prefix_fd >= 0)
		close(d->prefix_fd);
	free(d);
}

int pyrt_dists_keep_memo(pyrt_dists *d, const char *cache_dir)
{
	if (!d || d->memo)
		return d ? 0 : -1;
	for (size_t i = 0; i < d->n; i++)
		if (d->dirs[i].state != DIR_UNREAD)
			return -1; /* only before the first look */
	d->memo = pyrt_dists_memo_new(cache_dir);
	return d->memo ? 0 : -1;
}

/* importlib's Prepared.normalize: runs of '-', '_', '.' become one '_',
 * lowercase.  NULL when out of memory or the name is not ASCII (Python
 * lowercases Unicode: not decided here). */
static char *normalize(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	if (out && pyrt_name_normalize(s, n, '_', out) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static int ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n > k && strncasecmp(s + n - k, suffix, k) == 0;
}

/* One directory entry: kept when it is a dist-info or egg-info.  0, or -1
 * (no memory, or a name C cannot normalise as Python does). */
static int dir_add(site_dir *s, const char *name)
{
	size_t n = strlen(name);
	/* pip's stash of what it was uninstalling ("~ython_docx-1.0.dist-info"):
	 * not a distribution, and no requirement's name starts with '~'. */
	if (name[0] == '~')
		return 0;
	int egg = ends_with_ci(name, n, ".egg-info");
	if (!egg && !ends_with_ci(name, n, ".dist-info"))
		return 0;
	/* low.rpartition(".")[0].partition("-")[0] */
	size_t stem = n - (egg ? 9 : 10);
	size_t dash = strcspn(name, "-");
	if (dash < stem)
		stem = dash;
	if (s->n == s->cap) {
		if (s->n >= ENTRIES_MAX)
			return -1;
		size_t cap = s->cap ? s->cap * 2 : 16;
		entry *e = realloc(s->e, cap * sizeof *e);
		if (!e)
			return -1;
		s->e = e;
		s->cap = cap;
	}
	entry *e = &s->e[s->n];
	e->egg = egg;
	e->known_whole = 0;
	e->meta_state = 0;
	memset(&e->meta, 0, sizeof e->meta);
	e->norm = normalize(name, stem);
	e->raw = strdup(name);
	if (!e->norm || !e->raw) {
		free(e->norm);
		free(e->raw);
		return -1;
	}
	s->n++;
	return 0;
}


/* The folder rel[0..len) opened before by this reader, or -1. */
static int opened_find(const pyrt_dists *d, const char *rel, size_t len)
{
	for (size_t i = 0; i < d->nopened; i++)
		if (strlen(d->opened[i].rel) == len &&
		    memcmp(d->opened[i].rel, rel, len) == 0)
			return d->opened[i].fd;
	return -1;
}

/* fd, the folder rel[0..len), kept (closed at pyrt_dists_free): fd, or -1
 * (closed) when out of memory. */
static int opened_keep(pyrt_dists *d, const char *rel, size_t len, int fd)
{
	opened_dir *v = realloc(d->opened, (d->nopened + 1) * sizeof *v);
	char *copy = v ? strndup(rel, len) : NULL;
	if (v)
		d->opened = v;
	if (!copy) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	d->opened[d->nopened++] = (opened_dir){ copy, fd };
	return fd;
}

/*
 * The search-path folder rel walked as pyrt_fs_open_dir_nofollow_at does
 * (one component at a time, O_NOFOLLOW, the same errors in the same
 * order), every folder on the way opened once per reader: the folder
 * holding rel's last component, whose name goes to leaf; -1 with errno
 * and *absent as that walk sets them.  rel "" gives the prefix and "".
 */
static int walk_parent(pyrt_dists *d, const char *rel, char *leaf,
		       int *absent)
{
	*absent = 0;
	leaf[0] = '\0';
	if (d->prefix_fd < 0)
		d->prefix_fd = pyrt_fs_open_dir_nofollow(d->prefix, "", absent);
	int fd = d->prefix_fd;
	for (const char *p = rel; fd >= 0 && *p;) {
		size_t n = strcspn(p, "/");
		if (!n || n > NAME_MAX) {
			errno = n ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		const char *next = p + n + (p[n] == '/');
		if (!*next) {
			memcpy(leaf, p, n);
			leaf[n] = '\0';
			return fd;
		}
		size_t upto = (size_t)(p + n - rel);
		int have = opened_find(d, rel, upto);
		if (have < 0) {
			memcpy(leaf, p, n);
			leaf[n] = '\0';
			have = openat(fd, leaf, O_RDONLY | O_DIRECTORY |
					  O_NOFOLLOW | O_CLOEXEC);
			leaf[0] = '\0';
			if (have >= 0)
				have = opened_keep(d, rel, upto, have);
		}
		fd = have;
		p = next;
	}
	if (fd < 0 && errno == ENOENT)
		*absent = 1;
	return fd;
}

/* The folder leaf of parent, the search-path folder rel, opened (kept by
 * the reader): the descriptor, or -1 with errno and *absent. */
static int open_leaf(pyrt_dists *d, int parent, const char *rel,
		     const char *leaf, int *absent)
{
	*absent = 0;
	if (!leaf[0])
		return parent; /* rel "": the prefix itself */
	size_t len = strlen(rel);
	while (len && rel[len - 1] == '/')
		len--;
	int fd = opened_find(d, rel, len);
	if (fd >= 0)
		return fd;
	fd = openat(parent, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				  O_CLOEXEC);
	if (fd < 0) {
		*absent = errno == ENOENT;
		return -1;
	}
	return opened_keep(d, rel, len, fd);
}

/* The entries of the folder open as fd into s; 0 or -1.  From its start:
 * the reader keeps one descriptor per folder, and a folder named twice on
 * the path is listed twice, as Python does. */
static int dir_list(site_dir *s, int fd)
{
	char buf[16384];
	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	for (;;) {
		ssize_t got = getdents64(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -1 : 0;
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const void *)(buf + off);
			if (dir_add(s, de->d_name) != 0)
				return -1;
			off += de->d_reclen;
		}
	}
}

/* The entries remembered for a folder into s; 0 or -1. */
static int dir_list_memo(site_dir *s, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (dir_add(s, names[i]) != 0)
			return -1;
	return 0;
}

/* s's listing remembered (dists_memo.h), for a folder the memo says holds
 * idx: 1 when it holds (s filled, and s->fd open unless it lists
 * nothing), 0 when not (s->fd opened, *sb its stat, *have_sb), -1 (s's
 * state set). */
static int dir_from_memo(pyrt_dists *d, site_dir *s, int idx, int parent,
			 const char *leaf, struct stat *sb, int *have_sb)
{
	char *const *names = NULL;
	size_t n = 0;
	int absent = 0;
	long listed = pyrt_dists_memo_listed(d->memo, idx);
	*have_sb = 0;
	/* A folder that lists nothing: one fstatat, never opened. */
	if (listed == 0 && leaf[0] &&
	    fstatat(parent, leaf, sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    pyrt_dists_memo_listing(d->memo, idx, sb, &names, &n))
		return 1;
	s->fd = open_leaf(d, parent, s->rel, leaf, &absent);
	if (s->fd < 0) {
		s->state = absent ? DIR_ABSENT : DIR_BAD;
		return -1;
	}
	*have_sb = fstat(s->fd, sb) == 0;
	if (!*have_sb || listed <= 0 ||
	    !pyrt_dists_memo_listing(d->memo, idx, sb, &names, &n))
		return 0;
	if (dir_list_memo(s, names, n) != 0)
		return -1;
	return 1;
}

/* The names of s's entries, for the memo; NULL when out of memory. */
static const char **dir_names(const site_dir *s)
{
	const char **v = malloc((s->n ? s->n : 1) * sizeof *v);
	for (size_t i = 0; v && i < s->n; i++)
		v[i] = s->e[i].raw;
	return v;
}

/* List directory s once: every folder on the way opened once per reader;
 * with a memo, a folder as remembered is not listed again. */
static void dir_read(pyrt_dists *d, site_dir *s)
{
	size_t n = strlen(s->rel);
	int absent = 0, idx = -1, have_sb = 0;
	char leaf[NAME_MAX + 1], abs[PATH_MAX];
	struct stat sb;
	s->state = DIR_BAD;
	s->memo_site = -1;
	/* An *.egg directory on the path is searched for EGG-INFO: Python's. */
	if (ends_with_ci(s->rel, n, ".egg"))
		return;
	int parent = walk_parent(d, s->rel, leaf, &absent);
	if (parent < 0) {
		s->state = absent ? DIR_ABSENT : DIR_BAD;
		return;
	}
	if (d->memo && pyrt_fmt_path(abs, sizeof abs, NULL, "%s/%s",
				     d->prefix, s->rel) == 0)
		idx = pyrt_dists_memo_folder(d->memo, abs);
	int rc = idx >= 0 ? dir_from_memo(d, s, idx, parent, leaf, &sb,
					  &have_sb) : 0;
	if (rc < 0)
		return;
	if (rc == 0) {
		if (s->fd < 0)
			s->fd = open_leaf(d, parent, s->rel, leaf, &absent);
		if (s->fd < 0) {
			s->state = absent ? DIR_ABSENT : DIR_BAD;
			return;
		}
		if (dir_list(s, s->fd) != 0)
			return;
		const char **names = have_sb ? dir_names(s) : NULL;
		if (names)
			pyrt_dists_memo_put_listing(d->memo, idx, &sb, names,
						    s->n);
		free(names);
	}
	s->state = DIR_OK;
	if (idx < 0)
		return;
	s->memo = d->memo;
	s->memo_site = s->fd >= 0 ? pyrt_dists_memo_site(d->memo, abs, s->fd)
		       : idx;
}

/* s's descriptor, opened now when its listing came from the memo; -1. */
static int site_fd(pyrt_dists *d, site_dir *s)
{
	char leaf[NAME_MAX + 1];
	int absent;
	if (s->fd >= 0 || s->state != DIR_OK)
		return s->fd;
	int parent = walk_parent(d, s->rel, leaf, &absent);
	if (parent >= 0)
		s->fd = open_leaf(d, parent, s->rel, leaf, &absent);
	return s->fd;
}

/* Bytes that are not UTF-8 make Python's read_text raise: not ours. */
static int utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2
			   : (c >> 3) == 30 ? 3 : 9;
		if (k == 9 || i + k >= n + (k ? 0 : 1))
			return 0;
		unsigned long cp = k == 0 ? c : k == 1 ? c & 0x1f
				   : k == 2 ? c & 0x0f : c & 0x07;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += k + 1;
	}
	return 1;
}

/* The one Version header of a METADATA header block (up to the first
 * empty line); 0, or -1 when the block is not plainly "Name: value"
 * lines, Version is absent, repeated, continued or not a plain token. */
static int header_version(const char *text, size_t len, char *version,
			  size_t vlen)
{
	int found = 0, in_version = 0;
	for (const char *l = text; l < text + len;) {
		const char *end = memchr(l, '\n', (size_t)(text + len - l));
		size_t n = end ? (size_t)(end - l) : (size_t)(text + len - l);
		if (!n)
			break;
		if (memchr(l, '\r', n))
			return -1;
		if (l[0] == ' ' || l[0] == '\t') {
			if (in_version)
				return -1;
		} else {
			size_t k = 0;
			while (k < n && l[k] != ':' && l[k] > 0x20 &&
			       l[k] < 0x7f)
				k++;
			if (!k || k == n || l[k] != ':')
				return -1;
			in_version = k == 7 && strncasecmp(l, "Version", 7) == 0;
			if (in_version) {
				if (found++)
					return -1;
				const char *v = l + k + 1;
				while (v < l + n && (*v == ' ' || *v == '\t'))
					v++;
				size_t vn = (size_t)(l + n - v);
				if (!vn || vn >= vlen ||
				    strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz"
					      "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+!_-")
					    < vn)
					return -1;
				memcpy(version, v, vn);
				version[vn] = '\0';
			}
		}
		l += n + 1;
	}
	return found ? 0 : -1;
}

/* METADATA of dist-info name in directory fd: the bytes, NUL-ended and
 * at most the size fstat gave, or NULL.  *exact when they are exactly that
 * size: a file changing under us is Python's to judge.  dir_sb and
 * file_sb (NULL: not asked) get the dist-info folder's and the file's
 * fstat, taken before reading. */
static char *metadata_load(int fd, const char *name, size_t *len, int *exact,
			   struct stat *dir_sb, struct stat *file_sb)
{
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				   O_CLOEXEC);
	int mfd = dfd >= 0 ? openat(dfd, "METADATA", O_RDONLY | O_NOFOLLOW |
					   O_NONBLOCK | O_CLOEXEC) : -1;
	int dir_ok = !dir_sb || (mfd >= 0 && fstat(dfd, dir_sb) == 0);
	if (dfd >= 0)
		close(dfd);
	struct stat sb;
	char *buf = NULL;
	if (mfd < 0 || !dir_ok || fstat(mfd, &sb) != 0 ||
	    !S_ISREG(sb.st_mode) || sb.st_size > METADATA_MAX ||
	    !(buf = malloc((size_t)sb.st_size + 1))) {
		if (mfd >= 0)
			close(mfd);
		return NULL;
	}
	size_t used = 0;
	for (;;) {
		ssize_t got = read(mfd, buf + used, (size_t)sb.st_size + 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (used += (size_t)got) > (size_t)sb.st_size)
			break;
	}
	close(mfd);
	*exact = used == (size_t)sb.st_size;
	if (used > (size_t)sb.st_size)
		used = (size_t)sb.st_size;
	buf[used] = '\0';
	*len = used;
	if (file_sb)
		*file_sb = sb;
	return buf;
}

/* The Requires-Dist values of a METADATA header block (up to the first
 * empty line) that carry no marker, in order, into meta; 0 or -1. */
static int metadata_requires(const char *buf, size_t len,
			     pyrt_dists_meta *meta)
{
	char req[PYRT_REQUIREMENT_MAX];
	for (const char *l = buf; l < buf + len;) {
		const char *end = memchr(l, '\n', (size_t)(buf + len - l));
		size_t n = end ? (size_t)(end - l) : (size_t)(buf + len - l);
		if (!n || (n == 1 && l[0] == '\r'))
			break; /* the headers end at the first empty line */
		if (n > 14 && strncasecmp(l, "Requires-Dist:", 14) == 0) {
			const char *v = l + 14;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t vn = (size_t)(l + n - v);
			while (vn && (v[vn - 1] == '\r' || v[vn - 1] == ' '))
				vn--;
			/* A marker (an extra, a platform, a Python version)
			 * is Python's to evaluate: not followed here. */
			if (vn && vn < sizeof req && !memchr(v, ';', vn)) {
				char **r = realloc(meta->reqs, (meta->nreqs + 1) *
						   sizeof *r);
				if (!r)
					return -1;
				meta->reqs = r;
				if (!(r[meta->nreqs] = strndup(v, vn)))
					return -1;
				meta->nreqs++;
			}
		}
		l += n + 1;
	}
	return 0;
}

/* What the reader takes from dist-info name's METADATA (in directory fd)
 * into *meta: 0, or -1 when it cannot be read.  With the stats (NULL: not
 * asked), as metadata_load. */
static int metadata_info(int fd, const char *name, pyrt_dists_meta *meta,
			 struct stat *dir_sb, struct stat *file_sb)
{
	size_t len = 0;
	int exact = 0;
	char version[1024];
	memset(meta, 0, sizeof *meta);
	char *buf = metadata_load(fd, name, &len, &exact, dir_sb, file_sb);
	if (!buf)
		return -1;
	int rc = 0;
	if (exact && utf8_ok((const unsigned char *)buf, len) &&
	    !memchr(buf, '\0', len) &&
	    header_version(buf, len, version, sizeof version) == 0 &&
	    !(meta->version = strdup(version)))
		rc = -1;
	if (rc == 0 && metadata_requires(buf, len, meta) != 0)
		rc = -1;
	free(buf);
	if (rc != 0)
		pyrt_dists_meta_clear(meta);
	return rc;
}

/* METADATA of entry e in s as the reader uses it: with a memo (a reader
 * that reads, never installs: status asks for a distribution's version and
 * its Requires-Dist), from the box's memo when METADATA is as remembered,
 * else read once and remembered; without, read afresh into *owned for the
 * caller to clear.  NULL when it cannot be read. */
static const pyrt_dists_meta *entry_metadata(const site_dir *s, entry *e,
					     pyrt_dists_meta *owned)
{
	memset(owned, 0, sizeof *owned);
	if (!s->memo)
		return metadata_info(s->fd, e->raw, owned, NULL, NULL) == 0
		       ? owned : NULL;
	if (e->meta_state)
		return e->meta_state > 0 ? &e->meta : NULL;
	const pyrt_dists_meta *kept = NULL;
	if (pyrt_dists_memo_meta(s->memo, s->memo_site, s->fd, e->raw,
				 &kept)) {
		e->meta = *kept;   /* borrowed: the memo outlives the entry's */
		e->meta_state = 2; /* use, and is not freed through it */
		return kept;
	}
	struct stat dir_sb, file_sb;
	if (metadata_info(s->fd, e->raw, &e->meta, &dir_sb, &file_sb) != 0) {
		e->meta_state = -1;
		return NULL;
	}
	e->meta_state = 1;
	pyrt_dists_memo_put_meta(s->memo, s->memo_site, e->raw, &dir_sb,
				 &file_sb, &e->meta);
	return &e->meta;
}

/* The Version of entry e in s; 0 or -1. */
static int entry_version(const site_dir *s, entry *e, char *version,
			 size_t len)
{
	pyrt_dists_meta owned;
	const pyrt_dists_meta *meta = entry_metadata(s, e, &owned);
	int rc = -1;
	if (meta && meta->version && strlen(meta->version) < len) {
		memcpy(version, meta->version, strlen(meta->version) + 1);
		rc = 0;
	}
	pyrt_dists_meta_clear(&owned);
	return rc;
}

/*
 * File file of dist-info name in directory fd, whole and NUL-ended: the
 * buffer, or NULL.  *absent (may be NULL) is set when file is not there,
 * or is a folder (an installer that failed writing it): no such file
 * either.  Nothing is followed; a file over max bytes is not read.
 */
static char *distinfo_read_sb(int fd, const char *name, const char *file,
			      off_t max, size_t *len, int *absent,
			      struct stat *read_sb)
{
	if (absent)
		*absent = 0;
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				   O_CLOEXEC);
	int rfd = dfd >= 0 ? openat(dfd, file, O_RDONLY | O_NOFOLLOW |
					   O_NONBLOCK | O_CLOEXEC) : -1;
	if (rfd < 0 && errno == ENOENT && absent)
		*absent = 1;
	if (dfd >= 0)
		close(dfd);
	struct stat sb;
	char *buf = NULL;
	int stat_rc = rfd >= 0 ? fstat(rfd, &sb) : -1;
	if (stat_rc == 0 && S_ISDIR(sb.st_mode) && absent)
		*absent = 1;
	if (rfd < 0 || stat_rc != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > max || !(buf = malloc((size_t)sb.st_size + 1))) {
		if (rfd >= 0)
			close(rfd);
		return NULL;
	}
	size_t used = 0;
	while (used < (size_t)sb.st_size) {
		ssize_t got = read(rfd, buf + used, (size_t)sb.st_size - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		used += (size_t)got;
	}
	close(rfd);
	buf[used] = '\0';
	if (len)
		*len = used;
	if (read_sb)
		*read_sb = sb;
	return buf;
}

static char *distinfo_read(int fd, const char *name, const char *file,
			   off_t max, size_t *len, int *absent)
{
	return distinfo_read_sb(fd, name, file, max, len, absent, NULL);
}

/* The next RECORD row's path (CSV's first field, "" quoting undone) into
 * out; the row's end.  NULL at the end of text. */
static const char *record_path(const char *p, const char *end, char *out,
			       size_t len, int *fit)
{
	size_t o = 0;
	*fit = 1;
	if (p >= end)
		return NULL;
	if (*p == '"') {
		for (p++; p < end; p++) {
			if (*p == '"' && p + 1 < end && p[1] == '"')
				p++;
			else if (*p == '"')
				break;
			if (o + 1 < len)
				out[o++] = *p;
			else
				*fit = 0;
		}
	} else {
		for (; p < end && *p != ',' && *p != '\n' && *p != '\r'; p++) {
			if (o + 1 < len)
				out[o++] = *p;
			else
				*fit = 0;
		}
	}
	out[o] = '\0';
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : end;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Read dist-info name's RECORD (in directory fd) whole: the buffer, or
 * NULL with *absent set when there is none. */
static char *record_read(int fd, const char *name, size_t *len, int *absent,
			 struct stat *sb)
{
	return distinfo_read_sb(fd, name, "RECORD", RECORD_MAX, len, absent,
				sb);
}

/* The paths dist-info name's RECORD lists that its wheel never held, one
 * a line (PYRT_DISTS_WHEEL_FAULTS, pyrt_dists_mark_wheel_faults); NULL when
 * there is none. */
static char *faults_read(int fd, const char *name)
{
	return distinfo_read(fd, name, PYRT_DISTS_WHEEL_FAULTS, 65535, NULL,
			     NULL);
}

static int faults_has(const char *faults, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = faults; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t k = nl ? (size_t)(nl - p) : strlen(p);
		if (k == n && memcmp(p, path, n) == 0)
			return 1;
		p += k + (nl != NULL);
	}
	return 0;
}

/* 1 when dist-info name in site directory s has a RECORD and every file it
 * lists is there, 0 when not (why filled, and missing with the path when a
 * listed file is missing), -1 when it cannot be told.  Bytecode caches are
 * not required (Python writes them again), nor paths outside the prefix by
 * an absolute name (not the runtime's to judge), nor those its wheel never
 * held (a RECORD row of the wheel's own, found by pyrt). */
/* 1 when the RECORD row path (relative to the site folder rel, which is
 * relative to the prefix) leads outside the prefix. */
static int record_leaves(const char *rel, const char *path)
{
	if (path[0] == '/')
		return 1;
	long depth = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (const char *c = pass ? path : rel; *c;) {
			size_t n = strcspn(c, "/");
			if (n == 2 && c[0] == '.' && c[1] == '.') {
				if (--depth < 0)
					return 1;
			} else if (n && !(n == 1 && c[0] == '.')) {
				depth++;
			}
			c += n;
			c += strspn(c, "/");
		}
	}
	return 0;
}

static int dist_check(const site_dir *s, const char *name, char *why,
		      size_t whylen, char *missing, size_t mlen)
{
	size_t len = 0;
	int absent = 0;
	char *faults = NULL;
	int faults_read_once = 0;
	if (missing)
		missing[0] = '\0';
	if (s->memo && !missing &&
	    pyrt_dists_memo_whole(s->memo, s->memo_site, name))
		return 1;
	struct stat record_sb;
	char *buf = record_read(s->fd, name, &len, &absent, &record_sb);
	if (!buf) {
		if (!absent)
			return -1;
		pyrt_fmt_text(why, whylen, "%s has no RECORD", name);
		return 0;
	}
	char path[4096];
	int rc = 1, fit;
	size_t listed = 0;
	for (const char *p = buf; rc == 1 &&
	     (p = record_path(p, buf + len, path, sizeof path, &fit));) {
		struct stat sb;
		if (path[0])
			listed++;
		if (!fit || !path[0] || path[0] == '/' || ends_with(path, ".pyc"))
			continue;
		if (fstatat(s->fd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT && errno != ENOTDIR) {
			rc = -1;
			continue;
		}
		if (!faults_read_once++)
			faults = faults_read(s->fd, name);
		if (faults_has(faults, path))
			continue;
		pyrt_fmt_text(why, whylen, "%s is missing", path);
		if (missing)
			pyrt_fmt_text(missing, mlen, "%s", path);
		rc = 0;
	}
	if (rc == 1 && !listed) {
		pyrt_fmt_text(why, whylen, "%s/RECORD lists no file", name);
		rc = 0;
	}
	free(faults);
	/* Whole, and not thanks to PYRT-WHEEL-FAULTS (a file the memo's
	 * folders do not cover): remembered on what it depends on. */
	if (rc == 1 && s->memo && !faults_read_once) {
		for (const char *p = buf;
		     (p = record_path(p, buf + len, path, sizeof path, &fit));)
			if (fit && path[0] && path[0] != '/' &&
			    !ends_with(path, ".pyc"))
				pyrt_dists_memo_path(s->memo, s->memo_site,
						     path);
		pyrt_dists_memo_put(s->memo, s->memo_site, name, &record_sb);
	}
	/* Not whole, so a repair would reinstall it: pip's uninstall would
	 * delete every file RECORD names, outside the runtime too.  Such a
	 * RECORD is said so, whatever else is missing. */
	for (const char *p = buf; rc == 0 &&
	     (p = record_path(p, buf + len, path, sizeof path, &fit));)
		if (fit && path[0] && record_leaves(s->rel, path))
			pyrt_fmt_text(why, whylen, PYRT_DISTS_RECORD_LEAVES
				      " (%.200s)", path);
	free(buf);
	return rc;
}

static int dist_intact(const site_dir *s, const char *name, char *why,
		       size_t whylen)
{
	return dist_check(s, name, why, whylen, NULL, 0);
}

/* dist_intact of entry e, asked once per reader when it keeps a memo (a
 * reader that keeps one reads, never installs, so nothing it judged can
 * have been changed by it; status asks for the baseline's twice). */
static int entry_intact(site_dir *s, entry *e, char *why, size_t whylen)
{
	if (!s->memo)
		return dist_intact(s, e->raw, why, whylen);
	if (e->known_whole)
		return 1;
	int rc = dist_intact(s, e->raw, why, whylen);
	e->known_whole = rc == 1;
	return rc;
}

static int dists_find(pyrt_dists *d, const char *want, site_dir **site,
		      const entry **hit);

/* dists_find for a name as written (normalised here). */
static int dists_lookup(pyrt_dists *d, const char *name, site_dir **site,
			const entry **hit)
{
	char *want = normalize(name, strlen(name));
	int rc = want ? dists_find(d, want, site, hit) : -1;
	free(want);
	return rc;
}

/* The one dist-info or egg-info entry for the normalised name want: in
 * *site and *hit, 1 found, 0 not, -1 Python's to say. */
static int dists_find(pyrt_dists *d, const char *want, site_dir **site,
		      const entry **hit)
{
	*hit = NULL;
	for (size_t i = 0; i < d->n; i++) {
		site_dir *s = &d->dirs[i];
		if (s->state == DIR_UNREAD)
			dir_read(d, s);
		if (s->state == DIR_ABSENT)
			continue;
		if (s->state == DIR_BAD)
			return -1;
		for (size_t j = 0; j < s->n; j++) {
			if (strcmp(s->e[j].norm, want) != 0)
				continue;
			/* Two candidates: Python takes the first listed, in
			 * an order C does not see the same way. */
			if (*hit || s->e[j].egg)
				return -1;
			*hit = &s->e[j];
		}
		if (*hit) {
			*site = s;
			return 1;
		}
	}
	return 0;
}

int pyrt_dists_intact(pyrt_dists *d, const char *name, char *why,
		      size_t whylen)
{
	site_dir *s = NULL;
	const entry *hit = NULL;
	int rc = dists_lookup(d, name, &s, &hit);
	if (rc != 1)
		return rc < 0 ? -1 : 2;
	return entry_intact(s, (entry *)hit, why, whylen);
}

/* Whether an earlier dist-info of entry j's project in s was broken too:
 * one project is one broken distribution, however many of its dist-info
 * folders lack files ("2 lack files (python-docx, python-docx)"). */
static int broken_before(site_dir *s, size_t j)
{
	char why[512];
	for (size_t k = 0; k < j; k++)
		if (!s->e[k].egg && strcmp(s->e[k].norm, s->e[j].norm) == 0 &&
		    dist_intact(s, s->e[k].raw, why, sizeof why) == 0)
			return 1;
	return 0;
}

int pyrt_dists_each_broken(pyrt_dists *d, pyrt_dists_broken_fn fn, void *ctx)
{
	int count = 0;
	char why[512], name[256], version[128];
	for (size_t i = 0; i < d->n; i++) {
		site_dir *s = &d->dirs[i];
		if (s->state == DIR_UNREAD)
			dir_read(d, s);
		if (s->state != DIR_OK)
			continue;
		for (size_t j = 0; j < s->n; j++) {
			if (s->e[j].egg ||
			    entry_intact(s, &s->e[j], why, sizeof why) != 0 ||
			    broken_before(s, j))
				continue;
			/* PEP 503's spelling of the normalised name. */
			pyrt_fmt_text(name, sizeof name, "%s", s->e[j].norm);
			for (char *c = name; *c; c++)
				if (*c == '_')
					*c = '-';
			if (entry_version(s, &s->e[j], version,
					  sizeof version) != 0)
				version[0] = '\0';
			count++;
			if (fn)
				fn(name, version, why, ctx);
		}
	}
	return count;
}

int pyrt_dists_drop_unrecorded(pyrt_dists *d, const char *name,
			       pyrt_error *err)
{
	site_dir *s = NULL;
	const entry *hit = NULL;
	int rc = dists_lookup(d, name, &s, &hit);
	if (rc != 1 || !hit || hit->egg || !ends_with_ci(hit->raw,
		strlen(hit->raw), ".dist-info"))
		return 0;
	size_t len = 0;
	int absent = 0;
	char *buf = record_read(s->fd, hit->raw, &len, &absent, NULL);
	free(buf);
	if (buf || !absent)
		return 0;
	/* Through the folder's descriptor: the one that was read. */
	char path[PATH_MAX];
	if (pyrt_os_fd_path(path, sizeof path, s->fd, hit->raw) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot name %s through its folder",
					    hit->raw);
	rc = pyrt_fs_remove_tree(path, NULL, err);
	return rc ? rc : 1;
}

int pyrt_dists_stamp(pyrt_dists *d, const char *req, char *out, size_t len)
{
	while (*req == ' ' || *req == '\t')
		req++;
	size_t n = strspn(req, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789-_.");
	char *want = n ? normalize(req, n) : NULL;
	site_dir *s = NULL;
	const entry *hit = NULL;
	char why[512], version[128];
	struct stat sb;
	int rc = want ? dists_find(d, want, &s, &hit) : -1;
	free(want);
	if (rc != 1)
		return rc;
	if (dist_intact(s, hit->raw, why, sizeof why) != 1 ||
	    entry_version(s, (entry *)hit, version, sizeof version) != 0 ||
	    fstatat(s->fd, hit->raw, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	pyrt_fmt_text(out, len, "%s %s %llu %lld.%09ld", hit->raw, version,
		      (unsigned long long)sb.st_ino, (long long)sb.st_mtim.tv_sec,
		      sb.st_mtim.tv_nsec);
	return 1;
}

int pyrt_dists_broken_count(const char *install_dir, const pyrt_marker *m)
{
	pyrt_dists *d = pyrt_dists_for_install(install_dir, m);
	int n = d ? pyrt_dists_each_broken(d, NULL, NULL) : 0;
	pyrt_dists_free(d);
	return n;
}

int pyrt_dists_version(pyrt_dists *d, const char *name, char *version,
		       size_t len)
{
	site_dir *s = NULL;
	const entry *hit = NULL;
	char why[512];
	int rc = dists_lookup(d, name, &s, &hit);
	if (rc != 1)
		return rc;
	/* Installed means a RECORD whose files are all there: a dist-info
	 * left behind by a crash or a deletion is not installed. */
	int intact = entry_intact(s, (entry *)hit, why, sizeof why);
	if (intact <= 0)
		return intact;
	return entry_version(s, (entry *)hit, version, len) == 0 ? 1 : -1;
}

int pyrt_dists_have_packaging(pyrt_dists *d)
{
	static const char *const files[] = {
		"pip/_vendor/packaging/requirements.py",
		"packaging/requirements.py",
	};
	for (size_t i = 0; i < d->n; i++) {
		site_dir *s = &d->dirs[i];
		if (s->state == DIR_UNREAD)
			dir_read(d, s);
		if (s->state != DIR_OK)
			continue;
		struct stat sb;
		int fd = site_fd(d, s);
		for (size_t f = 0; fd >= 0 && f < 2; f++)
			if (fstatat(fd, files[f], &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(sb.st_mode))
				return 1;
	}
	return 0;
}

int pyrt_dists_mark_wheel_faults(pyrt_dists *d, const char *name, char *first,
				 size_t len, pyrt_error *err)
{
	site_dir *s = NULL;
	const entry *hit = NULL;
	int rc = dists_lookup(d, name, &s, &hit);
	if (first && len)
		first[0] = '\0';
	if (rc != 1)
		return 0;
	char why[512], path[4096];
	int marked = 0;
	/* One missing path at a time: each run of the check names the first
	 * one not marked yet. */
	while (marked < 256 &&
	       dist_check(s, hit->raw, why, sizeof why, path, sizeof path) == 0 &&
	       path[0] && !strchr(path, '\n')) {
		int dfd = openat(s->fd, hit->raw, O_RDONLY | O_DIRECTORY |
				 O_NOFOLLOW | O_CLOEXEC);
		int fd = dfd >= 0 ? openat(dfd, PYRT_DISTS_WHEEL_FAULTS,
					   O_WRONLY | O_CREAT | O_APPEND |
					   O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		size_t n = strlen(path);
		path[n] = '\n';
		ssize_t w = fd >= 0 ? write(fd, path, n + 1) : -1;
		path[n] = '\0';
		if (fd >= 0 && (w != (ssize_t)(n + 1) || close(fd) != 0))
			fd = -1, e = errno;
		if (fd < 0)
			return pyrt_error_set_errno(err, PYRT_E_IO, e, "cannot "
						    "write %s/%s", hit->raw,
						    PYRT_DISTS_WHEEL_FAULTS);
		if (!marked++ && first)
			pyrt_fmt_text(first, len, "%s", path);
	}
	return marked;
}

int pyrt_dists_requires(pyrt_dists *d, const char *name,
			pyrt_dists_require_fn fn, void *ctx)
{
	site_dir *s = NULL;
	const entry *hit = NULL;
	int rc = dists_lookup(d, name, &s, &hit);
	if (rc != 1)
		return -1;
	pyrt_dists_meta owned;
	const pyrt_dists_meta *meta = entry_metadata(s, (entry *)hit, &owned);
	if (!meta)
		return -1;
	int count = (int)meta->nreqs;
	for (size_t i = 0; fn && i < meta->nreqs; i++)
		fn(meta->reqs[i], ctx);
	pyrt_dists_meta_clear(&owned);
	return count;
}
