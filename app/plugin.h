/*
 * What `pyrt plugins` and the dashboard both do with one plugin: the DEPS
 * cell of its row, and installing its requires_pip into the managed
 * runtime.  One implementation, so the table, the dashboard and a pasted
 * terminal log use the same words and the same pip path.
 */
#ifndef PYRT_APP_PLUGIN_H
#define PYRT_APP_PLUGIN_H

#include <stddef.h>

#include "app/args.h"
#include "core/error.h"
#include "core/events.h"
#include "core/pip.h"
#include "core/plugins.h"

/** Whether the row's requirements were looked up in the runtime: it was
 * ready and the manifest is valid. */
int app_plugin_checked(const pyrt_plugin *pl, int runtime_ready);

/** The DEPS cell: "-" (nothing required, or an invalid manifest),
 * "2 unchecked" (runtime not ready), "1/2 ok". */
void app_plugin_deps(const pyrt_plugin *pl, int runtime_ready, char *buf,
		     size_t len);

/**
 * The plugin's requires_pip with the runtime's own pip (opts' box root and
 * --wheelhouse), under the box lock: waited for unless --no-wait.  A
 * failed batch is retried one requirement at a time, and the failure names
 * those that still failed.  last (may be NULL) gets the last pip run's
 * result.  Returns 0 or a negative pyrt_code with err filled.
 */
int app_plugin_install(const app_request *opts, const pyrt_plugin *pl,
		       const pyrt_events *ev, pyrt_pip_result *last,
		       pyrt_error *err);

/**
 * What the plugins had in the runtime before an install: for each enabled
 * plugin that needs the runtime, the requirements that were installed and
 * inside their specifier (NULL when nothing was, or out of memory).  A new
 * install starts from the baseline only; app_plugins_keep_reapply puts
 * back what it dropped, as rustup keeps a toolchain's components.
 */
typedef struct app_plugins_keep app_plugins_keep;

app_plugins_keep *app_plugins_keep_before(const app_request *opts,
					  const pyrt_pins *pins,
					  const char *platform_key,
					  const pyrt_events *ev);

/**
 * After the install: each requirement kept that is no longer satisfied is
 * installed again (app_plugin_install's path, one run per plugin), with a
 * log line naming the plugin and the requirements.  A failure is a warning
 * naming "pyrt plugins install NAME" (the install stands); returns 0, or
 * PYRT_E_CANCELLED.  *reapplied (may be NULL) counts the plugins redone.
 */
int app_plugins_keep_reapply(const app_plugins_keep *k, const app_request *opts,
			     const pyrt_pins *pins, const char *platform_key,
			     const pyrt_events *ev, size_t *reapplied,
			     pyrt_error *err);

void app_plugins_keep_free(app_plugins_keep *k);

#endif
