/*
 * A dry run, as `apt-get -s` and `uv pip install --dry-run` give:
 * `pyrt install --dry-run`, `baseline --dry-run` and `plugins install NAME
 * --dry-run` say what the command would download (the URL, its size when
 * pinned), verify (each digest), install (the runtime; each requirement,
 * what is installed now, and the wheel or index it would come from),
 * re-apply (the plugins' requirements after a switch) and remove (the
 * installs the switch would prune), as one JSON object composed here once;
 * the fronts only show it (app_dry_run_text for people).
 *
 * It changes nothing and reaches nothing: no box is created, no lock, log
 * or memo written, no download, no network; only plugins install starts
 * the runtime's interpreter (the read-only requirement check doctor runs).
 */
#ifndef PYRT_APP_DRYRUN_H
#define PYRT_APP_DRYRUN_H

#include <jansson.h>

#include "app/args.h"
#include "core/dist/pins.h"
#include "core/util/error.h"

/**
 * The plan of req's command (install, baseline, or plugins install with
 * the plugin's name in req->positional[1]): a new object, or NULL with err
 * set to the refusal the command itself would give (an unsupported
 * platform, an unknown plugin, a runtime that is not ready).
 */
json_t *app_dry_run(const app_request *req, const pyrt_pins *pins,
		    const char *platform_key, pyrt_error *err);

/** The plan as lines for people (malloc'd; NULL when out of memory). */
char *app_dry_run_text(const json_t *plan);

#endif
