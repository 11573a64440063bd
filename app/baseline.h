/*
 * The baseline as a step of a command: `pyrt baseline` runs only it,
 * `pyrt install` runs it after activation.  Both report the active marker's
 * baseline (state, what is missing, the pip log) in their result, and
 * install also the plugins that are ready afterwards.
 */
#ifndef PYRT_APP_BASELINE_H
#define PYRT_APP_BASELINE_H

#include <stdatomic.h>
#include <stddef.h>

#include "app/args.h"
#include "app/front.h"
#include "core/dist/pins.h"
#include "core/pkgs/baseline.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/marker.h"

typedef struct app_baseline_report {
	pyrt_baseline_result result;  /* of the run, if there was one */
	pyrt_marker marker;           /* the active install's, after it */
	int have_marker;
	const char *missing[PYRT_MARKER_MISSING_MAX];
	pyrt_plugins *plugins;        /* owned; for ready[] */
	const char **ready;           /* names of ready plugins (malloc'd) */
	size_t ready_count;
} app_baseline_report;

/** Run the baseline the options ask for (--requirements, --wheelhouse,
 * --no-wait) against the active runtime; returns a pyrt_code. */
int app_baseline_run(const app_request *opts, const pyrt_box *box,
		     const pyrt_pins *pins, const pyrt_events *ev,
		     app_baseline_report *rep, pyrt_error *err);

/** The one line a complete baseline ends with: how many requirements pip
 * installed and how many were already present (never "installed" for
 * those), and what was reinstalled because it was broken. */
void app_baseline_summary(const pyrt_baseline_result *r, char *buf,
			  size_t len);

/** Whether the active install's marker says the baseline is complete and
 * no distribution in it lacks its files (dists.h). */
int app_baseline_complete(const pyrt_box *box);

/**
 * After an install: skip the baseline with --no-baseline, or when the pin
 * was already active and its marker says complete (and no --requirements
 * asks for something new).  Emits the SKIP step; returns 1 when skipped, 0
 * when the baseline should run, or PYRT_E_CANCELLED (recorded in err).
 */
int app_baseline_skip(const app_request *opts, const pyrt_box *box,
		      int already_current, const pyrt_events *ev,
		      pyrt_error *err);

/** Read the active marker and put its baseline (and the pip log) into o. */
void app_baseline_report_fill(app_baseline_report *rep, const pyrt_box *box,
			      app_outcome *o);

/** Check the plugins, put the ready ones into o (and one log line). */
void app_baseline_ready_plugins(app_baseline_report *rep,
				const app_front *front, const app_request *opts,
				const pyrt_box *box, const pyrt_pins *pins,
				const char *platform_key, const pyrt_events *ev,
				app_outcome *o);

void app_baseline_report_clear(app_baseline_report *rep);

/**
 * `pyrt baseline` as every front end runs it: the baseline req asks for
 * against the active runtime, the marker's word on it, the plugins ready
 * afterwards (only with a platform_key: the TUI's result shows them), and
 * one outcome through front.  A cancel already set starts nothing.
 * Returns the pyrt_code.
 */
int app_baseline_execute(const app_request *req, const pyrt_pins *pins,
			 const char *platform_key, const app_front *front,
			 const atomic_int *cancel);

#endif
