/*
 * Installed distributions as importlib.metadata finds them (see dists.h).
 * Python's lookup (importlib.metadata's FastPath/Lookup) is followed
 * step by step; where C could only approximate it, the answer is -1.
 */
#include "dists.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "requirement.h"

#define METADATA_MAX (1024 * 1024)
#define ENTRIES_MAX 100000

typedef enum dir_state { DIR_UNREAD, DIR_ABSENT, DIR_OK, DIR_BAD } dir_state;

typedef struct entry {
	char *norm;  /* the name importlib files it under */
	char *raw;   /* the directory entry */
	int egg;     /* .egg-info: not read here */
} entry;

typedef struct site_dir {
	char *rel;
	dir_state state;
	int fd;
	entry *e;
	size_t n, cap;
} site_dir;

struct pyrt_dists {
	char *prefix;
	site_dir *dirs;
	size_t n;
};

pyrt_dists *pyrt_dists_new(const char *prefix, const char *const *rel,
			   size_t n)
{
	pyrt_dists *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
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

void pyrt_dists_free(pyrt_dists *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		site_dir *s = &d->dirs[i];
		for (size_t j = 0; j < s->n; j++) {
			free(s->e[j].norm);
			free(s->e[j].raw);
		}
		free(s->e);
		free(s->rel);
		if (s->fd >= 0)
			close(s->fd);
	}
	free(d->dirs);
	free(d->prefix);
	free(d);
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

/* Open prefix/rel one component at a time, following no symlink.  The fd,
 * or -1 with *absent set when some component does not exist. */
static int open_nofollow(const char *prefix, const char *rel, int *absent)
{
	*absent = 0;
	int fd = open(prefix, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char part[256];
	while (fd >= 0 && *rel) {
		size_t n = strcspn(rel, "/");
		if (!n || n >= sizeof part) {
			close(fd);
			return -1;
		}
		memcpy(part, rel, n);
		part[n] = '\0';
		rel += n + (rel[n] == '/');
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
		int e = errno;
		close(fd);
		fd = next;
		if (fd < 0)
			errno = e;
	}
	if (fd < 0 && errno == ENOENT)
		*absent = 1;
	return fd;
}

/* List directory s once. */
static void dir_read(pyrt_dists *d, site_dir *s)
{
	size_t n = strlen(s->rel);
	int absent = 0;
	s->state = DIR_BAD;
	/* An *.egg directory on the path is searched for EGG-INFO: Python's. */
	if (ends_with_ci(s->rel, n, ".egg"))
		return;
	s->fd = open_nofollow(d->prefix, s->rel, &absent);
	if (s->fd < 0) {
		s->state = absent ? DIR_ABSENT : DIR_BAD;
		return;
	}
	int lfd = dup(s->fd);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dir) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	struct dirent *de;
	int rc = 0;
	errno = 0;
	while (!rc && (de = readdir(dir)))
		rc = dir_add(s, de->d_name);
	if (!rc && errno == 0)
		s->state = DIR_OK;
	closedir(dir);
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

/* The Version of dist-info entry name in directory fd; 0 or -1. */
static int dist_version(int fd, const char *name, char *version, size_t len)
{
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				   O_CLOEXEC);
	int mfd = dfd >= 0 ? openat(dfd, "METADATA", O_RDONLY | O_NOFOLLOW |
					   O_NONBLOCK | O_CLOEXEC) : -1;
	if (dfd >= 0)
		close(dfd);
	struct stat sb;
	char *buf = NULL;
	int rc = -1;
	if (mfd < 0 || fstat(mfd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > METADATA_MAX ||
	    !(buf = malloc((size_t)sb.st_size + 1)))
		goto done;
	size_t used = 0;
	for (;;) {
		ssize_t got = read(mfd, buf + used, (size_t)sb.st_size + 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (used += (size_t)got) > (size_t)sb.st_size)
			break;
	}
	/* Exactly the size stat gave: a file changing under us is Python's. */
	if (used == (size_t)sb.st_size &&
	    utf8_ok((const unsigned char *)buf, used) &&
	    !memchr(buf, '\0', used))
		rc = header_version(buf, used, version, len);
done:
	free(buf);
	if (mfd >= 0)
		close(mfd);
	return rc;
}

int pyrt_dists_version(pyrt_dists *d, const char *name, char *version,
		       size_t len)
{
	char *want = normalize(name, strlen(name));
	if (!want)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < d->n && rc == 0; i++) {
		site_dir *s = &d->dirs[i];
		if (s->state == DIR_UNREAD)
			dir_read(d, s);
		if (s->state == DIR_ABSENT)
			continue;
		if (s->state == DIR_BAD) {
			rc = -1;
			break;
		}
		const entry *hit = NULL;
		for (size_t j = 0; j < s->n && rc == 0; j++) {
			if (strcmp(s->e[j].norm, want) != 0)
				continue;
			/* Two candidates: Python takes the first listed, in
			 * an order C does not see the same way. */
			if (hit || s->e[j].egg)
				rc = -1;
			hit = &s->e[j];
		}
		if (rc == 0 && hit)
			rc = dist_version(s->fd, hit->raw, version, len) == 0
				     ? 1 : -1;
	}
	free(want);
	return rc;
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
		for (size_t f = 0; f < 2; f++)
			if (fstatat(s->fd, files[f], &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(sb.st_mode))
				return 1;
	}
	return 0;
}
