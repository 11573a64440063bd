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

#define MEMO_SCHEMA 3
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

/* What was read from one dist-info's METADATA, on the identities of the
 * dist-info folder and of the file. */
typedef struct meta_row {
	char *name;
	pyrt_cache_id dir_id, id;
	pyrt_dists_meta meta;
	int dropped;    /* found changed: not written back */
} meta_row;

typedef struct site {
	char *path;
	int fd;         /* borrowed; -1 while only loaded */
	int seen;       /* read now: written back */
	int state;      /* 0 not checked yet, 1 every folder as recorded, -1 not */
	items dirs, recs;       /* as loaded */
	strset fresh_dirs;
	items fresh_recs;
	int dirty;
	/* The folder's listing: loaded (have_list), then matched now (list_now
	 * 1), or listed now and settled (2) or not (-1). */
	int have_list, list_now;
	pyrt_cache_id list_id;
	char **names;
	size_t nnames, cap_names;
	meta_row *metas;
	size_t nmetas, cap_metas;
} site;

struct pyrt_dists_memo {
	char dir[PATH_MAX];
	struct timespec started;
	int timed;
	int learnt;     /* a listing or a METADATA recorded now */
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

void pyrt_dists_meta_clear(pyrt_dists_meta *meta)
{
	for (size_t i = 0; i < meta->nreqs; i++)
		free(meta->reqs[i]);
	free(meta->reqs);
	free(meta->version);
	memset(meta, 0, sizeof *meta);
}

static void names_free(site *st)
{
	for (size_t i = 0; i < st->nnames; i++)
		free(st->names[i]);
	free(st->names);
	st->names = NULL;
	st->nnames = st->cap_names = 0;
}

/* s (taken over, freed on failure) joins st's listing; 0 or -1. */
static int names_add(site *st, char *s)
{
	if (!s || st->nnames >= MEMO_ITEMS) {
		free(s);
		return -1;
	}
	if (st->nnames == st->cap_names) {
		size_t cap = st->cap_names ? st->cap_names * 2 : 16;
		char **v = realloc(st->names, cap * sizeof *v);
		if (!v) {
			free(s);
			return -1;
		}
		st->names = v;
		st->cap_names = cap;
	}
	st->names[st->nnames++] = s;
	return 0;
}

/* A new METADATA row of st named name (taken over, freed on failure):
 * the row, or NULL. */
static meta_row *metas_add(site *st, char *name)
{
	if (!name || st->nmetas >= MEMO_ITEMS) {
		free(name);
		return NULL;
	}
	if (st->nmetas == st->cap_metas) {
		size_t cap = st->cap_metas ? st->cap_metas * 2 : 16;
		meta_row *v = realloc(st->metas, cap * sizeof *v);
		if (!v) {
			free(name);
			return NULL;
		}
		st->metas = v;
		st->cap_metas = cap;
	}
	meta_row *r = &st->metas[st->nmetas++];
	memset(r, 0, sizeof *r);
	r->name = name;
	return r;
}

/* s (taken over, freed on failure) joins meta's requirements; 0 or -1. */
static int reqs_add(pyrt_dists_meta *meta, char *s)
{
	char **v = s && meta->nreqs < MEMO_ITEMS
		   ? realloc(meta->reqs, (meta->nreqs + 1) * sizeof *v) : NULL;
	if (!v) {
		free(s);
		return -1;
	}
	meta->reqs = v;
	meta->reqs[meta->nreqs++] = s;
	return 0;
}

static void site_free(site *st)
{
	free(st->path);
	names_free(st);
	for (size_t i = 0; i < st->nmetas; i++) {
		free(st->metas[i].name);
		pyrt_dists_meta_clear(&st->metas[i].meta);
	}
	free(st->metas);
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
	pyrt_cache_cur_id(c, id);
}

/* One line of kind after its kind byte, into the site st (NULL before
 * the first S); the site it leaves current.  Out of place: c->bad. */
static site *parse_line(pyrt_dists_memo *m, cursor *c, char kind, site *st)
{
	pyrt_cache_id id = { { 0 } };
	if (kind == 'L') {
		/* Once per site, before its entries and rows. */
		if (!st || st->have_list || st->nnames || st->nmetas)
			c->bad = 1;
		cur_id(c, st ? &st->list_id : &id);
		if (st && !c->bad)
			st->have_list = 1;
		return st;
	}
	if (kind == 'Q') {
		/* Right after its M (memo_parse sees to it). */
		char *s = pyrt_cache_cur_str(c, PATH_MAX);
		if (s && (!st || !st->nmetas)) {
			free(s);
			c->bad = 1;
		} else if (s &&
			   reqs_add(&st->metas[st->nmetas - 1].meta, s) != 0) {
			c->bad = 1;
		}
		return st;
	}
	char *s = cur_str(c);
	if (kind == 'S') {
		if (s && s[0] == '/' && m->n < MEMO_SITES) {
			st = &m->s[m->n++];
			st->path = s;
			st->fd = -1;
			return st;
		}
	} else if (kind == 'E' && st && st->have_list && !st->nmetas && s &&
		   !strchr(s, '/')) {
		if (names_add(st, s) != 0)
			c->bad = 1;
		return st;
	} else if (kind == 'M' && st && s && !strchr(s, '/')) {
		meta_row *r = metas_add(st, s);
		if (!r) {
			c->bad = 1;
			return st;
		}
		cur_id(c, &r->dir_id);
		cur_id(c, &r->id);
		char *v = pyrt_cache_cur_str(c, PATH_MAX);
		if (v && *v)
			r->meta.version = v;
		else
			free(v);
		return st;
	} else if ((kind == 'D' || kind == 'R') && st && s &&
		   s[0] != '/' && (kind == 'D' || !strchr(s, '/'))) {
		cur_id(c, &id);
		if (!c->bad &&
		    items_add(kind == 'D' ? &st->dirs : &st->recs, s, &id) != 0)
			c->bad = 1;
		else if (c->bad)
			free(s);
		return st;
	}
	free(s);
	c->bad = 1;
	return st;
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
	char prev = 0;
	while (!c.bad && c.p < c.end) {
		char kind = *c.p++;
		if (kind == 'Q' && prev != 'M' && prev != 'Q')
			c.bad = 1;
		else
			st = parse_line(m, &c, kind, st);
		prev = kind;
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

/* The site at path (absolute), found or added (nothing remembered for
 * it), and marked read now: its index, or -1. */
static int site_at(pyrt_dists_memo *m, const char *path)
{
	if (!m || path[0] != '/')
		return -1;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->s[i].path, path) == 0) {
			m->s[i].seen = 1;
			return (int)i;
		}
	if (m->n == MEMO_SITES)
		return -1;
	site *st = &m->s[m->n];
	memset(st, 0, sizeof *st);
	if (!(st->path = strdup(path)))
		return -1;
	st->fd = -1;
	st->seen = 1;
	st->state = -1; /* nothing remembered for it */
	return (int)m->n++;
}

int pyrt_dists_memo_site(pyrt_dists_memo *m, const char *path, int fd)
{
	int i = fd >= 0 ? site_at(m, path) : -1;
	if (i < 0)
		return -1;
	if (m->s[i].fd >= 0 && m->s[i].fd != fd)
		return -1; /* one site read twice: no memo */
	m->s[i].fd = fd;
	return i;
}

int pyrt_dists_memo_folder(pyrt_dists_memo *m, const char *path)
{
	return site_at(m, path);
}

static site *site_of(const pyrt_dists_memo *m, int idx)
{
	return m && idx >= 0 && (size_t)idx < m->n ? (site *)&m->s[idx] : NULL;
}

long pyrt_dists_memo_listed(const pyrt_dists_memo *m, int idx)
{
	const site *st = site_of(m, idx);
	return st && st->have_list ? (long)st->nnames : -1;
}

int pyrt_dists_memo_listing(pyrt_dists_memo *m, int idx,
			    const struct stat *sb, char *const **names,
			    size_t *n)
{
	site *st = site_of(m, idx);
	pyrt_cache_id now;
	if (!st || !st->have_list || st->list_now || !S_ISDIR(sb->st_mode))
		return 0;
	pyrt_cache_id_of(sb, &now);
	if (!pyrt_cache_id_same(&now, &st->list_id))
		return 0;
	st->list_now = 1;
	*names = st->names;
	*n = st->nnames;
	return 1;
}

void pyrt_dists_memo_put_listing(pyrt_dists_memo *m, int idx,
				 const struct stat *sb,
				 const char *const *names, size_t n)
{
	site *st = site_of(m, idx);
	if (!st || st->list_now == 1)
		return;
	names_free(st);
	st->have_list = 0;
	st->list_now = -1;
	for (size_t i = 0; i < n; i++)
		if (names_add(st, strdup(names[i])) != 0)
			return;
	/* Listed after sb was taken: an entry changed since changed the
	 * times; one changed just before, in the same tick, is why only a
	 * settled identity is recorded (cache_seal.h). */
	if (!S_ISDIR(sb->st_mode) || !pyrt_cache_settled(sb, &m->started))
		return;
	pyrt_cache_id_of(sb, &st->list_id);
	st->have_list = 1;
	st->list_now = 2;
	m->learnt = 1;
}

/* Whether at (relative to fd, not followed) is the entry recorded as id,
 * of the type type (S_IFDIR, S_IFREG). */
static int entry_same(int fd, const char *at, mode_t type,
		      const pyrt_cache_id *id)
{
	struct stat sb;
	pyrt_cache_id now;
	if (fstatat(fd, at, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
	    (sb.st_mode & S_IFMT) != type)
		return 0;
	pyrt_cache_id_of(&sb, &now);
	return pyrt_cache_id_same(&now, id);
}

int pyrt_dists_memo_meta(pyrt_dists_memo *m, int idx, int fd,
			 const char *name, const pyrt_dists_meta **meta)
{
	site *st = site_of(m, idx);
	char rel[PATH_MAX];
	for (size_t i = 0; st && fd >= 0 && i < st->nmetas; i++) {
		meta_row *r = &st->metas[i];
		if (r->dropped || strcmp(r->name, name) != 0)
			continue;
		if (entry_same(fd, name, S_IFDIR, &r->dir_id) &&
		    !pyrt_fmt_path(rel, sizeof rel, NULL, "%s/METADATA", name) &&
		    entry_same(fd, rel, S_IFREG, &r->id)) {
			*meta = &r->meta;
			return 1;
		}
		r->dropped = 1;
	}
	return 0;
}

/* A copy of meta into r->meta; 0 or -1. */
static int meta_copy(meta_row *r, const pyrt_dists_meta *meta)
{
	if (meta->version && !(r->meta.version = strdup(meta->version)))
		return -1;
	for (size_t i = 0; i < meta->nreqs; i++)
		if (reqs_add(&r->meta, strdup(meta->reqs[i])) != 0)
			return -1;
	return 0;
}

void pyrt_dists_memo_put_meta(pyrt_dists_memo *m, int idx, const char *name,
			      const struct stat *dir, const struct stat *file,
			      const pyrt_dists_meta *meta)
{
	site *st = site_of(m, idx);
	if (!st || strchr(name, '/') || !S_ISDIR(dir->st_mode) ||
	    !S_ISREG(file->st_mode) || !pyrt_cache_settled(dir, &m->started) ||
	    !pyrt_cache_settled(file, &m->started))
		return;
	for (size_t i = 0; i < st->nmetas; i++)
		if (strcmp(st->metas[i].name, name) == 0)
			st->metas[i].dropped = 1;
	meta_row *r = metas_add(st, strdup(name));
	if (!r)
		return;
	pyrt_cache_id_of(dir, &r->dir_id);
	pyrt_cache_id_of(file, &r->id);
	if (meta_copy(r, meta) != 0) {
		r->dropped = 1;
		return;
	}
	m->learnt = 1;
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
	if (st->fd < 0)
		return 0;
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
	char b[32];
	int n = snprintf(b, sizeof b, "%c %zu:", kind, strlen(s));
	pyrt_cache_text_add(o, b, (size_t)n);
	pyrt_cache_text_add(o, s, strlen(s));
	if (id)
		pyrt_cache_text_add_id(o, id);
	pyrt_cache_text_add(o, "\n", 1);
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

/* Whether name is in st's listing of now (or, not listed now, as
 * loaded): a METADATA row of a dist-info gone is not written back. */
static int listed_now(const site *st, const char *name)
{
	for (size_t i = 0; i < st->nnames; i++)
		if (strcmp(st->names[i], name) == 0)
			return 1;
	return 0;
}

static void out_str(out *o, char kind, const char *s)
{
	char b[32];
	int n = snprintf(b, sizeof b, "%c %zu:", kind, strlen(s));
	pyrt_cache_text_add(o, b, (size_t)n);
	pyrt_cache_text_add(o, s, strlen(s));
	pyrt_cache_text_add(o, "\n", 1);
}

static void out_ids(out *o, const pyrt_cache_id *id)
{
	pyrt_cache_text_add_id(o, id);
}

/* st's listing and METADATA rows: the listing when it holds now (matched,
 * or listed now and settled, or not looked at now); the rows of
 * dist-infos in it not found changed. */
static void out_listing(out *o, const site *st)
{
	int list = st->have_list && st->list_now >= 0;
	if (list) {
		pyrt_cache_text_add(o, "L", 1);
		out_ids(o, &st->list_id);
		pyrt_cache_text_add(o, "\n", 1);
		for (size_t i = 0; i < st->nnames; i++)
			out_str(o, 'E', st->names[i]);
	}
	for (size_t i = 0; i < st->nmetas; i++) {
		const meta_row *r = &st->metas[i];
		if (r->dropped || (st->list_now && !listed_now(st, r->name)))
			continue;
		char b[32];
		int n = snprintf(b, sizeof b, "M %zu:", strlen(r->name));
		pyrt_cache_text_add(o, b, (size_t)n);
		pyrt_cache_text_add(o, r->name, strlen(r->name));
		out_ids(o, &r->dir_id);
		out_ids(o, &r->id);
		const char *v = r->meta.version ? r->meta.version : "";
		n = snprintf(b, sizeof b, " %zu:", strlen(v));
		pyrt_cache_text_add(o, b, (size_t)n);
		pyrt_cache_text_add(o, v, strlen(v));
		pyrt_cache_text_add(o, "\n", 1);
		for (size_t j = 0; j < r->meta.nreqs; j++)
			out_str(o, 'Q', r->meta.reqs[j]);
	}
}

/* st's whole verdicts: as loaded when none was asked now (they are checked
 * when used); else each folder stat'ed now, or nothing when one is not
 * settled. */
static void out_whole(out *o, const pyrt_dists_memo *m, const site *st)
{
	size_t mark = o->len;
	if (st->state == 0 || st->fd < 0 || st->dirty < 0) {
		for (size_t i = 0; st->state == 0 && i < st->dirs.n; i++)
			out_line(o, 'D', st->dirs.v[i].s, &st->dirs.v[i].id);
		for (size_t i = 0; st->state == 0 && i < st->recs.n; i++)
			out_line(o, 'R', st->recs.v[i].s, &st->recs.v[i].id);
		return;
	}
	int keep = st->state == 1; /* what was loaded still holds */
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

/* site st's block, or nothing when nothing of it holds. */
static void out_site(out *o, const pyrt_dists_memo *m, const site *st)
{
	size_t mark = o->len;
	out_line(o, 'S', st->path, NULL);
	size_t head = o->len;
	out_listing(o, st);
	out_whole(o, m, st);
	if (o->len == head) {
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
		write |= m->s[i].seen && m->s[i].dirty == 1;
	if ((write || m->learnt) && m->dir[0]) {
		out o = { .max = MEMO_MAX };
		char head[64];
		int hn = snprintf(head, sizeof head, MEMO_MAGIC " %d\n",
				  MEMO_SCHEMA);
		pyrt_cache_text_add(&o, head, (size_t)hn);
		/* Only the sites read now: an older install's are dropped. */
		for (size_t i = 0; i < m->n; i++)
			if (m->s[i].seen)
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
