/*
 * The dry runs of install, baseline and plugins install (see dryrun.h):
 * what each would do, read from the pins, the box and the source, and
 * nothing written or fetched.
 */
#include "app/dryrun.h"

#include <dirent.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/baseline.h"
#include "app/common.h"
#include "app/install.h"
#include "app/plugin.h"
#include "app/text.h"
#include "core/pkgs/baseline.h"
#include "core/pkgs/plugins.h"
#include "core/dist/mirror.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/dists.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"
#include "core/util/pep440.h"
#include "core/util/redact.h"
#include "core/util/requirement.h"
#include "core/util/trust.h"

/* What a dry run is working from. */
typedef struct dry {
	const app_request *req;   /* with the box's declared source */
	const pyrt_pins *pins;
	const char *platform_key;
	json_t *plan, *download, *verify, *install, *reapply, *remove;
	pyrt_dists *dists;        /* the active install's; NULL: none */
	int new_install;          /* the runtime would be replaced */
} dry;

static json_t *str_json(const char *s)
{
	return s && *s ? app_text_json(s) : json_null();
}

/* The project name of requirement req, PEP 503 form, into out[len]. */
static int req_name(const char *req, char *out, size_t len)
{
	char name[256];
	const char *spec = NULL;
	if (pyrt_pep440_split(req, name, sizeof name, &spec) ==
	    PYRT_PEP440_OTHER) {
		size_t k = strspn(req, " ");
		size_t n = strcspn(req + k, " ;[<>=!~(@");
		if (n == 0 || n >= sizeof name)
			return -1;
		memcpy(name, req + k, n);
		name[n] = '\0';
	}
	if (strlen(name) >= len)
		return -1;
	return pyrt_name_normalize(name, strlen(name), '-', out);
}

/* The specifier list of req, or NULL (none, or not decidable here). */
static const char *req_spec(const char *req)
{
	char name[256];
	const char *spec = NULL;
	return pyrt_pep440_split(req, name, sizeof name, &spec) ==
	       PYRT_PEP440_SPEC ? spec : NULL;
}

/* The wheel of project name in dir that pip would take for spec: the
 * highest version the specifier allows (every one when it cannot be
 * judged here).  file and version get it; 0 when there is none. */
static int wheel_for(const char *dir, const char *name, const char *spec,
		     char *file, size_t flen, char *version, size_t vlen)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int found = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char project[256], v[128], above[140];
		if (pyrt_pins_wheel_project(e->d_name, project, sizeof project,
					    v, sizeof v) != 0 ||
		    strcmp(project, name) != 0)
			continue;
		if (spec && pyrt_pep440_satisfies(spec, v) == 0)
			continue;
		snprintf(above, sizeof above, ">%s", version);
		if (found && pyrt_pep440_satisfies(above, v) != 1)
			continue;
		snprintf(file, flen, "%s", e->d_name);
		snprintf(version, vlen, "%s", v);
		found = 1;
	}
	closedir(d);
	return found;
}

/* Where packages would come from, as the command would take them. */
static json_t *source_json(const app_request *req, const char *from)
{
	if (req->wheelhouse)
		return json_pack("{s:s, s:o, s:o, s:s}", "kind", "wheelhouse",
				 "wheelhouse", app_text_json(req->wheelhouse),
				 "index_url", json_null(), "from", from);
	const char *env = getenv("PIP_INDEX_URL");
	const char *url = req->index_url ? req->index_url
			  : env && *env ? env : "https://pypi.org/simple/";
	char shown[2048];
	pyrt_redact_url(url, shown, sizeof shown);
	return json_pack("{s:s, s:o, s:o, s:s}", "kind", "index",
			 "wheelhouse", json_null(), "index_url",
			 app_text_json(shown), "from", from);
}

/* One requirement: what is installed now (when the runtime stays) and
 * what would be installed, from where. */
static int plan_requirement(dry *x, const char *req, const char *for_what)
{
	char name[256], have[128] = "", file[512] = "", version[128] = "";
	if (req_name(req, name, sizeof name) != 0)
		snprintf(name, sizeof name, "%s", req);
	int installed = !x->new_install && x->dists &&
			pyrt_dists_version(x->dists, name, have,
					   sizeof have) == 1;
	const char *spec = req_spec(req);
	int ok = installed && (!spec || pyrt_pep440_satisfies(spec, have));
	if (x->req->wheelhouse)
		wheel_for(x->req->wheelhouse, name, spec, file, sizeof file,
			  version, sizeof version);
	const char *action = ok ? "keep" : "install";
	json_t *row = json_pack("{s:o, s:o, s:s, s:s, s:o, s:o, s:o}",
				"requirement", app_text_json(req),
				"name", app_text_json(name),
				"for", for_what, "action", action,
				"installed", str_json(installed ? have : NULL),
				"version", str_json(ok ? have : version),
				"wheel", str_json(ok ? NULL : file));
	if (!row || json_array_append_new(x->install, row))
		return PYRT_E_NOMEM;
	return 0;
}

/* What pyrt_mirror_wheels_needed chose, by name (file null: lacked). */
static void dep_seen(const char *name, const char *file, void *ctx)
{
	json_t *deps = ctx;
	if (!json_object_get(deps, name) || file)
		json_object_set_new(deps, name, file ? json_true()
						     : json_false());
}

/* With a wheelhouse, the distributions the direct requirements pull in
 * (their wheels' Requires-Dist, as `pyrt mirror --wheelhouse-from`
 * follows them), each a row of its own: what pip will find there. */
static int plan_dependencies(dry *x, pyrt_error *err)
{
	const char *dir = x->req->wheelhouse;
	size_t n = json_array_size(x->install), i;
	if (!dir || !n)
		return 0;
	/* The folder passes the gate before a wheel in it is opened, as
	 * the command's own run would require. */
	int rc = pyrt_trust_dir_entries("--wheelhouse", dir, err);
	if (rc)
		return rc;
	const char **reqs = calloc(n, sizeof *reqs);
	json_t *deps = json_object(), *row;
	if (!reqs || !deps) {
		free(reqs);
		json_decref(deps);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	json_array_foreach(x->install, i, row)
		reqs[i] = json_string_value(json_object_get(row, "requirement"));
	rc = pyrt_mirror_wheels_needed(dir, reqs, n, dep_seen, deps, err);
	free(reqs);
	json_array_foreach(x->install, i, row)
		json_object_del(deps, json_string_value(json_object_get(row,
									 "name")));
	const char *name;
	json_t *have;
	json_object_foreach(deps, name, have) {
		if (rc)
			break;
		rc = plan_requirement(x, name, "dependency");
		if (!rc && !json_is_true(have)) {
			json_t *last = json_array_get(x->install,
						      json_array_size(x->install) - 1);
			if (strcmp(json_string_value(json_object_get(last, "action")), "keep"))
				json_object_set_new(last, "action",
						    json_string("missing"));
		}
	}
	json_decref(deps);
	return rc == PYRT_E_NOMEM ? pyrt_error_set(err, rc, "out of memory")
				  : rc;
}

/* The pins' wheel lock for the platform: every file the baseline may
 * take, each verified against its pinned digest before pip sees it. */
static int plan_lock(dry *x)
{
	size_t n = 0;
	const pyrt_pin_wheel *w = pyrt_pins_lock_find(x->pins, x->platform_key,
						      &n);
	for (size_t i = 0; w && i < n; i++) {
		json_t *row = json_pack("{s:s, s:o, s:o, s:I}", "what", "wheel",
					"file", app_text_json(w[i].file),
					"sha256", app_text_json(w[i].sha256),
					"size", (json_int_t)w[i].size);
		if (!row || json_array_append_new(x->verify, row))
			return PYRT_E_NOMEM;
	}
	return 0;
}

/* The baseline's requirements: the pins', or --requirements FILE's. */
static int plan_baseline(dry *x, pyrt_error *err)
{
	if (x->req->no_baseline)
		return 0;
	int rc = plan_lock(x);
	if (rc)
		return pyrt_error_set(err, rc, "out of memory");
	if (!x->req->requirements) {
		for (size_t i = 0; i < pyrt_pins_baseline_count(x->pins); i++)
			if ((rc = plan_requirement(x, pyrt_pins_baseline_at(
							      x->pins, i),
						   "baseline")))
				return pyrt_error_set(err, rc, "out of memory");
		return plan_dependencies(x, err);
	}
	if ((rc = pyrt_baseline_check_file(x->req->requirements, NULL, err)))
		return rc;
	FILE *f = fopen(x->req->requirements, "re");
	if (!f)
		return pyrt_error_set(err, PYRT_E_USAGE, "cannot read %s",
				      x->req->requirements);
	char line[1024];
	while (!rc && fgets(line, sizeof line, f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = line + strspn(line, " \t");
		size_t n = strcspn(s, "\r\n");
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		s[n] = '\0';
		if (*s)
			rc = plan_requirement(x, s, "baseline");
	}
	fclose(f);
	return rc ? pyrt_error_set(err, rc, "out of memory")
		  : plan_dependencies(x, err);
}

/* The install `link` points at, its marker's version and build. */
static json_t *install_json(const pyrt_box *box, const char *link)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (pyrt_box_link_install(box, link, dir, sizeof dir, NULL) != 0)
		return json_null();
	pyrt_marker *m = calloc(1, sizeof *m);
	snprintf(path, sizeof path, "%s/marker.json", dir);
	int have = m && pyrt_marker_read(path, m, NULL) == 0;
	json_t *o = json_pack("{s:o, s:o, s:o}", "path", app_text_json(dir),
			      "version", str_json(have ? m->version : NULL),
			      "build", str_json(have ? m->build : NULL));
	free(m);
	return o ? o : json_null();
}

/* The installs a switch would prune: every one but the one `current`
 * points at now, which becomes the rollback target (install.c's
 * install_prune after the swap). */
static int plan_prune(dry *x, const pyrt_box *box)
{
	char cur[PATH_MAX] = "";
	pyrt_box_link_install(box, pyrt_box_current(box), cur, sizeof cur,
			      NULL);
	DIR *d = opendir(pyrt_box_installs_dir(box));
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[PATH_MAX];
		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof path, "%s/%s",
				     pyrt_box_installs_dir(box), e->d_name) >=
		    sizeof path || strcmp(path, cur) == 0)
			continue;
		json_t *row = json_pack("{s:o, s:s}", "path",
					app_text_json(path), "why",
					"superseded: neither the active "
					"runtime nor the rollback target "
					"after the switch");
		if (!row || json_array_append_new(x->remove, row)) {
			closedir(d);
			return PYRT_E_NOMEM;
		}
	}
	if (d)
		closedir(d);
	json_object_set_new(x->plan, "rollback_target_after",
			    cur[0] ? install_json(box, pyrt_box_current(box))
				   : json_null());
	return 0;
}

/* The plugins whose requirements the box declares: put back after a
 * switch to a new install (app_plugins_keep_reapply). */
static int plan_reapply(dry *x, const pyrt_box *box)
{
	char path[PATH_MAX];
	int found = 0;
	pyrt_declared *d = pyrt_declared_new();
	if (!d)
		return PYRT_E_NOMEM;
	if (pyrt_declared_path(pyrt_box_runtime_dir(box), path, sizeof path,
			       NULL) != 0 ||
	    pyrt_declared_read(d, path, &found, NULL) != 0)
		found = 0;
	for (size_t i = 0; found && i < pyrt_declared_plugin_count(d); i++) {
		size_t n = 0;
		const char *const *reqs = pyrt_declared_plugin_reqs(d, i, &n);
		json_t *list = json_array();
		for (size_t k = 0; list && k < n; k++)
			json_array_append_new(list, app_text_json(reqs[k]));
		json_t *row = list ? json_pack("{s:o, s:o}", "plugin",
					       app_text_json(pyrt_declared_plugin_name(d, i)),
					       "requirements", list) : NULL;
		if (!row || json_array_append_new(x->reapply, row)) {
			pyrt_declared_free(d);
			return PYRT_E_NOMEM;
		}
	}
	pyrt_declared_free(d);
	return 0;
}

/* The active install's distributions, to say what is there now. */
static void open_dists(dry *x, const pyrt_box *box)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (pyrt_box_link_install(box, pyrt_box_current(box), dir, sizeof dir,
				  NULL) != 0)
		return;
	pyrt_marker *m = calloc(1, sizeof *m);
	snprintf(path, sizeof path, "%s/marker.json", dir);
	if (m && pyrt_marker_read(path, m, NULL) == 0)
		x->dists = pyrt_dists_for_install(dir, m);
	free(m);
}

/* install --dry-run: the runtime (unless already active), then the
 * baseline (unless skipped as install skips it), re-apply and prune. */
static int plan_install(dry *x, const pyrt_box *box, pyrt_error *err)
{
	pyrt_install_opts iopts;
	pyrt_install_plan *p = calloc(1, sizeof *p);
	if (!p)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = app_install_prepare(x->req, x->pins, x->platform_key, &iopts,
				     p, err);
	if (rc) {
		free(p);
		return rc;
	}
	x->new_install = !p->already_current || x->req->force;
	json_t *size = p->size ? json_integer((json_int_t)p->size) : json_null();
	if (x->new_install && !x->req->from_file)
		json_array_append_new(x->download, json_pack(
			"{s:s, s:o, s:o, s:o}", "what", "runtime archive",
			"url", app_text_json(p->url), "size", json_copy(size),
			"sha256", app_text_json(p->sha256)));
	if (x->new_install)
		json_array_append_new(x->verify, json_pack(
			"{s:s, s:o, s:o, s:o}", "what", "runtime archive",
			"file", app_text_json(x->req->from_file ? x->req->from_file
					      : p->url),
			"sha256", app_text_json(p->sha256), "size",
			json_copy(size)));
	json_decref(size);
	json_t *runtime = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s}",
				    "name", app_impl_name(x->pins),
				    "version", app_text_json(p->version),
				    "build", app_text_json(p->build),
				    "platform", app_text_json(p->platform),
				    "into", app_text_json(p->destination),
				    "from", app_text_json(x->req->from_file
							  ? x->req->from_file
							  : p->url),
				    "action", x->new_install
				    ? (p->already_current ? "reinstall"
					 : "install") : "keep");
	json_object_set_new(x->plan, "runtime", runtime ? runtime : json_null());
	if (x->req->no_baseline)
		json_object_set_new(x->plan, "baseline_skipped",
				    app_text_json("--no-baseline"));
	else if (!x->new_install && app_baseline_complete(box) &&
		 !x->req->requirements)
		json_object_set_new(x->plan, "baseline_skipped",
				    app_text_json("the baseline is complete"));
	else
		rc = plan_baseline(x, err);
	free(p);
	if (!rc && x->new_install)
		rc = plan_reapply(x, box);
	if (!rc && x->new_install)
		rc = plan_prune(x, box);
	return rc && !err->msg[0] ? pyrt_error_set(err, rc, "out of memory")
				  : rc;
}

/* plugins install NAME --dry-run: its requirements, against the runtime
 * (the check doctor runs; it writes nothing). */
static int plan_plugin(dry *x, const pyrt_box *box, const char *name,
		       pyrt_error *err)
{
	pyrt_plugins *ps = NULL;
	pyrt_events ev = PYRT_EVENTS_INIT;
	int rc = pyrt_plugins_check(&ps, box, x->pins, x->platform_key, &ev,
				    err);
	const pyrt_plugin *pl = NULL;
	if (!rc)
		rc = app_plugin_lookup(ps, x->req->box_root, name, &pl, err);
	if (!rc && !pyrt_plugins_runtime_ready(ps))
		rc = pyrt_error_set(err, PYRT_E_NOT_READY, "plugin %s: the "
				    "managed runtime is not ready", name);
	for (size_t i = 0; !rc && i < pl->require_count; i++)
		rc = plan_requirement(x, pl->requires[i].spec, name);
	if (!rc)
		rc = plan_dependencies(x, err);
	json_object_set_new(x->plan, "plugin", app_text_json(name));
	pyrt_plugins_free(ps);
	return rc && !err->msg[0] ? pyrt_error_set(err, rc, "out of memory")
				  : rc;
}

/* baseline --dry-run: needs an active runtime, as the baseline does. */
static int plan_baseline_cmd(dry *x, const pyrt_box *box, pyrt_error *err)
{
	char dir[PATH_MAX];
	int rc = pyrt_box_active_install(box, dir, sizeof dir, err);
	return rc ? rc : plan_baseline(x, err);
}

static int is_command(const app_request *req, const char *word)
{
	return req->command_word && strcmp(req->command_word, word) == 0;
}

static const char *command_name(const app_request *req)
{
	return is_command(req, "install") ? "install"
	       : is_command(req, "baseline") ? "baseline"
	       : "plugins install";
}

/* Whether the plan changes anything. */
static int changes(const dry *x)
{
	if (json_array_size(x->download) || json_array_size(x->remove) ||
	    json_array_size(x->reapply) || x->new_install)
		return 1;
	size_t i;
	json_t *row;
	json_array_foreach(x->install, i, row)
		if (strcmp(json_string_value(json_object_get(row, "action")),
			   "keep") != 0)
			return 1;
	return 0;
}

json_t *app_dry_run(const app_request *given, const pyrt_pins *pins,
		    const char *platform_key, pyrt_error *err)
{
	app_request copy;
	char buf[4096];
	const app_request *req = app_with_source(given, &copy, buf, sizeof buf);
	const char *from = req != given ? "the box's declared source"
			   : req->wheelhouse ? "--wheelhouse"
			   : req->index_url ? req->index_url_from
			   : getenv("PIP_INDEX_URL") && *getenv("PIP_INDEX_URL")
			   ? "PIP_INDEX_URL" : "pip's default";
	dry x = { .req = req, .pins = pins, .platform_key = platform_key };
	x.plan = json_object();
	x.download = json_array();
	x.verify = json_array();
	x.install = json_array();
	x.reapply = json_array();
	x.remove = json_array();
	pyrt_box *box = NULL;
	int rc = 0;
	if (!x.plan || !x.download || !x.verify || !x.install || !x.reapply ||
	    !x.remove)
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!rc)
		rc = pyrt_box_open(&box, req->box_root, 0, err);
	if (!rc)
		open_dists(&x, box);
	if (!rc && is_command(req, "install"))
		rc = plan_install(&x, box, err);
	else if (!rc && is_command(req, "baseline"))
		rc = plan_baseline_cmd(&x, box, err);
	else if (!rc)
		rc = plan_plugin(&x, box, req->npositional > 1 ? req->positional[1]
							  : "", err);
	pyrt_dists_free(x.dists);
	pyrt_box_free(box);
	if (rc) {
		json_decref(x.plan);
		json_decref(x.download);
		json_decref(x.verify);
		json_decref(x.install);
		json_decref(x.reapply);
		json_decref(x.remove);
		return NULL;
	}
	json_object_set_new(x.plan, "dry_run", json_true());
	json_object_set_new(x.plan, "command",
			    json_string(command_name(given)));
	json_object_set_new(x.plan, "box_root", app_text_json(req->box_root));
	json_object_set_new(x.plan, "changes", json_boolean(changes(&x)));
	json_object_set_new(x.plan, "source", source_json(req, from));
	json_object_set_new(x.plan, "download", x.download);
	json_object_set_new(x.plan, "verify", x.verify);
	json_object_set_new(x.plan, "install", x.install);
	json_object_set_new(x.plan, "reapply", x.reapply);
	json_object_set_new(x.plan, "remove", x.remove);
	return x.plan;
}

/* ---- for people --------------------------------------------------------- */

typedef struct text {
	char *buf;
	size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0 || !t->buf)
		return;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = (t->len + (size_t)n + 1) * 2;
		char *nb = realloc(t->buf, cap);
		if (!nb) {
			free(t->buf);
			t->buf = NULL;
			free(s);
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, (size_t)n + 1);
	t->len += (size_t)n;
	free(s);
}

static const char *sv(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void size_words(const json_t *o, char *buf, size_t len)
{
	json_t *size = json_object_get(o, "size");
	if (json_is_integer(size)) {
		char human[64];
		app_human_bytes((uint64_t)json_integer_value(size), human,
				sizeof human);
		snprintf(buf, len, "%s", human);
	} else {
		snprintf(buf, len, "size not pinned");
	}
}

char *app_dry_run_text(const json_t *plan)
{
	text t = { malloc(256), 0, 256 };
	if (!t.buf)
		return NULL;
	t.buf[0] = '\0';
	size_t i;
	json_t *row;
	char size[64];
	add(&t, "pyrt %s --dry-run: nothing is changed, downloaded or "
	    "started%s\n", sv(plan, "command"),
	    json_is_true(json_object_get(plan, "changes")) ? ""
	    : "; the command would change nothing");
	json_t *rt = json_object_get(plan, "runtime");
	if (json_is_object(rt))
		add(&t, "  runtime:   %s %s %s (build %s) into %s\n",
		    sv(rt, "action"), sv(rt, "name"), sv(rt, "version"),
		    sv(rt, "build"), sv(rt, "into"));
	json_array_foreach(json_object_get(plan, "download"), i, row) {
		size_words(row, size, sizeof size);
		add(&t, "  download:  %s (%s)\n", sv(row, "url"), size);
	}
	json_array_foreach(json_object_get(plan, "verify"), i, row)
		add(&t, "  verify:    %s %s sha256 %s\n", sv(row, "what"),
		    sv(row, "file"), sv(row, "sha256"));
	json_t *src = json_object_get(plan, "source");
	if (json_array_size(json_object_get(plan, "install")))
		add(&t, "  source:    %s %s (%s)\n", sv(src, "kind"),
		    json_is_string(json_object_get(src, "wheelhouse"))
		    ? sv(src, "wheelhouse") : sv(src, "index_url"),
		    sv(src, "from"));
	json_array_foreach(json_object_get(plan, "install"), i, row) {
		const char *act = sv(row, "action");
		const char *dep = strcmp(sv(row, "for"), "dependency") ? ""
				  : ", a dependency";
		if (!strcmp(act, "keep"))
			add(&t, "  keep:      %s (%s installed%s)\n",
			    sv(row, "requirement"), sv(row, "installed"), dep);
		else if (!strcmp(act, "missing"))
			add(&t, "  missing:   %s (a dependency the wheelhouse "
			    "lacks: pip will stop there)\n", sv(row, "name"));
		else if (sv(row, "wheel")[0])
			add(&t, "  install:   %s %s from %s%s%s%s%s\n",
			    sv(row, "name"), sv(row, "version"),
			    sv(row, "wheel"),
			    sv(row, "installed")[0] ? " (replacing " : "",
			    sv(row, "installed"),
			    sv(row, "installed")[0] ? ")" : "",
			    dep[0] ? " (a dependency)" : "");
		else
			add(&t, "  install:   %s (the version pip resolves "
			    "from the %s)%s%s%s\n", sv(row, "requirement"),
			    sv(src, "kind"),
			    sv(row, "installed")[0] ? " (replacing " : "",
			    sv(row, "installed"),
			    sv(row, "installed")[0] ? ")" : "");
	}
	size_t nlock = 0;
	json_array_foreach(json_object_get(plan, "verify"), i, row)
		nlock += !strcmp(sv(row, "what"), "wheel");
	if (json_array_size(json_object_get(plan, "install")) && !nlock &&
	    strcmp(sv(src, "kind"), "wheelhouse") != 0)
		add(&t, "             and what these require, as pip resolves "
		    "it from the %s (the pins lock no wheels)\n",
		    sv(src, "kind"));
	if (json_is_string(json_object_get(plan, "baseline_skipped")))
		add(&t, "  baseline:  skipped (%s)\n",
		    sv(plan, "baseline_skipped"));
	json_array_foreach(json_object_get(plan, "reapply"), i, row) {
		add(&t, "  re-apply:  plugin %s:", sv(row, "plugin"));
		size_t k;
		json_t *r;
		json_array_foreach(json_object_get(row, "requirements"), k, r)
			add(&t, "%s %s", k ? "," : "", json_string_value(r));
		add(&t, "\n");
	}
	json_array_foreach(json_object_get(plan, "remove"), i, row)
		add(&t, "  remove:    %s (%s)\n", sv(row, "path"),
		    sv(row, "why"));
	json_t *rb = json_object_get(plan, "rollback_target_after");
	if (json_is_object(rb))
		add(&t, "  rollback:  %s %s (build %s) stays as the rollback "
		    "target\n", sv(rb, "path"), sv(rb, "version"),
		    sv(rb, "build"));
	return t.buf;
}
