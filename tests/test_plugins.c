/* ctest: test_plugins */
/*
 * plugins: manifests read from a box made here (valid, disabled, malformed,
 * wrong types, name mismatch, symlinks), verdicts without a runtime, and the
 * readiness matrix against the real fixture runtime with a hand-installed
 * distribution — checked by exactly one interpreter start.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/pkgs/plugins.h"
#include "core/runtime/box.h"
#include "core/runtime/install.h"
#include "core/runtime/marker.h"
#include "core/util/cache_seal.h"
#include "support.h"

static char *work, *box;
static pyrt_pins *pins;

static void setup(void)
{
	work = pt_tmpdir("plugins");
	box = pt_join(work, "box");
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_fixture_pins_load(work, &pins, msg, sizeof msg), 0,
		     "%s", msg);
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(work);
	free(work);
	free(box);
}

TestSuite(plugins, .init = setup, .fini = teardown, .timeout = 300);

/* <box>/plugins/<name>/plugin.yaml with text. */
static void manifest(const char *name, const char *text)
{
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/%s'", box, name), 0);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/plugins/%s/plugin.yaml", box, name);
	pt_write(path, text);
}

/* The check on the box opened once, as app/ opens it. */
static int check_at(pyrt_plugins **p, int memo, const pyrt_events *ev,
		    pyrt_error *err)
{
	pyrt_box *b = NULL;
	int rc = pyrt_box_open(&b, box, 0, err);
	if (!rc && memo)
		rc = pyrt_plugins_check_memo(p, b, pins, pt_host_key(), NULL,
					     ev, err);
	else if (!rc)
		rc = pyrt_plugins_check(p, b, pins, pt_host_key(), ev, err);
	pyrt_box_free(b);
	return rc;
}

static pyrt_plugins *check(void)
{
	pyrt_plugins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(check_at(&p, 0, NULL, &err), 0, "%s", err.msg);
	cr_assert_not_null(p);
	return p;
}

static const pyrt_plugin *find(const pyrt_plugins *p, const char *name)
{
	const pyrt_plugin *pl = pyrt_plugins_find(p, name);
	cr_assert_not_null(pl, "plugin %s has a row", name);
	return pl;
}

static void assert_verdict(const pyrt_plugin *pl, pyrt_verdict v)
{
	cr_assert_str_eq(pyrt_verdict_name(pl->verdict), pyrt_verdict_name(v),
			 "%s: verdict %s (error: %s)", pl->name,
			 pyrt_verdict_name(pl->verdict),
			 pl->error ? pl->error : "none");
}

/* The error names the file and line and says what was wrong. */
static void assert_invalid(const pyrt_plugins *p, const char *name,
			   const char *where, const char *what)
{
	const pyrt_plugin *pl = find(p, name);
	assert_verdict(pl, PYRT_VERDICT_INVALID);
	cr_assert_not_null(pl->error, "%s: invalid rows carry the error", name);
	cr_assert_not_null(strstr(pl->error, where), "%s: '%s' names '%s'",
			   name, pl->error, where);
	cr_assert_not_null(strstr(pl->error, what), "%s: '%s' says '%s'", name,
			   pl->error, what);
	cr_assert_null(pl->fix);
}

Test(plugins, names_are_normalised_as_pip_does)
{
	manifest("norm", "name: norm\n"
			 "requires_tools: [execute_code]\n"
			 "requires_pip:\n"
			 "  - python_docx\n"
			 "  - python-docx>=0.8\n"
			 "  - Python.Docx\n"
			 "  - '  Foo__Bar.-baz >= 1; python_version > \"3\"'\n"
			 "  - PIL\n");
	pyrt_plugins *p = check();
	const pyrt_plugin *pl = find(p, "norm");
	cr_assert_eq(pl->require_count, 5);
	const char *want[] = { "python-docx", "python-docx", "python-docx",
			       "foo-bar-baz", "pil" };
	for (size_t i = 0; i < 5; i++)
		cr_assert_str_eq(pl->requires[i].name, want[i], "%s → %s",
				 pl->requires[i].spec, pl->requires[i].name);
	cr_assert_str_eq(pl->requires[1].spec, "python-docx>=0.8",
			 "the spec is kept as written");
	pyrt_plugins_free(p);
}

Test(plugins, verdicts_without_a_runtime)
{
	manifest("cowork", "# the DESIGN.md example\n"
			   "name: cowork\n"
			   "enabled: true\n"
			   "requires_tools: [execute_code]\n"
			   "requires_pip:\n"
			   "  - python-docx>=0.8\n"
			   "  - openpyxl\n");
	manifest("quiet", "name: quiet\n"
			  "enabled: false\n"
			  "requires_tools: [execute_code]\n"
			  "requires_pip: [python-docx]\n");
	manifest("notes", "name: notes\n"
			  "requires_tools: [save_file_artifact]\n"
			  "future_key: {anything: [1, 2]}\n");
	manifest("broken", "name: broken\n"
			   "requires_pip: [python-docx\n"
			   "enabled: true\n");
	manifest("types", "name: types\n"
			  "enabled: true\n"
			  "requires_pip: python-docx\n");
	manifest("items", "name: items\n"
			  "requires_pip:\n"
			  "  - openpyxl\n"
			  "  - [nested]\n");
	manifest("flag", "name: flag\nenabled: \"yes\"\n");
	manifest("other", "name: somebody-else\nrequires_tools: []\n");
	manifest("twice", "name: twice\nenabled: true\nenabled: false\n");
	manifest("empty", "");
	manifest("scalar", "just a string\n");
	manifest("noname", "requires_pip: [\">=1.0\"]\n");
	manifest("bad name", "name: bad name\n");
	/* Not plugins: a file, a directory without a manifest, a hidden one. */
	char *readme = pt_join(box, "plugins/README.txt");
	pt_write(readme, "not a plugin\n");
	free(readme);
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/empty-dir' '%s/plugins/.git'",
			   box, box), 0);
	manifest(".hidden", "name: .hidden\n");

	pyrt_plugins *p = check();
	cr_assert_eq(pyrt_plugins_runtime_ready(p), 0);

	const pyrt_plugin *cw = find(p, "cowork");
	assert_verdict(cw, PYRT_VERDICT_NEEDS_RUNTIME);
	cr_assert(cw->enabled && cw->needs_runtime);
	cr_assert_str_eq(cw->fix, "pyrt install");
	cr_assert_null(cw->error);
	cr_assert_eq(cw->require_count, 2);
	cr_assert_null(cw->requires[0].installed, "nothing is known installed");

	const pyrt_plugin *q = find(p, "quiet");
	assert_verdict(q, PYRT_VERDICT_DISABLED);
	cr_assert(!q->enabled && q->needs_runtime);
	cr_assert_null(q->fix);

	const pyrt_plugin *n = find(p, "notes");
	assert_verdict(n, PYRT_VERDICT_NO_RUNTIME_NEEDED);
	cr_assert(n->enabled, "enabled defaults to true");
	cr_assert_eq(n->needs_runtime, 0);
	cr_assert_null(n->fix);
	cr_assert_null(n->error, "unknown keys are ignored");

	assert_invalid(p, "broken", "plugins/broken/plugin.yaml:3:",
		       "invalid YAML");
	assert_invalid(p, "types", "plugins/types/plugin.yaml:3:",
		       "requires_pip must be a list of strings");
	assert_invalid(p, "items", "plugins/items/plugin.yaml:4:",
		       "requires_pip must be a list of strings");
	assert_invalid(p, "flag", "plugins/flag/plugin.yaml:2:",
		       "enabled must be true or false");
	assert_invalid(p, "other", "plugins/other/plugin.yaml:1:",
		       "name \"somebody-else\" does not match the directory "
		       "name \"other\"");
	assert_invalid(p, "twice", "plugins/twice/plugin.yaml:3:",
		       "duplicate key \"enabled\"");
	assert_invalid(p, "empty", "plugins/empty/plugin.yaml:1:",
		       "expected a mapping");
	assert_invalid(p, "scalar", "plugins/scalar/plugin.yaml:1:",
		       "expected a mapping");
	assert_invalid(p, "noname", "plugins/noname/plugin.yaml:1:",
		       "does not start with a package name");
	assert_invalid(p, "bad name", "plugins/bad name/plugin.yaml",
		       "directory name must be");

	/* Sorted by name; the non-plugins have no rows. */
	cr_assert_eq(pyrt_plugins_count(p), 13);
	for (size_t i = 1; i < pyrt_plugins_count(p); i++)
		cr_assert_lt(strcmp(pyrt_plugins_at(p, i - 1)->name,
				    pyrt_plugins_at(p, i)->name), 0);
	cr_assert_null(pyrt_plugins_find(p, "empty-dir"));
	cr_assert_null(pyrt_plugins_find(p, ".hidden"));
	cr_assert_null(pyrt_plugins_find(p, "README.txt"));
	cr_assert_null(pyrt_plugins_at(p, 13));
	pyrt_plugins_free(p);
}

Test(plugins, symlinks_and_oversized_manifests_are_refused)
{
	char *outside = pt_join(work, "outside");
	cr_assert_eq(pt_sh("mkdir -p '%s/linked' && printf 'name: linked\\n' > "
			   "'%s/linked/plugin.yaml' && printf 'name: leak\\n' "
			   "> '%s/secret.yaml'", outside, outside, outside), 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/leak' && ln -s '%s/secret.yaml' "
			   "'%s/plugins/leak/plugin.yaml'", box, outside, box), 0);
	cr_assert_eq(pt_sh("ln -s '%s/linked' '%s/plugins/linked'", outside,
			   box), 0);
	cr_assert_eq(pt_sh("ln -s /nonexistent '%s/plugins/dangling'", box), 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/huge' && { echo 'name: huge'; "
			   "head -c 70000 /dev/zero | tr '\\0' '#'; } > "
			   "'%s/plugins/huge/plugin.yaml'", box, box), 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/fifo' && mkfifo "
			   "'%s/plugins/fifo/plugin.yaml'", box, box), 0);
	manifest("fine", "name: fine\n");

	pyrt_plugins *p = check();
	assert_invalid(p, "leak", "plugins/leak/plugin.yaml", "symlink");
	assert_invalid(p, "linked", "plugins/linked", "symlink");
	assert_invalid(p, "huge", "plugins/huge/plugin.yaml", "larger than 64 KiB");
	assert_invalid(p, "fifo", "plugins/fifo/plugin.yaml",
		       "not a regular file");
	cr_assert_null(pyrt_plugins_find(p, "dangling"));
	assert_verdict(find(p, "fine"), PYRT_VERDICT_NO_RUNTIME_NEEDED);
	cr_assert_eq(pyrt_plugins_count(p), 5);
	pyrt_plugins_free(p);
	free(outside);
}

/* An unknown key nested depth deep: ignored as a key, refused as YAML. */
static void deep_manifest(const char *name, size_t depth)
{
	size_t n = 64 + depth * 2;
	char *text = malloc(n), *o = text;
	cr_assert_not_null(text);
	o += sprintf(o, "name: %s\nextra: ", name);
	memset(o, '[', depth);
	memset(o + depth, ']', depth);
	strcpy(o + 2 * depth, "\n");
	manifest(name, text);
	free(text);
}

Test(plugins, deep_nesting_and_aliases_are_invalid)
{
	deep_manifest("deep", 30000);
	manifest("laughs", "name: laughs\n"
		 "a: &a [l, l, l, l, l, l, l, l, l]\n"
		 "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		 "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
	manifest("reuse", "name: reuse\nrequires_tools: &t [execute_code]\n"
		 "requires_pip: *t\n");
	deep_manifest("shallow", 30);

	pyrt_plugins *p = check();
	assert_invalid(p, "deep", "plugins/deep/plugin.yaml:2:",
		       "nesting deeper than 32 levels");
	assert_invalid(p, "laughs", "plugins/laughs/plugin.yaml:3:",
		       "alias *a: pyrt reads YAML without aliases");
	assert_invalid(p, "reuse", "plugins/reuse/plugin.yaml:3:",
		       "alias *t");
	/* Within the cap, unknown keys are still ignored. */
	assert_verdict(find(p, "shallow"), PYRT_VERDICT_NO_RUNTIME_NEEDED);
	pyrt_plugins_free(p);
}

Test(plugins, no_plugins_directory_is_an_empty_matrix)
{
	pyrt_plugins *p = check();
	cr_assert_eq(pyrt_plugins_count(p), 0);
	cr_assert_null(pyrt_plugins_find(p, "cowork"));
	pyrt_plugins_free(p);
}

Test(plugins, cancel_flag_stops_the_check)
{
	manifest("cowork", "name: cowork\n");
	atomic_int flag = 1;
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.cancel = &flag;
	pyrt_plugins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(check_at(&p, 0, &ev, &err), PYRT_E_CANCELLED);
	cr_assert_null(p);
}

/* The sample box of the seed bug report, as the desktop app lays it out. */
Test(plugins, sample_box_without_a_runtime)
{
	cr_assert_eq(pt_sh("mkdir -p '%s' && cp -R '%s/tests/fixtures/sample-box/plugins' "
			   "'%s/'", box, pt_source_dir(), box), 0);
	pyrt_plugins *p = check();
	cr_assert_eq(pyrt_plugins_count(p), 7);
	const char *order[] = { "artifact", "careercoach", "cowork", "delegates",
				"execute_code", "github", "notes" };
	const pyrt_verdict want[] = {
		PYRT_VERDICT_NO_RUNTIME_NEEDED, PYRT_VERDICT_NEEDS_RUNTIME,
		PYRT_VERDICT_NEEDS_RUNTIME, PYRT_VERDICT_NO_RUNTIME_NEEDED,
		PYRT_VERDICT_DISABLED, PYRT_VERDICT_NO_RUNTIME_NEEDED,
		PYRT_VERDICT_NO_RUNTIME_NEEDED };
	for (size_t i = 0; i < 7; i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(p, i);
		cr_assert_str_eq(pl->name, order[i]);
		assert_verdict(pl, want[i]);
	}
	const pyrt_plugin *cw = find(p, "cowork");
	cr_assert_eq(cw->require_count, 4);
	cr_assert_str_eq(cw->requires[2].name, "python-pptx");
	pyrt_plugins_free(p);
}

/* A runtime whose files say ready but whose interpreter cannot run the
 * checker: its rows say so instead of claiming anything about packages. */
Test(plugins, interpreter_that_cannot_check)
{
	const char *id = "broken-1";
	cr_assert_eq(pt_sh("mkdir -p '%s/runtime/python/installs/%s/python/bin' && "
			   "printf '#!/bin/sh\\necho \"Fatal Python error: no "
			   "encodings\" >&2\\nexit 1\\n' > "
			   "'%s/runtime/python/installs/%s/python/bin/python3' && "
			   "chmod 755 '%s/runtime/python/installs/%s/python/bin/python3' && "
			   "ln -s installs/%s/python '%s/runtime/python/current'",
			   box, id, box, id, box, id, id, box), 0);
	pyrt_marker m;
	memset(&m, 0, sizeof m);
	m.schema = 1;
	strcpy(m.implementation, "cpython");
	snprintf(m.version, sizeof m.version, "%s", pyrt_pins_version(pins));
	strcpy(m.build, "fixture");
	snprintf(m.platform, sizeof m.platform, "%s", pt_host_key());
	snprintf(m.sha256, sizeof m.sha256, "%s",
		 pyrt_pins_find(pins, pt_host_key())->sha256);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/runtime/python/installs/%s", box, id);
	pt_lay_record(path, &m);
	manifest("cowork", "name: cowork\nrequires_tools: [execute_code]\n"
			   "requires_pip: [python-docx]\n");
	manifest("notes", "name: notes\n");

	pyrt_plugins *p = check();
	cr_assert_eq(pyrt_plugins_runtime_ready(p), 0);
	const pyrt_plugin *cw = find(p, "cowork");
	assert_verdict(cw, PYRT_VERDICT_NEEDS_RUNTIME);
	cr_assert_str_eq(cw->fix, "pyrt install --force");
	cr_assert_not_null(cw->error);
	cr_assert_not_null(strstr(cw->error, "could not check the requirements"),
			   "%s", cw->error);
	cr_assert_not_null(strstr(cw->error, "Fatal Python error: no encodings"),
			   "the interpreter's last line is shown: %s", cw->error);
	assert_verdict(find(p, "notes"), PYRT_VERDICT_NO_RUNTIME_NEEDED);
	cr_assert_eq(pt_sh("! ls '%s/runtime/python/staging/' | grep -q plugins-check",
			   box), 0, "the private HOME is removed");
	pyrt_plugins_free(p);
}

/* Install the fixture runtime from its local archive. */
static void install_fixture_runtime(void)
{
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);
}

/*
 * Replace current/bin/python3 by a script that records each start (and the
 * HOME it got) in log, then runs the real interpreter beside it.
 */
static void count_interpreter_starts(const char *log)
{
	char py[PATH_MAX];
	snprintf(py, sizeof py, "%s/runtime/python/current/bin/python3", box);
	cr_assert_eq(unlink(py), 0);
	char script[2 * PATH_MAX];
	snprintf(script, sizeof script,
		 "#!/bin/sh\n"
		 "echo \"start HOME=$HOME\" >> '%s'\n"
		 "exec \"$(dirname \"$0\")/python3.11\" \"$@\"\n", log);
	pt_write(py, script);
	cr_assert_eq(chmod(py, 0755), 0);
}

/* dir/RECORD listing METADATA and itself: installed means a RECORD whose
 * files are there (dists.h). */
static void write_record(const char *dir)
{
	const char *entry = strrchr(dir, '/') + 1;
	char *rec = pt_join(dir, "RECORD");
	char text[1024];
	snprintf(text, sizeof text, "%s/METADATA,,\n%s/RECORD,,\n", entry,
		 entry);
	pt_write(rec, text);
	free(rec);
}

/* A distribution installed by hand: its dist-info METADATA and RECORD. */
static void install_demo_pkg(void)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir,
		 "%s/runtime/python/current/local/lib/python3.11/dist-packages/"
		 "demo_pkg-1.2.0.dist-info", box);
	cr_assert_eq(pt_sh("mkdir -p '%s'", dir), 0);
	char *meta = pt_join(dir, "METADATA");
	pt_write(meta, "Metadata-Version: 2.1\nName: Demo_Pkg\nVersion: 1.2.0\n");
	free(meta);
	write_record(dir);
}

static int count_lines(const char *path)
{
	char *text = pt_read(path);
	int n = 0;
	for (const char *s = text; s && *s; s++)
		n += *s == '\n';
	free(text);
	return n;
}

Test(plugins, matrix_with_the_real_runtime_in_one_interpreter_run,
     .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	const char *tools = "requires_tools: [execute_code]\n";
	char text[1024];
#define PLUGIN(name, reqs) \
	(snprintf(text, sizeof text, "name: %s\n%srequires_pip:\n%s", name, \
		  tools, reqs), manifest(name, text))
	PLUGIN("good", "  - demo-pkg>=1.0\n  - Demo.Pkg\n  - demo_pkg\n  - pip\n");
	PLUGIN("old", "  - demo_pkg<1.0\n");
	PLUGIN("absent", "  - absent-pkg\n  - demo-pkg\n");
	PLUGIN("marked", "  - \"absent-pkg; python_version < '3'\"\n"
			 "  - demo-pkg ==1.2.*\n");
	PLUGIN("badreq", "  - demo-pkg>=1.0 extra\n  - demo-pkg\n");
	/* PEP 508's grammar allows it, PEP 440 does not: packaging says. */
	PLUGIN("badspec", "  - demo-pkg~=1\n");
	PLUGIN("nodeps", "  []\n");
	manifest("off", "name: off\nenabled: false\n"
			"requires_tools: [execute_code]\nrequires_pip: [absent-pkg]\n");
	manifest("notes", "name: notes\nrequires_pip: [absent-pkg]\n");
#undef PLUGIN
	char *tmpdir = pt_join(work, "tmp");
	cr_assert_eq(mkdir(tmpdir, 0700), 0);
	cr_assert_eq(setenv("TMPDIR", tmpdir, 1), 0);
	pyrt_plugins *p = check();
	unsetenv("TMPDIR");
	cr_assert_eq(pyrt_plugins_runtime_ready(p), 1);

	const pyrt_plugin *g = find(p, "good");
	assert_verdict(g, PYRT_VERDICT_READY);
	cr_assert_null(g->fix);
	cr_assert_eq(g->require_count, 4);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(g->requires[i].name, "demo-pkg");
		cr_assert_str_eq(g->requires[i].installed, "1.2.0", "%s",
				 g->requires[i].spec);
		cr_assert_eq(g->requires[i].conflict, 0);
	}
	cr_assert_not_null(g->requires[3].installed, "pip is in the runtime");

	const pyrt_plugin *o = find(p, "old");
	assert_verdict(o, PYRT_VERDICT_MISSING_DEPS);
	cr_assert_str_eq(o->requires[0].installed, "1.2.0");
	cr_assert_eq(o->requires[0].conflict, 1, "1.2.0 is outside <1.0");
	cr_assert_str_eq(o->fix, "pyrt plugins install old");

	const pyrt_plugin *a = find(p, "absent");
	assert_verdict(a, PYRT_VERDICT_MISSING_DEPS);
	cr_assert_null(a->requires[0].installed);
	cr_assert_eq(a->requires[0].conflict, 0);
	cr_assert_str_eq(a->requires[1].installed, "1.2.0");
	cr_assert_str_eq(a->fix, "pyrt plugins install absent");

	const pyrt_plugin *mk = find(p, "marked");
	assert_verdict(mk, PYRT_VERDICT_READY);
	cr_assert_eq(mk->require_count, 1,
		     "a requirement whose marker excludes this runtime is dropped");
	cr_assert_str_eq(mk->requires[0].name, "demo-pkg");

	/* Refused by pyrt's own PEP 508 check, before the interpreter. */
	assert_invalid(p, "badreq", "plugins/badreq/plugin.yaml:4:",
		       "\"demo-pkg>=1.0 extra\" is not a PEP 508 requirement");
	assert_invalid(p, "badspec", "plugins/badspec/plugin.yaml:4:",
		       "invalid requirement \"demo-pkg~=1\"");
	assert_verdict(find(p, "nodeps"), PYRT_VERDICT_READY);
	assert_verdict(find(p, "off"), PYRT_VERDICT_DISABLED);
	assert_verdict(find(p, "notes"), PYRT_VERDICT_NO_RUNTIME_NEEDED);
	pyrt_plugins_free(p);

	cr_assert_eq(count_lines(log), 1,
		     "the whole matrix starts the interpreter once");
	char *starts = pt_read(log);
	char want[PATH_MAX];
	snprintf(want, sizeof want, "start HOME=%s/pyrt-plugins-check.",
		 tmpdir);
	cr_assert_eq(strncmp(starts, want, strlen(want)), 0,
		     "HOME is a private directory in $TMPDIR, outside the "
		     "box: %s", starts);
	free(starts);
	cr_assert_eq(pt_sh("! ls -A '%s' | grep -q .", tmpdir), 0,
		     "the private HOME is removed afterwards");
	cr_assert_eq(pt_sh("! ls -A '%s/runtime/python/staging/' 2>/dev/null "
			   "| grep -q .", box), 0,
		     "nothing is made in the box's staging");
	free(tmpdir);
	free(log);
}

/* Every row as text: what the table and the JSON are made of. */
static char *rows_text(const pyrt_plugins *p)
{
	char *out = strdup("");
	for (size_t i = 0; i < pyrt_plugins_count(p); i++) {
		const pyrt_plugin *pl = pyrt_plugins_at(p, i);
		char *line = NULL;
		cr_assert(asprintf(&line, "%s%s %s fix=%s error=%s\n", out,
				   pl->name, pyrt_verdict_name(pl->verdict),
				   pl->fix ? pl->fix : "-",
				   pl->error ? pl->error : "-") > 0);
		free(out);
		out = line;
		for (size_t j = 0; j < pl->require_count; j++) {
			const pyrt_requirement *q = &pl->requires[j];
			cr_assert(asprintf(&line, "%s  %s name=%s installed=%s "
					   "conflict=%d\n", out, q->spec,
					   q->name, q->installed ? q->installed
					   : "-", q->conflict) > 0);
			free(out);
			out = line;
		}
	}
	return out;
}

/* A distribution installed by hand in dist-packages: entry/METADATA. */
static void fake_dist(const char *entry, const char *name,
		      const char *version)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/runtime/python/current/local/lib/"
		 "python3.11/dist-packages/%s", box, entry);
	cr_assert_eq(pt_sh("mkdir -p '%s'", dir), 0);
	char *meta = pt_join(dir, "METADATA");
	char text[512];
	snprintf(text, sizeof text, "Metadata-Version: 2.1\nName: %s\n"
		 "Version: %s\nSummary: test\n\nBody\nVersion: 9\n", name,
		 version);
	pt_write(meta, text);
	free(meta);
	write_record(dir);
}

/* The active install's marker rewritten as an older pyrt wrote it: no
 * search_path. */
static void forget_search_path(void)
{
	char link[PATH_MAX], target[PATH_MAX], path[2 * PATH_MAX];
	snprintf(link, sizeof link, "%s/runtime/python/current", box);
	ssize_t n = readlink(link, target, sizeof target - 1);
	cr_assert_gt(n, 7);
	target[n - 7] = '\0'; /* "/python" */
	snprintf(path, sizeof path, "%s/runtime/python/%s/marker.json", box,
		 target);
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(path, &m, &err), 0, "%s", err.msg);
	cr_assert(m.search_path_known, "the install recorded its search path");
	m.search_path_known = 0;
	cr_assert_eq(pyrt_marker_write(path, &m, &err), 0, "%s", err.msg);
	char *text = pt_read(path);
	cr_assert_null(strstr(text, "search_path"));
	free(text);
}

Test(plugins, sample_box_with_the_real_runtime, .timeout = 600)
{
	install_fixture_runtime();
	cr_assert_eq(pt_sh("cp -R '%s/tests/fixtures/sample-box/plugins' '%s/'",
			   pt_source_dir(), box), 0);
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	pyrt_plugins *p = check();
	const pyrt_plugin *cc = find(p, "careercoach");
	assert_verdict(cc, PYRT_VERDICT_MISSING_DEPS);
	cr_assert_null(cc->requires[0].installed);
	cr_assert_str_eq(cc->fix, "pyrt plugins install careercoach");
	const pyrt_plugin *cw = find(p, "cowork");
	assert_verdict(cw, PYRT_VERDICT_MISSING_DEPS);
	cr_assert_eq(cw->require_count, 4);
	assert_verdict(find(p, "execute_code"), PYRT_VERDICT_DISABLED);
	assert_verdict(find(p, "github"), PYRT_VERDICT_NO_RUNTIME_NEEDED);
	char *by_c = rows_text(p);
	pyrt_plugins_free(p);
	cr_assert_eq(access(log, F_OK), -1, "C decided every requirement: no "
		     "interpreter start");

	/* Some installed, one too old: still C's, and Python agrees. */
	fake_dist("python_docx-0.8.11.dist-info", "python-docx", "0.8.11");
	fake_dist("openpyxl-3.0.9.dist-info", "openpyxl", "3.0.9");
	p = check();
	free(by_c);
	by_c = rows_text(p);
	cr_assert_str_eq(find(p, "careercoach")->requires[0].installed,
			 "0.8.11");
	pyrt_plugins_free(p);
	cr_assert_eq(access(log, F_OK), -1, "no interpreter start");

	/* A marker written before search_path: Python answers, the same. */
	forget_search_path();
	p = check();
	char *by_python = rows_text(p);
	pyrt_plugins_free(p);
	cr_assert_eq(count_lines(log), 1, "seven plugins, one interpreter start");
	cr_assert_str_eq(by_c, by_python);
	free(by_c);
	free(by_python);
	free(log);
}

/* Nothing to check: no interpreter start at all. */
Test(plugins, no_requirements_no_interpreter_start, .timeout = 600)
{
	install_fixture_runtime();
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	manifest("cc", "name: cc\nrequires_tools: [execute_code]\n");
	pyrt_plugins *p = check();
	assert_verdict(find(p, "cc"), PYRT_VERDICT_READY);
	pyrt_plugins_free(p);
	cr_assert_eq(access(log, F_OK), -1, "the interpreter was not started");
	free(log);
}

/* A runtime without pip (a foreign archive): bare names are still looked
 * up, but a specifier cannot be judged, and the rows say why. */
Test(plugins, runtime_without_packaging, .timeout = 600)
{
	install_fixture_runtime();
	cr_assert_eq(pt_sh("rm -rf '%s/runtime/python/current/local/lib/python3.11/"
			   "dist-packages/pip'", box), 0);
	manifest("bare", "name: bare\nrequires_tools: [execute_code]\n"
			 "requires_pip: [absent-pkg]\n");
	pyrt_plugins *p = check();
	assert_verdict(find(p, "bare"), PYRT_VERDICT_MISSING_DEPS);
	pyrt_plugins_free(p);

	manifest("spec", "name: spec\nrequires_tools: [execute_code]\n"
			 "requires_pip: [absent-pkg>=1]\n");
	p = check();
	const pyrt_plugin *s = find(p, "spec");
	assert_verdict(s, PYRT_VERDICT_NEEDS_RUNTIME);
	cr_assert_not_null(s->error);
	cr_assert_not_null(strstr(s->error, "neither pip's vendored packaging "
				  "nor packaging can be imported"), "%s",
			   s->error);
	cr_assert_str_eq(s->fix, "pyrt install --force");
	pyrt_plugins_free(p);
}

/*
 * requires_pip reaches pip's command line through `plugins install`: an
 * entry that is not a PEP 508 requirement makes the plugin invalid, with
 * the file, the line, the entry and the rule.
 */
Test(plugins, requires_pip_entries_must_be_requirements)
{
	manifest("direct", "name: direct\n"
			   "requires_tools: [execute_code]\n"
			   "requires_pip:\n"
			   "  - python-docx\n"
			   "  - pillow @ file:///tmp/x.whl\n");
	manifest("url", "name: url\n"
			"requires_tools: [execute_code]\n"
			"requires_pip: [\"https://host/x.whl\"]\n");
	manifest("option", "name: option\n"
			   "requires_tools: [execute_code]\n"
			   "requires_pip: [\"--log=/tmp/x\"]\n");
	manifest("path", "name: path\n"
			 "requires_tools: [execute_code]\n"
			 "requires_pip: [/abs/x.whl]\n");
	manifest("fine", "name: fine\n"
			 "requires_tools: [execute_code]\n"
			 "requires_pip: ['Pillow[a,b]>=9,<11; python_version>\"3.8\"']\n");
	pyrt_plugins *p = check();
	assert_invalid(p, "direct", "plugins/direct/plugin.yaml:5: "
		       "requires_pip[1]: \"pillow @ file:///tmp/x.whl\"",
		       "is a direct reference");
	assert_invalid(p, "url", "plugins/url/plugin.yaml:3: requires_pip[0]",
		       "is a URL");
	assert_invalid(p, "option", "plugins/option/plugin.yaml:3: "
		       "requires_pip[0]: \"--log=/tmp/x\"", "is a pip option");
	assert_invalid(p, "path", "plugins/path/plugin.yaml:3:", "is a path");
	cr_assert(strstr(find(p, "direct")->error, "PEP 508"), "%s",
		  find(p, "direct")->error);
	assert_verdict(find(p, "fine"), PYRT_VERDICT_NEEDS_RUNTIME);
	pyrt_plugins_free(p);
}

/*
 * The matrix reads site-packages without site's start-up: a .pth file an
 * installed package left there (it runs at every start that processes
 * site-packages, as whoever runs pyrt) does not run, yet what is installed
 * is still found.
 */
Test(plugins, matrix_reads_site_packages_without_running_pth_files,
     .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char *mark = pt_join(work, "pth-ran");
	char pth[PATH_MAX], line[PATH_MAX + 64];
	snprintf(pth, sizeof pth,
		 "%s/runtime/python/current/local/lib/python3.11/dist-packages/"
		 "zz-probe.pth", box);
	snprintf(line, sizeof line, "import os; open('%s', 'w').close()\n",
		 mark);
	pt_write(pth, line);
	manifest("demo", "name: demo\nrequires_tools: [execute_code]\n"
			 "requires_pip: [demo-pkg>=1.0, absent-pkg]\n");
	pyrt_plugins *p = check();
	const pyrt_plugin *d = find(p, "demo");
	assert_verdict(d, PYRT_VERDICT_MISSING_DEPS);
	cr_assert_str_eq(d->requires[0].installed, "1.2.0");
	cr_assert_eq(d->requires[0].conflict, 0, "judged with packaging");
	cr_assert_null(d->requires[1].installed);
	pyrt_plugins_free(p);
	cr_assert_neq(access(mark, F_OK), 0, "the .pth file ran");
	/* The probe works: a start with site's processing runs it. */
	cr_assert_eq(pt_sh("'%s/runtime/python/current/bin/python3' -I -c pass",
			   box), 0);
	cr_assert_eq(access(mark, F_OK), 0);
	free(mark);
}

/* ---- the remembered answer (pyrt_plugins_check_memo) ---- */

static pyrt_plugins *check_memo(void)
{
	pyrt_plugins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(check_at(&p, 1, NULL, &err), 0, "%s", err.msg);
	cr_assert_not_null(p);
	return p;
}

/* The one plugin "cw"'s verdict and its first requirement's version. */
static void expect(pyrt_plugins *p, pyrt_verdict v, const char *installed)
{
	const pyrt_plugin *pl = find(p, "cw");
	assert_verdict(pl, v);
	if (installed)
		cr_assert_str_eq(pl->requires[0].installed, installed);
	else
		cr_assert_null(pl->requires[0].installed);
	pyrt_plugins_free(p);
}

#define DEMO_DIR "%s/runtime/python/current/local/lib/python3.11/dist-packages"

/* A requirement with a marker: C leaves it to Python (and so to the memo). */
#define MEMO_REQ(spec) "demo-pkg" spec "; python_version >= '3'"

Test(plugins, memo_answers_a_repeat_and_sees_every_change, .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [\"" MEMO_REQ(">=1.0") "\"]\n");
	char memo[PATH_MAX];
	snprintf(memo, sizeof memo, "%s/runtime/python/cache/plugins-check.json", box);

	/* Doctor's path writes nothing into the box. */
	pyrt_plugins_free(check());
	cr_assert_eq(access(memo, F_OK), -1, "pyrt_plugins_check remembers nothing");

	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 2);
	struct stat sb;
	cr_assert_eq(stat(memo, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0600, "mode %o", sb.st_mode & 07777);
	cr_assert_eq(sb.st_uid, geteuid());
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 2, "a repeat starts no interpreter");

	/* Removed by hand (as pip uninstall does). */
	cr_assert_eq(pt_sh("rm -rf '" DEMO_DIR "/demo_pkg-1.2.0.dist-info'",
			   box), 0);
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, NULL);
	cr_assert_eq(count_lines(log), 3, "a removed package is seen");
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, NULL);
	cr_assert_eq(count_lines(log), 3);

	/* Writing it leaves the runtime directory as it was: the TUI watches
	 * that directory, and must not see its own refresh as a change. */
	char rt[PATH_MAX];
	snprintf(rt, sizeof rt, "%s/runtime/python", box);
	struct stat before, after;
	cr_assert_eq(stat(rt, &before), 0);

	/* Installed again, an older version. */
	cr_assert_eq(pt_sh("mkdir -p '" DEMO_DIR "/demo_pkg-0.9.dist-info' && "
			   "printf 'Metadata-Version: 2.1\\nName: demo-pkg\\n"
			   "Version: 0.9\\n' > '" DEMO_DIR
			   "/demo_pkg-0.9.dist-info/METADATA' && printf "
			   "'demo_pkg-0.9.dist-info/METADATA,,\\n' > '" DEMO_DIR
			   "/demo_pkg-0.9.dist-info/RECORD'", box, box, box), 0);
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, "0.9");
	cr_assert_eq(count_lines(log), 4, "an installed package is seen");
	cr_assert_eq(stat(rt, &after), 0);
	cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
		  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec,
		  "a new answer is written without touching %s", rt);

	/* The same name and version reinstalled: pip writes its files anew. */
	cr_assert_eq(pt_sh("cd '" DEMO_DIR "/demo_pkg-0.9.dist-info' && "
			   "sed 's/0.9/0.9.1/' METADATA > M2 && mv M2 METADATA",
			   box), 0);
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, "0.9.1");
	cr_assert_eq(count_lines(log), 5, "a rewritten dist-info is seen");

	/* plugin.yaml changed. */
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [\"" MEMO_REQ("<1.0") "\"]\n");
	expect(check_memo(), PYRT_VERDICT_READY, "0.9.1");
	cr_assert_eq(count_lines(log), 6, "a changed plugin.yaml is seen");
	expect(check_memo(), PYRT_VERDICT_READY, "0.9.1");
	cr_assert_eq(count_lines(log), 6);
	free(log);
}

/* A memo edited by hand, sealed again the way pyrt writes it (its first
 * line is the body's checksum, cache_seal.h): the edit is then what an
 * owner could write, not damage. */
static void reseal(char *text)
{
	char sum[PYRT_CACHE_SUM_LEN + 1];
	const char *body = text + PYRT_CACHE_SUM_LEN + 1;
	pyrt_cache_sum(body, strlen(body), sum);
	memcpy(text, sum, PYRT_CACHE_SUM_LEN);
}

Test(plugins, memo_never_trusts_a_foreign_or_malformed_file, .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [\"" MEMO_REQ(">=1.0") "\"]\n");
	char memo[PATH_MAX];
	snprintf(memo, sizeof memo, "%s/runtime/python/cache/plugins-check.json", box);
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 1);

	/* A remembered answer that lies (demo-pkg missing), owned by someone
	 * else: never read. */
	char *text = pt_read(memo);
	char *at = strstr(text, "\"installed\":\"1.2.0\"");
	cr_assert_not_null(at, "%s", text);
	memcpy(at, "\"installed\":null   ", strlen("\"installed\":null   "));
	reseal(text);
	pt_write(memo, text);
	free(text);
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, NULL);
	cr_assert_eq(count_lines(log), 1, "the file is ours: it is read");
	cr_assert_eq(pt_sh("rm -f '%s' && true", memo), 0);
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 2);

	text = pt_read(memo);
	at = strstr(text, "\"installed\":\"1.2.0\"");
	memcpy(at, "\"installed\":null   ", strlen("\"installed\":null   "));
	reseal(text);
	pt_write(memo, text);
	free(text);
	cr_assert_eq(chown(memo, 65534, 65534), 0);
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 3, "a foreign-owned file is not read");

	/* Its directory someone else's: not read either. */
	cr_assert_eq(pt_sh("rm -f '%s' && true", memo), 0);
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 4);
	text = pt_read(memo);
	at = strstr(text, "\"installed\":\"1.2.0\"");
	memcpy(at, "\"installed\":null   ", strlen("\"installed\":null   "));
	reseal(text);
	pt_write(memo, text);
	free(text);
	cr_assert_eq(pt_sh("chown 65534 '%s/runtime/python/cache'", box), 0);
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 5, "a foreign cache directory is not read");
	cr_assert_eq(pt_sh("chown 0 '%s/runtime/python/cache' && rm -f '%s'",
			   box, memo), 0);

	/* Malformed, or a symlink: computed again, answer right. */
	pt_write(memo, "{\"schema\":1,\"id\":");
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 6, "a malformed file is not used");
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(count_lines(log), 6, "and is replaced by a good one");

	/* Uninstall takes it with the runtime it describes. */
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_box *bx = NULL;
	cr_assert_eq(pyrt_box_open(&bx, box, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_install_uninstall(bx, 1, NULL, &err), 0, "%s",
		     err.msg);
	pyrt_box_free(bx);
	cr_assert_eq(access(memo, F_OK), -1, "uninstall removes %s", memo);
	free(log);
}

/*
 * The C answer is read afresh on every call (it has no memo): a removed
 * dist-info, a new one, a changed plugin.yaml are seen at once, with no
 * interpreter start; what C cannot decide (a marker, an egg-info) still
 * goes to Python and answers right.
 */
Test(plugins, c_answers_see_every_change_and_leave_the_rest_to_python,
     .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char *log = pt_join(work, "starts.log");
	count_interpreter_starts(log);
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [demo-pkg>=1.0, Demo.Pkg]\n");
	expect(check_memo(), PYRT_VERDICT_READY, "1.2.0");
	cr_assert_eq(access(log, F_OK), -1, "decided in C");

	cr_assert_eq(pt_sh("rm -rf '" DEMO_DIR "/demo_pkg-1.2.0.dist-info'",
			   box), 0);
	expect(check_memo(), PYRT_VERDICT_MISSING_DEPS, NULL);
	cr_assert_eq(access(log, F_OK), -1);

	fake_dist("demo_pkg-0.9.dist-info", "demo-pkg", "0.9");
	pyrt_plugins *p = check_memo();
	cr_assert_eq(find(p, "cw")->requires[0].conflict, 1);
	cr_assert_str_eq(find(p, "cw")->requires[1].installed, "0.9");
	expect(p, PYRT_VERDICT_MISSING_DEPS, "0.9");

	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [\"demo-pkg ~= 0.8, != 0.9.1\"]\n");
	expect(check_memo(), PYRT_VERDICT_READY, "0.9");
	cr_assert_eq(access(log, F_OK), -1, "nothing asked Python so far");

	/* A marker: Python's, and it drops the requirement that does not
	 * apply. */
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [\"demo-pkg>=0.5; python_version >= '3'\","
		       " \"absent-pkg; python_version < '3'\", demo-pkg]\n");
	p = check_memo();
	cr_assert_eq(count_lines(log), 1, "one start for the marked two");
	const pyrt_plugin *cw = find(p, "cw");
	cr_assert_eq(cw->require_count, 2, "the marker that is false drops it");
	cr_assert_str_eq(cw->requires[1].installed, "0.9");
	expect(p, PYRT_VERDICT_READY, "0.9");

	/* An egg-info (what setup.py develop leaves): only Python reads it. */
	manifest("cw", "name: cw\nrequires_tools: [execute_code]\n"
		       "requires_pip: [demo-pkg]\n");
	expect(check_memo(), PYRT_VERDICT_READY, "0.9");
	cr_assert_eq(count_lines(log), 1);
	cr_assert_eq(pt_sh("rm -rf '" DEMO_DIR "/demo_pkg-0.9.dist-info'",
			   box), 0);
	fake_dist("demo_pkg-0.7.egg-info", "demo-pkg", "0.7");
	cr_assert_eq(pt_sh("mv '" DEMO_DIR "/demo_pkg-0.7.egg-info/METADATA' '"
			   DEMO_DIR "/demo_pkg-0.7.egg-info/PKG-INFO'", box,
			   box), 0);
	expect(check_memo(), PYRT_VERDICT_READY, "0.7");
	cr_assert_eq(count_lines(log), 2, "the egg-info went to Python");
	free(log);
}

/*
 * One installed distribution the interpreter cannot read (METADATA that is
 * not UTF-8) is the answer of the rows that need it, naming it; the rows
 * C decided and the other rows Python answered keep theirs, with the memo
 * and without.  And when the interpreter fails altogether, what C decided
 * still stands: only the rows that needed Python say needs_runtime.
 */
Test(plugins, one_unreadable_distribution_spoils_only_its_rows,
     .timeout = 600)
{
	install_fixture_runtime();
	install_demo_pkg();
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, DEMO_DIR "/bad_pkg-1.0.dist-info", box);
	cr_assert_eq(pt_sh("mkdir -p '%s' && printf 'Metadata-Version: 2.1\\n"
			   "Name: bad-pkg\\nVersion: 1.0\\nSummary: caf\\351\\n' "
			   "> '%s/METADATA'", dir, dir), 0);
	write_record(dir);
	const char *tools = "requires_tools: [execute_code]\n";
	char text[512];
#define PLUGIN(name, reqs) \
	(snprintf(text, sizeof text, "name: %s\n%srequires_pip: %s\n", name, \
		  tools, reqs), manifest(name, text))
	PLUGIN("byc", "[demo-pkg>=1.0]");
	PLUGIN("bypython", "[\"demo-pkg>=1; python_version >= '3'\"]");
	PLUGIN("bad", "[bad-pkg, demo-pkg]");
	PLUGIN("badspec", "[\"bad-pkg>=0.5; python_version >= '3'\"]");
#undef PLUGIN
	for (int memo = 0; memo < 3; memo++) {
		pyrt_plugins *p = memo ? check_memo() : check();
		cr_assert_eq(pyrt_plugins_runtime_ready(p), 1);
		assert_verdict(find(p, "byc"), PYRT_VERDICT_READY);
		assert_verdict(find(p, "bypython"), PYRT_VERDICT_READY);
		cr_assert_str_eq(find(p, "bypython")->requires[0].installed,
				 "1.2.0");
		for (int b = 0; b < 2; b++) {
			const pyrt_plugin *bad = find(p, b ? "badspec" : "bad");
			assert_verdict(bad, PYRT_VERDICT_MISSING_DEPS);
			cr_assert_null(bad->requires[0].installed);
			cr_assert_not_null(bad->requires[0].broken);
			cr_assert_not_null(bad->error);
			cr_assert_not_null(strstr(bad->error, "bad-pkg"), "%s",
					   bad->error);
			cr_assert_not_null(strstr(bad->error,
						  "bad_pkg-1.0.dist-info"),
					   "the error names where: %s",
					   bad->error);
			cr_assert_str_eq(bad->fix, b ? "pyrt plugins install "
					 "badspec" : "pyrt plugins install bad");
		}
		cr_assert_str_eq(find(p, "bad")->requires[1].installed, "1.2.0");
		cr_assert_null(find(p, "bad")->requires[1].broken);
		pyrt_plugins_free(p);
	}

	/* An interpreter that cannot run the checker at all. */
	char py[PATH_MAX];
	snprintf(py, sizeof py, "%s/runtime/python/current/bin/python3", box);
	cr_assert_eq(unlink(py), 0);
	pt_write(py, "#!/bin/sh\necho 'Fatal Python error: no encodings' >&2\n"
		     "exit 1\n");
	cr_assert_eq(chmod(py, 0755), 0);
	pyrt_plugins *p = check();
	assert_verdict(find(p, "byc"), PYRT_VERDICT_READY);
	cr_assert_str_eq(find(p, "byc")->requires[0].installed, "1.2.0");
	const char *needs[] = {"bypython", "bad", "badspec"};
	for (size_t i = 0; i < 3; i++) {
		const pyrt_plugin *pl = find(p, needs[i]);
		assert_verdict(pl, PYRT_VERDICT_NEEDS_RUNTIME);
		cr_assert_str_eq(pl->fix, "pyrt install --force");
		cr_assert_not_null(strstr(pl->error, "Fatal Python error"),
				   "%s", pl->error);
	}
	pyrt_plugins_free(p);
}
