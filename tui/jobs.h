/*
 * The engine work the TUI starts, each in one worker thread: reading the
 * state (status + plugins), install (+ baseline + plugin check, as `pyrt
 * install` does), the baseline alone, rollback, uninstall, one plugin's
 * requirements, the smoke test and doctor.  Each calls the same app/ use
 * case or core function as the headless commands, with the view model's
 * events; results are read by the UI thread only after tui_job_join.
 */
#ifndef PYRT_TUI_JOBS_H
#define PYRT_TUI_JOBS_H

#include <pthread.h>

#include "app/args.h"
#include "core/diagnose/doctor.h"
#include "core/diagnose/smoke.h"
#include "core/dist/pins.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/install.h"
#include "core/runtime/status.h"
#include "core/util/error.h"
#include "tui/model.h"

typedef enum tui_job_kind {
	TUI_JOB_NONE = 0,
	TUI_JOB_REFRESH,
	TUI_JOB_INSTALL,
	TUI_JOB_BASELINE,
	TUI_JOB_PLUGIN,
	TUI_JOB_SMOKE,
	TUI_JOB_DOCTOR,
	TUI_JOB_ROLLBACK,
	TUI_JOB_UNINSTALL,
	TUI_JOB_BUNDLE
} tui_job_kind;

/* How an install, baseline or plugin install ended, in words. */
typedef struct tui_result {
	int code;                       /* pyrt_code, 0 on success */
	char error[PYRT_ERROR_MSG_MAX]; /* one line, "" on success */
	char unchanged[256];            /* what a failure left as it was */
	char fix[1024];                 /* what to do about it, "" if nothing */
	char summary[4096 + 256];       /* the success sentence (a path in it whole) */
	char log_path[4096];            /* the run's install log, "" if none */
	char pip_log[4096];             /* pip's full output, "" if none */
	char baseline_state[16];        /* "complete", "partial", "none", "" */
	char baseline_missing[1024];    /* "a, b" */
	int plugins_checked;
	size_t plugin_count;            /* plugins in the box */
	char ready_plugins[1024];       /* "careercoach, notes" */
	char waiting_plugins[1024];     /* enabled, needing the runtime, not ready */
} tui_result;

typedef struct tui_job {
	tui_job_kind kind;
	/* inputs, set before tui_job_start */
	const app_request *opts;
	const pyrt_pins *pins;
	const char *platform_key;
	tui_model *model;
	pyrt_install_opts iopts;   /* install */
	pyrt_install_plan plan;    /* install: what the consent showed */
	char plugin[256];          /* plugin */
	const pyrt_doctor *bundle_doctor;  /* bundle: doctor's answer */
	char bundle_path[4096];    /* bundle: where to write it */
	/* outputs, valid after tui_job_join; the UI may take the pointers */
	tui_result result;
	pyrt_status *status;       /* refresh, plugin */
	pyrt_plugins *plugins;     /* refresh, plugin */
	char refresh_error[PYRT_ERROR_MSG_MAX];
	int read_only;             /* refresh: app_may_change refuses */
	pyrt_doctor *doctor;       /* doctor */
	pyrt_smoke_result smoke;   /* smoke */
	/* private */
	pthread_t thread;
	int started;
} tui_job;

/* Start the job's thread (signals blocked in it, so they reach the UI
 * thread's poll).  Returns 0, or -1 with msg filled. */
int tui_job_start(tui_job *job, char *msg, size_t msglen);

/* Wait for the thread (after the model said done, this does not block). */
void tui_job_join(tui_job *job);

/* Free the outputs the UI did not take and forget the job. */
void tui_job_clear(tui_job *job);

#endif
