/*
 * The text a user reads: `pyrt --help` (a manual page), `pyrt <cmd> --help`
 * (one command's usage) and `pyrt --version`.  The exit code table comes
 * from exitcodes.c so the manual cannot disagree with the code.
 */
#include <archive.h>
#include <curl/curl.h>
#include <jansson.h>
#include <openssl/opensslv.h>
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/parse.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"
#include "core/util/error.h"

static const char manual_head[] =
	"NAME\n"
	"    pyrt - provision and check the managed CPython runtime\n"
	"\n"
	"SYNOPSIS\n"
	"    pyrt [OPTIONS] [COMMAND] [OPTIONS]\n"
	"\n"
	"DESCRIPTION\n"
	"    pyrt installs a pinned, checksum-verified CPython runtime into a box\n"
	"    root and answers, honestly, whether it is ready.  Options may come\n"
	"    before or after the command, as --opt=value or --opt value.\n"
	"\n"
	"COMMANDS\n"
	"    (none)      on a terminal: the dashboard (runtime card, plugin matrix,\n"
	"                doctor, smoke, logs; ? lists the keys), or the install\n"
	"                wizard when nothing is provisioned; without a terminal,\n"
	"                TERM=dumb or --json: same as status\n"
	"    install     ask for consent, download, verify, extract, check and\n"
	"                activate the pinned runtime, then install the baseline\n"
	"    baseline    (re)install the doc-library baseline with the runtime's\n"
	"                own pip; a rerun installs only what is missing\n"
	"    status      state of the runtime; exit 0 only when ready\n"
	"    verify      re-check the installed tree against its install manifest\n"
	"    doctor      every check with a verdict and a fix; exit 0 only when\n"
	"                none failed (--bundle FILE writes a support bundle)\n"
	"    smoke       make a real .docx with the managed runtime and check it\n"
	"    plugins     per-plugin readiness matrix with the fix for each; exit 0\n"
	"                only when every enabled plugin is ready or needs no runtime\n"
	"    plugins install NAME\n"
	"                install that plugin's requires_pip into the runtime\n"
	"    serve       the HTTP API (GET status, plugins, doctor; POST install\n"
	"                jobs with SSE progress) on a Unix socket in the box or\n"
	"                loopback TCP with a bearer token (docs/api.yaml)\n"
	"    mirror DIR  fetch the pinned archives (verified) and the baseline's\n"
	"                wheels into DIR, for a static web server to serve to\n"
	"                install --mirror URL --wheelhouse DIR/wheels;\n"
	"                mirror --verify DIR re-checks DIR against its index\n"
	"                and the wheels against the pins' wheel lock\n"
	"    lock        write the pins with a wheel lock for a wheelhouse you\n"
	"                trust: baselines then install exactly those files\n"
	"    rollback    make the previous install active again\n"
	"    uninstall   remove the managed runtime (asks for consent)\n"
	"    env         the environment variables pyrt reads, redacted\n"
	"    completions SHELL\n"
	"                the completion for bash, zsh or fish, from pyrt's own\n"
	"                command and option tables (the .deb installs all three)\n"
	"    help [CMD]  this manual, or the usage of one command\n"
	"    version     print pyrt's version and the pinned runtime\n"
	"\n"
	"OPTIONS (every command, before or after it)\n"
	"    --box-root DIR   where the runtime lives (env PYRT_BOX_ROOT; default\n"
	"                     $XDG_DATA_HOME/pyrt, else ~/.local/share/pyrt)\n"
	"    --pins FILE      pinned runtime table (env PYRT_PINS; default: the table\n"
	"                     compiled into pyrt); it, --requirements, --wheelhouse\n"
	"                     and the folders and links on their way must be yours\n"
	"                     or root's and writable by no one else (exit 14)\n"
	"    --cacert FILE    CA bundle for downloads, an HTTPS proxy and pip (--cert)\n"
	"                     (else CURL_CA_BUNDLE, else SSL_CERT_FILE).  It replaces\n"
	"                     the system CAs: to trust a private CA besides them,\n"
	"                     pass the system bundle with it appended.  An\n"
	"                     unreadable FILE is a usage error\n"
	"    --json           machine output: one object for status, verify,\n"
	"                     doctor, smoke and plugins; NDJSON events for\n"
	"                     install, plugins install, baseline,\n"
	"                     rollback, uninstall\n"
	"    -y, --yes        consent given (for scripts and headless machines)\n"
	"    --no-color       no colours (NO_COLOR is honoured too)\n"
	"    --theme NAME     colour theme for the terminal UI (env PYRT_THEME)\n"
	"    -v, --verbose    also show debug lines: each download attempt's URL\n"
	"                     (credentials and query values hidden), HTTP\n"
	"                     status, proxy and time\n"
	"    -q, --quiet      only errors and the one-line result (status: its\n"
	"                     first line; doctor: the failed checks and the tally;\n"
	"                     plugins: the plugins that need a fix and a tally;\n"
	"                     verify: the result, naming the first difference)\n"
	"    -h, --help       -h: the commands in short, --help: this manual;\n"
	"                     after a command, that command's usage\n"
	"    -V, --version    pyrt's version and commit, the platform, the pins in\n"
	"                     use (--pins honoured) and the library versions;\n"
	"                     with --json one object\n"
	"    Paths may start with ~ (HOME); pyrt shows them absolute and resolved.\n"
	"    Every path, URL and combination is checked before anything is\n"
	"    written: a usage error (exit 2) leaves no box, lock or log behind.\n"
	"\n"
	"PIP AND ITS CONFIGURATION\n"
	"    pip runs as the runtime's own (-I, a private HOME) with\n"
	"    PIP_CONFIG_FILE=/dev/null: /etc/pip.conf and ~/.config/pip are NOT\n"
	"    read, so no user's or image's pip.conf decides what root installs\n"
	"    into a shared runtime.  State the index with --index-url URL (or\n"
	"    PYRT_INDEX_URL; pip's own PIP_INDEX_URL, PIP_TRUSTED_HOST and the\n"
	"    proxy variables pass through too) and a private CA with --cacert\n"
	"    FILE (pip gets it as --cert).  pip gives up on an unreachable index\n"
	"    after one retry (--retries 1 --timeout 15), and the requirements are\n"
	"    then not tried one by one: the message names the fixes.\n"
	"\n"
	"ENVIRONMENT\n"
	"    PYRT_BOX_ROOT    default for --box-root\n"
	"    PYRT_PINS        default for --pins\n"
	"    PYRT_THEME       default for --theme\n"
	"    PYRT_INDEX_URL   default for --index-url (a --wheelhouse or\n"
	"                     --no-baseline wins)\n"
	"    PYRT_MIRROR_URL  default for --mirror (a --from-file wins; not for\n"
	"                     mirror --verify).  Secrets in a URL belong in these\n"
	"                     two: every local user can read a command line\n"
	"    PYRT_WHEELHOUSE  default for --wheelhouse (install, baseline, plugins\n"
	"                     install, doctor; a --wheelhouse or --index-url\n"
	"                     wins).  An air-gapped box takes the runtime from\n"
	"                     PYRT_MIRROR_URL and its packages from\n"
	"                     PYRT_WHEELHOUSE; the box remembers the wheelhouse\n"
	"                     and doctor checks it instead of an index\n"
	"    PYRT_THEME_DIR   where --theme NAME looks first for NAME.yaml (then\n"
	"                     <prefix>/share/pyrt/themes next to the binary, then,\n"
	"                     in a build from source, the source tree)\n"
	"    CURL_CA_BUNDLE, SSL_CERT_FILE\n"
	"                     CA bundle for downloads when --cacert is not given\n"
	"                     (it replaces the system CAs, as --cacert does)\n"
	"    NO_COLOR         set and non-empty: no colours\n"
	"    XDG_DATA_HOME, HOME\n"
	"                     locate the default box root\n"
	"    TERM             \"dumb\" counts as no terminal\n"
	"\n"
	"FILES\n"
	"    <box>/runtime/python/current     the active install (a symlink that\n"
	"                                     always resolves to a complete one)\n"
	"    <box>/runtime/python/previous    the rollback target, if any\n"
	"    <box>/runtime/python/installs/<id>/\n"
	"                                     python/ (the tree), marker.json,\n"
	"                                     manifest.tsv\n"
	"    <box>/runtime/python/staging/    private extraction area\n"
	"    <box>/runtime/python/downloads/  partial downloads (resumed)\n"
	"    <box>/runtime/python/logs/       install logs and pip logs (0600)\n"
	"    <box>/runtime/python/pip-home/   pip's private HOME and TMPDIR (0700)\n"
	"    <box>/runtime/python/lock        one installer at a time\n"
	"    <box>/plugins/<name>/plugin.yaml plugin manifests\n"
	"\n"
	"EXIT CODES\n";

static const char manual_tail[] =
	"\n"
	"EXAMPLES\n"
	"    pyrt install --yes                 install headless, consent given\n"
	"    pyrt status --json                 state as one JSON object\n"
	"    pyrt install --yes --json | jq .   follow an install as NDJSON events\n"
	"    pyrt install --yes --from-file ./cpython-3.12.14.tar.gz\n"
	"                                       offline install of a copied archive\n"
	"    pyrt install --yes --mirror https://mirror.example/pbs\n"
	"                                       fetch from an internal mirror\n"
	"    pyrt baseline --wheelhouse /media/wheels\n"
	"                                       air-gapped baseline from a wheelhouse\n"
	"    pyrt mirror /srv/pyrt --wheelhouse-from /media/wheels\n"
	"                                       a verified mirror for a fleet\n"
	"    pyrt --box-root /opt/agent status  check another box root\n"
	"    pyrt verify && echo intact         re-check the installed files\n";

/* The option's left column: "-y, --yes" or "--out FILE". */
static void option_head(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "--%s", name);
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (strcmp(r.name, name) != 0)
			continue;
		if (r.short_name)
			snprintf(buf, len, "-%c, --%s", r.short_name, name);
		if (r.metavar)
			app_cat(buf, len, " %s", r.metavar);
		return;
	}
}

#define OPT_COLUMN_MAX 24 /* a wider head puts its help on the next line */
#define HELP_WIDTH 78

/* The help text wrapped at spaces to fit after column col. */
static void print_wrapped(const char *help, const char *indent, int col,
			  int first_col)
{
	int room = HELP_WIDTH - (int)strlen(indent) - col;
	if (room < 20)
		room = 20;
	int at = first_col;
	while (*help) {
		while (*help == ' ')
			help++;
		int n = (int)strlen(help);
		if (n > room) {
			n = room;
			while (n > 0 && help[n] != ' ')
				n--;
			if (n == 0)
				n = (int)strcspn(help, " ");
		}
		int shown = n;
		while (shown > 0 && help[shown - 1] == ' ')
			shown--;
		printf("%*s%.*s\n", col - at, "", shown, help);
		help += n;
		if (*help)
			printf("%s", indent);
		at = 0;
	}
}

void cli_help_options(const cli_command_entry *e, const char *indent)
{
	char head[96];
	int width = 0;
	for (const cli_opt_help *h = e->options; h && h->name; h++) {
		option_head(h->name, head, sizeof head);
		int w = (int)strlen(head);
		if (w <= OPT_COLUMN_MAX && w > width)
			width = w;
	}
	/* two spaces of margin, the heads, two spaces, the help */
	int col = 2 + width + 2;
	for (const cli_opt_help *h = e->options; h && h->name; h++) {
		option_head(h->name, head, sizeof head);
		int w = 2 + (int)strlen(head);
		printf("%s  %s", indent, head);
		if (w + 1 > col) {
			printf("\n%s", indent);
			w = 0;
		}
		print_wrapped(h->help, indent, col, w);
	}
}

/* Whether e takes options besides the global ones. */
static int has_own_options(const cli_command_entry *e)
{
	for (const cli_opt_help *h = e->options; h && h->name; h++)
		for (size_t i = 0; i < cli_opt_count(); i++) {
			cli_opt_row r;
			cli_opt_at(i, &r);
			if (strcmp(r.name, h->name) == 0 && !r.every_command)
				return 1;
		}
	return 0;
}

/* A command's option lines, as a manual section. */
static void manual_options(const cli_command_entry *e)
{
	char title[32];
	size_t n = 0;
	for (const char *p = e->name; *p && n + 1 < sizeof title; p++)
		title[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
	title[n] = '\0';
	printf("%s OPTIONS\n", title);
	cli_help_options(e, "  ");
	fputs("\n", stdout);
}

void cli_help_short(void)
{
	fputs("usage: pyrt [OPTIONS] [COMMAND] [OPTIONS]\n"
	      "On a terminal, pyrt alone opens the dashboard (or the install\n"
	      "wizard); otherwise it is `pyrt status`.\n\nCommands:\n", stdout);
	for (int c = 0; c < CLI_CMD__COUNT; c++)
		if (cli_commands[c].name && cli_commands[c].summary)
			printf("  %-10s %s\n", cli_commands[c].name,
			       cli_commands[c].summary);
	fputs("\npyrt COMMAND -h: that command's usage; pyrt --help: the manual.\n",
	      stdout);
}

void cli_help_manual(void)
{
	const char *env = strstr(manual_head, "ENVIRONMENT\n");
	fwrite(manual_head, 1, (size_t)(env - manual_head), stdout);
	/* Each command's options, printed from its row as its usage
	 * prints them. */
	for (int c = 1; c < CLI_CMD__COUNT; c++)
		if (has_own_options(&cli_commands[c]))
			manual_options(&cli_commands[c]);
	fputs(env, stdout);
	app_exit_table_print(stdout, "    ");
	fputs(manual_tail, stdout);
}

void cli_help_command(cli_command cmd)
{
	const cli_command_entry *e = cmd < CLI_CMD__COUNT ? &cli_commands[cmd]
							  : NULL;
	if (!e || !e->usage) {
		printf("usage: pyrt %s\nnot available in this build yet; see pyrt --help.\n",
		       cli_command_name(cmd));
		return;
	}
	fputs(e->usage, stdout);
	cli_help_options(e, "");
	if (e->usage_tail)
		fputs(e->usage_tail, stdout);
	fputs("Options of every command: see pyrt --help.\n", stdout);
}

/* The pinned runtime for this platform, as one phrase. */
static void version_runtime(const pyrt_pins *pins, const char *key, char *buf,
			    size_t len)
{
	if (!pins)
		snprintf(buf, len, "unknown (the pins could not be read)");
	else if (!key || !pyrt_pins_find(pins, key))
		snprintf(buf, len, "%s %s (build %s), not pinned for this platform",
			 pyrt_pins_implementation(pins), pyrt_pins_version(pins),
			 pyrt_pins_build(pins));
	else
		snprintf(buf, len, "%s %s (build %s)",
			 pyrt_pins_implementation(pins), pyrt_pins_version(pins),
			 pyrt_pins_build(pins));
}

typedef struct version_facts {
	const char *curl, *archive, *openssl, *curses, *platform, *pins;
	char runtime[256];
} version_facts;

static int version_json(const version_facts *v)
{
	json_t *obj = json_pack("{s:s, s:s, s:o, s:s, s:o, s:{s:s, s:s, s:s, s:s}}",
				"version", PYRT_VERSION, "commit", PYRT_COMMIT,
				"platform", v->platform ? app_text_json(v->platform)
							: json_null(),
				"pins", v->pins,
				"runtime", app_text_json(v->runtime),
				"libraries", "libcurl", v->curl,
				"libarchive", v->archive, "openssl", v->openssl,
				"curses", v->curses);
	if (!obj)
		return PYRT_E_NOMEM;
	int rc = json_dumpf(obj, stdout, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS);
	fputc('\n', stdout);
	json_decref(obj);
	return rc == 0 ? 0 : PYRT_E_IO;
}

int cli_help_version(const app_request *opts, const char *curses)
{
	char msg[PYRT_ERROR_MSG_MAX + 512];
	version_facts v = { 0 };
	/* The versions built against: asking the libraries would load them
	 * and their ~37 dependencies, ~20 ms, into a command that only prints
	 * (they are dlopen()ed on first use, core/util/lazylib.h). */
	v.curl = LIBCURL_VERSION " (loaded when used)";
	v.archive = "libarchive " ARCHIVE_VERSION_ONLY_STRING " (loaded when used)";
	v.openssl = OPENSSL_VERSION_TEXT " (loaded when used)";
	v.curses = curses ? curses : "unknown";
	pyrt_platform platform;
	if (app_detect_platform(&platform, msg, sizeof msg) == 0)
		v.platform = platform.key;
	pyrt_pins *pins = NULL;
	int rc = app_load_pins(opts, &pins, msg, sizeof msg);
	v.pins = opts->pins_path ? opts->pins_path : "builtin";
	version_runtime(rc == 0 ? pins : NULL, v.platform, v.runtime,
			sizeof v.runtime);
	int status = 0;
	if (opts->json) {
		int w = version_json(&v);
		status = w ? app_exit_code(w) : 0;
	} else {
		printf("pyrt %s (commit %s)\n", PYRT_VERSION, PYRT_COMMIT);
		app_text_printf(stdout, "  %-12s %s\n", "platform:",
				v.platform ? v.platform : "unknown");
		app_text_printf(stdout, "  %-12s %s%s%s%s\n", "pins:", v.pins,
				opts->pins_from ? " (from " : "",
				opts->pins_from ? opts->pins_from : "",
				opts->pins_from ? ")" : "");
		app_text_printf(stdout, "  %-12s %s\n", "runtime:", v.runtime);
		printf("  %-12s %s\n", "libcurl:", v.curl);
		printf("  %-12s %s\n", "libarchive:", v.archive);
		printf("  %-12s %s\n", "OpenSSL:", v.openssl);
		printf("  %-12s %s\n", "curses:", v.curses);
	}
	if (rc < 0) {
		app_errorf("%s", msg);
		status = app_exit_code(rc);
	}
	pyrt_pins_free(pins);
	return status;
}
