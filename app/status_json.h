/*
 * The DESIGN.md "status --json" object, for `pyrt status --json` and the
 * API's GET /api/runtime/python: one builder, so both say the same thing.
 */
#ifndef PYRT_APP_STATUS_JSON_H
#define PYRT_APP_STATUS_JSON_H

#include <jansson.h>

#include "core/pkgs/plugins.h"
#include "core/runtime/status.h"

/** The interpreter path to show, or NULL: only where an install exists
 * and the file does (a first install in progress, or a broken one, must
 * not hand a script a path it cannot run). */
const char *app_status_interpreter(const pyrt_status *st);

/** The marker's baseline state, or "none". */
const char *app_status_baseline_state(const pyrt_status *st);

/** The rollback target (`pyrt rollback` switches to it): the install
 * the box's `previous` link points at, beside st->path's `current`,
 * with its marker's version and build ("" when unreadable).  1 when there
 * is one, 0 when not. */
typedef struct app_rollback_target {
	char path[4096];     /* installs/<id>, absolute */
	char version[32];
	char build[32];
} app_rollback_target;
int app_status_rollback(const pyrt_status *st, app_rollback_target *out);

/** The status object; NULL when out of memory. */
json_t *app_status_json(const pyrt_status *st);

/** Whether the pins in use hash-lock the baseline's wheels, and where
 * they come from otherwise, as one sentence (status, doctor). */
void app_status_baseline_source(const pyrt_status *st, char *buf,
				size_t len);

/** When the wheel lock of the pins in effect is not the one the box
 *  declares its packages were installed under (status.h lock_differs):
 *  one sentence with both digests' heads and the fix into buf, 1; else 0
 *  and buf "". */
int app_status_lock_differs(const pyrt_status *st, char *buf, size_t len);

/** One plugin row as `pyrt plugins --json` shows it. */
json_t *app_plugin_json(const pyrt_plugin *pl, int runtime_ready);

/** {"plugins": [rows]}; NULL when out of memory. */
json_t *app_plugins_json(const pyrt_plugins *plugins);

#endif
