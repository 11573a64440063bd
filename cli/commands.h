/*
 * The commands.  Each takes the parsed options and returns the process exit
 * status (see exitcodes.h).
 */
#ifndef PYRT_CLI_COMMANDS_H
#define PYRT_CLI_COMMANDS_H

#include "args.h"

int cli_cmd_install(const cli_opts *opts);
int cli_cmd_rollback(const cli_opts *opts);
int cli_cmd_uninstall(const cli_opts *opts);
int cli_cmd_status(const cli_opts *opts);
int cli_cmd_verify(const cli_opts *opts);
int cli_cmd_smoke(const cli_opts *opts);
int cli_cmd_doctor(const cli_opts *opts);
int cli_cmd_plugins(const cli_opts *opts);
int cli_cmd_baseline(const cli_opts *opts);
int cli_cmd_mirror(const cli_opts *opts);
int cli_cmd_lock(const cli_opts *opts);

/** `pyrt --help`: the manual page. */
void cli_help_manual(void);
/** `pyrt <cmd> --help`: that command's usage. */
void cli_help_command(cli_command cmd);
/** `pyrt --version`, `pyrt version [--json]`: pyrt's version and commit,
 * the platform, the pins in use (--pins honoured) and the libraries; the
 * exit status (11 when the named pins cannot be read). */
int cli_help_version(const cli_opts *opts, const char *curses);

#endif
