/*
 * One plugin's row text and its requirements install, shared by
 * `pyrt plugins` (cmd_plugins.c) and the dashboard (tui/).  The install
 * holds the box lock for the whole pip work, as pip.h asks: an installer
 * may otherwise swap the install pip writes into.
 */
#include "app/plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box.h"
#include "app/common.h"
#include "core/lock.h"
#include "core/wheellock.h"

int app_plugin_checked(const pyrt_plugin *pl, int runtime_ready)
{
	/* needs_runtime under a ready runtime: the interpreter failed before
	 * it answered this row (the other rows kept their answers). */
	return runtime_ready && pl->verdict != PYRT_VERDICT_INVALID &&
	       pl->verdict != PYRT_VERDICT_NEEDS_RUNTIME;
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
static int plugin_pip(const app_request *opts, const char *name,
		      const char *const *reqs, size_t nreqs, int lock_fd,
		      const pyrt_events *ev, pyrt_pip_result *last,
		      pyrt_error *err)
{
	char purpose[320];
	snprintf(purpose, sizeof purpose, "plugin %s", name);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	po.box_root = opts->box_root;
	po.requirements = reqs;
	po.requirement_count = nreqs;
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

/* reqs of plugin name under the box lock. */
static int plugin_install_specs(const app_request *opts, const char *name,
				const char *const *reqs, size_t nreqs,
				const pyrt_events *ev, pyrt_pip_result *last,
				pyrt_error *err)
{
	pyrt_box *box = NULL;
	pyrt_lock *lock = NULL;
	char command[320];
	snprintf(command, sizeof command, "plugins install %s", name);
	int rc = pyrt_box_open(&box, opts->box_root, 0, err);
	if (!rc)
		rc = pyrt_box_check_change(box, command, err);
	if (!rc)
		rc = pyrt_lock_acquire(&lock, pyrt_box_lock_path(box),
				       !opts->no_wait, ev, err);
	if (!rc)
		rc = plugin_pip(opts, name, reqs, nreqs, pyrt_lock_fd(lock),
				ev, last, err);
	pyrt_lock_release(lock);
	pyrt_box_free(box);
	return rc;
}

int app_plugin_install(const app_request *opts, const pyrt_plugin *pl,
		       const pyrt_events *ev, pyrt_pip_result *last,
		       pyrt_error *err)
{
	const char **reqs = calloc(pl->require_count + 1, sizeof *reqs);
	if (!reqs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < pl->require_count; i++)
		reqs[i] = pl->requires[i].spec;
	int rc = plugin_install_specs(opts, pl->name, reqs, pl->require_count,
				      ev, last, err);
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

struct app_plugins_keep {
	pyrt_plugins *before;   /* the matrix before the install */
};

/* Whether requirement r counted before: installed, inside its specifier. */
static int kept(const pyrt_requirement *r)
{
	return r->installed && !r->conflict;
}

/* A plugin whose requirements are the runtime's to keep. */
static int keeps(const pyrt_plugin *pl)
{
	return pl->enabled && pl->needs_runtime &&
	       pl->verdict != PYRT_VERDICT_INVALID;
}

app_plugins_keep *app_plugins_keep_before(const app_request *opts,
					  const pyrt_pins *pins,
					  const char *platform_key,
					  const pyrt_events *ev)
{
	pyrt_plugins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_plugins_check(&p, opts->box_root, pins, platform_key, ev,
			       &err) != 0)
		return NULL;
	size_t any = 0;
	for (size_t i = 0; pyrt_plugins_runtime_ready(p) &&
	     i < pyrt_plugins_count(p); i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(p, i);
		for (size_t j = 0; keeps(pl) && j < pl->require_count; j++)
			any += kept(&pl->requires[j]);
	}
	app_plugins_keep *k = any ? calloc(1, sizeof *k) : NULL;
	if (!k) {
		pyrt_plugins_free(p);
		return NULL;
	}
	k->before = p;
	return k;
}

/* The requirement of row pl written spec, or NULL. */
static const pyrt_requirement *find_spec(const pyrt_plugin *pl,
					 const char *spec)
{
	for (size_t i = 0; pl && i < pl->require_count; i++)
		if (strcmp(pl->requires[i].spec, spec) == 0)
			return &pl->requires[i];
	return NULL;
}

/* "a, b" into buf. */
static void join_specs(const char *const *specs, size_t n, char *buf,
		       size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", specs[i]);
}

/* One plugin: what it had and lost, installed again. */
static int reapply_one(const pyrt_plugin *was, const pyrt_plugins *now,
		       const app_request *opts, const pyrt_events *ev,
		       size_t *reapplied, pyrt_error *err)
{
	const char **specs = calloc(was->require_count + 1, sizeof *specs);
	if (!specs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	const pyrt_plugin *row = pyrt_plugins_find(now, was->name);
	size_t n = 0;
	for (size_t j = 0; row && keeps(row) && j < was->require_count; j++) {
		const pyrt_requirement *r = find_spec(row,
						      was->requires[j].spec);
		if (kept(&was->requires[j]) && r && !kept(r))
			specs[n++] = r->spec;
	}
	int rc = 0;
	char list[1024];
	join_specs(specs, n, list, sizeof list);
	if (n)
		rc = pyrt_events_log(ev, PYRT_LOG_INFO, "plugin %s: "
				     "re-applying %zu requirement%s it had "
				     "before the install: %s", was->name, n,
				     n == 1 ? "" : "s", list);
	if (n && !rc) {
		pyrt_error perr = PYRT_ERROR_INIT;
		int prc = plugin_install_specs(opts, was->name, specs, n, ev,
					       NULL, &perr);
		if (prc == PYRT_E_CANCELLED)
			rc = prc;
		else if (prc)
			rc = pyrt_events_log(ev, PYRT_LOG_WARN, "plugin %s: "
					     "could not re-apply %s: %s — run "
					     "\"pyrt plugins install %s\"",
					     was->name, list, perr.msg,
					     was->name);
		else if (reapplied)
			(*reapplied)++;
	}
	free(specs);
	return rc ? pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled") : 0;
}

int app_plugins_keep_reapply(const app_plugins_keep *k, const app_request *opts,
			     const pyrt_pins *pins, const char *platform_key,
			     const pyrt_events *ev, size_t *reapplied,
			     pyrt_error *err)
{
	if (reapplied)
		*reapplied = 0;
	if (!k)
		return 0;
	pyrt_plugins *now = NULL;
	pyrt_error cerr = PYRT_ERROR_INIT;
	if (pyrt_plugins_check(&now, opts->box_root, pins, platform_key, ev,
			       &cerr) != 0)
		return pyrt_events_log(ev, PYRT_LOG_WARN, "could not check "
				       "the plugins after the install: %s",
				       cerr.msg)
			       ? pyrt_error_set(err, PYRT_E_CANCELLED,
						"cancelled") : 0;
	int rc = 0;
	for (size_t i = 0; !rc && pyrt_plugins_runtime_ready(now) &&
	     i < pyrt_plugins_count(k->before); i++) {
		const pyrt_plugin *was = pyrt_plugins_at(k->before, i);
		if (keeps(was))
			rc = reapply_one(was, now, opts, ev, reapplied, err);
	}
	pyrt_plugins_free(now);
	return rc;
}

void app_plugins_keep_free(app_plugins_keep *k)
{
	if (!k)
		return;
	pyrt_plugins_free(k->before);
	free(k);
}
