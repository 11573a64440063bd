/*
 * SIGINT/SIGTERM turn into a cancel flag that core polls (pyrt_events.cancel)
 * instead of killing the process halfway through an install.
 */
#ifndef PYRT_CLI_SIGNALS_H
#define PYRT_CLI_SIGNALS_H

#include <stdatomic.h>

/**
 * Install the handlers (no SA_RESTART, so a blocking read returns EINTR) and
 * ignore SIGPIPE.  With announce set, the first signal writes one
 * "cancelling" line to stderr.  Returns 0 or -1 with errno.
 */
int cli_signals_install(int announce);

/** The flag: 0 until a signal arrives, then the signal number. */
const atomic_int *cli_cancel_flag(void);

int cli_cancelled(void);

#endif
