/*
 * The headless front ends (app/front.h): plain lines for people and logs,
 * NDJSON events for scripts.
 */
#ifndef PYRT_CLI_FRONTS_H
#define PYRT_CLI_FRONTS_H

#include "app/args.h"
#include "app/front.h"

/** Plain lines on stderr (updating line on a TTY). NULL when out of memory. */
app_front *cli_front_lines_new(const app_request *opts);
/** NDJSON events on stdout. NULL when out of memory. */
app_front *cli_front_json_new(const app_request *opts);
/** The front end the options ask for (--json or lines). */
app_front *cli_front_for(const app_request *opts);

/** A usage error (exit 2) as the one {"event":"result",...} line on stdout
 *  that every --json run ends with; the message itself goes to stderr as
 *  for any run.  command: the command's name, or "pyrt". */
void cli_json_usage_result(const char *command, const char *msg);

#endif
