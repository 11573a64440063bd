/*
 * The declared state (declared.h): a JSON file read and written whole.
 * Every list is bounded and every string checked on read, so a damaged
 * file is an error naming the field, never a guess.
 */
#include "core/runtime/declared.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/pep440.h"
#include "core/util/redact.h"
#include "core/util/requirement.h"

#define DECLARED_MAX_BYTES (1024 * 1024)
#define LIST_MAX 4096
#define STR_MAX 4096

typedef struct strv {
	char **v;
	size_t n;
} strv;

typedef struct plugin_decl {
	char *name;
	strv reqs;
} plugin_decl;

typedef struct pending_work {
	char *kind;
	char *plugin;
} pending_work;

struct pyrt_declared {
	int baseline_known;
	strv baseline;
	plugin_decl *plugins;
	size_t nplugins;
	char *wheelhouse;
	char *index_url;
	char lock[PYRT_SHA256_HEX_LEN + 1];
	pending_work *pending;
	size_t npending;
	int64_t reconciled;
};

static void strv_clear(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A copy of reqs[n] into s, replacing what it held; 0 or -1. */
static int strv_set(strv *s, const char *const *reqs, size_t n)
{
	strv t = { calloc(n ? n : 1, sizeof *t.v), 0 };
	if (!t.v)
		return -1;
	for (; t.n < n; t.n++)
		if (!(t.v[t.n] = strdup(reqs[t.n]))) {
			strv_clear(&t);
			return -1;
		}
	strv_clear(s);
	*s = t;
	return 0;
}

static void declared_clear(pyrt_declared *d)
{
	strv_clear(&d->baseline);
	for (size_t i = 0; i < d->nplugins; i++) {
		free(d->plugins[i].name);
		strv_clear(&d->plugins[i].reqs);
	}
	free(d->plugins);
	for (size_t i = 0; i < d->npending; i++) {
		free(d->pending[i].kind);
		free(d->pending[i].plugin);
	}
	free(d->pending);
	free(d->wheelhouse);
	free(d->index_url);
	memset(d, 0, sizeof *d);
}

pyrt_declared *pyrt_declared_new(void)
{
	return calloc(1, sizeof(pyrt_declared));
}

void pyrt_declared_free(pyrt_declared *d)
{
	if (!d)
		return;
	declared_clear(d);
	free(d);
}

int pyrt_declared_path(const char *runtime_dir, char *out, size_t len,
		       pyrt_error *err)
{
	return pyrt_fmt_path(out, len, err, "%s/%s", runtime_dir,
			     PYRT_DECLARED_FILE);
}

/* ---- setters and getters ---- */

int pyrt_declared_set_baseline(pyrt_declared *d, const char *const *reqs,
			       size_t n)
{
	if (strv_set(&d->baseline, reqs, n) != 0)
		return PYRT_E_NOMEM;
	d->baseline_known = 1;
	return 0;
}

int pyrt_declared_baseline_known(const pyrt_declared *d)
{
	return d->baseline_known;
}

size_t pyrt_declared_baseline_count(const pyrt_declared *d)
{
	return d->baseline.n;
}

const char *pyrt_declared_baseline_at(const pyrt_declared *d, size_t i)
{
	return i < d->baseline.n ? d->baseline.v[i] : NULL;
}

long pyrt_declared_plugin_find(const pyrt_declared *d, const char *name)
{
	for (size_t i = 0; i < d->nplugins; i++)
		if (strcmp(d->plugins[i].name, name) == 0)
			return (long)i;
	return -1;
}

int pyrt_declared_set_plugin(pyrt_declared *d, const char *name,
			     const char *const *reqs, size_t n)
{
	long at = pyrt_declared_plugin_find(d, name);
	if (!n) {
		if (at < 0)
			return 0;
		free(d->plugins[at].name);
		strv_clear(&d->plugins[at].reqs);
		d->plugins[at] = d->plugins[--d->nplugins];
		return 0;
	}
	if (at < 0) {
		plugin_decl *p = realloc(d->plugins,
					 (d->nplugins + 1) * sizeof *p);
		if (!p)
			return PYRT_E_NOMEM;
		d->plugins = p;
		memset(&p[d->nplugins], 0, sizeof *p);
		if (!(p[d->nplugins].name = strdup(name)))
			return PYRT_E_NOMEM;
		at = (long)d->nplugins++;
	}
	return strv_set(&d->plugins[at].reqs, reqs, n) ? PYRT_E_NOMEM : 0;
}

size_t pyrt_declared_plugin_count(const pyrt_declared *d)
{
	return d->nplugins;
}

const char *pyrt_declared_plugin_name(const pyrt_declared *d, size_t i)
{
	return i < d->nplugins ? d->plugins[i].name : NULL;
}

const char *const *pyrt_declared_plugin_reqs(const pyrt_declared *d, size_t i,
					     size_t *n)
{
	*n = i < d->nplugins ? d->plugins[i].reqs.n : 0;
	return i < d->nplugins ? (const char *const *)d->plugins[i].reqs.v
			       : NULL;
}

/* *slot = a copy of s (NULL or "" clears); 0 or PYRT_E_NOMEM. */
static int set_str(char **slot, const char *s)
{
	char *c = s && *s ? strdup(s) : NULL;
	if (s && *s && !c)
		return PYRT_E_NOMEM;
	free(*slot);
	*slot = c;
	return 0;
}

int pyrt_declared_set_source(pyrt_declared *d, const char *wheelhouse,
			     const char *index_url)
{
	char red[STR_MAX];
	if (index_url) {
		pyrt_redact_url(index_url, red, sizeof red);
		/* A URL redaction changed held a secret: never stored, and a
		 * redacted one could not be used again. */
		if (strcmp(red, index_url) != 0)
			index_url = NULL;
	}
	int rc = set_str(&d->wheelhouse, wheelhouse);
	return rc ? rc : set_str(&d->index_url, index_url);
}

const char *pyrt_declared_wheelhouse(const pyrt_declared *d)
{
	return d->wheelhouse;
}

const char *pyrt_declared_index_url(const pyrt_declared *d)
{
	return d->index_url;
}

int pyrt_declared_set_lock(pyrt_declared *d, const char *sha256_hex)
{
	if (sha256_hex && strlen(sha256_hex) > PYRT_SHA256_HEX_LEN)
		return PYRT_E_INTERNAL;
	pyrt_fmt_text(d->lock, sizeof d->lock, "%s", sha256_hex ? sha256_hex : "");
	return 0;
}

const char *pyrt_declared_lock(const pyrt_declared *d)
{
	return d->lock;
}

static long pending_find(const pyrt_declared *d, const char *kind,
			 const char *plugin)
{
	for (size_t i = 0; i < d->npending; i++)
		if (strcmp(d->pending[i].kind, kind) == 0 &&
		    strcmp(d->pending[i].plugin, plugin ? plugin : "") == 0)
			return (long)i;
	return -1;
}

int pyrt_declared_pending_add(pyrt_declared *d, const char *kind,
			      const char *plugin)
{
	if (pending_find(d, kind, plugin) >= 0)
		return 0;
	pending_work *p = realloc(d->pending, (d->npending + 1) * sizeof *p);
	if (!p)
		return PYRT_E_NOMEM;
	d->pending = p;
	p[d->npending].kind = strdup(kind);
	p[d->npending].plugin = strdup(plugin ? plugin : "");
	if (!p[d->npending].kind || !p[d->npending].plugin) {
		free(p[d->npending].kind);
		free(p[d->npending].plugin);
		return PYRT_E_NOMEM;
	}
	d->npending++;
	return 0;
}

int pyrt_declared_pending_clear(pyrt_declared *d, const char *kind,
				const char *plugin)
{
	long at = pending_find(d, kind, plugin);
	if (at < 0)
		return 0;
	free(d->pending[at].kind);
	free(d->pending[at].plugin);
	/* Order kept: pending work is finished in the order it was left. */
	memmove(&d->pending[at], &d->pending[at + 1],
		(d->npending - (size_t)at - 1) * sizeof *d->pending);
	d->npending--;
	return 1;
}

size_t pyrt_declared_pending_count(const pyrt_declared *d)
{
	return d->npending;
}

const char *pyrt_declared_pending_at(const pyrt_declared *d, size_t i,
				     const char **plugin)
{
	if (i >= d->npending) {
		if (plugin)
			*plugin = "";
		return NULL;
	}
	if (plugin)
		*plugin = d->pending[i].plugin;
	return d->pending[i].kind;
}

void pyrt_declared_set_reconciled(pyrt_declared *d, int64_t ns)
{
	d->reconciled = ns;
}

int64_t pyrt_declared_reconciled(const pyrt_declared *d)
{
	return d->reconciled;
}

/* ---- writing ---- */

static json_t *strv_json(const strv *s)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < s->n; i++)
		if (json_array_append_new(a, json_string(s->v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *declared_json(const pyrt_declared *d)
{
	json_t *plugins = json_object(), *pending = json_array();
	for (size_t i = 0; plugins && i < d->nplugins; i++)
		if (json_object_set_new(plugins, d->plugins[i].name,
					strv_json(&d->plugins[i].reqs)) != 0) {
			json_decref(plugins);
			plugins = NULL;
		}
	for (size_t i = 0; pending && i < d->npending; i++)
		if (json_array_append_new(pending, json_pack(
			"{s:s, s:s}", "work", d->pending[i].kind, "plugin",
			d->pending[i].plugin)) != 0) {
			json_decref(pending);
			pending = NULL;
		}
	json_t *source = json_object();
	if (source && d->wheelhouse)
		json_object_set_new(source, "wheelhouse",
				    json_string(d->wheelhouse));
	if (source && d->index_url)
		json_object_set_new(source, "index_url",
				    json_string(d->index_url));
	json_t *baseline = d->baseline_known ? strv_json(&d->baseline)
					     : json_null();
	if (!plugins || !pending || !source || !baseline) {
		json_decref(plugins);
		json_decref(pending);
		json_decref(source);
		json_decref(baseline);
		return NULL;
	}
	return json_pack("{s:i, s:o, s:o, s:s, s:o, s:o, s:I}", "schema",
			 PYRT_DECLARED_SCHEMA, "baseline", baseline, "plugins",
			 plugins, "lock_sha256", d->lock, "source", source,
			 "pending", pending, "reconciled_ns",
			 (json_int_t)d->reconciled);
}

int pyrt_declared_write(const pyrt_declared *d, const char *path,
			pyrt_error *err)
{
	json_t *doc = declared_json(d);
	char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS)
			 : NULL;
	json_decref(doc);
	if (!text)
		return pyrt_error_set(err, PYRT_E_INTERNAL, "cannot encode %s "
				      "(out of memory or invalid UTF-8)", path);
	/* 0644: status, plugins and doctor read it as any user of the box. */
	int rc = pyrt_fs_write_file_atomic_mode(path, text, strlen(text), 0644,
						err);
	free(text);
	return rc;
}

/* ---- reading ---- */

static int bad(pyrt_error *err, const char *path, const char *what)
{
	return pyrt_error_set(err, PYRT_E_NOT_READY, "%s is damaged (%s): "
			      "remove it and run \"pyrt baseline\" to declare "
			      "the runtime's packages again", path, what);
}

/* A string of bounded length without NUL; NULL when not. */
static const char *str_ok(json_t *v)
{
	if (!json_is_string(v) || json_string_length(v) >= STR_MAX ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return NULL;
	return json_string_value(v);
}

/* An array of requirements into s; 0 or -1. */
static int strv_read(json_t *a, strv *s, int reqs)
{
	if (!json_is_array(a) || json_array_size(a) > LIST_MAX)
		return -1;
	size_t n = json_array_size(a);
	const char **tmp = calloc(n + 1, sizeof *tmp);
	if (!tmp)
		return -1;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		tmp[i] = str_ok(json_array_get(a, i));
		if (!tmp[i] || (reqs && pyrt_requirement_check(tmp[i], NULL,
							       0) != 0))
			rc = -1;
	}
	if (!rc)
		rc = strv_set(s, tmp, n);
	free(tmp);
	return rc;
}

static int read_plugins(pyrt_declared *d, json_t *obj)
{
	if (!json_is_object(obj) || json_object_size(obj) > LIST_MAX)
		return -1;
	const char *name;
	json_t *v;
	json_object_foreach(obj, name, v) {
		strv s = { 0 };
		if (strlen(name) >= 256 || strv_read(v, &s, 1) != 0) {
			strv_clear(&s);
			return -1;
		}
		int rc = pyrt_declared_set_plugin(d, name,
						  (const char *const *)s.v, s.n);
		strv_clear(&s);
		if (rc)
			return -1;
	}
	return 0;
}

static int read_pending(pyrt_declared *d, json_t *a)
{
	if (!json_is_array(a) || json_array_size(a) > LIST_MAX)
		return -1;
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		const char *kind = str_ok(json_object_get(v, "work"));
		const char *plugin = str_ok(json_object_get(v, "plugin"));
		if (!kind || !plugin ||
		    (strcmp(kind, PYRT_DECLARED_REAPPLY) != 0 &&
		     strcmp(kind, PYRT_DECLARED_BASELINE) != 0) ||
		    pyrt_declared_pending_add(d, kind, plugin) != 0)
			return -1;
	}
	return 0;
}

static int read_source(pyrt_declared *d, json_t *o)
{
	if (!json_is_object(o))
		return -1;
	json_t *w = json_object_get(o, "wheelhouse");
	json_t *u = json_object_get(o, "index_url");
	const char *ws = w ? str_ok(w) : NULL, *us = u ? str_ok(u) : NULL;
	/* A relative wheelhouse would be relative to whoever runs next. */
	if ((w && (!ws || ws[0] != '/')) || (u && !us))
		return -1;
	return pyrt_declared_set_source(d, ws, us) ? -1 : 0;
}

static int declared_parse(pyrt_declared *d, json_t *doc, const char *path,
			  pyrt_error *err)
{
	if (!json_is_object(doc))
		return bad(err, path, "not a JSON object");
	if (json_integer_value(json_object_get(doc, "schema")) !=
	    PYRT_DECLARED_SCHEMA)
		return bad(err, path, "schema");
	json_t *b = json_object_get(doc, "baseline");
	if (b && !json_is_null(b)) {
		if (strv_read(b, &d->baseline, 1) != 0)
			return bad(err, path, "baseline");
		d->baseline_known = 1;
	}
	if (read_plugins(d, json_object_get(doc, "plugins")) != 0)
		return bad(err, path, "plugins");
	if (read_pending(d, json_object_get(doc, "pending")) != 0)
		return bad(err, path, "pending");
	if (read_source(d, json_object_get(doc, "source")) != 0)
		return bad(err, path, "source");
	const char *lock = str_ok(json_object_get(doc, "lock_sha256"));
	if (!lock || strlen(lock) > PYRT_SHA256_HEX_LEN ||
	    strspn(lock, "0123456789abcdef") != strlen(lock))
		return bad(err, path, "lock_sha256");
	pyrt_fmt_text(d->lock, sizeof d->lock, "%s", lock);
	json_t *r = json_object_get(doc, "reconciled_ns");
	if (!json_is_integer(r) || json_integer_value(r) < 0)
		return bad(err, path, "reconciled_ns");
	d->reconciled = (int64_t)json_integer_value(r);
	return 0;
}

int pyrt_declared_read(pyrt_declared *d, const char *path, int *found,
		       pyrt_error *err)
{
	declared_clear(d);
	*found = 0;
	char *text = NULL;
	size_t len = 0;
	pyrt_error rerr = PYRT_ERROR_INIT;
	int rc = pyrt_fs_read_state(path, DECLARED_MAX_BYTES, &text, &len,
				    &rerr);
	if (rc) {
		free(text);
		struct stat sb;
		if (lstat(path, &sb) != 0 && errno == ENOENT)
			return 0;
		return pyrt_error_set(err, rc, "%s", rerr.msg);
	}
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!doc)
		return bad(err, path, jerr.text);
	rc = declared_parse(d, doc, path, err);
	json_decref(doc);
	if (rc) {
		declared_clear(d);
		return rc;
	}
	*found = 1;
	return 0;
}

/* ---- the comparison ---- */

/* The leading name of requirement req ("Foo_Bar[x]>=1" → "Foo_Bar"). */
static void req_name(const char *req, char *out, size_t len)
{
	while (*req == ' ' || *req == '\t')
		req++;
	size_t n = strspn(req, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789-_.");
	pyrt_fmt_text(out, len, "%.*s", (int)n, req);
}

#define CLOSURE_MAX 512

/* The requirements met so far (by normalised name) and what to look at. */
typedef struct diff_walk {
	pyrt_dists *d;
	pyrt_declared_gap_fn fn;
	void *ctx;
	int gaps, unknown;
	char *seen[CLOSURE_MAX];
	size_t nseen;
	char *queue[CLOSURE_MAX]; /* installed: their own requirements next */
	size_t nqueue;
} diff_walk;

/* 1 when name was looked at before; else remembered. */
static int seen_before(diff_walk *w, const char *name)
{
	char norm[256];
	if (pyrt_name_normalize(name, strlen(name), '-', norm) != 0)
		return 1;
	for (size_t i = 0; i < w->nseen; i++)
		if (strcmp(w->seen[i], norm) == 0)
			return 1;
	if (w->nseen < CLOSURE_MAX)
		w->seen[w->nseen++] = strdup(norm);
	return 0;
}

/* One requirement against what is installed (dep: one an installed
 * distribution requires, where only a missing one counts). */
static void diff_one(diff_walk *w, const char *req, int dep)
{
	char name[256], have[128], split[256];
	req_name(req, name, sizeof name);
	if (!name[0]) {
		w->unknown += !dep;
		return;
	}
	/* Each declared requirement is judged; a dependency once. */
	if (seen_before(w, name) && dep)
		return;
	int rc = pyrt_dists_version(w->d, name, have, sizeof have);
	if (rc < 0) {
		w->unknown += !dep;
		return;
	}
	if (rc == 0) {
		w->gaps++;
		if (w->fn)
			w->fn(req, name, dep ? PYRT_GAP_DEP_MISSING
					     : PYRT_GAP_MISSING, "", w->ctx);
		return;
	}
	if (w->nqueue < CLOSURE_MAX)
		w->queue[w->nqueue++] = strdup(name);
	const char *spec = NULL;
	pyrt_pep440_form f = pyrt_pep440_split(req, split, sizeof split, &spec);
	/* The version a dependency is installed at is pip's to judge. */
	if (f == PYRT_PEP440_BARE || dep)
		return;
	int sat = f == PYRT_PEP440_SPEC ? pyrt_pep440_satisfies(spec, have)
					: -1;
	if (sat < 0) {
		w->unknown++;
	} else if (sat == 0) {
		w->gaps++;
		if (w->fn)
			w->fn(req, name, PYRT_GAP_WRONG_VERSION, have, w->ctx);
	}
}

static void diff_dep(const char *req, void *ctx)
{
	diff_one(ctx, req, 1);
}

/*
 * The requirements, then what each installed one requires in turn (its
 * METADATA's Requires-Dist without a marker): python-docx whole is no
 * working python-docx without lxml, and pip would install lxml for it.
 */
int pyrt_declared_diff_reqs(const char *const *reqs, size_t n,
			    pyrt_dists *d, pyrt_declared_gap_fn fn, void *ctx,
			    int *unknown)
{
	diff_walk *w = calloc(1, sizeof *w);
	if (!w) {
		if (unknown)
			*unknown = (int)n;
		return 0;
	}
	w->d = d;
	w->fn = fn;
	w->ctx = ctx;
	for (size_t i = 0; i < n; i++)
		diff_one(w, reqs[i], 0);
	for (size_t i = 0; i < w->nqueue; i++)
		if (w->queue[i])
			pyrt_dists_requires(d, w->queue[i], diff_dep, w);
	int gaps = w->gaps;
	if (unknown)
		*unknown = w->unknown;
	for (size_t i = 0; i < w->nseen; i++)
		free(w->seen[i]);
	for (size_t i = 0; i < w->nqueue; i++)
		free(w->queue[i]);
	free(w);
	return gaps;
}

int pyrt_declared_diff_baseline(const pyrt_declared *decl, pyrt_dists *d,
				pyrt_declared_gap_fn fn, void *ctx,
				int *unknown)
{
	return pyrt_declared_diff_reqs((const char *const *)decl->baseline.v,
				       decl->baseline.n, d, fn, ctx, unknown);
}
