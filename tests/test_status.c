/* ctest: test_status */
/* status: each state from a box laid out by hand (no download needed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"
#include "support.h"

#define KEY "linux-x86_64-gnu"
#define SHA "5acfa3e9ba26b51ae161c83aff278da915b590d22373a424b2ba55b8afe91fcc"

static char *box;
static pyrt_pins *pins;

static void setup(void)
{
	box = pt_tmpdir("status");
	const char *doc = "schema: 1\n"
			  "runtime:\n"
			  "  implementation: cpython\n"
			  "  version: \"3.12.14\"\n"
			  "  build: \"20260814\"\n"
			  "archives:\n"
			  "  " KEY ":\n"
			  "    url: https://example.invalid/a/b.tar.gz\n"
			  "    sha256: " SHA "\n"
			  "    size: 36700160\n"
			  "baseline: []\n";
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_parse(&pins, doc, strlen(doc), "test", &err), 0,
		     "%s", err.msg);
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(box);
	free(box);
}

/* Lay out installs/<id>/python with an interpreter script and a marker. */
static void make_install(const char *id, const char *script_version,
			 const char *platform)
{
	pt_sh("mkdir -p '%s/runtime/python/installs/%s/python/bin'", box, id);
	char path[4096];
	snprintf(path, sizeof path,
		 "%s/runtime/python/installs/%s/python/bin/python3", box, id);
	char script[256];
	snprintf(script, sizeof script, "#!/bin/sh\necho %s\n", script_version);
	pt_write(path, script);
	chmod(path, 0755);
	pyrt_marker m;
	memset(&m, 0, sizeof m);
	m.schema = 1;
	strcpy(m.implementation, "cpython");
	strcpy(m.version, "3.12.14");
	strcpy(m.build, "20260814");
	snprintf(m.platform, sizeof m.platform, "%s", platform);
	strcpy(m.sha256, SHA);
	strcpy(m.pins, "builtin");
	snprintf(path, sizeof path, "%s/runtime/python/installs/%s", box, id);
	pt_lay_record(path, &m);
	pt_sh("ln -sfn installs/%s/python '%s/runtime/python/current'", id, box);
}

static pyrt_status read_status(const char *key, int deep)
{
	pyrt_status st;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pt_status_read(box, pins, key, deep, &st, &err), 0, "%s",
		     err.msg);
	return st;
}

TestSuite(status, .init = setup, .fini = teardown);

Test(status, empty_box_is_not_provisioned_and_writes_nothing)
{
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_NOT_PROVISIONED);
	cr_assert(strstr(st.message, "run \"pyrt install\" (~35.0 MiB, one time)"),
		  "%s", st.message);
	char *rt = pt_join(box, "runtime");
	cr_assert_neq(access(rt, F_OK), 0, "status must not create the box");
	free(rt);
	cr_assert_str_eq(pyrt_state_name(st.state), "not_provisioned");
}

Test(status, unpinned_platform_is_unsupported_and_lists_keys)
{
	pyrt_status st = read_status("linux-riscv64-gnu", 0);
	cr_assert_eq(st.state, PYRT_STATE_UNSUPPORTED);
	cr_assert(strstr(st.message, "linux-riscv64-gnu"), "%s", st.message);
	cr_assert(strstr(st.message, KEY), "%s", st.message);
}

Test(status, complete_install_is_ready)
{
	make_install("a", "3.12.14", KEY);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_READY, "%s", st.message);
	cr_assert(st.have_marker);
	cr_assert_str_eq(st.marker.version, "3.12.14");
	cr_assert(strstr(st.interpreter, "/runtime/python/current/bin/python3"));
}

Test(status, current_install_has_no_update)
{
	make_install("a", "3.12.14", KEY);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_READY, "%s", st.message);
	cr_assert_not(st.update_available, "%s", st.message);
	cr_assert_eq(st.update_version[0], '\0');
}

/* Pins that moved on (another build, or the same build re-rolled with
 * another digest): still ready, and status says what install would take,
 * so that a check mode can tell without installing. */
static void expect_update(const char *version, const char *build,
			  const char *sha)
{
	char doc[1024];
	snprintf(doc, sizeof doc, "schema: 1\nruntime:\n"
		 "  implementation: cpython\n  version: \"%s\"\n"
		 "  build: \"%s\"\narchives:\n  " KEY ":\n"
		 "    url: https://example.invalid/a/c.tar.gz\n"
		 "    sha256: %s\nbaseline: []\n", version, build, sha);
	pyrt_pins *moved = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_parse(&moved, doc, strlen(doc), "moved", &err),
		     0, "%s", err.msg);
	pyrt_status st;
	cr_assert_eq(pt_status_read(box, moved, KEY, 0, &st, &err), 0, "%s",
		     err.msg);
	pyrt_pins_free(moved);
	cr_assert_eq(st.state, PYRT_STATE_READY, "%s", st.message);
	cr_assert(st.update_available, "%s", st.message);
	cr_assert_str_eq(st.update_version, version);
	cr_assert_str_eq(st.update_build, build);
	cr_assert_str_eq(st.update_sha256, sha);
	cr_assert(strstr(st.message, "run \"pyrt install\" to update"), "%s",
		  st.message);
}

Test(status, pins_with_another_build_offer_an_update)
{
	make_install("a", "3.12.14", KEY);
	expect_update("3.12.14", "20261001", SHA);
}

Test(status, pins_with_another_digest_offer_an_update)
{
	make_install("a", "3.12.14", KEY);
	expect_update("3.12.14", "20260814", "00000000000000000000000000000000"
		      "00000000000000000000000000000000");
}

Test(status, deep_check_catches_a_wrong_interpreter)
{
	make_install("a", "3.9.1", KEY);
	cr_assert_eq(read_status(KEY, 0).state, PYRT_STATE_READY);
	pyrt_status st = read_status(KEY, 1);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "interpreter");
	cr_assert(strstr(st.message, "3.9.1"), "%s", st.message);
}

Test(status, dangling_current_is_broken)
{
	make_install("a", "3.12.14", KEY);
	pt_sh("rm -rf '%s/runtime/python/installs/a'", box);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "current");
	cr_assert(strstr(st.message, "pyrt install --force"), "%s", st.message);
}

Test(status, missing_marker_is_broken)
{
	make_install("a", "3.12.14", KEY);
	pt_sh("rm '%s/runtime/python/installs/a/marker.json'", box);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "marker");
}

Test(status, missing_interpreter_is_broken)
{
	make_install("a", "3.12.14", KEY);
	pt_sh("rm '%s/runtime/python/installs/a/python/bin/python3'", box);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "interpreter");
}

Test(status, install_for_another_platform_is_broken)
{
	make_install("a", "3.12.14", "linux-aarch64-gnu");
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "platform");
}

Test(status, foreign_link_target_is_broken)
{
	pt_sh("mkdir -p '%s/runtime/python' '%s/elsewhere/python'", box, box);
	pt_sh("ln -s ../../elsewhere/python '%s/runtime/python/current'", box);
	pyrt_status st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_BROKEN);
	cr_assert_str_eq(st.failed_check, "current");
}

/* A child holding the box lock, as an installer does; 0 when it failed. */
static pid_t hold_lock(void)
{
	char *lockpath = pt_join(box, "runtime/python/lock");
	pid_t child = fork();
	if (child == 0) {
		pyrt_lock *lock = NULL;
		if (pyrt_lock_acquire(&lock, lockpath, 0, NULL, NULL) != 0)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	int held = 0;
	for (int i = 0; i < 250 && !held; i++) {
		pyrt_lock_holder holder;
		held = pyrt_lock_probe(lockpath, &holder, NULL) == 1 &&
		       holder.pid == child;
		if (!held)
			usleep(20000);
	}
	free(lockpath);
	if (!held) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return 0;
	}
	return child;
}

static void release_lock(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* An upgrade over a ready runtime: it stays ready (exit 0 for the CLI), and
 * says an upgrade runs and who runs it. */
Test(status, held_lock_over_a_ready_runtime_is_ready_with_upgrade)
{
	make_install("a", "3.12.14", KEY);
	pid_t child = hold_lock();
	cr_assert(child > 0, "the child never held the lock");
	pyrt_status st = read_status(KEY, 0);
	release_lock(child);
	cr_assert_eq(st.state, PYRT_STATE_READY, "%s: %s",
		     pyrt_state_name(st.state), st.message);
	cr_assert(st.upgrade_in_progress);
	cr_assert_eq(st.installer_pid, child);
	cr_assert(strstr(st.message, "upgrade is in progress"), "%s",
		  st.message);

	st = read_status(KEY, 0);
	cr_assert_eq(st.state, PYRT_STATE_READY);
	cr_assert_not(st.upgrade_in_progress);
	cr_assert_eq(st.installer_pid, 0);
}

/* A broken runtime is no usable runtime: installing while the lock is
 * held, never ready. */
Test(status, held_lock_over_a_broken_runtime_is_installing)
{
	make_install("a", "3.12.14", KEY);
	pt_sh("rm '%s/runtime/python/installs/a/marker.json'", box);
	pid_t child = hold_lock();
	cr_assert(child > 0, "the child never held the lock");
	pyrt_status st = read_status(KEY, 0);
	release_lock(child);
	cr_assert_eq(st.state, PYRT_STATE_INSTALLING, "%s", st.message);
	cr_assert_not(st.upgrade_in_progress);
	cr_assert_eq(st.installer_pid, child);
}

Test(status, held_lock_is_installing)
{
	pt_sh("mkdir -p '%s/runtime/python'", box);
	char *lockpath = pt_join(box, "runtime/python/lock");
	pid_t child = fork();
	if (child == 0) {
		pyrt_lock *lock = NULL;
		if (pyrt_lock_acquire(&lock, lockpath, 0, NULL, NULL) != 0)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	/* Wait for the child to hold it and to have recorded itself (the
	 * holder line is written just after the flock succeeds). */
	int held = 0;
	pyrt_lock_holder holder;
	for (int i = 0; i < 250 && !held; i++) {
		memset(&holder, 0, sizeof holder);
		held = pyrt_lock_probe(lockpath, &holder, NULL) == 1 &&
		       holder.pid == child;
		if (!held)
			usleep(20000);
	}
	pyrt_status st = read_status(KEY, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	free(lockpath);
	cr_assert(held);
	cr_assert_eq(st.state, PYRT_STATE_INSTALLING, "%s", st.message);
	cr_assert_eq(st.installer_pid, child);
}
