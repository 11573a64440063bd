/*
 * `pyrt verify`: re-check the active install against the manifest written
 * when it was extracted (type, mode, size, digest, link target of every
 * entry but the bytecode caches CPython and pip rewrite).  The manifest must first be the one marker.json recorded (its
 * digest and entry count), so a manifest cut short or emptied cannot pass
 * as a smaller tree.  Reads only.  Exit 0 when the tree matches, 1 when
 * anything differs, the marker or manifest is not sound, or the install
 * cannot be found.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "app/text.h"
#include "cli/commands.h"
#include "core/dist/manifest.h"
#include "core/runtime/box.h"
#include "core/runtime/marker.h"
#include "core/runtime/startup_files.h"
#include "core/util/error.h"

typedef struct verify_ctx {
	const app_request *opts;
	json_t *problems; /* --json: collected; otherwise printed at once */
	char first[1024]; /* -q: the first difference, for the result line */
	char install_dir[4096];
	char manifest_path[4200];
	char msg[PYRT_ERROR_MSG_MAX + 4400];
} verify_ctx;

/* Each difference as soon as it is found (or collected for --json). */
static void on_problem(const char *path, const char *what, void *payload)
{
	verify_ctx *v = payload;
	if (v->problems)
		json_array_append_new(v->problems,
				      json_pack("{s:o, s:o}", "path",
						app_text_json(path), "problem",
						app_text_json(what)));
	else if (!v->opts->quiet)
		app_text_printf(stdout, "%s: %s\n", path, what);
	else if (!v->first[0])
		snprintf(v->first, sizeof v->first, "%s: %s", path, what);
}

/* current → installs/<id>/python; the manifest lives in installs/<id>. */
static int find_install(verify_ctx *v)
{
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_box_open(&box, v->opts->box_root, 0, &err);
	if (rc < 0) {
		snprintf(v->msg, sizeof v->msg, "%s", err.msg);
		return rc;
	}
	const char *current = pyrt_box_current(box);
	struct stat st;
	char *real = NULL;
	rc = 0;
	if (lstat(current, &st) != 0) {
		snprintf(v->msg, sizeof v->msg,
			 "nothing to verify: no runtime is installed at %s — run \"pyrt install\"",
			 current);
		rc = PYRT_E_NOT_READY;
	} else if (!(real = realpath(current, NULL))) {
		snprintf(v->msg, sizeof v->msg,
			 "%s does not lead to an install (%s) — run \"pyrt install --force\"",
			 current, strerror(errno));
		rc = PYRT_E_NOT_READY;
	} else {
		char *slash = strrchr(real, '/');
		if (slash && slash != real)
			*slash = '\0';
		snprintf(v->install_dir, sizeof v->install_dir, "%s", real);
		snprintf(v->manifest_path, sizeof v->manifest_path,
			 "%s/manifest.tsv", v->install_dir);
	}
	free(real);
	pyrt_box_free(box);
	return rc;
}

/* Returns the number of problems, or a negative code with v->msg set. */
static int run_verify(verify_ctx *v, size_t *entries)
{
	int rc = find_install(v);
	if (rc < 0)
		return rc;
	pyrt_manifest *m = NULL;
	pyrt_marker marker;
	pyrt_error err = PYRT_ERROR_INIT;
	char marker_path[sizeof v->install_dir + 16];
	snprintf(marker_path, sizeof marker_path, "%s/marker.json",
		 v->install_dir);
	/* The marker vouches for the manifest (its digest and entry count):
	 * a manifest cut short or emptied must not verify as a smaller tree. */
	rc = pyrt_marker_read(marker_path, &marker, &err);
	if (rc == 0)
		rc = pyrt_marker_load_manifest(&marker, v->install_dir, &m, &err);
	if (rc == PYRT_E_UNSUPPORTED) { /* no libcrypto: nothing is known */
		snprintf(v->msg, sizeof v->msg, "%s", err.msg);
		return rc;
	}
	if (rc < 0) {
		snprintf(v->msg, sizeof v->msg,
			 "cannot trust the install's record: %s — run \"pyrt install --force\" to reinstall",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
		/* A missing or garbled record is a finding, not a crash. */
		return rc == PYRT_E_NOMEM ? rc : PYRT_E_NOT_READY;
	}
	/* Bytecode caches are left out of the check and of the count. */
	*entries = pyrt_manifest_checked_count(m);
	rc = pyrt_manifest_verify(m, v->install_dir, on_problem, v, &err);
	if (rc >= 0) {
		int added = pyrt_startup_files_check(m, &marker, v->install_dir,
						     on_problem, v, &err);
		rc = added < 0 ? added : rc + added;
	}
	if (rc < 0)
		snprintf(v->msg, sizeof v->msg, "verify could not run: %s",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
	pyrt_manifest_free(m);
	return rc;
}

static void summarize(verify_ctx *v, int problems, size_t entries)
{
	if (problems == 0)
		snprintf(v->msg, sizeof v->msg,
			 "%zu entries match the install manifest of %s (bytecode caches: as shipped or made from their source)",
			 entries, v->install_dir);
	else
		snprintf(v->msg, sizeof v->msg,
			 "%d of %zu entries differ from the install manifest of %s%s%s — run \"pyrt install --force\" to reinstall",
			 problems, entries, v->install_dir,
			 v->first[0] ? "; first: " : "", v->first);
}

/* One object: ok, message, install_dir, manifest, entries, problems[]. */
static void print_json(const verify_ctx *v, int rc, size_t entries)
{
	json_t *obj = json_pack(
		"{s:b, s:o, s:o, s:o, s:I, s:O}",
		"ok", rc == 0,
		"message", app_text_json(v->msg),
		"install_dir", v->install_dir[0] ? app_text_json(v->install_dir)
						 : json_null(),
		"manifest", v->manifest_path[0] ? app_text_json(v->manifest_path)
						: json_null(),
		"entries", (json_int_t)entries,
		"problems", v->problems);
	if (obj &&
	    json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS) == 0)
		fputc('\n', stdout);
	json_decref(obj);
}

int cli_cmd_verify(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	verify_ctx *v = calloc(1, sizeof *v);
	if (!v) {
		app_errorf("out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	v->opts = opts;
	if (opts->json && !(v->problems = json_array())) {
		free(v);
		app_errorf("out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	size_t entries = 0;
	int rc = run_verify(v, &entries);
	if (rc >= 0)
		summarize(v, rc, entries);
	app_fix_in_place(opts, v->msg, sizeof v->msg);
	if (opts->json) {
		print_json(v, rc, entries);
		if (rc < 0)
			app_errorf("verify: %s", v->msg);
	} else if (rc == 0)
		app_text_printf(stdout, "verify: %s\n", v->msg);
	else
		app_text_printf(rc > 0 ? stdout : stderr, "%s%s\n",
				rc > 0 ? "verify: " : "pyrt: verify: ", v->msg);
	int status = rc > 0 ? APP_EXIT_NOT_READY : app_exit_code(rc);
	json_decref(v->problems);
	free(v);
	return status;
}
