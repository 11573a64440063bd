/*
 * `pyrt status`: core's one honest answer, printed for people (a headline
 * and aligned fields) or as the single JSON object DESIGN.md specifies.
 * Exit 0 only when ready, 1 for every other state, so a health probe needs
 * no parsing.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "app/status_json.h"
#include "app/text.h"
#include "app/status.h"
#include "cli/commands.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"
#include "core/runtime/status.h"
#include "core/util/error.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* The DESIGN.md "status --json" object (app/status_json.c). */
static int print_json(const pyrt_status *st)
{
	json_t *obj = app_status_json(st);
	if (!obj) {
		app_errorf("out of memory");
		return PYRT_E_NOMEM;
	}
	int rc = json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
	fputc('\n', stdout);
	json_decref(obj);
	return rc == 0 ? 0 : PYRT_E_IO;
}

/* A label value in the exposition format: \\, \" and \n escaped; bytes
 * a terminal would act on dropped (a box path is the operator's, but
 * the scraper's parser is strict). */
static void label_value(const char *v, char *buf, size_t len)
{
	size_t o = 0;
	for (; v && *v && o + 3 < len; v++) {
		unsigned char c = (unsigned char)*v;
		if (c == '\\' || c == '"') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else if (c >= 0x20 && c != 0x7f) {
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
}

static void metric_head(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* status --format prometheus: node_exporter's textfile collector reads
 * it; one labelled series per fact a fleet's dashboard asks about. */
static int print_prometheus(const app_request *opts, const pyrt_status *st)
{
	static const pyrt_state states[] = {
		PYRT_STATE_READY, PYRT_STATE_NOT_PROVISIONED, PYRT_STATE_BROKEN,
		PYRT_STATE_UNSUPPORTED, PYRT_STATE_INSTALLING,
		PYRT_STATE_UNTRUSTED,
	};
	const pyrt_marker *m = st->have_marker ? &st->marker : NULL;
	char box[8192], version[96], build[96], platform[160];
	label_value(opts->box_root, box, sizeof box);
	label_value(m ? m->version : "", version, sizeof version);
	label_value(m ? m->build : "", build, sizeof build);
	label_value(st->platform, platform, sizeof platform);
	metric_head("pyrt_runtime_ready",
		    "1 when the managed runtime is ready, else 0.");
	printf("pyrt_runtime_ready{box=\"%s\"} %d\n", box,
	       st->state == PYRT_STATE_READY);
	metric_head("pyrt_runtime_state",
		    "1 for the runtime's state, 0 for the others.");
	for (size_t i = 0; i < sizeof states / sizeof *states; i++)
		printf("pyrt_runtime_state{box=\"%s\",state=\"%s\"} %d\n", box,
		       pyrt_state_name(states[i]), st->state == states[i]);
	metric_head("pyrt_runtime_info",
		    "The installed runtime's version, build and platform.");
	printf("pyrt_runtime_info{box=\"%s\",version=\"%s\",build=\"%s\","
	       "platform=\"%s\"} 1\n", box, version, build, platform);
	const char *bstate = m ? m->baseline_state : "none";
	metric_head("pyrt_baseline_complete",
		    "1 when the doc-library baseline is complete, else 0.");
	printf("pyrt_baseline_complete{box=\"%s\"} %d\n", box,
	       strcmp(bstate, "complete") == 0);
	metric_head("pyrt_baseline_missing",
		    "Baseline requirements missing from the runtime.");
	printf("pyrt_baseline_missing{box=\"%s\"} %d\n", box,
	       m ? m->baseline_missing_count : 0);
	metric_head("pyrt_update_available",
		    "1 when the pins want another runtime build, else 0.");
	printf("pyrt_update_available{box=\"%s\"} %d\n", box,
	       st->update_available);
	metric_head("pyrt_upgrade_in_progress",
		    "1 while an install runs over a ready runtime, else 0.");
	printf("pyrt_upgrade_in_progress{box=\"%s\"} %d\n", box,
	       st->upgrade_in_progress);
	return fflush(stdout) == 0 ? 0 : PYRT_E_IO;
}

static void field(const char *key, const char *value)
{
	if (nonempty(value))
		app_text_printf(stdout, "  %-14s %s\n", key, value);
}

/* "state: message", then (without -q) the known fields aligned. */
static void print_human(const pyrt_status *st, int quiet)
{
	const pyrt_marker *m = st->have_marker ? &st->marker : NULL;
	app_text_printf(stdout, "%s: %s\n", pyrt_state_name(st->state),
			st->message);
	if (quiet)
		return;
	if (m) {
		field("version:", m->version);
		field("build:", m->build);
	}
	field("platform:", st->platform);
	field("path:", st->path);
	field("interpreter:", app_status_interpreter(st));
	if (m) {
		field("sha256:", m->sha256);
		field("installed at:", m->installed_at);
		field("source:", m->source);
	}
	field("pins:", st->pins);
	app_rollback_target rb;
	char rollback[4400];
	if (app_status_rollback(st, &rb)) {
		snprintf(rollback, sizeof rollback, "%s (%s%s%s) — pyrt "
			 "rollback switches to it", rb.path,
			 rb.version[0] ? rb.version : "version unknown",
			 rb.build[0] ? ", build " : "", rb.build);
		field("rollback to:", rollback);
	} else if (st->have_marker) {
		field("rollback to:", "none (no previous install is kept)");
	}
	if (st->state == PYRT_STATE_BROKEN)
		field("failed check:", st->failed_check);
	if (st->upgrade_in_progress)
		field("upgrade:", "in progress; the runtime above stays usable");
	if (st->installer_pid > 0)
		printf("  %-14s %ld\n", "installer pid:", st->installer_pid);
	char baseline[4096];
	size_t used = (size_t)snprintf(baseline, sizeof baseline, "%s",
				       app_status_baseline_state(st));
	for (int i = 0; m && i < m->baseline_missing_count &&
			used < sizeof baseline; i++)
		used += (size_t)snprintf(baseline + used, sizeof baseline - used,
					 "%s%s", i ? ", " : " (missing: ",
					 m->baseline_missing[i]);
	if (m && m->baseline_missing_count && used < sizeof baseline)
		snprintf(baseline + used, sizeof baseline - used, ")");
	field("baseline:", baseline);
	char source[2048];
	app_status_baseline_source(st, source, sizeof source);
	field("wheels:", source);
	if (app_status_lock_differs(st, source, sizeof source))
		field("wheel lock:", source);
}

int cli_check_status(const app_request *opts)
{
	if (opts->format && strcmp(opts->format, "prometheus") != 0) {
		app_errorf("status: --format %s: the one format is prometheus "
			   "(--json for JSON)", opts->format);
		return APP_EXIT_USAGE;
	}
	if (opts->format && opts->json) {
		app_errorf("status: --format prometheus and --json: choose one");
		return APP_EXIT_USAGE;
	}
	return 0;
}

int cli_cmd_status(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	pyrt_status *st = calloc(1, sizeof *st);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = st ? app_status_read_memo_seen(opts->box_root, opts->box_seen,
						 c->pins, c->platform.key,
						 opts->deep, st, &err)
		    : pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	int status;
	if (rc >= 0)
		app_fix_status(opts, st);
	if (rc < 0) {
		app_errorf("status: %s", err.msg[0] ? err.msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
	} else {
		if (opts->format)
			rc = print_prometheus(opts, st);
		else if (opts->json)
			rc = print_json(st);
		else
			print_human(st, opts->quiet);
		status = rc < 0 ? app_exit_code(rc)
		       : st->state == PYRT_STATE_READY ? APP_EXIT_OK
		       : st->state == PYRT_STATE_UNTRUSTED
			       ? app_exit_code(PYRT_E_UNTRUSTED)
			       : APP_EXIT_NOT_READY;
	}
	free(st);
	return status;
}
