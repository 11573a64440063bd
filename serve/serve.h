/*
 * `pyrt serve`: the third front end, an HTTP API over the same core and
 * app/ use cases as the CLI and the TUI (docs/api.yaml).  The command table
 * (cli/commands.c) is the only caller.
 */
#ifndef PYRT_SERVE_H
#define PYRT_SERVE_H

#include "app/args.h"

/** Run the server until SIGTERM/SIGINT; returns the exit status. */
int serve_main(const app_request *opts);

#endif
