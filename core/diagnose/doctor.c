/*
 * Doctor: every check support staff need at a desktop whose document
 * plugins are dead, in one fixed order with stable ids, each with a verdict,
 * what was seen and the fix.  Checks that cannot run because an earlier one
 * failed say so (SKIP) instead of failing again or passing by default.
 * Reads only: doctor never writes into the box, never takes the lock.
 *
 * Also the support bundle (tar.gz) built from the checks, the marker, the last
 * install log and platform facts.
 */
#include "core/diagnose/doctor.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "core/dist/fetch.h"
#include "core/dist/manifest.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/box.h"
#include "core/runtime/interp.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "core/runtime/settle.h"
#include "core/runtime/status.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/lazylib.h"
#include "core/util/proc.h"
#include "core/util/pep440.h"
#include "core/util/redact.h"
#include "core/util/requirement.h"
#include "core/util/trust.h"

#define DOCTOR_DISK_MIN (200ull << 20)
#define DOCTOR_LOG_MAX (4u << 20)
#define DOCTOR_SYSTEM_CA "/etc/ssl/certs/ca-certificates.crt"
#define DOCTOR_CA_MAX (16u << 20)
#define DOCTOR_INTERP_TIMEOUT_S 30.0

/* A check plus the strings it owns (the public struct points into them). */
typedef struct doctor_check {
	pyrt_check pub;
	char *id, *title, *detail, *fix;
} doctor_check;

struct pyrt_doctor {
	doctor_check *checks;
	size_t count, cap;
	/* What the bundle needs to know about the box that was checked. */
	char box_root[PATH_MAX];
	char install_dir[PATH_MAX]; /* "" when no install was found */
	char logs_dir[PATH_MAX];
	char platform_key[48];
};

/* One run's working state, shared by the checks. */
typedef struct doctor_ctx {
	pyrt_doctor *d;
	const pyrt_doctor_opts *o;
	const pyrt_events *ev;
	const pyrt_box *box;   /* the caller's (opts->box) */
	const pyrt_pin_archive *pin;
	pyrt_status st;
	int have_status;
	int runtime_ready;
	int install_known; /* d->install_dir names the active install */
	int proxy_dead;    /* a network check stopped at the proxy */
} doctor_ctx;

const char *pyrt_check_verdict_name(pyrt_check_verdict v)
{
	switch (v) {
	case PYRT_CHECK_PASS: return "pass";
	case PYRT_CHECK_WARN: return "warn";
	case PYRT_CHECK_FAIL: return "fail";
	case PYRT_CHECK_SKIP: return "skip";
	}
	return "unknown";
}

/* ---- the check list ----------------------------------------------------- */

static void check_clear(doctor_check *c)
{
	free(c->id);
	free(c->title);
	free(c->detail);
	free(c->fix);
}

/* Append a check; detail and fix are redacted before they are kept. */
static int check_add(pyrt_doctor *d, const char *id, const char *title,
		     pyrt_check_verdict v, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int check_add(pyrt_doctor *d, const char *id, const char *title,
		     pyrt_check_verdict v, const char *fix, const char *fmt, ...)
{
	if (d->count == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 16;
		doctor_check *nc = realloc(d->checks, ncap * sizeof *nc);
		if (!nc)
			return PYRT_E_NOMEM;
		d->checks = nc;
		d->cap = ncap;
	}
	doctor_check c;
	memset(&c, 0, sizeof c);
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&c.detail, fmt, ap);
	va_end(ap);
	if (n < 0)
		c.detail = NULL;
	c.id = strdup(id);
	c.title = strdup(title);
	c.fix = fix ? strdup(fix) : NULL;
	if (!c.detail || !c.id || !c.title || (fix && !c.fix)) {
		check_clear(&c);
		return PYRT_E_NOMEM;
	}
	pyrt_redact(c.detail);
	if (c.fix)
		pyrt_redact(c.fix);
	c.pub.id = c.id;
	c.pub.title = c.title;
	c.pub.verdict = v;
	c.pub.detail = c.detail;
	c.pub.fix = c.fix;
	d->checks[d->count++] = c;
	return 0;
}

/* The deepest existing directory at or above path (path itself if it
 * exists), for writability and free-space questions about a box root that
 * does not exist yet. */
static void existing_ancestor(const char *path, char *out, size_t len)
{
	pyrt_fmt_text(out, len, "%s", path);
	struct stat sb;
	while (stat(out, &sb) != 0) {
		char *slash = strrchr(out, '/');
		if (!slash || slash == out) {
			pyrt_fmt_text(out, len, "/");
			return;
		}
		*slash = '\0';
	}
}

static const char *impl_name(const pyrt_pins *pins)
{
	const char *impl = pyrt_pins_implementation(pins);
	return (!impl || strcmp(impl, "cpython") == 0) ? "CPython" : impl;
}

static void supported_keys(const pyrt_pins *pins, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pyrt_pins_archive_count(pins) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "",
					 pyrt_pins_archive_at(pins, i)->key);
	if (!buf[0])
		pyrt_fmt_text(buf, len, "none");
}

/* Unpinned platforms fail with the keys that are pinned. */
static int check_platform(doctor_ctx *x)
{
	const pyrt_pins *pins = x->o->pins;
	const char *key = x->o->platform_key;
	if (x->pin)
		return check_add(x->d, "platform", "Platform supported",
				 PYRT_CHECK_PASS, NULL,
				 "%s is pinned: %s %s (build %s)", key,
				 impl_name(pins), pyrt_pins_version(pins),
				 pyrt_pins_build(pins));
	char keys[1024], fix[256];
	supported_keys(pins, keys, sizeof keys);
	pyrt_fmt_text(fix, sizeof fix,
		      "run pyrt on a supported platform, or pass --pins FILE with "
		      "an archive for %s", key);
	return check_add(x->d, "platform", "Platform supported",
			 PYRT_CHECK_FAIL, fix,
			 "no runtime is pinned for %s; supported: %s", key,
			 keys);
}

/* Informational: which table the other checks were judged against, and
 * whether it pins the baseline's wheels as it pins the archive. */
static int check_pins(doctor_ctx *x)
{
	const pyrt_pins *pins = x->o->pins;
	const char *src = pyrt_pins_source(pins);
	int builtin = strcmp(src, "builtin") == 0;
	size_t locked = 0;
	pyrt_pins_lock_find(pins, x->o->platform_key, &locked);
	char wheels[512];
	if (locked)
		pyrt_fmt_text(wheels, sizeof wheels, "the baseline's wheels are "
			      "hash-locked (%zu wheels for %s: installs take those "
			      "files and nothing else)", locked, x->o->platform_key);
	else
		pyrt_fmt_text(wheels, sizeof wheels, "the baseline's wheels are NOT "
			      "hash-locked (no wheel lock for %s: pip installs what "
			      "its index, over TLS, or a --wheelhouse serves; pin them "
			      "with \"pyrt lock --wheelhouse DIR --out FILE\")", x->o->platform_key);
	return check_add(x->d, "pins", "Pins source", PYRT_CHECK_PASS, NULL,
			 "%s%s: %s %s (build %s) for %zu platform(s), baseline "
			 "of %zu requirement(s); %s",
			 builtin ? "built-in pins" : "pins from ",
			 builtin ? "" : src, impl_name(pins),
			 pyrt_pins_version(pins), pyrt_pins_build(pins),
			 pyrt_pins_archive_count(pins),
			 pyrt_pins_baseline_count(pins), wheels);
}

/* The root, and runtime/python when it exists, must be writable. */
static int check_box_root(doctor_ctx *x)
{
	const char *root = x->d->box_root;
	const char *title = "Box root writable";
	char fix[PATH_MAX + 128];
	pyrt_fmt_text(fix, sizeof fix,
		      "make %s writable for this user, or pass --box-root DIR", root);
	struct stat sb;
	if (stat(root, &sb) != 0) {
		char anc[PATH_MAX];
		existing_ancestor(root, anc, sizeof anc);
		if (access(anc, W_OK | X_OK) == 0)
			return check_add(x->d, "box_root", title,
					 PYRT_CHECK_WARN, "pyrt install",
					 "%s does not exist yet; pyrt install "
					 "will create it", root);
		return check_add(x->d, "box_root", title, PYRT_CHECK_FAIL, fix,
				 "%s does not exist and %s is not writable",
				 root, anc);
	}
	if (!S_ISDIR(sb.st_mode))
		return check_add(x->d, "box_root", title, PYRT_CHECK_FAIL,
				 "pass --box-root DIR naming a directory",
				 "%s is not a directory", root);
	/* Root's box, and we are not root: read-only by design, not broken. */
	if (pyrt_box_shared(x->box))
		return check_add(x->d, "box_root", "Box root shared read-only", PYRT_CHECK_PASS, NULL,
				 "%s is root's box, shared read-only with every "
				 "user: its changes (install, baseline, plugins "
				 "install) are root's — \"sudo pyrt …\"", root);
	const char *rt = pyrt_box_runtime_dir(x->box);
	const char *bad = access(root, W_OK | X_OK) != 0 ? root
			  : stat(rt, &sb) == 0 && access(rt, W_OK | X_OK) != 0
				  ? rt : NULL;
	if (bad && access(bad, W_OK) != 0 && errno == EROFS)
		return check_add(x->d, "box_root", title, PYRT_CHECK_FAIL,
				 "remount it read-write to change the runtime, "
				 "or pass --box-root DIR on a writable file "
				 "system (status, plugins, doctor and smoke work "
				 "as it is)",
				 "%s is on a read-only file system", bad);
	if (bad)
		return check_add(x->d, "box_root", title, PYRT_CHECK_FAIL, fix,
				 "%s is not writable by this user (uid %ld)",
				 bad, (long)getuid());
	return check_add(x->d, "box_root", title, PYRT_CHECK_PASS, NULL,
			 "%s exists and is writable", root);
}

/* The words for a box root pyrt refuses: not a folder; a folder of your
 * own that you cannot read (a mode changed by hand: the fix is that
 * chmod); or someone else's. */
static void untrusted_words(const char *root, char *title, size_t tlen,
			    char *fix, size_t flen)
{
	struct stat sb;
	if (stat(root, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		pyrt_fmt_text(title, tlen, "Box root is a folder");
		pyrt_fmt_text(fix, flen, "pass --box-root DIR naming a folder of "
			      "the box's own (a new path: pyrt creates it)");
		return;
	}
	/* Down the runtime's spine, the first folder of yours that you
	 * cannot enter or read. */
	static const char *const spine[] = { "", "/runtime", "/runtime/python",
		"/runtime/python/installs" };
	for (size_t i = 0; i < sizeof spine / sizeof *spine; i++) {
		char path[PATH_MAX];
		int n = snprintf(path, sizeof path, "%s%s", root, spine[i]);
		if (n < 0 || (size_t)n >= sizeof path ||
		    lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
		    sb.st_uid != geteuid())
			break;
		if ((sb.st_mode & S_IRWXU) != S_IRWXU) {
			pyrt_fmt_text(title, tlen, "Box folders readable by you");
			pyrt_fmt_text(fix, flen, "chmod u+rwx '%s' (its mode, %03o, "
				      "was changed by hand)", path,
				      (unsigned)(sb.st_mode & 07777));
			return;
		}
	}
	pyrt_fmt_text(title, tlen, "Box root owned by you");
	pyrt_fmt_text(fix, flen, "run pyrt as the box's owner, or choose a box "
		      "root of your own (--box-root DIR)");
}

/* A running install is worth knowing (it may change what follows), not a
 * failure. */
static int check_lock(doctor_ctx *x)
{
	pyrt_lock_holder h;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_lock_probe(pyrt_box_lock_path(x->box), &h, &err);
	const char *title = "Installer lock";
	if (rc == 1)
		return check_add(x->d, "lock", title, PYRT_CHECK_WARN,
				 "wait for that install to finish, then run "
				 "\"pyrt doctor\" again",
				 "held by pid %ld on %s since %s: an install is "
				 "running", h.pid, h.host[0] ? h.host : "?",
				 h.started[0] ? h.started : "?");
	/* A lock file that is a link, a FIFO or not ours stops every
	 * install: a finding with its fix, not a shrug. */
	if (rc == PYRT_E_UNTRUSTED)
		return check_add(x->d, "lock", title, PYRT_CHECK_FAIL,
				 "remove it; the next install recreates it",
				 "%s", err.msg);
	if (rc < 0)
		return check_add(x->d, "lock", title, PYRT_CHECK_WARN, NULL,
				 "cannot tell: %s", err.msg);
	return check_add(x->d, "lock", title, PYRT_CHECK_PASS, NULL,
			 "free: no install is running");
}

/* Ready, but is it what the pins say now? */
static int runtime_ready(doctor_ctx *x)
{
	const pyrt_marker *m = &x->st.marker;
	const pyrt_pins *pins = x->o->pins;
	x->runtime_ready = 1;
	if (strcmp(m->version, pyrt_pins_version(pins)) != 0 ||
	    strcmp(m->build, pyrt_pins_build(pins)) != 0)
		return check_add(x->d, "runtime", "Runtime present",
				 PYRT_CHECK_WARN, "pyrt install",
				 "CPython %s (build %s) is ready at %s; the pins "
				 "now say %s (build %s)", m->version, m->build,
				 x->st.path, pyrt_pins_version(pins),
				 pyrt_pins_build(pins));
	return check_add(x->d, "runtime", "Runtime present", PYRT_CHECK_PASS,
			 NULL, "CPython %s (build %s) is ready at %s",
			 m->version, m->build, x->st.path);
}

/* status's answer, and the install directory the later checks look at. */
static int check_runtime(doctor_ctx *x)
{
	const char *title = "Runtime present";
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_status_read(x->box, x->o->pins, x->o->platform_key, 0, NULL,
			     &x->st, &err) != 0)
		return check_add(x->d, "runtime", title, PYRT_CHECK_FAIL,
				 "pyrt install", "cannot read the box: %s",
				 err.msg);
	x->have_status = 1;
	if (x->st.state == PYRT_STATE_READY || x->st.state == PYRT_STATE_BROKEN)
		x->install_known =
			pyrt_box_link_install(x->box, pyrt_box_current(x->box),
					      x->d->install_dir,
					      sizeof x->d->install_dir,
					      NULL) == 0;
	if (!x->install_known)
		x->d->install_dir[0] = '\0';
	switch (x->st.state) {
	case PYRT_STATE_READY:
		return runtime_ready(x);
	case PYRT_STATE_NOT_PROVISIONED:
		return check_add(x->d, "runtime", title, PYRT_CHECK_FAIL,
				 "pyrt install", "%s", x->st.message);
	case PYRT_STATE_BROKEN:
		return check_add(x->d, "runtime", title, PYRT_CHECK_FAIL,
				 "pyrt install --force", "%s", x->st.message);
	case PYRT_STATE_UNSUPPORTED:
		return check_add(x->d, "runtime", title, PYRT_CHECK_SKIP, NULL,
				 "not checked: this platform has no pin (see "
				 "platform)");
	case PYRT_STATE_INSTALLING:
		return check_add(x->d, "runtime", title, PYRT_CHECK_WARN,
				 "run \"pyrt doctor\" again when the install "
				 "finishes", "%s", x->st.message);
	case PYRT_STATE_UNTRUSTED:
		return check_add(x->d, "runtime", title, PYRT_CHECK_FAIL,
				 "run pyrt as the box's owner", "%s",
				 x->st.message);
	}
	return PYRT_E_INTERNAL;
}

typedef struct verify_tally {
	int problems;
	char first[512];
} verify_tally;

static void on_problem(const char *path, const char *what, void *payload)
{
	verify_tally *t = payload;
	if (t->problems++ == 0)
		pyrt_fmt_text(t->first, sizeof t->first, "%s: %s", path, what);
}

/* The marker, the manifest it vouches for (digest and entry count), and
 * the files against the manifest. */
static int check_marker(doctor_ctx *x)
{
	const char *title = "Marker matches files";
	const char *fix = "pyrt install --force";
	if (!x->install_known)
		return check_add(x->d, "marker", title, PYRT_CHECK_SKIP, NULL,
				 "not checked: no install to look at (see "
				 "runtime)");
	char path[PATH_MAX + 16];
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fmt_path(path, sizeof path, &err, "%s/marker.json",
			       x->d->install_dir);
	if (!rc)
		rc = pyrt_marker_read(path, &m, &err);
	if (rc == PYRT_E_NOMEM)
		return rc;
	if (rc)
		return check_add(x->d, "marker", title, PYRT_CHECK_FAIL, fix,
				 "%s", err.msg);
	pyrt_manifest *man = NULL;
	rc = pyrt_marker_load_manifest(&m, x->d->install_dir, &man, &err);
	if (rc == PYRT_E_NOMEM)
		return rc;
	if (rc)
		return check_add(x->d, "marker", title, PYRT_CHECK_FAIL, fix,
				 "%s", err.msg);
	verify_tally t = { 0, "" };
	/* Bytecode caches are left out of the check and of the count. */
	size_t entries = pyrt_manifest_checked_count(man);
	rc = pyrt_manifest_verify(man, x->d->install_dir, on_problem, &t, &err);
	pyrt_manifest_free(man);
	if (rc < 0)
		return check_add(x->d, "marker", title, PYRT_CHECK_FAIL, fix,
				 "the files could not be checked: %s", err.msg);
	if (t.problems > 0)
		return check_add(x->d, "marker", title, PYRT_CHECK_FAIL, fix,
				 "%d of %zu manifest entries differ from the "
				 "files (bytecode caches: as shipped or made "
				 "from their source); first: "
				 "%s", t.problems, entries,
				 t.first);
	return check_add(x->d, "marker", title, PYRT_CHECK_PASS, NULL,
			 "marker.json, manifest.tsv and all %zu entries match "
			 "the files (bytecode caches: as shipped or made from "
			 "their source)", entries);
}

/* The baseline's modules are imported once the marker says pip ran. */
static int interp_checks_baseline(const doctor_ctx *x)
{
	const pyrt_marker *m = &x->st.marker;
	return x->have_status && x->st.have_marker &&
	       (strcmp(m->baseline_state, "complete") == 0 ||
		strcmp(m->baseline_state, "partial") == 0);
}

/* check_interpreter's verdict on what the interpreter reported. */
static int interp_verdict(doctor_ctx *x, const char *python,
			  const pyrt_interp_report *rep)
{
	const char *title = "Interpreter version";
	const char *fix = "pyrt install --force";
	const char *version = rep->version, *prefix = rep->prefix;
	const char *imports = rep->imports_known
		? rep->imports : "(the import check printed no result)";
	const pyrt_marker *m = &x->st.marker;
	if (rep->why[0])
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 fix, "%s %s", python, rep->why);
	if (!version[0])
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 fix, "%s printed no version", python);
	if (strcmp(version, m->version) != 0)
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 fix, "%s reports %s, the marker says %s",
				 python, version, m->version);
	/* Where sys.prefix must lie: inside the install, whatever the
	 * layout (status --deep asks the same). */
	if (!pyrt_fs_path_inside(prefix, x->d->install_dir))
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 fix, "%s runs with sys.prefix %s, outside its "
				 "install %s", python, prefix,
				 x->d->install_dir);
	/* ssl is tried first: the runtime's own; anything after it is a
	 * baseline package, which pyrt baseline reinstalls. */
	if (imports[0])
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 strncmp(imports, "ssl ", 4) == 0 ? fix
				 : "pyrt baseline",
				 "CPython %s starts but cannot import: %s",
				 version, imports);
	if (strcmp(version, pyrt_pins_version(x->o->pins)) != 0)
		return check_add(x->d, "interpreter", title, PYRT_CHECK_WARN,
				 "pyrt install", "CPython %s starts; the pins "
				 "say %s", version,
				 pyrt_pins_version(x->o->pins));
	return check_add(x->d, "interpreter", title, PYRT_CHECK_PASS, NULL,
			 "CPython %s starts from %s and imports ssl%s", version,
			 prefix, interp_checks_baseline(x) &&
			 pyrt_pins_baseline_count(x->o->pins)
			 ? " and the installed baseline" : "");
}

/* The interpreter must start, report the marker's version and run from its
 * own install; a version the pins no longer name only warns. */
static int check_interpreter(doctor_ctx *x)
{
	const char *title = "Interpreter version";
	const char *fix = "pyrt install --force";
	const char *layout = pyrt_pins_layout_interpreter(x->o->pins);
	if (!x->runtime_ready || !x->install_known)
		return check_add(x->d, "interpreter", title, PYRT_CHECK_SKIP,
				 NULL, "not checked: the runtime is not ready "
				 "(see runtime)");
	if (!layout)
		return check_add(x->d, "interpreter", title, PYRT_CHECK_SKIP,
				 NULL, "not checked: the pins name no "
				 "interpreter (layout: none)");
	char python[PATH_MAX];
	if (pyrt_fmt_path(python, sizeof python, NULL, "%s/%s",
			  x->d->install_dir, layout))
		return check_add(x->d, "interpreter", title, PYRT_CHECK_FAIL,
				 fix, "the interpreter's path is too long: "
				 "%.200s/%s", x->d->install_dir, layout);
	/* Its modules too, once the baseline is in (py/doctor_interp.py). */
	size_t nb = interp_checks_baseline(x)
			    ? pyrt_pins_baseline_count(x->o->pins) : 0;
	const char **reqs = calloc(nb + 1, sizeof *reqs);
	pyrt_interp_report *rep = malloc(sizeof *rep);
	int rc = reqs && rep ? 0 : PYRT_E_NOMEM;
	for (size_t i = 0; !rc && i < nb; i++)
		reqs[i] = pyrt_pins_baseline_at(x->o->pins, i);
	if (!rc)
		rc = pyrt_interp_report_run(python, x->d->install_dir, reqs, nb,
					    DOCTOR_INTERP_TIMEOUT_S,
					    x->ev ? x->ev->cancel : NULL, rep);
	if (!rc)
		rc = interp_verdict(x, python, rep);
	free(reqs);
	free(rep);
	return rc;
}

/* PEP 668: pip refuses to install into an interpreter whose stdlib
 * directory holds EXTERNALLY-MANAGED.  pyrt never writes one. */
static int check_pep668(doctor_ctx *x)
{
	const char *title = "Not EXTERNALLY-MANAGED";
	if (!x->install_known)
		return check_add(x->d, "pep668", title, PYRT_CHECK_SKIP, NULL,
				 "not checked: no install to look at (see "
				 "runtime)");
	char pattern[PATH_MAX + 64];
	pyrt_fmt_text(pattern, sizeof pattern,
		      "%s/python/lib/python3*/EXTERNALLY-MANAGED", x->d->install_dir);
	glob_t g;
	memset(&g, 0, sizeof g);
	int gr = glob(pattern, GLOB_NOSORT, NULL, &g);
	int rc;
	if (gr == 0 && g.gl_pathc > 0)
		rc = check_add(x->d, "pep668", title, PYRT_CHECK_FAIL,
			       "pyrt install --force",
			       "the runtime carries an EXTERNALLY-MANAGED "
			       "marker (%s), so its pip refuses to install the "
			       "document libraries; pyrt never writes one, so "
			       "this install came from a foreign archive",
			       g.gl_pathv[0]);
	else if (gr == GLOB_NOSPACE)
		rc = PYRT_E_NOMEM;
	else
		rc = check_add(x->d, "pep668", title, PYRT_CHECK_PASS, NULL,
			       "no EXTERNALLY-MANAGED marker: pip may install "
			       "into the runtime");
	globfree(&g);
	return rc;
}

/* "a, b, c" from the marker's missing list. */
static void join_missing(const pyrt_marker *m, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < m->baseline_missing_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "",
					 m->baseline_missing[i]);
}

static void describe_requirements(const pyrt_plugin *p, char *buf,
				  size_t len);

/*
 * What the runtime really holds of the pins' baseline: the installed
 * distributions (dist-info), by the matrix's checker.  0 with
 * lacking filled ("" when everything is there), PYRT_E_NOMEM /
 * PYRT_E_CANCELLED, or another code with lacking holding why the check
 * could not run.
 */
static int baseline_installed(doctor_ctx *x, char *lacking, size_t len)
{
	size_t n = pyrt_pins_baseline_count(x->o->pins);
	const char **specs = calloc(n + 1, sizeof *specs);
	if (!specs)
		return PYRT_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		specs[i] = pyrt_pins_baseline_at(x->o->pins, i);
	pyrt_plugins *ps = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_plugins_check_requirements(&ps, "baseline",
						 x->st.interpreter, specs, n,
						 x->ev, &err);
	free(specs);
	lacking[0] = '\0';
	if (rc) {
		pyrt_fmt_text(lacking, len, "%s", err.msg);
		return rc;
	}
	const pyrt_plugin *row = pyrt_plugins_at(ps, 0);
	if (row->verdict == PYRT_VERDICT_INVALID)
		pyrt_fmt_text(lacking, len, "%s", row->error ? row->error
			      : "a requirement could not be read");
	else if (row->verdict != PYRT_VERDICT_READY)
		describe_requirements(row, lacking, len);
	pyrt_plugins_free(ps);
	return 0;
}

/* The baseline: what the marker recorded (pyrt baseline writes it), then,
 * when it says pip ran, what is really installed: a package deleted since
 * is named, not hidden behind "complete". */
static int check_baseline(doctor_ctx *x)
{
	const char *title = "Doc baseline";
	if (!x->have_status || !x->st.have_marker)
		return check_add(x->d, "baseline", title, PYRT_CHECK_SKIP, NULL,
				 "not checked: no marker to read (see "
				 "runtime)");
	const pyrt_marker *m = &x->st.marker;
	size_t want = pyrt_pins_baseline_count(x->o->pins);
	if (strcmp(m->baseline_state, "complete") == 0 && want &&
	    x->runtime_ready) {
		char lacking[2048];
		int rc = baseline_installed(x, lacking, sizeof lacking);
		if (rc == PYRT_E_NOMEM || rc == PYRT_E_CANCELLED)
			return rc;
		if (rc)
			return check_add(x->d, "baseline", title,
					 PYRT_CHECK_FAIL, "pyrt install --force",
					 "the installed packages could not be "
					 "checked: %s", lacking);
		if (lacking[0])
			return check_add(x->d, "baseline", title,
					 PYRT_CHECK_FAIL, "pyrt baseline",
					 "the marker says complete, but in the "
					 "runtime: %s", lacking);
		return check_add(x->d, "baseline", title, PYRT_CHECK_PASS, NULL,
				 "complete: all %zu requirement(s) installed",
				 want);
	}
	if (strcmp(m->baseline_state, "complete") == 0)
		return check_add(x->d, "baseline", title, PYRT_CHECK_PASS, NULL,
				 "complete");
	if (strcmp(m->baseline_state, "partial") == 0) {
		char missing[2048];
		join_missing(m, missing, sizeof missing);
		return check_add(x->d, "baseline", title, PYRT_CHECK_FAIL,
				 "pyrt baseline", "partial: missing %s%s%s",
				 missing[0] ? missing : "(not recorded)",
				 m->baseline_error[0] ? "; pip said: " : "",
				 m->baseline_error);
	}
	if (want == 0)
		return check_add(x->d, "baseline", title, PYRT_CHECK_PASS, NULL,
				 "the pins name no baseline");
	return check_add(x->d, "baseline", title, PYRT_CHECK_FAIL,
			 "pyrt baseline",
			 "not installed: none of the %zu baseline "
			 "requirement(s) were installed", want);
}

/* "missing a, b; c 1.0 installed, wants c>=2". */
static void describe_requirements(const pyrt_plugin *p, char *buf, size_t len)
{
	size_t used = 0;
	int missing = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->require_count && used < len; i++) {
		const pyrt_requirement *r = &p->requires[i];
		if (!r->installed)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 missing++ ? ", " : "missing ",
						 r->name);
	}
	for (size_t i = 0; i < p->require_count && used < len; i++) {
		const pyrt_requirement *r = &p->requires[i];
		if (r->installed && r->conflict && r->broken)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s", used ? "; " : "",
						 r->broken);
		else if (r->installed && r->conflict)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s %s installed, wants %s",
						 used ? "; " : "", r->name,
						 r->installed, r->spec);
	}
}

/* A plugin's verdict as a check: dead plugins fail with their fix. */
static int plugin_row(doctor_ctx *x, const pyrt_plugin *p)
{
	char id[192], title[192], what[2048];
	pyrt_fmt_text(id, sizeof id, "plugin:%s", p->name);
	pyrt_fmt_text(title, sizeof title, "Plugin %s", p->name);
	pyrt_check_verdict v = PYRT_CHECK_FAIL;
	switch (p->verdict) {
	case PYRT_VERDICT_READY:
		v = PYRT_CHECK_PASS;
		pyrt_fmt_text(what, sizeof what, "%zu requirement(s) met",
			      p->require_count);
		break;
	case PYRT_VERDICT_NO_RUNTIME_NEEDED:
		v = PYRT_CHECK_PASS;
		pyrt_fmt_text(what, sizeof what, "needs no managed runtime");
		break;
	case PYRT_VERDICT_DISABLED:
		v = PYRT_CHECK_PASS;
		pyrt_fmt_text(what, sizeof what, "not enabled in its plugin.yaml");
		break;
	case PYRT_VERDICT_NEEDS_RUNTIME:
		/* The plugin's own error says why, when the check itself
		 * failed; otherwise the runtime is simply not ready. */
		pyrt_fmt_text(what, sizeof what, "%s", p->error ? p->error :
			      "needs the managed runtime, which is not ready");
		break;
	case PYRT_VERDICT_MISSING_DEPS:
		describe_requirements(p, what, sizeof what);
		break;
	case PYRT_VERDICT_INVALID:
		/* The error already starts with "<path>/plugin.yaml:<line>:". */
		pyrt_fmt_text(what, sizeof what, "%s",
			      p->error ? p->error : "invalid plugin.yaml");
		break;
	}
	const char *fix = v == PYRT_CHECK_PASS ? NULL : p->fix;
	return check_add(x->d, id, title, v, fix, "%s: %s",
			 pyrt_verdict_name(p->verdict), what);
}

/* One row per plugin, from one readiness check. */
/* The wheel lock the box declares its packages were installed under
 * against the lock of the pins in effect (status.h): a row only when they
 * differ, a warning — the runtime works; a baseline with these pins would
 * install other wheels. */
static int check_declared_lock(doctor_ctx *x)
{
	if (!x->have_status || !x->st.lock_differs)
		return 0;
	return check_add(x->d, "declared_lock", "Declared wheel lock",
			 PYRT_CHECK_WARN, "pyrt baseline",
			 "the wheel lock in effect (%.12s) is not the one the "
			 "box declares its packages were installed under "
			 "(%.12s): a baseline with these pins installs the "
			 "wheels they lock; or use the pins the box was "
			 "installed with",
			 x->st.lock_in_effect[0] ? x->st.lock_in_effect
						 : "none",
			 x->st.lock_declared[0] ? x->st.lock_declared : "none");
}

/* Whether path (a folder when dir) is closed to this user. */
static int closed_to_me(const char *path, int dir)
{
	return access(path, dir ? R_OK | X_OK : R_OK) != 0 && errno == EACCES;
}

int pyrt_doctor_plugins_fix(const char *box_root, char *buf, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int n = snprintf(dir, sizeof dir, "%s/plugins", box_root);
	if (n < 0 || (size_t)n >= sizeof dir)
		return 0;
	int closed = closed_to_me(dir, 1);
	DIR *d = closed ? NULL : opendir(dir);
	for (struct dirent *e; d && !closed && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof path)
			continue;
		closed = closed_to_me(path, 1);
		n = snprintf(path, sizeof path, "%s/%s/plugin.yaml", dir,
			     e->d_name);
		if (!closed && n > 0 && (size_t)n < sizeof path)
			closed = closed_to_me(path, 0);
	}
	if (d)
		closedir(d);
	if (!closed)
		return 0;
	struct stat sb;
	int theirs = stat(dir, &sb) == 0 && sb.st_uid != geteuid();
	pyrt_fmt_text(buf, len, "%schmod -R go+rX '%s' (made private, as a umask "
		      "of 077 does; every user of the box reads its plugins)",
		      theirs ? "sudo " : "", dir);
	return 1;
}

static int check_plugins(doctor_ctx *x)
{
	pyrt_plugins *ps = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_plugins_check(&ps, x->box, x->o->pins,
				    x->o->platform_key, x->ev, &err);
	if (rc == PYRT_E_CANCELLED || rc == PYRT_E_NOMEM)
		return rc;
	char fix[PATH_MAX + 160];
	if (rc < 0)
		return check_add(x->d, "plugins", "Plugins", PYRT_CHECK_FAIL,
				 pyrt_doctor_plugins_fix(x->d->box_root, fix,
							 sizeof fix)
					 ? fix : NULL,
				 "cannot read the plugins: %s", err.msg);
	size_t n = pyrt_plugins_count(ps);
	if (n == 0)
		rc = check_add(x->d, "plugins", "Plugins", PYRT_CHECK_PASS,
			       NULL, "no plugins under %s",
			       pyrt_box_plugins_dir(x->box));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = plugin_row(x, pyrt_plugins_at(ps, i));
	pyrt_plugins_free(ps);
	return rc;
}

/* Room for a download, its extraction and the previous install: three
 * times the pinned archive, or DOCTOR_DISK_MIN when the pin has no size. */
static int check_disk(doctor_ctx *x)
{
	char where[PATH_MAX];
	existing_ancestor(x->d->box_root, where, sizeof where);
	uint64_t need = x->pin && x->pin->size ? 3 * x->pin->size
					       : DOCTOR_DISK_MIN;
	uint64_t have = pyrt_fs_free_bytes(where);
	unsigned long long mb = 1ull << 20;
	if (have >= need)
		return check_add(x->d, "disk", "Free disk",
				 PYRT_CHECK_PASS, NULL,
				 "%llu MiB free at %s (an install needs about "
				 "%llu MiB)", (unsigned long long)(have / mb),
				 where, (unsigned long long)((need + mb - 1) / mb));
	char fix[PATH_MAX + 64];
	pyrt_fmt_text(fix, sizeof fix, "free at least %llu MiB under %s",
		      (unsigned long long)((need - have + mb - 1) / mb), where);
	return check_add(x->d, "disk", "Free disk",
			 PYRT_CHECK_FAIL, fix,
			 "only %llu MiB free at %s; an install needs about "
			 "%llu MiB", (unsigned long long)(have / mb), where,
			 (unsigned long long)((need + mb - 1) / mb));
}

/* The bundle install would use, read and recognised as PEM. */
static int check_ca_bundle(doctor_ctx *x)
{
	const char *given = x->o->cacert;
	const char *path = given ? given : DOCTOR_SYSTEM_CA;
	const char *title = "CA bundle";
	const char *fix = given ? "pass a readable PEM bundle with --cacert FILE"
				: "install the ca-certificates package, or "
				  "pass --cacert FILE";
	char *text = NULL;
	size_t len = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fs_read_file(path, DOCTOR_CA_MAX, &text, &len, &err);
	if (rc == PYRT_E_NOMEM)
		return rc;
	int pem = rc == 0 && strstr(text, "-----BEGIN CERTIFICATE-----");
	free(text);
	if (rc)
		return check_add(x->d, "ca_bundle", title, PYRT_CHECK_FAIL, fix,
				 "%s%s", err.msg,
				 given ? "" : " (the system bundle)");
	if (!pem)
		return check_add(x->d, "ca_bundle", title, PYRT_CHECK_FAIL, fix,
				 "%s holds no PEM certificate", path);
	return check_add(x->d, "ca_bundle", title, PYRT_CHECK_PASS, NULL,
			 "%s is readable%s", path,
			 given ? "" : " (the system bundle)");
}

/* A proxy URL as the one redactor shows a URL (redact.h): doctor does not
 * parse it itself, so a password holding '#', '/' or '@' is hidden the
 * same everywhere (issue 26, door 7).  Returns 0 when no host is left. */
static int proxy_shown(const char *value, char *out, size_t len)
{
	pyrt_redact_url(value, out, len);
	const char *sep = strstr(out, "://");
	const char *host = sep ? sep + 3 : out;
	return strcspn(host, "/?#") > 0;
}

/* Which proxy variables a download (and pip) would see; informational. */
static int check_proxy(doctor_ctx *x)
{
	static const char *const names[][2] = {
		{ "http_proxy", "HTTP_PROXY" }, { "https_proxy", "HTTPS_PROXY" },
		{ "all_proxy", "ALL_PROXY" }, { "no_proxy", "NO_PROXY" },
	};
	char detail[2048] = "", shown[512], odd[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *lo = getenv(names[i][0]), *up = getenv(names[i][1]);
		if (lo && up && *lo && *up && strcmp(lo, up) != 0 && !odd[0])
			pyrt_fmt_text(odd, sizeof odd, "%s and %s differ",
				      names[i][0], names[i][1]);
		for (int c = 0; c < 2; c++) {
			const char *v = c ? up : lo;
			if (!v || !*v)
				continue;
			if (i == 3) {
				pyrt_fmt_text(shown, sizeof shown, "%s", v);
				pyrt_redact(shown);
			}
			else if (!proxy_shown(v, shown, sizeof shown) && !odd[0])
				pyrt_fmt_text(odd, sizeof odd,
					      "%s names no proxy host", names[i][c]);
			if (used < sizeof detail)
				used += (size_t)snprintf(detail + used,
							 sizeof detail - used,
							 "%s%s=%s",
							 used ? ", " : "",
							 names[i][c], shown);
		}
	}
	const char *title = "Proxy variables";
	if (!detail[0])
		return check_add(x->d, "proxy", title, PYRT_CHECK_PASS, NULL,
				 "none set: direct connections");
	if (odd[0])
		return check_add(x->d, "proxy", title, PYRT_CHECK_WARN,
				 "set each proxy variable once, to "
				 "scheme://host:port",
				 "%s; %s", odd, detail);
	return check_add(x->d, "proxy", title, PYRT_CHECK_PASS, NULL, "%s",
			 detail);
}

/* The proxy row said what is set; a network check below found that it
 * does not answer: one verdict, not a ✓ three rows above a ✗. */
static int proxy_row_failed(pyrt_doctor *d)
{
	for (size_t i = 0; i < d->count; i++) {
		doctor_check *c = &d->checks[i];
		if (strcmp(c->id, "proxy") != 0)
			continue;
		char *detail = NULL, *fix = strdup("fix the proxy in "
			"https_proxy (it does not answer), or unset it where "
			"connections are direct");
		if (asprintf(&detail, "%s — it does not answer (see the "
			     "network checks)", c->detail) < 0)
			detail = NULL;
		if (!detail || !fix) {
			free(detail);
			free(fix);
			return PYRT_E_NOMEM;
		}
		free(c->detail);
		free(c->fix);
		c->detail = detail;
		c->fix = fix;
		c->pub.detail = detail;
		c->pub.fix = fix;
		c->pub.verdict = PYRT_CHECK_FAIL;
	}
	return 0;
}

/* What a stopped package run left in the site folders (settle.h): the
 * next reconcile settles it, and until then it is worth a line.  1 when
 * there is none (nothing added), else check_add's answer. */
static int check_site_leftovers(doctor_ctx *x, const char *title)
{
	if (!x->have_status || !x->st.have_marker)
		return 1;
	pyrt_settle_report rep;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_settle(x->st.install_dir, &x->st.marker, 0, 1, NULL, &rep,
			&err) != 0 || (!rep.staged_dropped && !rep.stashes))
		return 1;
	return check_add(x->d, "staging", title, PYRT_CHECK_WARN,
			 "pyrt baseline", "%d staged distribution%s and %d pip "
			 "stash folder%s left in the runtime by a run that "
			 "stopped (%s); the next baseline, install or plugin "
			 "install settles them", rep.staged_dropped,
			 rep.staged_dropped == 1 ? "" : "s", rep.stashes,
			 rep.stashes == 1 ? "" : "s", rep.first);
}

/* Leftovers of dead installers: harmless, swept by the next install. */
static int check_staging(doctor_ctx *x)
{
	const char *title = "Stale staging";
	pyrt_error err = PYRT_ERROR_INIT;
	int left = check_site_leftovers(x, title);
	if (left != 1)
		return left;
	if (pyrt_box_shared(x->box))
		return check_add(x->d, "staging", title, PYRT_CHECK_PASS, NULL,
				 "root's to sweep (staging of a shared box is "
				 "private to root; root's doctor looks at it)");
	int n = pyrt_staging_count_stale(pyrt_box_staging_dir(x->box), &err);
	if (n < 0)
		return check_add(x->d, "staging", title, PYRT_CHECK_WARN, NULL,
				 "cannot tell: %s", err.msg);
	if (n > 0)
		return check_add(x->d, "staging", title, PYRT_CHECK_WARN,
				 "nothing to do: the next pyrt install sweeps "
				 "them",
				 "%d staging director%s left by installers "
				 "that died (in %s)", n, n == 1 ? "y" : "ies",
				 pyrt_box_staging_dir(x->box));
	return check_add(x->d, "staging", title, PYRT_CHECK_PASS, NULL,
			 "no stale staging directories");
}

/* Enough for a TLS handshake over a slow link, short enough that a
 * desktop with no network answers within seconds. */
#define DOCTOR_NET_TIMEOUT_S 5
#define DOCTOR_DEFAULT_INDEX "https://pypi.org/simple/"

/* What to do about a probe that stopped at stage. */
static const char *net_fix(const char *stage, int index, char *buf,
			   size_t len)
{
	const char *offline = index
		? "install the baseline offline with --wheelhouse DIR"
		: "install offline with --from-file ARCHIVE";
	const char *what =
		!strcmp(stage, "dns") ? "check the DNS (/etc/resolv.conf), or "
					"set https_proxy to this network's "
					"proxy"
		: !strcmp(stage, "proxy") ? "fix the proxy in https_proxy (it "
					    "does not answer), or unset it "
					    "where connections are direct"
		: !strcmp(stage, "tls") ? "pass --cacert FILE with the CA "
					  "that signed the server's (or a "
					  "TLS-inspecting proxy's) "
					  "certificate"
		: !strcmp(stage, "tcp") ? "check the firewall, or set "
					  "https_proxy to this network's proxy"
		: "check the network and the proxy";
	pyrt_fmt_text(buf, len, "%s; or %s; or %s", what,
		      index ? "pass --index-url URL for a reachable index"
			    : "pass --mirror URL for a reachable mirror",
		      offline);
	return buf;
}

static int net_check(doctor_ctx *x, const char *id, const char *title,
		     const char *url, const char *from, int index, int soft)
{
	pyrt_fetch_probe_result pr;
	pyrt_error err = PYRT_ERROR_INIT;
	long t = x->o->network_timeout_s > 0 ? x->o->network_timeout_s
					     : DOCTOR_NET_TIMEOUT_S;
	/* Said before the wait, so a front end shows what it waits for: a
	 * dead proxy or a dropped SYN takes the whole timeout. */
	char host[256];
	pyrt_fetch_url_host(url, host, sizeof host);
	if (pyrt_events_log(x->ev, PYRT_LOG_INFO,
			    "checking the network: %s (%s), %ld s at most",
			    host[0] ? host : "?", from, t))
		return PYRT_E_CANCELLED;
	int rc = pyrt_fetch_probe(url, x->o->cacert, t, &pr, &err);
	if (rc == PYRT_E_NOMEM)
		return rc;
	if (rc)
		return check_add(x->d, id, title, PYRT_CHECK_WARN, NULL,
				 "not tried: %s", err.msg);
	if (pr.ok)
		return check_add(x->d, id, title, PYRT_CHECK_PASS, NULL,
				 "%s (%s)", pr.line, from);
	char fix[512];
	if (!strcmp(pr.stage, "proxy"))
		x->proxy_dead = 1;
	return check_add(x->d, id, title, soft ? PYRT_CHECK_WARN
						: PYRT_CHECK_FAIL,
			 net_fix(pr.stage, index, fix, sizeof fix), "%s (%s)%s",
			 pr.line, from, soft ? "; this wheelhouse box needs it "
			 "only to install the runtime again" : "");
}

/* The archive's host (under --mirror when given), as install reaches it. */
static int check_net_archive(doctor_ctx *x)
{
	if (!x->o->network)
		return 0;
	const char *title = "Archive host reachable";
	if (!x->pin || !x->pin->url)
		return check_add(x->d, "net_archive", title, PYRT_CHECK_SKIP,
				 NULL, "no pinned archive for this platform");
	char *url = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	if (x->o->mirror &&
	    pyrt_fetch_mirror_url(x->pin->url, x->o->mirror, &url, &err) != 0)
		return check_add(x->d, "net_archive", title, PYRT_CHECK_FAIL,
				 "pass a --mirror URL pyrt accepts", "%s",
				 err.msg);
	int rc = net_check(x, "net_archive", title, url ? url : x->pin->url,
			   x->o->mirror ? "--mirror" : "the pins' URL", 0,
			   x->o->wheelhouse && x->runtime_ready);
	free(url);
	return rc;
}

/* Whether dir holds a wheel of project name (PEP 503 form): a file
 * "<name with _>-<version>-....whl", as wheel names are written. */
static int wheelhouse_has(const char *dir, const char *want)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int found = 0;
	char norm[256];
	for (struct dirent *e; !found && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		const char *dash = strchr(e->d_name, '-');
		if (len < 5 || strcmp(e->d_name + len - 4, ".whl") != 0 ||
		    !dash || (size_t)(dash - e->d_name) >= sizeof norm)
			continue;
		if (pyrt_name_normalize(e->d_name, (size_t)(dash - e->d_name),
					'-', norm) == 0 &&
		    strcmp(norm, want) == 0)
			found = 1;
	}
	closedir(d);
	return found;
}

/* A wheelhouse box (air-gapped): pip is given --no-index --find-links
 * DIR and never reaches an index, so the question is the folder: does it
 * exist, pass the gate every wheelhouse passes (trust.h), and hold a wheel
 * for each of the baseline's requirements.  Read on disk, so it is asked
 * offline too. */
static int check_wheelhouse(doctor_ctx *x)
{
	const char *dir = x->o->wheelhouse;
	const char *from = x->o->source_from ? x->o->source_from
					     : "--wheelhouse";
	const char *title = "Wheelhouse usable";
	char fix[PATH_MAX + 256];
	struct stat sb;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		pyrt_fmt_text(fix, sizeof fix, "make %s a folder of the baseline's "
			 "wheels (pyrt mirror DIR --wheelhouse-from WHEELS "
			 "writes one), or pass --wheelhouse DIR for the folder "
			 "that has them", dir);
		return check_add(x->d, "wheelhouse", title, PYRT_CHECK_FAIL,
				 fix, "%s (%s) %s", dir, from,
				 errno == ENOENT ? "does not exist"
						 : "is not a folder");
	}
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_trust_dir_entries("the wheelhouse", dir, &err) != 0)
		return check_add(x->d, "wheelhouse", title, PYRT_CHECK_FAIL,
				 "give the wheelhouse and its wheels to root "
				 "or the box's owner, writable by no one "
				 "else (chown, chmod go-w)", "%s (%s): %s",
				 dir, from, err.msg);
	char missing[1024] = "";
	size_t used = 0, n = pyrt_pins_baseline_count(x->o->pins), lacking = 0;
	for (size_t i = 0; i < n; i++) {
		const char *req = pyrt_pins_baseline_at(x->o->pins, i);
		char name[256], norm[256];
		const char *spec = NULL;
		if (pyrt_pep440_split(req, name, sizeof name, &spec) ==
		    PYRT_PEP440_OTHER) {
			/* A marker or extras: the name is what comes first. */
			size_t k = strcspn(req, " ;[<>=!~(@");
			if (k >= sizeof name)
				continue;
			memcpy(name, req, k);
			name[k] = '\0';
		}
		if (pyrt_name_normalize(name, strlen(name), '-', norm) != 0 ||
		    wheelhouse_has(dir, norm))
			continue;
		lacking++;
		if (used < sizeof missing)
			used += (size_t)snprintf(missing + used,
						 sizeof missing - used, "%s%s",
						 used ? ", " : "", norm);
	}
	if (lacking) {
		pyrt_fmt_text(fix, sizeof fix, "copy the wheels of %s into %s (pyrt "
			 "mirror DIR --wheelhouse-from WHEELS collects them)",
			 missing, dir);
		return check_add(x->d, "wheelhouse", title, PYRT_CHECK_FAIL,
				 fix, "%s (%s) lacks a wheel of %s", dir, from,
				 missing);
	}
	return check_add(x->d, "wheelhouse", title, PYRT_CHECK_PASS, NULL,
			 "%s (%s) holds a wheel for each of the %zu baseline "
			 "requirement(s); pip reaches no index", dir, from, n);
}

/* Where the baseline's packages come from: a wheelhouse on disk, or
 * pip's index (the one install would give pip: --index-url, the box's
 * declared index, PIP_INDEX_URL, else PyPI) reached over the network. */
static int check_net_index(doctor_ctx *x)
{
	if (x->o->wheelhouse)
		return check_wheelhouse(x);
	if (!x->o->network)
		return 0;
	const char *env = getenv("PIP_INDEX_URL");
	const char *url = x->o->index_url ? x->o->index_url
			  : env && *env ? env : DOCTOR_DEFAULT_INDEX;
	const char *from = x->o->index_url
		? (x->o->source_from ? x->o->source_from : "--index-url")
		: env && *env ? "PIP_INDEX_URL" : "PyPI, pip's default";
	return net_check(x, "net_index", "Package index reachable", url, from,
			 1, 0);
}

typedef int (*check_fn)(doctor_ctx *x);

/* The order is the contract: ids and order are stable. */
static const check_fn check_order[] = {
	check_platform, check_pins, check_box_root, check_lock, check_runtime,
	check_marker, check_interpreter, check_pep668, check_baseline,
	check_declared_lock,
	check_plugins, check_disk, check_ca_bundle, check_proxy, check_staging,
	check_net_archive, check_net_index,
};

/* Run the checks in order, logging each verdict as it lands. */
static int doctor_checks(doctor_ctx *x, pyrt_error *err)
{
	for (size_t i = 0; i < sizeof check_order / sizeof check_order[0]; i++) {
		if (pyrt_events_cancelled(x->ev))
			return pyrt_error_set(err, PYRT_E_CANCELLED,
					      "doctor cancelled");
		size_t before = x->d->count;
		int rc = check_order[i](x);
		if (rc == PYRT_E_NOMEM)
			return pyrt_error_set(err, rc, "out of memory");
		if (rc)
			return pyrt_error_set(err, rc, "doctor %s",
					      rc == PYRT_E_CANCELLED
					      ? "cancelled" : "failed");
		for (size_t k = before; k < x->d->count; k++) {
			const pyrt_check *c = &x->d->checks[k].pub;
			if (pyrt_events_log(x->ev, PYRT_LOG_DEBUG,
					    "doctor: %s %s: %s",
					    pyrt_check_verdict_name(c->verdict),
					    c->id, c->detail))
				return pyrt_error_set(err, PYRT_E_CANCELLED,
						      "doctor cancelled");
		}
	}
	return 0;
}

int pyrt_doctor_run(pyrt_doctor **out, const pyrt_doctor_opts *opts,
		    const pyrt_events *ev, pyrt_error *err)
{
	*out = NULL;
	if (!opts || opts->version != PYRT_DOCTOR_OPTS_VERSION ||
	    !opts->box || !opts->pins || !opts->platform_key)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "doctor: options missing or of another "
				      "version");
	doctor_ctx *x = calloc(1, sizeof *x);
	pyrt_doctor *d = calloc(1, sizeof *d);
	int rc = 0;
	if (!x || !d) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	x->d = d;
	x->o = opts;
	x->ev = ev;
	x->box = opts->box;
	pyrt_fmt_text(d->box_root, sizeof d->box_root, "%s", pyrt_box_root(x->box));
	pyrt_fmt_text(d->logs_dir, sizeof d->logs_dir, "%s",
		      pyrt_box_logs_dir(x->box));
	pyrt_fmt_text(d->platform_key, sizeof d->platform_key, "%s",
		      opts->platform_key);
	x->pin = pyrt_pins_find(opts->pins, opts->platform_key);
	rc = doctor_checks(x, err);
	if (!rc && x->proxy_dead)
		rc = proxy_row_failed(d);
	if (rc)
		goto cleanup;
	*out = d;
	d = NULL;
cleanup:
	free(x);
	pyrt_doctor_free(d);
	return rc;
}

int pyrt_doctor_refused(pyrt_doctor **out, const char *box_root,
			const pyrt_error *refusal, pyrt_error *err)
{
	*out = NULL;
	pyrt_doctor *d = calloc(1, sizeof *d);
	if (!d)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* One finding, and nothing in the box is read or run. */
	pyrt_fmt_text(d->box_root, sizeof d->box_root, "%s", box_root);
	char title[64], fix[PATH_MAX + 256];
	untrusted_words(box_root, title, sizeof title, fix, sizeof fix);
	int rc = check_add(d, "box_root", title, PYRT_CHECK_FAIL, fix, "%s",
			   refusal->msg);
	if (rc) {
		pyrt_doctor_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void pyrt_doctor_free(pyrt_doctor *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->count; i++)
		check_clear(&d->checks[i]);
	free(d->checks);
	free(d);
}

/* old replaced by fn's word for it; *slot keeps old on failure. */
static int map_one(char **slot, const char **pub,
		   char *(*fn)(const char *text, void *arg), void *arg)
{
	if (!*slot)
		return 0;
	char *now = fn(*slot, arg);
	if (!now)
		return PYRT_E_NOMEM;
	free(*slot);
	*slot = now;
	*pub = now;
	return 0;
}

int pyrt_doctor_map_text(pyrt_doctor *d,
			 char *(*fn)(const char *text, void *arg), void *arg)
{
	for (size_t i = 0; d && i < d->count; i++) {
		doctor_check *c = &d->checks[i];
		if (map_one(&c->detail, &c->pub.detail, fn, arg) ||
		    map_one(&c->fix, &c->pub.fix, fn, arg))
			return PYRT_E_NOMEM;
	}
	return 0;
}

size_t pyrt_doctor_count(const pyrt_doctor *d)
{
	return d ? d->count : 0;
}

const pyrt_check *pyrt_doctor_at(const pyrt_doctor *d, size_t i)
{
	return d && i < d->count ? &d->checks[i].pub : NULL;
}

int pyrt_doctor_passed(const pyrt_doctor *d)
{
	for (size_t i = 0; d && i < d->count; i++)
		if (d->checks[i].pub.verdict == PYRT_CHECK_FAIL)
			return 0;
	return 1;
}

/* ---- support bundle ----------------------------------------------------- */

/* The newest install-*.log in the logs directory, or 0 when none. */
static int newest_install_log(const char *dir, char *out, size_t len)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return 0;
	struct dirent *de;
	struct timespec best = { 0, 0 };
	char best_name[256] = "";
	while ((de = readdir(dh)) != NULL) {
		size_t n = strlen(de->d_name);
		if (strncmp(de->d_name, "install-", 8) != 0 || n < 12 ||
		    strcmp(de->d_name + n - 4, ".log") != 0)
			continue;
		struct stat sb;
		if (fstatat(dirfd(dh), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		int newer = sb.st_mtim.tv_sec > best.tv_sec ||
			    (sb.st_mtim.tv_sec == best.tv_sec &&
			     (sb.st_mtim.tv_nsec > best.tv_nsec ||
			      (sb.st_mtim.tv_nsec == best.tv_nsec &&
			       strcmp(de->d_name, best_name) > 0)));
		if (!best_name[0] || newer) {
			best = sb.st_mtim;
			pyrt_fmt_text(best_name, sizeof best_name, "%s", de->d_name);
		}
	}
	closedir(dh);
	/* A path that does not fit would read another file: none. */
	return best_name[0] &&
	       pyrt_fmt_path(out, len, NULL, "%s/%s", dir, best_name) == 0;
}

/* The last max bytes of a file (a long log keeps its end, where the
 * failure is).  NULL on any failure. */
static char *read_tail(const char *path, size_t max, size_t *len)
{
	/* O_NONBLOCK: a FIFO swapped in after the directory scan must not
	 * hang the bundle (fstat then refuses it). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat sb;
	char *buf = NULL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		goto done;
	size_t size = (size_t)sb.st_size;
	off_t from = size > max ? (off_t)(size - max) : 0;
	size_t want = size > max ? max : size;
	buf = malloc(want + 1);
	if (!buf)
		goto done;
	size_t got = 0;
	while (got < want) {
		ssize_t k = pread(fd, buf + got, want - got, from + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	buf[got] = '\0';
	*len = got;
done:
	close(fd);
	return buf;
}

/* One regular member, its text redacted line by line. */
static int bundle_add(struct archive *a, const char *name, const char *text,
		      size_t len)
{
	size_t rlen = 0;
	char *red = pyrt_redact_lines(text, len, &rlen);
	if (!red)
		return PYRT_E_NOMEM;
	struct archive_entry *e = archive_entry_new();
	int rc = e ? 0 : PYRT_E_NOMEM;
	if (e) {
		/* One top-level folder: unpacking never scatters files. */
		char path[256];
		pyrt_fmt_text(path, sizeof path, "pyrt-bundle/%s", name);
		archive_entry_set_pathname(e, path);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0600);
		archive_entry_set_size(e, (la_int64_t)rlen);
		archive_entry_set_mtime(e, time(NULL), 0);
		if (archive_write_header(a, e) != ARCHIVE_OK ||
		    (rlen && archive_write_data(a, red, rlen) != (la_ssize_t)rlen))
			rc = PYRT_E_IO;
		archive_entry_free(e);
	}
	free(red);
	return rc;
}

static int bundle_add_file(struct archive *a, const char *name,
			   const char *path)
{
	size_t len = 0;
	char *text = read_tail(path, DOCTOR_LOG_MAX, &len);
	if (!text)
		return 0; /* gone or unreadable: platform.txt says what was not */
	int rc = bundle_add(a, name, text, len);
	free(text);
	return rc;
}

/* uname, the detected key, glibc, pyrt's version: what support asks first. */
static char *platform_facts(const pyrt_doctor *d, const char *marker,
			    const char *log)
{
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	char now[40];
	pyrt_fs_now_rfc3339(now, sizeof now);
	const char *glibc = "none";
#ifdef __GLIBC__
	glibc = gnu_get_libc_version();
#endif
	/* Another user's bundle of root's box cannot read root's private
	 * logs: say whose they are and how to include them, not "none". */
	char no_log[PATH_MAX * 2 + 512] = "none";
	struct stat sb;
	if (!log && access(d->logs_dir, R_OK | X_OK) != 0 && errno == EACCES &&
	    stat(d->logs_dir, &sb) == 0) {
		char owner[128];
		pyrt_fs_owner_name(sb.st_uid, owner, sizeof owner);
		pyrt_fmt_text(no_log, sizeof no_log, "not included: the install "
			      "logs in %s are %s's, private to them; to include "
			      "the newest, run \"sudo pyrt doctor --bundle FILE "
			      "--box-root %s\"", d->logs_dir, owner, d->box_root);
	}
	char *text = NULL;
	if (asprintf(&text,
		     "pyrt %s\n"
		     "generated: %s\n"
		     "uname: %s %s %s %s\n"
		     "platform: %s\n"
		     "glibc: %s\n"
		     "box root: %s\n"
		     "marker: %s\n"
		     "install log: %s\n",
		     PYRT_VERSION, now, u.sysname, u.release, u.version,
		     u.machine, d->platform_key, glibc, d->box_root,
		     marker ? marker : "none (no active install)",
		     log ? log : no_log) < 0)
		return NULL;
	return text;
}

/* Write every member; the caller owns the archive and the file. */
static int bundle_members(struct archive *a, const pyrt_doctor *d,
			  const char *doctor_json)
{
	char marker[PATH_MAX + 16], log[PATH_MAX];
	int have_marker = 0;
	if (d->install_dir[0]) {
		pyrt_fmt_text(marker, sizeof marker, "%s/marker.json",
			      d->install_dir);
		have_marker = access(marker, R_OK) == 0;
	}
	int have_log = newest_install_log(d->logs_dir, log, sizeof log);
	char *facts = platform_facts(d, have_marker ? marker : NULL,
				     have_log ? log : NULL);
	if (!facts)
		return PYRT_E_NOMEM;
	int rc = bundle_add(a, "doctor.json", doctor_json, strlen(doctor_json));
	if (!rc)
		rc = bundle_add(a, "platform.txt", facts, strlen(facts));
	if (!rc && have_marker)
		rc = bundle_add_file(a, "marker.json", marker);
	if (!rc && have_log)
		rc = bundle_add_file(a, "install.log", log);
	free(facts);
	return rc;
}

/* gzip'd pax tar into an open fd. */
static int bundle_write(int fd, const pyrt_doctor *d, const char *doctor_json,
			pyrt_error *err)
{
	int lrc = pyrt_lazy_archive(err);
	if (lrc != 0)
		return lrc;
	struct archive *a = archive_write_new();
	if (!a)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = 0;
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		rc = pyrt_error_set(err, PYRT_E_IO, "cannot start the bundle: %s",
				    archive_error_string(a));
		goto cleanup;
	}
	rc = bundle_members(a, d, doctor_json);
	if (rc == PYRT_E_NOMEM)
		pyrt_error_set(err, rc, "out of memory");
	else if (rc)
		pyrt_error_set(err, rc, "cannot write the bundle: %s",
			       archive_error_string(a));
	if (archive_write_close(a) != ARCHIVE_OK && !rc)
		rc = pyrt_error_set(err, PYRT_E_IO, "cannot finish the bundle: %s",
				    archive_error_string(a));
cleanup:
	archive_write_free(a);
	return rc;
}

int pyrt_doctor_bundle(const pyrt_doctor *d, const char *doctor_json,
		       const char *out_path, pyrt_error *err)
{
	if (!d || !doctor_json || !out_path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "doctor bundle: missing argument");
	if (strcmp(out_path, "-") == 0) /* stdout: the caller checked it */
		return bundle_write(STDOUT_FILENO, d, doctor_json, err);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%ld", out_path,
			 (long)getpid(), (long)ts.tv_nsec);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return pyrt_error_set(err, PYRT_E_USAGE, "path too long: %s",
				      out_path);
	/* Owner-only from the first byte: it describes this machine. */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", tmp);
	int rc = bundle_write(fd, d, doctor_json, err);
	if (!rc && fsync(fd) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
	if (close(fd) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
	if (!rc && rename(tmp, out_path) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", out_path);
	if (rc)
		unlink(tmp);
	return rc;
}
