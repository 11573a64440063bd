/*
 * smoke: the real fixture runtime without and with python-docx (installed
 * from the fixture wheelhouse), and hand-laid boxes whose "python3" is a
 * shell script, to drive the document checker and the child's environment.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diagnose/smoke.h"
#include "core/dist/pins.h"
#include "core/runtime/install.h"
#include "support.h"

static char *work, *box;

static void setup(void)
{
	work = pt_tmpdir("smoke");
	box = pt_join(work, "box");
}

static void teardown(void)
{
	unsetenv("FAKE_TOKEN");
	pt_rmtree(work);
	free(work);
	free(box);
}

TestSuite(smoke, .init = setup, .fini = teardown, .timeout = 300);

/* The fixture runtime, installed offline from its archive. */
static void install_fixture(void)
{
	char *pins_path = pt_fixture_pins(work, "pins.yaml",
					  "https://upstream.invalid/r.tar.gz",
					  NULL, NULL);
	pyrt_pins *pins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&pins, pins_path, &err), 0, "%s",
		     err.msg);
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);
	pyrt_pins_free(pins);
	free(pins_path);
}

/* A box whose current/bin/python3 is the given shell script.  pyrt starts
 * it as python3 -I --check-hash-based-pycs always -c PROGRAM PARAGRAPH OUT:
 * the paragraph is $6, the output $7. */
static void fake_install(const char *script)
{
	pt_sh("mkdir -p '%s/runtime/python/installs/a/python/bin'", box);
	char path[PATH_MAX];
	snprintf(path, sizeof path,
		 "%s/runtime/python/installs/a/python/bin/python3", box);
	pt_write(path, script);
	chmod(path, 0755);
	pt_sh("ln -sfn installs/a/python '%s/runtime/python/current'", box);
}

/* pyrt_smoke_run on the box opened once, as app_smoke_run does. */
static int smoke_at(const char *out, const pyrt_events *ev,
		    pyrt_smoke_result *res, pyrt_error *err)
{
	pyrt_box *b = NULL;
	int rc = pyrt_box_open(&b, box, 0, err);
	if (!rc)
		rc = pyrt_smoke_run(b, NULL, out, ev, res, err);
	pyrt_box_free(b);
	return rc;
}

static int run_smoke(const char *out, pyrt_smoke_result *res,
		     pyrt_error *err, pt_recorder *rec)
{
	memset(rec, 0, sizeof *rec);
	pyrt_events ev = pt_recorder_events(rec);
	return smoke_at(out, &ev, res, err);
}

/* No smoke-* workspace may outlive a run. */
static void assert_no_workspace(void)
{
	cr_assert_eq(pt_sh("! ls -d '%s'/runtime/python/smoke-* >/dev/null 2>&1",
			   box), 0, "a smoke workspace was left behind");
}

Test(smoke, empty_box_is_not_ready_and_names_install)
{
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "run \"pyrt install\""), "%s", err.msg);
	char *rt = pt_join(box, "runtime");
	cr_assert_neq(access(rt, F_OK), 0, "smoke must not create the box");
	free(rt);
}

Test(smoke, real_runtime_without_then_with_python_docx)
{
	install_fixture();
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_NOT_READY, "%s",
		     err.msg);
	cr_assert(strstr(err.msg, "python-docx is not installed"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, "pyrt baseline"), "%s", err.msg);
	assert_no_workspace();

	cr_assert_eq(pt_sh("'%s/runtime/python/current/bin/python3' -I -m pip "
			   "install -q --no-index --find-links '%s/wheelhouse' "
			   "--disable-pip-version-check python-docx >&2",
			   box, pt_fixtures()), 0);

	char *out = pt_join(work, "out.docx");
	pyrt_error err2 = PYRT_ERROR_INIT;
	cr_assert_eq(run_smoke(out, &res, &err2, &rec), 0, "%s", err2.msg);
	cr_assert_str_eq(res.docx_path, out);
	cr_assert_eq(strncmp(res.paragraph, "pyrt smoke test ", 16), 0, "%s",
		     res.paragraph);
	cr_assert_eq(strlen(res.paragraph), 16 + 16, "%s", res.paragraph);
	cr_assert_gt(res.docx_bytes, 1000);
	struct stat sb;
	cr_assert_eq(stat(out, &sb), 0);
	cr_assert_eq((unsigned long long)sb.st_size, res.docx_bytes);
	mode_t mask = umask(022);
	umask(mask);
	cr_assert_eq(sb.st_mode & 0777, 0644 & ~mask, "mode %o",
		     sb.st_mode & 0777);
	/* Read back independently of pyrt: Python's zipfile. */
	cr_assert_eq(pt_sh("python3 -c 'import sys, zipfile; "
			   "x = zipfile.ZipFile(sys.argv[1]).read(\"word/document.xml\").decode(); "
			   "sys.exit(0 if \">\" + sys.argv[2] + \"<\" in x else 1)' '%s' '%s'",
			   out, res.paragraph), 0);
	cr_assert(strstr(rec.log, res.paragraph), "%s", rec.log);
	assert_no_workspace();

	/* A second run makes a new nonce. */
	char first[128];
	snprintf(first, sizeof first, "%s", res.paragraph);
	pyrt_error err3 = PYRT_ERROR_INIT;
	cr_assert_eq(run_smoke(NULL, &res, &err3, &rec), 0, "%s", err3.msg);
	cr_assert_str_neq(res.paragraph, first);
	cr_assert_str_eq(res.docx_path, "");
	free(out);
}

/* The fake interpreter writes a zip whose document.xml lacks the text. */
Test(smoke, document_without_the_paragraph_fails_verification)
{
	fake_install("#!/bin/sh\n"
		     "exec /usr/bin/python3 -c 'import sys, zipfile\n"
		     "z = zipfile.ZipFile(sys.argv[1], \"w\")\n"
		     "z.writestr(\"[Content_Types].xml\", \"<Types/>\")\n"
		     "z.writestr(\"word/document.xml\", \"<w:t>some other text</w:t>\")\n"
		     "z.close()' \"$7\"\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	char *out = pt_join(work, "out.docx");
	cr_assert_eq(run_smoke(out, &res, &err, &rec), PYRT_E_VERIFY, "%s",
		     err.msg);
	cr_assert(strstr(err.msg, "does not hold the paragraph"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, res.paragraph), "%s", err.msg);
	cr_assert_neq(access(out, F_OK), 0, "a failed document is not copied");
	assert_no_workspace();
	free(out);
}

/* The same fake, writing the paragraph it is given: the checker passes. */
Test(smoke, document_with_the_paragraph_passes_the_checker)
{
	fake_install("#!/bin/sh\n"
		     "exec /usr/bin/python3 -c 'import sys, zipfile\n"
		     "z = zipfile.ZipFile(sys.argv[2], \"w\", zipfile.ZIP_DEFLATED)\n"
		     "z.writestr(\"docProps/app.xml\", \"<x/>\")\n"
		     "z.writestr(\"word/document.xml\", \"<w:p><w:r><w:t>\" + sys.argv[1] + \"</w:t></w:r></w:p>\")\n"
		     "z.close()' \"$6\" \"$7\"\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), 0, "%s", err.msg);
	assert_no_workspace();
}

Test(smoke, document_that_is_not_a_zip_fails_verification)
{
	fake_install("#!/bin/sh\necho 'plain text' > \"$7\"\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_VERIFY, "%s",
		     err.msg);
	cr_assert(strstr(err.msg, "not a readable zip") ||
		  strstr(err.msg, "not a .docx"), "%s", err.msg);
}

Test(smoke, zip_without_document_xml_is_not_a_docx)
{
	fake_install("#!/bin/sh\n"
		     "exec /usr/bin/python3 -c 'import sys, zipfile\n"
		     "z = zipfile.ZipFile(sys.argv[1], \"w\")\n"
		     "z.writestr(\"word/other.xml\", \"<x/>\")\n"
		     "z.close()' \"$7\"\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_VERIFY, "%s",
		     err.msg);
	cr_assert(strstr(err.msg, "no word/document.xml"), "%s", err.msg);
}

Test(smoke, failing_script_reports_its_last_line)
{
	fake_install("#!/bin/sh\necho 'Traceback (most recent call last):'\n"
		     "echo 'RuntimeError: disk on fire'\nexit 1\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_INTERPRETER,
		     "%s", err.msg);
	cr_assert(strstr(err.msg, "RuntimeError: disk on fire"), "%s", err.msg);
	cr_assert(strstr(rec.log, "Traceback"), "%s", rec.log);
	assert_no_workspace();
}

Test(smoke, broken_docx_import_names_the_baseline_fix)
{
	fake_install("#!/bin/sh\n"
		     "echo \"python-docx cannot be imported: No module named 'lxml'\"\n"
		     "exit 4\n");
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_NOT_READY, "%s",
		     err.msg);
	cr_assert(strstr(err.msg, "lxml"), "%s", err.msg);
	cr_assert(strstr(err.msg, "pyrt baseline"), "%s", err.msg);
}

/* The child runs in a private 0700 workspace inside the box, as its HOME
 * and cwd, with a scrubbed environment; -I is passed. */
Test(smoke, child_runs_scrubbed_in_a_private_workspace)
{
	char *report = pt_join(work, "child.txt");
	char script[2048];
	snprintf(script, sizeof script,
		 "#!/bin/sh\n"
		 "{ echo \"arg1=$1\"; echo \"home=$HOME\"; echo \"pwd=$(pwd)\";\n"
		 "  echo \"mode=$(stat -c %%a \"$HOME\")\"; env; } > '%s'\n"
		 "exit 1\n", report);
	fake_install(script);
	setenv("FAKE_TOKEN", "tok-123-secret", 1);
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	cr_assert_eq(run_smoke(NULL, &res, &err, &rec), PYRT_E_INTERPRETER,
		     "%s", err.msg);
	char *text = pt_read(report);
	cr_assert_not_null(text);
	char want[PATH_MAX];
	snprintf(want, sizeof want, "home=%s/runtime/python/smoke-", box);
	cr_assert(strstr(text, want), "%s", text);
	snprintf(want, sizeof want, "pwd=%s/runtime/python/smoke-", box);
	cr_assert(strstr(text, want), "%s", text);
	cr_assert(strstr(text, "arg1=-I\n"), "%s", text);
	cr_assert(strstr(text, "mode=700\n"), "%s", text);
	cr_assert_null(strstr(text, "FAKE_TOKEN"), "%s", text);
	cr_assert_null(strstr(text, "tok-123-secret"), "%s", text);
	assert_no_workspace();
	free(text);
	free(report);
}

Test(smoke, cancelled_before_start)
{
	fake_install("#!/bin/sh\nexit 0\n");
	atomic_int cancel = 1;
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	ev.cancel = &cancel;
	pyrt_smoke_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(smoke_at(NULL, &ev, &res, &err), PYRT_E_CANCELLED);
	assert_no_workspace();
}
