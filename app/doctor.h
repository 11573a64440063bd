/*
 * doctor as every front end runs it (`pyrt doctor`, the TUI's doctor
 * screen, GET /api/doctor): the same checks with the same words, the
 * network included, so support staff read one answer wherever they ask.
 */
#ifndef PYRT_APP_DOCTOR_H
#define PYRT_APP_DOCTOR_H

#include "app/args.h"
#include "core/diagnose/doctor.h"
#include "core/diagnose/smoke.h"
#include "core/dist/pins.h"
#include "core/util/error.h"
#include "core/util/events.h"

/**
 * Run every check for req's box with req's CA bundle (app_cacert), and try
 * the network as install would reach it: the pinned archive's host (under
 * req->mirror when set) and pip's index (req->index_url, else
 * PIP_INDEX_URL, else PyPI), through the proxy in the environment, each
 * within a bounded timeout.  PYRT_DOCTOR_OFFLINE=1 leaves the network out
 * on a machine meant to be offline.  The caller decides what req may name:
 * the API passes its own configuration, never a request's.  Blocks for
 * seconds on a bad network: front ends with a UI thread run it elsewhere.
 * Returns 0 with *out, or a negative pyrt_code with err.
 */
int app_doctor_run(const app_request *req, const pyrt_pins *pins,
		   const char *platform_key, const pyrt_events *ev,
		   pyrt_doctor **out, pyrt_error *err);

/**
 * `pyrt smoke` as every front end runs it: the box at req's box root,
 * opened here once (the trust gate runs here), and pyrt_smoke_run on it
 * (pins say where the interpreter is; out_path: where to copy the .docx,
 * NULL: not kept).  result is filled in every case; returns its code.
 */
int app_smoke_run(const app_request *req, const pyrt_pins *pins,
		  const char *out_path, const pyrt_events *ev,
		  pyrt_smoke_result *result, pyrt_error *err);

#endif
