/*
 * The command line into app_request (app/args.h): options before or after the
 * command, values from flags, the environment or defaults.
 */
#ifndef PYRT_CLI_PARSE_H
#define PYRT_CLI_PARSE_H

#include <stddef.h>

#include "app/args.h"

/**
 * Parse argv (options before or after the command, "--opt=value" or
 * "--opt value") and fill in environment values and defaults.  Returns 0 or
 * PYRT_E_USAGE with a one-line message in msg; other negative pyrt codes when
 * a default could not be computed.  Free with cli_args_clear.
 */
int cli_args_parse(int argc, char **argv, app_request *opts, char *msg,
		   size_t msglen);

void cli_args_clear(app_request *opts);

/** The command's name ("install") or NULL for APP_CMD_NONE. */
const char *cli_command_name(app_command cmd);

/** Look up a command word; APP_CMD__COUNT when unknown. */
app_command cli_command_lookup(const char *word);

/** The command closest to a mistyped word, or NULL. */
const char *cli_command_suggest(const char *word);

#endif
