/*
 * The commands.  cli_commands (cli/commands.c) declares each one once: its
 * word, what it needs prepared (git's RUN_SETUP flags), its options (the
 * parser's and the usage's one list), its handler, its -h line and its
 * usage.  cli/main.c prepares what a row needs (cli_run) and hands the
 * handler a cli_ctx; the handler returns the process exit status (see
 * app/exitcodes.h).  A new command is one row here and one handler file.
 */
#ifndef PYRT_CLI_COMMANDS_H
#define PYRT_CLI_COMMANDS_H

#include "app/args.h"
#include "app/front.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"

/* The CLI's commands: the table's index.  app/ never sees it (it speaks
 * of the command's word, app_request.command_word). */
typedef enum cli_command {
	/* in the manual's order, which `pyrt -h` lists them in */
	CLI_CMD_NONE = 0, /* no command given: the TUI, or status */
	CLI_CMD_INSTALL,
	CLI_CMD_BASELINE,
	CLI_CMD_STATUS,
	CLI_CMD_VERIFY,
	CLI_CMD_DOCTOR,
	CLI_CMD_SMOKE,
	CLI_CMD_PLUGINS,
	CLI_CMD_SERVE,
	CLI_CMD_MIRROR,
	CLI_CMD_LOCK,
	CLI_CMD_ROLLBACK,
	CLI_CMD_UNINSTALL,
	CLI_CMD_COMPLETIONS,
	CLI_CMD_ENV,
	CLI_CMD_HELP,
	CLI_CMD_VERSION,
	CLI_CMD__COUNT
} cli_command;

/* What a command needs prepared before it runs (git's RUN_SETUP). */
#define CLI_NEEDS_BOX      0x01u /* a box root: the XDG default when none */
#define CLI_NEEDS_PINS     0x02u /* ctx->pins: --pins, PYRT_PINS or builtin */
#define CLI_NEEDS_PLATFORM 0x04u /* ctx->platform: this machine's key */
#define CLI_NEEDS_FRONT    0x08u /* ctx->front: NDJSON with --json, else lines */
#define CLI_NEEDS_LINES    0x10u /* ctx->front: lines; none with --json */
#define CLI_NEEDS_SIGNALS  0x20u /* SIGINT/TERM/HUP set ctx's cancel flag */
#define CLI_DRY_RUN        0x40u /* --dry-run: the plan (cmd_dryrun.c) runs
				  * instead, with its own needs */

/** What cli/main.c prepared for a handler; freed after it returns. */
typedef struct cli_ctx {
	const app_request *opts;
	cli_command cmd;
	const char *name;         /* the command's word ("pyrt" for none) */
	pyrt_pins *pins;          /* CLI_NEEDS_PINS */
	pyrt_platform platform;   /* CLI_NEEDS_PLATFORM */
	app_front *front;         /* CLI_NEEDS_FRONT, CLI_NEEDS_LINES */
} cli_ctx;

/** One option a command takes, as its usage shows it: the long name (the
 * option table's row, cli/parse.c) and what it does for this command. */
typedef struct cli_opt_help {
	const char *name;     /* without "--" */
	const char *help;
} cli_opt_help;

typedef struct cli_command_entry {
	const char *name;     /* the word; NULL for `pyrt` alone */
	unsigned needs;       /* CLI_NEEDS_*, CLI_DRY_RUN */
	int max_args;         /* words after the command it takes (more: a
			       * usage error naming the first extra one) */
	/* The options it takes besides the global ones (which it may list
	 * too, to say what they do for it); { NULL } ends it.  The parser
	 * refuses any other option by name; the usage prints these lines. */
	const cli_opt_help *options;
	/* The front chosen before anything is prepared: the TUI.  Returns
	 * its exit status, or -1 to run the headless command. */
	int (*tui)(const app_request *opts);
	/* Checks of the request made before anything is prepared; 0 or the
	 * exit status (already reported). */
	int (*check)(const app_request *opts);
	/* Reports a failure to prepare (code, msg); NULL: msg on stderr.
	 * Returns the exit status. */
	int (*refuse)(const cli_ctx *c, int code, const char *msg);
	int (*run)(const cli_ctx *c);
	const char *summary;  /* its line in `pyrt -h`; NULL: not listed */
	/* `pyrt help NAME`: the synopsis and what it does; the option lines
	 * are printed from options after it, then tail if any */
	const char *usage;
	const char *usage_tail;
} cli_command_entry;

/** Indexed by cli_command. */
extern const cli_command_entry cli_commands[CLI_CMD__COUNT];
/** install, baseline, plugins install with --dry-run (cmd_dryrun.c). */
extern const cli_command_entry cli_dry_run_entry;

/** Check, prepare what cmd's row needs, run its handler, free: the exit
 * status (cli/main.c). */
int cli_run(cli_command cmd, const app_request *opts);

/** The request's command (its word looked up; CLI_CMD_NONE without). */
cli_command cli_command_of(const app_request *opts);

/** Refusals for a row's refuse: "NAME: msg" on stderr; through the front
 * (the --json result line too), with the fix rendered for the request. */
int cli_refuse_named(const cli_ctx *c, int code, const char *msg);
int cli_refuse_front(const cli_ctx *c, int code, const char *msg);

int cli_cmd_install(const cli_ctx *c);
int cli_cmd_rollback(const cli_ctx *c);
int cli_cmd_uninstall(const cli_ctx *c);
int cli_cmd_status(const cli_ctx *c);
int cli_check_status(const app_request *opts);
int cli_cmd_verify(const cli_ctx *c);
int cli_cmd_smoke(const cli_ctx *c);
int cli_cmd_doctor(const cli_ctx *c);
int cli_check_doctor(const app_request *opts);
int cli_cmd_plugins(const cli_ctx *c);
int cli_check_plugins(const app_request *opts);
int cli_cmd_baseline(const cli_ctx *c);
int cli_cmd_mirror(const cli_ctx *c);
int cli_refuse_mirror(const cli_ctx *c, int code, const char *msg);
int cli_cmd_lock(const cli_ctx *c);
int cli_check_lock(const app_request *opts);
int cli_cmd_dry_run(const cli_ctx *c);
int cli_refuse_dry_run(const cli_ctx *c, int code, const char *msg);
/** `pyrt completions bash|zsh|fish`: the shell's completion, its words
 * from the command and option tables (cli/completions.c). */
int cli_cmd_completions(const cli_ctx *c);
/** `pyrt env [--json]`: the environment variables pyrt reads, redacted
 * (cli/cmd_env.c). */
int cli_cmd_env(const cli_ctx *c);

/** `pyrt --help`: the manual page. */
void cli_help_manual(void);
/** `pyrt -h`: the synopsis and one line a command. */
void cli_help_short(void);
/** `pyrt <cmd> --help`: that command's usage. */
void cli_help_command(cli_command cmd);
/** A command's option lines, printed from its row (indent: before each). */
void cli_help_options(const cli_command_entry *e, const char *indent);
/** `pyrt --version`, `pyrt version [--json]`: pyrt's version and commit,
 * the platform, the pins in use (--pins honoured) and the libraries; the
 * exit status (11 when the named pins cannot be read). */
int cli_help_version(const app_request *opts, const char *curses);

#endif
