/* app/install and app/baseline: the use cases every front end
 * runs (the CLI, the TUI and the API server call exactly these), driven
 * with a recording front: the steps it saw, the outcome's words, the code.
 * One run here speaks for all three front ends. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/baseline.h"
#include "app/front.h"
#include "app/install.h"
#include "app_rec.h"
#include "core/util/error.h"
#include "support.h"

static char *work, *box;
static pyrt_pins *pins;
static char archive[PATH_MAX];

static void setup(void)
{
	char msg[512];
	work = pt_tmpdir("app_install");
	box = pt_join(work, "box");
	cr_assert_eq(pt_fixture_pins_load(work, &pins, msg, sizeof msg), 0,
		     "%s", msg);
	snprintf(archive, sizeof archive, "%s/runtime.tar.gz", pt_fixtures());
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(work);
	free(work);
	free(box);
}

TestSuite(app_install, .init = setup, .fini = teardown, .timeout = 300);

/* The request `pyrt install --from-file ARCHIVE --no-baseline` makes. */
static app_request request(void)
{
	app_request req = { .command_word = "install" };
	req.box_root = box;
	req.from_file = archive;
	req.no_baseline = 1;
	return req;
}

/* prepare → execute, as the front ends run it; the pyrt_code. */
static int install(const app_request *req, app_rec *rec, atomic_int *cancel,
		   char *log_path, size_t log_len)
{
	pyrt_install_opts io;
	pyrt_install_plan plan;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_install_prepare(req, pins, pt_host_key(), &io, &plan, &err);
	cr_assert_eq(rc, 0, "prepare: %s", err.msg);
	app_front *front = app_rec_front(rec);
	cr_assert_not_null(front);
	app_install_run run = {
		.opts = req, .pins = pins, .platform_key = pt_host_key(),
		.iopts = &io, .plan = &plan, .reinstall_hint = "HINT",
		.log_path = log_path, .log_path_len = log_len,
	};
	rc = app_install_execute(&run, front, cancel);
	app_front_free(front);
	cr_assert_eq(rec->results, 1, "one outcome per run, not %d", rec->results);
	cr_assert_eq(rec->code, rc, "the outcome carries the returned code");
	return rc;
}

static int current_exists(void)
{
	return pt_sh("test -x '%s/runtime/python/current/bin/python3'", box) == 0;
}

Test(app_install, fresh_install_is_one_sentence_and_one_log)
{
	app_request req = request();
	app_rec rec = { .cancel_step = -1 };
	char log[4096] = "x";
	cr_assert_eq(install(&req, &rec, NULL, log, sizeof log), 0, "%s", rec.error);
	cr_assert(strstr(rec.summary, "installed CPython "), "%s", rec.summary);
	cr_assert(strstr(rec.summary, "; baseline skipped (--no-baseline)"),
		  "%s", rec.summary);
	cr_assert(strstr(rec.steps, "activate:end baseline:skip"), "%s", rec.steps);
	cr_assert(current_exists());
	cr_assert_neq(log[0], '\0', "the run was tee'd into an install log");
	char *text = pt_read(log);
	cr_assert_not_null(text, "%s", log);
	cr_assert(strstr(text, "result ok: installed CPython"), "%s", text);
	free(text);
}

Test(app_install, nothing_to_do_names_the_front_ends_hint_and_keeps_no_log)
{
	app_request req = request();
	app_rec rec = { .cancel_step = -1 };
	char log[4096];
	cr_assert_eq(install(&req, &rec, NULL, log, sizeof log), 0);
	memset(&rec, 0, sizeof rec);
	rec.cancel_step = -1;
	cr_assert_eq(install(&req, &rec, NULL, log, sizeof log), 0, "%s", rec.error);
	cr_assert(strstr(rec.summary, "is already installed and active at "),
		  "%s", rec.summary);
	cr_assert(strstr(rec.summary, "; nothing to do (HINT)"), "%s", rec.summary);
	cr_assert_str_eq(log, "", "nothing to do is not worth a log");
}

Test(app_install, cancel_before_activation_installs_nothing)
{
	app_request req = request();
	atomic_int cancel = 0;
	app_rec rec = { .cancel_step = PYRT_STEP_ACTIVATE,
			  .cancel_state = PYRT_STEP_BEGIN, .cancel = &cancel };
	int rc = install(&req, &rec, &cancel, NULL, 0);
	cr_assert_eq(rc, PYRT_E_CANCELLED, "rc %d: %s", rc, rec.summary);
	cr_assert_str_eq(rec.error, "cancelled");
	cr_assert_str_eq(rec.unchanged, "nothing was installed");
	cr_assert_not(current_exists());
}

/* The rule the TUI's own copy once dropped: once `current` moved, the
 * cancel finds nothing left to stop, and the install stands as a success. */
Test(app_install, cancel_after_activation_is_the_success_it_is)
{
	app_request req = request();
	atomic_int cancel = 0;
	app_rec rec = { .cancel_step = PYRT_STEP_ACTIVATE,
			  .cancel_state = PYRT_STEP_END, .cancel = &cancel };
	int rc = install(&req, &rec, &cancel, NULL, 0);
	cr_assert_eq(rc, 0, "rc %d: %s", rc, rec.error);
	cr_assert(atomic_load(&cancel), "the cancel did land");
	cr_assert(strstr(rec.summary, "installed CPython "), "%s", rec.summary);
	cr_assert(current_exists());
}

Test(app_install, a_cancel_set_before_the_run_starts_nothing)
{
	app_request req = request();
	atomic_int cancel = 1;
	app_rec rec = { .cancel_step = -1 };
	cr_assert_eq(install(&req, &rec, &cancel, NULL, 0), PYRT_E_CANCELLED);
	cr_assert_str_eq(rec.steps, "", "no step began: %s", rec.steps);
	cr_assert_not(current_exists());
}

Test(app_install, prepare_refuses_before_writing_anything)
{
	app_request req = request();
	pyrt_install_opts io;
	pyrt_install_plan plan;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = app_install_prepare(&req, pins, "plan9-mips-none", &io, &plan,
				     &err);
	cr_assert_eq(rc, PYRT_E_UNSUPPORTED);
	cr_assert(strstr(err.msg, "unsupported platform plan9-mips-none"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, pt_host_key()), "names what is supported: %s",
		  err.msg);
	req.no_baseline = 0;
	char *missing = pt_join(work, "no-such-requirements.txt");
	req.requirements = missing;
	pyrt_error err2 = PYRT_ERROR_INIT;
	cr_assert_lt(app_install_prepare(&req, pins, pt_host_key(), &io, &plan,
					 &err2), 0);
	cr_assert(strstr(err2.msg, "no-such-requirements.txt"), "%s", err2.msg);
	free(missing);
	cr_assert_eq(pt_sh("test ! -e '%s'", box), 0, "nothing was written");
}

Test(app_install, consent_fact_for_the_baseline)
{
	app_request req = request();
	char buf[512];
	app_install_baseline_fact(&req, pins, buf, sizeof buf);
	cr_assert_str_eq(buf, "skipped (--no-baseline)");
	req.no_baseline = 0;
	req.wheelhouse = "/srv/wheels";
	app_install_baseline_fact(&req, pins, buf, sizeof buf);
	cr_assert(strstr(buf, "with the runtime's own pip, from the wheelhouse /srv/wheels"),
		  "%s", buf);
}

/* The consent's rows: the same labels in the same order for every front
 * end, each value whole, and the cases a front end used to word its own
 * way (a local file, a pin without a size, a reinstall, little room). */
Test(app_install, consent_facts_are_whole_and_in_order)
{
	app_request req = request();
	req.from_file = NULL;
	pyrt_install_plan plan = {
		.version = "3.12.7", .build = "20241016",
		.platform = "x86_64-unknown-linux-gnu",
		.url = "https://mirror.example/cpython.tar.gz",
		.host = "mirror.example", .size = 40u << 20,
		.destination = "/opt/agent/runtime/python/current",
		.free_bytes = 100u << 20, .already_current = 1,
	};
	memset(plan.sha256, 'a', 64);
	app_install_facts *f = malloc(sizeof *f);
	cr_assert_not_null(f);
	app_install_facts_fill(&req, pins, &plan, f);
	static const char *const order[] = {
		"Runtime", "Platform", "Download", "Source", "Destination",
		"SHA-256", "Free disk", "Baseline",
	};
	for (int i = 0; i < APP_FACT_COUNT; i++)
		cr_assert_str_eq(f->label[i], order[i]);
	cr_assert(strstr(f->value[APP_FACT_RUNTIME], "3.12.7 (build 20241016) (reinstall)"),
		  "%s", f->value[APP_FACT_RUNTIME]);
	cr_assert_str_eq(f->value[APP_FACT_SOURCE], plan.url, "%s", f->value[APP_FACT_SOURCE]);
	cr_assert_str_eq(f->value[APP_FACT_DESTINATION], plan.destination);
	cr_assert_eq(strlen(f->value[APP_FACT_SHA256]), 64, "the whole digest");
	cr_assert_str_eq(f->value[APP_FACT_DOWNLOAD], "40.0 MiB");
	cr_assert(f->free_disk_low, "100 MiB free for a 40 MiB download");
	cr_assert_str_eq(f->value[APP_FACT_BASELINE], "skipped (--no-baseline)");

	req.from_file = "/srv/cpython.tar.gz";
	plan.size = 0;
	plan.free_bytes = 0;
	app_install_facts_fill(&req, pins, &plan, f);
	cr_assert_str_eq(f->value[APP_FACT_SOURCE], "/srv/cpython.tar.gz (local file)");
	/* Issue 29.8: honest, not "unknown" (the built-in pins give none). */
	cr_assert_str_eq(f->value[APP_FACT_DOWNLOAD], "size not pinned (the pins give no size:)");
	cr_assert_str_eq(f->value[APP_FACT_FREE_DISK], "unknown");
	cr_assert_not(f->free_disk_low);
	free(f);
}

/* `pyrt baseline` with no runtime: refused, and said the same way by
 * every front end. */
Test(app_install, baseline_without_a_runtime_is_refused)
{
	app_request req = { .command_word = "baseline", .box_root = box };
	app_rec rec = { .cancel_step = -1 };
	app_front *front = app_rec_front(&rec);
	int rc = app_baseline_execute(&req, pins, NULL, front, NULL);
	app_front_free(front);
	cr_assert_eq(rc, PYRT_E_NOT_READY, "rc %d: %s", rc, rec.error);
	cr_assert_eq(rec.results, 1);
	cr_assert_str_eq(rec.command, "baseline");
	cr_assert_neq(rec.error[0], '\0');
	cr_assert_str_eq(rec.unchanged, "", "a refusal changed nothing to name");
}

Test(app_install, baseline_cancelled_before_it_starts)
{
	app_request req = { .command_word = "baseline", .box_root = box };
	atomic_int cancel = 1;
	app_rec rec = { .cancel_step = -1 };
	app_front *front = app_rec_front(&rec);
	int rc = app_baseline_execute(&req, pins, NULL, front, &cancel);
	app_front_free(front);
	cr_assert_eq(rc, PYRT_E_CANCELLED);
	cr_assert_str_eq(rec.unchanged,
			 "the runtime itself stays active (a baseline failure never deactivates it)");
}
