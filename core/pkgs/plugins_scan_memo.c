/*
 * The plugin scan remembered on the identities it depends on (see
 * plugins_scan_memo.h).
 */
#include "core/pkgs/plugins_scan_memo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/cache_seal.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"

#define SCAN_SCHEMA 1
#define SCAN_MAGIC "pyrt-plugins-scan"
#define SCAN_MAX (16 * 1024 * 1024)
#define SCAN_ENTRIES_MAX 1024 /* plugins.c's PLUGINS_MAX */
#define SCAN_REQS_MAX 256     /* plugins.c's REQUIRES_MAX */

/* Identities, the settle rule and the sealed file: cache_seal.h. */
#define ID_FIELDS PYRT_CACHE_ID_FIELDS

static void identity_of(const struct stat *sb, long long id[ID_FIELDS])
{
	pyrt_cache_id c;
	pyrt_cache_id_of(sb, &c);
	memcpy(id, c.f, sizeof c.f);
}

static int settled(const struct stat *sb, const struct timespec *started)
{
	return pyrt_cache_settled(sb, started);
}

/* ------------------------------------------------------------ writing */

typedef pyrt_cache_text out;

static void out_num(out *o, long long v)
{
	char b[32];
	int n = snprintf(b, sizeof b, " %lld", v);
	pyrt_cache_text_add(o, b, (size_t)n);
}

/* " <length>:<bytes>", or " -" for NULL. */
static void out_str(out *o, const char *s)
{
	if (!s) {
		pyrt_cache_text_add(o, " -", 2);
		return;
	}
	char b[32];
	size_t len = strlen(s);
	int n = snprintf(b, sizeof b, " %zu:", len);
	pyrt_cache_text_add(o, b, (size_t)n);
	pyrt_cache_text_add(o, s, len);
}

static void out_id(out *o, const struct stat *sb)
{
	long long id[ID_FIELDS];
	identity_of(sb, id);
	for (int i = 0; i < ID_FIELDS; i++)
		out_num(o, id[i]);
}

static void out_row(out *o, const pyrt_scan_row *r)
{
	out_num(o, r->enabled ? 1 : 0);
	out_num(o, r->needs_runtime ? 1 : 0);
	out_str(o, r->error);
	out_num(o, (long long)r->require_count);
	for (size_t i = 0; i < r->require_count; i++) {
		out_str(o, r->requires[i].spec);
		out_str(o, r->requires[i].name);
		out_num(o, (long long)r->lines[i]);
	}
}

static const pyrt_scan_row *row_named(const pyrt_scan_row *rows, size_t n,
				      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

/* One entry of plugins/: recorded, skipped (0), or -1: nothing may be
 * remembered. */
static int store_entry(out *o, int dfd, const char *name,
		       const struct timespec *started,
		       const pyrt_scan_row *rows, size_t n)
{
	struct stat fsb, ysb;
	if (fstatat(dfd, name, &fsb, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISLNK(fsb.st_mode))
		return -1; /* its target can change under it */
	if (!S_ISDIR(fsb.st_mode))
		return 0;  /* the scan skips it, and so does a look-up */
	if (!settled(&fsb, started))
		return -1;
	char rel[NAME_MAX + 16];
	if (snprintf(rel, sizeof rel, "%s/plugin.yaml", name) >=
	    (int)sizeof rel)
		return -1;
	const pyrt_scan_row *r = row_named(rows, n, name);
	if (fstatat(dfd, rel, &ysb, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT || r)
			return -1;
		pyrt_cache_text_add(o, "N", 1);
		out_str(o, name);
		out_id(o, &fsb);
		pyrt_cache_text_add(o, "\n", 1);
		return 0;
	}
	if (!r || !settled(&ysb, started))
		return -1;
	pyrt_cache_text_add(o, "P", 1);
	out_str(o, name);
	out_id(o, &fsb);
	out_id(o, &ysb);
	out_row(o, r);
	pyrt_cache_text_add(o, "\n", 1);
	return 0;
}

void pyrt_plugins_scan_memo_store(const char *dir, const char *plugins_dir,
				  const struct timespec *started,
				  const pyrt_scan_row *rows, size_t n)
{
	if (n >= SCAN_ENTRIES_MAX)
		return;
	int dfd = open(plugins_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct stat dsb;
	out o = { .max = SCAN_MAX };
	size_t recorded = 0;
	int ok = fstat(dfd, &dsb) == 0 && settled(&dsb, started);
	if (ok) {
		char head[64];
		int hn = snprintf(head, sizeof head, SCAN_MAGIC " %d\nD",
				  SCAN_SCHEMA);
		pyrt_cache_text_add(&o, head, (size_t)hn);
		out_str(&o, plugins_dir);
		out_id(&o, &dsb);
		pyrt_cache_text_add(&o, "\n", 1);
	}
	struct dirent *de;
	while (ok && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		size_t before = o.len;
		if (store_entry(&o, dfd, de->d_name, started, rows, n) != 0)
			ok = 0;
		else if (o.len != before && o.s[before] == 'P')
			recorded++;
	}
	closedir(d);
	/* Every row accounted for: a row the entries did not give (a
	 * symlink's, a name made printable) means this scan is not one a
	 * look-up can give back. */
	if (ok && !o.failed && recorded == n)
		pyrt_cache_write_sealed(dir, PYRT_PLUGINS_SCAN_MEMO_FILE,
					o.s, o.len);
	free(o.s);
}

/* ------------------------------------------------------------ reading */

typedef pyrt_cache_cursor cursor;

/* A string, copied NUL-terminated into a buffer the caller frees (NULL
 * for "-"); *present says which. */
static char *cur_str(cursor *c, int *present)
{
	*present = 0;
	if (!c->bad && c->end - c->p >= 2 && c->p[0] == ' ' && c->p[1] == '-') {
		c->p += 2;
		return NULL;
	}
	char *s = pyrt_cache_cur_str(c, SCAN_MAX);
	*present = s != NULL;
	return s;
}

static int cur_id_matches(cursor *c, const struct stat *sb)
{
	long long id[ID_FIELDS];
	identity_of(sb, id);
	int same = 1;
	for (int i = 0; i < ID_FIELDS; i++)
		same &= pyrt_cache_cur_num(c) == id[i];
	return same && !c->bad;
}

static void cur_skip_id(cursor *c)
{
	for (int i = 0; i < ID_FIELDS; i++)
		pyrt_cache_cur_num(c);
}

/* One parsed row and what it owns. */
typedef struct parsed {
	pyrt_scan_row row;
	char *name, *error;
	pyrt_requirement reqs[SCAN_REQS_MAX];
	size_t lines[SCAN_REQS_MAX];
} parsed;

static void parsed_clear(parsed *p)
{
	free(p->name);
	free(p->error);
	for (size_t i = 0; i < p->row.require_count; i++) {
		free((char *)p->reqs[i].spec);
		free((char *)p->reqs[i].name);
	}
	memset(&p->row, 0, sizeof p->row);
	p->name = p->error = NULL;
}

/* The row after "P <name> <id> <id>" into p (p->name already set); 0, or
 * -1 when malformed. */
static int parse_row(cursor *c, parsed *p)
{
	int present;
	p->row.enabled = (int)pyrt_cache_cur_num(c);
	p->row.needs_runtime = (int)pyrt_cache_cur_num(c);
	p->error = cur_str(c, &present);
	long long n = pyrt_cache_cur_num(c);
	if (c->bad || n < 0 || n > SCAN_REQS_MAX)
		return -1;
	for (long long i = 0; i < n; i++) {
		int has_spec, has_name;
		p->reqs[i].spec = cur_str(c, &has_spec);
		p->reqs[i].name = cur_str(c, &has_name);
		p->row.require_count = (size_t)i + 1;
		long long line = pyrt_cache_cur_num(c);
		if (c->bad || !has_spec || line < 0)
			return -1;
		p->lines[i] = (size_t)line;
	}
	p->row.name = p->name;
	p->row.error = p->error;
	p->row.requires = p->reqs;
	p->row.lines = p->lines;
	return pyrt_cache_cur_char(c, '\n') ? 0 : -1;
}

/* Whether name (stored for plugins/) is a plain entry name that fits. */
static int entry_rel(const char *name, char *rel, size_t len)
{
	return name[0] != '.' && !strchr(name, '/') &&
	       snprintf(rel, len, "%s/plugin.yaml", name) < (int)len;
}

/* The current state of one stored entry against its identities
 * (check: 1) or its row given to fn (check: 0).  1 ok, 0 a miss or
 * malformed, -1 fn stopped. */
static int walk_entry(cursor *c, int dfd, int check, pyrt_scan_row_fn fn,
		      void *ctx, parsed *p)
{
	char kind = c->p < c->end ? *c->p++ : '\0';
	int present;
	char rel[NAME_MAX + 16];
	p->name = cur_str(c, &present);
	if (!present || (kind != 'N' && kind != 'P') ||
	    !entry_rel(p->name, rel, sizeof rel))
		return 0;
	struct stat fsb, ysb;
	if (check) {
		if (fstatat(dfd, p->name, &fsb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !cur_id_matches(c, &fsb))
			return 0;
		int yaml = fstatat(dfd, rel, &ysb, AT_SYMLINK_NOFOLLOW);
		if (kind == 'N')
			/* Still no manifest in it. */
			return yaml != 0 && errno == ENOENT &&
			       pyrt_cache_cur_char(c, '\n');
		if (yaml != 0 || !cur_id_matches(c, &ysb))
			return 0;
		return parse_row(c, p) == 0;
	}
	cur_skip_id(c);
	if (kind == 'N')
		return pyrt_cache_cur_char(c, '\n');
	cur_skip_id(c);
	if (parse_row(c, p) != 0)
		return 0;
	return fn(ctx, &p->row) ? -1 : 1;
}

/* Pass 1 (check): every identity as it is now; pass 2: every row to fn.
 * Returns 1 (all matched / all given), 0 (a miss), -1 (fn stopped). */
static int walk(const char *body, size_t len, const char *plugins_dir,
		int dfd, int check, pyrt_scan_row_fn fn, void *ctx,
		parsed *p)
{
	cursor c = { body, body + len, 0 };
	int present, rc = 1;
	static const char magic[] = SCAN_MAGIC;
	if ((size_t)(c.end - c.p) < sizeof magic - 1 ||
	    memcmp(c.p, magic, sizeof magic - 1) != 0)
		return 0;
	c.p += sizeof magic - 1;
	if (pyrt_cache_cur_num(&c) != SCAN_SCHEMA || !pyrt_cache_cur_char(&c, '\n') ||
	    !pyrt_cache_cur_char(&c, 'D'))
		return 0;
	char *pd = cur_str(&c, &present);
	int same_dir = present && strcmp(pd, plugins_dir) == 0;
	free(pd);
	struct stat sb;
	if (!same_dir || fstat(dfd, &sb) != 0 || !cur_id_matches(&c, &sb) ||
	    !pyrt_cache_cur_char(&c, '\n'))
		return 0;
	for (size_t n = 0; rc == 1 && c.p < c.end; n++) {
		rc = n < SCAN_ENTRIES_MAX
		     ? walk_entry(&c, dfd, check, fn, ctx, p) : 0;
		parsed_clear(p);
		if (c.bad && rc == 1)
			rc = 0;
	}
	return rc;
}

int pyrt_plugins_scan_memo_load(const char *dir, const char *plugins_dir,
				pyrt_scan_row_fn fn, void *ctx)
{
	char *data = NULL;
	const char *body = NULL;
	size_t len = 0;
	if (pyrt_cache_read_sealed(dir, PYRT_PLUGINS_SCAN_MEMO_FILE, SCAN_MAX,
				   &data, &body, &len) != 0)
		return 0;
	int rc = 0;
	parsed *p = calloc(1, sizeof *p);
	int dfd = open(plugins_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p && dfd >= 0 &&
	    walk(body, len, plugins_dir, dfd, 1, NULL, NULL, p) == 1)
		rc = walk(body, len, plugins_dir, dfd, 0, fn, ctx, p);
	if (dfd >= 0)
		close(dfd);
	if (p)
		parsed_clear(p);
	free(p);
	free(data);
	return rc;
}
