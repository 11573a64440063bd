/*
 * The commands.  Each takes the parsed options and returns the process exit
 * status (see app/exitcodes.h); cli_commands (cli/commands.c) declares each one
 * once: its word, its handler, its -h line and its usage.
 */
#ifndef PYRT_CLI_COMMANDS_H
#define PYRT_CLI_COMMANDS_H

#include "app/args.h"

/* What a command needs prepared before it runs (git's RUN_SETUP). */
#define CLI_NEEDS_BOX 0x1u  /* a box root: the XDG default when none given */

typedef struct cli_command_entry {
	const char *name;     /* the word; NULL for `pyrt` alone */
	unsigned needs;       /* CLI_NEEDS_* */
	int max_args;         /* words after the command it takes (more: a
			       * usage error naming the first extra one) */
	int (*run)(const app_request *opts);
	const char *summary;  /* its line in `pyrt -h`; NULL: not listed */
	const char *usage;    /* `pyrt help NAME`: usage, what it does, options */
	/* `pyrt --help` prints its option lines as a NAME OPTIONS section
	 * (the manual has no hand-written one for it) */
	int manual_options;
} cli_command_entry;

/** Indexed by app_command. */
extern const cli_command_entry cli_commands[APP_CMD__COUNT];

int cli_cmd_install(const app_request *opts);
int cli_cmd_rollback(const app_request *opts);
int cli_cmd_uninstall(const app_request *opts);
int cli_cmd_status(const app_request *opts);
int cli_cmd_verify(const app_request *opts);
int cli_cmd_smoke(const app_request *opts);
int cli_cmd_doctor(const app_request *opts);
int cli_cmd_plugins(const app_request *opts);
int cli_cmd_baseline(const app_request *opts);
int cli_cmd_mirror(const app_request *opts);
int cli_cmd_lock(const app_request *opts);
/** install, baseline, plugins install with --dry-run (cmd_dryrun.c). */
int cli_cmd_dry_run(const app_request *opts);
/** `pyrt completions bash|zsh|fish`: the shell's completion, its words
 * from the command and option tables (cli/completions.c). */
int cli_cmd_completions(const app_request *opts);
/** `pyrt env [--json]`: the environment variables pyrt reads, redacted
 * (cli/cmd_env.c). */
int cli_cmd_env(const app_request *opts);

/** `pyrt --help`: the manual page. */
void cli_help_manual(void);
/** `pyrt -h`: the synopsis and one line a command. */
void cli_help_short(void);
/** `pyrt <cmd> --help`: that command's usage. */
void cli_help_command(app_command cmd);
/** `pyrt --version`, `pyrt version [--json]`: pyrt's version and commit,
 * the platform, the pins in use (--pins honoured) and the libraries; the
 * exit status (11 when the named pins cannot be read). */
int cli_help_version(const app_request *opts, const char *curses);

#endif
