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

#include "commands.h"
#include "common.h"
#include "error.h"
#include "exitcodes.h"
#include "parse.h"
#include "pins.h"
#include "platform.h"
#include "text.h"

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
	"    -h, --help       this manual; after a command, that command's usage\n"
	"    -V, --version    pyrt's version and commit, the platform, the pins in\n"
	"                     use (--pins honoured) and the library versions;\n"
	"                     with --json one object\n"
	"    Paths may start with ~ (HOME); pyrt shows them absolute and resolved.\n"
	"    Every path, URL and combination is checked before anything is\n"
	"    written: a usage error (exit 2) leaves no box, lock or log behind.\n"
	"\n"
	"INSTALL OPTIONS\n"
	"    --from-file ARCHIVE  verify and install a local archive (offline)\n"
	"    --mirror URL         fetch from URL/<build>/<file> instead of upstream\n"
	"                         (env PYRT_MIRROR_URL); a ?query stays at the end.\n"
	"                         Credentials and query values in URL are sent,\n"
	"                         never stored or shown\n"
	"    --no-wait            fail (exit 7) if another installer holds the box\n"
	"    --force              reinstall even when the pinned runtime is active\n"
	"    --wheelhouse DIR     pip --no-index --find-links DIR for the baseline\n"
	"    --requirements FILE  baseline requirements instead of the pinned list:\n"
	"                         one PEP 508 requirement a line, no pip options,\n"
	"                         paths, URLs or \"name @ URL\"\n"
	"    --index-url URL      the package index pip uses (env PYRT_INDEX_URL);\n"
	"                         https, or http to loopback; pip gets it in its\n"
	"                         environment (PIP_INDEX_URL), never on its command\n"
	"                         line; credentials, and a token in its path, are\n"
	"                         never shown or logged\n"
	"    --no-baseline        skip the doc-library baseline (not with\n"
	"                         --requirements, --wheelhouse or --index-url)\n"
	"    --from-file and --mirror exclude each other.  The runtime stays\n"
	"    active when only the baseline fails (exit 10).  Progress goes to\n"
	"    stderr; the one-line result of a success to stdout.\n"
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
	"BASELINE OPTIONS\n"
	"    --wheelhouse DIR     pip --no-index --find-links DIR (air-gapped)\n"
	"    --requirements FILE  these requirements instead of the pinned list\n"
	"    --index-url URL      pip's package index (env PYRT_INDEX_URL)\n"
	"    --no-wait            fail (exit 7) if an installer holds the box\n"
	"\n"
	"STATUS OPTIONS\n"
	"    --deep           also start the interpreter and check its version\n"
	"\n"
	"DOCTOR OPTIONS\n"
	"    --bundle FILE    also write a support bundle (tar.gz, 0600, one\n"
	"                     folder pyrt-bundle/): the checks, the marker, the\n"
	"                     last install log, platform facts; URL credentials\n"
	"                     and query values, tokens and passwords redacted.\n"
	"                     FILE \"-\": to stdout (the table goes to stderr)\n"
	"\n"
	"SMOKE OPTIONS\n"
	"    --out FILE       keep the checked .docx as FILE\n"
	"\n"
	"MIRROR OPTIONS\n"
	"    --platform KEY         only this pinned platform (repeatable);\n"
	"                           default: every pinned archive\n"
	"    --wheelhouse-from DIR  also copy the wheels the baseline needs\n"
	"                           (following their Requires-Dist) from the\n"
	"                           local wheelhouse DIR into <mirror>/wheels\n"
	"    --mirror URL           fetch from URL/<build>/<file> (another\n"
	"                           mirror) instead of the pinned URLs (env\n"
	"                           PYRT_MIRROR_URL)\n"
	"    --verify               re-hash every file the index names; exit 5\n"
	"                           naming each that differs\n"
	"\n"
	"PLUGINS OPTIONS\n"
	"    --wheelhouse DIR pip --no-index --find-links DIR (plugins install)\n"
	"    --index-url URL  pip's package index (plugins install)\n"
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

void cli_help_manual(void)
{
	fputs(manual_head, stdout);
	cli_exit_table_print(stdout, "    ");
	fputs(manual_tail, stdout);
}

typedef struct command_usage {
	cli_command cmd;
	const char *text;
} command_usage;

static const command_usage usages[] = {
	{ CLI_CMD_NONE,
	  "usage: pyrt [--theme NAME] [--no-color] [--wheelhouse DIR] [--mirror URL]\n"
	  "            [--from-file ARCHIVE] [--requirements FILE] [--index-url URL]\n"
	  "            [--no-baseline] [--force] [--no-wait] [--deep] [OPTIONS]\n"
	  "On a terminal (stdin and stdout, TERM not \"dumb\", no --json): the\n"
	  "dashboard, or the install wizard when the runtime is not provisioned.\n"
	  "The install options apply to the wizard and to the dashboard's baseline\n"
	  "and plugin installs.  Themes: default, high-contrast, monochrome,\n"
	  "solarized-dark (t cycles them); --no-color and NO_COLOR use attributes\n"
	  "only.  Otherwise: same as `pyrt status`.\n" },
	{ CLI_CMD_INSTALL,
	  "usage: pyrt install [-y] [--from-file ARCHIVE | --mirror URL] [--no-wait]\n"
	  "                    [--force] [--wheelhouse DIR] [--requirements FILE]\n"
	  "                    [--index-url URL] [--no-baseline] [--json] [OPTIONS]\n"
	  "On a terminal without --yes (and without --json) this is the install\n"
	  "wizard: a consent screen, live progress, then the result.  Otherwise:\n"
	  "ask for consent (or take --yes), download the pinned archive, verify its\n"
	  "SHA-256, extract it safely, check the interpreter and activate it\n"
	  "atomically, then install the doc-library baseline with the runtime's own\n"
	  "pip and list the plugins that are ready.  A failure leaves the previous\n"
	  "runtime active; a failed baseline leaves the new runtime active (exit 10).\n"
	  "Ctrl-C, SIGTERM and a hang-up (SIGHUP: the SSH connection dropped) cancel\n"
	  "cleanly (exit 130).  For an install that outlives the session, run it\n"
	  "under nohup, tmux or screen.\n"
	  "  -y, --yes            consent given; required without a terminal\n"
	  "  --from-file ARCHIVE  install a local archive (still verified)\n"
	  "  --mirror URL         fetch from URL/<build>/<file>\n"
	  "  --no-wait            exit 7 instead of waiting for another installer\n"
	  "  --force              reinstall even when already active\n"
	  "  --wheelhouse DIR     baseline from DIR only (pip --no-index --find-links)\n"
	  "  --requirements FILE  baseline from FILE instead of the pinned list\n"
	  "  --index-url URL      pip's package index (env PYRT_INDEX_URL)\n"
	  "  --no-baseline        skip the baseline\n"
	  "  --json               NDJSON events on stdout\n"
	  "Progress goes to stderr, the one-line result of a success to stdout.\n" },
	{ CLI_CMD_BASELINE,
	  "usage: pyrt baseline [--requirements FILE] [--wheelhouse DIR]\n"
	  "                     [--index-url URL] [--no-wait] [--json] [OPTIONS]\n"
	  "(Re)install the doc-library baseline (the pinned list, or FILE) into the\n"
	  "active runtime with its own pip: -I, a scrubbed environment, a private\n"
	  "HOME, no pip.conf, a hard timeout.  When pip refuses the batch, each\n"
	  "requirement is tried alone so what can be installed is (not when pip\n"
	  "could not reach its index: that fails the same way for each).  The marker records complete,\n"
	  "partial (what is missing and why) or none; `pyrt status` shows it.  pip's\n"
	  "full output goes to <box>/runtime/python/logs/pip-*.log.  Exit 0 when\n"
	  "complete, 10 when not, 1 when no runtime is installed.\n"
	  "  --requirements FILE  install FILE instead of the pinned list\n"
	  "  --wheelhouse DIR     install from DIR only (pip --no-index --find-links)\n"
	  "  --index-url URL      pip's package index (env PYRT_INDEX_URL)\n"
	  "  --no-wait            exit 7 instead of waiting for an installer\n"
	  "  --json               NDJSON events on stdout\n" },
	{ CLI_CMD_STATUS,
	  "usage: pyrt status [--deep] [--json] [OPTIONS]\n"
	  "The state of the runtime: ready, not_provisioned, broken, unsupported,\n"
	  "installing or untrusted (the box is someone else's or writable by\n"
	  "others), with one sentence that says what to do.  Exit 0 only when\n"
	  "ready, 14 when untrusted, 1 otherwise.  An upgrade running over a ready\n"
	  "runtime leaves it ready (upgrade_in_progress, installer_pid);\n"
	  "installing means no usable runtime until the install finishes.\n"
	  "  --deep   also start the interpreter and check its version\n"
	  "  --json   one JSON object\n" },
	{ CLI_CMD_ROLLBACK,
	  "usage: pyrt rollback [--force] [--no-wait] [--json] [OPTIONS]\n"
	  "Make the previous install active again (the current one becomes the\n"
	  "rollback target).  The target must first pass the checks status\n"
	  "runs (marker, manifest, interpreter, platform): a broken one is\n"
	  "refused, exit 1, naming what is broken; the active runtime is kept.\n"
	  "  --force     switch to the previous install even when it is broken\n"
	  "  --no-wait   exit 7 instead of waiting for an installer\n"
	  "  --json      NDJSON events on stdout\n" },
	{ CLI_CMD_UNINSTALL,
	  "usage: pyrt uninstall [-y] [--no-wait] [--json] [OPTIONS]\n"
	  "Remove the managed runtime, its rollback target and downloads.  Asks for\n"
	  "consent on a terminal; needs --yes otherwise.  With nothing installed it\n"
	  "says so and exits 0.\n"
	  "  -y, --yes   consent given; required without a terminal\n"
	  "  --no-wait   exit 7 instead of waiting for an installer\n"
	  "  --json      NDJSON events on stdout\n" },
	{ CLI_CMD_VERIFY,
	  "usage: pyrt verify [--json] [OPTIONS]\n"
	  "Re-check every file of the active install against the manifest written\n"
	  "at install time (type, mode, size, SHA-256, link target).  Bytecode\n"
	  "caches (__pycache__/, *.pyc), which CPython and pip rewrite, and what\n"
	  "pip added later are not part of the check, except start-up files:\n"
	  "a sitecustomize, usercustomize or .pth on the search path that\n"
	  "neither the manifest nor an installed distribution's RECORD lists\n"
	  "runs at every interpreter start and is a finding.  Prints one line\n"
	  "per difference; exit 0 when none, 1 otherwise.\n" },
	{ CLI_CMD_DOCTOR,
	  "usage: pyrt doctor [--json] [--bundle FILE] [OPTIONS]\n"
	  "Run every check (platform, pins, box root, lock, runtime, marker vs\n"
	  "files, interpreter, EXTERNALLY-MANAGED, baseline, each plugin, free disk,\n"
	  "CA bundle, proxy variables, stale staging) and print each verdict with\n"
	  "its fix.  The interpreter must start and import ssl and the installed\n"
	  "baseline's modules; the baseline check reads the installed packages,\n"
	  "not only the marker.  Exit 0 only when no check failed, 1 otherwise.\n"
	  "  --json          one JSON object: ok and the checks\n"
	  "  --bundle FILE   also write a redacted support bundle (tar.gz, 0600);\n"
	  "                  FILE \"-\" writes it to stdout\n" },
	{ CLI_CMD_SERVE,
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
	  "A socket passed by systemd (LISTEN_FDS) is used instead of --listen.\n"
	  "  --listen ADDR      unix:PATH, 127.0.0.1:PORT or [::1]:PORT\n"
	  "  --token-file FILE  the bearer token (default\n"
	  "                     <box>/runtime/python/api.token, 0600)\n"
	  "  --mirror URL, --wheelhouse DIR, --index-url URL, --requirements FILE\n"
	  "                     where the jobs get code, as for install (and\n"
	  "                     --cacert, PYRT_INDEX_URL): the server's choice,\n"
	  "                     never a request's; a request naming one is 400\n"
	  "A connection that has not sent a request passing the Host, Origin and\n"
	  "token checks is closed 10 s after it opened; at most 64 are kept once\n"
	  "2 s old, of 512 connections.\n"
	  "Endpoints: GET /api/health, /api/runtime/python[?deep=1],\n"
	  "/api/plugins, /api/doctor, /api/jobs/ID, /api/jobs/ID/events (SSE);\n"
	  "POST /api/runtime/python/install {\"consent\": true},\n"
	  "/api/runtime/python/baseline, /api/plugins/NAME/install;\n"
	  "DELETE /api/jobs/ID cancels.\n" },
	{ CLI_CMD_SMOKE,
	  "usage: pyrt smoke [--out FILE] [--json] [OPTIONS]\n"
	  "Make the managed interpreter write a .docx with python-docx in a private\n"
	  "workspace, then check that word/document.xml holds the paragraph.\n"
	  "  --out FILE   keep the checked document as FILE\n"
	  "  --json       one JSON object\n" },
	{ CLI_CMD_PLUGINS,
	  "usage: pyrt plugins [--json] [OPTIONS]\n"
	  "       pyrt plugins install NAME [--wheelhouse DIR | --index-url URL]\n"
	  "                                 [--json] [OPTIONS]\n"
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
	  "  --json            one JSON object (install: NDJSON events)\n"
	  "  --wheelhouse DIR  install from DIR only (pip --no-index --find-links)\n"
	  "  --index-url URL   pip's package index (env PYRT_INDEX_URL)\n" },
	{ CLI_CMD_MIRROR,
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
	  "  --platform KEY         only this platform (repeatable)\n"
	  "  --wheelhouse-from DIR  copy the baseline's wheels from DIR\n"
	  "  --mirror URL           fetch from another mirror\n"
	  "  --verify               re-hash DIR against its index, and its wheels\n"
	  "                         against the pins' wheel lock when they carry\n"
	  "                         one (an index edited along with a wheel does\n"
	  "                         not hide it): exit 0 when all match, 5 naming\n"
	  "                         each file that differs, 1 when DIR has no index\n"
	  "  --json                 one JSON object\n" },
	{ CLI_CMD_LOCK,
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
	  "  --wheelhouse DIR  the wheels to lock (required)\n"
	  "  --platform KEY    lock for this platform key (repeatable)\n"
	  "  --out FILE        write the pins there (atomically, 0600); default\n"
	  "                    stdout\n" },
	{ CLI_CMD_HELP,
	  "usage: pyrt help [COMMAND]   (also: pyrt COMMAND --help)\n"
	  "The manual, or the usage of one command.\n" },
	{ CLI_CMD_VERSION,
	  "usage: pyrt version [--json] [--pins FILE]   (also: pyrt --version)\n"
	  "pyrt's version and commit, this platform's key, the pins in use and the\n"
	  "runtime they select, and the libcurl, libarchive, OpenSSL and curses\n"
	  "versions.  Exit 11 when the named pins cannot be read.\n"
	  "  --json   one JSON object\n" },
};

void cli_help_command(cli_command cmd)
{
	for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++) {
		if (usages[i].cmd == cmd) {
			fputs(usages[i].text, stdout);
			fputs("Options of every command: see pyrt --help.\n",
			      stdout);
			return;
		}
	}
	printf("usage: pyrt %s\nnot available in this build yet; see pyrt --help.\n",
	       cli_command_name(cmd));
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

int cli_help_version(const cli_opts *opts, const char *curses)
{
	char msg[PYRT_ERROR_MSG_MAX + 512];
	version_facts v = { 0 };
	/* The versions built against: asking the libraries would load them
	 * and their ~37 dependencies, ~20 ms, into a command that only prints
	 * (they are dlopen()ed on first use, core/lazylib.h). */
	v.curl = LIBCURL_VERSION " (loaded when used)";
	v.archive = "libarchive " ARCHIVE_VERSION_ONLY_STRING " (loaded when used)";
	v.openssl = OPENSSL_VERSION_TEXT " (loaded when used)";
	v.curses = curses ? curses : "unknown";
	pyrt_platform platform;
	if (cli_detect_platform(&platform, msg, sizeof msg) == 0)
		v.platform = platform.key;
	pyrt_pins *pins = NULL;
	int rc = cli_load_pins(opts, &pins, msg, sizeof msg);
	v.pins = opts->pins_path ? opts->pins_path : "builtin";
	version_runtime(rc == 0 ? pins : NULL, v.platform, v.runtime,
			sizeof v.runtime);
	int status = 0;
	if (opts->json) {
		int w = version_json(&v);
		status = w ? cli_exit_code(w) : 0;
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
		cli_errorf("%s", msg);
		status = cli_exit_code(rc);
	}
	pyrt_pins_free(pins);
	return status;
}
