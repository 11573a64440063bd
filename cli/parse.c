/*
 * Command-line parsing.  Options are accepted before or after the command
 * word, as "--opt=value" or "--opt value"; short flags may be bundled
 * ("-yq").  Each option lists the commands it applies to, so a misplaced one
 * is a usage error naming it rather than being silently ignored.  Values
 * missing from the command line are taken from the environment, then from
 * defaults.
 */
#include "cli/parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/validate.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "core/util/fs.h"

enum opt_id {
	O_BOX_ROOT, O_PINS, O_CACERT, O_JSON, O_YES, O_NO_COLOR, O_THEME,
	O_VERBOSE, O_QUIET, O_HELP, O_VERSION,
	O_WHEELHOUSE, O_REQUIREMENTS, O_FROM_FILE, O_MIRROR, O_INDEX_URL,
	O_NO_BASELINE,
	O_NO_WAIT, O_FORCE, O_DEEP, O_OUT, O_BUNDLE, O_LISTEN, O_TOKEN_FILE,
	O_PLATFORM, O_WHEELHOUSE_FROM, O_VERIFY, O_FORMAT, O_DRY_RUN,
	O__COUNT
};

typedef struct opt_spec {
	enum opt_id id;
	const char *name;    /* long name without "--" */
	char short_name;     /* 0: none */
	const char *metavar; /* NULL: a flag without value */
	int global;          /* every command takes it; the others are each
			      * command's own, listed in its row's options
			      * (cli/commands.c) */
	cli_path_kind path;  /* what pyrt does with a path it names: the
			      * gate (validate.c) follows this column, and
			      * e2e_gate_table walks it */
} opt_spec;

#define GLOBAL 1
#define OWN 0

static const opt_spec opt_table[] = {
	{ O_BOX_ROOT, "box-root", 0, "DIR", GLOBAL, CLI_PATH_BOX },
	{ O_PINS, "pins", 0, "FILE", GLOBAL, CLI_PATH_GATED },
	{ O_CACERT, "cacert", 0, "FILE", GLOBAL, CLI_PATH_GATED },
	{ O_JSON, "json", 0, NULL, GLOBAL, CLI_PATH_NONE },
	{ O_YES, "yes", 'y', NULL, GLOBAL, CLI_PATH_NONE },
	{ O_NO_COLOR, "no-color", 0, NULL, GLOBAL, CLI_PATH_NONE },
	{ O_THEME, "theme", 0, "NAME", GLOBAL, CLI_PATH_NONE },
	{ O_VERBOSE, "verbose", 'v', NULL, GLOBAL, CLI_PATH_NONE },
	{ O_QUIET, "quiet", 'q', NULL, GLOBAL, CLI_PATH_NONE },
	{ O_HELP, "help", 'h', NULL, GLOBAL, CLI_PATH_NONE },
	{ O_VERSION, "version", 'V', NULL, GLOBAL, CLI_PATH_NONE },
	/* Which commands take these: their rows.  `pyrt` on a terminal runs
	 * the wizard and the dashboard's baseline and plugin installs with
	 * the install ones; serve's jobs do, never a request field (the API
	 * cannot choose code). */
	{ O_WHEELHOUSE, "wheelhouse", 0, "DIR", OWN, CLI_PATH_GATED_DIR },
	{ O_REQUIREMENTS, "requirements", 0, "FILE", OWN, CLI_PATH_GATED },
	{ O_FROM_FILE, "from-file", 0, "ARCHIVE", OWN, CLI_PATH_HASHED },
	{ O_MIRROR, "mirror", 0, "URL", OWN, CLI_PATH_NONE },
	{ O_INDEX_URL, "index-url", 0, "URL", OWN, CLI_PATH_NONE },
	{ O_NO_BASELINE, "no-baseline", 0, NULL, OWN, CLI_PATH_NONE },
	{ O_NO_WAIT, "no-wait", 0, NULL, OWN, CLI_PATH_NONE },
	{ O_FORCE, "force", 0, NULL, OWN, CLI_PATH_NONE },
	{ O_DEEP, "deep", 0, NULL, OWN, CLI_PATH_NONE },
	{ O_OUT, "out", 0, "FILE", OWN, CLI_PATH_WRITTEN },
	{ O_BUNDLE, "bundle", 0, "FILE", OWN, CLI_PATH_WRITTEN },
	{ O_LISTEN, "listen", 0, "ADDR", OWN, CLI_PATH_SOCKET },
	{ O_TOKEN_FILE, "token-file", 0, "FILE", OWN, CLI_PATH_SECRET },
	{ O_PLATFORM, "platform", 0, "KEY", OWN, CLI_PATH_NONE },
	{ O_WHEELHOUSE_FROM, "wheelhouse-from", 0, "DIR", OWN,
	  CLI_PATH_GATED_DIR },
	{ O_VERIFY, "verify", 0, NULL, OWN, CLI_PATH_NONE },
	{ O_FORMAT, "format", 0, "FMT", OWN, CLI_PATH_NONE },
	{ O_DRY_RUN, "dry-run", 0, NULL, OWN, CLI_PATH_NONE },
};

#define NOPTS (sizeof opt_table / sizeof opt_table[0])

size_t cli_opt_count(void)
{
	return NOPTS;
}

void cli_opt_at(size_t i, cli_opt_row *row)
{
	const opt_spec *s = &opt_table[i];
	row->name = s->name;
	row->short_name = s->short_name;
	row->metavar = s->metavar;
	row->path = s->path;
	row->every_command = s->global;
}

/* Whether cmd's row lists option name. */
static int row_lists(cli_command cmd, const char *name)
{
	const cli_opt_help *h = cli_commands[cmd].options;
	for (; h && h->name; h++)
		if (strcmp(h->name, name) == 0)
			return 1;
	return 0;
}

int cli_opt_for_command(size_t i, cli_command cmd)
{
	return !opt_table[i].global && row_lists(cmd, opt_table[i].name);
}

/* Whether cmd takes option i: a global one, or one its row lists. */
static int takes(cli_command cmd, size_t i)
{
	return opt_table[i].global || row_lists(cmd, opt_table[i].name);
}

cli_path_kind cli_opt_path_kind(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(opt_table[i].name, name) == 0)
			return opt_table[i].path;
	return CLI_PATH_UNDECLARED;
}

static const char *const path_kind_names[] = {
	[CLI_PATH_UNDECLARED] = "undeclared", [CLI_PATH_NONE] = "none",
	[CLI_PATH_GATED] = "gated", [CLI_PATH_GATED_DIR] = "gated-dir",
	[CLI_PATH_BOX] = "box", [CLI_PATH_HASHED] = "hashed",
	[CLI_PATH_WRITTEN] = "written", [CLI_PATH_SOCKET] = "socket",
	[CLI_PATH_SECRET] = "secret",
};

void cli_opt_table_print(FILE *f)
{
	for (size_t i = 0; i < NOPTS; i++) {
		const opt_spec *s = &opt_table[i];
		if (!s->metavar)
			continue;
		fprintf(f, "--%s %s %s", s->name, s->metavar,
			path_kind_names[s->path]);
		for (int c = 0; c < CLI_CMD__COUNT; c++)
			if (takes((cli_command)c, i))
				fprintf(f, " %s", c == CLI_CMD_NONE ? "-"
					: cli_command_name((cli_command)c));
		fputc('\n', f);
	}
}

void cli_command_table_print(FILE *f)
{
	for (int c = 1; c < CLI_CMD__COUNT; c++)
		fprintf(f, "command %s\n", cli_command_name((cli_command)c));
	for (size_t i = 0; i < NOPTS; i++) {
		fprintf(f, "option --%s", opt_table[i].name);
		if (opt_table[i].short_name)
			fprintf(f, " -%c", opt_table[i].short_name);
		fputc('\n', f);
	}
	/* What a row holds, and what each option is: for the usage check. */
	for (int c = 1; c < CLI_CMD__COUNT; c++) {
		const cli_command_entry *e = &cli_commands[c];
		fprintf(f, "row %s run=%d summary=%d usage=%d pins=%d\n",
			e->name, e->run != NULL, e->summary != NULL,
			e->usage != NULL, !!(e->needs & CLI_NEEDS_PINS));
		for (const cli_opt_help *h = e->options; h && h->name; h++) {
			size_t i = 0;
			while (i < NOPTS && strcmp(opt_table[i].name, h->name))
				i++;
			if (i == NOPTS) /* a row naming no option: a typo */
				fprintf(f, "unknown %s --%s\n", e->name,
					h->name);
		}
	}
	for (size_t i = 0; i < NOPTS; i++)
		fprintf(f, "opt --%s %s %s\n", opt_table[i].name,
			opt_table[i].metavar ? opt_table[i].metavar : "-",
			opt_table[i].global ? "global" : "own");
}

/* Parser state: the options seen, so their command fit is checked once the
 * command word is known (it may come after them). */
typedef struct parse_state {
	app_request *opts;
	cli_command cmd;     /* the command word's; CLI_CMD_NONE until one */
	int seen[O__COUNT];
	char *msg;
	size_t msglen;
} parse_state;

const char *cli_command_name(cli_command cmd)
{
	if ((unsigned)cmd >= CLI_CMD__COUNT)
		return NULL;
	return cli_commands[cmd].name;
}

const char *cli_command_suggest(const char *word)
{
	/* The table has no terminator: cli_suggest wants one. */
	const char *names[CLI_CMD__COUNT];
	for (int i = 1; i < CLI_CMD__COUNT; i++)
		names[i - 1] = cli_commands[i].name;
	names[CLI_CMD__COUNT - 1] = NULL;
	return cli_suggest(word, strlen(word), names);
}

cli_command cli_command_lookup(const char *word)
{
	for (int i = 1; i < CLI_CMD__COUNT; i++)
		if (strcmp(word, cli_commands[i].name) == 0)
			return (cli_command)i;
	return CLI_CMD__COUNT;
}

cli_command cli_command_of(const app_request *opts)
{
	if (!opts->command_word)
		return CLI_CMD_NONE;
	cli_command cmd = cli_command_lookup(opts->command_word);
	return cmd == CLI_CMD__COUNT ? CLI_CMD_NONE : cmd;
}

static int usage_error(parse_state *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_error(parse_state *ps, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->msg, ps->msglen, fmt, ap);
	va_end(ap);
	return PYRT_E_USAGE;
}

static const opt_spec *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opt_table[i].name) == len &&
		    strncmp(opt_table[i].name, name, len) == 0)
			return &opt_table[i];
	return NULL;
}

static const opt_spec *find_short(char c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_table[i].short_name == c)
			return &opt_table[i];
	return NULL;
}

/* Store one option; value is NULL for flags. */
static int apply_option(parse_state *ps, const opt_spec *spec,
			const char *value)
{
	app_request *o = ps->opts;
	ps->seen[spec->id] = 1;
	switch (spec->id) {
	case O_BOX_ROOT: free(o->box_root); o->box_root = strdup(value);
		o->box_root_from = "--box-root"; break;
	case O_PINS: o->pins_path = value; o->pins_from = "--pins"; break;
	case O_CACERT: o->cacert = value; o->cacert_from = "--cacert"; break;
	case O_JSON: o->json = 1; break;
	case O_YES: o->yes = 1; break;
	case O_NO_COLOR: o->no_color = 1; break;
	case O_THEME: o->theme = value; break;
	/* The later of -v and -q wins, so a script's -q can be overridden. */
	case O_VERBOSE: o->verbose++; o->quiet = 0; break;
	case O_QUIET: o->quiet = 1; o->verbose = 0; break;
	case O_HELP: o->help = 1; break;
	case O_VERSION: o->version = 1; break;
	case O_WHEELHOUSE: o->wheelhouse = value; break;
	case O_REQUIREMENTS: o->requirements = value; break;
	case O_FROM_FILE: o->from_file = value; break;
	case O_MIRROR: o->mirror = value;
		o->mirror_from = "--mirror"; break;
	case O_INDEX_URL: o->index_url = value;
		o->index_url_from = "--index-url"; break;
	case O_NO_BASELINE: o->no_baseline = 1; break;
	case O_NO_WAIT: o->no_wait = 1; break;
	case O_FORCE: o->force = 1; break;
	case O_DEEP: o->deep = 1; break;
	case O_OUT: o->out = value; break;
	case O_BUNDLE: o->bundle = value; break;
	case O_LISTEN: o->listen = value; break;
	case O_TOKEN_FILE: o->token_file = value; break;
	case O_PLATFORM:
		if (o->nplatforms >= APP_MAX_PLATFORMS)
			return usage_error(ps, "at most %d --platform options; "
					   "run pyrt mirror again for more",
					   APP_MAX_PLATFORMS);
		o->platforms[o->nplatforms++] = value;
		break;
	case O_WHEELHOUSE_FROM: o->wheelhouse_from = value; break;
	case O_VERIFY: o->mirror_verify = 1; break;
	case O_FORMAT: o->format = value; break;
	case O_DRY_RUN: o->dry_run = 1; break;
	case O__COUNT: break;
	}
	return 0;
}

/* A "--name", "--name=value" or "--name value" word; *i advances past a
 * consumed value. */
static int parse_long(parse_state *ps, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2;
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const opt_spec *spec = find_long(arg, len);
	if (!spec) {
		const char *names[NOPTS + 1];
		for (size_t k = 0; k < NOPTS; k++)
			names[k] = opt_table[k].name;
		names[NOPTS] = NULL;
		const char *near = cli_suggest(arg, len, names);
		if (near)
			return usage_error(ps, "unknown option '--%.*s'; did you mean --%s? (see pyrt --help)",
					   (int)len, arg, near);
		return usage_error(ps, "unknown option '--%.*s'; see pyrt --help",
				   (int)len, arg);
	}
	if (!spec->metavar) {
		if (eq)
			return usage_error(ps, "option --%s takes no value; see pyrt --help",
					   spec->name);
		return apply_option(ps, spec, NULL);
	}
	const char *value = eq ? eq + 1 : NULL;
	if (!value) {
		if (*i + 1 >= argc)
			return usage_error(ps, "option --%s needs a value (%s); see pyrt --help",
					   spec->name, spec->metavar);
		value = argv[++*i];
	}
	if (!*value)
		return usage_error(ps, "option --%s needs a non-empty value (%s)",
				   spec->name, spec->metavar);
	return apply_option(ps, spec, value);
}

/* A bundle of short flags such as "-yq". */
static int parse_short(parse_state *ps, const char *arg)
{
	for (const char *p = arg + 1; *p; p++) {
		const opt_spec *spec = find_short(*p);
		if (!spec)
			return usage_error(ps, "unknown option '-%c'; see pyrt --help", *p);
		int rc = apply_option(ps, spec, NULL);
		if (rc)
			return rc;
		if (spec->id == O_HELP)
			ps->opts->help = 2; /* -h: the short usage */
	}
	return 0;
}

/* The first word is the command; later ones are its arguments. */
static int add_word(parse_state *ps, const char *word)
{
	app_request *o = ps->opts;
	if (!o->command_word) {
		cli_command cmd = cli_command_lookup(word);
		if (cmd == CLI_CMD__COUNT) {
			const char *near = cli_command_suggest(word);
			if (near)
				return usage_error(ps, "unknown command '%s'; did you mean '%s'? (see pyrt --help)",
						   word, near);
			return usage_error(ps, "unknown command '%s'; see pyrt --help", word);
		}
		ps->cmd = cmd;
		o->command_word = cli_commands[cmd].name;
		return 0;
	}
	if (o->npositional >= APP_MAX_POSITIONAL)
		return usage_error(ps, "too many arguments; see pyrt --help");
	o->positional[o->npositional++] = word;
	return 0;
}

/* Options that do not apply to the command are refused by name. */
static int check_fit(parse_state *ps)
{
	cli_command cmd = ps->cmd;
	if (ps->opts->help || cmd == CLI_CMD_HELP || cmd == CLI_CMD_VERSION)
		return 0;
	for (size_t i = 0; i < NOPTS; i++) {
		const opt_spec *s = &opt_table[i];
		if (!ps->seen[s->id] || takes(cmd, i))
			continue;
		const char *name = cli_command_name(cmd);
		if (!name)
			return usage_error(ps, "option --%s is not valid without a command (e.g. pyrt install --%s); see pyrt --help",
					   s->name, s->name);
		return usage_error(ps, "option --%s does not apply to 'pyrt %s'; see pyrt %s --help",
				   s->name, name, name);
	}
	return 0;
}

/* Commands that take no arguments refuse stray words instead of ignoring
 * them (a mistyped option value would otherwise pass unnoticed). */
static int check_positionals(parse_state *ps)
{
	app_request *o = ps->opts;
	/* plugins: "install NAME", which cmd_plugins.c checks; mirror: DIR */
	size_t allowed = (size_t)cli_commands[ps->cmd].max_args;
	if (o->npositional > allowed)
		return usage_error(ps, "pyrt %s: unexpected argument '%s'; see pyrt --help",
				   o->command_word, o->positional[allowed]);
	return 0;
}

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return (v && *v) ? v : NULL;
}

/* The command's row says whether it works on a box. */
static int needs_box(cli_command cmd)
{
	return (unsigned)cmd < CLI_CMD__COUNT &&
	       (cli_commands[cmd].needs & CLI_NEEDS_BOX);
}

/* The box root as every path we print and store shows it: ~ expanded,
 * absolute, symlinks resolved as far as it exists (core resolves it the
 * same way, so what is shown is what is used). */
static int absolutize_box(parse_state *ps)
{
	app_request *o = ps->opts;
	char *norm = NULL;
	pyrt_fs_seen *seen = malloc(sizeof *seen);
	if (!seen)
		return PYRT_E_NOMEM;
	int rc = cli_path_normalise_trusted_seen(o->box_root, o->box_root_from,
						 seen, &norm, ps->msg,
						 ps->msglen);
	if (rc) {
		free(seen);
		return rc;
	}
	free(o->box_root);
	o->box_root = norm;
	free(o->box_seen);
	o->box_seen = seen;
	return 0;
}

/* --box-root, else PYRT_BOX_ROOT, else the XDG default (only computed for
 * commands that use a box, so `pyrt --help` works without HOME). */
static int resolve_box(parse_state *ps)
{
	app_request *o = ps->opts;
	if (!o->box_root && env_nonempty("PYRT_BOX_ROOT")) {
		o->box_root = strdup(getenv("PYRT_BOX_ROOT"));
		o->box_root_from = "PYRT_BOX_ROOT";
	}
	if (!o->box_root) {
		if (!needs_box(ps->cmd) || o->help || o->version)
			return 0;
		char buf[4096];
		pyrt_error err = PYRT_ERROR_INIT;
		int rc = pyrt_box_default_root(buf, sizeof buf, &err);
		if (rc < 0) {
			snprintf(ps->msg, ps->msglen, "%s (pass --box-root DIR)",
				 err.msg[0] ? err.msg : pyrt_strerror(rc));
			return rc;
		}
		o->box_root = strdup(buf);
		o->box_root_from = "default";
	}
	if (!o->box_root)
		return PYRT_E_NOMEM;
	return absolutize_box(ps);
}

/* A CA bundle that cannot be read is a usage error now, not a TLS failure
 * minutes later. */
static int check_cacert(parse_state *ps)
{
	app_request *o = ps->opts;
	cli_command cmd = ps->cmd;
	/* doctor reports an unreadable bundle as a failed check instead. */
	if (cmd == CLI_CMD_DOCTOR)
		return 0;
	if (!o->cacert) {
		/* Only commands that download care about the environment's
		 * bundle; a stale variable must not break status. */
		if (cmd != CLI_CMD_INSTALL && cmd != CLI_CMD_MIRROR)
			return 0;
		if ((o->cacert = env_nonempty("CURL_CA_BUNDLE")))
			o->cacert_from = "CURL_CA_BUNDLE";
		else if ((o->cacert = env_nonempty("SSL_CERT_FILE")))
			o->cacert_from = "SSL_CERT_FILE";
		else
			return 0;
	}
	FILE *f = fopen(o->cacert, "r");
	if (!f)
		return usage_error(ps, "cannot read the CA bundle '%s' (from %s): %s",
				   o->cacert, o->cacert_from, strerror(errno));
	fclose(f);
	return 0;
}

/* The environment fills what the command line left open. */
static void apply_env(app_request *o, cli_command cmd)
{
	if (!o->pins_path && env_nonempty("PYRT_PINS")) {
		o->pins_path = getenv("PYRT_PINS");
		o->pins_from = "PYRT_PINS";
	}
	if (!o->theme)
		o->theme = env_nonempty("PYRT_THEME");
	/* PYRT_WHEELHOUSE names the package source once, as PIP_FIND_LINKS
	 * does for pip, for the commands that run pip; a --wheelhouse or
	 * --index-url on the command line beats it. */
	if (!o->index_url && !o->wheelhouse && !o->no_baseline &&
	    env_nonempty("PYRT_WHEELHOUSE") &&
	    (cmd == CLI_CMD_INSTALL || cmd == CLI_CMD_BASELINE ||
	     cmd == CLI_CMD_NONE || cmd == CLI_CMD_SERVE ||
	     cmd == CLI_CMD_DOCTOR ||
	     (cmd == CLI_CMD_PLUGINS && o->npositional > 0)))
		o->wheelhouse = getenv("PYRT_WHEELHOUSE");
	/* The index is for the commands that run pip; elsewhere the
	 * variable is ignored, as --index-url would be refused, and a
	 * --wheelhouse (or --no-baseline: no pip runs) on the command line
	 * beats it. */
	if (!o->index_url && !o->wheelhouse && !o->no_baseline &&
	    env_nonempty("PYRT_INDEX_URL") &&
	    (cmd == CLI_CMD_INSTALL || cmd == CLI_CMD_BASELINE ||
	     cmd == CLI_CMD_NONE || cmd == CLI_CMD_SERVE ||
	     cmd == CLI_CMD_DOCTOR ||
	     (cmd == CLI_CMD_PLUGINS && o->npositional > 0))) {
		o->index_url = getenv("PYRT_INDEX_URL");
		o->index_url_from = "PYRT_INDEX_URL";
	}
	/* The mirror URL may carry credentials: in the environment it is
	 * out of /proc/PID/cmdline, which every local user can read.  For
	 * the commands --mirror serves; --from-file (nothing is downloaded)
	 * and `mirror --verify` (nothing is fetched) ignore it. */
	if (!o->mirror && !o->from_file && !o->mirror_verify &&
	    env_nonempty("PYRT_MIRROR_URL") &&
	    (cmd == CLI_CMD_INSTALL || cmd == CLI_CMD_NONE ||
	     cmd == CLI_CMD_MIRROR || cmd == CLI_CMD_DOCTOR)) {
		o->mirror = getenv("PYRT_MIRROR_URL");
		o->mirror_from = "PYRT_MIRROR_URL";
	}
	if (env_nonempty("NO_COLOR"))
		o->no_color = 1;
}

int cli_args_parse(int argc, char **argv, app_request *opts, char *msg,
		   size_t msglen)
{
	memset(opts, 0, sizeof *opts);
	parse_state ps = { .opts = opts, .msg = msg, .msglen = msglen };
	msg[0] = '\0';
	int rc = 0;
	int only_words = 0;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *a = argv[i];
		if (only_words || a[0] != '-' || a[1] == '\0')
			rc = add_word(&ps, a);
		else if (strcmp(a, "--") == 0)
			only_words = 1;
		else if (a[1] == '-')
			rc = parse_long(&ps, argc, argv, &i);
		else
			rc = parse_short(&ps, a);
	}
	if (rc == 0)
		rc = check_positionals(&ps);
	if (rc == 0)
		rc = check_fit(&ps);
	if (rc == 0) {
		apply_env(opts, ps.cmd);
		rc = resolve_box(&ps);
	}
	if (rc == 0 && !opts->help && !opts->version)
		rc = check_cacert(&ps);
	if (rc == 0 && !opts->help && !opts->version &&
	    ps.cmd != CLI_CMD_HELP && ps.cmd != CLI_CMD_VERSION)
		rc = cli_args_validate(opts, msg, msglen);
	return rc;
}

void cli_args_clear(app_request *opts)
{
	if (!opts)
		return;
	free(opts->box_root);
	opts->box_root = NULL;
	for (size_t i = 0; i < opts->nowned; i++)
		free(opts->owned[i]);
	opts->nowned = 0;
	free(opts->pins_seen);
	opts->pins_seen = NULL;
	free(opts->box_seen);
	opts->box_seen = NULL;
}
