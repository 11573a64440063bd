/*
 * One plugin's row text and its requirements install, shared by
 * `pyrt plugins` (cmd_plugins.c), the dashboard (tui/) and the API
 * (serve/).  The install
 * holds the box lock for the whole pip work, as pip.h asks: an installer
 * may otherwise swap the install pip writes into.
 */
#include "app/plugin.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/fix.h"
#include "app/status.h"
#include "core/diagnose/doctor.h"
#include "core/pkgs/pip.h"
#include "core/pkgs/wheellock.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/dists.h"
#include "core/runtime/marker.h"
#include "core/runtime/lock.h"
#include "core/runtime/status.h"
#include "core/util/fmt.h"
#include "core/util/testhook.h"

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

void app_plugin_deps_long(const pyrt_plugin *pl, int runtime_ready, char *buf,
			  size_t len)
{
	app_plugin_deps(pl, runtime_ready, buf, len);
	if (!pl->require_count || !app_plugin_checked(pl, runtime_ready))
		return;
	const char *sep = "; missing: ";
	for (size_t i = 0; i < pl->require_count; i++)
		if (!pl->requires[i].installed) {
			app_cat(buf, len, "%s%s", sep, pl->requires[i].name);
			sep = ", ";
		}
	sep = "; conflict: ";
	for (size_t i = 0; i < pl->require_count; i++)
		if (pl->requires[i].conflict) {
			app_cat(buf, len, "%s%s %s", sep, pl->requires[i].spec,
				pl->requires[i].installed);
			sep = ", ";
		}
}

void app_plugin_sentence(const pyrt_plugin *pl, int runtime_ready, char *buf,
			 size_t len)
{
	char deps[512];
	app_plugin_deps_long(pl, runtime_ready, deps, sizeof deps);
	snprintf(buf, len, "plugin %s: %s (deps: %s)%s%s", pl->name,
		 pyrt_verdict_name(pl->verdict), deps,
		 pl->fix ? " — fix: " : "", pl->fix ? pl->fix : "");
}

int app_plugins_check(pyrt_plugins **out, const char *box_root,
		      const pyrt_pins *pins, const char *platform_key,
		      int memo, const pyrt_status *st, const pyrt_events *ev,
		      pyrt_error *err)
{
	*out = NULL;
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, box_root, 0, err);
	if (!rc && memo)
		rc = pyrt_plugins_check_memo(out, box, pins, platform_key, st,
					     ev, err);
	else if (!rc)
		rc = pyrt_plugins_check(out, box, pins, platform_key, ev, err);
	pyrt_box_free(box);
	return rc;
}

int app_plugin_works(const pyrt_plugin *pl)
{
	return pl->verdict == PYRT_VERDICT_READY ||
	       pl->verdict == PYRT_VERDICT_DISABLED ||
	       pl->verdict == PYRT_VERDICT_NO_RUNTIME_NEEDED;
}

/* pip under the lock: the batch, then each requirement alone.  The pins'
 * wheel lock binds plugins too: a locked fleet installs no unlocked code
 * as root (wheellock.h). */
static int plugin_pip(const app_request *opts, const pyrt_box *box,
		      const pyrt_pins *pins, const char *name,
		      const char *const *reqs, size_t nreqs,
		      int lock_fd, const pyrt_events *ev, pyrt_pip_result *last,
		      pyrt_error *err)
{
	char purpose[320];
	snprintf(purpose, sizeof purpose, "plugin %s", name);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	po.box = box;
	po.requirements = reqs;
	po.requirement_count = nreqs;
	po.wheelhouse = opts->wheelhouse;
	po.pins = pins;
	po.cacert = opts->cacert;
	po.index_url = opts->index_url;
	po.purpose = purpose;
	po.lock_fd = lock_fd;
	pyrt_pip_each_result res;
	int rc = pyrt_wheellock_pip_install(&po, pins, ev, &res, err);
	if (last)
		*last = res.last;
	pyrt_pip_each_result_clear(&res);
	return rc;
}

/* reqs of plugin name under the box lock; *locked (may be NULL) says
 * whether pip got to run. */
/* The box's declared state (declared.h), read for a change: *d and its
 * path; 0 or -1 (then nothing is declared by this run: an older box
 * without the file gets one). */
static int declared_open(const pyrt_box *box, pyrt_declared **d,
			 char *path, size_t len)
{
	int found = 0, rc = -1;
	*d = pyrt_declared_new();
	if (*d && box &&
	    pyrt_declared_path(pyrt_box_runtime_dir(box), path, len,
			       NULL) == 0 &&
	    pyrt_declared_read(*d, path, &found, NULL) == 0)
		rc = 0;
	if (rc) {
		pyrt_declared_free(*d);
		*d = NULL;
	}
	return rc;
}

/* A plugin's requirements declared (with its re-apply pending or done);
 * the caller holds the box lock: the file is read, changed and written
 * back, and a baseline writes what it read under the lock when it ends. */
static void declare_plugin_locked(const pyrt_box *box, const char *name,
				  const char *const *reqs, size_t n,
				  int pending)
{
	pyrt_declared *d = NULL;
	char path[4096];
	pyrt_testhook("plugin-declare");
	if (declared_open(box, &d, path, sizeof path) != 0)
		return;
	if (reqs)
		pyrt_declared_set_plugin(d, name, reqs, n);
	if (pending)
		pyrt_declared_pending_add(d, PYRT_DECLARED_REAPPLY, name);
	else
		pyrt_declared_pending_clear(d, PYRT_DECLARED_REAPPLY, name);
	pyrt_declared_write(d, path, NULL);
	pyrt_declared_free(d);
}

/* The same, taking the box lock for it (waiting while another run holds
 * it); without the lock nothing is written. */
static void declare_plugin(const pyrt_box *box, const char *name,
			   const char *const *reqs, size_t n, int pending)
{
	pyrt_lock *lock = NULL;
	if (box && pyrt_lock_acquire(&lock, pyrt_box_lock_path(box), 1, NULL,
				     NULL) == 0)
		declare_plugin_locked(box, name, reqs, n, pending);
	pyrt_lock_release(lock);
}

/* What plugin_install_specs declares, under its lock, once pip succeeded. */
typedef enum declare_after {
	DECLARE_NOTHING = 0,
	DECLARE_REQS,     /* the plugin's requirements, nothing pending */
	DECLARE_DONE,     /* its pending re-apply done */
} declare_after;

size_t app_plugins_pending_names(const pyrt_box *box, char *buf, size_t len)
{
	pyrt_declared *d = NULL;
	char path[4096];
	size_t count = 0;
	if (len)
		buf[0] = '\0';
	if (declared_open(box, &d, path, sizeof path) != 0)
		return 0;
	for (size_t i = 0; i < pyrt_declared_pending_count(d); i++) {
		const char *plugin = "";
		const char *kind = pyrt_declared_pending_at(d, i, &plugin);
		if (strcmp(kind, PYRT_DECLARED_REAPPLY) != 0)
			continue;
		size_t n = strlen(buf);
		pyrt_fmt_text(buf + n, len - n, "%s%s", count ? ", " : "",
			      plugin);
		count++;
	}
	pyrt_declared_free(d);
	return count;
}

static int plugin_install_specs(const app_request *opts, const pyrt_box *box,
				const pyrt_pins *pins, const char *name,
				const char *const *reqs, size_t nreqs,
				declare_after declare, const pyrt_events *ev,
				pyrt_pip_result *last, int *locked,
				pyrt_error *err)
{
	pyrt_lock *lock = NULL;
	char command[320];
	app_request with;
	char source[4096];
	opts = app_with_source(opts, &with, source, sizeof source);
	snprintf(command, sizeof command, "plugins install %s", name);
	int rc = pyrt_box_check_change(box, command, err);
	if (!rc)
		rc = pyrt_lock_acquire(&lock, pyrt_box_lock_path(box),
				       !opts->no_wait, ev, err);
	if (!rc && locked)
		*locked = 1;
	if (!rc)
		rc = plugin_pip(opts, box, pins, name, reqs, nreqs,
				pyrt_lock_fd(lock), ev, last, err);
	/* Declared while the lock is held: a baseline that starts between
	 * this pip run and the write would otherwise read the file before
	 * it and write its copy back after, and the plugin's requirements
	 * would be lost from the declared state. */
	if (!rc && declare != DECLARE_NOTHING)
		declare_plugin_locked(box, name,
				      declare == DECLARE_REQS ? reqs : NULL,
				      nreqs, 0);
	pyrt_lock_release(lock);
	return rc;
}

/* What one plugin install holds, so one cleanup frees it on every path. */
typedef struct plugin_run {
	const app_request *req;
	const pyrt_pins *pins;
	const char *platform_key;
	const char *name;
	const app_front *front;
	pyrt_box *box;              /* opened once, at the matrix's first read */
	pyrt_events ev;
	pyrt_status status;
	pyrt_plugins *plugins;
	const pyrt_plugin *pl;      /* its row in plugins, or NULL */
	pyrt_pip_result last;       /* the last pip run's */
	int started;                /* the pip step began */
	int locked;                 /* pip got to run */
	pyrt_error err;
	char text[2048];            /* the outcome's words */
} plugin_run;

/* The runtime's status and the matrix, as `pyrt plugins` reads them, and
 * the plugin's row in it. */
static int read_row(plugin_run *r, pyrt_error *err)
{
	pyrt_plugins_free(r->plugins);
	r->plugins = NULL;
	r->pl = NULL;
	int rc = app_status_read_memo(r->req->box_root, r->pins,
				       r->platform_key, 0, &r->status, err);
	/* Opened where the check opened it, so a box that does not open
	 * is reported as before, after the status. */
	if (!rc && !r->box)
		rc = pyrt_box_open(&r->box, r->req->box_root, 0, err);
	if (!rc)
		rc = pyrt_plugins_check_memo(&r->plugins, r->box, r->pins,
					     r->platform_key, &r->status,
					     &r->ev, err);
	if (!rc && app_fix_plugins(r->req, r->plugins))
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!rc) {
		app_fix_status(r->req, &r->status);
		r->pl = pyrt_plugins_find(r->plugins, r->name);
	}
	return rc;
}

/* "a, b, c" of the known plugins, for the unknown-name message. */
static void known_names(const pyrt_plugins *p, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < pyrt_plugins_count(p); i++)
		app_cat(buf, len, "%s%s", i ? ", " : "",
			pyrt_plugins_at(p, i)->name);
	if (!buf[0])
		app_cat(buf, len, "none");
}

int app_plugin_lookup(const pyrt_plugins *p, const char *box_root,
		      const char *name, const pyrt_plugin **out,
		      pyrt_error *err)
{
	char known[1024];
	const pyrt_plugin *pl = pyrt_plugins_find(p, name);
	*out = pl;
	if (!pl) {
		known_names(p, known, sizeof known);
		return pyrt_error_set(err, PYRT_E_USAGE, "no plugin named '%s' in %s/plugins (known: %s)",
				      name, box_root, known);
	}
	if (pl->verdict == PYRT_VERDICT_INVALID)
		return pyrt_error_set(err, PYRT_E_USAGE, "plugin '%s' is invalid: %s",
				      name, pl->error ? pl->error : "unreadable manifest");
	return 0;
}

/* What stops the install before anything starts; 0 when nothing does. */
static int plugin_refusal(plugin_run *r)
{
	pyrt_error *err = &r->err;
	if (pyrt_events_cancelled(&r->ev))
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	int rc = read_row(r, err);
	char fix[PATH_MAX + 160];
	if (rc && pyrt_doctor_plugins_fix(r->req->box_root, fix, sizeof fix))
		return pyrt_error_set(err, rc, "plugins: %s; fix: %s",
				      err->msg[0] ? err->msg : pyrt_strerror(rc),
				      fix);
	if (rc)
		return pyrt_error_set(err, rc, "plugins: %s",
				      err->msg[0] ? err->msg : pyrt_strerror(rc));
	if ((rc = app_plugin_lookup(r->plugins, r->req->box_root, r->name,
				    &r->pl, err)) != 0)
		return rc;
	if (!pyrt_plugins_runtime_ready(r->plugins))
		return pyrt_error_set(err, PYRT_E_NOT_READY, "plugin %s: the managed runtime is not ready: %s",
				      r->name, r->status.message);
	/* Another user of root's box is told before a step begins, not
	 * after "begin … failed after 0.0 s" (plugin_install_specs asks
	 * again under the lock). */
	char command[320];
	snprintf(command, sizeof command, "plugins install %s", r->name);
	return pyrt_box_check_change(r->box, command, err);
}

/* The requirements as one step (pip's own runs folded into it, as the
 * baseline's are), then the row read again. */
static int plugin_pip_step(plugin_run *r)
{
	const pyrt_plugin *pl = r->pl;
	char detail[320];
	r->started = 1;
	snprintf(detail, sizeof detail, "%zu requirement%s of %s",
		 pl->require_count, pl->require_count == 1 ? "" : "s", pl->name);
	if (pyrt_events_step(&r->ev, PYRT_STEP_BASELINE, PYRT_STEP_BEGIN,
			     detail))
		return pyrt_error_set(&r->err, PYRT_E_CANCELLED, "cancelled");
	const char **reqs = calloc(pl->require_count + 1, sizeof *reqs);
	if (!reqs)
		return pyrt_error_set(&r->err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < pl->require_count; i++)
		reqs[i] = pl->requires[i].spec;
	pyrt_events inner = pyrt_events_fold_steps(&r->ev);
	/* What the runtime should hold from now on, whatever install
	 * `current` points at (a re-apply after a switch reads it). */
	int rc = plugin_install_specs(r->req, r->box, r->pins, pl->name, reqs,
				      pl->require_count, DECLARE_REQS, &inner,
				      &r->last, &r->locked, &r->err);
	free(reqs);
	/* pip's refusal is the plugin's failure, not the baseline's: its
	 * own class and exit code (15). */
	if (rc == PYRT_E_BASELINE)
		rc = r->err.code = PYRT_E_PLUGIN;
	pyrt_events_step(&r->ev, PYRT_STEP_BASELINE,
			 rc ? PYRT_STEP_FAIL : PYRT_STEP_END,
			 rc ? r->err.msg : NULL);
	r->pl = NULL; /* it dies with the old matrix */
	if (rc == PYRT_E_CANCELLED)
		return rc;
	pyrt_error cerr = PYRT_ERROR_INIT;
	int crc = read_row(r, &cerr);
	if (rc == 0 && (crc || !r->pl))
		rc = pyrt_error_set(&r->err, PYRT_E_INTERNAL,
				    "installed, but the plugin could not be checked again: %s",
				    crc ? cerr.msg : "it is no longer in the box");
	return rc;
}

/* The one outcome; the pyrt_code the exit status comes from. */
static int plugin_outcome(plugin_run *r, int rc)
{
	char fixed[PYRT_ERROR_MSG_MAX + 1024];
	app_outcome o = { .command = "plugins install", .code = rc,
			  .before_start = rc && !r->started };
	if (r->pl && !o.before_start) {
		o.plugin = r->pl;
		o.plugin_runtime_ready = pyrt_plugins_runtime_ready(r->plugins);
		app_plugin_sentence(r->pl, o.plugin_runtime_ready, r->text,
				    sizeof r->text);
		/* The wheel lock refused the requirements: installing the
		 * plugin again cannot succeed while the lock holds, so the
		 * row's own fix gives way to the refusal's (re-lock). */
		char *fix = strstr(r->text, " — fix: ");
		if (rc == PYRT_E_VERIFY && pyrt_pins_lock_count(r->pins) && fix)
			snprintf(fix, sizeof r->text - (size_t)(fix - r->text),
				 " — fix: re-lock the wheels, as below");
	}
	if (!rc && !r->started)
		app_cat(r->text, sizeof r->text,
			"; it requires no packages, nothing to install");
	if (r->last.log_path[0])
		o.pip_log = r->last.log_path;
	if (rc == 0) {
		o.summary = r->text;
	} else {
		app_fix_text(r->req, r->err.msg[0] ? r->err.msg
						    : pyrt_strerror(rc),
			     fixed, sizeof fixed);
		o.error = fixed;
		if (r->locked && rc == PYRT_E_VERIFY)
			o.unchanged = "the runtime is still active; the wheel lock let nothing be installed";
		else if (r->locked)
			o.unchanged = "the runtime is still active; what pip did install stays installed";
		if (o.plugin)
			app_front_log(r->front, PYRT_LOG_INFO, "%s", r->text);
	}
	app_front_result(r->front, &o);
	if (rc == 0 && o.plugin && !app_plugin_works(o.plugin))
		return PYRT_E_NOT_READY;
	return rc;
}

int app_plugin_install_execute(const app_request *req, const pyrt_pins *pins,
			       const char *platform_key, const char *name,
			       const app_front *front,
			       const atomic_int *cancel)
{
	plugin_run *r = calloc(1, sizeof *r);
	if (!r)
		return app_front_refuse(front, "plugins install", PYRT_E_NOMEM,
					"out of memory");
	*r = (plugin_run){ .req = req, .pins = pins,
			   .platform_key = platform_key, .name = name,
			   .front = front, .err = PYRT_ERROR_INIT };
	r->ev = app_front_events(front, cancel);
	int rc = plugin_refusal(r);
	/* What a stopped run left pending first: the runtime converges to
	 * what the box declares before this plugin adds to it. */
	if (!rc)
		rc = app_plugins_finish_pending(req, r->box, pins, &r->ev,
						NULL, &r->err);
	if (!rc && r->pl->require_count)
		rc = plugin_pip_step(r);
	rc = plugin_outcome(r, rc);
	pyrt_plugins_free(r->plugins);
	pyrt_box_free(r->box);
	free(r);
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

app_plugins_keep *app_plugins_keep_before(const pyrt_box *box,
					  const pyrt_pins *pins,
					  const char *platform_key,
					  const pyrt_events *ev)
{
	pyrt_plugins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	if (!box || pyrt_plugins_check(&p, box, pins, platform_key, ev,
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

/* One plugin: what it had and lost, installed again. */
static int reapply_one(const pyrt_plugin *was, const pyrt_plugins *now,
		       const app_request *opts, const pyrt_box *box,
		       const pyrt_pins *pins,
		       const pyrt_events *ev, size_t *reapplied,
		       pyrt_error *err)
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
	app_join(specs, n, list, sizeof list);
	if (n)
		rc = pyrt_events_log(ev, PYRT_LOG_INFO, "plugin %s: "
				     "re-applying %zu requirement%s it had "
				     "before the install: %s", was->name, n,
				     n == 1 ? "" : "s", list);
	if (n && !rc) {
		pyrt_testhook("plugin-reapply");
		pyrt_error perr = PYRT_ERROR_INIT;
		int prc = plugin_install_specs(opts, box, pins, was->name, specs,
					       n, DECLARE_DONE, ev, NULL, NULL,
					       &perr);
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
	if (!n && !rc)
		declare_plugin(box, was->name, NULL, 0, 0);
	free(specs);
	return rc ? pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled") : 0;
}

int app_plugins_keep_reapply(const app_plugins_keep *k, const app_request *opts,
			     const pyrt_box *box, const pyrt_pins *pins,
			     const char *platform_key,
			     const pyrt_events *ev, size_t *reapplied,
			     pyrt_error *err)
{
	if (reapplied)
		*reapplied = 0;
	if (!k)
		return 0;
	pyrt_plugins *now = NULL;
	pyrt_error cerr = PYRT_ERROR_INIT;
	if (pyrt_plugins_check(&now, box, pins, platform_key, ev, &cerr) != 0)
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
			rc = reapply_one(was, now, opts, box, pins, ev, reapplied,
					 err);
	}
	pyrt_plugins_free(now);
	return rc;
}

void app_plugins_keep_declare(const app_plugins_keep *k, const pyrt_box *box)
{
	for (size_t i = 0; k && i < pyrt_plugins_count(k->before); i++) {
		const pyrt_plugin *was = pyrt_plugins_at(k->before, i);
		if (!keeps(was))
			continue;
		const char **specs = calloc(was->require_count + 1,
					    sizeof *specs);
		size_t n = 0;
		for (size_t j = 0; specs && j < was->require_count; j++)
			if (kept(&was->requires[j]))
				specs[n++] = was->requires[j].spec;
		if (n)
			declare_plugin(box, was->name, specs, n, 1);
		free(specs);
	}
}

/*
 * How many of reqs the active install lacks (declared.h's comparison: not
 * installed whole, outside its specifier, or what they require missing);
 * 0 when that cannot be read (the run that finds out says why).
 */
static int active_gaps(const pyrt_box *box, const char *const *reqs,
		       size_t n)
{
	pyrt_marker *m = malloc(sizeof *m);
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int gaps = 0;
	if (m && pyrt_box_link_install(box, pyrt_box_current(box), dir, sizeof dir,
				  NULL) == 0 &&
	    pyrt_fmt_path(path, sizeof path, NULL, "%s/marker.json", dir) == 0 &&
	    pyrt_marker_read(path, m, NULL) == 0) {
		pyrt_dists *d = pyrt_dists_for_install(dir, m);
		if (d)
			gaps = pyrt_declared_diff_reqs(reqs, n, d, NULL, NULL,
						       NULL);
		pyrt_dists_free(d);
	}
	free(m);
	return gaps;
}

/* One plugin's declared requirements installed again: a re-apply a
 * stopped run left pending, or (pending 0) requirements that went missing
 * since its install. */
static int finish_one(const pyrt_declared *d, const char *name, int pending,
		      const app_request *opts, const pyrt_box *box,
		      const pyrt_pins *pins,
		      const pyrt_events *ev, size_t *done)
{
	long at = pyrt_declared_plugin_find(d, name);
	size_t n = 0;
	const char *const *reqs = at >= 0
		? pyrt_declared_plugin_reqs(d, (size_t)at, &n) : NULL;
	if (!n) {
		if (pending)
			declare_plugin(box, name, NULL, 0, 0);
		return 0;
	}
	if (!pending && active_gaps(box, reqs, n) == 0)
		return 0;
	char list[1024];
	app_join((const char **)reqs, n, list, sizeof list);
	if (pyrt_events_log(ev, PYRT_LOG_INFO, pending
			    ? "plugin %s: finishing the re-apply a stopped "
			      "run left pending: %s"
			    : "plugin %s: installing again what it declares "
			      "and the runtime lacks: %s", name, list))
		return PYRT_E_CANCELLED;
	pyrt_error perr = PYRT_ERROR_INIT;
	int rc = plugin_install_specs(opts, box, pins, name, reqs, n,
				      pending ? DECLARE_DONE : DECLARE_NOTHING,
				      ev, NULL, NULL, &perr);
	if (rc == PYRT_E_CANCELLED)
		return rc;
	if (rc)
		return pyrt_events_log(ev, PYRT_LOG_WARN, "plugin %s: could "
				       "not install %s again: %s%s", name,
				       list, perr.msg, pending
				       ? " — it stays pending" : "")
			       ? PYRT_E_CANCELLED : 0;
	if (done)
		(*done)++;
	return 0;
}

int app_plugins_finish_pending(const app_request *opts, const pyrt_box *box,
			       const pyrt_pins *pins, const pyrt_events *ev,
			       size_t *done, pyrt_error *err)
{
	pyrt_declared *d = NULL;
	char path[4096];
	if (declared_open(box, &d, path, sizeof path) != 0)
		return 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < pyrt_declared_pending_count(d); i++) {
		const char *plugin = "";
		const char *kind = pyrt_declared_pending_at(d, i, &plugin);
		if (strcmp(kind, PYRT_DECLARED_REAPPLY) == 0 && plugin[0])
			rc = finish_one(d, plugin, 1, opts, box, pins, ev,
					done);
	}
	/* Then every declared plugin whose requirements went missing since
	 * (uninstalled, files deleted): the reconcile installs exactly what
	 * the declared state lacks, not only what a stopped run left. */
	for (size_t i = 0; !rc && i < pyrt_declared_plugin_count(d); i++) {
		const char *name = pyrt_declared_plugin_name(d, i);
		int was_pending = 0;
		for (size_t j = 0; j < pyrt_declared_pending_count(d); j++) {
			const char *plugin = "";
			const char *kind = pyrt_declared_pending_at(d, j,
								    &plugin);
			was_pending |= strcmp(kind, PYRT_DECLARED_REAPPLY) ==
					       0 && strcmp(plugin, name) == 0;
		}
		if (!was_pending)
			rc = finish_one(d, name, 0, opts, box, pins, ev,
					done);
	}
	pyrt_declared_free(d);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

void app_plugins_keep_free(app_plugins_keep *k)
{
	if (!k)
		return;
	pyrt_plugins_free(k->before);
	free(k);
}
