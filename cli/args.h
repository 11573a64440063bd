/*
 * The parsed command line: which command, and every option with where its
 * value came from (flag, environment or default).
 */
#ifndef PYRT_CLI_ARGS_H
#define PYRT_CLI_ARGS_H

#include <stddef.h>

typedef enum cli_command {
	CLI_CMD_NONE = 0, /* no command given: status for now (TUI later) */
	CLI_CMD_INSTALL,
	CLI_CMD_STATUS,
	CLI_CMD_ROLLBACK,
	CLI_CMD_UNINSTALL,
	CLI_CMD_VERIFY,
	CLI_CMD_HELP,
	CLI_CMD_VERSION,
	CLI_CMD_DOCTOR,
	CLI_CMD_PLUGINS,
	CLI_CMD_BASELINE,
	CLI_CMD_SMOKE,
	CLI_CMD__COUNT
} cli_command;

#define CLI_MAX_POSITIONAL 8

typedef struct cli_opts {
	cli_command command;
	const char *command_word;   /* as typed, for messages */
	const char *positional[CLI_MAX_POSITIONAL];
	size_t npositional;

	/* global */
	char *box_root;             /* absolute; malloc'd */
	const char *box_root_from;  /* "--box-root", "PYRT_BOX_ROOT", "default" */
	const char *pins_path;      /* NULL: builtin */
	const char *pins_from;
	const char *cacert;         /* NULL: system CAs */
	const char *cacert_from;
	int json;
	int yes;
	int no_color;
	const char *theme;
	int verbose;
	int quiet;
	int help;
	int version;

	/* install */
	const char *wheelhouse;
	const char *requirements;
	const char *from_file;
	const char *mirror;
	int no_baseline;
	int no_wait;
	int force;

	/* status */
	int deep;

	/* smoke */
	const char *out;            /* --out FILE: keep the .docx */

	/* doctor */
	const char *bundle;         /* --bundle FILE: support bundle */
} cli_opts;

/**
 * Parse argv (options before or after the command, "--opt=value" or
 * "--opt value") and fill in environment values and defaults.  Returns 0 or
 * PYRT_E_USAGE with a one-line message in msg; other negative pyrt codes when
 * a default could not be computed.  Free with cli_args_clear.
 */
int cli_args_parse(int argc, char **argv, cli_opts *opts, char *msg,
		   size_t msglen);

void cli_args_clear(cli_opts *opts);

/** The command's name ("install") or NULL for CLI_CMD_NONE. */
const char *cli_command_name(cli_command cmd);

/** Look up a command word; CLI_CMD__COUNT when unknown. */
cli_command cli_command_lookup(const char *word);

#endif
