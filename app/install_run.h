/*
 * An install as every front end runs it once it is planned and consented
 * to: core's install, the baseline after it (skipped as `pyrt install`
 * skips it), the plugin check, and one outcome through the front end.  The
 * CLI and the API server call this, so a run started either way does and
 * says the same thing.
 */
#ifndef PYRT_APP_INSTALL_RUN_H
#define PYRT_APP_INSTALL_RUN_H

#include <stdatomic.h>

#include "args.h"
#include "front.h"
#include "install.h"
#include "pins.h"

typedef struct app_install_run {
	const app_request *opts;          /* box root, baseline options */
	const pyrt_pins *pins;
	const char *platform_key;
	const pyrt_install_opts *iopts;
	const pyrt_install_plan *plan;
	/** how to reinstall, for the nothing-to-do sentence
	 * ("use --force to reinstall") */
	const char *reinstall_hint;
} app_install_run;

/** Run it and report the outcome through front; returns the pyrt_code. */
int app_install_execute(const app_install_run *r, const app_front *front,
			const atomic_int *cancel);

#endif
