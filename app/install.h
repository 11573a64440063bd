/*
 * An install as every front end runs it: prepare (the options and the plan,
 * with the refusals that come before anything is written), the consent's
 * baseline fact, then, once consented to, core's install tee'd into the
 * box's install log, the baseline after it (skipped as `pyrt install` skips
 * it), the plugin check, and one outcome through the front end.  The CLI,
 * the TUI and the API server call these, so a run started any way does and
 * says the same thing.
 */
#ifndef PYRT_APP_INSTALL_H
#define PYRT_APP_INSTALL_H

#include <stdatomic.h>

#include "app/args.h"
#include "app/front.h"
#include "core/dist/pins.h"
#include "core/runtime/install.h"
#include "core/util/error.h"

typedef struct app_install_run {
	const app_request *opts;          /* box root, baseline options */
	const pyrt_pins *pins;
	const char *platform_key;
	const pyrt_install_opts *iopts;
	const pyrt_install_plan *plan;
	/** how to reinstall, for the nothing-to-do sentence
	 * ("use --force to reinstall") */
	const char *reinstall_hint;
	/** where the install log went ("" when none); may be NULL */
	char *log_path;
	size_t log_path_len;
} app_install_run;

/**
 * The install options req asks for and the plan a consent shows: a
 * --requirements file pip would refuse, a platform with no pin and any
 * refusal of the plan come back as a pyrt_code with err naming the fix,
 * before anything is downloaded or written.
 */
int app_install_prepare(const app_request *req, const pyrt_pins *pins,
			const char *platform_key, pyrt_install_opts *iopts,
			pyrt_install_plan *plan, pyrt_error *err);

/** What the baseline step will do, for the consent: pip may reach the
 * package index, so the person consenting is told, and told where from. */
void app_install_baseline_fact(const app_request *req, const pyrt_pins *pins,
			       char *buf, size_t len);

/** The consent's facts, in the order every front end shows them. */
typedef enum app_fact_id {
	APP_FACT_RUNTIME, APP_FACT_PLATFORM, APP_FACT_DOWNLOAD,
	APP_FACT_SOURCE, APP_FACT_DESTINATION, APP_FACT_SHA256,
	APP_FACT_FREE_DISK, APP_FACT_BASELINE, APP_FACT_COUNT
} app_fact_id;

/** What a person needs to say yes to an install: what, for which
 * platform, how big, from where, to where, which digest, whether it fits
 * and what pip will do after.  Each value is whole (the URL redacted by
 * core, the whole digest): what is agreed to can be checked.  A front
 * end lays the rows out as it can, but never rewords them. */
typedef struct app_install_facts {
	const char *label[APP_FACT_COUNT];
	char value[APP_FACT_COUNT][4400];
	int free_disk_low; /* less than three times the download is free */
	/** "pyrt is about to install a managed Python runtime:", or repair
	 * (the runtime is broken), update or reinstall it */
	char headline[128];
} app_install_facts;

void app_install_facts_fill(const app_request *req, const pyrt_pins *pins,
			    const pyrt_install_plan *plan,
			    app_install_facts *facts);

/** Run it (tee'd into an install log unless there is nothing to do) and
 * report the outcome through front; returns the pyrt_code. */
int app_install_execute(const app_install_run *r, const app_front *front,
			const atomic_int *cancel);

#endif
