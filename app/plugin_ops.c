/*
 * One plugin's row text and its requirements install, shared by
 * `pyrt plugins` (cmd_plugins.c) and the dashboard (tui/).  The install
 * holds the box lock for the whole pip work, as pip.h asks: an installer
 * may otherwise swap the install pip writes into.
 */
#include "plugin_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "common.h"
#include "lock.h"
#include "wheellock.h"

int app_plugin_checked(const pyrt_plugin *pl, int runtime_ready)
{
	return runtime_ready && pl->verdict != PYRT_VERDICT_INVALID;
}

void app_plugin_deps(const pyrt_plugin *pl, int runtime_ready, char *buf,
		     size_t len)
{
	if (!pl->require_count || pl->verdict == PYRT_VERDICT_INVALID) {
		snprintf(buf, len, "-");
		return;
	}
	if (!app_plugin_checked(pl, runtime_ready)) {
		snprintf(buf, len, "%zu unchecked", pl->require_count);
		return;
	}
	size_t ok = 0;
	for (size_t i = 0; i < pl->require_count; i++)
		ok += pl->requires[i].installed && !pl->requires[i].conflict;
	snprintf(buf, len, "%zu/%zu ok", ok, pl->require_count);
}

/* pip under the lock: the batch, then each requirement alone. */
static int plugin_pip(const app_request *opts, const pyrt_plugin *pl,
		      const char *const *reqs, int lock_fd,
		      const pyrt_events *ev, pyrt_pip_result *last,
		      pyrt_error *err)
{
	char purpose[320];
	snprintf(purpose, sizeof purpose, "plugin %s", pl->name);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	po.box_root = opts->box_root;
	po.requirements = reqs;
	po.requirement_count = pl->require_count;
	po.wheelhouse = opts->wheelhouse;
	po.cacert = opts->cacert;
	po.index_url = opts->index_url;
	po.purpose = purpose;
	po.lock_fd = lock_fd;
	pyrt_pip_each_result res;
	/* The pins' wheel lock binds plugins too: a locked fleet installs
	 * no unlocked code as root (wheellock.h). */
	pyrt_pins *pins = NULL;
	char msg[PYRT_ERROR_MSG_MAX];
	int rc = app_load_pins(opts, &pins, msg, sizeof msg);
	if (rc) {
		pyrt_error_set(err, rc, "%s", msg);
		if (last)
			memset(last, 0, sizeof *last);
		return rc;
	}
	rc = pyrt_wheellock_pip_install(&po, pins, ev, &res, err);
	pyrt_pins_free(pins);
	if (last)
		*last = res.last;
	pyrt_pip_each_result_clear(&res);
	return rc;
}

int app_plugin_install(const app_request *opts, const pyrt_plugin *pl,
		       const pyrt_events *ev, pyrt_pip_result *last,
		       pyrt_error *err)
{
	const char **reqs = calloc(pl->require_count + 1, sizeof *reqs);
	pyrt_box *box = NULL;
	pyrt_lock *lock = NULL;
	if (!reqs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < pl->require_count; i++)
		reqs[i] = pl->requires[i].spec;
	char command[320];
	snprintf(command, sizeof command, "plugins install %s", pl->name);
	int rc = pyrt_box_open(&box, opts->box_root, 0, err);
	if (!rc)
		rc = pyrt_box_check_change(box, command, err);
	if (!rc)
		rc = pyrt_lock_acquire(&lock, pyrt_box_lock_path(box),
				       !opts->no_wait, ev, err);
	if (!rc)
		rc = plugin_pip(opts, pl, reqs, pyrt_lock_fd(lock), ev, last,
				err);
	pyrt_lock_release(lock);
	pyrt_box_free(box);
	free(reqs);
	/* pip's refusal is the plugin's failure, not the baseline's: its
	 * own class and exit code (15). */
	if (rc == PYRT_E_BASELINE) {
		rc = PYRT_E_PLUGIN;
		if (err)
			err->code = rc;
	}
	return rc;
}
