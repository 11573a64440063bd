/* The recording front end the tests of app/ drive a use case with (the
 * fourth front, beside the CLI's, the TUI's and the API's): the steps it
 * saw, its log lines, the outcome's words and code, and, on cue, a pull of
 * the cancel flag at a given step. */
#ifndef PYRT_TEST_APP_REC_H
#define PYRT_TEST_APP_REC_H

#include <limits.h>
#include <stdatomic.h>

#include "app/front.h"

typedef struct app_rec {
	char steps[2048];      /* "activate:begin activate:end ..." */
	char logs[8192];       /* every log line, '\n'-joined */
	int results;           /* on_result calls: exactly one per run */
	int code, before_start;
	char summary[2048], error[2048], unchanged[512], command[32];
	char pip_log[PATH_MAX];
	char row[64];          /* a plugin install's row: "<name> <verdict>" */
	int cancel_step;       /* pull *cancel at this step's state (cancel set) */
	pyrt_step_state cancel_state;
	atomic_int *cancel;
} app_rec;

/** A front that records into r (r stays the caller's). */
app_front *app_rec_front(app_rec *r);

#endif
