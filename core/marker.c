/*
 * Version marker: a small JSON document beside each install that status,
 * doctor and rollback read instead of starting Python.
 */
#include "marker.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "redact.h"

#define MARKER_MAX_BYTES (256 * 1024)

static json_t *marker_baseline_json(const pyrt_marker *m)
{
	json_t *missing = json_array();
	for (int i = 0; i < m->baseline_missing_count; i++)
		json_array_append_new(missing,
				      json_string(m->baseline_missing[i]));
	return json_pack("{s:s, s:o, s:s}", "state",
			 m->baseline_state[0] ? m->baseline_state : "none",
			 "missing", missing, "error", m->baseline_error);
}

int pyrt_marker_write(const char *path, const pyrt_marker *m, pyrt_error *err)
{
	/* The marker is read by status, doctor and support bundles: whatever
	 * the caller passed, no credential is ever written into it. */
	char source[sizeof m->source];
	pyrt_redact_url(m->source, source, sizeof source);
	json_t *doc = json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o}",
		"schema", 1, "implementation", m->implementation,
		"version", m->version, "build", m->build,
		"platform", m->platform, "sha256", m->sha256,
		"source", source, "installed_at", m->installed_at,
		"pins", m->pins, "archive_bytes", (json_int_t)m->archive_bytes,
		"files", (json_int_t)m->files,
		"baseline", marker_baseline_json(m));
	if (!doc)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "cannot encode marker (invalid UTF-8?)");
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	if (!text)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = pyrt_fs_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}

/* Copy a string member into a fixed field; absent means empty. */
static void marker_copy(json_t *doc, const char *key, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(doc, key));
	snprintf(dst, len, "%s", s ? s : "");
}

static void marker_read_baseline(json_t *doc, pyrt_marker *m)
{
	json_t *b = json_object_get(doc, "baseline");
	marker_copy(b, "state", m->baseline_state, sizeof m->baseline_state);
	if (!m->baseline_state[0])
		strcpy(m->baseline_state, "none");
	marker_copy(b, "error", m->baseline_error, sizeof m->baseline_error);
	json_t *missing = json_object_get(b, "missing");
	size_t i;
	json_t *v;
	json_array_foreach(missing, i, v) {
		if (m->baseline_missing_count >= PYRT_MARKER_MISSING_MAX)
			break;
		const char *s = json_string_value(v);
		if (s)
			snprintf(m->baseline_missing[m->baseline_missing_count++],
				 sizeof m->baseline_missing[0], "%s", s);
	}
}

int pyrt_marker_read(const char *path, pyrt_marker *m, pyrt_error *err)
{
	memset(m, 0, sizeof *m);
	char *text = NULL;
	size_t len = 0;
	int rc = pyrt_fs_read_state(path, MARKER_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!doc || !json_is_object(doc)) {
		json_decref(doc);
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s: not a valid marker: %s", path,
				      jerr.text);
	}
	m->schema = (int)json_integer_value(json_object_get(doc, "schema"));
	marker_copy(doc, "implementation", m->implementation,
		    sizeof m->implementation);
	marker_copy(doc, "version", m->version, sizeof m->version);
	marker_copy(doc, "build", m->build, sizeof m->build);
	marker_copy(doc, "platform", m->platform, sizeof m->platform);
	marker_copy(doc, "sha256", m->sha256, sizeof m->sha256);
	char source[sizeof m->source];
	marker_copy(doc, "source", source, sizeof source);
	/* A marker written before redaction may still hold a credential. */
	pyrt_redact_url(source, m->source, sizeof m->source);
	marker_copy(doc, "installed_at", m->installed_at,
		    sizeof m->installed_at);
	marker_copy(doc, "pins", m->pins, sizeof m->pins);
	m->archive_bytes = (uint64_t)json_integer_value(
		json_object_get(doc, "archive_bytes"));
	m->files = (uint64_t)json_integer_value(json_object_get(doc, "files"));
	marker_read_baseline(doc, m);
	json_decref(doc);
	if (m->schema != 1 || !m->version[0] || !m->sha256[0])
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s: marker lacks schema, version or sha256",
				      path);
	return 0;
}
