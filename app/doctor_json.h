/*
 * doctor's answer as the JSON object `pyrt doctor --json` prints and the
 * support bundle carries, for both front ends.
 */
#ifndef PYRT_APP_DOCTOR_JSON_H
#define PYRT_APP_DOCTOR_JSON_H

#include <jansson.h>

#include "core/diagnose/doctor.h"

/** {"ok": bool, "checks": [{"id", "title", "verdict", "detail", "fix"}]};
 * NULL when out of memory. */
json_t *app_doctor_json(const pyrt_doctor *d);

/** The same, dumped with two-space indents (free()); NULL when out of
 * memory. */
char *app_doctor_json_text(const pyrt_doctor *d);

#endif
