/* Checksums for cache entries (see cache_seal.h). */
#include "core/util/cache_seal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/error.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"

_Static_assert(sizeof(pyrt_cache_id) == PYRT_CACHE_ID_BYTES,
	       "an identity is read back as its raw bytes");

static uint64_t fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void pyrt_cache_sum(const void *data, size_t len,
		    char hex[PYRT_CACHE_SUM_LEN + 1])
{
	pyrt_fmt_text(hex, PYRT_CACHE_SUM_LEN + 1, "%016llx",
		      (unsigned long long)fnv1a64(data, len));
}

int pyrt_cache_sum_ok(const char *hex, const void *data, size_t len)
{
	char want[PYRT_CACHE_SUM_LEN + 1];
	pyrt_cache_sum(data, len, want);
	return strncmp(hex, want, PYRT_CACHE_SUM_LEN) == 0;
}

void pyrt_cache_id_of(const struct stat *sb, pyrt_cache_id *id)
{
	id->f[0] = (long long)sb->st_dev;
	id->f[1] = (long long)sb->st_ino;
	id->f[2] = (long long)sb->st_mode;
	id->f[3] = (long long)sb->st_uid;
	id->f[4] = (long long)sb->st_gid;
	id->f[5] = (long long)sb->st_size;
	id->f[6] = (long long)sb->st_mtim.tv_sec * 1000000000LL +
		   sb->st_mtim.tv_nsec;
	id->f[7] = (long long)sb->st_ctim.tv_sec * 1000000000LL +
		   sb->st_ctim.tv_nsec;
}

int pyrt_cache_id_same(const pyrt_cache_id *a, const pyrt_cache_id *b)
{
	return memcmp(a->f, b->f, sizeof a->f) == 0;
}

int pyrt_cache_settled(const struct stat *sb, const struct timespec *started)
{
	long long limit = ((long long)started->tv_sec - PYRT_CACHE_SETTLE_S)
			  * 1000000000LL + started->tv_nsec;
	long long m = (long long)sb->st_mtim.tv_sec * 1000000000LL +
		      sb->st_mtim.tv_nsec;
	long long c = (long long)sb->st_ctim.tv_sec * 1000000000LL +
		      sb->st_ctim.tv_nsec;
	return m < limit && c < limit;
}

/* dir/name when dir is private (ours, not a symlink, not writable by
 * others); 0 or -1. */
static int sealed_path(const char *dir, const char *name, char *path,
		       size_t len)
{
	int missing = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_fs_check_private_dir(dir, &missing, &err) != 0 || missing)
		return -1;
	return pyrt_fmt_path(path, len, NULL, "%s/%s", dir, name) ? -1 : 0;
}

void pyrt_cache_text_add(pyrt_cache_text *t, const char *p, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *s = cap <= t->max ? realloc(t->s, cap) : NULL;
		if (!s) {
			t->failed = 1;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
	memcpy(t->s + t->len, p, n);
	t->len += n;
	t->s[t->len] = '\0';
}

void pyrt_cache_text_add_id(pyrt_cache_text *t, const pyrt_cache_id *id)
{
	char b[1 + PYRT_CACHE_ID_BYTES];
	b[0] = ' ';
	memcpy(b + 1, id->f, PYRT_CACHE_ID_BYTES);
	pyrt_cache_text_add(t, b, sizeof b);
}

int pyrt_cache_cur_char(pyrt_cache_cursor *c, char ch)
{
	if (c->bad || c->p >= c->end || *c->p != ch) {
		c->bad = 1;
		return 0;
	}
	c->p++;
	return 1;
}

long long pyrt_cache_cur_num(pyrt_cache_cursor *c)
{
	if (!pyrt_cache_cur_char(c, ' '))
		return 0;
	const char *p = c->p;
	int neg = p < c->end && *p == '-';
	p += neg;
	/* At most 19 digits: they fit unsigned 64 bits, checked after. */
	const char *start = p, *stop = c->end - p > 19 ? p + 19 : c->end;
	unsigned long long v = 0;
	while (p < stop && (unsigned)(*p - '0') < 10)
		v = v * 10 + (unsigned)(*p++ - '0');
	if (p == start || v > (unsigned long long)LLONG_MAX ||
	    (p < c->end && (unsigned)(*p - '0') < 10)) {
		c->bad = 1;
		return 0;
	}
	c->p = p;
	return neg ? -(long long)v : (long long)v;
}

int pyrt_cache_cur_id(pyrt_cache_cursor *c, pyrt_cache_id *id)
{
	if (!pyrt_cache_cur_char(c, ' ') ||
	    (size_t)(c->end - c->p) < PYRT_CACHE_ID_BYTES) {
		c->bad = 1;
		return 0;
	}
	memcpy(id->f, c->p, PYRT_CACHE_ID_BYTES);
	c->p += PYRT_CACHE_ID_BYTES;
	return 1;
}

char *pyrt_cache_cur_str(pyrt_cache_cursor *c, size_t max)
{
	if (!pyrt_cache_cur_char(c, ' '))
		return NULL;
	size_t len = 0;
	int digits = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && len <= max) {
		len = len * 10 + (size_t)(*c->p++ - '0');
		digits++;
	}
	if (!digits || len > max || !pyrt_cache_cur_char(c, ':') ||
	    (size_t)(c->end - c->p) < len || memchr(c->p, '\0', len)) {
		c->bad = 1;
		return NULL;
	}
	char *s = malloc(len + 1);
	if (!s) {
		c->bad = 1;
		return NULL;
	}
	memcpy(s, c->p, len);
	s[len] = '\0';
	c->p += len;
	return s;
}

void pyrt_cache_write_sealed(const char *dir, const char *name,
			     const char *body, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32], sum[PYRT_CACHE_SUM_LEN + 1];
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return;
	if (sealed_path(dir, name, path, sizeof path) != 0 ||
	    pyrt_fmt_path(tmp, sizeof tmp, NULL, "%s.%ld.tmp", path,
			  (long)getpid()))
		return;
	pyrt_cache_sum(body, len, sum);
	sum[PYRT_CACHE_SUM_LEN] = '\n';
	pyrt_error err = PYRT_ERROR_INIT;
	int fd = pyrt_fs_open_state(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600,
				    &err);
	if (fd < 0)
		return;
	int bad = pyrt_fs_write_all(fd, sum, PYRT_CACHE_SUM_LEN + 1) != 0 ||
		  pyrt_fs_write_all(fd, body, len) != 0;
	/* No fsync: a torn file after a crash fails its checksum: a miss. */
	if (close(fd) != 0 || bad || rename(tmp, path) != 0)
		unlink(tmp);
}

int pyrt_cache_read_sealed(const char *dir, const char *name, size_t max,
			   char **data, const char **body, size_t *len)
{
	char path[PATH_MAX];
	size_t n = 0;
	const size_t head = PYRT_CACHE_SUM_LEN + 1;
	pyrt_error err = PYRT_ERROR_INIT;
	*data = NULL;
	struct stat sb;
	if (sealed_path(dir, name, path, sizeof path) != 0 ||
	    pyrt_fs_read_state_stat(path, max, data, &n, &sb, &err) != 0)
		return -1;
	/* The trust gate's rule (trust.h) on what was read: ours or root's
	 * (pyrt_fs_read_state), and writable by no one else. */
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) || n <= head ||
	    (*data)[PYRT_CACHE_SUM_LEN] != '\n' ||
	    !pyrt_cache_sum_ok(*data, *data + head, n - head)) {
		free(*data);
		*data = NULL;
		return -1;
	}
	*body = *data + head;
	*len = n - head;
	return 0;
}
