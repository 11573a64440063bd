/*
 * The pinned interpreter table, read from pins.yaml with libyaml's document
 * API.  The table decides which bytes we trust, so the reader is strict:
 * every key is known, every value has its one shape, and the first thing
 * that is not right is refused with "<source>:<line>: <what was expected>".
 * Nesting is fixed (at most three levels), so the walk never recurses into
 * whatever the document happens to contain; the document itself is loaded
 * through yamldoc, which refuses deep nesting and aliases before libyaml
 * builds it.
 */
#include "core/dist/pins.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "core/dist/pins_table.h"
#include "core/util/fmt.h"
#include "core/util/requirement.h"
#include "core/util/sha256.h"
#include "core/util/trust.h"
#include "core/util/yamldoc.h"

#define PINS_SCHEMA 1
#define PINS_FILE_MAX (1024 * 1024)
#define PINS_DEFAULT_INTERPRETER "python/bin/python3"

/* The wheel lock of one platform key; strings owned. */
typedef struct pins_lock {
	char *key;
	pyrt_pin_wheel *wheels;
	size_t n;
} pins_lock;

struct pyrt_pins {
	char *source;
	char *implementation;
	char *version;
	char *build;
	pyrt_pin_archive *archives;
	size_t n_archives;
	char **baseline;
	size_t n_baseline;
	char *interpreter; /* NULL for `layout: none` */
	pins_lock *locks;  /* the wheel lock, one per platform key */
	size_t n_locks;
};

/* One parse in progress: the document, where it came from, the result. */
typedef struct pins_parse {
	yaml_document_t *doc;
	const char *source;
	pyrt_error *err;
	pyrt_pins *pins;
} pins_parse;

/* A key a mapping may hold, and what was found for it. */
typedef struct pins_field {
	const char *name;
	int required;
	yaml_node_t *value;
} pins_field;

/* 1-based line of a node, as an editor shows it. */
static size_t node_line(const yaml_node_t *node)
{
	return node ? node->start_mark.line + 1 : 1;
}

/* Record "<source>:<line>: <message>" as the parse failure. */
static int pins_fail(pins_parse *pp, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pins_fail(pins_parse *pp, size_t line, const char *fmt, ...)
{
	char what[PYRT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	pyrt_fmt_vtext(what, sizeof what, fmt, ap);
	va_end(ap);
	return pyrt_error_set(pp->err, PYRT_E_PINS, "%s:%zu: %s", pp->source,
			      line, what);
}

static int pins_nomem(pins_parse *pp)
{
	return pyrt_error_set(pp->err, PYRT_E_NOMEM,
			      "%s: out of memory reading pins", pp->source);
}

/*
 * Quote document text for a message: short, and with control bytes
 * replaced, so a hostile file cannot write escapes to a terminal.
 */
static const char *quote(char *buf, size_t cap, const char *s)
{
	size_t o = 0;

	buf[o++] = '"';
	for (; *s && o + 5 < cap; s++)
		buf[o++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
	if (*s) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

static const char *scalar_text(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* Plain empty, ~ and null are YAML's null, never a value we could use. */
static int scalar_is_null(const yaml_node_t *node)
{
	const char *s = scalar_text(node);

	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* A string field: one line of printable text, not empty. */
static int get_text(pins_parse *pp, yaml_node_t *node, const char *what,
		    const char **out)
{
	if (node->type != YAML_SCALAR_NODE || scalar_is_null(node) ||
	    strlen(scalar_text(node)) != node->data.scalar.length)
		return pins_fail(pp, node_line(node),
				 "%s: expected a non-empty string", what);
	for (const char *s = scalar_text(node); *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return pins_fail(pp, node_line(node),
					 "%s: expected a string without "
					 "control characters", what);
	*out = scalar_text(node);
	return 0;
}

/* As get_text, keeping a copy the pins handle owns. */
static int get_string(pins_parse *pp, yaml_node_t *node, const char *what,
		      char **out)
{
	const char *s = NULL;
	int rc = get_text(pp, node, what, &s);

	if (rc < 0)
		return rc;
	*out = strdup(s);
	return *out ? 0 : pins_nomem(pp);
}

/* As get_string for a field that becomes part of a path and a marker
 * field: its length and characters are checked here, with the line. */
static int get_field(pins_parse *pp, yaml_node_t *node, const char *what,
		     pyrt_pins_field field, char **out)
{
	const char *s = NULL;
	char q[96];
	int rc = get_text(pp, node, what, &s);

	if (rc < 0)
		return rc;
	const char *want = pyrt_pins_field_check(field, s);
	if (want)
		return pins_fail(pp, node_line(node), "%s: expected %s, got %s",
				 what, want, quote(q, sizeof q, s));
	*out = strdup(s);
	return *out ? 0 : pins_nomem(pp);
}

/* An unsigned decimal written as a plain scalar; 0 when it is not one. */
static int scalar_uint(const yaml_node_t *node, uint64_t *out)
{
	uint64_t v = 0;
	const char *s;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = scalar_text(node);
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 1;
}

/* Names of the fields, for "expected one of ..." in messages. */
static void field_names(char *buf, size_t cap, const pins_field *fields,
			size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o < cap; i++) {
		int w = snprintf(buf + o, cap - o, "%s%s", i ? ", " : "",
				 fields[i].name);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

/*
 * Match a mapping's keys against the fields it may hold: an unknown or
 * repeated key is refused (a typo in a security table must not pass
 * silently), and a missing required key is reported at the mapping.
 */
static int map_fields(pins_parse *pp, yaml_node_t *map, const char *where,
		      pins_field *fields, size_t n)
{
	char q[96], names[256];

	if (map->type != YAML_MAPPING_NODE)
		return pins_fail(pp, node_line(map), "%s: expected a mapping",
				 where);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(pp->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(pp->doc, p->value);
		size_t i;

		if (!k || !v)
			return pins_fail(pp, node_line(map),
					 "%s: malformed mapping", where);
		if (k->type != YAML_SCALAR_NODE)
			return pins_fail(pp, node_line(k),
					 "%s: expected a plain key", where);
		for (i = 0; i < n; i++)
			if (strcmp(scalar_text(k), fields[i].name) == 0)
				break;
		if (i == n) {
			field_names(names, sizeof names, fields, n);
			return pins_fail(pp, node_line(k),
					 "%s: unknown key %s, expected one "
					 "of: %s", where,
					 quote(q, sizeof q, scalar_text(k)),
					 names);
		}
		if (fields[i].value)
			return pins_fail(pp, node_line(k),
					 "%s: duplicate key \"%s\", expected "
					 "each key once", where,
					 fields[i].name);
		fields[i].value = v;
	}
	for (size_t i = 0; i < n; i++)
		if (fields[i].required && !fields[i].value)
			return pins_fail(pp, node_line(map),
					 "%s: expected a key \"%s\", found "
					 "none", where, fields[i].name);
	return 0;
}

/* The value of a root key, looked up before the keys are judged. */
static yaml_node_t *root_value(pins_parse *pp, yaml_node_t *root,
			       const char *name)
{
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(pp->doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE &&
		    strcmp(scalar_text(k), name) == 0)
			return yaml_document_get_node(pp->doc, p->value);
	}
	return NULL;
}

/*
 * The schema is judged first and alone: a newer table may have keys this
 * reader does not know, and "unknown schema" is then the useful message.
 */
static int parse_schema(pins_parse *pp, yaml_node_t *root)
{
	yaml_node_t *v = root_value(pp, root, "schema");
	uint64_t schema = 0;

	if (!v)
		return pins_fail(pp, node_line(root),
				 "top level: expected a key \"schema\" "
				 "(schema: %d), found none", PINS_SCHEMA);
	if (!scalar_uint(v, &schema))
		return pins_fail(pp, node_line(v),
				 "schema: expected the integer %d",
				 PINS_SCHEMA);
	if (schema != PINS_SCHEMA)
		return pins_fail(pp, node_line(v),
				 "unknown schema %llu, this pyrt reads "
				 "schema %d", (unsigned long long)schema,
				 PINS_SCHEMA);
	return 0;
}

static int parse_runtime(pins_parse *pp, yaml_node_t *node)
{
	pins_field f[] = {
		{ "implementation", 1, NULL },
		{ "version", 1, NULL },
		{ "build", 1, NULL },
	};
	int rc = map_fields(pp, node, "runtime", f, 3);

	if (rc == 0)
		rc = get_field(pp, f[0].value, "runtime.implementation",
			       PYRT_PINS_IMPLEMENTATION,
			       &pp->pins->implementation);
	if (rc == 0)
		rc = get_field(pp, f[1].value, "runtime.version",
			       PYRT_PINS_VERSION, &pp->pins->version);
	if (rc == 0)
		rc = get_field(pp, f[2].value, "runtime.build", PYRT_PINS_BUILD,
			       &pp->pins->build);
	return rc;
}

/* One word of a key: a-z, 0-9, and '_' where allow_us; returns its end. */
static const char *key_word(const char *s, int allow_us)
{
	while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
	       (allow_us && *s == '_'))
		s++;
	return s;
}

/* ^[a-z0-9]+-[a-z0-9_]+-(gnu|musl|none)$, the shape platform keys have. */
static int key_valid(const char *key)
{
	const char *e = key_word(key, 0);

	if (e == key || *e != '-')
		return 0;
	key = e + 1;
	e = key_word(key, 1);
	if (e == key || *e != '-')
		return 0;
	key = e + 1;
	return strcmp(key, "gnu") == 0 || strcmp(key, "musl") == 0 ||
	       strcmp(key, "none") == 0;
}

/* Every byte of s in the set, the first also in first; 1 when so. */
static int chars_in(const char *s, const char *first, const char *set)
{
	if (!*s || !strchr(first, *s))
		return 0;
	for (; *s; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGIT "0123456789"

const char *pyrt_pins_field_check(pyrt_pins_field field, const char *s)
{
	if (!s)
		return "a value";
	size_t n = strlen(s);
	switch (field) {
	case PYRT_PINS_IMPLEMENTATION:
		if (n > 15 || !chars_in(s, LOWER, LOWER DIGIT "_"))
			return "a name of lowercase letters, digits and '_' "
			       "(at most 15)";
		return NULL;
	case PYRT_PINS_VERSION:
		if (n > 31 || !chars_in(s, DIGIT, LOWER UPPER DIGIT "."))
			return "a version like 3.12.14: a digit, then letters, "
			       "digits and '.' (at most 31)";
		return NULL;
	case PYRT_PINS_BUILD:
		if (n > 31 || !chars_in(s, LOWER UPPER DIGIT,
					LOWER UPPER DIGIT "._+-"))
			return "a build like 20260814: letters, digits and "
			       "'.', '_', '+', '-' (at most 31, no '/')";
		return NULL;
	case PYRT_PINS_PLATFORM:
		if (n > 47 || !key_valid(s))
			return "a key <os>-<arch>-<libc> with libc gnu, musl "
			       "or none (at most 47)";
		return NULL;
	}
	return "a known field";
}

static int url_valid(const char *url)
{
	size_t skip;

	if (strncmp(url, "https://", 8) == 0)
		skip = 8;
	else if (strncmp(url, "http://", 7) == 0)
		skip = 7;
	else
		return 0;
	return url[skip] != '\0' && url[skip] != '/' && !strchr(url, ' ');
}

/* One archives: entry, written into a (whose key is already set). */
static int parse_archive(pins_parse *pp, yaml_node_t *node,
			 pyrt_pin_archive *a)
{
	pins_field f[] = {
		{ "url", 1, NULL },
		{ "sha256", 1, NULL },
		{ "size", 0, NULL },
		{ "unpacked_size", 0, NULL },
		{ "entries", 0, NULL },
	};
	char where[128], what[160];
	const char *url = NULL, *sha = NULL;
	int rc;

	pyrt_fmt_text(where, sizeof where, "archives.%s", a->key);
	rc = map_fields(pp, node, where, f, 5);
	if (rc < 0)
		return rc;
	pyrt_fmt_text(what, sizeof what, "%s.url", where);
	rc = get_text(pp, f[0].value, what, &url);
	if (rc < 0)
		return rc;
	if (!url_valid(url))
		return pins_fail(pp, node_line(f[0].value),
				 "%s: expected a URL starting with https:// "
				 "or http://", what);
	if (strlen(url) > PYRT_PINS_URL_MAX)
		return pins_fail(pp, node_line(f[0].value),
				 "%s: expected at most %d bytes, got %zu", what,
				 PYRT_PINS_URL_MAX, strlen(url));
	pyrt_fmt_text(what, sizeof what, "%s.sha256", where);
	rc = get_text(pp, f[1].value, what, &sha);
	if (rc < 0)
		return rc;
	/* Release pages print digests in either case; pyrt compares and
	 * shows them in lowercase. */
	char lower[PYRT_SHA256_HEX_LEN + 2];
	size_t k = 0;
	for (; sha[k] && k < sizeof lower - 1; k++)
		lower[k] = (char)(sha[k] >= 'A' && sha[k] <= 'F'
				  ? sha[k] - 'A' + 'a' : sha[k]);
	lower[k] = '\0';
	if (!pyrt_sha256_hex_valid(lower))
		return pins_fail(pp, node_line(f[1].value),
				 "%s: expected 64 hex digits", what);
	if (f[2].value && (!scalar_uint(f[2].value, &a->size) || a->size == 0))
		return pins_fail(pp, node_line(f[2].value),
				 "%s.size: expected a positive integer "
				 "(bytes)", where);
	if (f[3].value && (!scalar_uint(f[3].value, &a->unpacked_size) ||
			   a->unpacked_size == 0))
		return pins_fail(pp, node_line(f[3].value),
				 "%s.unpacked_size: expected a positive "
				 "integer (bytes of the unpacked tree)", where);
	if (f[4].value && (!scalar_uint(f[4].value, &a->entries) ||
			   a->entries == 0 || a->entries > PYRT_PINS_ENTRIES_MAX))
		return pins_fail(pp, node_line(f[4].value),
				 "%s.entries: expected a positive integer "
				 "(members in the archive) of at most %d",
				 where, PYRT_PINS_ENTRIES_MAX);
	a->url = strdup(url);
	a->sha256 = strdup(lower);
	return a->url && a->sha256 ? 0 : pins_nomem(pp);
}

/* Keys are judged before entries, so a bad key is named as such. */
static int archive_key(pins_parse *pp, yaml_node_t *k, size_t i)
{
	char q[96];

	if (k->type != YAML_SCALAR_NODE ||
	    pyrt_pins_field_check(PYRT_PINS_PLATFORM, scalar_text(k)))
		return pins_fail(pp, node_line(k),
				 "archives: expected a key <os>-<arch>-<libc> "
				 "with libc gnu, musl or none (like "
				 "linux-x86_64-gnu, at most 47 bytes), got %s",
				 k->type == YAML_SCALAR_NODE ?
				 quote(q, sizeof q, scalar_text(k)) :
				 "a collection");
	for (size_t j = 0; j < i; j++)
		if (strcmp(pp->pins->archives[j].key, scalar_text(k)) == 0)
			return pins_fail(pp, node_line(k),
					 "archives: duplicate key \"%s\", "
					 "expected each platform once",
					 scalar_text(k));
	pp->pins->archives[i].key = strdup(scalar_text(k));
	return pp->pins->archives[i].key ? 0 : pins_nomem(pp);
}

static int parse_archives(pins_parse *pp, yaml_node_t *node)
{
	size_t n;

	if (node->type != YAML_MAPPING_NODE)
		return pins_fail(pp, node_line(node),
				 "archives: expected a mapping of "
				 "<os>-<arch>-<libc> to {url, sha256, size, "
				 "unpacked_size, entries}");
	n = (size_t)(node->data.mapping.pairs.top -
		     node->data.mapping.pairs.start);
	if (n == 0)
		return 0;
	pp->pins->archives = calloc(n, sizeof *pp->pins->archives);
	if (!pp->pins->archives)
		return pins_nomem(pp);
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t *p = node->data.mapping.pairs.start + i;
		yaml_node_t *k = yaml_document_get_node(pp->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(pp->doc, p->value);
		int rc;

		if (!k || !v)
			return pins_fail(pp, node_line(node),
					 "archives: malformed mapping");
		rc = archive_key(pp, k, i);
		/* Counted now so pyrt_pins_free sees every string set. */
		pp->pins->n_archives = i + 1;
		if (rc == 0)
			rc = parse_archive(pp, v, &pp->pins->archives[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Each baseline entry goes to pip: a PEP 508 requirement, nothing else. */
static int baseline_entry_check(pins_parse *pp, yaml_node_t *item,
				const char *what, const char *req)
{
	char why[PYRT_ERROR_MSG_MAX / 2];

	if (pyrt_requirement_check(req, why, sizeof why) == 0)
		return 0;
	return pins_fail(pp, node_line(item), "%s: %s", what, why);
}

static int parse_baseline(pins_parse *pp, yaml_node_t *node)
{
	size_t n;

	if (node->type != YAML_SEQUENCE_NODE)
		return pins_fail(pp, node_line(node),
				 "baseline: expected a list of pip "
				 "requirements (may be empty: [])");
	n = (size_t)(node->data.sequence.items.top -
		     node->data.sequence.items.start);
	if (n == 0)
		return 0;
	pp->pins->baseline = calloc(n, sizeof *pp->pins->baseline);
	if (!pp->pins->baseline)
		return pins_nomem(pp);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = yaml_document_get_node(
			pp->doc, node->data.sequence.items.start[i]);
		char what[48];
		int rc;

		if (!item)
			return pins_fail(pp, node_line(node),
					 "baseline: malformed list");
		pyrt_fmt_text(what, sizeof what, "baseline[%zu]", i);
		rc = get_string(pp, item, what, &pp->pins->baseline[i]);
		pp->pins->n_baseline = i + 1;
		if (rc < 0)
			return rc;
		rc = baseline_entry_check(pp, item, what,
					  pp->pins->baseline[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the wheel lock ------------------------------------------------------ */

static void requires_free(pyrt_pin_wheel *w)
{
	for (size_t i = 0; i < w->nrequires; i++)
		free((char *)w->requires[i]);
	free((void *)w->requires);
	w->requires = NULL;
	w->nrequires = 0;
	w->requires_known = 0;
}

/* Copies of n requirement strings into w; -1 when out of memory. */
static int requires_copy(pyrt_pin_wheel *w, const char *const *reqs,
			 size_t n)
{
	char **v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return -1;
	w->requires = (const char *const *)v;
	w->requires_known = 1;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] = strdup(reqs[i])))
			return -1;
		w->nrequires = i + 1;
	}
	return 0;
}

static void lock_clear(pins_lock *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->wheels[i].file);
		free((char *)l->wheels[i].sha256);
		free((char *)l->wheels[i].name);
		free((char *)l->wheels[i].version);
		requires_free(&l->wheels[i]);
	}
	free(l->wheels);
	free(l->key);
	memset(l, 0, sizeof *l);
}

static void locks_free(pyrt_pins *pins)
{
	for (size_t i = 0; i < pins->n_locks; i++)
		lock_clear(&pins->locks[i]);
	free(pins->locks);
	pins->locks = NULL;
	pins->n_locks = 0;
}

/* Characters of one part of a wheel file name (PEP 427 escapes '-'). */
static int wheel_part_ok(const char *s, size_t n, const char *extra)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && !strchr(extra, s[i]))
			return 0;
	return 1;
}

const char *pyrt_pins_wheel_file_check(const char *file)
{
	static const char want[] =
		"a wheel file name name-version[-build]-python-abi-platform"
		".whl (letters, digits, '_', '.', '+', '!'; no directory, "
		"not hidden)";
	size_t len = file ? strlen(file) : 0;
	if (len < 5 || len > PYRT_PINS_WHEEL_FILE_MAX || file[0] == '.' ||
	    strcmp(file + len - 4, ".whl") != 0)
		return want;
	const char *end = file + len - 4;
	size_t parts = 0;
	for (const char *p = file;; parts++) {
		const char *dash = memchr(p, '-', (size_t)(end - p));
		const char *stop = dash ? dash : end;
		/* the version may hold '+' and '!'; every other part only
		 * [A-Za-z0-9_.] (PEP 427 escapes '-' as '_') */
		if (!wheel_part_ok(p, (size_t)(stop - p), parts == 1 ? "+!" : ""))
			return want;
		if (!dash)
			break;
		p = dash + 1;
	}
	return parts + 1 == 5 || parts + 1 == 6 ? NULL : want;
}

int pyrt_pins_wheel_project(const char *file, char *name, size_t nlen,
			    char *version, size_t vlen)
{
	if (pyrt_pins_wheel_file_check(file))
		return -1;
	size_t n = strcspn(file, "-");
	const char *v = file + n + 1;
	size_t m = strcspn(v, "-");
	if (n >= nlen || m >= vlen)
		return -1;
	size_t o = 0;
	/* PEP 503: lower case, runs of -_. as one '-' */
	for (size_t i = 0; i < n; i++) {
		char c = file[i];
		if (c == '_' || c == '.' || c == '-') {
			if (o == 0 || name[o - 1] != '-')
				name[o++] = '-';
			continue;
		}
		name[o++] = (char)tolower((unsigned char)c);
	}
	name[o] = '\0';
	memcpy(version, v, m);
	version[m] = '\0';
	return 0;
}

/* NULL when w is a valid lock entry, else what is wrong with it. */
static const char *wheel_entry_check(const pyrt_pin_wheel *w)
{
	const char *why = pyrt_pins_wheel_file_check(w->file);
	if (why)
		return why;
	if (!w->sha256 || !pyrt_sha256_hex_valid(w->sha256))
		return "sha256: expected 64 hex digits";
	if (w->size == 0 || w->size > PYRT_PINS_WHEEL_SIZE_MAX)
		return "size: expected a positive integer (bytes) of at most "
		       "4 GiB";
	return NULL;
}

/*
 * w's name and version (owned copies) from its file name, each checked
 * against name and version when those are given (a lock that records
 * them).  NULL, or what is wrong into buf; *nomem on no memory.
 */
static const char *wheel_identity(pyrt_pin_wheel *w, const char *name,
				  const char *version, char *buf, size_t len,
				  int *nomem)
{
	char fname[PYRT_PINS_WHEEL_FILE_MAX + 1], fver[sizeof fname];
	char norm[PYRT_PINS_WHEEL_FILE_MAX + 1];
	*nomem = 0;
	if (pyrt_pins_wheel_project(w->file, fname, sizeof fname, fver,
				    sizeof fver) != 0)
		return "expected a wheel file name";
	if (name) {
		size_t n = strlen(name);
		if (n >= sizeof norm || pyrt_name_normalize(name, n, '-', norm) ||
		    strcmp(norm, fname) != 0) {
			pyrt_fmt_text(buf, len, "name \"%.80s\" is not the project of "
				      "%s (%s)", name, w->file, fname);
			return buf;
		}
	}
	if (version && strcmp(version, fver) != 0) {
		pyrt_fmt_text(buf, len, "version \"%.80s\" is not the version of %s "
			      "(%s)", version, w->file, fver);
		return buf;
	}
	w->name = strdup(fname);
	w->version = strdup(fver);
	if (!w->name || !w->version)
		*nomem = 1;
	return NULL;
}

/*
 * Among the first n wheels of a lock: the same file twice, or a second
 * version of one project (pip gets name==version: one version a project).
 * NULL, or the message into buf.
 */
static const char *wheel_conflict(const pyrt_pin_wheel *w, size_t n,
				  const pyrt_pin_wheel *next, char *buf,
				  size_t len)
{
	char name[PYRT_PINS_WHEEL_FILE_MAX + 1], ver[PYRT_PINS_WHEEL_FILE_MAX + 1];
	char oname[sizeof name], over[sizeof ver];
	if (pyrt_pins_wheel_project(next->file, name, sizeof name, ver,
				    sizeof ver) != 0)
		return "expected a wheel file name";
	for (size_t i = 0; i < n; i++) {
		if (strcmp(w[i].file, next->file) == 0) {
			pyrt_fmt_text(buf, len, "%s is listed twice, expected each "
				      "file once", next->file);
			return buf;
		}
		if (pyrt_pins_wheel_project(w[i].file, oname, sizeof oname,
					    over, sizeof over) == 0 &&
		    strcmp(oname, name) == 0 && strcmp(over, ver) != 0) {
			pyrt_fmt_text(buf, len, "%s and %s are two versions of %s, "
				      "expected one version a project", w[i].file,
				      next->file, name);
			return buf;
		}
	}
	return NULL;
}

/* Lowercase copy of a digest as a release page may print it. */
static char *hex_lower(const char *s)
{
	char *out = strdup(s);
	for (char *p = out; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/* wheels.KEY[i].requires: the wheel's Requires-Dist strings (a list,
 * may be empty), into w. */
static int parse_requires(pins_parse *pp, yaml_node_t *node,
			  const char *where, pyrt_pin_wheel *w)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return pins_fail(pp, node_line(node), "%s.requires: expected a "
				 "list of the wheel's Requires-Dist (may be "
				 "empty: [])", where);
	size_t n = (size_t)(node->data.sequence.items.top -
			    node->data.sequence.items.start);
	const char **v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return pins_nomem(pp);
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		yaml_node_t *item = yaml_document_get_node(
			pp->doc, node->data.sequence.items.start[i]);
		char what[192];
		pyrt_fmt_text(what, sizeof what, "%s.requires[%zu]", where, i);
		rc = item ? get_text(pp, item, what, &v[i])
			  : pins_fail(pp, node_line(node), "%s: malformed "
				      "list", what);
	}
	if (!rc && requires_copy(w, v, n) != 0)
		rc = pins_nomem(pp);
	free(v);
	return rc < 0 ? rc : 0;
}

/* One {file, sha256, size} of wheels.KEY, into w (strings owned). */
static int parse_wheel(pins_parse *pp, yaml_node_t *node, const char *where,
		       pyrt_pin_wheel *w)
{
	pins_field f[] = {
		{ "file", 1, NULL },
		{ "sha256", 1, NULL },
		{ "size", 1, NULL },
		{ "name", 0, NULL },
		{ "version", 0, NULL },
		{ "requires", 0, NULL },
	};
	const char *file = NULL, *sha = NULL, *name = NULL, *ver = NULL;
	char what[160];
	int rc = map_fields(pp, node, where, f, 6);
	if (rc < 0)
		return rc;
	pyrt_fmt_text(what, sizeof what, "%s.file", where);
	if ((rc = get_text(pp, f[0].value, what, &file)) < 0)
		return rc;
	const char *why = pyrt_pins_wheel_file_check(file);
	char q[96];
	if (why)
		return pins_fail(pp, node_line(f[0].value), "%s: expected %s, "
				 "got %s", what, why, quote(q, sizeof q, file));
	pyrt_fmt_text(what, sizeof what, "%s.sha256", where);
	if ((rc = get_text(pp, f[1].value, what, &sha)) < 0)
		return rc;
	w->file = strdup(file);
	w->sha256 = hex_lower(sha);
	if (!w->file || !w->sha256)
		return pins_nomem(pp);
	if (!pyrt_sha256_hex_valid(w->sha256))
		return pins_fail(pp, node_line(f[1].value),
				 "%s: expected 64 hex digits", what);
	if (!scalar_uint(f[2].value, &w->size) || w->size == 0 ||
	    w->size > PYRT_PINS_WHEEL_SIZE_MAX)
		return pins_fail(pp, node_line(f[2].value),
				 "%s.size: expected a positive integer (bytes) "
				 "of at most 4 GiB", where);
	pyrt_fmt_text(what, sizeof what, "%s.name", where);
	if (f[3].value && (rc = get_text(pp, f[3].value, what, &name)) < 0)
		return rc;
	pyrt_fmt_text(what, sizeof what, "%s.version", where);
	if (f[4].value && (rc = get_text(pp, f[4].value, what, &ver)) < 0)
		return rc;
	char buf[320];
	int nomem = 0;
	why = wheel_identity(w, name, ver, buf, sizeof buf, &nomem);
	if (nomem)
		return pins_nomem(pp);
	if (why)
		return pins_fail(pp, node_line(f[3].value ? f[3].value : node),
				 "%s: %s", where, why);
	return f[5].value ? parse_requires(pp, f[5].value, where, w) : 0;
}

/* wheels.KEY: a non-empty list of wheels for a pinned platform. */
static int parse_lock(pins_parse *pp, yaml_node_t *k, yaml_node_t *v,
		      pins_lock *l)
{
	char q[96], where[128], buf[PYRT_ERROR_MSG_MAX / 2];
	const char *key = k->type == YAML_SCALAR_NODE ? scalar_text(k) : NULL;
	if (!key || pyrt_pins_field_check(PYRT_PINS_PLATFORM, key))
		return pins_fail(pp, node_line(k), "wheels: expected a key "
				 "<os>-<arch>-<libc> (like linux-x86_64-gnu), "
				 "got %s", key ? quote(q, sizeof q, key)
					       : "a collection");
	if (!pyrt_pins_find(pp->pins, key))
		return pins_fail(pp, node_line(k), "wheels: %s has no archive "
				 "in archives, expected a pinned platform",
				 quote(q, sizeof q, key));
	if (pyrt_pins_lock_find(pp->pins, key, NULL))
		return pins_fail(pp, node_line(k), "wheels: duplicate key "
				 "\"%s\", expected each platform once", key);
	if (!(l->key = strdup(key)))
		return pins_nomem(pp);
	size_t n = v->type == YAML_SEQUENCE_NODE
		   ? (size_t)(v->data.sequence.items.top -
			      v->data.sequence.items.start) : 0;
	if (n == 0)
		return pins_fail(pp, node_line(v), "wheels.%s: expected a "
				 "non-empty list of {file, sha256, size}", key);
	if (!(l->wheels = calloc(n, sizeof *l->wheels)))
		return pins_nomem(pp);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = yaml_document_get_node(
			pp->doc, v->data.sequence.items.start[i]);
		if (!item)
			return pins_fail(pp, node_line(v), "wheels.%s: "
					 "malformed list", key);
		pyrt_fmt_text(where, sizeof where, "wheels.%s[%zu]", key, i);
		l->n = i + 1;
		int rc = parse_wheel(pp, item, where, &l->wheels[i]);
		if (rc < 0)
			return rc;
		const char *c = wheel_conflict(l->wheels, i, &l->wheels[i],
					       buf, sizeof buf);
		if (c)
			return pins_fail(pp, node_line(item), "%s: %s", where,
					 c);
	}
	return 0;
}

static int parse_wheels(pins_parse *pp, yaml_node_t *node)
{
	if (node->type != YAML_MAPPING_NODE)
		return pins_fail(pp, node_line(node), "wheels: expected a "
				 "mapping of <os>-<arch>-<libc> to a list of "
				 "{file, sha256, size}");
	size_t n = (size_t)(node->data.mapping.pairs.top -
			    node->data.mapping.pairs.start);
	if (n == 0)
		return pins_fail(pp, node_line(node), "wheels: expected at "
				 "least one platform (or no wheels key)");
	pp->pins->locks = calloc(n, sizeof *pp->pins->locks);
	if (!pp->pins->locks)
		return pins_nomem(pp);
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t *p = node->data.mapping.pairs.start + i;
		yaml_node_t *k = yaml_document_get_node(pp->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(pp->doc, p->value);
		if (!k || !v)
			return pins_fail(pp, node_line(node),
					 "wheels: malformed mapping");
		pins_lock l = { 0 };
		int rc = parse_lock(pp, k, v, &l);
		if (rc < 0) {
			lock_clear(&l);
			return rc;
		}
		pp->pins->locks[pp->pins->n_locks++] = l;
	}
	return 0;
}

size_t pyrt_pins_lock_count(const pyrt_pins *pins)
{
	return pins ? pins->n_locks : 0;
}

const char *pyrt_pins_lock_key_at(const pyrt_pins *pins, size_t i)
{
	return pins && i < pins->n_locks ? pins->locks[i].key : NULL;
}

const pyrt_pin_wheel *pyrt_pins_lock_find(const pyrt_pins *pins,
					  const char *key, size_t *n)
{
	if (n)
		*n = 0;
	if (!pins || !key)
		return NULL;
	for (size_t i = 0; i < pins->n_locks; i++)
		if (strcmp(pins->locks[i].key, key) == 0) {
			if (n)
				*n = pins->locks[i].n;
			return pins->locks[i].wheels;
		}
	return NULL;
}

/* Sort order of the digest's lines: by file name. */
static int wheel_file_cmp(const void *a, const void *b)
{
	const pyrt_pin_wheel *const *x = a, *const *y = b;
	return strcmp((*x)->file, (*y)->file);
}

int pyrt_pins_lock_digest(const pyrt_pins *pins, const char *key,
			  char hex[PYRT_SHA256_HEX_LEN + 1])
{
	size_t n = 0;
	const pyrt_pin_wheel *w = pyrt_pins_lock_find(pins, key, &n);
	hex[0] = '\0';
	if (!w || !n)
		return 0;
	const pyrt_pin_wheel **order = calloc(n, sizeof *order);
	pyrt_sha256 *ctx = order ? pyrt_sha256_new() : NULL;
	int rc = ctx ? 1 : -1;
	for (size_t i = 0; ctx && i < n; i++)
		order[i] = &w[i];
	if (ctx)
		qsort(order, n, sizeof *order, wheel_file_cmp);
	for (size_t i = 0; ctx && rc == 1 && i < n; i++) {
		char line[PYRT_PINS_WHEEL_FILE_MAX + PYRT_SHA256_HEX_LEN + 48];
		int len = snprintf(line, sizeof line, "%s %s %llu\n",
				   order[i]->file, order[i]->sha256,
				   (unsigned long long)order[i]->size);
		if (len < 0 || (size_t)len >= sizeof line ||
		    pyrt_sha256_update(ctx, line, (size_t)len) != 0)
			rc = -1;
	}
	if (rc == 1 && pyrt_sha256_final_hex(ctx, hex) != 0)
		rc = -1;
	if (rc < 0)
		hex[0] = '\0';
	pyrt_sha256_free(ctx);
	free(order);
	return rc;
}

/* Copies of the n wheels into l, each checked; PYRT_E_PINS or NOMEM. */
static int lock_fill(pins_lock *l, const char *key,
		     const pyrt_pin_wheel *wheels, size_t n, pyrt_error *err)
{
	char buf[PYRT_ERROR_MSG_MAX / 2];
	l->key = strdup(key);
	l->wheels = calloc(n ? n : 1, sizeof *l->wheels);
	if (!l->key || !l->wheels)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *why = wheel_entry_check(&wheels[i]);
		if (!why)
			why = wheel_conflict(l->wheels, i, &wheels[i], buf,
					     sizeof buf);
		if (why)
			return pyrt_error_set(err, PYRT_E_PINS, "wheel %s: %s",
					      wheels[i].file ? wheels[i].file
							     : "(none)", why);
		l->n = i + 1;
		l->wheels[i].size = wheels[i].size;
		l->wheels[i].file = strdup(wheels[i].file);
		l->wheels[i].sha256 = hex_lower(wheels[i].sha256);
		if (!l->wheels[i].file || !l->wheels[i].sha256)
			return pyrt_error_set(err, PYRT_E_NOMEM,
					      "out of memory");
		int nomem = 0;
		why = wheel_identity(&l->wheels[i], wheels[i].name,
				     wheels[i].version, buf, sizeof buf,
				     &nomem);
		if (nomem)
			return pyrt_error_set(err, PYRT_E_NOMEM,
					      "out of memory");
		if (why)
			return pyrt_error_set(err, PYRT_E_PINS, "wheel %s: %s",
					      wheels[i].file, why);
		if (wheels[i].requires_known &&
		    requires_copy(&l->wheels[i], wheels[i].requires,
				  wheels[i].nrequires) != 0)
			return pyrt_error_set(err, PYRT_E_NOMEM,
					      "out of memory");
	}
	return 0;
}

int pyrt_pins_set_lock(pyrt_pins *pins, const char *key,
		       const pyrt_pin_wheel *wheels, size_t n,
		       pyrt_error *err)
{
	if (!pins || !key || (n && !wheels))
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_pins_set_lock: missing argument");
	if (n == 0 || !pyrt_pins_find(pins, key))
		return pyrt_error_set(err, PYRT_E_PINS, "a wheel lock for %s "
				      "needs a pinned archive and at least one "
				      "wheel", key);
	pins_lock l = { 0 };
	int rc = lock_fill(&l, key, wheels, n, err);
	if (rc) {
		lock_clear(&l);
		return rc;
	}
	for (size_t i = 0; i < pins->n_locks; i++)
		if (strcmp(pins->locks[i].key, key) == 0) {
			lock_clear(&pins->locks[i]);
			pins->locks[i] = l;
			return 0;
		}
	pins_lock *v = realloc(pins->locks, (pins->n_locks + 1) * sizeof *v);
	if (!v) {
		lock_clear(&l);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	pins->locks = v;
	pins->locks[pins->n_locks++] = l;
	return 0;
}

/* A member path inside the archive: relative, and never climbing out. */
static int member_path_valid(const char *p)
{
	if (*p == '/')
		return 0;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

static int parse_layout(pins_parse *pp, yaml_node_t *node)
{
	pins_field f[] = { { "interpreter", 1, NULL } };
	const char *path = NULL;
	int rc;

	if (node->type == YAML_SCALAR_NODE &&
	    strcmp(scalar_text(node), "none") == 0)
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return pins_fail(pp, node_line(node),
				 "layout: expected none or a mapping "
				 "{interpreter: PATH}");
	rc = map_fields(pp, node, "layout", f, 1);
	if (rc == 0)
		rc = get_text(pp, f[0].value, "layout.interpreter", &path);
	if (rc < 0)
		return rc;
	if (!member_path_valid(path) || path[strlen(path) - 1] == '/' ||
	    strlen(path) > PYRT_PINS_INTERPRETER_MAX)
		return pins_fail(pp, node_line(f[0].value),
				 "layout.interpreter: expected a relative "
				 "path inside the archive of at most %d bytes",
				 PYRT_PINS_INTERPRETER_MAX);
	pp->pins->interpreter = strdup(path);
	return pp->pins->interpreter ? 0 : pins_nomem(pp);
}

/* Walk a loaded document's root into pp->pins. */
static int parse_root(pins_parse *pp, yaml_node_t *root)
{
	pins_field f[] = {
		{ "schema", 1, NULL },
		{ "runtime", 1, NULL },
		{ "archives", 1, NULL },
		{ "baseline", 1, NULL },
		{ "layout", 0, NULL },
		{ "wheels", 0, NULL },
	};
	int rc;

	if (!root || root->type != YAML_MAPPING_NODE)
		return pins_fail(pp, node_line(root),
				 "expected a mapping with schema, runtime, "
				 "archives and baseline");
	rc = parse_schema(pp, root);
	if (rc == 0)
		rc = map_fields(pp, root, "top level", f, 6);
	if (rc == 0)
		rc = parse_runtime(pp, f[1].value);
	if (rc == 0)
		rc = parse_archives(pp, f[2].value);
	if (rc == 0)
		rc = parse_baseline(pp, f[3].value);
	if (rc == 0 && f[5].value)
		rc = parse_wheels(pp, f[5].value);
	if (rc < 0)
		return rc;
	if (f[4].value)
		return parse_layout(pp, f[4].value);
	pp->pins->interpreter = strdup(PINS_DEFAULT_INTERPRETER);
	return pp->pins->interpreter ? 0 : pins_nomem(pp);
}

int pyrt_pins_parse(pyrt_pins **out, const char *data, size_t len,
		    const char *source, pyrt_error *err)
{
	yaml_document_t doc;
	pyrt_yaml_problem pb;
	int doc_ok = 0;
	pins_parse pp = { &doc, source ? source : "pins", err, NULL };
	int rc;

	if (!out || (!data && len > 0))
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_pins_parse: missing argument");
	*out = NULL;
	pp.pins = calloc(1, sizeof *pp.pins);
	if (!pp.pins || !(pp.pins->source = strdup(pp.source))) {
		rc = pins_nomem(&pp);
		goto cleanup;
	}
	/* One document only: which of two tables is meant is a guess. */
	doc_ok = pyrt_yamldoc_load(&doc, data, len, 1, &pb) == 0;
	if (!doc_ok) {
		rc = pb.nomem ? pins_nomem(&pp)
		   : pb.no_library
			? pyrt_error_set(err, PYRT_E_UNSUPPORTED,
					 "%s: cannot read it: %s", source,
					 pb.what)
			: pins_fail(&pp, pb.line, "%s", pb.what);
		goto cleanup;
	}
	rc = parse_root(&pp, yaml_document_get_root_node(&doc));
cleanup:
	if (doc_ok)
		yaml_document_delete(&doc);
	if (rc < 0) {
		pyrt_pins_free(pp.pins);
		return rc;
	}
	*out = pp.pins;
	return 0;
}

/* Read a whole file of at most PINS_FILE_MAX bytes into a malloc'd buffer. */
static int read_capped(const char *path, char **data, size_t *len,
		       pyrt_error *err)
{
	size_t cap = PINS_FILE_MAX + 1, n = 0;
	char *buf = NULL;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_PINS, errno,
					    "%s: cannot read", path);
	buf = malloc(cap);
	if (!buf) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM,
				    "%s: out of memory reading pins", path);
		goto cleanup;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = pyrt_error_set_errno(err, PYRT_E_PINS, errno,
						  "%s: cannot read", path);
			goto cleanup;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > PINS_FILE_MAX) {
		rc = pyrt_error_set(err, PYRT_E_PINS,
				    "%s: larger than 1 MiB, expected a pins "
				    "table", path);
		goto cleanup;
	}
	*data = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return rc;
}

int pyrt_pins_load_file(pyrt_pins **out, const char *path, pyrt_error *err)
{
	return pyrt_pins_load_file_seen(out, path, NULL, err);
}

int pyrt_pins_load_file_seen(pyrt_pins **out, const char *path,
			     const struct pyrt_fs_seen *seen, pyrt_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (!out || !path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_pins_load_file: missing argument");
	*out = NULL;
	/* Whoever can change the pins picks the archive and its digest.
	 * A file that cannot be read is read_capped's to report. */
	pyrt_error terr = PYRT_ERROR_INIT;
	if (pyrt_trust_path_reuse("pins file", path, 0, NULL, 0, seen,
				  &terr) == PYRT_E_UNTRUSTED)
		return pyrt_error_set(err, PYRT_E_UNTRUSTED, "%s", terr.msg);
	rc = read_capped(path, &data, &len, err);
	if (rc == 0)
		rc = pyrt_pins_parse(out, data, len, path, err);
	free(data);
	return rc;
}

/* strdup that keeps NULL, for the optional strings of a table. */
static int dup_opt(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out ? 0 : -1;
}

static int table_archives(pyrt_pins *pins, const pyrt_pins_table *t)
{
	if (t->n_archives == 0)
		return 0;
	pins->archives = calloc(t->n_archives, sizeof *pins->archives);
	if (!pins->archives)
		return -1;
	for (size_t i = 0; i < t->n_archives; i++) {
		const pyrt_pin_archive *src = &t->archives[i];
		pyrt_pin_archive *a = &pins->archives[i];
		char *key, *url, *sha256;

		/* Counted first so pyrt_pins_free sees every string set. */
		pins->n_archives = i + 1;
		*a = *src;
		a->key = a->url = a->sha256 = NULL;
		if (dup_opt(&key, src->key) < 0)
			return -1;
		a->key = key;
		if (dup_opt(&url, src->url) < 0)
			return -1;
		a->url = url;
		if (dup_opt(&sha256, src->sha256) < 0)
			return -1;
		a->sha256 = sha256;
	}
	return 0;
}

static int table_baseline(pyrt_pins *pins, const pyrt_pins_table *t)
{
	if (t->n_baseline == 0)
		return 0;
	pins->baseline = calloc(t->n_baseline, sizeof *pins->baseline);
	if (!pins->baseline)
		return -1;
	for (size_t i = 0; i < t->n_baseline; i++) {
		pins->n_baseline = i + 1;
		if (dup_opt(&pins->baseline[i], t->baseline[i]) < 0)
			return -1;
	}
	return 0;
}

int pyrt_pins_from_table(pyrt_pins **out, const pyrt_pins_table *table,
			 const char *source, pyrt_error *err)
{
	pyrt_pins *pins;
	const char *name = source ? source : "pins";

	if (!out || !table)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_pins_from_table: missing argument");
	*out = NULL;
	pins = calloc(1, sizeof *pins);
	if (!pins || dup_opt(&pins->source, name) < 0 ||
	    dup_opt(&pins->implementation, table->implementation) < 0 ||
	    dup_opt(&pins->version, table->version) < 0 ||
	    dup_opt(&pins->build, table->build) < 0 ||
	    dup_opt(&pins->interpreter, table->interpreter) < 0 ||
	    table_archives(pins, table) < 0 || table_baseline(pins, table) < 0) {
		pyrt_pins_free(pins);
		return pyrt_error_set(err, PYRT_E_NOMEM,
				      "%s: out of memory reading pins", name);
	}
	*out = pins;
	return 0;
}

void pyrt_pins_free(pyrt_pins *pins)
{
	if (!pins)
		return;
	for (size_t i = 0; i < pins->n_archives; i++) {
		free((char *)pins->archives[i].key);
		free((char *)pins->archives[i].url);
		free((char *)pins->archives[i].sha256);
	}
	free(pins->archives);
	locks_free(pins);
	for (size_t i = 0; i < pins->n_baseline; i++)
		free(pins->baseline[i]);
	free(pins->baseline);
	free(pins->source);
	free(pins->implementation);
	free(pins->version);
	free(pins->build);
	free(pins->interpreter);
	free(pins);
}

const char *pyrt_pins_source(const pyrt_pins *pins)
{
	return pins ? pins->source : NULL;
}

int pyrt_pins_set_source(pyrt_pins *pins, const char *source)
{
	char *copy = source ? strdup(source) : NULL;
	if (!copy)
		return PYRT_E_NOMEM;
	free(pins->source);
	pins->source = copy;
	return 0;
}

const char *pyrt_pins_implementation(const pyrt_pins *pins)
{
	return pins ? pins->implementation : NULL;
}

const char *pyrt_pins_version(const pyrt_pins *pins)
{
	return pins ? pins->version : NULL;
}

const char *pyrt_pins_build(const pyrt_pins *pins)
{
	return pins ? pins->build : NULL;
}

size_t pyrt_pins_archive_count(const pyrt_pins *pins)
{
	return pins ? pins->n_archives : 0;
}

const pyrt_pin_archive *pyrt_pins_archive_at(const pyrt_pins *pins, size_t i)
{
	return pins && i < pins->n_archives ? &pins->archives[i] : NULL;
}

const pyrt_pin_archive *pyrt_pins_find(const pyrt_pins *pins, const char *key)
{
	if (!pins || !key)
		return NULL;
	for (size_t i = 0; i < pins->n_archives; i++)
		if (strcmp(pins->archives[i].key, key) == 0)
			return &pins->archives[i];
	return NULL;
}

size_t pyrt_pins_baseline_count(const pyrt_pins *pins)
{
	return pins ? pins->n_baseline : 0;
}

const char *pyrt_pins_baseline_at(const pyrt_pins *pins, size_t i)
{
	return pins && i < pins->n_baseline ? pins->baseline[i] : NULL;
}

const char *pyrt_pins_layout_interpreter(const pyrt_pins *pins)
{
	return pins ? pins->interpreter : NULL;
}

/* ---- writing pins back ----------------------------------------------------- */

/* A YAML double-quoted scalar (the parser took only printable text). */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void format_archives(FILE *f, const pyrt_pins *pins)
{
	fputs("archives:\n", f);
	if (pins->n_archives == 0)
		fputs("  {}\n", f);
	for (size_t i = 0; i < pins->n_archives; i++) {
		const pyrt_pin_archive *a = &pins->archives[i];
		fprintf(f, "  %s:\n    url: ", a->key);
		put_quoted(f, a->url);
		fprintf(f, "\n    sha256: %s\n", a->sha256);
		if (a->size)
			fprintf(f, "    size: %llu\n",
				(unsigned long long)a->size);
		if (a->unpacked_size)
			fprintf(f, "    unpacked_size: %llu\n",
				(unsigned long long)a->unpacked_size);
		if (a->entries)
			fprintf(f, "    entries: %llu\n",
				(unsigned long long)a->entries);
	}
}

static void format_rest(FILE *f, const pyrt_pins *pins)
{
	if (!pins->interpreter)
		fputs("layout: none\n", f);
	else if (strcmp(pins->interpreter, PINS_DEFAULT_INTERPRETER) != 0) {
		fputs("layout:\n  interpreter: ", f);
		put_quoted(f, pins->interpreter);
		fputc('\n', f);
	}
	fputs(pins->n_baseline ? "baseline:\n" : "baseline: []\n", f);
	for (size_t i = 0; i < pins->n_baseline; i++) {
		fputs("  - ", f);
		put_quoted(f, pins->baseline[i]);
		fputc('\n', f);
	}
	if (pins->n_locks)
		fputs("# The wheel lock: a baseline installs these files and "
		      "nothing else.\nwheels:\n", f);
	for (size_t i = 0; i < pins->n_locks; i++) {
		const pins_lock *l = &pins->locks[i];
		fprintf(f, "  %s:\n", l->key);
		for (size_t k = 0; k < l->n; k++) {
			const pyrt_pin_wheel *w = &l->wheels[k];
			fprintf(f, "    - file: %s\n      sha256: %s\n"
				"      size: %llu\n      name: %s\n"
				"      version: \"%s\"\n", w->file, w->sha256,
				(unsigned long long)w->size, w->name,
				w->version);
			if (!w->requires_known)
				continue;
			fputs(w->nrequires ? "      requires:\n"
					   : "      requires: []\n", f);
			for (size_t r = 0; r < w->nrequires; r++) {
				fputs("        - ", f);
				put_quoted(f, w->requires[r]);
				fputc('\n', f);
			}
		}
	}
}

int pyrt_pins_format(const pyrt_pins *pins, char **out, size_t *len,
		     pyrt_error *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = pins && out ? open_memstream(&buf, &n) : NULL;
	if (!f)
		return pyrt_error_set(err, PYRT_E_NOMEM,
				      "out of memory writing pins");
	fputs("schema: 1\nruntime:\n  implementation: ", f);
	put_quoted(f, pins->implementation);
	fputs("\n  version: ", f);
	put_quoted(f, pins->version);
	fputs("\n  build: ", f);
	put_quoted(f, pins->build);
	fputc('\n', f);
	format_archives(f, pins);
	format_rest(f, pins);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return pyrt_error_set(err, PYRT_E_NOMEM,
				      "out of memory writing pins");
	}
	*out = buf;
	if (len)
		*len = n;
	return 0;
}
