/* Distributions found whole, remembered on identities (dists_memo.h). */
#include "core/runtime/dists_memo.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util/cache_seal.h"
#include "core/util/fmt.h"

#define MEMO_SCHEMA 1
#define MEMO_MAGIC "pyrt-dists-whole"
#define MEMO_MAX (32 * 1024 * 1024)
#define MEMO_SITES 16   /* the marker's search path, with room */
#define MEMO_ITEMS 200000

typedef struct item {
	char *s;
	pyrt_cache_id id;
	int dropped;    /* a RECORD found changed: not written back */
} item;

typedef struct items {
	item *v;
	size_t n, cap;
} items;

/* The folders a site's new verdicts depend on, without repeats. */
typedef struct strset {
	char **slot;
	size_t n, cap;  /* cap a power of two, or 0 */
} strset;

typedef struct site {
	char *path;
	int fd;         /* borrowed; -1 while only loaded */
	int state;      /* 0 not checked yet, 1 every folder as recorded, -1 not */
	items dirs, recs;       /* as loaded */
	strset fresh_dirs;
	items fresh_recs;
	int dirty;
} site;

struct pyrt_dists_memo {
	char dir[PATH_MAX];
	struct timespec started;
	int timed;
	site s[MEMO_SITES];
	size_t n;
};

static void items_free(items *it)
{
	for (size_t i = 0; i < it->n; i++)
		free(it->v[i].s);
	free(it->v);
	memset(it, 0, sizeof *it);
}

/* s (taken over, freed on failure) with id; 0 or -1. */
static int items_add(items *it, char *s, const pyrt_cache_id *id)
{
	if (!s || it->n >= MEMO_ITEMS) {
		free(s);
		return -1;
	}
	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 32;
		item *v = realloc(it->v, cap * sizeof *v);
		if (!v) {
			free(s);
			return -1;
		}
		it->v = v;
		it->cap = cap;
	}
	it->v[it->n++] = (item){ s, *id, 0 };
	return 0;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void strset_free(strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	memset(set, 0, sizeof *set);
}

/* The first len bytes of s join set; 0 or -1 (out of memory, too many). */
static int strset_add(strset *set, const char *s, size_t len)
{
	if (set->n >= MEMO_ITEMS)
		return -1;
	if (2 * (set->n + 1) > set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 256;
		char **slot = calloc(cap, sizeof *slot);
		if (!slot)
			return -1;
		for (size_t i = 0; i < set->cap; i++) {
			if (!set->slot[i])
				continue;
			size_t j = str_hash(set->slot[i]) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = set->slot[i];
		}
		free(set->slot);
		set->slot = slot;
		set->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	size_t j = str_hash(copy) & (set->cap - 1);
	for (; set->slot[j]; j = (j + 1) & (set->cap - 1))
		if (strcmp(set->slot[j], copy) == 0) {
			free(copy);
			return 0;
		}
	set->slot[j] = copy;
	set->n++;
	return 0;
}

static void site_free(site *st)
{
	free(st->path);
	items_free(&st->dirs);
	items_free(&st->recs);
	items_free(&st->fresh_recs);
	strset_free(&st->fresh_dirs);
}

/* ------------------------------------------------------------ reading */

typedef pyrt_cache_cursor cursor;

/* " <length>:<bytes>" copied (malloc'd), or NULL with c->bad set: a path
 * is never empty. */
static char *cur_str(cursor *c)
{
	char *s = pyrt_cache_cur_str(c, PATH_MAX);
	if (s && !*s) {
		free(s);
		c->bad = 1;
		return NULL;
	}
	return s;
}

static void cur_id(cursor *c, pyrt_cache_id *id)
{
	for (int i = 0; i < PYRT_CACHE_ID_FIELDS; i++)
		id->f[i] = pyrt_cache_cur_num(c);
}

/* The whole body into m's sites, or nothing at all. */
static void memo_parse(pyrt_dists_memo *m, const char *body, size_t len)
{
	cursor c = { body, body + len, 0 };
	static const char magic[] = MEMO_MAGIC;
	if (len < sizeof magic || memcmp(body, magic, sizeof magic - 1) != 0)
		return;
	c.p += sizeof magic - 1;
	if (pyrt_cache_cur_num(&c) != MEMO_SCHEMA)
		return;
	pyrt_cache_cur_char(&c, '\n');
	site *st = NULL;
	while (!c.bad && c.p < c.end) {
		char kind = *c.p++;
		char *s = cur_str(&c);
		pyrt_cache_id id = { { 0 } };
		if (kind == 'S') {
			if (s && s[0] == '/' && m->n < MEMO_SITES) {
				st = &m->s[m->n++];
				st->path = s;
				st->fd = -1;
				s = NULL;
			} else {
				c.bad = 1;
			}
		} else if ((kind == 'D' || kind == 'R') && st && s &&
			   s[0] != '/' && (kind == 'D' || !strchr(s, '/'))) {
			cur_id(&c, &id);
			if (!c.bad &&
			    items_add(kind == 'D' ? &st->dirs : &st->recs, s,
				      &id) != 0)
				c.bad = 1;
			s = NULL;
		} else {
			c.bad = 1;
		}
		free(s);
		pyrt_cache_cur_char(&c, '\n');
	}
	if (!c.bad)
		return;
	/* Anything not exactly as written: nothing is trusted. */
	for (size_t i = 0; i < m->n; i++)
		site_free(&m->s[i]);
	memset(m->s, 0, sizeof m->s);
	m->n = 0;
}

pyrt_dists_memo *pyrt_dists_memo_new(const char *cache_dir)
{
	pyrt_dists_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->timed = clock_gettime(CLOCK_REALTIME, &m->started) == 0;
	if (!m->timed ||
	    snprintf(m->dir, sizeof m->dir, "%s", cache_dir) >=
		    (int)sizeof m->dir) {
		m->dir[0] = '\0';
		return m;
	}
	char *data = NULL;
	const char *body = NULL;
	size_t len = 0;
	if (pyrt_cache_read_sealed(m->dir, PYRT_DISTS_MEMO_FILE, MEMO_MAX,
				   &data, &body, &len) == 0)
		memo_parse(m, body, len);
	free(data);
	return m;
}

int pyrt_dists_memo_site(pyrt_dists_memo *m, const char *path, int fd)
{
	if (!m || fd < 0 || path[0] != '/')
		return -1;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->s[i].path, path) == 0) {
			if (m->s[i].fd >= 0 && m->s[i].fd != fd)
				return -1; /* one site read twice: no memo */
			m->s[i].fd = fd;
			return (int)i;
		}
	if (m->n == MEMO_SITES)
		return -1;
	site *st = &m->s[m->n];
	memset(st, 0, sizeof *st);
	if (!(st->path = strdup(path)))
		return -1;
	st->fd = fd;
	st->state = -1; /* nothing remembered for it */
	return (int)m->n++;
}

/* Whether the folder rel of st is the one recorded as id. */
static int dir_same(const site *st, const char *rel, const pyrt_cache_id *id)
{
	struct stat sb;
	pyrt_cache_id now;
	if (fstatat(st->fd, rel, &sb, 0) != 0 || !S_ISDIR(sb.st_mode))
		return 0;
	pyrt_cache_id_of(&sb, &now);
	return pyrt_cache_id_same(&now, id);
}

int pyrt_dists_memo_whole(pyrt_dists_memo *m, int idx, const char *name)
{
	if (!m || idx < 0 || (size_t)idx >= m->n)
		return 0;
	site *st = &m->s[idx];
	if (st->state == 0) {
		st->state = st->dirs.n ? 1 : -1;
		for (size_t i = 0; st->state == 1 && i < st->dirs.n; i++)
			if (!dir_same(st, st->dirs.v[i].s, &st->dirs.v[i].id))
				st->state = -1;
	}
	if (st->state != 1)
		return 0;
	for (size_t i = 0; i < st->recs.n; i++) {
		item *r = &st->recs.v[i];
		if (r->dropped || strcmp(r->s, name) != 0)
			continue;
		char rel[PATH_MAX];
		struct stat sb;
		pyrt_cache_id now;
		if (pyrt_fmt_path(rel, sizeof rel, NULL, "%s/RECORD", name) ||
		    fstatat(st->fd, rel, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode))
			break;
		pyrt_cache_id_of(&sb, &now);
		if (pyrt_cache_id_same(&now, &r->id))
			return 1;
		break;
	}
	for (size_t i = 0; i < st->recs.n; i++)
		if (strcmp(st->recs.v[i].s, name) == 0)
			st->recs.v[i].dropped = 1;
	return 0;
}

void pyrt_dists_memo_path(pyrt_dists_memo *m, int idx, const char *path)
{
	if (!m || idx < 0 || (size_t)idx >= m->n || path[0] == '/')
		return;
	site *st = &m->s[idx];
	/* Every folder on the way: a/ and a/b/ for a/b/c.py. */
	for (const char *p = path; (p = strchr(p, '/')); p++)
		if (p > path && strset_add(&st->fresh_dirs, path,
					   (size_t)(p - path)) != 0)
			st->dirty = -1; /* cannot be remembered whole */
}

void pyrt_dists_memo_put(pyrt_dists_memo *m, int idx, const char *name,
			 const struct stat *record)
{
	if (!m || idx < 0 || (size_t)idx >= m->n || strchr(name, '/'))
		return;
	site *st = &m->s[idx];
	pyrt_cache_id id;
	/* A RECORD written since a moment before this read could change
	 * again with the same times: not remembered (cache_seal.h). */
	if (!S_ISREG(record->st_mode) ||
	    !pyrt_cache_settled(record, &m->started))
		return;
	pyrt_cache_id_of(record, &id);
	if (items_add(&st->fresh_recs, strdup(name), &id) != 0)
		st->dirty = -1;
	else if (st->dirty == 0)
		st->dirty = 1;
}

/* ------------------------------------------------------------ writing */

typedef pyrt_cache_text out;

static void out_line(out *o, char kind, const char *s,
		     const pyrt_cache_id *id)
{
	char b[32 * (PYRT_CACHE_ID_FIELDS + 1)];
	int n = snprintf(b, sizeof b, "%c %zu:", kind, strlen(s));
	pyrt_cache_text_add(o, b, (size_t)n);
	pyrt_cache_text_add(o, s, strlen(s));
	n = 0;
	for (int i = 0; id && i < PYRT_CACHE_ID_FIELDS; i++)
		n += snprintf(b + n, sizeof b - (size_t)n, " %lld", id->f[i]);
	b[n++] = '\n';
	pyrt_cache_text_add(o, b, (size_t)n);
}

/* One folder of a site whose verdicts changed, stat'ed now: recorded when
 * settled; 0, or -1 (the site is not written). */
static int out_dir(out *o, const pyrt_dists_memo *m, const site *st,
		   const char *rel)
{
	struct stat sb;
	pyrt_cache_id id;
	if (fstatat(st->fd, rel, &sb, 0) != 0 || !S_ISDIR(sb.st_mode) ||
	    !pyrt_cache_settled(&sb, &m->started))
		return -1;
	pyrt_cache_id_of(&sb, &id);
	out_line(o, 'D', rel, &id);
	return 0;
}

/* site st's block, or nothing when a folder is not settled. */
static void out_site(out *o, const pyrt_dists_memo *m, const site *st)
{
	size_t mark = o->len;
	int keep = st->state == 1; /* what was loaded still holds */
	out_line(o, 'S', st->path, NULL);
	int bad = out_dir(o, m, st, ".");
	for (size_t i = 0; !bad && keep && i < st->dirs.n; i++)
		if (strcmp(st->dirs.v[i].s, ".") != 0)
			bad = out_dir(o, m, st, st->dirs.v[i].s);
	for (size_t i = 0; !bad && i < st->fresh_dirs.cap; i++) {
		const char *rel = st->fresh_dirs.slot[i];
		int dup = 0;
		for (size_t j = 0; rel && keep && !dup && j < st->dirs.n; j++)
			dup = strcmp(st->dirs.v[j].s, rel) == 0;
		if (rel && !dup && strcmp(rel, ".") != 0)
			bad = out_dir(o, m, st, rel);
	}
	size_t recs = 0;
	for (size_t i = 0; !bad && keep && i < st->recs.n; i++)
		if (!st->recs.v[i].dropped) {
			out_line(o, 'R', st->recs.v[i].s, &st->recs.v[i].id);
			recs++;
		}
	for (size_t i = 0; !bad && i < st->fresh_recs.n; i++, recs++)
		out_line(o, 'R', st->fresh_recs.v[i].s,
			 &st->fresh_recs.v[i].id);
	if (bad || !recs) {
		o->len = mark;
		if (o->s)
			o->s[mark] = '\0';
	}
}

void pyrt_dists_memo_free(pyrt_dists_memo *m)
{
	if (!m)
		return;
	int write = 0;
	for (size_t i = 0; i < m->n; i++)
		write |= m->s[i].fd >= 0 && m->s[i].dirty == 1;
	if (write && m->dir[0]) {
		out o = { .max = MEMO_MAX };
		char head[64];
		int hn = snprintf(head, sizeof head, MEMO_MAGIC " %d\n",
				  MEMO_SCHEMA);
		pyrt_cache_text_add(&o, head, (size_t)hn);
		/* Only the sites read now: an older install's are dropped. */
		for (size_t i = 0; i < m->n; i++)
			if (m->s[i].fd >= 0 && m->s[i].dirty >= 0)
				out_site(&o, m, &m->s[i]);
		if (!o.failed)
			pyrt_cache_write_sealed(m->dir, PYRT_DISTS_MEMO_FILE,
						o.s, o.len);
		free(o.s);
	}
	for (size_t i = 0; i < m->n; i++)
		site_free(&m->s[i]);
	free(m);
}
