/*
 * How the engine talks to a front end while it works.
 *
 * Every long core call takes a const pyrt_events *.  Callbacks only record
 * (a front end redraws on its own tick); a non-zero return from any callback,
 * or a set *cancel flag, makes the core call stop and return
 * PYRT_E_CANCELLED.  Any pointer in the struct may be NULL.
 */
#ifndef PYRT_EVENTS_H
#define PYRT_EVENTS_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

/** The steps of an install, in order. */
typedef enum pyrt_step {
	PYRT_STEP_LOCK = 0,   /**< take the box lock, sweep stale staging */
	PYRT_STEP_DOWNLOAD,
	PYRT_STEP_VERIFY,
	PYRT_STEP_EXTRACT,
	PYRT_STEP_CHECK,      /**< start the staged interpreter */
	PYRT_STEP_ACTIVATE,
	PYRT_STEP_BASELINE,
	PYRT_STEP__COUNT
} pyrt_step;

typedef enum pyrt_step_state {
	PYRT_STEP_BEGIN = 0,
	PYRT_STEP_END,
	PYRT_STEP_FAIL,
	PYRT_STEP_SKIP
} pyrt_step_state;

typedef enum pyrt_log_level {
	PYRT_LOG_DEBUG = 0,
	PYRT_LOG_INFO,
	PYRT_LOG_WARN
} pyrt_log_level;

/** Counters of a step that moves bytes; total is 0 when unknown. */
typedef struct pyrt_progress {
	uint64_t done;
	uint64_t total;
	double rate;    /**< bytes per second, averaged */
	double elapsed; /**< seconds since the step began */
} pyrt_progress;

#define PYRT_EVENTS_VERSION 1

typedef struct pyrt_events {
	unsigned int version;
	/** detail: a short phrase ("from 127.0.0.1", "3.12.14"), may be NULL */
	int (*on_step)(pyrt_step step, pyrt_step_state state,
		       const char *detail, void *payload);
	int (*on_progress)(pyrt_step step, const pyrt_progress *progress,
			   void *payload);
	/** one line of text, no newline */
	int (*on_log)(pyrt_log_level level, const char *line, void *payload);
	void *payload;
	/** set to non-zero (from a signal handler or another thread) to cancel */
	const atomic_int *cancel;
} pyrt_events;

#define PYRT_EVENTS_INIT { PYRT_EVENTS_VERSION, NULL, NULL, NULL, NULL, NULL }

/** The step's stable name: "lock", "download", "verify", ... */
const char *pyrt_step_name(pyrt_step step);

/** Non-zero when the cancel flag is set. ev may be NULL. */
int pyrt_events_cancelled(const pyrt_events *ev);

/** Emit a step change; returns 0 or PYRT_E_CANCELLED. */
int pyrt_events_step(const pyrt_events *ev, pyrt_step step,
		     pyrt_step_state state, const char *detail);

/** Emit progress; returns 0 or PYRT_E_CANCELLED. */
int pyrt_events_progress(const pyrt_events *ev, pyrt_step step,
			 const pyrt_progress *progress);

/** Emit one formatted log line; returns 0 or PYRT_E_CANCELLED. */
int pyrt_events_log(const pyrt_events *ev, pyrt_log_level level,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * Events that pass outer's progress, log lines and cancel flag on and drop
 * step changes: for a caller that reports one step around several runs of
 * a call that reports its own (the baseline, a plugin install, over pip's
 * runs).  outer (may be NULL) must outlive the result.
 */
pyrt_events pyrt_events_fold_steps(const pyrt_events *outer);

#endif
