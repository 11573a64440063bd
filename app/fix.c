/*
 * Fix lines rendered for the request in effect (see fix.h).
 */
#include "app/fix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "core/diagnose/doctor.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/status.h"
#include "core/util/redact.h"

#define FIX_MAX 4096

#define BIT(c) (1u << (c))
#define EVERY 0u

/* The commands a fix may name, as typed: the use cases a fix sends a
 * person to (the CLI's own table is cli/'s, not app/'s). */
enum fix_cmd { FC_INSTALL, FC_BASELINE, FC_STATUS, FC_VERIFY, FC_DOCTOR,
	       FC_SMOKE, FC_PLUGINS, FC_SERVE, FC_MIRROR, FC_LOCK, FC_ROLLBACK,
	       FC_UNINSTALL, FC__COUNT };

static const char *const fix_commands[FC__COUNT] = {
	[FC_INSTALL] = "install", [FC_BASELINE] = "baseline",
	[FC_STATUS] = "status", [FC_VERIFY] = "verify",
	[FC_DOCTOR] = "doctor", [FC_SMOKE] = "smoke",
	[FC_PLUGINS] = "plugins", [FC_SERVE] = "serve",
	[FC_MIRROR] = "mirror", [FC_LOCK] = "lock",
	[FC_ROLLBACK] = "rollback", [FC_UNINSTALL] = "uninstall",
};

/* The options a fix repeats and the commands that take each: the same
 * masks as cli/parse.c's option table (a fix naming an option its command
 * refuses would be a usage error; e2e_fix_literal runs every fix). */
enum fix_opt { F_BOX_ROOT, F_PINS, F_CACERT, F_MIRROR, F_INDEX_URL,
	       F_WHEELHOUSE, F_REQUIREMENTS, F_FROM_FILE, F_FORCE,
	       F_NO_BASELINE, F__COUNT };

static const struct { const char *name; int takes_value; unsigned cmds; }
fix_opts[F__COUNT] = {
	[F_BOX_ROOT] = { "--box-root", 1, EVERY },
	[F_PINS] = { "--pins", 1, EVERY },
	[F_CACERT] = { "--cacert", 1, EVERY },
	[F_MIRROR] = { "--mirror", 1, BIT(FC_INSTALL) | BIT(FC_MIRROR) |
		       BIT(FC_SERVE) | BIT(FC_DOCTOR) },
	[F_INDEX_URL] = { "--index-url", 1, BIT(FC_INSTALL) |
			  BIT(FC_PLUGINS) | BIT(FC_BASELINE) |
			  BIT(FC_SERVE) | BIT(FC_DOCTOR) },
	[F_WHEELHOUSE] = { "--wheelhouse", 1, BIT(FC_INSTALL) |
			   BIT(FC_PLUGINS) | BIT(FC_BASELINE) |
			   BIT(FC_LOCK) | BIT(FC_SERVE) | BIT(FC_DOCTOR) },
	[F_REQUIREMENTS] = { "--requirements", 1, BIT(FC_INSTALL) |
			     BIT(FC_BASELINE) | BIT(FC_SERVE) },
	[F_FROM_FILE] = { "--from-file", 1, BIT(FC_INSTALL) },
	[F_FORCE] = { "--force", 0, BIT(FC_INSTALL) |
		      BIT(FC_ROLLBACK) },
	[F_NO_BASELINE] = { "--no-baseline", 0, BIT(FC_INSTALL) },
};

#ifdef PYRT_TEST_HOOKS
void app_fix_table_print(FILE *out)
{
	for (int c = 0; c < FC__COUNT; c++)
		for (int o = 0; o < F__COUNT; o++)
			fprintf(out, "fix %s %s %d\n", fix_commands[c],
				fix_opts[o].name,
				fix_opts[o].cmds == EVERY ||
					(fix_opts[o].cmds & BIT(c)) != 0);
}
#endif

static int command_of(const char *word, enum fix_cmd *cmd)
{
	for (int i = 0; i < FC__COUNT; i++)
		if (strcmp(word, fix_commands[i]) == 0) {
			*cmd = (enum fix_cmd)i;
			return 1;
		}
	return 0;
}

static int opt_of(const char *word)
{
	for (int i = 0; i < F__COUNT; i++)
		if (strcmp(word, fix_opts[i].name) == 0)
			return i;
	return -1;
}

/* Characters a shell word may hold unquoted. */
static int shell_safe(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789@%+=:,./_-", *v))
			return 0;
	return 1;
}

void app_fix_shell_quote(const char *value, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	if (shell_safe(value)) {
		snprintf(buf, len, "%s", value);
		return;
	}
	app_cat(buf, len, "'");
	for (const char *p = value; *p; p++)
		app_cat(buf, len, *p == '\'' ? "'\\''" : "%c", *p);
	app_cat(buf, len, "'");
}

/* A mirror or index URL is repeated when the command line gave it and it
 * carries no secret: one from the environment stays there (it may carry
 * credentials, kept out of /proc/PID/cmdline and of the bundle), and a URL
 * with userinfo or a query would put them on the screen and in logs. */
static const char *shown_url(const char *url, const char *from,
			     const char *flag)
{
	if (!url || !from || strcmp(from, flag) != 0)
		return NULL;
	char clean[FIX_MAX];
	pyrt_redact_url(url, clean, sizeof clean);
	return strcmp(clean, url) == 0 ? url : NULL;
}

/* The value req gives option o, or NULL when it gives none. */
static const char *req_value(const app_request *req, enum fix_opt o,
			     int sudo)
{
	switch (o) {
	/* The default box is the user's home: under sudo it is root's, so
	 * a sudo fix always names it. */
	case F_BOX_ROOT:
		return req->box_root && (sudo || !req->box_root_from ||
					 strcmp(req->box_root_from, "default"))
			       ? req->box_root : NULL;
	case F_PINS: return req->pins_path;
	/* CURL_CA_BUNDLE and SSL_CERT_FILE stay the shell's word. */
	case F_CACERT: return req->cacert && req->cacert_from &&
			      strcmp(req->cacert_from, "--cacert") == 0
			      ? req->cacert : NULL;
	case F_MIRROR: return shown_url(req->mirror, req->mirror_from,
					"--mirror");
	case F_INDEX_URL: return shown_url(req->index_url, req->index_url_from,
					   "--index-url");
	case F_WHEELHOUSE: return req->wheelhouse;
	case F_REQUIREMENTS: return req->requirements;
	case F_FROM_FILE: return req->from_file;
	case F_FORCE: return req->force ? "" : NULL;
	case F_NO_BASELINE: return req->no_baseline ? "" : NULL;
	default: return NULL;
	}
}

static int applies(enum fix_opt o, enum fix_cmd cmd)
{
	return fix_opts[o].cmds == EVERY || (fix_opts[o].cmds & BIT(cmd));
}

/* The next word of *p (spaces separate), copied into w; 0 at the end. */
static int next_word(const char **p, char *w, size_t len)
{
	while (**p == ' ')
		(*p)++;
	if (!**p)
		return 0;
	size_t n = strcspn(*p, " ");
	snprintf(w, len, "%.*s", (int)n, *p);
	*p += n;
	return 1;
}

/* Skip an option's value at *p: v itself when the text holds it (a box
 * root may hold spaces), else one word. */
static void skip_value(const char **p, const char *v)
{
	while (**p == ' ')
		(*p)++;
	size_t n = v ? strlen(v) : 0;
	if (n && strncmp(*p, v, n) == 0 && ((*p)[n] == ' ' || !(*p)[n]))
		*p += n;
	else
		*p += strcspn(*p, " ");
}

void app_fix_render(const app_request *req, const char *cmd, char *buf,
		    size_t len)
{
	if (!len)
		return;
	snprintf(buf, len, "%s", cmd);
	int sudo = strncmp(cmd, "sudo ", 5) == 0;
	const char *rest = sudo ? cmd + 5 : cmd;
	if (!req || strncmp(rest, "pyrt ", 5) != 0)
		return;
	const char *p = rest + 5;
	char word[FIX_MAX];
	enum fix_cmd c;
	if (!next_word(&p, word, sizeof word) || !command_of(word, &c))
		return;
	/* Which options this fix will carry: req's, where its command
	 * takes them; a sudo fix redoes req's own command, flags too. */
	const char *val[F__COUNT] = { 0 };
	for (int o = 0; o < F__COUNT; o++) {
		int own_flag = o == F_FORCE || o == F_NO_BASELINE;
		if (own_flag && !(sudo && req->command_word &&
				  strcmp(req->command_word, fix_commands[c]) == 0))
			continue;
		if (applies((enum fix_opt)o, c))
			val[o] = req_value(req, (enum fix_opt)o, sudo);
	}
	buf[0] = '\0';
	app_cat(buf, len, "%spyrt %s", sudo ? "sudo " : "", word);
	while (next_word(&p, word, sizeof word)) {
		int o = opt_of(word);
		/* The fix's own copy of an option req gives is dropped for
		 * req's (core names the box it saw; req says how). */
		if (o >= 0 && val[o]) {
			if (fix_opts[o].takes_value)
				skip_value(&p, val[o]);
			continue;
		}
		app_cat(buf, len, " %s", word);
	}
	for (int o = 0; o < F__COUNT; o++) {
		if (!val[o])
			continue;
		char q[FIX_MAX] = "";
		if (fix_opts[o].takes_value)
			app_fix_shell_quote(val[o], q, sizeof q);
		app_cat(buf, len, " %s%s%s", fix_opts[o].name,
			fix_opts[o].takes_value ? " " : "", q);
	}
}

void app_fix_text(const app_request *req, const char *msg, char *buf,
		  size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	const char *p = msg;
	for (;;) {
		const char *q = strchr(p, '"');
		const char *end = q ? strchr(q + 1, '"') : NULL;
		if (!q || !end) {
			app_cat(buf, len, "%s", p);
			return;
		}
		size_t inner = (size_t)(end - q - 1);
		char cmd[FIX_MAX], fixed[FIX_MAX];
		if (inner >= sizeof cmd)
			inner = sizeof cmd - 1;
		memcpy(cmd, q + 1, inner);
		cmd[inner] = '\0';
		app_fix_render(req, cmd, fixed, sizeof fixed);
		app_cat(buf, len, "%.*s\"%s\"", (int)(q - p), p, fixed);
		p = end + 1;
	}
}

/* A fix field is the command itself ("pyrt baseline") or a sentence
 * quoting one; detail text only ever quotes. */
static char *render_field(const char *text, void *arg)
{
	const app_request *req = arg;
	char *out = malloc(FIX_MAX);
	if (!out)
		return NULL;
	if (strncmp(text, "pyrt ", 5) == 0 || strncmp(text, "sudo pyrt ", 10) == 0)
		app_fix_render(req, text, out, FIX_MAX);
	else
		app_fix_text(req, text, out, FIX_MAX);
	return out;
}

int app_fix_doctor(const app_request *req, struct pyrt_doctor *d)
{
	return pyrt_doctor_map_text(d, render_field, (void *)req);
}

int app_fix_plugins(const app_request *req, struct pyrt_plugins *p)
{
	return pyrt_plugins_map_fix(p, render_field, (void *)req);
}

void app_fix_in_place(const app_request *req, char *s, size_t size)
{
	char out[FIX_MAX];
	app_fix_text(req, s, out, sizeof out);
	/* Truncated as the field's size says (a path longer than that is
	 * already truncated in it). */
	size_t n = strlen(out);
	if (n >= size)
		n = size - 1;
	memcpy(s, out, n);
	s[n] = '\0';
}

void app_fix_status(const app_request *req, struct pyrt_status *st)
{
	app_fix_in_place(req, st->message, sizeof st->message);
	app_fix_in_place(req, st->failed_why, sizeof st->failed_why);
	app_fix_in_place(req, st->baseline_broken_why,
		     sizeof st->baseline_broken_why);
}
