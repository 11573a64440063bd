/* Remembered digests keyed by file identity (see digest_memo.h). */
#include "core/dist/digest_memo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util/cache_seal.h"
#include "core/util/error.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"

/* Each line: the checksum of the rest of the line, then the entry. */
#define MEMO_HEADER "pyrt-digests 2\n"
#define MEMO_ENTRIES 8 /* current's marker and manifest, with room to spare */
#define MEMO_MAX (MEMO_ENTRIES * (PATH_MAX + 256))
/* Seconds a file must have been left alone before it is remembered. */
#define MEMO_SETTLED_S 2

typedef struct memo_entry {
	char hex[PYRT_SHA256_HEX_LEN + 1];
	unsigned long long dev, ino, size;
	long long mtime_s, mtime_ns, ctime_s, ctime_ns;
	char path[PATH_MAX];
} memo_entry;

struct pyrt_digest_memo {
	char dir[PATH_MAX];
	memo_entry e[MEMO_ENTRIES];
	int n;
	int dirty;
};

static void entry_key(memo_entry *e, const struct stat *sb)
{
	e->dev = (unsigned long long)sb->st_dev;
	e->ino = (unsigned long long)sb->st_ino;
	e->size = (unsigned long long)sb->st_size;
	e->mtime_s = (long long)sb->st_mtim.tv_sec;
	e->mtime_ns = (long long)sb->st_mtim.tv_nsec;
	e->ctime_s = (long long)sb->st_ctim.tv_sec;
	e->ctime_ns = (long long)sb->st_ctim.tv_nsec;
}

static int entry_same(const memo_entry *a, const memo_entry *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

/* One line into e; 0, or -1 for anything but the exact form written,
 * checksum first. */
static int entry_parse(const char *line, memo_entry *e)
{
	int used = 0;
	if (strlen(line) <= PYRT_CACHE_SUM_LEN + 1 ||
	    line[PYRT_CACHE_SUM_LEN] != ' ' ||
	    !pyrt_cache_sum_ok(line, line + PYRT_CACHE_SUM_LEN + 1,
			       strlen(line + PYRT_CACHE_SUM_LEN + 1)))
		return -1;
	line += PYRT_CACHE_SUM_LEN + 1;
	if (sscanf(line, "%64s %llu %llu %llu %lld %lld %lld %lld %n", e->hex,
		   &e->dev, &e->ino, &e->size, &e->mtime_s, &e->mtime_ns,
		   &e->ctime_s, &e->ctime_ns, &used) != 8 || used <= 0)
		return -1;
	const char *path = line + used;
	size_t len = strlen(path);
	if (!pyrt_sha256_hex_valid(e->hex) || path[0] != '/' ||
	    len >= sizeof e->path)
		return -1;
	memcpy(e->path, path, len + 1);
	return 0;
}

static void memo_load(pyrt_digest_memo *m)
{
	char path[PATH_MAX + 32], *text = NULL;
	int missing = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_fs_check_private_dir(m->dir, &missing, &err) != 0 || missing)
		return;
	/* No memo where its path does not fit: hashed, never misread. */
	if (pyrt_fmt_path(path, sizeof path, &err, "%s/%s", m->dir,
			  PYRT_DIGEST_MEMO_FILE) ||
	    pyrt_fs_read_state(path, MEMO_MAX, &text, NULL, &err) != 0)
		return;
	size_t hl = strlen(MEMO_HEADER);
	if (strncmp(text, MEMO_HEADER, hl) == 0) {
		char *save = NULL;
		for (char *line = strtok_r(text + hl, "\n", &save);
		     line && m->n < MEMO_ENTRIES;
		     line = strtok_r(NULL, "\n", &save))
			if (entry_parse(line, &m->e[m->n]) == 0)
				m->n++;
	}
	free(text);
}

pyrt_digest_memo *pyrt_digest_memo_new(const char *dir)
{
	/* Not calloc: the table is 8 PATH_MAX entries (34 KB) of which a
	 * status uses two; zeroing it cost 9 page faults per start.  Only
	 * e[0..n) is ever read. */
	pyrt_digest_memo *m = malloc(sizeof *m);
	if (!m)
		return NULL;
	m->n = 0;
	m->dirty = 0;
	m->dir[0] = '\0';
	if (snprintf(m->dir, sizeof m->dir, "%s", dir) < (int)sizeof m->dir)
		memo_load(m);
	return m;
}

int pyrt_digest_memo_get(const pyrt_digest_memo *m, const char *path,
			 const struct stat *sb,
			 char hex[PYRT_SHA256_HEX_LEN + 1])
{
	if (!m || !S_ISREG(sb->st_mode))
		return 0;
	memo_entry now;
	entry_key(&now, sb);
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->e[i].path, path) == 0 &&
		    entry_same(&m->e[i], &now)) {
			memcpy(hex, m->e[i].hex, PYRT_SHA256_HEX_LEN + 1);
			return 1;
		}
	return 0;
}

void pyrt_digest_memo_put(pyrt_digest_memo *m, const char *path,
			  const struct stat *sb, const char *hex)
{
	struct timespec now;
	if (!m || !S_ISREG(sb->st_mode) || !pyrt_sha256_hex_valid(hex) ||
	    path[0] != '/' || strlen(path) >= PATH_MAX || strchr(path, '\n'))
		return;
	/* File times tick with the kernel's clock, not the nanosecond: a file
	 * changed in this tick could change again with the very same times.
	 * As git does for its "racily clean" files, remember only a file left
	 * alone a while (a new install is hashed again for a few seconds). */
	if (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
	    (long long)sb->st_ctim.tv_sec > (long long)now.tv_sec - MEMO_SETTLED_S)
		return;
	int i = 0;
	while (i < m->n && strcmp(m->e[i].path, path) != 0)
		i++;
	if (i == MEMO_ENTRIES) { /* full: the oldest entry goes */
		memmove(&m->e[0], &m->e[1], (MEMO_ENTRIES - 1) * sizeof m->e[0]);
		i = MEMO_ENTRIES - 1;
	} else if (i == m->n) {
		m->n++;
	}
	memo_entry *e = &m->e[i];
	entry_key(e, sb);
	memcpy(e->hex, hex, PYRT_SHA256_HEX_LEN + 1);
	pyrt_fmt_text(e->path, sizeof e->path, "%s", path); /* fits: above */
	m->dirty = 1;
}

static void memo_save(const pyrt_digest_memo *m)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
	int missing = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	if (mkdir(m->dir, 0700) != 0 && errno != EEXIST)
		return;
	if (pyrt_fs_check_private_dir(m->dir, &missing, &err) != 0 || missing)
		return;
	if (pyrt_fmt_path(path, sizeof path, &err, "%s/%s", m->dir,
			  PYRT_DIGEST_MEMO_FILE) ||
	    pyrt_fmt_path(tmp, sizeof tmp, &err, "%s.%ld.tmp", path,
			  (long)getpid()))
		return;
	int fd = pyrt_fs_open_state(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600,
				    &err);
	if (fd < 0)
		return;
	int bad = pyrt_fs_write_all(fd, MEMO_HEADER, strlen(MEMO_HEADER));
	for (int i = 0; !bad && i < m->n; i++) {
		const memo_entry *e = &m->e[i];
		char line[PATH_MAX + 256], sum[PYRT_CACHE_SUM_LEN + 1];
		int len = snprintf(line, sizeof line,
				   "%s %llu %llu %llu %lld %lld %lld %lld %s",
				   e->hex, e->dev, e->ino, e->size, e->mtime_s,
				   e->mtime_ns, e->ctime_s, e->ctime_ns, e->path);
		bad = len <= 0 || (size_t)len >= sizeof line;
		if (bad)
			break;
		pyrt_cache_sum(line, (size_t)len, sum);
		bad = pyrt_fs_write_all(fd, sum, PYRT_CACHE_SUM_LEN) != 0 ||
		      pyrt_fs_write_all(fd, " ", 1) != 0 ||
		      pyrt_fs_write_all(fd, line, (size_t)len) != 0 ||
		      pyrt_fs_write_all(fd, "\n", 1) != 0;
	}
	/* No fsync: a torn or empty file after a crash is only a miss. */
	if (close(fd) != 0 || bad || rename(tmp, path) != 0)
		unlink(tmp);
}

void pyrt_digest_memo_free(pyrt_digest_memo *m)
{
	if (!m)
		return;
	if (m->dirty)
		memo_save(m);
	free(m);
}
