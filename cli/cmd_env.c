/*
 * `pyrt env`: the environment variables pyrt reads, with the value each has
 * here (or unset) and what it is for, so a support person can see what
 * shapes a run without `env | grep`, which would print a proxy password or
 * an index token.  Every value passes the redaction logs and bundles use.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/text.h"
#include "cli/commands.h"
#include "core/util/error.h"
#include "core/util/redact.h"

typedef struct env_var {
	const char *name;
	int url;           /* a URL: its path may hold a token too */
	const char *what;  /* what pyrt does with it */
} env_var;

static const env_var env_vars[] = {
	{ "PYRT_BOX_ROOT", 0, "default for --box-root" },
	{ "PYRT_PINS", 0, "default for --pins" },
	{ "PYRT_THEME", 0, "default for --theme" },
	{ "PYRT_THEME_DIR", 0, "where --theme NAME looks first" },
	{ "PYRT_INDEX_URL", 1, "default for --index-url" },
	{ "PYRT_MIRROR_URL", 1, "default for --mirror" },
	{ "PYRT_WHEELHOUSE", 0, "default for --wheelhouse (pip's commands)" },
	{ "PYRT_DOCTOR_OFFLINE", 0, "1: doctor leaves out its network checks" },
	{ "PIP_INDEX_URL", 1, "pip's index when no --index-url (doctor tries it)" },
	{ "PIP_EXTRA_INDEX_URL", 1, "pip's extra index (doctor names it)" },
	{ "CURL_CA_BUNDLE", 0, "CA bundle when no --cacert" },
	{ "SSL_CERT_FILE", 0, "CA bundle when no --cacert nor CURL_CA_BUNDLE" },
	{ "https_proxy", 1, "proxy for HTTPS (libcurl, pip)" },
	{ "HTTPS_PROXY", 1, "proxy for HTTPS (libcurl, pip)" },
	{ "http_proxy", 1, "proxy for HTTP (libcurl, pip)" },
	{ "all_proxy", 1, "proxy for every scheme (libcurl)" },
	{ "ALL_PROXY", 1, "proxy for every scheme (libcurl)" },
	{ "no_proxy", 0, "hosts reached without a proxy" },
	{ "NO_PROXY", 0, "hosts reached without a proxy" },
	{ "NO_COLOR", 0, "set and non-empty: no colours" },
	{ "XDG_DATA_HOME", 0, "locates the default box root" },
	{ "HOME", 0, "locates the default box root" },
	{ "TERM", 0, "\"dumb\" counts as no terminal" },
	{ "LISTEN_FDS", 0, "serve: a socket systemd passed" },
};

#define NVARS (sizeof env_vars / sizeof env_vars[0])

/* v's value as it may be shown: the redactor's, and for a URL its path
 * hidden too (a hosted index's token lives there).  malloc'd; NULL when
 * out of memory. */
static char *shown_value(const env_var *v, const char *value)
{
	char *out = v->url ? pyrt_redact_known_urls(value, &value, 1)
			   : strdup(value);
	if (out)
		pyrt_redact(out); /* userinfo, key=value secrets, tokens */
	return out;
}

static int print_human(void)
{
	for (size_t i = 0; i < NVARS; i++) {
		const char *value = getenv(env_vars[i].name);
		char *shown = value ? shown_value(&env_vars[i], value) : NULL;
		if (value && !shown)
			return PYRT_E_NOMEM;
		/* Cleaned for the terminal: the value is anyone's. */
		app_text_printf(stdout, "%-20s %s", env_vars[i].name,
				shown ? (*shown ? shown : "(set, empty)")
				      : "(unset)");
		printf("\n%-20s %s\n", "", env_vars[i].what);
		free(shown);
	}
	return 0;
}

static int print_json(void)
{
	json_t *vars = json_array();
	json_t *obj = json_pack("{s:o}", "variables", vars);
	if (!vars || !obj)
		return PYRT_E_NOMEM;
	for (size_t i = 0; i < NVARS; i++) {
		const char *value = getenv(env_vars[i].name);
		char *shown = value ? shown_value(&env_vars[i], value) : NULL;
		json_t *row = (!value || shown)
			? json_pack("{s:s, s:b, s:s?, s:s}", "name",
				    env_vars[i].name, "set", value != NULL,
				    "value", shown, "for", env_vars[i].what)
			: NULL;
		free(shown);
		if (!row || json_array_append_new(vars, row)) {
			json_decref(obj);
			return PYRT_E_NOMEM;
		}
	}
	int rc = json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
	fputc('\n', stdout);
	json_decref(obj);
	return rc == 0 ? 0 : PYRT_E_IO;
}

int cli_cmd_env(const cli_ctx *c)
{
	int rc = c->opts->json ? print_json() : print_human();
	if (rc < 0)
		app_errorf("env: %s", pyrt_strerror(rc));
	return app_exit_code(rc);
}
