/*
 * The baseline operation: one pip run for the whole list, and when pip
 * refuses the batch (one unavailable requirement fails them all), one run
 * per requirement so that everything installable is installed.  The
 * outcome goes into the active install's marker, read-modify-written under
 * the box lock, which is held for the whole operation so no installer can
 * swap `current` while pip writes into it.
 *
 * A requirements file is read here, never handed to pip (pip would obey
 * its option lines: --index-url, -r, --log): each line, comments and blank
 * lines aside, must be a PEP 508 requirement (requirement.h), and the first
 * that is not is refused as FILE:LINE before pip starts.  pip then gets the
 * lines as a list, like the pins' baseline, and a failed batch is retried
 * line by line.
 */
#include "core/pkgs/baseline.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/pkgs/pip.h"
#include "core/pkgs/wheellock.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/dists.h"
#include "core/runtime/interp.h"
#include "core/runtime/lock.h"
#include "core/runtime/settle.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/proc.h"
#include "core/util/requirement.h"
#include "core/util/testhook.h"
#include "core/util/trust.h"

#define REQUIREMENTS_MAX_BYTES (1024 * 1024)
#define IMPORT_TIMEOUT_S 120.0

/* Everything one baseline run owns; freed in baseline_cleanup. */
typedef struct baseline_run {
	const pyrt_baseline_opts *opts;
	const pyrt_events *ev;
	pyrt_events inner;      /* pip's events: its own steps are folded in */
	pyrt_baseline_result *res;
	const pyrt_box *box;    /* the caller's (opts->box) */
	pyrt_lock *lock;
	char install_dir[PATH_MAX];
	char marker_path[PATH_MAX];
	pyrt_marker marker;
	const char **reqs;      /* what a retry installs, one at a time */
	size_t nreqs;
	char *file_text;        /* owns the strings reqs points into (file) */
	size_t failed;          /* requirements that could not be installed */
	size_t broken;          /* distributions still lacking files after */
	char **stamps;          /* pyrt_dists_stamp of each req before pip */
	int unreachable;        /* a failure was pip not reaching the index */
	/* Which distributions were not whole before pip, and which pip then
	 * reinstalled without a failure: one still not whole after that is
	 * not whole as its wheel has it (wheel_fault). */
	char before[64][256];
	size_t nbefore;
	char reinstalled[64][256];
	size_t nreinstalled;
	pyrt_dists *recheck;    /* during baseline_recheck */
	pyrt_declared *decl;    /* the box's declared state (declared.h) */
	char decl_path[PATH_MAX];
} baseline_run;

static int baseline_check_opts(const pyrt_baseline_opts *o, pyrt_error *err)
{
	if (!o || o->version != PYRT_BASELINE_OPTS_VERSION)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "baseline options of an unknown version");
	if (!o->box || (!o->pins && !o->requirements_file))
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "baseline options lack the box, or pins "
				      "and requirements file");
	return 0;
}

/* Cut a comment and surrounding blanks off a requirements line. */
static char *req_trim(char *line)
{
	char *hash = strchr(line, '#');
	if (hash && (hash == line || isspace((unsigned char)hash[-1])))
		*hash = '\0';
	while (isspace((unsigned char)*line))
		line++;
	size_t n = strlen(line);
	while (n > 0 && isspace((unsigned char)line[n - 1]))
		line[--n] = '\0';
	return line;
}

/* Line lineno of the file as a requirement, or its refusal as FILE:LINE. */
static int baseline_file_line(baseline_run *r, char *line, size_t lineno,
			      pyrt_error *err)
{
	const char *path = r->opts->requirements_file;
	size_t n = strlen(line);
	if (n > 0 && line[n - 1] == '\\')
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "%s:%zu: a line continuation ('\\'): write "
				      "each requirement on a line of its own; "
				      PYRT_REQUIREMENT_RULE, path, lineno);
	char *req = req_trim(line);
	if (!*req)
		return 0;
	char why[PYRT_ERROR_MSG_MAX / 2];
	if (pyrt_requirement_check(req, why, sizeof why) != 0)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s:%zu: %s", path,
				      lineno, why);
	r->reqs[r->nreqs++] = req;
	return 0;
}

/*
 * Every line of --requirements FILE: a requirement, a comment or blank.
 * Lines are split by hand (not strtok) so the line numbers count empty
 * lines too.
 */
static int baseline_parse_file(baseline_run *r, pyrt_error *err)
{
	const char *path = r->opts->requirements_file;
	size_t len = 0;
	pyrt_error ferr = PYRT_ERROR_INIT;
	/* A file that cannot be read is the read's to report, below. */
	if (pyrt_trust_path("--requirements", path, 0, NULL, 0, &ferr) ==
	    PYRT_E_UNTRUSTED)
		return pyrt_error_set(err, PYRT_E_UNTRUSTED, "%s", ferr.msg);
	pyrt_error_clear(&ferr);
	if (pyrt_fs_read_file(path, REQUIREMENTS_MAX_BYTES, &r->file_text, &len,
			      &ferr) != 0)
		return pyrt_error_set(err, PYRT_E_USAGE, "--requirements: %s",
				      ferr.msg);
	if (memchr(r->file_text, '\0', len))
		return pyrt_error_set(err, PYRT_E_USAGE, "%s: a NUL byte: a "
				      "requirements file is text, one "
				      "requirement a line", path);
	size_t lines = 1;
	for (const char *p = r->file_text; *p; p++)
		lines += *p == '\n';
	r->reqs = calloc(lines, sizeof *r->reqs);
	if (!r->reqs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	char *line = r->file_text;
	for (size_t lineno = 1; line; lineno++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		int rc = baseline_file_line(r, line, lineno, err);
		if (rc)
			return rc;
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* The pins' list, pointing into the pins (which outlive the run). */
static int baseline_collect(baseline_run *r, pyrt_error *err)
{
	if (r->opts->requirements_file)
		return baseline_parse_file(r, err);
	size_t n = pyrt_pins_baseline_count(r->opts->pins);
	r->reqs = calloc(n + 1, sizeof *r->reqs);
	if (!r->reqs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		r->reqs[r->nreqs++] = pyrt_pins_baseline_at(r->opts->pins, i);
	return 0;
}

/*
 * Before pip starts: the box declares this baseline, where its packages
 * come from and that a baseline run is under way, so a run stopped at any
 * point leaves a file that says what the runtime should hold
 * (declared.h).  A damaged file is replaced: this run declares anew.
 */
static int baseline_declare(baseline_run *r, pyrt_error *err)
{
	int rc = pyrt_declared_path(pyrt_box_runtime_dir(r->box), r->decl_path,
				    sizeof r->decl_path, err);
	if (rc)
		return rc;
	if (!(r->decl = pyrt_declared_new()))
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int found = 0;
	pyrt_error derr = PYRT_ERROR_INIT;
	rc = pyrt_declared_read(r->decl, r->decl_path, &found, &derr);
	if (rc == PYRT_E_UNTRUSTED)
		return pyrt_error_set(err, rc, "%s", derr.msg);
	if (rc && pyrt_events_log(r->ev, PYRT_LOG_WARN, "%s; declaring the "
				  "runtime's packages anew", derr.msg))
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	char wheelhouse[PATH_MAX];
	const char *wh = r->opts->wheelhouse &&
			 realpath(r->opts->wheelhouse, wheelhouse) ? wheelhouse
								   : NULL;
	/* The lock these packages are installed under: status and doctor
	 * say when the pins in effect lock something else. */
	char lock[PYRT_SHA256_HEX_LEN + 1];
	if (pyrt_pins_lock_digest(r->opts->pins, r->marker.platform, lock) < 0)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (pyrt_declared_set_baseline(r->decl, r->reqs, r->nreqs) ||
	    pyrt_declared_set_lock(r->decl, lock) ||
	    pyrt_declared_set_source(r->decl, wh, wh ? NULL
					      : r->opts->index_url) ||
	    pyrt_declared_pending_add(r->decl, PYRT_DECLARED_BASELINE, ""))
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	return pyrt_declared_write(r->decl, r->decl_path, err);
}

/* The run is done (whatever its verdict): no baseline run is pending. */
static int baseline_declared_done(baseline_run *r, pyrt_error *err)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	pyrt_declared_pending_clear(r->decl, PYRT_DECLARED_BASELINE, "");
	pyrt_declared_set_reconciled(r->decl, (int64_t)now.tv_sec *
				     1000000000LL + now.tv_nsec);
	return pyrt_declared_write(r->decl, r->decl_path, err);
}

/*
 * Take the lock and find the active install and its marker.  Nothing is
 * created in a box without a runtime: the lock file would be the first
 * thing in it.
 */
static int baseline_open(baseline_run *r, pyrt_error *err)
{
	r->box = r->opts->box;
	int rc = pyrt_box_check_change(r->box, "baseline", err);
	if (rc)
		return rc;
	if (access(pyrt_box_runtime_dir(r->box), F_OK) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime not provisioned — "
				      "run \"pyrt install\" first");
	rc = pyrt_lock_acquire(&r->lock, pyrt_box_lock_path(r->box),
			       !r->opts->no_wait, r->ev, err);
	if (!rc)
		rc = pyrt_box_active_install(r->box, r->install_dir,
					     sizeof r->install_dir, err);
	if (!rc)
		rc = pyrt_fmt_path(r->marker_path, sizeof r->marker_path, err,
				   "%s/marker.json", r->install_dir);
	if (rc)
		return rc;
	pyrt_error merr = PYRT_ERROR_INIT;
	if (pyrt_marker_read(r->marker_path, &r->marker, &merr) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime is broken (%s) — run "
				      "\"pyrt install --force\"", merr.msg);
	return baseline_declare(r, err);
}

/*
 * Note one requirement that could not be installed.  why is the run whose
 * reason and log the baseline shows: the first failure's.
 */
static void baseline_missing(baseline_run *r, const char *req,
			     const pyrt_pip_result *why)
{
	pyrt_baseline_result *res = r->res;
	r->unreachable |= why->index_unreachable;
	if (r->failed++ == 0) {
		pyrt_fmt_text(res->error, sizeof res->error, "%s", why->reason);
		pyrt_fmt_text(res->log_path, sizeof res->log_path, "%s",
			      why->log_path);
	}
	if (res->missing_count < PYRT_MARKER_MISSING_MAX)
		pyrt_fmt_text(res->missing[res->missing_count++],
			      sizeof res->missing[0], "%s", req);
}

/*
 * The batch and, when pip refuses it, each requirement alone (pip says
 * "Requirement already satisfied" for what is there, so a rerun costs
 * little).  A failure that is not pip's refusal (timeout, cancel) stops the
 * whole operation.
 */
static pyrt_pip_opts baseline_pip_opts(const baseline_run *r)
{
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	po.box = r->box;
	po.requirements = r->reqs;
	po.requirement_count = r->nreqs;
	po.cacert = r->opts->cacert;
	po.index_url = r->opts->index_url;
	po.wheelhouse = r->opts->wheelhouse;
	po.pins = r->opts->pins;
	po.timeout_s = r->opts->timeout_s;
	po.purpose = "baseline";
	po.lock_fd = pyrt_lock_fd(r->lock);
	return po;
}

/* The active install's distributions as they are now (NULL: only Python
 * could say, an older marker). */
static pyrt_dists *baseline_dists(const baseline_run *r)
{
	return pyrt_dists_for_install(r->install_dir, &r->marker);
}

/* Each requirement's stamp before pip (dists.h): what pip then leaves
 * with the same stamp was already present, not installed. */
static int baseline_stamps(baseline_run *r, char ***out)
{
	*out = calloc(r->nreqs + 1, sizeof **out);
	if (!*out)
		return -1;
	pyrt_dists *d = baseline_dists(r);
	char stamp[PATH_MAX + 128];
	for (size_t i = 0; d && i < r->nreqs; i++)
		if (pyrt_dists_stamp(d, r->reqs[i], stamp, sizeof stamp) == 1 &&
		    !((*out)[i] = strdup(stamp))) {
			pyrt_dists_free(d);
			return -1;
		}
	pyrt_dists_free(d);
	return 0;
}

static void baseline_stamps_free(char **stamps, size_t n)
{
	for (size_t i = 0; stamps && i < n; i++)
		free(stamps[i]);
	free(stamps);
}

/* How many requirements pip left as they were. */
static void baseline_count_present(baseline_run *r)
{
	char **after = NULL;
	if (!r->stamps || baseline_stamps(r, &after) != 0) {
		baseline_stamps_free(after, r->nreqs);
		return;
	}
	for (size_t i = 0; i < r->nreqs; i++)
		if (r->stamps[i] && after[i] && strcmp(r->stamps[i], after[i]) == 0)
			r->res->present_count++;
	baseline_stamps_free(after, r->nreqs);
}

#define REPAIR_MAX 32

/* The distributions whose dist-info outlived their files (dists.h), as
 * "name==version" for pip --force-reinstall --no-deps. */
typedef struct repair_list {
	char reqs[REPAIR_MAX][PYRT_REQUIREMENT_MAX];
	char names[REPAIR_MAX][256];
	const char *list[REPAIR_MAX + 1];
	size_t n;
	baseline_run *r;
	int rc;                 /* a cancel from the log callback */
} repair_list;

static void repair_add(const char *name, const char *version,
		       const char *why, void *ctx)
{
	repair_list *l = ctx;
	baseline_run *r = l->r;
	if (r->nbefore < sizeof r->before / sizeof r->before[0])
		pyrt_fmt_text(r->before[r->nbefore++], sizeof r->before[0], "%s",
			      name);
	/* pip's uninstall deletes what RECORD names: one naming a file
	 * outside the runtime is never reinstalled, only reported. */
	if (strncmp(why, PYRT_DISTS_RECORD_LEAVES,
		    strlen(PYRT_DISTS_RECORD_LEAVES)) == 0) {
		if (!l->rc)
			l->rc = pyrt_events_log(l->r->ev, PYRT_LOG_WARN,
						"%s %s: %s — not reinstalling "
						"it (pip would delete that "
						"file); remove its dist-info "
						"by hand after checking it, or "
						"run pyrt install --force",
						name, version, why);
		return;
	}
	if (l->n >= REPAIR_MAX)
		return;
	char *req = l->reqs[l->n];
	/* The version it was, so the repair changes nothing else. */
	pyrt_fmt_text(req, PYRT_REQUIREMENT_MAX, version[0] ? "%s==%s" : "%s",
		      name, version);
	if (pyrt_requirement_check(req, NULL, 0) != 0)
		pyrt_fmt_text(req, PYRT_REQUIREMENT_MAX, "%s", name);
	if (pyrt_requirement_check(req, NULL, 0) != 0)
		return;
	pyrt_fmt_text(l->names[l->n], sizeof l->names[0], "%s", name);
	l->list[l->n++] = req;
	pyrt_baseline_result *res = l->r->res;
	if (res->repaired_count < PYRT_MARKER_MISSING_MAX)
		pyrt_fmt_text(res->repaired[res->repaired_count++],
			      sizeof res->repaired[0], "%s", name);
	if (!l->rc)
		l->rc = pyrt_events_log(l->r->ev, PYRT_LOG_WARN, "%s %s is "
					"installed but not whole (%s): "
					"reinstalling it", name, version, why);
}

/*
 * A distribution whose dist-info is there but whose files are not is
 * "already satisfied" to pip and broken to Python: reinstall exactly it
 * (pip --force-reinstall --no-deps, at the version it had) before the
 * baseline runs.  What that cannot mend is found again after the baseline
 * and makes it partial.
 */
static int repair_run(baseline_run *r, repair_list *l, pyrt_error *err);

/* A dist-info pip died before giving a RECORD cannot be reinstalled over
 * (pip cannot uninstall it): drop it, and pip installs the distribution
 * anew over the files it had written. */
static void repair_unrecorded(baseline_run *r, pyrt_dists *d, repair_list *l)
{
	for (size_t i = 0; i < l->n && !l->rc; i++) {
		pyrt_error derr = PYRT_ERROR_INIT;
		int rc = pyrt_dists_drop_unrecorded(d, l->names[i], &derr);
		if (rc < 0)
			l->rc = pyrt_events_log(r->ev, PYRT_LOG_WARN,
						"cannot remove the RECORD-less "
						"metadata of %s: %s",
						l->names[i], derr.msg);
		else if (rc == 1)
			l->rc = pyrt_events_log(r->ev, PYRT_LOG_INFO,
						"%s: its metadata had no RECORD "
						"(an install cut short); removed "
						"it so pip can install it again",
						l->names[i]);
	}
}

static int baseline_repair(baseline_run *r, pyrt_error *err)
{
	pyrt_dists *d = baseline_dists(r);
	if (!d)
		return 0;
	repair_list *l = calloc(1, sizeof *l);
	if (!l) {
		pyrt_dists_free(d);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	l->r = r;
	pyrt_dists_each_broken(d, repair_add, l);
	repair_unrecorded(r, d, l);
	pyrt_dists_free(d);
	int rc = repair_run(r, l, err);
	free(l);
	return rc;
}

/* pip --force-reinstall --no-deps for what l lists; a pip failure is a
 * warning (the recheck after names what stays broken). */
static int repair_run(baseline_run *r, repair_list *l, pyrt_error *err)
{
	int rc = 0;
	if (l->rc) {
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	} else if (l->n) {
		pyrt_pip_opts po = baseline_pip_opts(r);
		po.requirements = l->list;
		po.requirement_count = l->n;
		po.reinstall = 1;
		pyrt_pip_each_result pres;
		pyrt_error perr = PYRT_ERROR_INIT;
		rc = pyrt_wheellock_pip_install(&po, r->opts->pins, &r->inner,
						&pres, &perr);
		pyrt_pip_each_result_clear(&pres);
		for (size_t i = 0; !rc && i < l->n &&
		     r->nreinstalled < sizeof r->reinstalled /
				       sizeof r->reinstalled[0]; i++)
			pyrt_fmt_text(r->reinstalled[r->nreinstalled++],
				      sizeof r->reinstalled[0], "%s", l->names[i]);
		if (rc == PYRT_E_CANCELLED)
			pyrt_error_set(err, rc, "cancelled");
		else if (rc)
			rc = pyrt_events_log(r->ev, PYRT_LOG_WARN, "the "
					     "reinstall failed: %s", perr.msg)
				     ? pyrt_error_set(err, PYRT_E_CANCELLED,
						      "cancelled") : 0;
	}
	return rc;
}

/* The interpreter's import failures of the baseline's distributions
 * (py/doctor_interp.py, doctor's own check: "; "-joined
 * "module of name (Error: text)"), into out; 0, or -1 when it did not
 * answer (then nothing is judged). */
static int baseline_imports(baseline_run *r, char *out, size_t len)
{
	char python[PATH_MAX];
	if (pyrt_box_interpreter(r->install_dir, r->opts->pins, python,
				 sizeof python, NULL))
		return -1;
	pyrt_interp_report *rep = malloc(sizeof *rep);
	if (!rep)
		return -1;
	int rc = pyrt_interp_report_run(python, r->install_dir,
					(const char *const *)r->reqs, r->nreqs,
					IMPORT_TIMEOUT_S,
					r->ev ? r->ev->cancel : NULL, rep);
	if (!rc && !rep->why[0] && rep->imports_known)
		pyrt_fmt_text(out, len, "%s", rep->imports);
	else
		rc = -1;
	free(rep);
	return rc ? -1 : 0;
}

/* Each "MOD of NAME (…)" of the import failures: fn(NAME, that entry). */
static void each_import_failure(const char *fails,
				void (*fn)(const char *name, const char *what,
					   void *ctx), void *ctx)
{
	char entry[512], name[128];
	for (const char *p = fails; *p;) {
		size_t n = strcspn(p, ";");
		pyrt_fmt_text(entry, sizeof entry, "%.*s", (int)n, p);
		const char *of = strstr(entry, " of ");
		if (of) {
			of += 4;
			size_t k = strcspn(of, " (");
			pyrt_fmt_text(name, sizeof name, "%.*s", (int)k, of);
			fn(name, entry, ctx);
		}
		p += n;
		while (*p == ';' || *p == ' ')
			p++;
	}
}

typedef struct import_ctx {
	repair_list *l;
	pyrt_dists *d;
} import_ctx;

static void import_repair_add(const char *name, const char *what, void *ctx)
{
	import_ctx *x = ctx;
	char version[128] = "", why[640];
	if (pyrt_dists_version(x->d, name, version, sizeof version) != 1)
		version[0] = '\0';
	pyrt_fmt_text(why, sizeof why, "it does not import: %s", what);
	repair_add(name, version, why, x->l);
}

static void broken_after(const char *name, const char *version,
			 const char *why, void *ctx);

static void import_missing(const char *name, const char *what, void *ctx)
{
	broken_after(name, "", what, ctx);
}

/*
 * Installed whole, yet a module of it does not import (a file replaced by
 * garbage, a partial write the RECORD does not see): reinstall it, once,
 * and ask again; what still fails is missing.  The runtime's own modules
 * (ssl) are not the baseline's to mend.
 */
static int baseline_import_repair(baseline_run *r, pyrt_error *err)
{
	char fails[2048] = "";
	if (baseline_imports(r, fails, sizeof fails) != 0 || !strstr(fails, " of "))
		return 0;
	repair_list *l = calloc(1, sizeof *l);
	import_ctx x = { l, baseline_dists(r) };
	if (!l || !x.d) {
		free(l);
		pyrt_dists_free(x.d);
		return l ? 0 : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	l->r = r;
	each_import_failure(fails, import_repair_add, &x);
	pyrt_dists_free(x.d);
	int rc = repair_run(r, l, err);
	free(l);
	if (!rc && baseline_imports(r, fails, sizeof fails) == 0)
		each_import_failure(fails, import_missing, r);
	return rc;
}

static int name_in(char (*names)[256], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/*
 * A distribution pip has just written from its wheel (reinstalled without
 * a failure, or not there whole before this run) and that still lacks a
 * file its RECORD lists: the wheel lists a file it does not contain, and
 * no reinstall can mend that.  Said once, as the wheel's fault, and marked
 * in its dist-info (dists.h) so no later run counts it or reinstalls it;
 * a new wheel replaces the dist-info, and the mark with it.  1 when so.
 */
static int wheel_fault(baseline_run *r, const char *name, const char *version)
{
	if (!r->recheck || (name_in(r->before, r->nbefore, name) &&
			    !name_in(r->reinstalled, r->nreinstalled, name)))
		return 0;
	char first[512];
	pyrt_error derr = PYRT_ERROR_INIT;
	int n = pyrt_dists_mark_wheel_faults(r->recheck, name, first,
					     sizeof first, &derr);
	if (n <= 0)
		return 0;
	pyrt_events_log(r->ev, PYRT_LOG_WARN, "%s's wheel lists %s%s but does "
			"not contain it: %s %s is installed as its wheel has "
			"it (as pip installs it), and pyrt will not reinstall "
			"it for that again — fix: get a wheel of %s whose "
			"RECORD lists only its own files (report it to its "
			"maintainer), then run \"pyrt baseline\"", name, first,
			n > 1 ? " and more files" : "", name, version, name);
	return 1;
}

/* After pip: a distribution still lacking files is missing. */
static void broken_after(const char *name, const char *version,
			 const char *why, void *ctx)
{
	baseline_run *r = ctx;
	pyrt_baseline_result *res = r->res;
	if (wheel_fault(r, name, version))
		return;
	/* Display text: a long reason ends in "..." rather than cut. */
	if (r->broken++ == 0 && !res->error[0])
		pyrt_fmt_text(res->error, sizeof res->error, "%s is installed "
			      "but not whole (%s) after a reinstall", name, why);
	if (res->missing_count < PYRT_MARKER_MISSING_MAX)
		pyrt_fmt_text(res->missing[res->missing_count++],
			      sizeof res->missing[0], "%s", name);
}

static void baseline_recheck(baseline_run *r)
{
	pyrt_dists *d = baseline_dists(r);
	r->recheck = d;
	if (d)
		pyrt_dists_each_broken(d, broken_after, r);
	r->recheck = NULL;
	pyrt_dists_free(d);
}

static int baseline_install(baseline_run *r, pyrt_error *err)
{
	pyrt_pip_opts po = baseline_pip_opts(r);
	pyrt_pip_each_result pres;
	pyrt_error perr = PYRT_ERROR_INIT;
	/* With a wheel lock in the pins: only the locked files, copied
	 * and verified first (wheellock.h). */
	int rc = pyrt_wheellock_pip_install(&po, r->opts->pins, &r->inner,
					    &pres, &perr);
	pyrt_fmt_text(r->res->log_path, sizeof r->res->log_path, "%s",
		      pres.batch.log_path);
	for (size_t i = 0; i < pres.failed_count; i++)
		baseline_missing(r, r->reqs[pres.failed[i]], &pres.first);
	r->unreachable |= pres.index_unreachable;
	/* Refused one by one, or not reached at all: either way the
	 * outcome is per requirement and goes into the marker. */
	if (rc == 0 || pres.retried || pres.index_unreachable) {
		rc = 0;
	} else {
		rc = pyrt_error_set(err, rc, "%s", perr.msg);
	}
	pyrt_pip_each_result_clear(&pres);
	return rc;
}

/* Record the outcome in the marker (read earlier, under the same lock). */
static int baseline_record(baseline_run *r, pyrt_error *err)
{
	pyrt_baseline_result *res = r->res;
	const char *state = r->failed == 0 && !r->broken ? "complete"
			  : r->failed >= r->nreqs ? "none"
			  : "partial";
	pyrt_fmt_text(res->state, sizeof res->state, "%s", state);
	pyrt_marker *m = &r->marker;
	pyrt_fmt_text(m->baseline_state, sizeof m->baseline_state, "%s", state);
	m->baseline_missing_count = res->missing_count;
	for (int i = 0; i < res->missing_count; i++)
		memcpy(m->baseline_missing[i], res->missing[i],
		       sizeof m->baseline_missing[i]);
	pyrt_fmt_text(m->baseline_error, sizeof m->baseline_error, "%s",
		      res->error);
	return pyrt_marker_write(r->marker_path, m, err);
}

/* "python-pptx, reportlab" (and how many more did not fit). */
static void baseline_missing_list(const pyrt_baseline_result *res,
				  size_t failed, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < res->missing_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", res->missing[i]);
	if (failed > (size_t)res->missing_count && used < len)
		pyrt_fmt_text(buf + used, len - used, " and %zu more",
			      failed - (size_t)res->missing_count);
}

/* The one-line verdict of an incomplete baseline. */
static int baseline_incomplete(baseline_run *r, pyrt_error *err)
{
	const pyrt_baseline_result *res = r->res;
	char names[300];
	baseline_missing_list(res, r->failed, names, sizeof names);
	const char *fix = r->unreachable ? "; " PYRT_PIP_OFFLINE_FIX : "";
	if (!r->failed)
		return pyrt_error_set(err, PYRT_E_BASELINE,
				      "baseline %s: %zu installed distribution%s "
				      "still lack%s files (%s): %s; see %s",
				      res->state, r->broken,
				      r->broken == 1 ? "" : "s",
				      r->broken == 1 ? "s" : "", names,
				      res->error, res->log_path[0]
				      ? res->log_path : "the pip log");
	return pyrt_error_set(err, PYRT_E_BASELINE,
			      "baseline %s: %zu of %zu requirements could not "
			      "be installed (%s): %s%s; see %s", res->state,
			      r->failed, r->nreqs, names, res->error, fix,
			      res->log_path);
}

static void baseline_cleanup(baseline_run *r)
{
	baseline_stamps_free(r->stamps, r->nreqs);
	pyrt_lock_release(r->lock);
	pyrt_declared_free(r->decl);
	free(r->reqs);
	free(r->file_text);
}

/* Detail of the step: "5 requirements" (", from FILE") and the wheelhouse. */
static void baseline_detail(const baseline_run *r, char *buf, size_t len)
{
	const pyrt_baseline_opts *o = r->opts;
	int n = snprintf(buf, len, "%zu requirement%s%s%s", r->nreqs,
			 r->nreqs == 1 ? "" : "s",
			 o->requirements_file ? " from " : "",
			 o->requirements_file ? o->requirements_file : "");
	if (o->wheelhouse && n > 0 && (size_t)n < len)
		pyrt_fmt_text(buf + n, len - (size_t)n, " from wheelhouse %s",
			      o->wheelhouse);
}

/* What a stopped run left (settle.h), before anything is judged. */
static int baseline_settle(baseline_run *r, pyrt_error *err)
{
	pyrt_settle_report rep;
	return pyrt_settle(r->install_dir, &r->marker,
			   pyrt_declared_reconciled(r->decl), 0, r->ev, &rep,
			   err);
}

/* pip for what is missing, after the repair of what is not whole. */
static int baseline_work(baseline_run *r, pyrt_error *err)
{
	if (r->nreqs == 0)
		return pyrt_events_log(r->ev, PYRT_LOG_INFO,
				       "%s name%s no requirement: nothing to "
				       "install", r->opts->requirements_file
				       ? r->opts->requirements_file : "the pins",
				       r->opts->requirements_file ? "s" : "")
			       ? pyrt_error_set(err, PYRT_E_CANCELLED,
						"cancelled") : 0;
	if (baseline_stamps(r, &r->stamps) != 0)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = baseline_repair(r, err);
	if (rc)
		return rc;
	pyrt_testhook("baseline-repaired");
	return baseline_install(r, err);
}

/* Under the lock: the step, pip, the marker. */
static int baseline_step(baseline_run *r, pyrt_error *err)
{
	char detail[PATH_MAX + 64];
	baseline_detail(r, detail, sizeof detail);
	int rc = pyrt_events_step(r->ev, PYRT_STEP_BASELINE, PYRT_STEP_BEGIN,
				  detail);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	pyrt_testhook("baseline-begin");
	rc = baseline_settle(r, err);
	if (!rc)
		rc = baseline_work(r, err);
	if (!rc && r->nreqs) {
		baseline_recheck(r);
		baseline_count_present(r);
		/* What pip just wrote imports as pip left it; what it left
		 * alone ("already present") is where a broken module hides,
		 * so only then is the interpreter asked (it costs an import
		 * of the whole baseline). */
		int repaired = r->res->repaired_count;
		if (r->res->present_count)
			rc = baseline_import_repair(r, err);
		if (r->res->repaired_count != repaired) {
			r->res->present_count = 0;
			baseline_count_present(r);
		}
	}
	if (!rc)
		pyrt_testhook("mid-baseline");
	if (!rc)
		rc = baseline_record(r, err);
	if (!rc)
		rc = baseline_declared_done(r, err);
	if (!rc && (r->failed || r->broken))
		rc = baseline_incomplete(r, err);
	if (rc) {
		pyrt_events_step(r->ev, PYRT_STEP_BASELINE, PYRT_STEP_FAIL,
				 err && err->msg[0] ? err->msg
						    : pyrt_strerror(rc));
		return rc;
	}
	/* pip is done and the marker says so: a cancel that arrives now
	 * has nothing left to stop, and is not reported as if it had. */
	pyrt_events_step(r->ev, PYRT_STEP_BASELINE, PYRT_STEP_END, "complete");
	return 0;
}

int pyrt_baseline_check_file(const char *path, size_t *count,
			      pyrt_error *err)
{
	pyrt_baseline_opts o = PYRT_BASELINE_OPTS_INIT;
	o.requirements_file = path;
	baseline_run r;
	memset(&r, 0, sizeof r);
	r.opts = &o;
	int rc = baseline_parse_file(&r, err);
	if (count)
		*count = r.nreqs;
	free(r.reqs);
	free(r.file_text);
	return rc;
}

int pyrt_baseline_run(const pyrt_baseline_opts *opts, const pyrt_events *ev,
		      pyrt_baseline_result *result, pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	int rc = baseline_check_opts(opts, err);
	if (rc)
		return rc;
	baseline_run r;
	memset(&r, 0, sizeof r);
	r.opts = opts;
	r.ev = ev;
	r.res = result;
	/* The baseline reports one step: pip's runs' own are dropped. */
	r.inner = pyrt_events_fold_steps(ev);
	rc = baseline_collect(&r, err);
	result->requirement_count = r.nreqs;
	if (!rc)
		rc = baseline_open(&r, err);
	if (!rc)
		rc = baseline_step(&r, err);
	baseline_cleanup(&r);
	return rc;
}
