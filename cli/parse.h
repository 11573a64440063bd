/*
 * The command line into app_request (app/args.h): options before or after the
 * command, values from flags, the environment or defaults.
 */
#ifndef PYRT_CLI_PARSE_H
#define PYRT_CLI_PARSE_H

#include <stddef.h>
#include <stdio.h>

#include "app/args.h"
#include "cli/commands.h"

/**
 * What pyrt does with the path an option names: the option table's column
 * that says which options pass the trust gate (core/util/trust.h).  A path
 * option must declare one; e2e_gate_table plants another user's and a
 * world-writable file for every gated one and expects exit 14.
 */
typedef enum cli_path_kind {
	CLI_PATH_UNDECLARED = 0, /* a value option that said nothing: a bug */
	CLI_PATH_NONE,       /* not a path (a URL, a name, a key) */
	CLI_PATH_GATED,      /* a file that decides what runs: the gate */
	CLI_PATH_GATED_DIR,  /* a folder every file of which is read: the
			      * gate on it and on each entry */
	CLI_PATH_BOX,        /* the box: core/runtime/box.c's own walk */
	CLI_PATH_HASHED,     /* copied while hashed against its pin */
	CLI_PATH_WRITTEN,    /* created by pyrt, never read */
	CLI_PATH_SOCKET,     /* unix:PATH: serve/listen.c's walk */
	CLI_PATH_SECRET,     /* serve's token: srv_token_load keeps it 0600 */
} cli_path_kind;

/** One row of the option table, as help and completion read it. */
typedef struct cli_opt_row {
	const char *name;     /* without "--" */
	char short_name;      /* 0: none */
	const char *metavar;  /* NULL: a flag */
	cli_path_kind path;
	int every_command;    /* a global option */
} cli_opt_row;

/** The number of rows of the option table. */
size_t cli_opt_count(void);
/** Row i of the option table into row. */
void cli_opt_at(size_t i, cli_opt_row *row);
/** Whether row i is cmd's own option (global ones are not). */
int cli_opt_for_command(size_t i, cli_command cmd);

/** The path column of option name (without "--"). */
cli_path_kind cli_opt_path_kind(const char *name);

/** The table, one option with a value a line: "--NAME METAVAR KIND
 * COMMAND..." ("-" for no command); for e2e_gate_table. */
void cli_opt_table_print(FILE *f);

/** Every command ("command NAME") and option ("option --NAME [-S]") of
 * the tables, a line each; for e2e_command_table. */
void cli_command_table_print(FILE *f);

/**
 * Parse argv (options before or after the command, "--opt=value" or
 * "--opt value") and fill in environment values and defaults.  Returns 0 or
 * PYRT_E_USAGE with a one-line message in msg; other negative pyrt codes when
 * a default could not be computed.  Free with cli_args_clear.
 */
int cli_args_parse(int argc, char **argv, app_request *opts, char *msg,
		   size_t msglen);

void cli_args_clear(app_request *opts);

/** The command's name ("install") or NULL for CLI_CMD_NONE. */
const char *cli_command_name(cli_command cmd);

/** Look up a command word; CLI_CMD__COUNT when unknown. */
cli_command cli_command_lookup(const char *word);

/** The command closest to a mistyped word, or NULL. */
const char *cli_command_suggest(const char *word);

#endif
