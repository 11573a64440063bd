/* ctest: test_doctor */
/*
 * doctor: each check's verdict from boxes in known states (empty, the real
 * fixture runtime installed, tampered, foreign-marked, hand-laid with a
 * lying interpreter), and the support bundle with its redaction.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diagnose/doctor.h"
#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/runtime/install.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "support.h"

static char *work, *box;
static pyrt_pins *pins;
static char cacert[PATH_MAX];

static const char *const proxy_vars[] = {
	"http_proxy", "https_proxy", "all_proxy", "no_proxy",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
};

static void setup(void)
{
	for (size_t i = 0; i < sizeof proxy_vars / sizeof *proxy_vars; i++)
		unsetenv(proxy_vars[i]);
	work = pt_tmpdir("doctor");
	box = pt_join(work, "box");
	char *path = pt_fixture_pins(work, "pins.yaml",
				     "https://upstream.invalid/r.tar.gz", NULL,
				     NULL);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&pins, path, &err), 0, "%s", err.msg);
	free(path);
	snprintf(cacert, sizeof cacert, "%s/ca.pem", pt_fixtures());
}

static void teardown(void)
{
	for (size_t i = 0; i < sizeof proxy_vars / sizeof *proxy_vars; i++)
		unsetenv(proxy_vars[i]);
	pyrt_pins_free(pins);
	pt_rmtree(work);
	free(work);
	free(box);
}

TestSuite(doctor, .init = setup, .fini = teardown, .timeout = 300);

static pyrt_doctor *run_doctor_key(const char *key, const char *ca)
{
	/* The box opened once, as app_doctor_run opens it: a root it
	 * refuses is doctor's one finding. */
	pyrt_doctor *d = NULL;
	pyrt_error err = PYRT_ERROR_INIT, berr = PYRT_ERROR_INIT;
	pyrt_box *b = NULL;
	int rc = pyrt_box_open(&b, box, 0, &berr);
	if (rc == PYRT_E_UNTRUSTED) {
		rc = pyrt_doctor_refused(&d, box, &berr, &err);
	} else {
		cr_assert_eq(rc, 0, "%s", berr.msg);
		pyrt_doctor_opts o = PYRT_DOCTOR_OPTS_INIT;
		o.box = b;
		o.pins = pins;
		o.platform_key = key;
		o.cacert = ca;
		rc = pyrt_doctor_run(&d, &o, NULL, &err);
	}
	pyrt_box_free(b);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_not_null(d);
	return d;
}

static pyrt_doctor *run_doctor(void)
{
	return run_doctor_key(pt_host_key(), cacert);
}

static const pyrt_check *find(const pyrt_doctor *d, const char *id)
{
	for (size_t i = 0; i < pyrt_doctor_count(d); i++)
		if (strcmp(pyrt_doctor_at(d, i)->id, id) == 0)
			return pyrt_doctor_at(d, i);
	cr_assert_fail("no check %s", id);
	return NULL;
}

static void assert_verdict(const pyrt_doctor *d, const char *id,
			   pyrt_check_verdict v)
{
	const pyrt_check *c = find(d, id);
	cr_assert_eq(c->verdict, v, "%s: %s, expected %s (%s)", id,
		     pyrt_check_verdict_name(c->verdict),
		     pyrt_check_verdict_name(v), c->detail);
	if (v == PYRT_CHECK_FAIL)
		cr_assert_not_null(c->fix, "%s fails without a fix", id);
	if (v == PYRT_CHECK_PASS)
		cr_assert_null(c->fix, "%s passes with a fix", id);
}

static char *install_dir(void)
{
	pyrt_box *b = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_open(&b, box, 0, &err), 0);
	char dir[PATH_MAX];
	cr_assert_eq(pyrt_box_link_install(b, pyrt_box_current(b), dir,
					   sizeof dir, &err), 0, "%s", err.msg);
	pyrt_box_free(b);
	return strdup(dir);
}

/* The fixture runtime, installed offline from its archive. */
static void install_fixture(void)
{
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);
}

/* Rewrite the active install's marker through fn. */
static void edit_marker(void (*fn)(pyrt_marker *m))
{
	char *dir = install_dir();
	char path[PATH_MAX + 16];
	snprintf(path, sizeof path, "%s/marker.json", dir);
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(path, &m, &err), 0, "%s", err.msg);
	fn(&m);
	cr_assert_eq(pyrt_marker_write(path, &m, &err), 0, "%s", err.msg);
	free(dir);
}

static void baseline_complete(pyrt_marker *m)
{
	strcpy(m->baseline_state, "complete");
	m->baseline_missing_count = 0;
}

static void baseline_partial(pyrt_marker *m)
{
	strcpy(m->baseline_state, "partial");
	strcpy(m->baseline_missing[0], "python-pptx");
	m->baseline_missing_count = 1;
	strcpy(m->baseline_error, "No matching distribution found for python-pptx");
}

Test(doctor, unprovisioned_box_fails_runtime_and_skips_what_depends_on_it)
{
	pyrt_doctor *d = run_doctor();
	static const char *const order[] = {
		"platform", "pins", "box_root", "lock", "runtime", "marker",
		"interpreter", "pep668", "baseline", "plugins", "disk",
		"ca_bundle", "proxy", "staging",
	};
	cr_assert_eq(pyrt_doctor_count(d), sizeof order / sizeof *order);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++)
		cr_assert_str_eq(pyrt_doctor_at(d, i)->id, order[i]);
	assert_verdict(d, "platform", PYRT_CHECK_PASS);
	assert_verdict(d, "box_root", PYRT_CHECK_WARN);
	assert_verdict(d, "runtime", PYRT_CHECK_FAIL);
	cr_assert_str_eq(find(d, "runtime")->fix, "pyrt install");
	cr_assert(strstr(find(d, "runtime")->detail, "not provisioned"), "%s",
		  find(d, "runtime")->detail);
	assert_verdict(d, "marker", PYRT_CHECK_SKIP);
	assert_verdict(d, "interpreter", PYRT_CHECK_SKIP);
	assert_verdict(d, "pep668", PYRT_CHECK_SKIP);
	assert_verdict(d, "baseline", PYRT_CHECK_SKIP);
	assert_verdict(d, "ca_bundle", PYRT_CHECK_PASS);
	assert_verdict(d, "proxy", PYRT_CHECK_PASS);
	assert_verdict(d, "staging", PYRT_CHECK_PASS);
	cr_assert_eq(pyrt_doctor_passed(d), 0);
	cr_assert_neq(access(box, F_OK), 0, "doctor must not create the box");
	pyrt_doctor_free(d);
}

Test(doctor, unsupported_platform_fails_and_lists_the_supported_keys)
{
	pyrt_doctor *d = run_doctor_key("linux-riscv64-musl", cacert);
	assert_verdict(d, "platform", PYRT_CHECK_FAIL);
	const pyrt_check *c = find(d, "platform");
	cr_assert(strstr(c->detail, "linux-riscv64-musl"), "%s", c->detail);
	cr_assert(strstr(c->detail, pt_host_key()), "%s", c->detail);
	assert_verdict(d, "runtime", PYRT_CHECK_SKIP);
	cr_assert_eq(pyrt_doctor_passed(d), 0);
	pyrt_doctor_free(d);
}

Test(doctor, ready_install_passes_every_check)
{
	install_fixture();
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "box_root", PYRT_CHECK_PASS);
	assert_verdict(d, "lock", PYRT_CHECK_PASS);
	assert_verdict(d, "runtime", PYRT_CHECK_PASS);
	assert_verdict(d, "marker", PYRT_CHECK_PASS);
	assert_verdict(d, "interpreter", PYRT_CHECK_PASS);
	assert_verdict(d, "pep668", PYRT_CHECK_PASS);
	/* Installed without a baseline: named, with the fix. */
	assert_verdict(d, "baseline", PYRT_CHECK_FAIL);
	cr_assert_str_eq(find(d, "baseline")->fix, "pyrt baseline");
	cr_assert_eq(pyrt_doctor_passed(d), 0);
	pyrt_doctor_free(d);

	/* A marker that says complete over a runtime without the packages:
	 * the installed distributions are what counts, named with the fix;
	 * every other check passes. */
	edit_marker(baseline_complete);
	d = run_doctor();
	for (size_t i = 0; i < pyrt_doctor_count(d); i++) {
		const pyrt_check *c = pyrt_doctor_at(d, i);
		if (strcmp(c->id, "baseline") != 0)
			cr_assert_eq(c->verdict, PYRT_CHECK_PASS, "%s: %s: %s",
				     c->id, pyrt_check_verdict_name(c->verdict),
				     c->detail);
	}
	assert_verdict(d, "baseline", PYRT_CHECK_FAIL);
	const pyrt_check *b = find(d, "baseline");
	cr_assert(strstr(b->detail, "marker says complete"), "%s", b->detail);
	cr_assert(strstr(b->detail, "missing python-docx"), "%s",
		  b->detail);
	cr_assert_str_eq(b->fix, "pyrt baseline");
	cr_assert(strstr(find(d, "interpreter")->detail, "imports ssl"), "%s",
		  find(d, "interpreter")->detail);
	cr_assert_eq(pyrt_doctor_passed(d), 0);
	pyrt_doctor_free(d);

	edit_marker(baseline_partial);
	d = run_doctor();
	assert_verdict(d, "baseline", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "baseline")->detail, "python-pptx"), "%s",
		  find(d, "baseline")->detail);
	cr_assert_str_eq(find(d, "baseline")->fix, "pyrt baseline");
	pyrt_doctor_free(d);
}

Test(doctor, tampered_file_fails_the_marker_check)
{
	install_fixture();
	pt_sh("echo '# changed' >> '%s/runtime/python/current/lib/python3.11/os.py'",
	      box);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "runtime", PYRT_CHECK_PASS);
	assert_verdict(d, "marker", PYRT_CHECK_FAIL);
	const pyrt_check *c = find(d, "marker");
	cr_assert(strstr(c->detail, "1 of "), "%s", c->detail);
	cr_assert(strstr(c->detail, "python/lib/python3.11/os.py"), "%s",
		  c->detail);
	cr_assert_str_eq(c->fix, "pyrt install --force");
	cr_assert_eq(pyrt_doctor_passed(d), 0);
	pyrt_doctor_free(d);
}

Test(doctor, externally_managed_marker_fails_pep668_in_one_sentence)
{
	install_fixture();
	pt_sh("touch '%s/runtime/python/current/lib/python3.11/EXTERNALLY-MANAGED'",
	      box);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "pep668", PYRT_CHECK_FAIL);
	const pyrt_check *c = find(d, "pep668");
	cr_assert(strstr(c->detail, "EXTERNALLY-MANAGED marker"), "%s",
		  c->detail);
	cr_assert(strstr(c->detail, "pip refuses to install"), "%s",
		  c->detail);
	cr_assert(strstr(c->detail, "pyrt never writes one"), "%s", c->detail);
	cr_assert_null(strchr(c->detail, '\n'));
	cr_assert_str_eq(c->fix, "pyrt install --force");
	pyrt_doctor_free(d);
}

/* A hand-laid install whose python3 prints what we tell it to: version,
 * prefix, and (when imports is not NULL) the import check's line. */
static void fake_install_imports(const char *version, const char *prefix,
				 const char *imports)
{
	pt_sh("mkdir -p '%s/runtime/python/installs/a/python/bin'", box);
	char path[PATH_MAX], script[2 * PATH_MAX + 128];
	snprintf(path, sizeof path,
		 "%s/runtime/python/installs/a/python/bin/python3", box);
	snprintf(script, sizeof script, "#!/bin/sh\necho %s\necho %s\n%s%s%s",
		 version, prefix, imports ? "echo; echo 'PYRT-IMPORTS " : "",
		 imports ? imports : "", imports ? "'\n" : "");
	pt_write(path, script);
	chmod(path, 0755);
	pyrt_marker m;
	memset(&m, 0, sizeof m);
	m.schema = 1;
	strcpy(m.implementation, "cpython");
	snprintf(m.version, sizeof m.version, "%s", pyrt_pins_version(pins));
	strcpy(m.build, "fixture");
	snprintf(m.platform, sizeof m.platform, "%s", pt_host_key());
	snprintf(m.sha256, sizeof m.sha256, "%s",
		 pyrt_pins_find(pins, pt_host_key())->sha256);
	strcpy(m.baseline_state, "complete");
	snprintf(path, sizeof path, "%s/runtime/python/installs/a", box);
	pt_lay_record(path, &m);
	pt_sh("ln -sfn installs/a/python '%s/runtime/python/current'", box);
}

static void fake_install(const char *version, const char *prefix)
{
	fake_install_imports(version, prefix, NULL);
}

/* Starting is not enough: a runtime without ssl cannot run pip. */
Test(doctor, interpreter_that_cannot_import_ssl_fails_naming_it)
{
	char prefix[PATH_MAX];
	snprintf(prefix, sizeof prefix, "%s/runtime/python/installs/a/python",
		 box);
	fake_install_imports(pyrt_pins_version(pins), prefix,
			     "ssl (ModuleNotFoundError: No module named _ssl)");
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "interpreter", PYRT_CHECK_FAIL);
	const pyrt_check *c = find(d, "interpreter");
	cr_assert(strstr(c->detail, "cannot import: ssl (ModuleNotFoundError"),
		  "%s", c->detail);
	cr_assert_str_eq(c->fix, "pyrt install --force");
	pyrt_doctor_free(d);

	/* No import result at all is no pass either. */
	fake_install(pyrt_pins_version(pins), prefix);
	d = run_doctor();
	assert_verdict(d, "interpreter", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "interpreter")->detail, "printed no result"),
		  "%s", find(d, "interpreter")->detail);
	pyrt_doctor_free(d);

	fake_install_imports(pyrt_pins_version(pins), prefix, "ok");
	d = run_doctor();
	assert_verdict(d, "interpreter", PYRT_CHECK_PASS);
	pyrt_doctor_free(d);

	/* A module that prints the tag while imported forges nothing: the
	 * check's own line is the last. */
	fake_install_imports(pyrt_pins_version(pins), prefix,
			     "ok'\necho 'PYRT-IMPORTS docx of python-docx (E: x)");
	d = run_doctor();
	assert_verdict(d, "interpreter", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "interpreter")->detail, "cannot import: docx"),
		  "%s", find(d, "interpreter")->detail);
	pyrt_doctor_free(d);
}

Test(doctor, interpreter_reporting_another_version_fails)
{
	char prefix[PATH_MAX];
	snprintf(prefix, sizeof prefix, "%s/runtime/python/installs/a/python",
		 box);
	fake_install("3.9.1", prefix);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "runtime", PYRT_CHECK_PASS);
	assert_verdict(d, "interpreter", PYRT_CHECK_FAIL);
	const pyrt_check *c = find(d, "interpreter");
	cr_assert(strstr(c->detail, "reports 3.9.1"), "%s", c->detail);
	/* Its record is sound: only the interpreter is wrong. */
	assert_verdict(d, "marker", PYRT_CHECK_PASS);
	pyrt_doctor_free(d);
}

Test(doctor, interpreter_running_from_elsewhere_fails)
{
	fake_install(pyrt_pins_version(pins), "/usr");
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "interpreter", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "interpreter")->detail, "sys.prefix /usr"),
		  "%s", find(d, "interpreter")->detail);
	pyrt_doctor_free(d);
}

Test(doctor, proxy_values_are_shown_without_credentials)
{
	setenv("https_proxy", "http://user:secret@proxy:3128/path?token=x", 1);
	setenv("no_proxy", "localhost,127.0.0.1", 1);
	pyrt_doctor *d = run_doctor();
	const pyrt_check *c = find(d, "proxy");
	cr_assert_eq(c->verdict, PYRT_CHECK_PASS, "%s", c->detail);
	cr_assert(strstr(c->detail, "https_proxy=http://proxy:3128"), "%s",
		  c->detail);
	cr_assert(strstr(c->detail, "no_proxy=localhost,127.0.0.1"), "%s",
		  c->detail);
	cr_assert_null(strstr(c->detail, "secret"), "%s", c->detail);
	cr_assert_null(strstr(c->detail, "user"), "%s", c->detail);
	pyrt_doctor_free(d);

	/* The same variable in both cases with different values: a warning. */
	setenv("HTTPS_PROXY", "http://other:8080", 1);
	d = run_doctor();
	c = find(d, "proxy");
	cr_assert_eq(c->verdict, PYRT_CHECK_WARN, "%s", c->detail);
	cr_assert(strstr(c->detail, "HTTPS_PROXY=http://other:8080"), "%s",
		  c->detail);
	cr_assert_null(strstr(c->detail, "secret"), "%s", c->detail);
	cr_assert(pyrt_doctor_passed(d) == 0, "the runtime still fails");
	pyrt_doctor_free(d);
}

Test(doctor, held_lock_warns_with_the_holder)
{
	pyrt_box *b = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_open(&b, box, 1, &err), 0, "%s", err.msg);
	pyrt_lock *lock = NULL;
	cr_assert_eq(pyrt_lock_acquire(&lock, pyrt_box_lock_path(b), 0, NULL,
				       &err), 0, "%s", err.msg);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "lock", PYRT_CHECK_WARN);
	char pid[32];
	snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
	cr_assert(strstr(find(d, "lock")->detail, pid), "%s",
		  find(d, "lock")->detail);
	pyrt_doctor_free(d);
	pyrt_lock_release(lock);
	d = run_doctor();
	assert_verdict(d, "lock", PYRT_CHECK_PASS);
	pyrt_doctor_free(d);
	pyrt_box_free(b);
}

Test(doctor, stale_staging_warns)
{
	pt_sh("mkdir -p '%s/runtime/python/staging/old' && "
	      "touch -d '-3 hours' '%s/runtime/python/staging/old'", box, box);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "staging", PYRT_CHECK_WARN);
	cr_assert(strstr(find(d, "staging")->detail, "1 staging directory"),
		  "%s", find(d, "staging")->detail);
	cr_assert(strstr(find(d, "staging")->fix, "sweeps"), "%s",
		  find(d, "staging")->fix);
	pyrt_doctor_free(d);
}

Test(doctor, unreadable_ca_bundle_fails)
{
	char *missing = pt_join(work, "no-such-ca.pem");
	pyrt_doctor *d = run_doctor_key(pt_host_key(), missing);
	assert_verdict(d, "ca_bundle", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "ca_bundle")->detail, missing), "%s",
		  find(d, "ca_bundle")->detail);
	cr_assert(strstr(find(d, "ca_bundle")->fix, "--cacert"));
	pyrt_doctor_free(d);
	/* A readable file that holds no certificate is no bundle either. */
	pt_write(missing, "not a certificate\n");
	d = run_doctor_key(pt_host_key(), missing);
	assert_verdict(d, "ca_bundle", PYRT_CHECK_FAIL);
	pyrt_doctor_free(d);
	free(missing);
}

Test(doctor, box_root_that_is_a_file_fails)
{
	pt_write(box, "not a directory\n");
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "box_root", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "box_root")->detail, "not a directory"));
	pyrt_doctor_free(d);
}

Test(doctor, one_row_per_plugin_with_its_verdict_and_fix)
{
	pt_sh("mkdir -p '%s' && cp -r '%s/tests/fixtures/sample-box/plugins' '%s/'",
	      box, pt_source_dir(), box);
	pyrt_doctor *d = run_doctor();
	assert_verdict(d, "plugin:cowork", PYRT_CHECK_FAIL);
	cr_assert(strstr(find(d, "plugin:cowork")->detail, "needs_runtime"),
		  "%s", find(d, "plugin:cowork")->detail);
	assert_verdict(d, "plugin:artifact", PYRT_CHECK_PASS);
	cr_assert_str_eq(find(d, "plugin:artifact")->title, "Plugin artifact");
	/* Plugin rows sit where the plugins check belongs. */
	size_t first = 0;
	while (strncmp(pyrt_doctor_at(d, first)->id, "plugin:", 7) != 0)
		first++;
	cr_assert_str_eq(pyrt_doctor_at(d, first - 1)->id, "baseline");
	pyrt_doctor_free(d);
}

/* Members of a tar.gz, one per line. */
static char *tar_list(const char *path)
{
	char *out = pt_join(work, "list.txt");
	cr_assert_eq(pt_sh("tar tzf '%s' > '%s'", path, out), 0);
	char *text = pt_read(out);
	free(out);
	return text;
}

Test(doctor, bundle_is_private_complete_and_redacted)
{
	install_fixture();
	pt_sh("mkdir -p '%s/runtime/python/logs'", box);
	char log_old[PATH_MAX], log_new[PATH_MAX];
	snprintf(log_old, sizeof log_old,
		 "%s/runtime/python/logs/install-20260101T000000Z-1.log", box);
	snprintf(log_new, sizeof log_new,
		 "%s/runtime/python/logs/install-20260102T000000Z-2.log", box);
	pt_write(log_old, "OLDLOG\n");
	pt_sh("touch -d '-1 day' '%s'", log_old);
	pt_write(log_new,
		 "NEWLOG started\n"
		 "[ 0.1] info fetching https://bob:secret@mirror.example/pbs/x\n"
		 "[ 0.2] debug Authorization: Bearer secret-bearer-value\n"
		 "[ 0.3] debug env FAKE_TOKEN=secret123 ok\n"
		 /* Each form below hides a LEAK; none may survive. */
		 "[ 0.4] info GET https://m.example/f.tar.gz?v=LEAK1&LEAK2\n"
		 "[ 0.5] info https://s3.example/o?X-Amz-Signature=LEAK3"
		 "&X-Amz-Credential=LEAK4\n"
		 "[ 0.6] info https://gcs.example/o?X-Goog-Signature=LEAK5\n"
		 "[ 0.7] info sig=LEAK6 pass=LEAK7 pwd=LEAK8 auth=LEAK9\n"
		 "[ 0.8] debug env GITHUB_PAT=LEAK10 AZURE_DEVOPS_PAT=LEAK11\n"
		 "[ 0.9] info proxy alice:LEAK12@proxy.example:3128\n"
		 "[ 1.0] debug pip --password LEAK13 --index x\n"
		 "[ 1.1] debug tokens ghp_LEAK14 gho_LEAK15 github_pat_LEAK16\n"
		 "[ 1.2] debug tokens glpat-LEAK17 xoxb-LEAK18 xoxp-LEAK19\n"
		 "[ 1.3] debug key AKIALEAKLEAKLEAK2020\n"
		 "[ 1.4] info done\n");
	edit_marker(baseline_complete);
	/* A marker written before redaction existed still holds the secret. */
	char *mdir = install_dir();
	cr_assert_eq(pt_sh("sed -i 's#\"source\": \"[^\"]*\"#\"source\": "
			   "\"https://alice:LEAK21@h.example/p?token=LEAK22\"#' "
			   "'%s/marker.json' && grep -q LEAK21 '%s/marker.json'",
			   mdir, mdir), 0);
	free(mdir);
	pyrt_doctor *d = run_doctor();
	char *out = pt_join(work, "bundle.tar.gz");
	pyrt_error err = PYRT_ERROR_INIT;
	const char *json = "{\"ok\": true, \"note\": \"token=secret-in-json\"}\n";
	cr_assert_eq(pyrt_doctor_bundle(d, json, out, &err), 0, "%s", err.msg);

	struct stat sb;
	cr_assert_eq(stat(out, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600, "mode %o", sb.st_mode & 0777);
	char *list = tar_list(out);
	cr_assert_not_null(list);
	for (const char *m = "doctor.json\0platform.txt\0marker.json\0install.log\0";
	     *m; m += strlen(m) + 1)
		cr_assert(strstr(list, m), "%s missing from:\n%s", m, list);
	free(list);

	char *all = pt_join(work, "all.txt");
	cr_assert_eq(pt_sh("tar xzf '%s' -O > '%s'", out, all), 0);
	char *text = pt_read(all);
	cr_assert_not_null(text);
	cr_assert_null(strstr(text, "secret"), "a secret leaked:\n%s", text);
	cr_assert_null(strstr(text, "bob"), "userinfo leaked:\n%s", text);
	cr_assert_null(strstr(text, "LEAK"), "a secret leaked:\n%s", text);
	cr_assert(strstr(text, "h.example/p?token=***"), "%s", text);
	cr_assert(strstr(text, "ghp_***"), "%s", text);
	cr_assert(strstr(text, "NEWLOG started"), "newest log missing");
	cr_assert_null(strstr(text, "OLDLOG"), "the older log was taken");
	cr_assert(strstr(text, "mirror.example/pbs/x"), "%s", text);
	cr_assert(strstr(text, "\"ok\": true"), "doctor.json missing");
	cr_assert(strstr(text, "\"sha256\""), "marker.json missing");
	cr_assert(strstr(text, pt_host_key()), "platform key missing");
	cr_assert(strstr(text, "glibc: "), "glibc version missing");
	cr_assert(strstr(text, "pyrt " PYRT_VERSION), "pyrt version missing");
	/* No temp file is left beside the bundle. */
	cr_assert_eq(pt_sh("! ls '%s'.tmp-* >/dev/null 2>&1", out), 0);
	free(text);
	free(all);
	free(out);
	pyrt_doctor_free(d);
}

Test(doctor, bundle_into_a_missing_directory_fails_cleanly)
{
	pyrt_doctor *d = run_doctor();
	char *out = pt_join(work, "no/such/dir/b.tar.gz");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_doctor_bundle(d, "{}", out, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "no/such/dir"), "%s", err.msg);
	free(out);
	pyrt_doctor_free(d);
}
