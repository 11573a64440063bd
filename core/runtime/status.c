/*
 * One honest answer about the runtime, computed from files only (the
 * current link, the marker, the interpreter's presence, the lock), so that
 * `pyrt status` is cheap enough for a prompt or a health probe.  --deep adds
 * one interpreter start.
 */
#include "core/runtime/interp.h"
#include "core/runtime/status.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/digest_memo.h"
#include "core/dist/manifest.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/dists.h"
#include "core/runtime/lock.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/proc.h"
#include "core/util/size.h"

const char *pyrt_state_name(pyrt_state state)
{
	switch (state) {
	case PYRT_STATE_READY: return "ready";
	case PYRT_STATE_NOT_PROVISIONED: return "not_provisioned";
	case PYRT_STATE_BROKEN: return "broken";
	case PYRT_STATE_UNSUPPORTED: return "unsupported";
	case PYRT_STATE_INSTALLING: return "installing";
	case PYRT_STATE_UNTRUSTED: return "untrusted";
	}
	return "unknown";
}

/* Broken, naming the failed check and the fix. */
static int status_broken(pyrt_status *st, const char *check, const char *why)
{
	st->state = PYRT_STATE_BROKEN;
	pyrt_fmt_text(st->failed_check, sizeof st->failed_check, "%s", check);
	pyrt_fmt_text(st->failed_why, sizeof st->failed_why, "%s", why);
	/* Sized for both fields whole: the fix at its end is never cut. */
	pyrt_fmt_text(st->message, sizeof st->message,
		      "managed Python runtime is broken (%s: %s) — run \"pyrt install "
		      "--force\" to reinstall it", st->failed_check, st->failed_why);
	return 0;
}

static void status_unsupported(pyrt_status *st, const pyrt_pins *pins)
{
	char keys[512] = "";
	for (size_t i = 0; i < pyrt_pins_archive_count(pins); i++) {
		size_t used = strlen(keys);
		if (pyrt_fmt_text(keys + used, sizeof keys - used, "%s%s",
				  i ? ", " : "",
				  pyrt_pins_archive_at(pins, i)->key))
			break;
	}
	st->state = PYRT_STATE_UNSUPPORTED;
	pyrt_fmt_text(st->message, sizeof st->message,
		      "no managed Python runtime is pinned for this platform (%s); "
		      "supported: %s", st->platform, keys);
}

static void status_not_provisioned(pyrt_status *st,
				   const pyrt_pin_archive *pin)
{
	/* The size only when the pin says it (the one size format). */
	char size[32] = "";
	if (pin->size)
		pyrt_size_human(pin->size, size, sizeof size);
	st->state = PYRT_STATE_NOT_PROVISIONED;
	pyrt_fmt_text(st->message, sizeof st->message,
		      "managed Python runtime not provisioned — run \"pyrt install\" "
		      "(%s%s, one time)", size[0] ? "~" : "a download",
		      size);
}

/* Start the interpreter and require the marker's version (--deep only). */
static int status_deep_check(pyrt_status *st, const char *home)
{
	const char *argv[PYRT_INTERP_PREFIX_LEN + 5] = { NULL };
	size_t k = pyrt_interp_argv(argv, st->interpreter);
	const char *const version[] = { PYRT_INTERP_VERSION_ARGS };
	for (size_t i = 0; i < sizeof version / sizeof *version; i++)
		argv[k++] = version[i];
	char **envp = pyrt_proc_scrubbed_env(home);
	if (!envp)
		return status_broken(st, "interpreter", "out of memory");
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.timeout_s = 30;
	po.capture_max = 4096;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	pyrt_error perr = PYRT_ERROR_INIT;
	int rc = pyrt_proc_run(&po, &pr, &perr);
	pyrt_proc_env_free(envp);
	char got[64] = "", prefix[PATH_MAX] = "";
	if (!rc && pr.output) {
		sscanf(pr.output, "%63s", got);
		const char *nl = strchr(pr.output, '\n');
		pyrt_fmt_text(prefix, sizeof prefix, "%s", nl ? nl + 1 : "");
		prefix[strcspn(prefix, "\n")] = '\0';
	}
	char why[512] = "";
	if (rc)
		pyrt_fmt_text(why, sizeof why, "%s", perr.msg);
	else if (pr.timed_out)
		pyrt_fmt_text(why, sizeof why, "did not answer within 30 s");
	else if (!pr.exited || pr.exit_code != 0)
		pyrt_fmt_text(why, sizeof why, "does not start (exit %d, signal %d)",
			      pr.exit_code, pr.term_signal);
	else if (strcmp(got, st->marker.version) != 0)
		pyrt_fmt_text(why, sizeof why, "reports %s, the marker says %s", got,
			      st->marker.version);
	/* doctor's check too: a python that runs from somewhere else
	 * (a copied binary, a symlink out of the install) is not this one */
	else if (!pyrt_fs_path_inside(prefix, home))
		pyrt_fmt_text(why, sizeof why, "runs with sys.prefix %.200s, outside "
			      "its install %.200s", prefix[0] ? prefix : "(none)",
			      home);
	pyrt_proc_result_clear(&pr);
	return why[0] ? status_broken(st, "interpreter", why) : 0;
}

/* The PEP 503 name of a requirement ("Python_Docx>=1" → "python-docx"). */
static void req_norm(const char *req, char *out, size_t len)
{
	size_t o = 0;
	for (; *req && o + 1 < len; req++) {
		char c = *req;
		if (strchr("-_.", c)) {
			if (o && out[o - 1] != '-')
				out[o++] = '-';
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			out[o++] = c;
		} else if (c >= 'A' && c <= 'Z') {
			out[o++] = (char)(c - 'A' + 'a');
		} else {
			break;
		}
	}
	out[o] = '\0';
}

/* name joins m's missing list once (by its PEP 503 name). */
static void missing_add(pyrt_marker *m, const char *name)
{
	char have[128], want[128];
	req_norm(name, want, sizeof want);
	for (int i = 0; i < m->baseline_missing_count; i++) {
		req_norm(m->baseline_missing[i], have, sizeof have);
		if (strcmp(have, want) == 0)
			return;
	}
	if (m->baseline_missing_count < PYRT_MARKER_MISSING_MAX)
		pyrt_fmt_text(m->baseline_missing[m->baseline_missing_count++],
			      sizeof m->baseline_missing[0], "%s", name);
}

typedef struct verdict_ctx {
	pyrt_marker *m;
	int broken;
	char *why;
	size_t whylen;
} verdict_ctx;

static void on_broken(const char *name, const char *version, const char *why,
		      void *ctx)
{
	verdict_ctx *v = ctx;
	(void)version;
	if (!v->broken++ && v->why)
		pyrt_fmt_text(v->why, v->whylen, "%s: %s", name, why);
	/* "none" stays none: nothing declared is installed, and this one
	 * joins what is missing. */
	if (strcmp(v->m->baseline_state, "complete") == 0)
		pyrt_fmt_text(v->m->baseline_state, sizeof v->m->baseline_state,
			      "partial");
	missing_add(v->m, name);
}

typedef struct gap_ctx {
	pyrt_marker *m;
	size_t top;     /* declared requirements missing (not dependencies) */
} gap_ctx;

static void on_gap(const char *req, const char *name, pyrt_declared_gap gap,
		   const char *have, void *ctx)
{
	gap_ctx *g = ctx;
	char norm[128];
	(void)req;
	(void)have;
	g->top += gap != PYRT_GAP_DEP_MISSING;
	/* PEP 503's spelling, as the not-whole ones are named: one name for
	 * "et_xmlfile" (a Requires-Dist) and "et-xmlfile". */
	req_norm(name, norm, sizeof norm);
	missing_add(g->m, norm[0] ? norm : name);
}

/*
 * The declared baseline against what is installed: the one verdict.  A
 * requirement whose dist-info is gone is missing whatever the marker says
 * (it was never looked at before), and a baseline whose every requirement
 * is installed whole is complete even when a signal stopped the run before
 * the marker said so.  Requirements C cannot judge keep the marker's word.
 */
static void verdict_declared(pyrt_marker *m, const pyrt_declared *decl,
			     pyrt_dists *d)
{
	pyrt_marker seen = *m;
	seen.baseline_missing_count = 0;
	int unknown = 0;
	gap_ctx g = { &seen, 0 };
	int gaps = pyrt_declared_diff_baseline(decl, d, on_gap, &g, &unknown);
	size_t n = pyrt_declared_baseline_count(decl);
	if (unknown)
		for (int i = 0; i < m->baseline_missing_count; i++)
			missing_add(&seen, m->baseline_missing[i]);
	const char *state = gaps == 0 && !unknown ? "complete"
			  : gaps == 0 ? m->baseline_state
			  : n && g.top >= n ? "none" : "partial";
	if (!state[0])
		state = "none";
	pyrt_fmt_text(seen.baseline_state, sizeof seen.baseline_state, "%s", state);
	if (strcmp(state, "complete") == 0)
		seen.baseline_error[0] = '\0';
	*m = seen;
}

/* The box's declared.json (declared.h), read once for all status asks
 * of it: NULL when there is none or it cannot be read. */
static pyrt_declared *declared_load(const char *runtime_dir)
{
	char path[PATH_MAX];
	pyrt_declared *decl = pyrt_declared_new();
	int found = 0;
	if (decl && runtime_dir &&
	    pyrt_declared_path(runtime_dir, path, sizeof path, NULL) == 0 &&
	    pyrt_declared_read(decl, path, &found, NULL) == 0 && found)
		return decl;
	pyrt_declared_free(decl);
	return NULL;
}

/* The verdict against decl (NULL: nothing declared), with the box's memo
 * of distributions found whole when keep_memo (dists_memo.h). */
static int baseline_verdict(const char *runtime_dir, const char *install_dir,
			    const pyrt_declared *decl, pyrt_marker *m,
			    char *why, size_t whylen, int keep_memo)
{
	pyrt_dists *d = pyrt_dists_for_install(install_dir, m);
	if (!d)
		return 0;
	char cache[PATH_MAX];
	if (keep_memo && runtime_dir &&
	    pyrt_fmt_path(cache, sizeof cache, NULL, "%s/%s", runtime_dir,
			  PYRT_BOX_CACHE_DIR) == 0)
		pyrt_dists_keep_memo(d, cache);
	int declared = 0;
	if (decl && pyrt_declared_baseline_known(decl)) {
		verdict_declared(m, decl, d);
		declared = 1;
	}
	verdict_ctx v = { m, 0, why, whylen };
	const char *b = m->baseline_state;
	if (declared || strcmp(b, "complete") == 0 ||
	    strcmp(b, "partial") == 0)
		pyrt_dists_each_broken(d, on_broken, &v);
	pyrt_dists_free(d);
	return v.broken;
}

int pyrt_status_baseline_verdict(const char *runtime_dir,
				 const char *install_dir, pyrt_marker *m,
				 char *why, size_t whylen)
{
	pyrt_declared *decl = declared_load(runtime_dir);
	int rc = baseline_verdict(runtime_dir, install_dir, decl, m, why,
				  whylen, 0);
	pyrt_declared_free(decl);
	return rc;
}

/*
 * Once pip has run, a distribution counts only when the files its RECORD
 * lists are there (dists.h), and the declared baseline only when each of
 * its requirements is installed (declared.h): a package moved or deleted
 * since makes the baseline partial here, as it does in plugins, doctor and
 * smoke.  A reader with the box's memo (status, plugins, the TUI; not
 * --deep) stats the folders that hold listed files instead of every file
 * (dists_memo.h: a deletion changes its folder, so nothing is hidden);
 * --deep, doctor and every installer stat each listed file.
 */
static void status_baseline_files(pyrt_status *st, const pyrt_box *box,
				  const pyrt_declared *decl, int keep_memo)
{
	st->baseline_broken = baseline_verdict(
		pyrt_box_runtime_dir(box), st->install_dir, decl, &st->marker,
		st->baseline_broken_why, sizeof st->baseline_broken_why,
		keep_memo);
}

/* The plugin re-applies a stopped run left pending, and whether the lock
 * the box declares is the one the pins in effect carry (declared.h). */
static void status_pending(pyrt_status *st, const pyrt_declared *d,
			   const pyrt_pins *pins)
{
	if (!d)
		return;
	if (pyrt_declared_baseline_known(d) &&
	    pyrt_pins_lock_digest(pins, st->platform,
				  st->lock_in_effect) >= 0) {
		pyrt_fmt_text(st->lock_declared, sizeof st->lock_declared,
			      "%s", pyrt_declared_lock(d));
		st->lock_differs = strcmp(st->lock_declared,
					  st->lock_in_effect) != 0;
	}
	for (size_t i = 0; i < pyrt_declared_pending_count(d) &&
	     st->pending_count < 4; i++) {
		const char *plugin = "";
		const char *kind = pyrt_declared_pending_at(d, i, &plugin);
		if (strcmp(kind, PYRT_DECLARED_REAPPLY) == 0)
			pyrt_fmt_text(st->pending[st->pending_count++],
				      sizeof st->pending[0], "%s", plugin);
	}
}

static void status_ready(pyrt_status *st, const pyrt_pins *pins,
			 const pyrt_pin_archive *pin)
{
	const pyrt_marker *m = &st->marker;
	st->state = PYRT_STATE_READY;
	/* The same test install uses for "already current", so that a tool
	 * (Ansible's check mode) can tell from status alone whether an
	 * install would change the host. */
	st->update_available = pin &&
		(strcmp(m->version, pyrt_pins_version(pins)) != 0 ||
		 strcmp(m->build, pyrt_pins_build(pins)) != 0 ||
		 !pyrt_sha256_hex_equal(m->sha256, pin->sha256));
	if (!st->update_available) {
		pyrt_fmt_text(st->message, sizeof st->message,
			      "managed CPython %s (build %s) is ready", m->version,
			      m->build);
	} else {
		pyrt_fmt_text(st->update_version, sizeof st->update_version, "%s",
			      pyrt_pins_version(pins));
		pyrt_fmt_text(st->update_build, sizeof st->update_build, "%s",
			      pyrt_pins_build(pins));
		pyrt_fmt_text(st->update_sha256, sizeof st->update_sha256, "%s",
			      pin->sha256);
		pyrt_fmt_text(st->message, sizeof st->message,
			      "managed CPython %s (build %s) is ready; the pins now say %s "
			      "(build %s) — run \"pyrt install\" to update", m->version,
			      m->build, pyrt_pins_version(pins), pyrt_pins_build(pins));
	}
	if (st->baseline_broken) {
		size_t n = strlen(st->message);
		pyrt_fmt_text(st->message + n, sizeof st->message - n,
			      "; %d installed package%s lack%s files (%s) — run "
			      "\"pyrt baseline\" to reinstall %s",
			      st->baseline_broken,
			      st->baseline_broken == 1 ? "" : "s",
			      st->baseline_broken == 1 ? "s" : "",
			      st->baseline_broken_why,
			      st->baseline_broken == 1 ? "it" : "them");
	}
	if (st->pending_count) {
		size_t n = strlen(st->message);
		pyrt_fmt_text(st->message + n, sizeof st->message - n,
			      "; a stopped run left plugin %s's requirements to "
			      "re-apply — run \"pyrt install\" to finish it",
			      st->pending[0]);
	}
}

struct pyrt_status_cache {
	pthread_mutex_t mu;
	char path[PATH_MAX];
	struct stat sb;
	char hex[PYRT_SHA256_HEX_LEN + 1];
	int valid;
	int in_box; /* also the box's digest memo (digest_memo.h) */
};

pyrt_status_cache *pyrt_status_cache_new(void)
{
	pyrt_status_cache *c = calloc(1, sizeof *c);
	if (c)
		pthread_mutex_init(&c->mu, NULL);
	return c;
}

pyrt_status_cache *pyrt_status_cache_new_in_box(void)
{
	pyrt_status_cache *c = pyrt_status_cache_new();
	if (c)
		c->in_box = 1;
	return c;
}

void pyrt_status_cache_free(pyrt_status_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The digest of path: from the cache or the box's memo when the file is
 * the one hashed before, else hashed (and remembered when it did not change
 * meanwhile). */
static int manifest_digest(pyrt_status_cache *c, pyrt_digest_memo *memo,
			   const char *path,
			   char hex[PYRT_SHA256_HEX_LEN + 1], pyrt_error *err)
{
	struct stat before, after;
	int have = (c || memo) && lstat(path, &before) == 0 &&
		   S_ISREG(before.st_mode);
	if (have && pyrt_digest_memo_get(memo, path, &before, hex))
		return 0;
	if (have && c) {
		pthread_mutex_lock(&c->mu);
		int hit = c->valid && strcmp(c->path, path) == 0 &&
			  same_file(&c->sb, &before);
		if (hit)
			memcpy(hex, c->hex, PYRT_SHA256_HEX_LEN + 1);
		pthread_mutex_unlock(&c->mu);
		if (hit)
			return 0;
	}
	int rc = pyrt_manifest_load(NULL, path, hex, err);
	if (rc != 0 || !have || lstat(path, &after) != 0 ||
	    !same_file(&before, &after))
		return rc;
	pyrt_digest_memo_put(memo, path, &before, hex);
	if (!c)
		return 0;
	pthread_mutex_lock(&c->mu);
	pyrt_fmt_text(c->path, sizeof c->path, "%s", path);
	c->sb = before;
	memcpy(c->hex, hex, PYRT_SHA256_HEX_LEN + 1);
	c->valid = 1;
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/*
 * manifest.tsv must be the one the marker recorded: hashing it costs a few
 * milliseconds and turns a truncated, emptied or replaced manifest into an
 * answer here rather than a surprise in verify.  A schema 1 marker records
 * no digest; verify and doctor say so.  Broken: returns 1.
 */
static int status_manifest(pyrt_status *st, const char *dir,
			   pyrt_status_cache *cache, pyrt_digest_memo *memo,
			   pyrt_error *fail)
{
	if (!st->marker.manifest_sha256[0])
		return 0;
	char path[PATH_MAX], hex[PYRT_SHA256_HEX_LEN + 1], why[PATH_MAX + 64];
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fmt_path(path, sizeof path, &err, "%s/manifest.tsv", dir);
	if (!rc)
		rc = manifest_digest(cache, memo, path, hex, &err);
	if (rc == PYRT_E_UNSUPPORTED) /* no libcrypto: nothing is known */
		return pyrt_error_set(fail, rc, "%s", err.msg);
	if (rc != 0) {
		status_broken(st, "manifest", err.msg);
		return 1;
	}
	if (pyrt_sha256_hex_equal(hex, st->marker.manifest_sha256))
		return 0;
	pyrt_fmt_text(why, sizeof why, "%s is not the manifest marker.json "
		      "recorded (changed or corrupted)", path);
	status_broken(st, "manifest", why);
	return 1;
}

/* The checks that need an install on disk, in the order they can fail.
 * Negative (fail set) only when they could not be made at all. */
static int status_installed(pyrt_status *st, const pyrt_box *box,
			    const pyrt_pins *pins, const pyrt_pin_archive *pin,
			    int deep, pyrt_status_cache *cache,
			    pyrt_digest_memo *memo, pyrt_error *fail)
{
	char dir[PATH_MAX];
	pyrt_error lerr = PYRT_ERROR_INIT;
	if (pyrt_box_link_install(box, st->path, dir, sizeof dir, &lerr) != 0)
		return status_broken(st, "current", lerr.msg);
	char path[PATH_MAX];
	pyrt_error merr = PYRT_ERROR_INIT;
	int rc = pyrt_fmt_path(path, sizeof path, &merr, "%s/marker.json", dir);
	if (!rc)
		rc = pyrt_marker_read_memo(path, &st->marker, memo, &merr);
	if (rc == PYRT_E_UNSUPPORTED)
		return pyrt_error_set(fail, rc, "%s", merr.msg);
	if (rc != 0)
		return status_broken(st, "marker", merr.msg);
	st->have_marker = 1;
	pyrt_fmt_text(st->install_dir, sizeof st->install_dir, "%s", dir);
	rc = status_manifest(st, dir, cache, memo, fail);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	struct stat sb;
	if (!st->interpreter[0])
		return status_broken(st, "interpreter", "its path is too long");
	if (stat(st->interpreter, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    access(st->interpreter, X_OK) != 0) {
		pyrt_fmt_text(path, sizeof path, "%s is missing or not "
			      "executable", st->interpreter);
		return status_broken(st, "interpreter", path);
	}
	if (strcmp(st->marker.platform, st->platform) != 0) {
		pyrt_fmt_text(path, sizeof path, "installed for %s, this machine is %s",
			      st->marker.platform, st->platform);
		return status_broken(st, "platform", path);
	}
	if (deep && status_deep_check(st, dir) != 0)
		return 0;
	if (st->state == PYRT_STATE_BROKEN)
		return 0;
	/* One read for the verdict and the pending work: both see the same
	 * declared state. */
	pyrt_declared *decl = declared_load(pyrt_box_runtime_dir(box));
	status_baseline_files(st, box, decl, memo != NULL && !deep);
	status_pending(st, decl, pins);
	pyrt_declared_free(decl);
	status_ready(st, pins, pin);
	return 0;
}

/* What every answer carries, whatever the box holds. */
static void status_begin(pyrt_status *st, const pyrt_pins *pins,
			 const char *platform_key)
{
	memset(st, 0, sizeof *st);
	pyrt_fmt_text(st->platform, sizeof st->platform, "%s", platform_key);
	pyrt_fmt_text(st->pins, sizeof st->pins, "%s", pyrt_pins_source(pins));
	pyrt_pins_lock_find(pins, platform_key, &st->baseline_locked_wheels);
}

/* The link checked and the interpreter inside it: the layout path minus
 * "python/". */
static void status_paths(pyrt_status *st, const char *link,
			 const pyrt_pins *pins)
{
	pyrt_fmt_text(st->path, sizeof st->path, "%s", link);
	const char *interp = pins ? pyrt_pins_layout_interpreter(pins) : NULL;
	const char *inner = interp && strchr(interp, '/') ? strchr(interp, '/') + 1
							 : "bin/python3";
	/* "" when it does not fit: status_installed says so, no cut path
	 * is checked in its place. */
	pyrt_fmt_path(st->interpreter, sizeof st->interpreter, NULL, "%s/%s",
		      st->path, inner);
}

void pyrt_status_check_link(const pyrt_box *box, const char *link,
			    const pyrt_pins *pins, const char *platform_key,
			    pyrt_status *st)
{
	status_begin(st, pins, platform_key);
	status_paths(st, link, pins);
	pyrt_error err = PYRT_ERROR_INIT;
	if (status_installed(st, box, pins, pyrt_pins_find(pins, platform_key),
			     0, NULL, NULL, &err) < 0)
		status_broken(st, "marker", err.msg);
}

/*
 * An installer holds the lock.  `current` always resolves to a complete
 * install, so a runtime that is ready stays ready (an upgrade is running
 * over it, and a tool gating on status keeps working); only a box without
 * a usable runtime is "installing".
 */
static void status_busy(pyrt_status *st, const pyrt_lock_holder *h)
{
	st->installer_pid = h->pid;
	char who[512];
	if (h->pid > 0)
		pyrt_fmt_text(who, sizeof who, "pid %ld on %s since %s", h->pid,
			      h->host[0] ? h->host : "an unknown host",
			      h->started[0] ? h->started : "an unknown time");
	else
		pyrt_fmt_text(who, sizeof who, "holder not recorded yet");
	if (st->state == PYRT_STATE_READY) {
		st->upgrade_in_progress = 1;
		size_t n = strlen(st->message);
		pyrt_fmt_text(st->message + n, sizeof st->message - n,
			      "; an upgrade is in progress (%s) and it stays "
			      "usable until the switch", who);
		return;
	}
	st->state = PYRT_STATE_INSTALLING;
	st->failed_check[0] = '\0';
	pyrt_fmt_text(st->message, sizeof st->message,
		      "an install is running (%s) — run \"pyrt status\" again when "
		      "it finishes", who);
}

/* The box's digest memo, when the caller asked for it. */
static pyrt_digest_memo *status_memo(const pyrt_box *box,
				     const pyrt_status_cache *cache)
{
	char dir[PATH_MAX];
	if (!cache || !cache->in_box ||
	    snprintf(dir, sizeof dir, "%s/%s", pyrt_box_runtime_dir(box),
		     PYRT_BOX_CACHE_DIR) >= (int)sizeof dir)
		return NULL;
	return pyrt_digest_memo_new(dir);
}

void pyrt_status_untrusted(pyrt_status *st, const pyrt_pins *pins,
			   const char *platform_key, const char *why)
{
	status_begin(st, pins, platform_key);
	st->state = PYRT_STATE_UNTRUSTED;
	pyrt_fmt_text(st->message, sizeof st->message, "%s", why);
}

int pyrt_status_read(const pyrt_box *box, const pyrt_pins *pins,
		     const char *platform_key, int deep,
		     pyrt_status_cache *cache, pyrt_status *st, pyrt_error *err)
{
	int rc = 0;
	status_begin(st, pins, platform_key);
	status_paths(st, pyrt_box_current(box), pins);

	const pyrt_pin_archive *pin = pyrt_pins_find(pins, platform_key);
	pyrt_lock_holder holder;
	struct stat sb;
	if (!pin) {
		status_unsupported(st, pins);
	} else {
		int busy = pyrt_lock_probe(pyrt_box_lock_path(box), &holder,
					   NULL) == 1;
		if (lstat(st->path, &sb) != 0 && errno == ENOENT) {
			status_not_provisioned(st, pin);
		} else {
			pyrt_digest_memo *memo = status_memo(box, cache);
			rc = status_installed(st, box, pins, pin, deep, cache,
					      memo, err);
			pyrt_digest_memo_free(memo);
		}
		if (busy && rc >= 0)
			status_busy(st, &holder);
	}
	return rc < 0 ? rc : 0;
}
