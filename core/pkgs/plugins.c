/*
 * Plugins and the readiness matrix.  Manifests are read with libyaml from
 * <box>/plugins/<name>/plugin.yaml; each becomes one row, and a manifest that
 * cannot be used becomes a row with verdict "invalid" and the reason
 * ("<file>:<line>: ...") instead of stopping the matrix.
 *
 * Manifests come from plugin authors, so the reader is lenient about keys it
 * does not know (the desktop app may add more) and strict about the shape of
 * the four it reads:
 *
 *   name            string, must equal the directory name (optional)
 *   enabled         true or false; missing means true (a plugin whose
 *                   manifest sits in plugins/ is installed, and the app
 *                   loads it unless told otherwise)
 *   requires_tools  list of strings; execute_code means "needs the runtime"
 *   requires_pip    list of PEP 508 requirements (requirement.h): a
 *                   pip option, URL, path or "name @ URL" makes the
 *                   plugin invalid, and nothing of it is installed
 *
 * Only regular files are read: plugin.yaml is opened with O_NOFOLLOW, and a
 * symlinked plugin directory is reported rather than followed, so nothing
 * outside the box is read.
 *
 * When the runtime is ready, what C can decide exactly as Python would (a
 * bare name, or plain version clauses: pep440.h; the installed version from
 * the dist-info in the directories the install's interpreter reported:
 * dists.h) is decided here, afresh on every call.  The rest is checked by
 * ONE interpreter run (-I -S, scrubbed environment, private HOME, timeout):
 * a small program that parses each requirement with pip's vendored
 * packaging, asks importlib.metadata for the installed version and tests it
 * against the specifier and markers, then prints one JSON line; when
 * nothing is left, no interpreter starts.  Both answers have one shape, so
 * the rows do not depend on which gave them.  C parses the names too (PEP
 * 503 normalisation) so rows make sense without a runtime.
 */
#include "core/pkgs/plugins.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

#include "core/dist/digest_memo.h"
#include "core/pkgs/plugins_memo.h"
#include "core/pkgs/plugins_scan_memo.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/dists.h"
#include "core/runtime/interp.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/pep440.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"
#include "core/util/requirement.h"
#include "core/util/trust.h"
#include "core/util/yamldoc.h"

#define MANIFEST_MAX (64 * 1024)
#define PLUGINS_MAX 1024
#define REQUIRES_MAX 256
#define NAME_MAX_LEN 128
#define CHECK_TIMEOUT_S 30.0
#define CHECK_GRACE_S 2.0
#define CHECK_OUTPUT_MAX (4 * 1024 * 1024)
#define CHECK_ARGS_MAX (1024 * 1024)
#define RESULT_TAG "PYRT-PLUGINS " /* py/plugin_check.py prints it */
/* the interpreter's prefix, -S, -c, program */
#define CHECK_ARGV_FIRST (PYRT_INTERP_PREFIX_LEN + 3)

/* One plugin and what it owns; pub points into the owned storage. */
typedef struct plugin_row {
	pyrt_plugin pub;
	pyrt_requirement *reqs;
	size_t *req_lines;       /* line of each requirement in plugin.yaml */
	char *path;              /* plugin.yaml, for messages */
	int unchecked;           /* the interpreter failed before answering
				  * a requirement of this row */
} plugin_row;

struct pyrt_plugins {
	plugin_row *rows;
	size_t n, cap;
	int runtime_ready;
};

/* One manifest being read. */
typedef struct manifest {
	plugin_row *row;
	yaml_document_t *doc;
	const char *dirname;
	char error[PYRT_ERROR_MSG_MAX];
} manifest;

const char *pyrt_verdict_name(pyrt_verdict v)
{
	switch (v) {
	case PYRT_VERDICT_READY: return "ready";
	case PYRT_VERDICT_NEEDS_RUNTIME: return "needs_runtime";
	case PYRT_VERDICT_MISSING_DEPS: return "missing_deps";
	case PYRT_VERDICT_DISABLED: return "disabled";
	case PYRT_VERDICT_NO_RUNTIME_NEEDED: return "no_runtime_needed";
	case PYRT_VERDICT_INVALID: return "invalid";
	}
	return "unknown";
}

static void row_clear(plugin_row *r)
{
	free((char *)r->pub.name);
	free((char *)r->pub.fix);
	free((char *)r->pub.error);
	for (size_t i = 0; i < r->pub.require_count; i++) {
		free((char *)r->reqs[i].spec);
		free((char *)r->reqs[i].name);
		free((char *)r->reqs[i].installed);
		free((char *)r->reqs[i].broken);
	}
	free(r->reqs);
	free(r->req_lines);
	free(r->path);
	memset(r, 0, sizeof *r);
}

void pyrt_plugins_free(pyrt_plugins *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		row_clear(&p->rows[i]);
	free(p->rows);
	free(p);
}

int pyrt_plugins_map_fix(pyrt_plugins *p,
			 char *(*fn)(const char *fix, void *arg), void *arg)
{
	for (size_t i = 0; p && i < p->n; i++) {
		pyrt_plugin *pl = &p->rows[i].pub;
		if (!pl->fix)
			continue;
		char *now = fn(pl->fix, arg);
		if (!now)
			return PYRT_E_NOMEM;
		free((char *)pl->fix);
		pl->fix = now;
	}
	return 0;
}

int pyrt_plugins_runtime_ready(const pyrt_plugins *p)
{
	return p ? p->runtime_ready : 0;
}

size_t pyrt_plugins_count(const pyrt_plugins *p)
{
	return p ? p->n : 0;
}

const pyrt_plugin *pyrt_plugins_at(const pyrt_plugins *p, size_t i)
{
	return p && i < p->n ? &p->rows[i].pub : NULL;
}

const pyrt_plugin *pyrt_plugins_find(const pyrt_plugins *p, const char *name)
{
	for (size_t i = 0; p && name && i < p->n; i++)
		if (strcmp(p->rows[i].pub.name, name) == 0)
			return &p->rows[i].pub;
	return NULL;
}

/* Text from a file for a message or a row: control bytes become '?', so a
 * hostile manifest cannot write escapes to a terminal. */
static char *printable_dup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		d[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	d[n] = '\0';
	return d;
}

/* The same in place, for text a child printed. */
static void make_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/*
 * The PEP 503 normal form pip compares names in: lowercase, every run of
 * '-', '_' and '.' one '-'.  Reads the leading name of a requirement
 * ("Python.Docx>=1" → "python-docx"); NULL when the text does not start with
 * a letter or digit (after blanks) or memory runs out.
 */
static char *requirement_name(const char *spec)
{
	while (*spec == ' ' || *spec == '\t')
		spec++;
	size_t n = strspn(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789-_.");
	while (n && strchr("-_.", spec[n - 1]))
		n--;
	if (!n || strchr("-_.", spec[0]))
		return NULL;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = spec[i];
		if (strchr("-_.", c)) {
			if (o && out[o - 1] != '-')
				out[o++] = '-';
			continue;
		}
		out[o++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	out[o] = '\0';
	return out;
}

/* 1-based line of a node, as an editor shows it. */
static size_t node_line(const yaml_node_t *node)
{
	return node ? node->start_mark.line + 1 : 1;
}

/* Record "<file>:<line>: <what>" as the manifest's (first) problem. */
static int manifest_fail(manifest *m, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int manifest_fail(manifest *m, size_t line, const char *fmt, ...)
{
	char what[PYRT_ERROR_MSG_MAX];
	va_list ap;

	if (m->error[0])
		return -1;
	va_start(ap, fmt);
	pyrt_fmt_vtext(what, sizeof what, fmt, ap);
	va_end(ap);
	pyrt_fmt_text(m->error, sizeof m->error, "%s:%zu: %s", m->row->path,
		      line, what);
	return -1;
}

static const char *scalar_text(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* Plain empty, ~ and null are YAML's null. */
static int node_is_null(const yaml_node_t *node)
{
	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *s = scalar_text(node);
	return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* A usable string: a non-null scalar of printable text without NULs. */
static int node_is_text(const yaml_node_t *node)
{
	if (node->type != YAML_SCALAR_NODE || node_is_null(node))
		return 0;
	const char *s = scalar_text(node);
	if (strlen(s) != node->data.scalar.length)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* YAML's booleans as the core schema spells them; -1 when not one. */
static int node_bool(const yaml_node_t *node)
{
	static const char *const yes[] = { "true", "True", "TRUE" };
	static const char *const no[] = { "false", "False", "FALSE" };
	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		if (strcmp(scalar_text(node), yes[i]) == 0)
			return 1;
		if (strcmp(scalar_text(node), no[i]) == 0)
			return 0;
	}
	return -1;
}

/* Items of a list of strings (null: empty); -1 when it is not one. */
static int string_list(manifest *m, yaml_node_t *node, const char *key,
		       yaml_node_item_t **items, size_t *count)
{
	*items = NULL;
	*count = 0;
	if (node_is_null(node))
		return 0;
	if (node->type != YAML_SEQUENCE_NODE)
		return manifest_fail(m, node_line(node),
				     "%s must be a list of strings", key);
	*items = node->data.sequence.items.start;
	*count = (size_t)(node->data.sequence.items.top - *items);
	for (size_t i = 0; i < *count; i++) {
		yaml_node_t *it = yaml_document_get_node(m->doc, (*items)[i]);
		if (!it || !node_is_text(it))
			return manifest_fail(m, node_line(it ? it : node),
					     "%s must be a list of strings", key);
	}
	return 0;
}

static int read_name(manifest *m, yaml_node_t *v)
{
	if (!node_is_text(v))
		return manifest_fail(m, node_line(v), "name must be a string");
	if (strcmp(scalar_text(v), m->dirname) != 0) {
		char *shown = printable_dup(scalar_text(v), 64);
		manifest_fail(m, node_line(v),
			      "name \"%s\" does not match the directory name "
			      "\"%s\"", shown ? shown : "?", m->dirname);
		free(shown);
		return -1;
	}
	return 0;
}

static int read_tools(manifest *m, yaml_node_t *v)
{
	yaml_node_item_t *items;
	size_t n;
	if (string_list(m, v, "requires_tools", &items, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(scalar_text(yaml_document_get_node(m->doc, items[i])),
			   "execute_code") == 0)
			m->row->pub.needs_runtime = 1;
	return 0;
}

/* Room for n requirements in r; 1 when out of memory. */
static int row_reqs_alloc(plugin_row *r, size_t n)
{
	r->reqs = calloc(n, sizeof *r->reqs);
	r->req_lines = calloc(n, sizeof *r->req_lines);
	r->pub.requires = r->reqs;
	return r->reqs && r->req_lines ? 0 : 1;
}

/* Each requirement as written plus its normalised name; 1 on no memory. */
static int read_pip(manifest *m, yaml_node_t *v)
{
	yaml_node_item_t *items;
	size_t n;
	plugin_row *r = m->row;
	if (string_list(m, v, "requires_pip", &items, &n) < 0)
		return -1;
	if (n > REQUIRES_MAX)
		return manifest_fail(m, node_line(v),
				     "requires_pip has %zu entries, at most %d "
				     "are read", n, REQUIRES_MAX);
	if (!n)
		return 0;
	if (row_reqs_alloc(r, n))
		return 1;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = yaml_document_get_node(m->doc, items[i]);
		const char *spec = scalar_text(it);
		char why[PYRT_ERROR_MSG_MAX / 2];
		if (pyrt_requirement_check(spec, why, sizeof why) != 0)
			return manifest_fail(m, node_line(it),
					     "requires_pip[%zu]: %s", i, why);
		pyrt_requirement *q = &r->reqs[r->pub.require_count];
		if (!(q->spec = strdup(spec)))
			return 1;
		r->req_lines[r->pub.require_count++] = node_line(it);
		if (!(q->name = requirement_name(spec)))
			return manifest_fail(m, node_line(it),
					     "requires_pip: \"%s\" does not "
					     "start with a package name", spec);
	}
	return 0;
}

/* The root mapping: the four known keys once each, others ignored. */
static int read_root(manifest *m, yaml_node_t *root)
{
	static const char *const keys[] = { "name", "enabled", "requires_tools",
					    "requires_pip" };
	yaml_node_t *vals[4] = { 0 };
	if (!root)
		return manifest_fail(m, 1, "empty manifest, expected a mapping "
				     "with name, enabled, requires_tools, "
				     "requires_pip");
	if (root->type != YAML_MAPPING_NODE)
		return manifest_fail(m, node_line(root), "expected a mapping "
				     "with name, enabled, requires_tools, "
				     "requires_pip");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(m->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(m->doc, p->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE)
			continue;
		for (size_t i = 0; i < 4; i++) {
			if (strcmp(scalar_text(k), keys[i]) != 0)
				continue;
			if (vals[i])
				return manifest_fail(m, node_line(k),
						     "duplicate key \"%s\"",
						     keys[i]);
			vals[i] = v;
		}
	}
	int enabled = vals[1] ? node_bool(vals[1]) : 1;
	if (enabled < 0)
		return manifest_fail(m, node_line(vals[1]),
				     "enabled must be true or false");
	m->row->pub.enabled = enabled;
	int rc = 0;
	if (vals[0])
		rc = read_name(m, vals[0]);
	if (!rc && vals[2])
		rc = read_tools(m, vals[2]);
	if (!rc && vals[3])
		rc = read_pip(m, vals[3]);
	return rc;
}

/* Parse one manifest's bytes into row; a problem lands in m->error.
 * Returns 0, or 1 when out of memory. */
static int manifest_parse(manifest *m, const char *data, size_t len)
{
	yaml_document_t doc;
	pyrt_yaml_problem pb;
	int rc;

	if (pyrt_yamldoc_load(&doc, data, len, 0, &pb) != 0) {
		if (pb.nomem)
			return 1;
		manifest_fail(m, pb.line, "%s", pb.what);
		return 0;
	}
	m->doc = &doc;
	rc = read_root(m, yaml_document_get_root_node(&doc));
	m->doc = NULL;
	yaml_document_delete(&doc);
	return rc > 0 ? 1 : 0;
}

/* A new row for dir name; NULL when out of memory. */
static plugin_row *row_add(pyrt_plugins *p, const char *plugins_dir,
			   const char *name)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 16;
		plugin_row *nr = realloc(p->rows, ncap * sizeof *nr);
		if (!nr)
			return NULL;
		p->rows = nr;
		p->cap = ncap;
	}
	plugin_row *r = &p->rows[p->n];
	memset(r, 0, sizeof *r);
	r->pub.name = printable_dup(name, NAME_MAX_LEN);
	char *shown = printable_dup(name, NAME_MAX_LEN);
	if (shown && asprintf(&r->path, "%s/%s/plugin.yaml", plugins_dir,
			      shown) < 0)
		r->path = NULL;
	free(shown);
	if (!r->pub.name || !r->path) {
		row_clear(r);
		return NULL;
	}
	p->n++;
	return r;
}

/* Make row invalid with msg (when it has none yet); 0 or 1 on no memory. */
static int row_invalid(plugin_row *r, const char *msg)
{
	r->pub.verdict = PYRT_VERDICT_INVALID;
	if (r->pub.error)
		return 0;
	r->pub.error = strdup(msg);
	return r->pub.error ? 0 : 1;
}

static int row_invalidf(plugin_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int row_invalidf(plugin_row *r, const char *fmt, ...)
{
	char msg[PYRT_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	pyrt_fmt_vtext(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return row_invalid(r, msg);
}

/* Directory names become command arguments ("pyrt plugins install NAME"),
 * so only names a shell passes through unquoted are accepted. */
static int name_ok(const char *name)
{
	size_t n = strlen(name);
	return n && n <= NAME_MAX_LEN &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789-_.") == n;
}

/* Up to cap bytes of fd into buf; *used says how many.  Returns 0 or an
 * errno value. */
static int read_bounded(int fd, char *buf, size_t cap, size_t *used)
{
	*used = 0;
	while (*used < cap) {
		ssize_t got = read(fd, buf + *used, cap - *used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno;
		if (got == 0)
			break;
		*used += (size_t)got;
	}
	return 0;
}

/* The manifest's bytes from an open regular file, at most MANIFEST_MAX;
 * NULL with why filled when they cannot be had. */
static char *manifest_bytes(int fd, size_t *len, char *why, size_t whylen)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		pyrt_fmt_text(why, whylen, "is not a regular file");
		return NULL;
	}
	char *buf = sb.st_size > MANIFEST_MAX ? NULL : malloc(MANIFEST_MAX + 2);
	size_t used = 0;
	int e = buf ? read_bounded(fd, buf, MANIFEST_MAX + 1, &used) : 0;
	if (!buf && sb.st_size <= MANIFEST_MAX)
		pyrt_fmt_text(why, whylen, "out of memory");
	else if (e)
		pyrt_fmt_text(why, whylen, "cannot read: %s", strerror(e));
	else if (!buf || used > MANIFEST_MAX)
		pyrt_fmt_text(why, whylen, "is larger than %d KiB",
			      MANIFEST_MAX / 1024);
	else {
		buf[used] = '\0';
		*len = used;
		return buf;
	}
	free(buf);
	return NULL;
}

/* Read plugin.yaml (a regular file, not through a symlink, bounded) from
 * the plugin directory pfd.  Returns 0 with *data, 0 with *data NULL and
 * why filled (the row is invalid), or -ENOENT when there is no manifest. */
static int manifest_read(int pfd, const char *shown, char **data,
			 size_t *len, char *why, size_t whylen)
{
	pyrt_error terr = PYRT_ERROR_INIT;
	*data = NULL;
	int fd = openat(pfd, "plugin.yaml",
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 && errno == ELOOP)
		pyrt_fmt_text(why, whylen, "is a symlink; pyrt reads only regular "
			      "files inside the box");
	else if (fd < 0)
		pyrt_fmt_text(why, whylen, "cannot open: %s", strerror(errno));
	else if (pyrt_trust_fd("the plugin manifest", fd, shown, &terr) != 0)
		pyrt_fmt_text(why, whylen, "%s", terr.msg);
	else
		*data = manifest_bytes(fd, len, why, whylen);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The row of plugin name from its manifest's bytes (NULL data: why says
 * what kept them from us).  Returns 0, or PYRT_E_NOMEM. */
static int plugin_row_load(pyrt_plugins *p, const char *plugins_dir,
			   const char *name, const char *data, size_t len,
			   const char *why, pyrt_error *err)
{
	int nomem = 0;
	plugin_row *r = row_add(p, plugins_dir, name);
	if (!r)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!name_ok(name))
		nomem = row_invalidf(r, "%s: the directory name must be letters, "
				     "digits, '.', '_' or '-' (at most %d)",
				     r->path, NAME_MAX_LEN);
	else if (!data && strncmp(why, "refusing ", 9) == 0)
		nomem = row_invalid(r, why); /* the gate's: names the path */
	else if (!data)
		nomem = row_invalidf(r, "%s: %s", r->path,
				     why[0] ? why : "cannot be read");
	else {
		manifest m = { .row = r, .dirname = name };
		nomem = manifest_parse(&m, data, len);
		if (!nomem && m.error[0])
			nomem = row_invalid(r, m.error);
	}
	return nomem ? pyrt_error_set(err, PYRT_E_NOMEM, "out of memory") : 0;
}

/* The manifests remembered by their bytes (plugins_memo.h) while a scan
 * runs: old is what the file held, next what it will hold. */
typedef struct manifest_memo {
	json_t *old;
	json_t *next;
	int changed;
} manifest_memo;

/* One requirement of a remembered row: [spec, name or null, line]. */
static int memo_req_ok(json_t *q)
{
	json_t *name = json_array_get(q, 1);
	return json_is_array(q) && json_array_size(q) == 3 &&
	       json_is_string(json_array_get(q, 0)) &&
	       (json_is_null(name) || json_is_string(name)) &&
	       json_is_integer(json_array_get(q, 2));
}

/* Whether entry is a well-formed row remembered for exactly these bytes. */
static int memo_entry_matches(json_t *entry, const char *data, size_t len)
{
	json_t *yaml = json_object_get(entry, "yaml");
	json_t *error = json_object_get(entry, "error");
	json_t *reqs = json_object_get(entry, "requires");
	if (!json_is_string(yaml) || json_string_length(yaml) != len ||
	    memcmp(json_string_value(yaml), data, len) != 0 ||
	    !json_is_boolean(json_object_get(entry, "enabled")) ||
	    !json_is_boolean(json_object_get(entry, "needs_runtime")) ||
	    !(json_is_null(error) || json_is_string(error)) ||
	    !json_is_array(reqs) || json_array_size(reqs) > REQUIRES_MAX)
		return 0;
	for (size_t i = 0; i < json_array_size(reqs); i++)
		if (!memo_req_ok(json_array_get(reqs, i)))
			return 0;
	return 1;
}

/* The row as the parse left it, from a matching entry; 1 when out of
 * memory (the row is in p, freed with it). */
static int row_from_memo(pyrt_plugins *p, const char *plugins_dir,
			 const char *name, json_t *entry)
{
	plugin_row *r = row_add(p, plugins_dir, name);
	if (!r)
		return 1;
	json_t *reqs = json_object_get(entry, "requires");
	json_t *error = json_object_get(entry, "error");
	size_t n = json_array_size(reqs);
	r->pub.enabled = json_is_true(json_object_get(entry, "enabled"));
	r->pub.needs_runtime =
		json_is_true(json_object_get(entry, "needs_runtime"));
	if (n && row_reqs_alloc(r, n))
		return 1;
	for (size_t i = 0; i < n; i++) {
		json_t *q = json_array_get(reqs, i);
		const char *qname = json_string_value(json_array_get(q, 1));
		pyrt_requirement *req = &r->reqs[r->pub.require_count];
		req->spec = strdup(json_string_value(json_array_get(q, 0)));
		req->name = qname ? strdup(qname) : NULL;
		r->req_lines[r->pub.require_count++] =
			(size_t)json_integer_value(json_array_get(q, 2));
		if (!req->spec || (qname && !req->name))
			return 1;
	}
	return json_is_string(error) ? row_invalid(r, json_string_value(error))
				     : 0;
}

/* The entry remembering row r, parsed from these bytes; NULL when the
 * bytes cannot be kept exactly (a NUL, not UTF-8) or out of memory. */
static json_t *row_to_memo(const plugin_row *r, const char *data, size_t len)
{
	if (memchr(data, '\0', len))
		return NULL;
	json_t *yaml = json_stringn(data, len); /* NULL unless UTF-8 */
	json_t *reqs = yaml ? json_array() : NULL;
	for (size_t i = 0; reqs && i < r->pub.require_count; i++) {
		json_t *q = json_pack("[s, s?, I]", r->reqs[i].spec,
				      r->reqs[i].name,
				      (json_int_t)r->req_lines[i]);
		if (!q || json_array_append_new(reqs, q) != 0) {
			json_decref(reqs);
			reqs = NULL;
		}
	}
	if (!reqs) {
		json_decref(yaml);
		return NULL;
	}
	return json_pack("{s:o, s:b, s:b, s:s?, s:o}", "yaml", yaml,
			 "enabled", r->pub.enabled, "needs_runtime",
			 r->pub.needs_runtime, "error", r->pub.error,
			 "requires", reqs);
}

/* The row of name from the memo when it holds these bytes: 1 taken, 0
 * not there, -1 out of memory. */
static int plugin_from_memo(pyrt_plugins *p, manifest_memo *mm,
			    const char *plugins_dir, const char *name,
			    const char *data, size_t len)
{
	json_t *entry = json_object_get(mm->old, name);
	if (!entry || !memo_entry_matches(entry, data, len))
		return 0;
	if (row_from_memo(p, plugins_dir, name, entry))
		return -1;
	json_object_set(mm->next, name, entry);
	return 1;
}

/* One entry of plugins/ that is a directory: a row when it holds a
 * manifest.  Returns 0, or PYRT_E_NOMEM. */
static int plugin_load(pyrt_plugins *p, int dfd, const char *plugins_dir,
		       const char *name, const char *dir_refused,
		       manifest_memo *mm, pyrt_error *err)
{
	int pfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
	char why[PYRT_ERROR_MSG_MAX] = "";
	char *data = NULL;
	size_t len = 0;
	pyrt_error terr = PYRT_ERROR_INIT;
	char shown[PATH_MAX];
	pyrt_fmt_text(shown, sizeof shown, "%s/%s/plugin.yaml", plugins_dir, name);
	if (pfd < 0) {
		pyrt_fmt_text(why, sizeof why, "cannot open the directory: %s",
			      strerror(errno));
	} else if (manifest_read(pfd, shown, &data, &len, why, sizeof why) ==
		   -ENOENT) {
		close(pfd);
		return 0; /* not a plugin: no manifest */
	} else if (dir_refused || (*strrchr(shown, '/') = '\0',
				   pyrt_trust_fd("the plugin folder", pfd,
						 shown, &terr) != 0)) {
		/* Whoever can change the folder can change the manifest
		 * after it was read: what it says is not used. */
		pyrt_fmt_text(why, sizeof why, "%s", dir_refused ? dir_refused
			      : terr.msg);
		free(data);
		data = NULL;
	}
	if (pfd >= 0)
		close(pfd);
	/* Only a manifest that was read, under a name it may have, is
	 * remembered: the other rows cost nothing to make again. */
	int memo = mm && mm->next && data && name_ok(name);
	int hit = memo ? plugin_from_memo(p, mm, plugins_dir, name, data, len)
		       : 0;
	int rc = hit < 0 ? pyrt_error_set(err, PYRT_E_NOMEM, "out of memory")
	       : hit ? 0
		     : plugin_row_load(p, plugins_dir, name, data, len, why,
				       err);
	if (!rc && memo && !hit) {
		json_t *entry = row_to_memo(&p->rows[p->n - 1], data, len);
		if (entry)
			json_object_set_new(mm->next, name, entry);
		mm->changed = 1;
	}
	free(data);
	return rc;
}

/* A symlinked plugin directory would read outside the box: a row that says
 * so (when it points at a directory), rather than silence. */
static int plugin_symlink(pyrt_plugins *p, int dfd, const char *plugins_dir,
			  const char *name, pyrt_error *err)
{
	struct stat sb;
	if (fstatat(dfd, name, &sb, 0) != 0 || !S_ISDIR(sb.st_mode))
		return 0;
	plugin_row *r = row_add(p, plugins_dir, name);
	if (!r || row_invalidf(r, "%s/%s: is a symlink; pyrt reads plugins "
			       "only from directories inside the box",
			       plugins_dir, r->pub.name))
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	return strcmp(((const plugin_row *)a)->pub.name,
		      ((const plugin_row *)b)->pub.name);
}

/* Every manifest under plugins_dir; a missing directory is no plugins. */
static int plugins_scan(pyrt_plugins *p, const char *plugins_dir,
			manifest_memo *mm, const pyrt_events *ev,
			pyrt_error *err)
{
	int dfd = open(plugins_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (dfd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot read %s", plugins_dir);
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot read %s", plugins_dir);
	}
	/* The gate (trust.h): plugins/ of someone else's makes every
	 * plugin in it invalid, naming the owner. */
	pyrt_error terr = PYRT_ERROR_INIT;
	const char *dir_refused = pyrt_trust_fd("the plugins folder", dfd,
						plugins_dir, &terr) != 0
				  ? terr.msg : NULL;
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		struct stat sb;
		if (de->d_name[0] == '.' ||
		    fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (p->n >= PLUGINS_MAX) {
			rc = pyrt_events_log(ev, PYRT_LOG_WARN,
					     "more than %d plugins in %s: the "
					     "rest are not shown", PLUGINS_MAX,
					     plugins_dir);
			break;
		}
		if (S_ISLNK(sb.st_mode))
			rc = plugin_symlink(p, dfd, plugins_dir, de->d_name, err);
		else if (S_ISDIR(sb.st_mode))
			rc = plugin_load(p, dfd, plugins_dir, de->d_name,
					 dir_refused, mm, err);
	}
	closedir(d);
	if (rc == PYRT_E_CANCELLED)
		return pyrt_error_set(err, rc, "cancelled");
	if (p->n > 1)
		qsort(p->rows, p->n, sizeof *p->rows, row_cmp);
	return rc;
}

/* Whether any row's requirements are worth an interpreter start. */
static size_t specs_to_check(const pyrt_plugins *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].pub.verdict != PYRT_VERDICT_INVALID)
			n += p->rows[i].pub.require_count;
	return n;
}

static int spec_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* argv for the checker: interpreter, -I, -S, -c, program, then each distinct
 * requirement once (sorted, so duplicates are found in n log n).  NULL when
 * out of memory; *bytes is what the arguments add up to. */
static const char **check_argv(const pyrt_plugins *p, const char *interp,
			       size_t nspecs, size_t *bytes)
{
	const char **argv = calloc(nspecs + CHECK_ARGV_FIRST + 1, sizeof *argv);
	if (!argv)
		return NULL;
	size_t k = pyrt_interp_argv(argv, interp);
	argv[k++] = "-S";
	argv[k++] = "-c";
	argv[k++] = pyrt_py_plugin_check;
	const size_t first = k; /* CHECK_ARGV_FIRST */
	for (size_t i = 0; i < p->n; i++) {
		const plugin_row *r = &p->rows[i];
		if (r->pub.verdict == PYRT_VERDICT_INVALID)
			continue;
		for (size_t j = 0; j < r->pub.require_count; j++)
			argv[k++] = r->reqs[j].spec;
	}
	qsort(argv + first, k - first, sizeof *argv, spec_cmp);
	size_t u = first;
	*bytes = pyrt_py_plugin_check_size;
	for (size_t x = first; x < k; x++) {
		if (u > first && strcmp(argv[u - 1], argv[x]) == 0)
			continue;
		argv[u++] = argv[x];
		*bytes += strlen(argv[x]) + 1;
	}
	argv[u] = NULL;
	return argv;
}

/* The tagged JSON line of the checker's output; NULL when absent. */
static json_t *check_parse(const char *output)
{
	const char *tag = output;
	while ((tag = strstr(tag, RESULT_TAG)) && tag != output &&
	       tag[-1] != '\n')
		tag++;
	if (!tag)
		return NULL;
	tag += strlen(RESULT_TAG);
	size_t n = strcspn(tag, "\n");
	return json_loadb(tag, n, 0, NULL);
}

/* Run the checker once; *out is its JSON (results or error).  Returns 0,
 * PYRT_E_CANCELLED, or another code with why filled (the check failed). */
static int check_run(const char *const *argv, const char *home,
		     const pyrt_events *ev, json_t **out, char *why,
		     size_t whylen)
{
	*out = NULL;
	char **envp = pyrt_proc_scrubbed_env(home);
	if (!envp) {
		pyrt_fmt_text(why, whylen, "out of memory");
		return PYRT_E_NOMEM;
	}
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.cwd = home;
	po.timeout_s = CHECK_TIMEOUT_S;
	po.grace_s = CHECK_GRACE_S;
	po.capture_max = CHECK_OUTPUT_MAX;
	po.cancel = ev ? ev->cancel : NULL;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	pyrt_error perr = PYRT_ERROR_INIT;
	int rc = pyrt_proc_run(&po, &pr, &perr);
	pyrt_proc_env_free(envp);
	if (rc < 0)
		pyrt_fmt_text(why, whylen, "%s", perr.msg);
	else if (pr.cancelled)
		rc = PYRT_E_CANCELLED;
	else if (pr.timed_out) {
		pyrt_fmt_text(why, whylen, "the interpreter did not answer within "
			      "%.0f s", CHECK_TIMEOUT_S);
		rc = PYRT_E_INTERPRETER;
	} else if (!pr.exited || pr.exit_code != 0 || pr.truncated ||
		 !(*out = check_parse(pr.output))) {
		const char *o = pr.output ? pr.output : "";
		size_t n = strlen(o);
		while (n && (o[n - 1] == '\n' || o[n - 1] == ' '))
			n--;
		size_t s = n;
		while (s && o[s - 1] != '\n')
			s--;
		pyrt_fmt_text(why, whylen, "the interpreter exited with %d%s%.*s",
			      pr.exited ? pr.exit_code : 128 + pr.term_signal,
			      n > s ? ": " : " and no result", (int)(n - s > 200 ? 200
								    : n - s), o + s);
		rc = PYRT_E_INTERPRETER;
	}
	make_printable(why);
	pyrt_proc_result_clear(&pr);
	return rc;
}

/* Copy one checker answer into requirement q of row r.  Returns 0, 1 on
 * no memory, or 2 when this requirement does not apply here (its marker is
 * false) and should be dropped. */
static int apply_one(plugin_row *r, size_t j, json_t *res)
{
	pyrt_requirement *q = &r->reqs[j];
	json_t *e = json_object_get(res, "error");
	if (json_is_string(e)) {
		char *msg = printable_dup(json_string_value(e), 512);
		int rc = msg ? row_invalidf(r, "%s:%zu: requires_pip: invalid "
					    "requirement \"%s\": %s", r->path,
					    r->req_lines[j], q->spec, msg) : 1;
		free(msg);
		return rc;
	}
	if (json_is_false(json_object_get(res, "applies")))
		return 2;
	json_t *v = json_object_get(res, "installed");
	if (json_is_string(v)) {
		if (!(q->installed = printable_dup(json_string_value(v), 128)))
			return 1;
		q->conflict = !json_is_true(json_object_get(res, "ok"));
	}
	json_t *b = json_object_get(res, "broken");
	if (json_is_string(b)) {
		if (!(q->broken = printable_dup(json_string_value(b), 512)))
			return 1;
		q->conflict = q->installed != NULL;
	}
	return 0;
}

/* Drop requirement j (its marker excludes this runtime). */
static void drop_requirement(plugin_row *r, size_t j)
{
	pyrt_requirement *q = &r->reqs[j];
	free((char *)q->spec);
	free((char *)q->name);
	free((char *)q->installed);
	free((char *)q->broken);
	size_t rest = r->pub.require_count - j - 1;
	memmove(q, q + 1, rest * sizeof *q);
	memmove(&r->req_lines[j], &r->req_lines[j + 1],
		rest * sizeof *r->req_lines);
	r->pub.require_count--;
}

/* Whether results answers every requirement of every row; why filled
 * when not. */
static int results_complete(const pyrt_plugins *p, json_t *doc, char *why,
			    size_t whylen)
{
	json_t *results = json_object_get(doc, "results");
	if (!json_is_object(results)) {
		json_t *e = json_object_get(doc, "error");
		pyrt_fmt_text(why, whylen, "%s", json_is_string(e)
			      ? json_string_value(e) : "the checker gave no results");
		make_printable(why);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		const plugin_row *r = &p->rows[i];
		if (r->pub.verdict == PYRT_VERDICT_INVALID)
			continue;
		for (size_t j = 0; j < r->pub.require_count; j++) {
			const char *spec = r->reqs[j].spec;
			if (!json_is_object(json_object_get(results, spec))) {
				pyrt_fmt_text(why, whylen, "the checker gave no "
					      "result for \"%s\"", spec);
				return 0;
			}
		}
	}
	return 1;
}

/* Fill every row from results (an object keyed by spec).  A requirement
 * with no answer marks its row unchecked.  Returns 0 or PYRT_E_NOMEM. */
static int apply_results(pyrt_plugins *p, json_t *results)
{
	for (size_t i = 0; i < p->n; i++) {
		plugin_row *r = &p->rows[i];
		if (r->pub.verdict == PYRT_VERDICT_INVALID)
			continue;
		for (size_t j = 0; j < r->pub.require_count;) {
			json_t *res = json_object_get(results, r->reqs[j].spec);
			int rc = json_is_object(res) ? apply_one(r, j, res) : 3;
			if (rc == 1)
				return PYRT_E_NOMEM;
			if (rc == 2) {
				drop_requirement(r, j);
				continue;
			}
			r->unchecked |= rc == 3;
			j++;
		}
	}
	return 0;
}

/* A private HOME for the checker outside the box: mkdtemp (0700, a fresh
 * name) under $TMPDIR or /tmp, removed after the run.  Doctor promises to
 * write nothing into the box, and the checker needs nothing kept there.
 * Returns 0 with home filled, or why filled. */
static int check_home(char *home, size_t len, char *why, size_t whylen)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	pyrt_error perr = PYRT_ERROR_INIT;
	if (pyrt_fmt_path(home, len, &perr, "%s/pyrt-plugins-check.XXXXXX",
			  tmp)) {
		pyrt_fmt_text(why, whylen, "TMPDIR is too long (set it to a "
			      "shorter writable directory): %s", perr.msg);
		return PYRT_E_IO;
	}
	if (mkdtemp(home))
		return 0;
	pyrt_fmt_text(why, whylen, "cannot create a private directory in %s: %s "
		      "(set TMPDIR to a writable directory)", tmp, strerror(errno));
	return PYRT_E_IO;
}

/*
 * The reader of installed distributions for the active install, from the
 * search path its interpreter reported at install (marker.json); NULL when
 * there is none (no box, an older marker, no memory): then Python answers
 * everything.  The install is resolved again from `current`, and its own
 * marker read, so the directories and the path list belong together.
 */
static pyrt_dists *c_reader(const pyrt_box *box, const pyrt_status *st,
			    int memo)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (!box || pyrt_box_link_install(box, pyrt_box_current(box), dir,
					  sizeof dir, NULL) != 0)
		return NULL;
	/* The status just read this install's marker: no second read
	 * unless `current` has moved since. */
	const pyrt_marker *m = st->have_marker &&
			       strcmp(st->install_dir, dir) == 0
			       ? &st->marker : NULL;
	pyrt_marker *own = m ? NULL : malloc(sizeof *own);
	pyrt_dists *d = NULL;
	if (own) {
		/* The digest status checked is remembered: reading the
		 * marker again hashes nothing (digest_memo.h); doctor (memo
		 * 0) writes nothing. */
		pyrt_digest_memo *dm =
			memo && pyrt_fmt_path(path, sizeof path, NULL,
					      "%s/" PYRT_BOX_CACHE_DIR,
					      pyrt_box_runtime_dir(box)) == 0
			? pyrt_digest_memo_new(path) : NULL;
		if (pyrt_fmt_path(path, sizeof path, NULL, "%s/marker.json",
				  dir) == 0 &&
		    pyrt_marker_read_memo(path, own, dm, NULL) == 0)
			m = own;
		pyrt_digest_memo_free(dm);
	}
	if (m)
		d = pyrt_dists_for_install(dir, m);
	/* The memo status keeps of the distributions found whole: the
	 * matrix reads it and adds to it (dists_memo.h); doctor does not. */
	if (d && memo &&
	    pyrt_fmt_path(path, sizeof path, NULL, "%s/" PYRT_BOX_CACHE_DIR,
			  pyrt_box_runtime_dir(box)) == 0)
		pyrt_dists_keep_memo(d, path);
	free(own);
	return d;
}

/*
 * The checker's answer for spec, decided in C ({name, installed, ok,
 * applies, error} as py/plugin_check.py writes it), or NULL when only Python
 * can say (see pep440.h and dists.h for what C decides).  *packaging is
 * -1 until asked whether the checker could parse a specifier at all: when
 * it could not, its answer is an error, and that stays Python's to give.
 */
/* The first dependency the closure walk finds missing, into ctx. */
static void dep_gone(const char *req, const char *name, pyrt_declared_gap gap,
		     const char *have, void *ctx)
{
	(void)req;
	(void)have;
	char *gone = ctx;
	if (gap == PYRT_GAP_DEP_MISSING && !gone[0])
		pyrt_fmt_text(gone, 256, "%s", name);
}

static json_t *c_decide(pyrt_dists *d, const char *spec, int *packaging)
{
	char name[NAME_MAX_LEN], version[128];
	const char *clauses = NULL;
	pyrt_pep440_form form = pyrt_pep440_split(spec, name, sizeof name,
						  &clauses);
	if (form == PYRT_PEP440_OTHER)
		return NULL;
	if (form == PYRT_PEP440_SPEC) {
		/* Python parses the requirement before it looks anything up. */
		if (pyrt_pep440_satisfies(clauses, "0") < 0)
			return NULL;
		if (*packaging < 0)
			*packaging = pyrt_dists_have_packaging(d);
		if (!*packaging)
			return NULL;
	}
	int found = pyrt_dists_version(d, name, version, sizeof version);
	if (found < 0)
		return NULL;
	int ok = found;
	if (found && form == PYRT_PEP440_SPEC &&
	    (ok = pyrt_pep440_satisfies(clauses, version)) < 0)
		return NULL;
	char *norm = requirement_name(spec);
	json_t *res = norm ? json_pack("{s:s, s:o, s:b, s:b, s:n}", "name",
				       norm, "installed", found
				       ? json_string(version) : json_null(),
				       "ok", ok, "applies", 1, "error")
			   : NULL;
	/* Installed whole is not usable while what it requires is gone
	 * (openpyxl without et-xmlfile does not import): the one comparison
	 * of declared.h walks the closure, as the baseline's verdict does. */
	char gone[256] = "";
	if (res && found && ok &&
	    pyrt_declared_diff_reqs(&spec, 1, d, dep_gone, gone, NULL) > 0 &&
	    gone[0]) {
		char why[512];
		pyrt_fmt_text(why, sizeof why, "%s %s requires %s, which is "
			      "not installed", norm, version, gone);
		json_object_set_new(res, "broken", json_string(why));
	}
	free(norm);
	return res;
}

/*
 * Decide in C what it can: each decided spec's answer goes into *decided
 * (an object keyed by spec) and leaves specs[], which keeps its order.
 * Returns how many remain for Python; *decided NULL when none was.
 */
/* 1 when spec names a distribution whose dist-info is there but whose
 * files are not (dists.h): the checker's memo keys on the dist-info and
 * METADATA only, so it could not see that. */
static int c_broken(pyrt_dists *d, const char *spec)
{
	char *name = requirement_name(spec), why[512];
	int broken = name && pyrt_dists_intact(d, name, why, sizeof why) == 0;
	free(name);
	return broken;
}

static size_t c_decide_all(const pyrt_box *box, const pyrt_status *st,
			   int memo, const char **specs, size_t n,
			   json_t **decided, int *broken)
{
	*decided = NULL;
	*broken = 0;
	pyrt_dists *d = c_reader(box, st, memo);
	if (!d)
		return n;
	json_t *out = json_object();
	int packaging = -1;
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *res = out ? c_decide(d, specs[i], &packaging) : NULL;
		if (res && json_object_set_new(out, specs[i], res) == 0)
			continue;
		*broken |= c_broken(d, specs[i]);
		specs[left++] = specs[i];
	}
	specs[left] = NULL;
	pyrt_dists_free(d);
	if (out && json_object_size(out))
		*decided = out;
	else
		json_decref(out);
	return left;
}

/* doc's results with the C answers added; a doc without results (the
 * checker's error) is left as it is, so the error is what the rows say. */
static int merge_decided(json_t **doc, json_t *decided)
{
	if (!decided)
		return 0;
	if (!*doc && !(*doc = json_pack("{s:o}", "results", json_object())))
		return -1;
	json_t *results = json_object_get(*doc, "results");
	if (!json_is_object(results))
		return 0;
	return json_object_update(results, decided);
}

/* Strategy one: C decides what it can from the distributions on disk
 * (c_decide_all); those leave specs[] and *n counts the rest.  A
 * distribution with files missing is asked afresh, and that answer is not
 * kept (*memo cleared: plugins_memo.h keys on metadata only).  Returns 0
 * or PYRT_E_CANCELLED. */
static int deps_from_c(const pyrt_box *box, const pyrt_status *st,
		       int *memo, const pyrt_events *ev, const char **specs,
		       size_t *n, json_t **decided)
{
	size_t all = *n;
	int broken = 0;
	*n = c_decide_all(box, st, *memo, specs, all, decided, &broken);
	if (broken)
		*memo = 0;
	if (*n == all)
		return 0;
	return pyrt_events_log(ev, PYRT_LOG_DEBUG, "%zu of %zu requirements "
			       "decided without Python", all - *n, all);
}

/* Where the checker's answers are remembered for this install; id NULL
 * when there is no memo (doctor, no box, or a path that does not fit:
 * asked, never misfiled). */
typedef struct {
	char path[4200];
	char *id;
} deps_memo;

static void deps_memo_open(deps_memo *dm, const pyrt_box *box,
			   const pyrt_status *st, int memo)
{
	dm->id = NULL;
	if (memo && pyrt_fmt_path(dm->path, sizeof dm->path, NULL, "%s/%s",
				  pyrt_box_runtime_dir(box),
				  PYRT_PLUGINS_MEMO_DIR) == 0)
		dm->id = pyrt_plugins_memo_id(st);
}

/* Strategy two: the checker's answer for exactly these requirements,
 * remembered from an earlier run on this install (*doc, NULL when there is
 * none).  Returns 0 or PYRT_E_CANCELLED. */
static int deps_from_memo(const pyrt_plugins *p, const deps_memo *dm,
			  const char **specs, size_t n,
			  const pyrt_events *ev, json_t **doc)
{
	if (!dm->id)
		return 0;
	*doc = pyrt_plugins_memo_load(dm->path, dm->id, specs, n);
	if (!*doc)
		return 0;
	return pyrt_events_log(ev, PYRT_LOG_DEBUG, "the requirements of %zu "
			       "plugins answered from %s/%s, nothing changed",
			       p->n, dm->path, PYRT_PLUGINS_MEMO_FILE);
}

/* Strategy three: one run of the interpreter for the requirements left
 * in argv, in a private HOME removed after; its answer is remembered when
 * there is a memo.  Returns 0, PYRT_E_CANCELLED, or another code with why
 * filled (PYRT_E_INTERPRETER: the runtime could not answer). */
static int deps_from_python(const pyrt_plugins *p, const char **argv,
			    const char *interp, const deps_memo *dm,
			    size_t n, const pyrt_events *ev, json_t **doc,
			    char *why, size_t whylen)
{
	char home[4096];
	int rc = pyrt_events_log(ev, PYRT_LOG_DEBUG, "checking the "
				 "requirements of %zu plugins with one run "
				 "of %s", p->n, interp);
	if (!rc)
		rc = check_home(home, sizeof home, why, whylen);
	if (rc)
		return rc;
	rc = check_run(argv, home, ev, doc, why, whylen);
	pyrt_fs_remove_tree(home, NULL, NULL);
	if (!rc && dm->id)
		pyrt_plugins_memo_store(dm->path, dm->id,
					argv + CHECK_ARGV_FIRST, n, *doc);
	return rc;
}

/* The answers for the rows' requirements, each strategy taking what the
 * one before it left: C's in *decided, the memo's or Python's in *doc. */
static int deps_answer(const pyrt_plugins *p, const pyrt_box *box,
		       const pyrt_status *st, int memo,
		       const pyrt_events *ev, const char **argv,
		       json_t **doc, json_t **decided, char *why,
		       size_t whylen)
{
	const char **specs = argv + CHECK_ARGV_FIRST;
	size_t n = 0;
	while (specs[n])
		n++;
	int rc = deps_from_c(box, st, &memo, ev, specs, &n, decided);
	if (rc || !n)
		return rc;
	deps_memo dm;
	deps_memo_open(&dm, box, st, memo);
	rc = deps_from_memo(p, &dm, specs, n, ev, doc);
	if (!rc && !*doc)
		rc = deps_from_python(p, argv, st->interpreter, &dm, n, ev,
				      doc, why, whylen);
	free(dm.id);
	return rc;
}

/* The answers into the rows.  Returns 0, PYRT_E_NOMEM, or
 * PYRT_E_INTERPRETER with why filled when the checker's answer does not
 * cover every requirement. */
static int deps_apply(pyrt_plugins *p, json_t **doc, json_t *decided,
		      char *why, size_t whylen)
{
	if (merge_decided(doc, decided) != 0) {
		pyrt_fmt_text(why, whylen, "out of memory");
		return PYRT_E_NOMEM;
	}
	if (!results_complete(p, *doc, why, whylen))
		return PYRT_E_INTERPRETER;
	if (apply_results(p, json_object_get(*doc, "results")) == 0)
		return 0;
	pyrt_fmt_text(why, whylen, "out of memory");
	return PYRT_E_NOMEM;
}

/* The rows' requirements checked: decided in C where it can, else from
 * the memo, else by one interpreter run for all rows.  Returns 0,
 * PYRT_E_CANCELLED, or another code with why filled (the runtime could not
 * answer).  When the interpreter failed but C had decided some
 * requirements, those answers are kept (*partial set, PYRT_E_INTERPRETER
 * returned): only the rows that needed Python are marked unchecked. */
static int plugins_check_deps(pyrt_plugins *p, const pyrt_box *box,
			      const pyrt_status *st, int memo,
			      const pyrt_events *ev, int *partial, char *why,
			      size_t whylen)
{
	size_t nspecs = specs_to_check(p), bytes = 0;
	if (!nspecs)
		return 0;
	const char **argv = check_argv(p, st->interpreter, nspecs, &bytes);
	if (!argv) {
		pyrt_fmt_text(why, whylen, "out of memory");
		return PYRT_E_NOMEM;
	}
	json_t *doc = NULL, *decided = NULL;
	int rc = PYRT_E_USAGE;
	if (bytes > CHECK_ARGS_MAX)
		pyrt_fmt_text(why, whylen, "the requirements add up to more than "
			      "%d KiB", CHECK_ARGS_MAX / 1024);
	else
		rc = deps_answer(p, box, st, memo, ev, argv, &doc, &decided,
				 why, whylen);
	if (!rc)
		rc = deps_apply(p, &doc, decided, why, whylen);
	/* What C decided does not depend on the interpreter that failed. */
	if (rc == PYRT_E_INTERPRETER && decided) {
		*partial = 1;
		if (apply_results(p, decided) != 0) {
			pyrt_fmt_text(why, whylen, "out of memory");
			rc = PYRT_E_NOMEM;
		}
	}
	json_decref(decided);
	json_decref(doc);
	free(argv);
	return rc;
}

/* The fix for a runtime that is not ready, from its state. */
static const char *runtime_fix(pyrt_state state)
{
	switch (state) {
	case PYRT_STATE_BROKEN: return "pyrt install --force";
	case PYRT_STATE_UNSUPPORTED: return NULL;
	default: return "pyrt install";
	}
}

/* The row's error: each installed distribution that could not be judged,
 * by its own words (the checker names it).  Returns 0, or 1 on no memory. */
static int broken_error(plugin_row *r)
{
	char *msg = NULL;
	for (size_t j = 0; j < r->pub.require_count; j++) {
		const char *b = r->reqs[j].broken;
		char *next = NULL;
		if (!b)
			continue;
		if (asprintf(&next, "%s%s%s", msg ? msg : "", msg ? "; " : "",
			     b) < 0) {
			free(msg);
			return 1;
		}
		free(msg);
		msg = next;
	}
	r->pub.error = msg;
	return 0;
}

/* The verdict and its fix, in the order of precedence: invalid, disabled,
 * no runtime needed, runtime not ready, missing or conflicting deps. */
static int row_verdict(plugin_row *r, int ready, const char *not_ready_fix,
		       const char *check_error)
{
	pyrt_plugin *pl = &r->pub;
	char *fix = NULL;
	if (pl->verdict == PYRT_VERDICT_INVALID)
		return 0;
	if (!pl->enabled) {
		pl->verdict = PYRT_VERDICT_DISABLED;
		return 0;
	}
	if (!pl->needs_runtime) {
		pl->verdict = PYRT_VERDICT_NO_RUNTIME_NEEDED;
		return 0;
	}
	if (!ready || r->unchecked) {
		pl->verdict = PYRT_VERDICT_NEEDS_RUNTIME;
		if (check_error && !(pl->error = strdup(check_error)))
			return 1;
		if (not_ready_fix && !(pl->fix = strdup(not_ready_fix)))
			return 1;
		return 0;
	}
	pl->verdict = PYRT_VERDICT_READY;
	for (size_t j = 0; j < pl->require_count; j++)
		if (!r->reqs[j].installed || r->reqs[j].conflict)
			pl->verdict = PYRT_VERDICT_MISSING_DEPS;
	if (pl->verdict == PYRT_VERDICT_MISSING_DEPS) {
		if (asprintf(&fix, "pyrt plugins install %s", pl->name) < 0)
			return 1;
		pl->fix = fix;
	}
	return broken_error(r);
}

/* Requirements, then verdicts, once the manifests are read. */
static int plugins_judge(pyrt_plugins *p, const pyrt_box *box,
			 const pyrt_pins *pins, const char *platform_key,
			 int memo, const pyrt_status *known,
			 const pyrt_events *ev, pyrt_error *err)
{
	/* The caller's status when it has one: reading it again hashes the
	 * manifest again. */
	pyrt_status *own = known ? NULL : calloc(1, sizeof *own);
	const pyrt_status *st = known ? known : own;
	if (!st)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = known ? 0 : pyrt_status_read(box, pins, platform_key, 0,
					      NULL, own, err);
	char why[PYRT_ERROR_MSG_MAX] = "", check_error[PYRT_ERROR_MSG_MAX + 64];
	const char *fix = NULL;
	if (rc)
		goto cleanup;
	p->runtime_ready = st->state == PYRT_STATE_READY;
	fix = runtime_fix(st->state);
	int partial = 0;
	if (p->runtime_ready) {
		rc = plugins_check_deps(p, box, st, memo, ev, &partial, why,
					sizeof why);
		if (rc == PYRT_E_CANCELLED) {
			pyrt_error_set(err, rc, "cancelled");
			goto cleanup;
		}
		if (rc == PYRT_E_NOMEM) {
			pyrt_error_set(err, rc, "%s", why);
			goto cleanup;
		}
		if (rc) {
			/* An interpreter that cannot run the checker is not
			 * a ready runtime; the rows say why.  (Other
			 * failures, such as no private HOME, have no
			 * reinstall fix: the error says what to do.)  The
			 * rows C answered keep their answers. */
			p->runtime_ready = partial;
			fix = rc == PYRT_E_INTERPRETER ? "pyrt install --force"
						       : NULL;
			pyrt_fmt_text(check_error, sizeof check_error,
				      "could not check the requirements: %s", why);
			pyrt_events_log(ev, PYRT_LOG_WARN, "%s", check_error);
			rc = 0;
		}
	}
	for (size_t i = 0; i < p->n && !rc; i++)
		if (row_verdict(&p->rows[i], p->runtime_ready, fix,
				why[0] ? check_error : NULL))
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
cleanup:
	free(own);
	return rc;
}

/* One row named name holding specs, as a manifest's requires_pip would.
 * Returns 0, PYRT_E_NOMEM or PYRT_E_USAGE (a spec with no name). */
static int requirements_row(pyrt_plugins *p, const char *name,
			    const char *const *specs, size_t n,
			    pyrt_error *err)
{
	plugin_row *r = row_add(p, "", name);
	if (!r || !(r->reqs = calloc(n ? n : 1, sizeof *r->reqs)) ||
	    !(r->req_lines = calloc(n ? n : 1, sizeof *r->req_lines)))
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	r->pub.requires = r->reqs;
	r->pub.enabled = 1;
	r->pub.needs_runtime = 1;
	for (size_t i = 0; i < n; i++) {
		pyrt_requirement *q = &r->reqs[r->pub.require_count];
		if (!(q->spec = strdup(specs[i])))
			return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		r->pub.require_count++;
		if (!(q->name = requirement_name(specs[i])))
			return pyrt_error_set(err, PYRT_E_USAGE, "requirement "
					      "\"%s\" does not start with a "
					      "package name", specs[i]);
	}
	return 0;
}

int pyrt_plugins_check_requirements(pyrt_plugins **out, const char *name,
				    const char *interp,
				    const char *const *specs, size_t n,
				    const pyrt_events *ev, pyrt_error *err)
{
	*out = NULL;
	pyrt_plugins *p = calloc(1, sizeof *p);
	char why[PYRT_ERROR_MSG_MAX] = "";
	if (!p)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = requirements_row(p, name, specs, n, err);
	if (!rc) {
		/* Not remembered: doctor asks this once, and the memo is the
		 * matrix's. */
		pyrt_status *st = calloc(1, sizeof *st);
		if (!st) {
			pyrt_plugins_free(p);
			return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		}
		pyrt_fmt_text(st->interpreter, sizeof st->interpreter, "%s", interp);
		int partial = 0;
		rc = plugins_check_deps(p, NULL, st, 0, ev, &partial, why,
					sizeof why);
		free(st);
		if (rc)
			pyrt_error_set(err, rc, "%s", why[0] ? why
				       : pyrt_strerror(rc));
	}
	if (rc) {
		pyrt_plugins_free(p);
		return rc;
	}
	p->runtime_ready = 1;
	plugin_row *r = &p->rows[0];
	if (r->pub.verdict != PYRT_VERDICT_INVALID) {
		r->pub.verdict = PYRT_VERDICT_READY;
		for (size_t j = 0; j < r->pub.require_count; j++)
			if (!r->reqs[j].installed || r->reqs[j].conflict)
				r->pub.verdict = PYRT_VERDICT_MISSING_DEPS;
	}
	*out = p;
	return 0;
}

int pyrt_plugins_parse_manifest(pyrt_plugins **out, const char *name,
				const char *data, size_t len, pyrt_error *err)
{
	*out = NULL;
	pyrt_plugins *p = calloc(1, sizeof *p);
	if (!p)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = plugin_row_load(p, "plugins", name, data, len, "", err);
	if (rc) {
		pyrt_plugins_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* The scan, with the manifests remembered by their bytes when memo is
 * set (plugins, the TUI): unchanged manifests are not parsed again.
 * doctor (memo 0) parses every one and writes nothing. */
/* A row given back by the scan memo (plugins_scan_memo.h). */
typedef struct scan_ctx {
	pyrt_plugins *p;
	const char *plugins_dir;
} scan_ctx;

static int row_from_scan(void *arg, const pyrt_scan_row *s)
{
	scan_ctx *c = arg;
	plugin_row *r = row_add(c->p, c->plugins_dir, s->name);
	if (!r || (s->require_count && row_reqs_alloc(r, s->require_count)))
		return 1;
	r->pub.enabled = s->enabled;
	r->pub.needs_runtime = s->needs_runtime;
	for (size_t i = 0; i < s->require_count; i++) {
		pyrt_requirement *q = &r->reqs[r->pub.require_count];
		q->spec = strdup(s->requires[i].spec);
		q->name = s->requires[i].name ? strdup(s->requires[i].name)
					      : NULL;
		r->req_lines[r->pub.require_count++] = s->lines[i];
		if (!q->spec || (s->requires[i].name && !q->name))
			return 1;
	}
	return s->error ? row_invalid(r, s->error) : 0;
}

/* The finished scan handed to the scan memo to keep. */
static void scan_memo_keep(const pyrt_plugins *p, const char *dir,
			   const char *plugins_dir,
			   const struct timespec *started)
{
	pyrt_scan_row *rows = calloc(p->n ? p->n : 1, sizeof *rows);
	if (!rows)
		return;
	for (size_t i = 0; i < p->n; i++) {
		const plugin_row *r = &p->rows[i];
		rows[i] = (pyrt_scan_row){
			.name = r->pub.name,
			.enabled = r->pub.enabled,
			.needs_runtime = r->pub.needs_runtime,
			.error = r->pub.verdict == PYRT_VERDICT_INVALID
				 ? r->pub.error : NULL,
			.require_count = r->pub.require_count,
			.requires = r->reqs,
			.lines = r->req_lines,
		};
	}
	pyrt_plugins_scan_memo_store(dir, plugins_dir, started, rows, p->n);
	free(rows);
}

static int plugins_scan_memo(pyrt_plugins *p, const pyrt_box *box, int memo,
			     const pyrt_events *ev, pyrt_error *err)
{
	const char *plugins_dir = pyrt_box_plugins_dir(box);
	char dir[PATH_MAX];
	if (!memo || pyrt_fmt_path(dir, sizeof dir, NULL, "%s/%s",
				   pyrt_box_runtime_dir(box),
				   PYRT_PLUGINS_MEMO_DIR))
		return plugins_scan(p, plugins_dir, NULL, ev, err);
	/* Nothing changed since a settled scan: its rows, for one stat of
	 * each plugin folder and manifest (issue 28). */
	struct timespec started;
	int timed = clock_gettime(CLOCK_REALTIME, &started) == 0;
	scan_ctx sc = { p, plugins_dir };
	int hit = timed ? pyrt_plugins_scan_memo_load(dir, plugins_dir,
						      row_from_scan, &sc)
			: 0;
	if (hit < 0)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (hit) {
		if (p->n > 1)
			qsort(p->rows, p->n, sizeof *p->rows, row_cmp);
		return pyrt_events_log(ev, PYRT_LOG_DEBUG, "%zu plugin "
				       "manifests unchanged since %s/%s", p->n,
				       dir, PYRT_PLUGINS_SCAN_MEMO_FILE);
	}
	manifest_memo mm = {
		.old = pyrt_plugins_manifests_load(dir, plugins_dir),
		.next = json_object(),
	};
	int rc = plugins_scan(p, plugins_dir, &mm, ev, err);
	/* A plugin removed is a change too: its entry must go. */
	size_t had = mm.old ? json_object_size(mm.old) : 0;
	if (!rc && mm.next &&
	    (mm.changed || had != json_object_size(mm.next)))
		pyrt_plugins_manifests_store(dir, plugins_dir, mm.next);
	json_decref(mm.old);
	json_decref(mm.next);
	if (!rc && timed)
		scan_memo_keep(p, dir, plugins_dir, &started);
	return rc;
}

static int plugins_check(pyrt_plugins **out, const pyrt_box *box,
			 const pyrt_pins *pins, const char *platform_key,
			 int memo, const pyrt_status *known,
			 const pyrt_events *ev, pyrt_error *err)
{
	*out = NULL;
	pyrt_plugins *p = calloc(1, sizeof *p);
	if (!p)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = plugins_scan_memo(p, box, memo, ev, err);
	if (!rc && pyrt_events_cancelled(ev))
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (!rc)
		rc = plugins_judge(p, box, pins, platform_key, memo, known, ev,
				   err);
	if (rc) {
		pyrt_plugins_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int pyrt_plugins_check(pyrt_plugins **out, const pyrt_box *box,
		       const pyrt_pins *pins, const char *platform_key,
		       const pyrt_events *ev, pyrt_error *err)
{
	return plugins_check(out, box, pins, platform_key, 0, NULL, ev,
			     err);
}

int pyrt_plugins_check_memo(pyrt_plugins **out, const pyrt_box *box,
			    const pyrt_pins *pins, const char *platform_key,
			    const pyrt_status *st, const pyrt_events *ev,
			    pyrt_error *err)
{
	return plugins_check(out, box, pins, platform_key, 1, st, ev,
			     err);
}
