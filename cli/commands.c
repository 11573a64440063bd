/*
 * Every command, declared once: its word, what it needs prepared, the
 * options it takes (the parser refuses others by name, and its usage prints
 * these lines), what runs it, the one line of `pyrt -h`, and its usage
 * (`pyrt help CMD`, `pyrt CMD --help`), whose option lines `pyrt --help`
 * also prints as the command's OPTIONS section.
 * The parser's words, the dispatch, -h and the help all read this table;
 * e2e_command_table checks that each usage names exactly what the parser
 * accepts.
 */
#include "cli/commands.h"

#include "app/common.h"
#include "app/exitcodes.h"
#include "cli/parse.h"
#include "serve/serve.h"
#include "tui/tui.h"

/* `pyrt` alone: the dashboard (or the install wizard) on a terminal;
 * without one, or when curses cannot start, the same answer as status.
 * Metrics are for a collector, never a screen. */
static int tui_default(const app_request *opts)
{
	return !opts->format && tui_wanted(opts)
		? tui_main(opts, TUI_START_AUTO) : -1;
}

/* `pyrt install` on a terminal without --yes is the TUI wizard (its
 * consent screen is the consent); --yes, --json or no terminal keep the
 * headless lines. */
static int tui_install(const app_request *opts)
{
	return !opts->yes && tui_wanted(opts)
		? tui_main(opts, TUI_START_INSTALL) : -1;
}

/* `pyrt help [CMD]`. */
static int run_help(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	if (opts->npositional == 0) {
		cli_help_manual();
		return 0;
	}
	cli_command cmd = cli_command_lookup(opts->positional[0]);
	if (cmd == CLI_CMD__COUNT) {
		const char *near = cli_command_suggest(opts->positional[0]);
		if (near)
			app_errorf("unknown command '%s'; did you mean '%s'? (see pyrt --help)",
				   opts->positional[0], near);
		else
			app_errorf("unknown command '%s'; see pyrt --help",
				   opts->positional[0]);
		return APP_EXIT_USAGE;
	}
	cli_help_command(cmd);
	return 0;
}

static int run_version(const cli_ctx *c)
{
	return cli_help_version(c->opts, tui_curses_version());
}

static int run_serve(const cli_ctx *c)
{
	return serve_main(c->opts);
}

/* The options each command's help shows; a command's own options are
 * the parser's too (cli/parse.c).  Shared help texts first. */
#define H_INDEX_URL "pip's package index (env PYRT_INDEX_URL)"
#define H_WHEELHOUSE "pip --no-index --find-links DIR"
#define H_NO_WAIT "exit 7 instead of waiting for an installer"
#define H_YES "consent given; required without a terminal"
#define H_EVENTS "NDJSON events on stdout"
#define H_ONE_JSON "one JSON object"

static const cli_opt_help none_opts[] = {
	{ "wheelhouse", H_WHEELHOUSE },
	{ "requirements", "baseline requirements instead of the pinned list" },
	{ "from-file", "install a local archive (still verified)" },
	{ "mirror", "fetch from URL/<build>/<file>" },
	{ "index-url", H_INDEX_URL },
	{ "no-baseline", "skip the baseline" },
	{ "no-wait", H_NO_WAIT },
	{ "force", "reinstall even when already active" },
	{ "deep", "also start the interpreter and check its version" },
	{ "format", "prometheus: the state as Prometheus metrics" },
	{ NULL, NULL },
};

const cli_command_entry cli_dry_run_entry = {
	.name = "dry-run",
	.needs = CLI_NEEDS_BOX | CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM,
	.refuse = cli_refuse_dry_run, .run = cli_cmd_dry_run,
};

const cli_command_entry cli_commands[CLI_CMD__COUNT] = {
	[CLI_CMD_NONE] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM,
		.name = NULL, .tui = tui_default, .check = cli_check_status,
		.run = cli_cmd_status,
		.options = none_opts,
		.usage =
		"usage: pyrt [--theme NAME] [--no-color] [--wheelhouse DIR] [--mirror URL]\n"
		"            [--from-file ARCHIVE] [--requirements FILE] [--index-url URL]\n"
		"            [--no-baseline] [--force] [--no-wait] [--deep] [OPTIONS]\n"
		"On a terminal (stdin and stdout, TERM not \"dumb\", no --json): the\n"
		"dashboard, or the install wizard when the runtime is not provisioned.\n"
		"The install options apply to the wizard and to the dashboard's baseline\n"
		"and plugin installs.  Themes: default, high-contrast, monochrome,\n"
		"solarized-dark (t cycles them); --no-color and NO_COLOR use attributes\n"
		"only.  Otherwise: same as `pyrt status`.\n"
	},
	[CLI_CMD_INSTALL] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_FRONT | CLI_NEEDS_SIGNALS |
			 CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM | CLI_DRY_RUN,
		.name = "install", .tui = tui_install,
		.refuse = cli_refuse_front, .run = cli_cmd_install,
		.summary = "download, verify and activate the pinned runtime, then the baseline",
		.options = (const cli_opt_help[]){
			{ "yes", H_YES },
			{ "from-file", "verify and install a local archive (offline); not with --mirror" },
			{ "mirror", "fetch from URL/<build>/<file> instead of upstream (env PYRT_MIRROR_URL); a ?query stays at the end.  Credentials and query values in URL are sent, never stored or shown" },
			{ "no-wait", "exit 7 instead of waiting for another installer" },
			{ "force", "reinstall even when the pinned runtime is active" },
			{ "wheelhouse", "baseline from DIR only (pip --no-index --find-links)" },
			{ "requirements", "baseline requirements instead of the pinned list: one PEP 508 requirement a line, no pip options, paths, URLs or \"name @ URL\"" },
			{ "index-url", "the package index pip uses (env PYRT_INDEX_URL); https, or http to loopback; pip gets it in its environment (PIP_INDEX_URL), never on its command line; credentials, and a token in its path, are never shown or logged" },
			{ "no-baseline", "skip the doc-library baseline (not with --requirements, --wheelhouse or --index-url)" },
			{ "dry-run", "say (with --json: one object) what would be downloaded (URL, pinned size), verified (SHA-256), installed (runtime; each requirement, its wheel and source), re-applied (plugins) and removed (installs pruned); write, fetch and ask nothing" },
			{ "json", H_EVENTS " (--dry-run: one object)" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt install [-y] [--from-file ARCHIVE | --mirror URL] [--no-wait]\n"
		"                    [--force] [--wheelhouse DIR] [--requirements FILE]\n"
		"                    [--index-url URL] [--no-baseline] [--dry-run] [--json]\n"
		"                    [OPTIONS]\n"
		"On a terminal without --yes (and without --json) this is the install\n"
		"wizard: a consent screen, live progress, then the result.  Otherwise:\n"
		"ask for consent (or take --yes), download the pinned archive, verify its\n"
		"SHA-256, extract it safely, check the interpreter and activate it\n"
		"atomically, then install the doc-library baseline with the runtime's own\n"
		"pip and list the plugins that are ready.  A failure leaves the previous\n"
		"runtime active; a failed baseline leaves the new runtime active (exit 10).\n"
		"Ctrl-C, SIGTERM and a hang-up (SIGHUP: the SSH connection dropped) cancel\n"
		"cleanly (exit 130).  For an install that outlives the session, run it\n"
		"under nohup, tmux or screen.\n",
		.usage_tail =
		"Progress goes to stderr, the one-line result of a success to stdout.\n"
	},
	[CLI_CMD_BASELINE] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_FRONT | CLI_NEEDS_SIGNALS |
			 CLI_NEEDS_PINS | CLI_DRY_RUN,
		.name = "baseline", .refuse = cli_refuse_front,
		.run = cli_cmd_baseline,
		.summary = "(re)install the doc-library baseline",
		.options = (const cli_opt_help[]){
			{ "requirements", "install FILE instead of the pinned list" },
			{ "wheelhouse", "install from DIR only (pip --no-index --find-links)" },
			{ "index-url", H_INDEX_URL },
			{ "no-wait", H_NO_WAIT },
			{ "dry-run", "say what would be installed; change nothing" },
			{ "json", H_EVENTS " (--dry-run: one object)" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt baseline [--requirements FILE] [--wheelhouse DIR]\n"
		"                     [--index-url URL] [--no-wait] [--dry-run] [--json]\n"
		"                     [OPTIONS]\n"
		"(Re)install the doc-library baseline (the pinned list, or FILE) into the\n"
		"active runtime with its own pip: -I, a scrubbed environment, a private\n"
		"HOME, no pip.conf, a hard timeout.  When pip refuses the batch, each\n"
		"requirement is tried alone so what can be installed is (not when pip\n"
		"could not reach its index: that fails the same way for each).  The marker records complete,\n"
		"partial (what is missing and why) or none; `pyrt status` shows it.  pip's\n"
		"full output goes to <box>/runtime/python/logs/pip-*.log.  Exit 0 when\n"
		"complete, 10 when not, 1 when no runtime is installed.\n"
	},
	[CLI_CMD_STATUS] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM,
		.name = "status", .check = cli_check_status,
		.run = cli_cmd_status,
		.summary = "the state of the runtime; exit 0 only when ready",
		.options = (const cli_opt_help[]){
			{ "deep", "also start the interpreter and check its version" },
			{ "json", H_ONE_JSON },
			{ "format", "prometheus: the state as Prometheus metrics (node_exporter's textfile collector reads them)" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt status [--deep] [--json | --format prometheus] [OPTIONS]\n"
		"The state of the runtime: ready, not_provisioned, broken, unsupported,\n"
		"installing or untrusted (the box is someone else's or writable by\n"
		"others), with one sentence that says what to do.  Exit 0 only when\n"
		"ready, 14 when untrusted, 1 otherwise.  An upgrade running over a ready\n"
		"runtime leaves it ready (upgrade_in_progress, installer_pid);\n"
		"installing means no usable runtime until the install finishes.\n"
		"Pins that want another build leave it ready too (update_available).\n"
	},
	[CLI_CMD_VERIFY] = {
		.needs = CLI_NEEDS_BOX,
		.name = "verify", .run = cli_cmd_verify,
		.summary = "re-check the installed tree against its manifest",
		.options = (const cli_opt_help[]){
			{ "json", H_ONE_JSON ": ok, message, entries, problems" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt verify [--json] [OPTIONS]\n"
		"Re-check every file of the active install against the manifest written\n"
		"at install time (type, mode, size, SHA-256, link target).  Bytecode\n"
		"caches (__pycache__/, *.pyc), which CPython and pip rewrite, and what\n"
		"pip added later are not part of the check, except start-up files:\n"
		"a sitecustomize, usercustomize or .pth on the search path that\n"
		"neither the manifest nor an installed distribution's RECORD lists\n"
		"runs at every interpreter start and is a finding.  Prints one line\n"
		"per difference; exit 0 when none, 1 otherwise.\n"
	},
	[CLI_CMD_DOCTOR] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM |
			 CLI_NEEDS_LINES | CLI_NEEDS_SIGNALS,
		.name = "doctor", .check = cli_check_doctor,
		.refuse = cli_refuse_named, .run = cli_cmd_doctor,
		.summary = "every check with a verdict and a fix",
		.options = (const cli_opt_help[]){
			{ "json", H_ONE_JSON ": ok and the checks" },
			{ "bundle", "also write a support bundle (tar.gz, 0600, one folder pyrt-bundle/): the checks, the marker, the last install log, platform facts; URL credentials and query values, tokens and passwords redacted.  FILE \"-\": to stdout (the table goes to stderr)" },
			{ "mirror", "try the archive's host under this mirror (env PYRT_MIRROR_URL)" },
			{ "index-url", "try this index (env PYRT_INDEX_URL; else the box's declared index, PIP_INDEX_URL, else PyPI)" },
			{ "wheelhouse", "check this wheelhouse instead of an index: it exists, passes the gate and holds the baseline's wheels (env PYRT_WHEELHOUSE; else the box's declared one: an air-gapped box needs no index).  Without it (or --index-url) doctor checks the source the box was installed from" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt doctor [--json] [--bundle FILE] [--mirror URL]\n"
		"                   [--wheelhouse DIR | --index-url URL] [OPTIONS]\n"
		"Run every check (platform, pins, box root, lock, runtime, marker vs\n"
		"files, interpreter, EXTERNALLY-MANAGED, baseline, each plugin, free disk,\n"
		"CA bundle, proxy variables, stale staging, and the network: the pinned\n"
		"archive's host and pip's index, each reached through the proxy in use\n"
		"with DNS, TCP and TLS verified with the CA in use, 5 s at most, no\n"
		"request sent; PYRT_DOCTOR_OFFLINE=1 leaves these out) and print each\n"
		"verdict with its fix.  The interpreter must start and import ssl and the\n"
		"installed baseline's modules; the baseline check reads the installed\n"
		"packages, not only the marker.  Exit 0 only when no check failed, 1\n"
		"otherwise.\n"
	},
	[CLI_CMD_SMOKE] = {
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_LINES | CLI_NEEDS_SIGNALS |
			 CLI_NEEDS_PINS,
		.name = "smoke", .run = cli_cmd_smoke,
		.summary = "make a real .docx with the runtime and check it",
		.options = (const cli_opt_help[]){
			{ "out", "keep the checked document as FILE" },
			{ "json", H_ONE_JSON },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt smoke [--out FILE] [--json] [OPTIONS]\n"
		"Make the managed interpreter write a .docx with python-docx in a private\n"
		"workspace, then check that word/document.xml holds the paragraph.\n"
	},
	[CLI_CMD_PLUGINS] = {
		.max_args = 2,
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_SIGNALS | CLI_NEEDS_PINS |
			 CLI_NEEDS_PLATFORM | CLI_DRY_RUN,
		.name = "plugins", .check = cli_check_plugins,
		.run = cli_cmd_plugins,
		.summary = "the plugin readiness matrix; plugins install NAME",
		.options = (const cli_opt_help[]){
			{ "json", H_ONE_JSON " (install: NDJSON events)" },
			{ "wheelhouse", "plugins install: from DIR only (pip --no-index --find-links)" },
			{ "index-url", "plugins install: " H_INDEX_URL },
			{ "dry-run", "plugins install: say what would be installed; change nothing" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt plugins [--json] [OPTIONS]\n"
		"       pyrt plugins install NAME [--wheelhouse DIR | --index-url URL]\n"
		"                                 [--dry-run] [--json] [OPTIONS]\n"
		"The readiness matrix of <box>/plugins/*/plugin.yaml: for each plugin\n"
		"whether it is enabled, needs the managed runtime (requires_tools has\n"
		"execute_code), which requires_pip are installed, missing or outside their\n"
		"specifier, a verdict (ready, needs_runtime, missing_deps, disabled,\n"
		"no_runtime_needed, invalid) and the exact fix.  All requirements are\n"
		"checked by one run of the managed interpreter.  Exit 0 when every\n"
		"enabled plugin is ready or needs no runtime, 1 otherwise.\n"
		"`install NAME` installs that plugin's requires_pip with the runtime's\n"
		"own pip, then prints its new verdict (exit 0 when ready, 15 when pip\n"
		"could not install its requirements).  An unknown or invalid plugin is a\n"
		"usage error (2).\n"
	},
	[CLI_CMD_SERVE] = {
		.needs = CLI_NEEDS_BOX,
		.name = "serve", .run = run_serve,
		.summary = "the HTTP API on a Unix socket or loopback TCP",
		.options = (const cli_opt_help[]){
			{ "listen", "unix:PATH, 127.0.0.1:PORT or [::1]:PORT" },
			{ "token-file", "the bearer token (default <box>/runtime/python/api.token, 0600)" },
			{ "mirror", "where the jobs fetch the runtime, as for install: the server's choice, never a request's" },
			{ "wheelhouse", "where the jobs' pip gets wheels, as for install" },
			{ "index-url", "the jobs' package index, as for install (and PYRT_INDEX_URL)" },
			{ "requirements", "the jobs' baseline, as for install; a request naming any of these four is 400" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt serve [--listen unix:PATH | 127.0.0.1:PORT | [::1]:PORT]\n"
		"                  [--token-file FILE] [--mirror URL]\n"
		"                  [--wheelhouse DIR | --index-url URL]\n"
		"                  [--requirements FILE] [OPTIONS]\n"
		"Serve the runtime API (docs/api.yaml) in the foreground, logging to\n"
		"stderr, until SIGTERM or Ctrl-C (a running install job is cancelled\n"
		"and leaves the previous state).  The default listener is the Unix\n"
		"socket <box>/runtime/python/api.sock (0600, in a folder only you\n"
		"can write; a path over 107 bytes is still made there, and clients\n"
		"reach it through a shorter symlink, as the start-up log says).  TCP\n"
		"is refused on anything but a loopback address and always needs\n"
		"\"Authorization: Bearer <token>\"; the token is made at first start.\n"
		"A socket passed by systemd (LISTEN_FDS) is used instead of --listen.\n",
		.usage_tail =
		"A connection that has not sent a request passing the Host, Origin and\n"
		"token checks is closed 10 s after it opened; at most 64 are kept once\n"
		"2 s old, of 512 connections.\n"
		"Endpoints: GET /api/health, /api/runtime/python[?deep=1],\n"
		"/api/plugins, /api/doctor, /api/jobs/ID, /api/jobs/ID/events (SSE);\n"
		"POST /api/runtime/python/install {\"consent\": true},\n"
		"/api/runtime/python/baseline, /api/plugins/NAME/install;\n"
		"DELETE /api/jobs/ID cancels.\n"
	},
	[CLI_CMD_MIRROR] = {
		.max_args = 1, .needs = CLI_NEEDS_PINS,
		.name = "mirror", .refuse = cli_refuse_mirror,
		.run = cli_cmd_mirror,
		.summary = "fetch the pinned archives and wheels into DIR",
		.options = (const cli_opt_help[]){
			{ "platform", "only this pinned platform (repeatable); default: every pinned archive" },
			{ "wheelhouse-from", "also copy the wheels the baseline needs (following their Requires-Dist) from the local wheelhouse DIR into <mirror>/wheels" },
			{ "mirror", "fetch from URL/<build>/<file> (another mirror) instead of the pinned URLs (env PYRT_MIRROR_URL)" },
			{ "verify", "re-hash DIR against its index, and its wheels against the pins' wheel lock when they carry one (an index edited along with a wheel does not hide it): exit 0 when all match, 5 naming each file that differs, 1 when DIR has no index" },
			{ "json", H_ONE_JSON },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt mirror DIR [--platform KEY]... [--wheelhouse-from DIR]\n"
		"                   [--mirror URL] [--json] [OPTIONS]\n"
		"       pyrt mirror --verify DIR [--json] [OPTIONS]\n"
		"Fetch every pinned archive (or those of --platform KEY) with the same\n"
		"verified download as install (TLS, caps, resume, retries, SHA-256 and\n"
		"size against the pins) into DIR/<build>/<file>, and with\n"
		"--wheelhouse-from the wheels the baseline needs into DIR/wheels; write\n"
		"the index DIR/pyrt-mirror.json (platform: file, sha256, size; each\n"
		"wheel's sha256 and size).  Files get their name only complete and\n"
		"verified (a hidden .<name>.partial, fsync, rename); a file already\n"
		"there and matching is kept.  Serve DIR with any static web server and\n"
		"install with --mirror https://HOST/ --wheelhouse DIR/wheels.  An\n"
		"unknown --platform is refused (exit 2) before anything is written.\n"
		"DIR must be yours or root's (exit 14 otherwise); runs on one DIR take\n"
		"turns; the index is written last, so an interrupted or failed run\n"
		"leaves none and --verify refuses it (exit 1).\n"
	},
	[CLI_CMD_LOCK] = {
		.name = "lock", .needs = CLI_NEEDS_PINS,
		.check = cli_check_lock, .refuse = cli_refuse_named,
		.run = cli_cmd_lock,
		.summary = "write the pins with a wheel lock for a wheelhouse",
		.options = (const cli_opt_help[]){
			{ "wheelhouse", "the wheels to lock (required)" },
			{ "platform", "lock for this platform key (repeatable)" },
			{ "out", "write the pins there (atomically, 0600); default stdout" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt lock --wheelhouse DIR [--platform KEY]... [--out FILE]\n"
		"Hash every wheel of DIR that fits the platform (this machine's, or each\n"
		"--platform KEY; tag \"any\" fits all) and write the pins in use with a\n"
		"wheels: lock of their file names, SHA-256 and sizes: a pins file to\n"
		"review and distribute, like pip-compile --generate-hashes.  With it\n"
		"(--pins FILE), install, baseline and plugins install take exactly the\n"
		"locked files: each wheel is copied while hashed into a private 0700\n"
		"folder in the box and installed from that copy; a wheel not in the lock\n"
		"or with another digest or size is refused before any installer opens it\n"
		"(exit 5); pip gets --require-hashes.  Lock only a wheelhouse you trust.\n"
	},
	[CLI_CMD_ROLLBACK] = {
		.max_args = APP_MAX_POSITIONAL,
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_PINS | CLI_NEEDS_PLATFORM |
			 CLI_NEEDS_FRONT | CLI_NEEDS_SIGNALS,
		.name = "rollback", .run = cli_cmd_rollback,
		.summary = "make the previous install active again",
		.options = (const cli_opt_help[]){
			{ "force", "switch to the previous install even when it is broken" },
			{ "no-wait", H_NO_WAIT },
			{ "json", H_EVENTS },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt rollback [--force] [--no-wait] [--json] [OPTIONS]\n"
		"Make the previous install active again (the current one becomes the\n"
		"rollback target).  The target must first pass the checks status\n"
		"runs (marker, manifest, interpreter, platform): a broken one is\n"
		"refused, exit 1, naming what is broken; the active runtime is kept.\n"
	},
	[CLI_CMD_UNINSTALL] = {
		.max_args = APP_MAX_POSITIONAL,
		.needs = CLI_NEEDS_BOX | CLI_NEEDS_FRONT | CLI_NEEDS_SIGNALS,
		.name = "uninstall", .run = cli_cmd_uninstall,
		.summary = "remove the managed runtime (asks for consent)",
		.options = (const cli_opt_help[]){
			{ "yes", H_YES },
			{ "no-wait", H_NO_WAIT },
			{ "json", H_EVENTS },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt uninstall [-y] [--no-wait] [--json] [OPTIONS]\n"
		"Remove the managed runtime, its rollback target and downloads.  Asks for\n"
		"consent on a terminal; needs --yes otherwise.  With nothing installed it\n"
		"says so and exits 0.\n"
	},
	[CLI_CMD_COMPLETIONS] = {
		.max_args = 1,
		.name = "completions", .run = cli_cmd_completions,
		.summary = "the shell completion for bash, zsh or fish",
		.usage =
		"usage: pyrt completions bash|zsh|fish\n"
		"Print the completion script for the shell, made from pyrt's own\n"
		"command and option tables: commands, each command's options, files\n"
		"and folders for the options that take them, theme and plugin names.\n",
		.usage_tail =
		"  pyrt completions bash >~/.local/share/bash-completion/completions/pyrt\n"
		"  pyrt completions zsh >\"${fpath[1]}/_pyrt\"\n"
		"  pyrt completions fish >~/.config/fish/completions/pyrt.fish\n"
		"The .deb installs all three.\n"
	},
	[CLI_CMD_ENV] = {
		.name = "env", .run = cli_cmd_env,
		.summary = "the environment variables pyrt reads, redacted",
		.options = (const cli_opt_help[]){
			{ "json", H_ONE_JSON ": variables, each name, set, value, for" },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt env [--json]\n"
		"Every environment variable pyrt (and the libcurl and pip it runs)\n"
		"reads, with its value in this environment or \"unset\", and what it\n"
		"is for.  Values pass the same redaction as logs and support bundles:\n"
		"a URL's userinfo and query values, and an index or mirror URL's path\n"
		"(hosted indexes put a token there) show as ***.\n"
	},
	[CLI_CMD_HELP] = {
		.max_args = 1,
		.name = "help", .run = run_help,
		.summary = "the manual, or the usage of one command",
		.usage =
		"usage: pyrt help [COMMAND]   (also: pyrt COMMAND --help)\n"
		"The manual, or the usage of one command.\n"
	},
	[CLI_CMD_VERSION] = {
		.max_args = APP_MAX_POSITIONAL,
		.name = "version", .run = run_version,
		.summary = "pyrt's version and the pinned runtime",
		.options = (const cli_opt_help[]){
			{ "json", H_ONE_JSON },
			{ NULL, NULL },
		},
		.usage =
		"usage: pyrt version [--json] [--pins FILE]   (also: pyrt --version)\n"
		"pyrt's version and commit, this platform's key, the pins in use and the\n"
		"runtime they select, and the libcurl, libarchive, OpenSSL and curses\n"
		"versions.  Exit 11 when the named pins cannot be read.\n"
	},
};
