/* app/plugin's install: the use case the CLI (`pyrt plugins install`),
 * the dashboard's i and the API's POST /api/plugins/NAME/install all run,
 * driven with a recording front: the steps it saw, the outcome's words, the
 * code.  One run here speaks for all three front ends. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/front.h"
#include "app/plugin.h"
#include "app_rec.h"
#include "core/runtime/box.h"
#include "core/runtime/lock.h"
#include "core/util/error.h"
#include "support.h"

static char *work, *box;
static pyrt_pins *pins;
static char wheelhouse[PATH_MAX];

static void setup(void)
{
	char msg[512];
	work = pt_tmpdir("app_plugin");
	box = pt_join(work, "box");
	cr_assert_eq(pt_fixture_pins_load(work, &pins, msg, sizeof msg), 0,
		     "%s", msg);
	snprintf(wheelhouse, sizeof wheelhouse, "%s/wheelhouse", pt_fixtures());
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(work);
	free(work);
	free(box);
}

TestSuite(app_plugin, .init = setup, .fini = teardown, .timeout = 300);

/* <box>/plugins/NAME/plugin.yaml needing the runtime and reqs. */
static void plugin(const char *name, const char *reqs)
{
	cr_assert_eq(pt_sh("mkdir -p '%s/plugins/%s' && printf 'name: %s\\n"
			   "enabled: true\\nrequires_tools: [execute_code]\\n"
			   "requires_pip: [%s]\\n' >'%s/plugins/%s/plugin.yaml'",
			   box, name, name, reqs, box, name), 0);
}

static void runtime(void)
{
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);
}

/* The request `pyrt plugins install NAME --wheelhouse W` makes. */
static app_request request(void)
{
	app_request req = { .command_word = "plugins" };
	req.box_root = box;
	req.wheelhouse = wheelhouse;
	return req;
}

/* One run as the front ends make it; the pyrt_code it returns. */
static int install(const app_request *req, const char *name, app_rec *rec,
		   const atomic_int *cancel)
{
	app_front *front = app_rec_front(rec);
	cr_assert_not_null(front);
	int rc = app_plugin_install_execute(req, pins, pt_host_key(), name,
					    front, cancel);
	app_front_free(front);
	cr_assert_eq(rec->results, 1, "one outcome per run, not %d", rec->results);
	cr_assert_str_eq(rec->command, "plugins install");
	return rc;
}

static int runtime_imports(const char *module)
{
	return pt_sh("'%s/runtime/python/current/bin/python3' -I -c 'import %s' "
		     "2>/dev/null", box, module) == 0;
}

Test(app_plugin, success_is_one_step_and_the_rows_new_verdict)
{
	runtime();
	plugin("careercoach", "python-docx");
	app_request req = request();
	app_rec rec = { 0 };
	int rc = install(&req, "careercoach", &rec, NULL);
	cr_assert_eq(rc, 0, "rc %d: %s", rc, rec.error);
	cr_assert_str_eq(rec.summary, "plugin careercoach: ready (deps: 1/1 ok)");
	cr_assert_str_eq(rec.steps, "baseline:begin baseline:end ",
			 "pip's own runs are folded into one step: %s", rec.steps);
	cr_assert_str_eq(rec.row, "careercoach ready");
	cr_assert_neq(rec.pip_log[0], '\0', "the pip log is named");
	cr_assert(runtime_imports("docx"));
}

Test(app_plugin, a_plugin_with_no_requirements_has_nothing_to_install)
{
	runtime();
	plugin("notes", "");
	app_request req = request();
	app_rec rec = { 0 };
	cr_assert_eq(install(&req, "notes", &rec, NULL), 0, "%s", rec.error);
	cr_assert_str_eq(rec.summary, "plugin notes: ready (deps: -); it "
			 "requires no packages, nothing to install");
	cr_assert_str_eq(rec.steps, "", "no pip step: %s", rec.steps);
}

Test(app_plugin, an_unknown_plugin_is_refused_naming_the_known_ones)
{
	runtime();
	plugin("careercoach", "python-docx");
	app_request req = request();
	app_rec rec = { 0 };
	cr_assert_eq(install(&req, "nosuch", &rec, NULL), PYRT_E_USAGE);
	char want[PATH_MAX + 128];
	snprintf(want, sizeof want, "no plugin named 'nosuch' in %s/plugins "
		 "(known: careercoach)", box);
	cr_assert_str_eq(rec.error, want);
	cr_assert(rec.before_start, "refused before anything started");
	cr_assert_str_eq(rec.steps, "");
	cr_assert_str_eq(rec.unchanged, "", "nothing was tried to leave as it was");
}

Test(app_plugin, without_a_runtime_it_says_not_ready_and_the_fix)
{
	plugin("careercoach", "python-docx");
	app_request req = request();
	app_rec rec = { 0 };
	cr_assert_eq(install(&req, "careercoach", &rec, NULL), PYRT_E_NOT_READY);
	cr_assert(strstr(rec.error, "plugin careercoach: the managed runtime is "
			 "not ready: "), "%s", rec.error);
	cr_assert(strstr(rec.error, "pyrt install"), "the fix: %s", rec.error);
	cr_assert(rec.before_start);
	cr_assert_str_eq(rec.steps, "");
}

Test(app_plugin, a_held_lock_with_no_wait_is_busy_and_runs_no_pip)
{
	runtime();
	plugin("careercoach", "python-docx");
	pyrt_box *b = NULL;
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_open(&b, box, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_lock_acquire(&lock, pyrt_box_lock_path(b), 0, NULL,
				       &err), 0, "%s", err.msg);
	app_request req = request();
	req.no_wait = 1;
	app_rec rec = { 0 };
	int rc = install(&req, "careercoach", &rec, NULL);
	pyrt_lock_release(lock);
	pyrt_box_free(b);
	cr_assert_eq(rc, PYRT_E_BUSY, "rc %d: %s", rc, rec.error);
	cr_assert_str_eq(rec.steps, "baseline:begin baseline:fail ");
	cr_assert_str_eq(rec.unchanged, "", "pip never ran: %s", rec.unchanged);
	cr_assert_not(runtime_imports("docx"));
}

Test(app_plugin, a_requirement_pip_cannot_get_fails_the_plugin_naming_it)
{
	runtime();
	plugin("cowork", "python-docx, python-pptx");
	app_request req = request();
	app_rec rec = { 0 };
	int rc = install(&req, "cowork", &rec, NULL);
	cr_assert_eq(rc, PYRT_E_PLUGIN, "rc %d: %s", rc, rec.error);
	cr_assert(strstr(rec.error, "python-pptx"), "%s", rec.error);
	cr_assert_str_eq(rec.summary, "");
	cr_assert_str_eq(rec.unchanged, "the runtime is still active; what pip "
			 "did install stays installed");
	cr_assert_str_eq(rec.steps, "baseline:begin baseline:fail ",
			 "one step, failed once: %s", rec.steps);
	cr_assert_str_eq(rec.row, "cowork missing_deps");
	cr_assert(strstr(rec.logs, "plugin cowork: missing_deps (deps: 1/2 ok; "
			 "missing: python-pptx) — fix: pyrt plugins install "
			 "cowork --box-root "), "the new verdict is said: %s",
		  rec.logs);
	cr_assert(runtime_imports("docx"), "the retry installed what it could");
}

Test(app_plugin, a_cancel_set_before_the_run_starts_nothing)
{
	runtime();
	plugin("careercoach", "python-docx");
	app_request req = request();
	atomic_int cancel = 1;
	app_rec rec = { 0 };
	cr_assert_eq(install(&req, "careercoach", &rec, &cancel),
		     PYRT_E_CANCELLED);
	cr_assert_str_eq(rec.steps, "");
	cr_assert_not(runtime_imports("docx"));
}
