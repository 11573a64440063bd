/*
 * A front end is one implementation of the pyrt_events callbacks plus the
 * final report of a command.  The CLI has two (plain lines for people and
 * logs, NDJSON for scripts, cli/fronts.h); the ncurses TUI (tui/model.c)
 * and the API server's jobs (serve/jobs.c) provide their own
 * app_front_ops.  Use cases only ever talk to an app_front, never to
 * stdout/stderr directly, for anything that happens while core works.
 */
#ifndef PYRT_APP_FRONT_H
#define PYRT_APP_FRONT_H

#include <stdatomic.h>
#include <stddef.h>

#include "app/args.h"
#include "core/util/events.h"

/** How a mutating command (install, baseline, plugins install, rollback,
 * uninstall) ended. */
typedef struct app_outcome {
	const char *command;     /**< "install", "plugins install", ... */
	int code;                /**< pyrt_code, 0 on success */
	const char *error;       /**< one line, NULL on success */
	const char *unchanged;   /**< what a failure left as it was, or NULL */
	/** what to do about the failure, its commands rendered for the
	 * request (app/fix.h), or NULL */
	const char *fix;
	const char *summary;     /**< the success sentence, or NULL */
	const char *install_dir; /**< NULL when none */
	const char *sha256;      /**< NULL when none */
	int already_current;
	/** 1: refused before starting (pins, platform, consent): the error
	 * is reported as is, not as "<command> failed" */
	int before_start;
	/** what failed, when not "<command> failed" ("" for the error
	 * alone, when it names itself: "baseline partial: ...") */
	const char *failure;
	/** install, baseline: the marker's baseline state after the run
	 * ("complete", "partial", "none"), NULL when not known */
	const char *baseline_state;
	const char *const *baseline_missing;
	size_t baseline_missing_count;
	const char *pip_log;     /**< the pip log to read, NULL when none */
	/** install: plugins whose verdict is ready; NULL when not checked */
	const char *const *ready_plugins;
	size_t ready_plugin_count;
	/** the plugin check behind ready_plugins (every verdict), NULL when
	 * not checked; valid only during on_result */
	const struct pyrt_plugins *plugins;
	/** plugins install: the plugin's row as checked after the run, NULL
	 * when it was not; valid only during on_result */
	const struct pyrt_plugin *plugin;
	int plugin_runtime_ready; /**< whether that check reached the runtime */
} app_outcome;

typedef struct app_front_ops {
	/* The three pyrt_events callbacks; state is the front end's own. */
	int (*on_step)(pyrt_step step, pyrt_step_state st, const char *detail,
		       void *state);
	int (*on_progress)(pyrt_step step, const pyrt_progress *p, void *state);
	int (*on_log)(pyrt_log_level level, const char *line, void *state);
	/** The final report; called once. */
	void (*on_result)(const app_outcome *outcome, void *state);
	void (*destroy)(void *state);
} app_front_ops;

typedef struct app_front {
	const app_front_ops *ops;
	void *state;
} app_front;

void app_front_free(app_front *front);

/** An events struct that feeds front and stops when *cancel is set. */
pyrt_events app_front_events(const app_front *front, const atomic_int *cancel);

/** Log a line of pyrt's own (not core's) through the front end. */
void app_front_log(const app_front *front, pyrt_log_level level,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void app_front_result(const app_front *front, const app_outcome *outcome);

/** Report a refusal of command before anything started (pins, platform,
 * consent, a plan core refused): msg as is, not as "<command> failed".
 * Returns code. */
int app_front_refuse(const app_front *front, const char *command, int code,
		     const char *msg);

/**
 * Tee every event of inner into a new 0600 log file
 * <logs_dir>/<command>-<UTC stamp>-<pid>.log (its path into path; "" when no
 * log could be made, then inner is returned as is).  Keeps the newest logs
 * only.  Takes ownership of inner.
 */
app_front *app_front_with_log(app_front *inner, const char *logs_dir,
			      const char *command, char *path,
			      size_t path_len);

/**
 * Forward every event of inner, and hand the outcome to fn before inner
 * sees it: how a front end keeps an outcome's words to show them later.
 * Takes ownership of inner; NULL when out of memory (inner freed).
 */
app_front *app_front_tap(app_front *inner,
			 void (*fn)(const app_outcome *o, void *arg),
			 void *arg);

/** A front that reports to inner and leaves it to its owner when freed;
 * NULL when out of memory. */
app_front *app_front_borrow(const app_front *inner);

/** Wrap ops and state in a front; NULL when out of memory (state destroyed). */
app_front *app_front_wrap(const app_front_ops *ops, void *state);

#endif
