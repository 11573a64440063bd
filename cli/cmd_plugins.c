/*
 * `pyrt plugins`: the readiness matrix — one row per plugin with its verdict
 * and the exact fix — as an aligned table under a line about the runtime, or
 * as the DESIGN.md "plugins --json" object.  Exit 0 when every enabled
 * plugin is ready or needs no runtime, 1 otherwise (a disabled plugin does
 * not count; an invalid one does), so a health probe needs no parsing.
 *
 * `pyrt plugins install NAME`: the use case every front end runs
 * (app/plugin.h): that plugin's requires_pip under the box lock, then its
 * new verdict.  Unknown or invalid plugins are usage errors (2).
 */
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "app/plugin.h"
#include "app/status_json.h"
#include "app/text.h"
#include "app/status.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/signals.h"
#include "core/diagnose/doctor.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/status.h"
#include "core/util/error.h"

/* What both subcommands hold (the pins and the platform are
 * cli/main.c's). */
typedef struct plugins_ctx {
	const app_request *opts;
	const cli_ctx *cli;
	pyrt_status *status;
	pyrt_plugins *plugins;
	char msg[PYRT_ERROR_MSG_MAX + 512];
} plugins_ctx;

/* Core's warnings (and, with -v, its debug lines) on stderr; never on
 * stdout, which carries the table or the JSON object. */
static int matrix_log(pyrt_log_level level, const char *line, void *payload)
{
	const app_request *opts = payload;
	if (opts->quiet || (level == PYRT_LOG_DEBUG && !opts->verbose))
		return 0;
	app_errorf("%s", line);
	return 0;
}

/* json_dump_callback's pieces gathered into runs of up to 64 KiB before
 * stdio sees them: json_dumpf makes an fwrite of every token, which at
 * 1,000 plugins cost more than building the object, and json_dumps grows
 * one buffer of the whole answer (a page fault per 4 KiB of it). */
typedef struct json_out {
	size_t used;
	int failed;
	char buf[65536];
} json_out;

static int json_out_flush(json_out *o)
{
	if (o->used && fwrite(o->buf, 1, o->used, stdout) != o->used)
		o->failed = 1;
	o->used = 0;
	return o->failed ? -1 : 0;
}

static int json_out_piece(const char *piece, size_t len, void *data)
{
	json_out *o = data;
	if (o->used + len > sizeof o->buf && json_out_flush(o) != 0)
		return -1;
	if (len > sizeof o->buf)
		return fwrite(piece, 1, len, stdout) == len ? 0 : -1;
	memcpy(o->buf + o->used, piece, len);
	o->used += len;
	return 0;
}

static int print_json(const plugins_ctx *c)
{
	json_t *obj = app_plugins_json(c->plugins);
	json_out *o = malloc(sizeof *o);
	if (!obj || !o) {
		json_decref(obj);
		free(o);
		app_errorf("out of memory");
		return PYRT_E_NOMEM;
	}
	o->used = 0;
	o->failed = 0;
	int rc = json_dump_callback(obj, json_out_piece, o,
				    JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
	json_decref(obj);
	rc |= json_out_piece("\n", 1, o) | json_out_flush(o);
	free(o);
	return rc == 0 ? 0 : PYRT_E_IO;
}

/* The DEPS cell spelled out: "1/3 ok; missing: a, b; conflict: c 1.2.0". */
static void deps_cell(const plugins_ctx *c, const pyrt_plugin *pl, char *buf,
		      size_t len)
{
	app_plugin_deps_long(pl, pyrt_plugins_runtime_ready(c->plugins), buf,
			     len);
}

static const char *yes_no(int v)
{
	return v ? "yes" : "no";
}

/* The runtime line: the status sentence, and whether the runtime could
 * answer the check (when not, the rows carry the reason and the fix). */
static void print_runtime_line(const plugins_ctx *c)
{
	const pyrt_status *st = c->status;
	app_text_printf(stdout, "runtime %s: %s\n", pyrt_state_name(st->state),
			st->message);
	if (st->state == PYRT_STATE_READY &&
	    !pyrt_plugins_runtime_ready(c->plugins))
		printf("but the plugins' requirements could not be checked "
		       "(see the errors below)\n");
}

#define DEPS_MAX 512

/* s cleaned as stdout gets it, padded with spaces to width display
 * columns (a CJK name takes two a character; printf pads bytes). */
static void cell(const char *s, int width, char *out, size_t len)
{
	pyrt_sanitize(s, app_text_utf8_for(STDOUT_FILENO), out, len);
	size_t used = strlen(out);
	for (int w = (int)app_text_width(out); w < width && used + 1 < len; w++)
		out[used++] = ' ';
	out[used] = '\0';
}

/* Display columns of s as stdout shows it. */
static int cell_width(const char *s)
{
	char buf[DEPS_MAX];
	cell(s, 0, buf, sizeof buf);
	return (int)app_text_width(buf);
}

/* The table: widths from the widest cell of each column. */
static void print_table(const plugins_ctx *c)
{
	size_t n = pyrt_plugins_count(c->plugins);
	int w_name = 6, w_deps = 4;
	char deps[DEPS_MAX], name[DEPS_MAX], dcell[DEPS_MAX];
	print_runtime_line(c);
	if (!n) {
		app_text_printf(stdout, "no plugins in %s/plugins\n",
				c->opts->box_root);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(c->plugins, i);
		deps_cell(c, pl, deps, sizeof deps);
		if (cell_width(pl->name) > w_name)
			w_name = cell_width(pl->name);
		if (cell_width(deps) > w_deps)
			w_deps = cell_width(deps);
	}
	printf("%-*s  %-7s  %-7s  %-*s  %-17s  %s\n", w_name, "PLUGIN",
	       "ENABLED", "RUNTIME", w_deps, "DEPS", "VERDICT", "FIX");
	for (size_t i = 0; i < n; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(c->plugins, i);
		int invalid = pl->verdict == PYRT_VERDICT_INVALID;
		deps_cell(c, pl, deps, sizeof deps);
		cell(pl->name, w_name, name, sizeof name);
		cell(deps, w_deps, dcell, sizeof dcell);
		app_text_printf(stdout, "%s  %-7s  %-7s  %s  %-17s  %s\n",
				name, invalid ? "-" : yes_no(pl->enabled),
				invalid ? "-" : yes_no(pl->needs_runtime),
				dcell, pyrt_verdict_name(pl->verdict),
				pl->fix ? pl->fix : "-");
		if (pl->error)
			app_text_printf(stdout, "  error: %s\n", pl->error);
	}
}

/* Every enabled plugin works now: ready, or needs no runtime. */
static int matrix_exit(const pyrt_plugins *p)
{
	for (size_t i = 0; i < pyrt_plugins_count(p); i++)
		if (!app_plugin_works(pyrt_plugins_at(p, i)))
			return APP_EXIT_NOT_READY;
	return APP_EXIT_OK;
}

/* -q, as doctor -q: only the plugins that need a fix (one line each, with
 * the fix and any error) and one line of result. */
static void print_quiet(const plugins_ctx *c)
{
	size_t n = pyrt_plugins_count(c->plugins), failing = 0;
	char sentence[DEPS_MAX + 512];
	for (size_t i = 0; i < n; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(c->plugins, i);
		if (app_plugin_works(pl))
			continue;
		failing++;
		app_plugin_sentence(pl, pyrt_plugins_runtime_ready(c->plugins),
				    sentence, sizeof sentence);
		app_text_printf(stdout, "%s\n", sentence);
		if (pl->error)
			app_text_printf(stdout, "  error: %s\n", pl->error);
	}
	app_text_printf(stdout, "plugins: %zu of %zu need a fix; runtime %s\n",
			failing, n, pyrt_state_name(c->status->state));
}

/* The runtime's status and the matrix into c.  Returns 0 or a negative
 * code with c->msg filled. */
static int plugins_load(plugins_ctx *c)
{
	pyrt_plugins_free(c->plugins);
	c->plugins = NULL;
	int rc = 0;
	if (!c->status && !(c->status = calloc(1, sizeof *c->status))) {
		snprintf(c->msg, sizeof c->msg, "out of memory");
		return PYRT_E_NOMEM;
	}
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_log = matrix_log;
	ev.payload = (void *)c->opts;
	ev.cancel = cli_cancel_flag();
	rc = app_status_read_memo(c->opts->box_root, c->cli->pins,
				   c->cli->platform.key, 0, c->status, &err);
	if (rc == 0)
		rc = app_plugins_check(&c->plugins, c->opts->box_root,
				       c->cli->pins, c->cli->platform.key, 1,
				       c->status, &ev, &err);
	if (rc == 0 && app_fix_plugins(c->opts, c->plugins))
		rc = pyrt_error_set(&err, PYRT_E_NOMEM, "out of memory");
	if (rc == 0)
		app_fix_status(c->opts, c->status);
	char fix[PATH_MAX + 160];
	if (rc < 0) {
		snprintf(c->msg, sizeof c->msg, "plugins: %s",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
		if (pyrt_doctor_plugins_fix(c->opts->box_root, fix, sizeof fix))
			app_cat(c->msg, sizeof c->msg, "; fix: %s", fix);
	}
	return rc;
}

static int cmd_matrix(plugins_ctx *c)
{
	int rc = plugins_load(c);
	if (rc < 0) {
		app_errorf("%s", c->msg);
		return app_exit_code(rc);
	}
	if (c->opts->json) {
		rc = print_json(c);
		if (rc < 0)
			return app_exit_code(rc);
	} else if (c->opts->quiet) {
		print_quiet(c);
	} else {
		print_table(c);
	}
	return matrix_exit(c->plugins);
}

/* A usage error of plugins: on stderr, and with --json as the result
 * line every --json run ends with.  Returns exit 2. */
static int plugins_usage(const app_request *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int plugins_usage(const app_request *opts, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	app_errorf("%s", msg);
	if (opts->json)
		cli_json_usage_result("plugins", msg);
	return APP_EXIT_USAGE;
}

/* The plugin install use case (app/plugin.h), reported through the front
 * end the options ask for. */
static int cmd_install(plugins_ctx *c, const char *name)
{
	app_front *front = cli_front_for(c->opts);
	if (!front) {
		app_errorf("out of memory");
		return app_exit_code(PYRT_E_NOMEM);
	}
	int rc = app_plugin_install_execute(c->opts, c->cli->pins,
					    c->cli->platform.key, name, front,
					    cli_cancel_flag());
	app_front_free(front);
	return app_exit_code(rc);
}

/* "plugins" or "plugins install NAME"; anything else is a usage error. */
static int plugins_words(const app_request *opts, const char **install_name)
{
	*install_name = NULL;
	if (opts->npositional == 0)
		return 0; /* --wheelhouse alone was refused by validate.c */
	if (strcmp(opts->positional[0], "install") != 0) {
		return plugins_usage(opts, "pyrt plugins: unexpected argument '%s'; expected 'install NAME' or nothing (see pyrt plugins --help)",
				     opts->positional[0]);
	}
	if (opts->npositional != 2) {
		return plugins_usage(opts, "pyrt plugins install: name one plugin (see pyrt plugins to list them)");
	}
	*install_name = opts->positional[1];
	return 0;
}

int cli_check_plugins(const app_request *opts)
{
	const char *name;
	return plugins_words(opts, &name);
}

int cli_cmd_plugins(const cli_ctx *cli)
{
	const app_request *opts = cli->opts;
	const char *name = opts->npositional ? opts->positional[1] : NULL;
	plugins_ctx c = { .opts = opts, .cli = cli };
	int status = name ? cmd_install(&c, name) : cmd_matrix(&c);
	pyrt_plugins_free(c.plugins);
	free(c.status);
	return status;
}
