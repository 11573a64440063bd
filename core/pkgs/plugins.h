/*
 * Plugins and the readiness matrix.  Manifests live at
 * <box>/plugins/<name>/plugin.yaml:
 *
 *   name: cowork
 *   enabled: true
 *   requires_tools: [execute_code]   # needs the managed runtime
 *   requires_pip:
 *     - python-docx>=0.8
 *     - openpyxl
 *
 * All plugins' requirements are checked by ONE child interpreter run (-I -S,
 * so no .pth file runs; minimal env, timeout) that uses importlib.metadata and pip's vendored
 * packaging (PEP 440 specifiers, names normalised as pip does), never one
 * process per package.  A malformed manifest becomes that plugin's row with
 * verdict "invalid" and the error; other rows still work.
 */
#ifndef PYRT_PLUGINS_H
#define PYRT_PLUGINS_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/runtime/status.h"
#include "core/util/error.h"
#include "core/util/events.h"

typedef enum pyrt_verdict {
	PYRT_VERDICT_READY = 0,
	PYRT_VERDICT_NEEDS_RUNTIME,
	PYRT_VERDICT_MISSING_DEPS,
	PYRT_VERDICT_DISABLED,
	PYRT_VERDICT_NO_RUNTIME_NEEDED,
	PYRT_VERDICT_INVALID
} pyrt_verdict;

/** One requires_pip requirement and what the runtime has for it. */
typedef struct pyrt_requirement {
	const char *spec;       /**< as written: "python-docx>=0.8" */
	const char *name;       /**< normalised: "python-docx" */
	const char *installed;  /**< installed version, NULL when missing */
	int conflict;           /**< installed but outside the specifier */
	/** NULL, or why the installed distribution cannot be judged (its
	 *  METADATA unreadable, its version not PEP 440), naming it: the
	 *  requirement is then not met, and only its rows say so. */
	const char *broken;
} pyrt_requirement;

typedef struct pyrt_plugin {
	const char *name;
	int enabled;
	int needs_runtime;      /**< requires_tools contains execute_code */
	pyrt_verdict verdict;
	const pyrt_requirement *requires;
	size_t require_count;
	const char *fix;        /**< exact command, or NULL when nothing to do */
	const char *error;      /**< for invalid: what is wrong with plugin.yaml */
} pyrt_plugin;

typedef struct pyrt_plugins pyrt_plugins;

/**
 * Read every manifest under <box>/plugins and, when the runtime is ready,
 * check all requirements in one interpreter run.  Returns 0 (whatever the
 * verdicts), or a negative code when the box cannot be read at all.  box
 * is the caller's (app/ opens it once per use case).
 */
int pyrt_plugins_check(pyrt_plugins **out, const pyrt_box *box,
		       const pyrt_pins *pins, const char *platform_key,
		       const pyrt_events *ev, pyrt_error *err);
void pyrt_plugins_free(pyrt_plugins *p);

/** Replace every plugin's fix by fn's word for it (malloc'd; NULL when
 * out of memory): how app/ renders it for the options in effect.
 * Returns 0 or PYRT_E_NOMEM (the rows keep their old fix). */
int pyrt_plugins_map_fix(pyrt_plugins *p,
			 char *(*fn)(const char *fix, void *arg), void *arg);

/**
 * As pyrt_plugins_check, and the checker's answer is remembered in the box
 * (<box>/runtime/python/cache/plugins-check.json, 0600) with everything it
 * depends on: the runtime, each requirement asked about, and the
 * distributions on the checker's sys.path (plugins_memo.h).  Asking again
 * when none of that changed reads the file and a few stats instead of
 * starting the interpreter.  For the commands that may write the box
 * (plugins, the TUI); doctor, which never writes, uses pyrt_plugins_check.
 * st: the box's status as the caller just read it (same box, pins and
 * platform), so it is not read twice; NULL to have it read here.
 */
int pyrt_plugins_check_memo(pyrt_plugins **out, const pyrt_box *box,
			    const pyrt_pins *pins, const char *platform_key,
			    const pyrt_status *st, const pyrt_events *ev,
			    pyrt_error *err);

/**
 * One manifest's bytes read as plugins/<name>/plugin.yaml is, into a table
 * of that one row: its fields, or verdict "invalid" with the error.  No
 * verdict is judged and nothing is run; the parser alone, for the tests and
 * the fuzz target.  Returns 0 (whatever the verdict) or PYRT_E_NOMEM.
 */
int pyrt_plugins_parse_manifest(pyrt_plugins **out, const char *name,
				const char *data, size_t len, pyrt_error *err);

/**
 * Requirement strings checked against the runtime behind interp, by the
 * same one checker run as the matrix (installed distributions, PEP 440
 * specifiers): a table of one row named name, whose requires say what is
 * installed, verdict ready or missing_deps (fix NULL: the caller knows
 * it), or invalid when a string is no requirement.  Doctor's baseline
 * check uses it.  Returns 0, or a negative code with err set when the
 * interpreter could not answer (PYRT_E_INTERPRETER), PYRT_E_CANCELLED,
 * PYRT_E_NOMEM.
 */
int pyrt_plugins_check_requirements(pyrt_plugins **out, const char *name,
				    const char *interp,
				    const char *const *specs, size_t n,
				    const pyrt_events *ev, pyrt_error *err);

/** Whether the runtime was ready when checked. */
int pyrt_plugins_runtime_ready(const pyrt_plugins *p);
size_t pyrt_plugins_count(const pyrt_plugins *p);
/** Plugins sorted by name. */
const pyrt_plugin *pyrt_plugins_at(const pyrt_plugins *p, size_t i);
const pyrt_plugin *pyrt_plugins_find(const pyrt_plugins *p, const char *name);

/** "ready", "needs_runtime", "missing_deps", ... */
const char *pyrt_verdict_name(pyrt_verdict v);

#endif
