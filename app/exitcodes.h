/*
 * Process exit codes: one table mapping each pyrt_code to the exit status,
 * the stable name used in JSON ("network") and the line printed by
 * `pyrt --help` (and copied into the README).
 */
#ifndef PYRT_APP_EXITCODES_H
#define PYRT_APP_EXITCODES_H

#include <stdio.h>

#define APP_EXIT_OK 0
#define APP_EXIT_NOT_READY 1
#define APP_EXIT_USAGE 2
#define APP_EXIT_CANCELLED 130

/** The exit status for a pyrt_code (0 for PYRT_OK, 13 for unknown codes). */
int app_exit_code(int code);

/** The stable machine name of a pyrt_code: "ok", "network", ... */
const char *app_code_name(int code);

/** Print the EXIT CODES table, one "  N  meaning" line per exit status. */
void app_exit_table_print(FILE *out, const char *indent);

#endif
