/*
 * Version marker: a small JSON document beside each install that status,
 * doctor and rollback read instead of starting Python.
 *
 * The marker vouches for the install, so it is read as strictly as it is
 * written: every field has one type and one shape, nothing is silently cut
 * to fit, and a "digest" (SHA-256 of the rest in a canonical form: sorted
 * keys, compact, ASCII) makes any change to its bytes that still parses a
 * finding instead of a quiet difference.  It also carries the digest and
 * entry count of manifest.tsv, so the manifest cannot lose or change lines
 * unnoticed either.
 */
#include "core/runtime/marker.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist/digest_memo.h"
#include "core/dist/manifest.h"
#include "core/dist/pins.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/redact.h"

#define MARKER_MAX_BYTES (256 * 1024)
#define MARKER_CANON_FLAGS (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)

/* ---- checking fields ---- */

/* YYYY-MM-DDTHH:MM:SSZ, the form pyrt_fs_now_rfc3339 writes. */
static int marker_time_ok(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	if (strlen(s) != sizeof shape - 1)
		return 0;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9')
				    : s[i] != shape[i])
			return 0;
	return 1;
}

static int marker_baseline_ok(const pyrt_marker *m, char *why, size_t len)
{
	const char *st = m->baseline_state;
	if (strcmp(st, "complete") && strcmp(st, "partial") && strcmp(st, "none")) {
		pyrt_fmt_text(why, len, "baseline.state is not complete, partial or none");
		return 0;
	}
	if (m->baseline_missing_count < 0 ||
	    m->baseline_missing_count > PYRT_MARKER_MISSING_MAX) {
		pyrt_fmt_text(why, len, "baseline.missing has more than %d entries",
			      PYRT_MARKER_MISSING_MAX);
		return 0;
	}
	for (int i = 0; i < m->baseline_missing_count; i++)
		if (!m->baseline_missing[i][0]) {
			pyrt_fmt_text(why, len, "baseline.missing holds an empty name");
			return 0;
		}
	return 1;
}

int pyrt_marker_search_entry_ok(const char *rel)
{
	size_t n = strlen(rel);
	if (!n || n >= PYRT_MARKER_SEARCH_LEN || rel[0] == '/' ||
	    rel[n - 1] == '/' || strstr(rel, "//"))
		return 0;
	for (const char *c = rel; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return 0;
	for (const char *p = rel; *p;) {
		size_t k = strcspn(p, "/");
		if ((k == 1 && p[0] == '.') || (k == 2 && !strncmp(p, "..", 2)))
			return 0;
		p += k + (p[k] == '/');
	}
	return 1;
}

static int marker_search_ok(const pyrt_marker *m, char *why, size_t len)
{
	if (!m->search_path_known)
		return 1;
	if (m->search_path_count < 0 ||
	    m->search_path_count > PYRT_MARKER_SEARCH_MAX) {
		pyrt_fmt_text(why, len, "search_path has more than %d entries",
			      PYRT_MARKER_SEARCH_MAX);
		return 0;
	}
	for (int i = 0; i < m->search_path_count; i++)
		if (!pyrt_marker_search_entry_ok(m->search_path[i])) {
			pyrt_fmt_text(why, len, "search_path[%d] is not a relative "
				      "path of plain components", i);
			return 0;
		}
	return 1;
}

/* Every field against its rule; 1, or 0 with why set. */
static int marker_fields_ok(const pyrt_marker *m, char *why, size_t len)
{
	static const struct {
		const char *name;
		size_t offset;
		pyrt_pins_field field;
	} words[] = {
		{ "implementation", offsetof(pyrt_marker, implementation),
		  PYRT_PINS_IMPLEMENTATION },
		{ "version", offsetof(pyrt_marker, version), PYRT_PINS_VERSION },
		{ "build", offsetof(pyrt_marker, build), PYRT_PINS_BUILD },
		{ "platform", offsetof(pyrt_marker, platform),
		  PYRT_PINS_PLATFORM },
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		const char *want = pyrt_pins_field_check(
			words[i].field, (const char *)m + words[i].offset);
		if (want) {
			pyrt_fmt_text(why, len, "%s is not %s", words[i].name, want);
			return 0;
		}
	}
	const char *bad = !pyrt_sha256_hex_valid(m->sha256) ? "sha256"
			  : !m->source[0] ? "source"
			  : !marker_time_ok(m->installed_at) ? "installed_at"
			  : !m->pins[0] ? "pins"
			  : m->archive_bytes == 0 ? "archive_bytes"
			  : m->files == 0 || m->files > PYRT_MANIFEST_MAX_ENTRIES
			  ? "files" : NULL;
	if (!bad && m->schema >= 2 && !pyrt_sha256_hex_valid(m->manifest_sha256))
		bad = "manifest_sha256";
	if (bad) {
		pyrt_fmt_text(why, len, "%s is missing or not valid", bad);
		return 0;
	}
	return marker_baseline_ok(m, why, len) && marker_search_ok(m, why, len);
}

/* SHA-256 of doc in the canonical form; 0 or -1. */
static int marker_digest(json_t *doc, char hex[PYRT_SHA256_HEX_LEN + 1])
{
	char *text = json_dumps(doc, MARKER_CANON_FLAGS);
	pyrt_sha256 *sha = pyrt_sha256_new();
	int rc = text && sha &&
		 pyrt_sha256_update(sha, text, strlen(text)) == 0 &&
		 pyrt_sha256_final_hex(sha, hex) == 0 ? 0 : -1;
	pyrt_sha256_free(sha);
	free(text);
	return rc;
}

/* ---- writing ---- */

static json_t *marker_baseline_json(const pyrt_marker *m)
{
	json_t *missing = json_array();
	for (int i = 0; i < m->baseline_missing_count; i++)
		json_array_append_new(missing,
				      json_string(m->baseline_missing[i]));
	return json_pack("{s:s, s:o, s:s}", "state", m->baseline_state,
			 "missing", missing, "error", m->baseline_error);
}

int pyrt_marker_write(const char *path, const pyrt_marker *m, pyrt_error *err)
{
	/* The marker is read by status, doctor and support bundles: whatever
	 * the caller passed, no credential is ever written into it. */
	pyrt_marker w = *m;
	pyrt_redact_url(m->source, w.source, sizeof w.source);
	/* A schema 1 marker read back (pyrt baseline rewrites the marker of
	 * an older install) has no manifest digest to record: it stays 1. */
	w.schema = w.manifest_sha256[0] ? PYRT_MARKER_SCHEMA : 1;
	char why[256];
	if (!marker_fields_ok(&w, why, sizeof why))
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "refusing to write %s: %s", path, why);
	json_t *doc = json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o}",
		"schema", w.schema, "implementation", w.implementation,
		"version", w.version, "build", w.build,
		"platform", w.platform, "sha256", w.sha256,
		"source", w.source, "installed_at", w.installed_at,
		"pins", w.pins, "archive_bytes", (json_int_t)w.archive_bytes,
		"files", (json_int_t)w.files,
		"baseline", marker_baseline_json(&w));
	char digest[PYRT_SHA256_HEX_LEN + 1];
	if (doc && w.search_path_known) {
		json_t *sp = json_array();
		for (int i = 0; sp && i < w.search_path_count; i++)
			json_array_append_new(sp, json_string(w.search_path[i]));
		if (!sp || json_object_set_new(doc, "search_path", sp) != 0) {
			json_decref(doc);
			doc = NULL;
		}
	}
	if (doc && w.schema >= 2 &&
	    json_object_set_new(doc, "manifest_sha256",
				json_string(w.manifest_sha256)) != 0) {
		json_decref(doc);
		doc = NULL;
	}
	if (!doc || marker_digest(doc, digest) != 0 ||
	    json_object_set_new(doc, "digest", json_string(digest)) != 0) {
		json_decref(doc);
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "cannot encode marker (invalid UTF-8?)");
	}
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	if (!text)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* 0644: every user of a shared box reads it (status, doctor). */
	int rc = pyrt_fs_write_file_atomic_mode(path, text, strlen(text), 0644,
						err);
	free(text);
	return rc;
}

/* ---- reading ---- */

/*
 * A string member into a fixed field.  Absent is "" when optional; a
 * member of another type, holding NUL, or too long for the field is an
 * error: nothing is cut to fit.  0, or -1 with why set.
 */
static int marker_copy(json_t *obj, const char *key, char *dst, size_t len,
		       int required, char *why, size_t wlen)
{
	json_t *v = json_object_get(obj, key);
	dst[0] = '\0';
	if (!v && !required)
		return 0;
	if (!json_is_string(v)) {
		pyrt_fmt_text(why, wlen, "%s is %s", key,
			      v ? "not a string" : "missing");
		return -1;
	}
	size_t n = json_string_length(v);
	if (n >= len || strlen(json_string_value(v)) != n) {
		pyrt_fmt_text(why, wlen, "%s is longer than %zu bytes or holds NUL",
			      key, len - 1);
		return -1;
	}
	memcpy(dst, json_string_value(v), n + 1);
	return 0;
}

/* A non-negative integer member; 0, or -1 with why set. */
static int marker_uint(json_t *obj, const char *key, uint64_t *out, char *why,
		       size_t wlen)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		pyrt_fmt_text(why, wlen, "%s is not a non-negative integer", key);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int marker_read_baseline(json_t *doc, pyrt_marker *m, char *why,
				size_t wlen)
{
	json_t *b = json_object_get(doc, "baseline");
	json_t *missing = json_object_get(b, "missing");
	if (!json_is_object(b) || !json_is_array(missing)) {
		pyrt_fmt_text(why, wlen, "baseline is not {state, missing, error}");
		return -1;
	}
	if (marker_copy(b, "state", m->baseline_state,
			sizeof m->baseline_state, 1, why, wlen) ||
	    marker_copy(b, "error", m->baseline_error,
			sizeof m->baseline_error, 1, why, wlen))
		return -1;
	if (json_array_size(missing) > PYRT_MARKER_MISSING_MAX) {
		pyrt_fmt_text(why, wlen, "baseline.missing has more than %d entries",
			      PYRT_MARKER_MISSING_MAX);
		return -1;
	}
	size_t i;
	json_t *v;
	json_array_foreach(missing, i, v) {
		json_t *wrap = json_pack("{s:O}", "missing", v);
		int rc = wrap ? marker_copy(wrap, "missing",
					    m->baseline_missing[i],
					    sizeof m->baseline_missing[0], 1,
					    why, wlen)
			      : -1;
		json_decref(wrap);
		if (rc)
			return -1;
		m->baseline_missing_count = (int)i + 1;
	}
	return 0;
}

/* The optional search_path: absent is "not recorded". */
static int marker_read_search(json_t *doc, pyrt_marker *m, char *why,
			      size_t wlen)
{
	json_t *sp = json_object_get(doc, "search_path");
	if (!sp)
		return 0;
	if (!json_is_array(sp) ||
	    json_array_size(sp) > PYRT_MARKER_SEARCH_MAX) {
		pyrt_fmt_text(why, wlen, "search_path is not a list of at most %d "
			      "paths", PYRT_MARKER_SEARCH_MAX);
		return -1;
	}
	size_t i;
	json_t *v;
	json_array_foreach(sp, i, v) {
		json_t *wrap = json_pack("{s:O}", "search_path", v);
		int rc = wrap ? marker_copy(wrap, "search_path",
					    m->search_path[i],
					    sizeof m->search_path[0], 1, why,
					    wlen)
			      : -1;
		json_decref(wrap);
		if (rc)
			return -1;
	}
	m->search_path_count = (int)json_array_size(sp);
	m->search_path_known = 1;
	return 0;
}

/* The digest member against the rest; 0, or -1 with why set.  known: the
 * digest this very file was checked to carry before (digest_memo.h), or
 * NULL. */
static int marker_check_digest(json_t *doc, const char *known, char *why,
			       size_t wlen)
{
	json_t *d = json_object_get(doc, "digest");
	char want[PYRT_SHA256_HEX_LEN + 1], got[PYRT_SHA256_HEX_LEN + 1];
	if (!json_is_string(d) || !pyrt_sha256_hex_valid(json_string_value(d))) {
		pyrt_fmt_text(why, wlen, "digest is missing or not valid");
		return -1;
	}
	pyrt_fmt_text(want, sizeof want, "%s", json_string_value(d));
	json_object_del(doc, "digest");
	if (known && pyrt_sha256_hex_equal(want, known))
		return 0;
	if (marker_digest(doc, got) != 0) {
		pyrt_fmt_text(why, wlen, "its digest cannot be computed");
		return -1;
	}
	if (!pyrt_sha256_hex_equal(want, got)) {
		pyrt_fmt_text(why, wlen, "its content does not match its digest "
			      "(changed or corrupted)");
		return -1;
	}
	return 0;
}

/* Every member of a parsed marker into m; 0, or -1 with why set. */
static int marker_from_json(json_t *doc, pyrt_marker *m, const char *known,
			    char *why, size_t wlen)
{
	json_t *schema = json_object_get(doc, "schema");
	if (!json_is_integer(schema) || json_integer_value(schema) < 1 ||
	    json_integer_value(schema) > PYRT_MARKER_SCHEMA) {
		pyrt_fmt_text(why, wlen, "schema is not 1 or %d (written by another "
			      "pyrt?)", PYRT_MARKER_SCHEMA);
		return -1;
	}
	m->schema = (int)json_integer_value(schema);
	if ((m->schema >= 2 || json_object_get(doc, "digest")) &&
	    marker_check_digest(doc, known, why, wlen))
		return -1;
	char source[sizeof m->source];
	int v2 = m->schema >= 2;
	if (marker_copy(doc, "implementation", m->implementation,
			sizeof m->implementation, 1, why, wlen) ||
	    marker_copy(doc, "version", m->version, sizeof m->version, 1, why,
			wlen) ||
	    marker_copy(doc, "build", m->build, sizeof m->build, 1, why, wlen) ||
	    marker_copy(doc, "platform", m->platform, sizeof m->platform, 1,
			why, wlen) ||
	    marker_copy(doc, "sha256", m->sha256, sizeof m->sha256, 1, why,
			wlen) ||
	    marker_copy(doc, "source", source, sizeof source, 1, why, wlen) ||
	    marker_copy(doc, "installed_at", m->installed_at,
			sizeof m->installed_at, 1, why, wlen) ||
	    marker_copy(doc, "pins", m->pins, sizeof m->pins, 1, why, wlen) ||
	    marker_copy(doc, "manifest_sha256", m->manifest_sha256,
			sizeof m->manifest_sha256, v2, why, wlen) ||
	    marker_uint(doc, "archive_bytes", &m->archive_bytes, why, wlen) ||
	    marker_uint(doc, "files", &m->files, why, wlen) ||
	    marker_read_baseline(doc, m, why, wlen) ||
	    marker_read_search(doc, m, why, wlen))
		return -1;
	/* A marker written before redaction may still hold a credential. */
	pyrt_redact_url(source, m->source, sizeof m->source);
	return marker_fields_ok(m, why, wlen) ? 0 : -1;
}

int pyrt_marker_read(const char *path, pyrt_marker *m, pyrt_error *err)
{
	return pyrt_marker_read_memo(path, m, NULL, err);
}

int pyrt_marker_read_memo(const char *path, pyrt_marker *m,
			  pyrt_digest_memo *memo, pyrt_error *err)
{
	memset(m, 0, sizeof *m);
	char *text = NULL, known[PYRT_SHA256_HEX_LEN + 1];
	size_t len = 0;
	struct stat sb;
	int rc = pyrt_fs_read_state_stat(path, MARKER_MAX_BYTES, &text, &len,
					 &sb, err);
	if (rc)
		return rc;
	int hit = pyrt_digest_memo_get(memo, path, &sb, known);
	/* Without libcrypto the digest cannot be checked: say that, not
	 * "not a valid marker". */
	if (!hit && (rc = pyrt_sha256_ready(err)) != 0) {
		free(text);
		return rc;
	}
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!doc || !json_is_object(doc)) {
		json_decref(doc);
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s is not a valid marker: %s", path,
				      doc ? "not a JSON object" : jerr.text);
	}
	char why[256], digest[PYRT_SHA256_HEX_LEN + 1] = "";
	json_t *d = json_object_get(doc, "digest");
	if (json_is_string(d))
		pyrt_fmt_text(digest, sizeof digest, "%s", json_string_value(d));
	rc = marker_from_json(doc, m, hit ? known : NULL, why, sizeof why);
	json_decref(doc);
	if (!rc && !hit && m->schema >= 2)
		pyrt_digest_memo_put(memo, path, &sb, digest);
	if (rc) {
		memset(m, 0, sizeof *m);
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s is not a valid marker: %s", path,
				      why);
	}
	return 0;
}

int pyrt_marker_load_manifest(const pyrt_marker *m, const char *dir,
			      pyrt_manifest **out, pyrt_error *err)
{
	char path[4096 + 16], hex[PYRT_SHA256_HEX_LEN + 1];
	*out = NULL;
	int rc = pyrt_fmt_path(path, sizeof path, err, "%s/manifest.tsv", dir);
	if (rc)
		return rc;
	if (!m->manifest_sha256[0])
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s/marker.json records no digest of "
				      "manifest.tsv (written by an older pyrt), "
				      "so the manifest cannot be trusted", dir);
	pyrt_manifest *man = NULL;
	rc = pyrt_manifest_load(&man, path, hex, err);
	if (rc)
		return rc;
	if (!pyrt_sha256_hex_equal(hex, m->manifest_sha256))
		rc = pyrt_error_set(err, PYRT_E_NOT_READY,
				    "%s is not the manifest marker.json recorded "
				    "(changed or corrupted: %zu entries, the "
				    "marker counts %llu)", path,
				    pyrt_manifest_count(man),
				    (unsigned long long)m->files);
	else if (pyrt_manifest_count(man) != m->files)
		rc = pyrt_error_set(err, PYRT_E_NOT_READY,
				    "%s lists %zu entries, marker.json counts "
				    "%llu", path, pyrt_manifest_count(man),
				    (unsigned long long)m->files);
	if (rc) {
		pyrt_manifest_free(man);
		return rc;
	}
	*out = man;
	return 0;
}
