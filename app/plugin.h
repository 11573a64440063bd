/*
 * What `pyrt plugins`, the dashboard and the API all do with one plugin:
 * the words of its row, and installing its requires_pip into the managed
 * runtime.  One implementation, so the table, the dashboard, the API and a
 * pasted terminal log use the same words and the same pip path.
 */
#ifndef PYRT_APP_PLUGIN_H
#define PYRT_APP_PLUGIN_H

#include <stdatomic.h>
#include <stddef.h>

#include "app/args.h"
#include "app/front.h"
#include "core/dist/pins.h"
#include "core/pkgs/plugins.h"
#include "core/util/error.h"
#include "core/util/events.h"

/** Whether the row's requirements were looked up in the runtime: it was
 * ready and the manifest is valid. */
int app_plugin_checked(const pyrt_plugin *pl, int runtime_ready);

/** The DEPS cell: "-" (nothing required, or an invalid manifest),
 * "2 unchecked" (runtime not ready), "1/2 ok". */
void app_plugin_deps(const pyrt_plugin *pl, int runtime_ready, char *buf,
		     size_t len);

/** The DEPS cell spelled out where there is room for it:
 * "1/3 ok; missing: a, b; conflict: c 1.2.0". */
void app_plugin_deps_long(const pyrt_plugin *pl, int runtime_ready, char *buf,
			  size_t len);

/** The row's verdict in one sentence, as `pyrt plugins -q` lists it and a
 * plugin install ends with: "plugin cowork: missing_deps (deps: 3/4 ok;
 * missing: python-pptx) — fix: pyrt plugins install cowork". */
void app_plugin_sentence(const pyrt_plugin *pl, int runtime_ready, char *buf,
			 size_t len);

/**
 * The readiness matrix of the box at box_root, opened here once, for a
 * front or a step that has no box open: pyrt_plugins_check, or with memo
 * pyrt_plugins_check_memo (st as it says).  Returns its code.
 */
int app_plugins_check(pyrt_plugins **out, const char *box_root,
		      const pyrt_pins *pins, const char *platform_key,
		      int memo, const pyrt_status *st, const pyrt_events *ev,
		      pyrt_error *err);

/** Whether the plugin works now, or is off: ready, disabled, or needing
 * no runtime (nothing for anyone to fix). */
int app_plugin_works(const pyrt_plugin *pl);

/**
 * The row of plugin name in p, one that can be installed: 0 with *out set,
 * or PYRT_E_USAGE with err naming why: unknown (*out NULL; the message
 * names the known ones) or invalid (*out its row; the manifest's error).
 */
int app_plugin_lookup(const pyrt_plugins *p, const char *box_root,
		      const char *name, const pyrt_plugin **out,
		      pyrt_error *err);

/**
 * `pyrt plugins install NAME` as every front end runs it: the plugin
 * looked up (unknown or invalid: PYRT_E_USAGE; a runtime that is not
 * ready: PYRT_E_NOT_READY; both before anything starts), its requires_pip
 * with the runtime's own pip (req's box root, --wheelhouse, --index-url,
 * --cacert) under the box lock, waited for unless --no-wait, as one step;
 * a failed batch retried one requirement at a time (pip's refusal is
 * PYRT_E_PLUGIN), then the plugin's row checked again and one outcome
 * through front: its verdict in one sentence (app_plugin_sentence).  A
 * cancel already set starts nothing.  Returns the pyrt_code the exit status
 * comes from: the outcome's, or PYRT_E_NOT_READY when pip did its work and
 * the plugin still does not work.
 */
int app_plugin_install_execute(const app_request *req, const pyrt_pins *pins,
			       const char *platform_key, const char *name,
			       const app_front *front,
			       const atomic_int *cancel);

/**
 * What the plugins had in the runtime before an install: for each enabled
 * plugin that needs the runtime, the requirements that were installed and
 * inside their specifier (NULL when nothing was, or out of memory).  A new
 * install starts from the baseline only; app_plugins_keep_reapply puts
 * back what it dropped, as rustup keeps a toolchain's components.
 */
typedef struct app_plugins_keep app_plugins_keep;

app_plugins_keep *app_plugins_keep_before(const pyrt_box *box,
					  const pyrt_pins *pins,
					  const char *platform_key,
					  const pyrt_events *ev);

/**
 * After the install: each requirement kept that is no longer satisfied is
 * installed again (a plugin install's pip path, one run per plugin), with a
 * log line naming the plugin and the requirements.  A failure is a warning
 * naming "pyrt plugins install NAME" (the install stands); returns 0, or
 * PYRT_E_CANCELLED.  *reapplied (may be NULL) counts the plugins redone.
 */
int app_plugins_keep_reapply(const app_plugins_keep *k, const app_request *opts,
			     const pyrt_box *box, const pyrt_pins *pins,
			     const char *platform_key,
			     const pyrt_events *ev, size_t *reapplied,
			     pyrt_error *err);

/** Before a switch: each kept plugin's requirements declared in the box
 *  (declared.h) with its re-apply pending, so a run stopped before the
 *  re-apply is done leaves the work for the next to finish. */
void app_plugins_keep_declare(const app_plugins_keep *k, const pyrt_box *box);

/** Finish the plugin re-applies a stopped run left pending (declared.h):
 *  each plugin's declared requirements installed, its pending work cleared
 *  when that succeeds (a failure is a warning and stays pending); then
 *  install again the declared requirements of every other declared plugin
 *  that the active install lacks (uninstalled or broken since).  *done
 *  (may be NULL) counts the plugins finished.  0 or PYRT_E_CANCELLED. */
int app_plugins_finish_pending(const app_request *opts, const pyrt_box *box,
			       const pyrt_pins *pins, const pyrt_events *ev,
			       size_t *done, pyrt_error *err);

/** The plugins whose re-apply is pending in the box (declared.h), as
 *  "a, b" in buf (cut with "..." when long); how many. */
size_t app_plugins_pending_names(const pyrt_box *box, char *buf, size_t len);

void app_plugins_keep_free(app_plugins_keep *k);

#endif
