/*
 * The commands.  Each takes the parsed options and returns the process exit
 * status (see exitcodes.h).
 */
#ifndef PYRT_CLI_COMMANDS_H
#define PYRT_CLI_COMMANDS_H

#include "args.h"

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

/** `pyrt --help`: the manual page. */
void cli_help_manual(void);
/** `pyrt <cmd> --help`: that command's usage. */
void cli_help_command(app_command cmd);
/** `pyrt --version`, `pyrt version [--json]`: pyrt's version and commit,
 * the platform, the pins in use (--pins honoured) and the libraries; the
 * exit status (11 when the named pins cannot be read). */
int cli_help_version(const app_request *opts, const char *curses);

#endif
