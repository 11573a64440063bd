/* ctest: test_pip */
/*
 * pip in the managed runtime and the baseline: the fixture runtime is
 * installed into a fresh box, then the runtime's own pip installs from the
 * fixture wheelhouse (Debian's document libraries, wheel-ified; no
 * python-pptx) or from tiny wheels made here.  A sitecustomize.py planted in
 * the runtime lets the child report its environment or misbehave on cue.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/pkgs/baseline.h"
#include "core/pkgs/pip.h"
#include "core/runtime/install.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "support.h"

static char *work, *box;
static pyrt_box *hbox;            /* box, opened once as app/ opens it */
static char wheelhouse[PATH_MAX]; /* the fixture wheelhouse */
static char site[PATH_MAX];       /* the runtime's site-packages */
static char current[PATH_MAX];

static pyrt_pins *load_pins(const char *path)
{
	pyrt_pins *pins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&pins, path, &err), 0, "%s", err.msg);
	return pins;
}

/* A fresh box with the fixture runtime active (no baseline yet). */
static void setup(void)
{
	const char *fx = pt_fixtures();
	snprintf(wheelhouse, sizeof wheelhouse, "%s/wheelhouse", fx);
	work = pt_tmpdir("pip");
	box = pt_join(work, "box");
	char pins_path[PATH_MAX], msg[PYRT_ERROR_MSG_MAX];
	snprintf(pins_path, sizeof pins_path, "%s/pins.yaml", fx);
	pyrt_pins *pins = load_pins(pins_path);
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);
	pyrt_pins_free(pins);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_open(&hbox, box, 0, &err), 0, "%s", err.msg);
	snprintf(current, sizeof current, "%s/runtime/python/current", box);
	int n = snprintf(site, sizeof site,
			 "%s/local/lib/python3.11/dist-packages", current);
	cr_assert_lt(n, (int)sizeof site);
}

static void teardown(void)
{
	pyrt_box_free(hbox);
	hbox = NULL;
	pt_rmtree(work);
	free(work);
	free(box);
}

/* Pins for the fixture runtime whose baseline is the given list. */
static pyrt_pins *pins_with_baseline(const char *const *reqs, size_t n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pins-baseline.yaml", work);
	cr_assert_eq(pt_sh("sed '/^baseline:/,$d' '%s/pins.yaml' >'%s'",
			   pt_fixtures(), path), 0);
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("baseline:\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  - %s\n", reqs[i]);
	fclose(f);
	return load_pins(path);
}

/* Tiny wheels ("name:version[:dep...]") into dir. */
static void tiny_wheels(const char *dir, const char *specs)
{
	cr_assert_eq(pt_sh("mkdir -p '%s' && python3 '%s/tests/fixtures/tiny-wheel.py' '%s' %s",
			   dir, pt_source_dir(), dir, specs), 0);
}

/* Plant a sitecustomize.py into the runtime: it runs in pip's child. */
static void plant_sitecustomize(const char *body)
{
	char path[sizeof site + 32];
	snprintf(path, sizeof path, "%s/sitecustomize.py", site);
	pt_write(path, body);
}

static pyrt_marker read_marker(void)
{
	char path[sizeof current + 32];
	snprintf(path, sizeof path, "%s/../marker.json", current);
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(path, &m, &err), 0, "%s", err.msg);
	return m;
}

static int runtime_imports(const char *modules)
{
	return pt_sh("'%s/bin/python3' -I -c 'import %s' 2>/dev/null", current,
		     modules);
}

static int file_has(const char *path, const char *needle)
{
	char *text = pt_read(path);
	int found = text && strstr(text, needle);
	free(text);
	return found;
}

static void current_target(char *buf, size_t len)
{
	ssize_t n = readlink(current, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static int run_baseline(const pyrt_pins *pins, const char *req_file,
			const char *wh, pt_recorder *rec,
			pyrt_baseline_result *res, pyrt_error *err)
{
	pyrt_baseline_opts o = PYRT_BASELINE_OPTS_INIT;
	o.box = hbox;
	o.pins = pins;
	o.requirements_file = req_file;
	o.wheelhouse = wh;
	o.no_wait = 1;
	memset(rec, 0, sizeof *rec);
	pyrt_events ev = pt_recorder_events(rec);
	return pyrt_baseline_run(&o, &ev, res, err);
}

static const char *const five[] = { "python-docx", "openpyxl", "python-pptx",
				     "reportlab", "pillow" };

TestSuite(pip, .init = setup, .fini = teardown, .timeout = 300);

Test(pip, complete_baseline_from_the_wheelhouse)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pins.yaml", pt_fixtures());
	pyrt_pins *pins = load_pins(path); /* baseline: python-docx, openpyxl */
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wheelhouse, &rec, &res, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(res.state, "complete");
	cr_assert_eq(res.missing_count, 0);
	cr_assert_eq(rec.steps_begun[PYRT_STEP_BASELINE], 1);
	cr_assert_eq(rec.steps_ended[PYRT_STEP_BASELINE], 1);
	cr_assert_eq(rec.steps_failed[PYRT_STEP_BASELINE], 0);
	pyrt_marker m = read_marker();
	cr_assert_str_eq(m.baseline_state, "complete");
	cr_assert_eq(m.baseline_missing_count, 0);
	cr_assert_eq(runtime_imports("docx, openpyxl, lxml"), 0);

	/* The pip log: owner-only, named for the purpose, pip's own words. */
	struct stat st;
	cr_assert_eq(stat(res.log_path, &st), 0, "%s", res.log_path);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert(strstr(res.log_path, "/runtime/python/logs/pip-baseline-"),
		  "%s", res.log_path);
	cr_assert(file_has(res.log_path, "Successfully installed"));
	/* A wheelhouse and a simple baseline: pyrt's installer, not pip. */
	cr_assert(file_has(res.log_path, "<pyrt wheelhouse installer>"));
	cr_assert(!file_has(res.log_path, "--only-binary=:all:"));
	/* pip's lines reached the front end as log events. */
	cr_assert(strstr(rec.log, "Successfully installed"), "%s", rec.log);
	pyrt_pins_free(pins);
}

Test(pip, unavailable_requirement_makes_a_partial_baseline)
{
	pyrt_pins *pins = pins_with_baseline(five, 5);
	char before[PATH_MAX], after[PATH_MAX];
	current_target(before, sizeof before);
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wheelhouse, &rec, &res, &err),
		     PYRT_E_BASELINE);
	cr_assert_str_eq(res.state, "partial");
	cr_assert_eq(res.missing_count, 1);
	cr_assert_str_eq(res.missing[0], "python-pptx");
	cr_assert(strstr(res.error, "python-pptx"), "%s", res.error);
	cr_assert(strstr(err.msg, "python-pptx"), "%s", err.msg);
	cr_assert(strstr(err.msg, res.log_path), "%s", err.msg);
	cr_assert_null(strchr(err.msg, '\n'));
	cr_assert(file_has(res.log_path, "python-pptx"));
	/* One baseline step, however many pip runs it took. */
	cr_assert_eq(rec.steps_begun[PYRT_STEP_BASELINE], 1);
	cr_assert_eq(rec.steps_failed[PYRT_STEP_BASELINE], 1);

	pyrt_marker m = read_marker();
	cr_assert_str_eq(m.baseline_state, "partial");
	cr_assert_eq(m.baseline_missing_count, 1);
	cr_assert_str_eq(m.baseline_missing[0], "python-pptx");
	cr_assert(strstr(m.baseline_error, "python-pptx"), "%s",
		  m.baseline_error);
	/* What could be installed is; the runtime stays active. */
	cr_assert_eq(runtime_imports("docx, openpyxl, reportlab, PIL"), 0);
	cr_assert_neq(runtime_imports("pptx"), 0);
	current_target(after, sizeof after);
	cr_assert_str_eq(before, after);
	cr_assert_eq(pt_sh("'%s/bin/python3' -I -c pass", current), 0);
	pyrt_pins_free(pins);
}

Test(pip, rerun_installs_only_what_is_missing)
{
	char wh[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/wheelhouse", work);
	cr_assert_eq(pt_sh("cp -r '%s' '%s'", wheelhouse, wh), 0);
	pyrt_pins *pins = pins_with_baseline(five, 5);
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wh, &rec, &res, &err),
		     PYRT_E_BASELINE);
	cr_assert_str_eq(res.state, "partial");

	/* The missing one appears in the wheelhouse; the rerun adds only it. */
	tiny_wheels(wh, "python-pptx:0.6.21");
	pyrt_error err2 = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wh, &rec, &res, &err2), 0, "%s",
		     err2.msg);
	cr_assert_str_eq(res.state, "complete");
	cr_assert_str_eq(read_marker().baseline_state, "complete");
	cr_assert_eq(read_marker().baseline_missing_count, 0);
	cr_assert(file_has(res.log_path,
			   "Requirement already satisfied: python-docx"));
	cr_assert(file_has(res.log_path,
			   "Installing collected packages: python-pptx\n"),
		  "%s", res.log_path);
	cr_assert_eq(runtime_imports("python_pptx, docx"), 0);

	/* Complete already: a third run installs nothing at all. */
	pyrt_error err3 = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wh, &rec, &res, &err3), 0, "%s",
		     err3.msg);
	cr_assert(file_has(res.log_path, "Requirement already satisfied"));
	cr_assert_not(file_has(res.log_path, "Installing collected packages"));
	pyrt_pins_free(pins);
}

Test(pip, externally_managed_runtime_is_refused_in_one_sentence)
{
	cr_assert_eq(pt_sh("echo '[externally-managed]' >'%s/lib/python3.11/EXTERNALLY-MANAGED'",
			   current), 0);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pins.yaml", pt_fixtures());
	pyrt_pins *pins = load_pins(path);
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wheelhouse, &rec, &res, &err),
		     PYRT_E_BASELINE);
	cr_assert(strstr(err.msg, "EXTERNALLY-MANAGED"), "%s", err.msg);
	cr_assert(strstr(err.msg, "PEP 668"), "%s", err.msg);
	cr_assert(strstr(err.msg, "pyrt install --force"), "%s", err.msg);
	cr_assert_null(strchr(err.msg, '\n'));
	/* pip's own refusal was never started nor passed through. */
	cr_assert_null(strstr(rec.log, "externally-managed-environment"));
	cr_assert_neq(pt_sh("ls '%s'/runtime/python/logs/pip-* >/dev/null 2>&1",
			    box), 0);
	cr_assert_str_eq(read_marker().baseline_state, "none");
	cr_assert_eq(rec.steps_failed[PYRT_STEP_BASELINE], 1);
	pyrt_pins_free(pins);
}

Test(pip, no_runtime_says_how_to_get_one)
{
	char empty[PATH_MAX];
	snprintf(empty, sizeof empty, "%s/empty-box", work);
	pyrt_baseline_opts o = PYRT_BASELINE_OPTS_INIT;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pins.yaml", pt_fixtures());
	pyrt_pins *pins = load_pins(path);
	pyrt_error perr_open = PYRT_ERROR_INIT;
	pyrt_box *ebox = NULL;
	cr_assert_eq(pyrt_box_open(&ebox, empty, 0, &perr_open), 0, "%s",
		     perr_open.msg);
	o.box = ebox;
	o.pins = pins;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_baseline_run(&o, NULL, &res, &err), PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "not provisioned"), "%s", err.msg);
	cr_assert(strstr(err.msg, "pyrt install"), "%s", err.msg);
	cr_assert_neq(access(empty, F_OK), 0, "nothing may be created");

	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "python-docx";
	po.box = ebox;
	po.requirements = &req;
	po.requirement_count = 1;
	pyrt_pip_result pres;
	pyrt_error perr = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &perr), PYRT_E_NOT_READY);
	cr_assert(strstr(perr.msg, "pyrt install"), "%s", perr.msg);
	cr_assert_eq(pres.exit_code, -1);
	pyrt_box_free(ebox);
	pyrt_pins_free(pins);
}

Test(pip, busy_box_with_no_wait)
{
	char lock_path[PATH_MAX];
	snprintf(lock_path, sizeof lock_path, "%s/runtime/python/lock", box);
	pyrt_lock *lock = NULL;
	pyrt_error lerr = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &lerr), 0,
		     "%s", lerr.msg);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pins.yaml", pt_fixtures());
	pyrt_pins *pins = load_pins(path);
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(pins, NULL, wheelhouse, &rec, &res, &err),
		     PYRT_E_BUSY, "%s", err.msg);
	cr_assert_str_eq(read_marker().baseline_state, "none");
	pyrt_lock_release(lock);
	pyrt_pins_free(pins);
}

Test(pip, direct_install_names_the_failed_requirement)
{
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *reqs[] = { "openpyxl", "python-pptx" };
	po.box = hbox;
	po.requirements = reqs;
	po.requirement_count = 2;
	po.wheelhouse = wheelhouse;
	po.purpose = "plugin cowork";
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, &ev, &pres, &err), PYRT_E_BASELINE);
	cr_assert_eq(pres.exit_code, 1);
	cr_assert_str_eq(pres.failed_requirement, "python-pptx");
	cr_assert_str_eq(pres.reason,
			 "No matching distribution found for python-pptx");
	cr_assert(strstr(err.msg, "python-pptx"), "%s", err.msg);
	cr_assert(strstr(err.msg, pres.log_path), "%s", err.msg);
	cr_assert(strstr(pres.log_path, "/pip-plugin-cowork-"), "%s",
		  pres.log_path);
	cr_assert_eq(rec.steps_begun[PYRT_STEP_BASELINE], 1);
	cr_assert_eq(rec.steps_failed[PYRT_STEP_BASELINE], 1);
	/* pip resolves the whole batch first: nothing was installed. */
	cr_assert_neq(runtime_imports("openpyxl"), 0);
}

Test(pip, requirements_file_is_retried_line_by_line)
{
	char file[PATH_MAX];
	snprintf(file, sizeof file, "%s/requirements-docs.txt", work);
	pt_write(file, "# the desktop app's document libraries\n"
		       "\n"
		       "python-docx>=0.8   # Word\n"
		       "python-pptx\n"
		       "openpyxl\n");
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(NULL, file, wheelhouse, &rec, &res, &err),
		     PYRT_E_BASELINE);
	cr_assert_str_eq(res.state, "partial");
	cr_assert_eq(res.missing_count, 1);
	cr_assert_str_eq(res.missing[0], "python-pptx");
	cr_assert_eq(res.requirement_count, 3);
	cr_assert_eq(runtime_imports("docx, openpyxl"), 0);
	cr_assert_str_eq(read_marker().baseline_state, "partial");
}

/* tmpl with its "WORK" replaced by the test's work directory. */
static void with_work(const char *tmpl, char *out, size_t len)
{
	const char *w = strstr(tmpl, "WORK");
	if (!w) {
		snprintf(out, len, "%s", tmpl);
		return;
	}
	snprintf(out, len, "%.*s%s%s", (int)(w - tmpl), tmpl, work, w + 4);
}

/*
 * pip is never handed the file: each line must be a PEP 508 requirement,
 * and the first that is not is refused as FILE:LINE before pip starts (an
 * option line would make pip write a log anywhere, or use another index).
 */
Test(pip, requirements_file_lines_must_be_requirements)
{
	static const struct {
		const char *text, *why;
		int line;
	} bad[] = {
		{ "python-docx\n--log=WORK/pwned.log\n", "pip option", 2 },
		{ "# docs\n\n-r /etc/passwd\n", "pip option", 3 },
		{ "python-docx\npillow @ file://WORK/x.whl\n", "direct reference",
		  2 },
		{ "https://127.0.0.1/x.whl\n", "URL", 1 },
		{ "./local-project\n", "path", 1 },
		{ "python-docx \\\n  >=0.8\n", "line continuation", 1 },
	};
	char file[PATH_MAX], pwned[PATH_MAX];
	snprintf(file, sizeof file, "%s/requirements.txt", work);
	snprintf(pwned, sizeof pwned, "%s/pwned.log", work);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[PATH_MAX + 128], prefix[PATH_MAX + 16];
		with_work(bad[i].text, text, sizeof text);
		pt_write(file, text);
		pt_recorder rec;
		pyrt_baseline_result res;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(run_baseline(NULL, file, wheelhouse, &rec, &res,
					  &err), PYRT_E_USAGE, "%s", text);
		snprintf(prefix, sizeof prefix, "%s:%d: ", file, bad[i].line);
		cr_assert_eq(strncmp(err.msg, prefix, strlen(prefix)), 0,
			     "want %s in: %s", prefix, err.msg);
		cr_assert(strstr(err.msg, bad[i].why), "%s", err.msg);
		cr_assert(strstr(err.msg, "PEP 508"), "%s", err.msg);
		cr_assert_str_eq(res.log_path, "", "pip must not run");
		cr_assert_eq(rec.steps_begun[PYRT_STEP_BASELINE], 0);
		cr_assert_neq(access(pwned, F_OK), 0);
		pyrt_error cerr = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_baseline_check_file(file, NULL, &cerr),
			     PYRT_E_USAGE);
		cr_assert_str_eq(cerr.msg, err.msg);
	}
	cr_assert_str_eq(read_marker().baseline_state, "none");
	cr_assert_neq(runtime_imports("docx"), 0);
	size_t n = 0;
	pt_write(file, "# ok\npython-docx>=0.8  # Word\r\n\nPillow[a,b]>=9\n");
	pyrt_error ok = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_baseline_check_file(file, &n, &ok), 0, "%s", ok.msg);
	cr_assert_eq(n, 2);
}

/* The same for a list: pip is not started for a string that is not a
 * requirement, whoever passes it. */
Test(pip, a_list_entry_that_is_not_a_requirement_never_reaches_pip)
{
	char pwned[PATH_MAX], opt[PATH_MAX + 16], direct[PATH_MAX + 64];
	snprintf(pwned, sizeof pwned, "%s/pwned.log", work);
	snprintf(opt, sizeof opt, "--log=%s", pwned);
	char whl[PATH_MAX];
	cr_assert_eq(pt_sh("ls '%s'/[Pp]illow-*.whl >/dev/null", wheelhouse), 0);
	snprintf(whl, sizeof whl, "%s", wheelhouse);
	snprintf(direct, sizeof direct, "pillow @ file://%s/pillow.whl", whl);
	const char *cases[][2] = { { "pyrt-alpha", opt },
				   { direct, "python-docx" } };
	for (size_t i = 0; i < 2; i++) {
		pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
		po.box = hbox;
		po.requirements = cases[i];
		po.requirement_count = 2;
		po.wheelhouse = wheelhouse;
		pyrt_pip_result pres;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err),
			     PYRT_E_USAGE, "%s", err.msg);
		cr_assert(strstr(err.msg, i ? "direct reference" : "pip option"),
			  "%s", err.msg);
		cr_assert_eq(pres.exit_code, -1);
		cr_assert_str_eq(pres.log_path, "");
	}
	cr_assert_neq(access(pwned, F_OK), 0);
	cr_assert_neq(runtime_imports("PIL"), 0);
}

/*
 * pip's own command line, as pip sees it (sys.argv from a planted
 * sitecustomize): the requirements after "--", and --cacert's bundle as
 * --cert with an absolute path.  The extra makes it pip's to install (the
 * wheelhouse installer leaves extras to pip), so pip starts last.
 */
Test(pip, argv_ends_options_before_requirements_and_carries_the_cacert)
{
	char wh[PATH_MAX], report[PATH_MAX], code[2 * PATH_MAX], ca[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	snprintf(report, sizeof report, "%s/argv.json", work);
	snprintf(ca, sizeof ca, "%s/ca.pem", pt_fixtures());
	tiny_wheels(wh, "pyrt-alpha:1.0");
	snprintf(code, sizeof code,
		 "import json, sys\n"
		 "with open('%s', 'w') as f:\n"
		 "    json.dump(sys.argv, f)\n", report);
	plant_sitecustomize(code);
	char rel_ca[PATH_MAX];
	cr_assert_eq(chdir(pt_fixtures()), 0);
	snprintf(rel_ca, sizeof rel_ca, "ca.pem");
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "pyrt-alpha[x]";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	po.cacert = rel_ca;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(pt_sh("python3 - '%s' '%s' <<'EOF'\n"
			   "import json, os, sys\n"
			   "a = json.load(open(sys.argv[1]))\n"
			   "ca = os.path.realpath(sys.argv[2])\n"
			   "assert a[a.index('--cert') + 1] == ca, a\n"
			   "assert a.index('--') == len(a) - 2, a\n"
			   "assert a[-1] == 'pyrt-alpha[x]', a\n"
			   "EOF", report, ca), 0);
	cr_assert_eq(runtime_imports("pyrt_alpha"), 0);

	/* An unreadable bundle is refused before pip starts. */
	pyrt_error err2 = PYRT_ERROR_INIT;
	po.cacert = "/nonexistent/ca.pem";
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err2), PYRT_E_USAGE);
	cr_assert(strstr(err2.msg, "--cacert /nonexistent/ca.pem"), "%s",
		  err2.msg);
}

/*
 * pip's children are created with umask 022 whatever the operator's
 * umask: under 000, pip would leave every file it installs world-writable
 * in a runtime that root later runs.
 */
Test(pip, pip_installs_with_umask_022_under_umask_000)
{
	char wh[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	tiny_wheels(wh, "pyrt-alpha:1.0");
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "pyrt-alpha";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	mode_t old = umask(0);
	int rc = pyrt_pip_install(&po, NULL, &pres, &err);
	mode_t after = umask(old);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(after, 0, "pyrt's own umask must be left as it was");
	cr_assert_eq(runtime_imports("pyrt_alpha"), 0);
	char probe[sizeof site + 32];
	snprintf(probe, sizeof probe, "%s/pyrt_alpha/__init__.py", site);
	struct stat st;
	cr_assert_eq(stat(probe, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "%o", st.st_mode & 0777);
	cr_assert_eq(pt_sh("test -z \"$(find '%s' -perm -0002 ! -type l)\"",
			   site), 0, "world-writable files in %s", site);
}

Test(pip, unreadable_requirements_file_is_a_usage_error)
{
	char file[PATH_MAX];
	snprintf(file, sizeof file, "%s/nope.txt", work);
	pt_recorder rec;
	pyrt_baseline_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(run_baseline(NULL, file, wheelhouse, &rec, &res, &err),
		     PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "nope.txt"), "%s", err.msg);
}

/* pip's environment (the extra makes the requirement pip's, so pip starts
 * after the wheelhouse installer and writes the report last). */
Test(pip, child_environment_is_scrubbed_and_private)
{
	char wh[PATH_MAX], report[PATH_MAX], code[2 * PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	snprintf(report, sizeof report, "%s/env.json", work);
	tiny_wheels(wh, "pyrt-alpha:1.0");
	snprintf(code, sizeof code,
		 "import json, os\n"
		 "with open(%s%s%s, 'w') as f:\n"
		 "    json.dump({'env': dict(os.environ), 'cwd': os.getcwd()}, f)\n",
		 "'", report, "'");
	plant_sitecustomize(code);
	setenv("FAKE_TOKEN", "s3cr3t", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t", 1);
	setenv("https_proxy", "http://proxy.invalid:3128", 1);
	setenv("PYTHONPATH", "/nonexistent", 1);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "pyrt-alpha[x]";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_pip_install(&po, NULL, &pres, &err);
	unsetenv("FAKE_TOKEN");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("https_proxy");
	unsetenv("PYTHONPATH");
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(pt_sh("python3 - '%s' '%s' <<'EOF'\n"
			   "import json, sys\n"
			   "d = json.load(open(sys.argv[1])); e = d['env']\n"
			   "home = sys.argv[2] + '/runtime/python/pip-home'\n"
			   "assert 'FAKE_TOKEN' not in e, e\n"
			   "assert 'AWS_SECRET_ACCESS_KEY' not in e, e\n"
			   "assert 'PYTHONPATH' not in e, e\n"
			   "assert e['HOME'] == home, e\n"
			   "assert e['TMPDIR'] == home + '/tmp', e\n"
			   "assert e['PATH'] == '/usr/bin:/bin', e\n"
			   "assert e['https_proxy'] == 'http://proxy.invalid:3128', e\n"
			   "assert e['PIP_NO_CACHE_DIR'] == '1', e\n"
			   "assert d['cwd'] == home, d\n"
			   "EOF", report, box), 0);
	struct stat st;
	char home[PATH_MAX];
	snprintf(home, sizeof home, "%s/runtime/python/pip-home", box);
	cr_assert_eq(stat(home, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	snprintf(home, sizeof home, "%s/runtime/python/pip-home/tmp", box);
	cr_assert_eq(stat(home, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(runtime_imports("pyrt_alpha"), 0);
}

Test(pip, a_private_home_that_is_not_private_is_refused)
{
	char home[PATH_MAX];
	snprintf(home, sizeof home, "%s/runtime/python/pip-home", box);
	cr_assert_eq(mkdir(home, 0755), 0);
	chmod(home, 0755);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "python-docx";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wheelhouse;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "pip-home"), "%s", err.msg);
	cr_assert_eq(pres.exit_code, -1);
}

/* A recorder for the shown output: how much, and which lines. */
typedef struct shown_rec {
	size_t lines, bytes;
	int first, last, marker, success;
} shown_rec;

static int shown_log(pyrt_log_level level, const char *line, void *payload)
{
	shown_rec *s = payload;
	s->lines++;
	s->bytes += strlen(line) + 1;
	s->first |= strstr(line, "noise 00000 ") != NULL;
	s->last |= strstr(line, "noise 02999 ") != NULL;
	s->marker |= strstr(line, "bytes truncated") != NULL;
	s->success |= strstr(line, "Successfully installed") != NULL;
	return 0;
}

Test(pip, shown_output_is_capped_and_the_log_has_everything)
{
	char wh[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	tiny_wheels(wh, "pyrt-alpha:1.0");
	/* About 300 KB of output before pip says a word. */
	plant_sitecustomize("for i in range(3000):\n"
			    "    print('noise %05d ' % i + 'x' * 90)\n");
	shown_rec s;
	memset(&s, 0, sizeof s);
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_log = shown_log;
	ev.payload = &s;
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	/* The extra makes it pip's: the wheelhouse installer runs with
	 * -S, so no sitecustomize speaks for it. */
	const char *req = "pyrt-alpha[x]";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, &ev, &pres, &err), 0, "%s", err.msg);
	cr_assert(s.first, "the head is shown");
	cr_assert(s.last, "the tail is shown");
	cr_assert(s.success, "pip's last words are shown");
	cr_assert(s.marker, "the cut is marked");
	cr_assert_leq(s.bytes, 64 * 1024 + 200);
	cr_assert_gt(s.bytes, 32 * 1024);
	cr_assert_eq(pt_sh("test \"$(grep -c '^noise ' '%s')\" = 3000",
			   pres.log_path), 0);
}

/* What a package (or pip) prints reaches the log file cleaned: no ESC, no
 * C1 in either form, and a token pip quoted is hidden. */
Test(pip, the_pip_log_holds_no_terminal_controls_or_secrets)
{
	char wh[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	tiny_wheels(wh, "pyrt-alpha:1.0");
	plant_sitecustomize("import sys\n"
			    "sys.stdout.write('osc52 \\x1b]52;c;cHduZWQ=\\x07 csi "
			    "\\x1b[2J c1 \\u009d52;c;x\\u009c tok ghp_abcdefghijklmnopqrstuvwxyz0123456789\\n')\n"
			    "sys.stdout.buffer.write(b'raw \\x9b31m byte\\n')\n"
			    "sys.stdout.flush()\n");
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	/* The extra makes it pip's: the wheelhouse installer runs with
	 * -S, so no sitecustomize speaks for it. */
	const char *req = "pyrt-alpha[x]";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err), 0, "%s", err.msg);
	cr_assert_eq(pt_sh("grep -q '^osc52 ' '%s'", pres.log_path), 0,
		     "the line itself is kept");
	/* Valid UTF-8 throughout, and no C0 (but the newline) or C1. */
	cr_assert_eq(pt_sh("python3 -c 'import sys,re; t=open(sys.argv[1],\"rb\").read().decode(); "
			   "sys.exit(1 if re.search(\"[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f]\", t) else 0)' '%s'",
			   pres.log_path), 0, "a control byte reached %s",
		     pres.log_path);
	cr_assert_neq(pt_sh("grep -q ghp_abcdefghij '%s'", pres.log_path), 0,
		      "the token reached the log");
}

Test(pip, a_pip_that_hangs_is_stopped_at_the_timeout)
{
	char wh[PATH_MAX];
	snprintf(wh, sizeof wh, "%s/tiny", work);
	tiny_wheels(wh, "pyrt-alpha:1.0");
	plant_sitecustomize("import time\nprint('hanging', flush=True)\n"
			    "time.sleep(120)\n");
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	/* The extra makes it pip's: the wheelhouse installer runs with
	 * -S, so no sitecustomize speaks for it. */
	const char *req = "pyrt-alpha[x]";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	po.wheelhouse = wh;
	/* Long enough for the wheelhouse installer to hand over to pip on a
	 * loaded machine (each child gets the whole timeout). */
	po.timeout_s = 5;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pip_install(&po, NULL, &pres, &err), PYRT_E_BASELINE);
	cr_assert(strstr(err.msg, "did not finish within 5 s"), "%s", err.msg);
	cr_assert_eq(pres.exit_code, -1);
	cr_assert(file_has(pres.log_path, "hanging"));
	cr_assert(file_has(pres.log_path, "timeout"));
}

Test(pip, an_unreachable_index_is_named_with_the_fix)
{
	/* A proxy on a closed loopback port: pip never leaves the machine. */
	setenv("https_proxy", "http://127.0.0.1:9", 1);
	setenv("http_proxy", "http://127.0.0.1:9", 1);
	pyrt_pip_opts po = PYRT_PIP_OPTS_INIT;
	const char *req = "python-docx";
	po.box = hbox;
	po.requirements = &req;
	po.requirement_count = 1;
	pyrt_pip_result pres;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_pip_install(&po, NULL, &pres, &err);
	unsetenv("https_proxy");
	unsetenv("http_proxy");
	cr_assert_eq(rc, PYRT_E_BASELINE, "%s", err.msg);
	cr_assert(pres.index_unreachable);
	cr_assert(strstr(pres.reason, "could not reach the package index"),
		  "%s", pres.reason);
	cr_assert(strstr(err.msg, "--wheelhouse"), "%s", err.msg);
	cr_assert(strstr(err.msg, "python-docx"), "%s", err.msg);
	cr_assert(file_has(pres.log_path, "WARNING: Retrying"));
}
