/*
 * The status and plugin-matrix objects every front end prints or serves.
 */
#include "app/status_json.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/plugin.h"
#include "app/text.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

static json_t *str_or_null(const char *s)
{
	return nonempty(s) ? app_text_json(s) : json_null();
}

const char *app_status_interpreter(const pyrt_status *st)
{
	if (st->state == PYRT_STATE_NOT_PROVISIONED ||
	    st->state == PYRT_STATE_UNSUPPORTED ||
	    !nonempty(st->interpreter) || access(st->interpreter, F_OK) != 0)
		return NULL;
	return st->interpreter;
}

const char *app_status_baseline_state(const pyrt_status *st)
{
	if (!st->have_marker || !st->marker.baseline_state[0])
		return "none";
	return st->marker.baseline_state;
}

void app_status_baseline_source(const pyrt_status *st, char *buf,
				 size_t len)
{
	if (st->baseline_locked_wheels)
		snprintf(buf, len, "hash-locked: the wheel lock in the pins "
			 "(%s) names %zu wheels for %s; a baseline install "
			 "takes those files and nothing else", st->pins,
			 st->baseline_locked_wheels, st->platform);
	else
		snprintf(buf, len, "not hash-locked: the pins (%s) carry no "
			 "wheel lock for %s, so pip installs whatever its index "
			 "(over TLS) or a --wheelhouse serves; to pin the "
			 "wheels, \"pyrt lock --wheelhouse DIR --out FILE\" "
			 "and install with --pins FILE", st->pins,
			 st->platform);
}

int app_status_lock_differs(const pyrt_status *st, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!st->lock_differs)
		return 0;
	snprintf(buf, len, "the wheel lock in effect (%.12s) is not the one "
		 "the box declares its packages were installed under (%.12s): "
		 "\"pyrt baseline\" with these pins installs the wheels they "
		 "lock, or use the pins the box was installed with",
		 st->lock_in_effect[0] ? st->lock_in_effect : "none",
		 st->lock_declared[0] ? st->lock_declared : "none");
	return 1;
}

static json_t *hex_or_null(const char *hex)
{
	return hex[0] ? json_string(hex) : json_null();
}

static json_t *baseline_json(const pyrt_status *st)
{
	json_t *missing = json_array();
	char source[2048];
	for (int i = 0; st->have_marker && missing &&
			i < st->marker.baseline_missing_count; i++)
		json_array_append_new(missing,
				      app_text_json(st->marker.baseline_missing[i]));
	json_t *pending = json_array();
	for (int i = 0; pending && i < st->pending_count; i++)
		json_array_append_new(pending, app_text_json(st->pending[i]));
	app_status_baseline_source(st, source, sizeof source);
	return json_pack("{s:o, s:o, s:b, s:o, s:o, s:{s:o, s:o, s:b}}",
			 "state", app_text_json(app_status_baseline_state(st)),
			 "missing", missing ? missing : json_array(),
			 "locked", st->baseline_locked_wheels > 0,
			 "source", app_text_json(source),
			 "pending_reapply", pending ? pending : json_array(),
			 "lock", "declared", hex_or_null(st->lock_declared),
			 "in_effect", hex_or_null(st->lock_in_effect),
			 "differs", st->lock_differs);
}

/* The installer holding the box lock, when one does and it is recorded. */
static json_t *installer_pid_json(const pyrt_status *st)
{
	return st->installer_pid > 0 ? json_integer(st->installer_pid)
				     : json_null();
}

/* What "pyrt install" would put in place of a ready runtime; null when it
 * would change nothing. */
static json_t *update_json(const pyrt_status *st)
{
	if (!st->update_available)
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "version",
			 app_text_json(st->update_version), "build",
			 app_text_json(st->update_build), "sha256",
			 app_text_json(st->update_sha256));
}

int app_status_rollback(const pyrt_status *st, app_rollback_target *out)
{
	memset(out, 0, sizeof *out);
	size_t n = strlen(st->path);
	static const char cur[] = "/current";
	if (n < sizeof cur || strcmp(st->path + n - (sizeof cur - 1), cur))
		return 0;
	char link[4200], dir[PATH_MAX], path[PATH_MAX + 16];
	snprintf(link, sizeof link, "%.*s/previous",
		 (int)(n - (sizeof cur - 1)), st->path);
	/* previous → installs/<id>/python: the install is its parent.  Most
	 * boxes keep none: one lstat says so, where realpath() would first
	 * readlink every folder above it (the same failure either way). */
	struct stat lst;
	if (lstat(link, &lst) != 0 || !realpath(link, dir))
		return 0;
	char *slash = strrchr(dir, '/');
	if (!slash || strcmp(slash, "/python") != 0)
		return 0;
	*slash = '\0';
	snprintf(out->path, sizeof out->path, "%s", dir);
	pyrt_marker *m = calloc(1, sizeof *m);
	snprintf(path, sizeof path, "%s/marker.json", dir);
	if (m && pyrt_marker_read(path, m, NULL) == 0) {
		snprintf(out->version, sizeof out->version, "%s", m->version);
		snprintf(out->build, sizeof out->build, "%s", m->build);
	}
	free(m);
	return 1;
}

/* What `pyrt rollback` would switch to; null when there is nothing. */
static json_t *rollback_json(const pyrt_status *st)
{
	app_rollback_target t;
	if (!app_status_rollback(st, &t))
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "path", app_text_json(t.path),
			 "version", str_or_null(t.version),
			 "build", str_or_null(t.build));
}

/* null where unknown, plus whether an upgrade runs over the ready runtime
 * and who runs it. */
json_t *app_status_json(const pyrt_status *st)
{
	const pyrt_marker *m = st->have_marker ? &st->marker : NULL;
	return json_pack(
		"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, "
		"s:o, s:o}",
		"state", pyrt_state_name(st->state),
		"message", app_text_json(st->message),
		"version", str_or_null(m ? m->version : NULL),
		"build", str_or_null(m ? m->build : NULL),
		"platform", str_or_null(st->platform),
		"path", str_or_null(st->path),
		"interpreter", str_or_null(app_status_interpreter(st)),
		"sha256", str_or_null(m ? m->sha256 : NULL),
		"installed_at", str_or_null(m ? m->installed_at : NULL),
		"pins", str_or_null(st->pins),
		"baseline", baseline_json(st),
		"upgrade_in_progress", st->upgrade_in_progress,
		"installer_pid", installer_pid_json(st),
		"update_available", update_json(st),
		"rollback", rollback_json(st));
}

static json_t *str_or_null_any(const char *s)
{
	return s ? app_text_json(s) : json_null();
}

json_t *app_plugin_json(const pyrt_plugin *pl, int runtime_ready)
{
	json_t *requires = json_array(), *installed = json_object();
	json_t *missing = json_array(), *conflicts = json_array();
	int checked = app_plugin_checked(pl, runtime_ready);
	for (size_t i = 0; i < pl->require_count; i++) {
		const pyrt_requirement *q = &pl->requires[i];
		json_array_append_new(requires, app_text_json(q->name));
		if (q->installed)
			json_object_set_new(installed, q->name,
					    app_text_json(q->installed));
		if (checked && !q->installed)
			json_array_append_new(missing, app_text_json(q->name));
		if (checked && q->conflict)
			json_array_append_new(conflicts, app_text_json(q->name));
	}
	/* Set key by key, not json_pack: parsing its format string for each
	 * of 1,000 plugins was most of this function's cost (issue 28).
	 * The keys keep json_pack's order, so the dump is the same bytes. */
	const char *keys[] = {"name", "enabled", "needs_runtime", "verdict",
			      "requires", "installed", "missing", "conflicts",
			      "fix", "error"};
	json_t *vals[] = {app_text_json(pl->name),
			  json_boolean(pl->enabled),
			  json_boolean(pl->needs_runtime),
			  json_string(pyrt_verdict_name(pl->verdict)),
			  requires, installed, missing, conflicts,
			  str_or_null_any(pl->fix), str_or_null_any(pl->error)};
	json_t *obj = json_object();
	int ok = obj != NULL;
	/* json_object_set_new takes each value, even on failure. */
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		ok &= vals[i] && json_object_set_new_nocheck(obj, keys[i],
							     vals[i]) == 0;
	if (ok)
		return obj;
	json_decref(obj);
	return NULL;
}

json_t *app_plugins_json(const pyrt_plugins *plugins)
{
	json_t *list = json_array();
	int ready = pyrt_plugins_runtime_ready(plugins);
	for (size_t i = 0; list && i < pyrt_plugins_count(plugins); i++)
		json_array_append_new(list, app_plugin_json(
			pyrt_plugins_at(plugins, i), ready));
	return list ? json_pack("{s:o}", "plugins", list) : NULL;
}
