/* ctest: test_install */
/*
 * The install pipeline end to end through core: a real runtime archive
 * (Debian's python3.11 in the install_only layout) over loopback HTTPS.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/runtime/install.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"
#include "support.h"

static char *work, *box;
static pt_mirror mirror;
static char www[PATH_MAX];

static void setup(void)
{
	const char *fx = pt_fixtures();
	snprintf(www, sizeof www, "%s/www", fx);
	work = pt_tmpdir("install");
	box = pt_join(work, "box");
	pt_mirror_start(&mirror, www);
}

static void teardown(void)
{
	pt_mirror_stop(&mirror);
	pt_rmtree(work);
	free(work);
	free(box);
}

static pyrt_pins *load_pins(const char *path)
{
	pyrt_pins *pins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&pins, path, &err), 0, "%s", err.msg);
	return pins;
}

/* Pins whose URL points straight at the mirror, with an optional fault. */
static pyrt_pins *mirror_pins(const char *file, const char *query,
			      const char *version, const char *sha)
{
	char url[512];
	snprintf(url, sizeof url, "%s/pbs/fixture/%s%s", mirror.base, file,
		 query ? query : "");
	char *path = pt_fixture_pins(work, "pins.yaml", url, version, sha);
	pyrt_pins *pins = load_pins(path);
	free(path);
	return pins;
}

static pyrt_install_opts opts_for(const pyrt_pins *pins)
{
	static char ca[PATH_MAX];
	snprintf(ca, sizeof ca, "%s/ca.pem", pt_fixtures());
	pyrt_install_opts o = PYRT_INSTALL_OPTS_INIT;
	o.pins = pins;
	o.platform_key = pt_host_key();
	o.cacert = ca;
	o.fetch_attempts = 2;
	return o;
}

static void current_target(char *buf, size_t len)
{
	char link[PATH_MAX];
	snprintf(link, sizeof link, "%s/runtime/python/current", box);
	ssize_t n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static int staging_entries(void)
{
	return pt_sh("test -z \"$(ls -A '%s/runtime/python/staging' 2>/dev/null)\"",
		     box) == 0 ? 0 : 1;
}

/* pyrt_install_run as app/ calls it: on the box opened once, here. */
static int install_at(const char *root, const pyrt_install_opts *o,
		      const pyrt_events *ev, pyrt_install_result *res,
		      pyrt_error *err)
{
	pyrt_box *b = NULL;
	int rc = pyrt_box_open(&b, root, 0, err);
	if (!rc)
		rc = pyrt_install_run(b, o, ev, res, err);
	pyrt_box_free(b);
	return rc;
}

static void install_ok(const pyrt_install_opts *o, pyrt_install_result *res)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	cr_assert_eq(install_at(box, o, &ev, res, &err), 0, "%s", err.msg);
}

TestSuite(install, .init = setup, .fini = teardown, .timeout = 300);

Test(install, fresh_install_activates_a_working_interpreter)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, &ev, &res, &err), 0, "%s", err.msg);
	cr_assert_not(res.already_current);
	for (int s = PYRT_STEP_LOCK; s <= PYRT_STEP_ACTIVATE; s++)
		cr_assert_eq(rec.steps_ended[s], 1, "step %d", s);
	cr_assert_gt(rec.progress_calls, 0);

	/* The managed interpreter runs from current, relocated. */
	cr_assert_eq(pt_sh("'%s/runtime/python/current/bin/python3' -I -c "
			   "'import sys, ssl, json; "
			   "assert sys.prefix.startswith(\"%s\"), sys.prefix'",
			   box, box), 0);
	pyrt_status st;
	cr_assert_eq(pt_status_read(box, pins, pt_host_key(), 1, &st, &err), 0);
	cr_assert_eq(st.state, PYRT_STATE_READY, "%s", st.message);
	cr_assert_str_eq(st.marker.sha256, res.sha256);
	cr_assert_gt(st.marker.files, 1000);
	/* The download is consumed, staging is empty, nothing left over. */
	cr_assert_eq(staging_entries(), 0);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/downloads')\"",
			   box), 0);
	/* The runtime tree is every user's to read (like /usr), private
	 * state is 0700. */
	struct stat sb;
	char *p = pt_join(box, "runtime/python/installs");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0755);
	free(p);
	p = pt_join(box, "runtime/python/downloads");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0700);
	free(p);
	pyrt_pins_free(pins);
}

Test(install, second_install_of_the_same_pin_is_a_no_op)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	install_ok(&o, &res);
	char before[PATH_MAX], after[PATH_MAX];
	current_target(before, sizeof before);
	install_ok(&o, &res);
	cr_assert(res.already_current);
	current_target(after, sizeof after);
	cr_assert_str_eq(before, after);
	pyrt_pins_free(pins);
}

Test(install, tampered_archive_is_refused_and_current_unchanged)
{
	pyrt_pins *good = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	pyrt_install_opts o = opts_for(good);
	pyrt_install_result res;
	install_ok(&o, &res);
	char before[PATH_MAX], after[PATH_MAX];
	current_target(before, sizeof before);

	pyrt_pins *bad = mirror_pins("tampered.tar.gz", NULL, NULL, NULL);
	o = opts_for(bad);
	o.force = 1;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_VERIFY);
	cr_assert(strstr(err.msg, "expected"), "%s", err.msg);
	cr_assert(strstr(err.msg, pyrt_pins_archive_at(bad, 0)->sha256), "%s",
		  err.msg);
	current_target(after, sizeof after);
	cr_assert_str_eq(before, after);
	cr_assert_eq(staging_entries(), 0);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/downloads')\"",
			   box), 0, "the bad download must be deleted");
	pyrt_pins_free(good);
	pyrt_pins_free(bad);
}

Test(install, wrong_interpreter_version_is_never_activated)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, "3.12.99", NULL);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_INTERPRETER);
	cr_assert(strstr(err.msg, "3.12.99"), "%s", err.msg);
	char target[PATH_MAX];
	current_target(target, sizeof target);
	cr_assert_str_eq(target, "");
	cr_assert_eq(staging_entries(), 0);
	pyrt_pins_free(pins);
}

Test(install, interrupted_download_resumes_with_a_range_request)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	const pyrt_pin_archive *pin = pyrt_pins_archive_at(pins, 0);
	/* A partial file as an interrupted run leaves it. */
	pt_sh("mkdir -p '%s/runtime/python/downloads' && head -c 3000000 "
	      "'%s/pbs/fixture/runtime.tar.gz' > "
	      "'%s/runtime/python/downloads/%.16s.partial'",
	      box, www, box, pin->sha256);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	install_ok(&o, &res);
	char *log = pt_read(mirror.log);
	cr_assert(log && strstr(log, "bytes=3000000-"), "no Range request: %s",
		  log ? log : "");
	free(log);
	cr_assert_str_eq(res.sha256, pin->sha256);
	pyrt_pins_free(pins);
}

static int count_in(const char *path, const char *needle)
{
	char *s = pt_read(path);
	int n = 0;
	for (char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(s);
	return n;
}

/* A partial file whose head is not the archive's, as an older run or a
 * proxy may have left it. */
static void bad_head_partial(const pyrt_pin_archive *pin, long long bytes)
{
	cr_assert_eq(pt_sh("mkdir -p '%s/runtime/python/downloads' && "
			   "head -c %lld /dev/zero > "
			   "'%s/runtime/python/downloads/%.16s.partial'",
			   box, bytes, box, pin->sha256), 0);
}

/*
 * Finding 4: a resumed download that fails the digest is fetched once more
 * from byte 0 in the same run, instead of failing (exit 5) and leaving the
 * second run to start over.
 */
Test(install, resumed_download_with_a_bad_head_is_fetched_again)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	const pyrt_pin_archive *pin = pyrt_pins_archive_at(pins, 0);
	bad_head_partial(pin, 3000);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, &ev, &res, &err), 0, "%s", err.msg);
	cr_assert_str_eq(res.sha256, pin->sha256);
	cr_assert_eq(count_in(mirror.log, "range=bytes=3000-"), 1);
	cr_assert_eq(count_in(mirror.log, "GET "), 2);
	cr_assert_eq(count_in(mirror.log, "range=-"), 1, "no fetch from zero");
	cr_assert(strstr(rec.log, "downloading it again from the start"), "%s",
		  rec.log);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/downloads')\"",
			   box), 0);
	pyrt_pins_free(pins);
}

/* Once, not more: a fresh copy that fails too is a verification error. */
Test(install, resumed_mismatch_is_retried_once_then_refused)
{
	const char *wrong =
		"0000000000000000000000000000000000000000000000000000000000000000";
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, wrong);
	const pyrt_pin_archive *pin = pyrt_pins_archive_at(pins, 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/runtime/python/downloads' && head -c "
			   "3000000 '%s/pbs/fixture/runtime.tar.gz' > "
			   "'%s/runtime/python/downloads/%.16s.partial'",
			   box, www, box, pin->sha256), 0);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_VERIFY,
		     "%s", err.msg);
	cr_assert(strstr(err.msg, wrong), "%s", err.msg);
	cr_assert_eq(count_in(mirror.log, "GET "), 2);
	cr_assert_eq(count_in(mirror.log, "range=bytes=3000000-"), 1);
	cr_assert_eq(staging_entries(), 0);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/downloads')\"",
			   box), 0, "the bad download must be deleted");

	/* Not resumed: a mismatch is final at once. */
	pt_write(mirror.log, "");
	pyrt_error_clear(&err);
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_VERIFY,
		     "%s", err.msg);
	cr_assert_eq(count_in(mirror.log, "GET "), 1);
	pyrt_pins_free(pins);
}

/* The captive portal end to end through core: exit 4, and the next run
 * needs no third one. */
Test(install, captive_portal_leaves_nothing_to_resume)
{
	pyrt_pins *portal = mirror_pins("runtime.tar.gz", "?fault=portal", NULL,
					NULL);
	pyrt_install_opts o = opts_for(portal);
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_NETWORK,
		     "%s", err.msg);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/downloads')\"",
			   box), 0, "the portal page was kept");
	pyrt_pins *good = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	o = opts_for(good);
	pt_write(mirror.log, "");
	install_ok(&o, &res);
	cr_assert_eq(count_in(mirror.log, "GET "), 1);
	cr_assert_eq(count_in(mirror.log, "range=-"), 1);
	pyrt_pins_free(portal);
	pyrt_pins_free(good);
}

Test(install, cancel_mid_download_keeps_partial_and_current)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", "?fault=slow:400000",
				      NULL, NULL);
	pyrt_install_opts o = opts_for(pins);
	pyrt_install_result res;
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	rec.cancel_after_progress = 3;
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, &ev, &res, &err), PYRT_E_CANCELLED,
		     "%s", err.msg);
	char target[PATH_MAX];
	current_target(target, sizeof target);
	cr_assert_str_eq(target, "");
	cr_assert_eq(staging_entries(), 0);
	cr_assert_eq(pt_sh("test -s '%s/runtime/python/downloads/%.16s.partial'",
			   box, pyrt_pins_archive_at(pins, 0)->sha256), 0,
		     "the partial download is kept for resume");
	pyrt_pins_free(pins);
}

Test(install, local_archive_force_rollback_and_uninstall)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	char archive[sizeof www + 32];
	snprintf(archive, sizeof archive, "%s/pbs/fixture/runtime.tar.gz", www);
	pyrt_install_opts o = opts_for(pins);
	o.from_file = archive;
	pyrt_install_result res;
	install_ok(&o, &res);
	char first[PATH_MAX], second[PATH_MAX], now[PATH_MAX];
	current_target(first, sizeof first);
	sleep(1); /* install ids carry a timestamp */
	o.force = 1;
	install_ok(&o, &res);
	current_target(second, sizeof second);
	cr_assert_str_neq(first, second);
	cr_assert_neq(res.previous[0], '\0', "the old install is kept");

	pyrt_error err = PYRT_ERROR_INIT;
	o.force = 0;
	o.no_wait = 1;
	pyrt_box *bx = NULL;
	cr_assert_eq(pyrt_box_open(&bx, box, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_install_rollback(bx, &o, NULL, &err), 0, "%s",
		     err.msg);
	current_target(now, sizeof now);
	cr_assert_str_eq(now, first);
	cr_assert_eq(pt_sh("'%s/runtime/python/current/bin/python3' -I -c pass",
			   box), 0);

	cr_assert_eq(pyrt_install_uninstall(bx, 1, NULL, &err), 0, "%s",
		     err.msg);
	pyrt_box_free(bx);
	pyrt_status st;
	cr_assert_eq(pt_status_read(box, pins, pt_host_key(), 0, &st, &err), 0);
	cr_assert_eq(st.state, PYRT_STATE_NOT_PROVISIONED);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/installs' "
			   "2>/dev/null)\"", box), 0);
	pyrt_pins_free(pins);
}

Test(install, unpinned_platform_and_busy_box_are_refused)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	pyrt_install_opts o = opts_for(pins);
	o.platform_key = "linux-sparc64-gnu";
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_UNSUPPORTED);
	cr_assert(strstr(err.msg, pt_host_key()), "%s", err.msg);

	o = opts_for(pins);
	o.no_wait = 1;
	pt_sh("mkdir -p '%s/runtime/python'", box);
	char *lockpath = pt_join(box, "runtime/python/lock");
	pyrt_lock *lock = NULL;
	/* flock locks belong to the open file, so a second open in this
	 * process conflicts just like another process would. */
	cr_assert_eq(pyrt_lock_acquire(&lock, lockpath, 0, NULL, NULL), 0);
	pyrt_error_clear(&err);
	cr_assert_eq(install_at(box, &o, NULL, &res, &err), PYRT_E_BUSY);
	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	cr_assert(strstr(err.msg, pid), "%s", err.msg);
	pyrt_lock_release(lock);
	free(lockpath);
	pyrt_pins_free(pins);
}

Test(install, unsafe_archive_is_refused_and_staging_removed)
{
	char archive[PATH_MAX];
	snprintf(archive, sizeof archive, "%s/evil.tar.gz", work);
	cr_assert_eq(pt_sh("python3 - '%s' <<'PY'\n"
			   "import io, sys, tarfile\n"
			   "with tarfile.open(sys.argv[1], 'w:gz') as t:\n"
			   "    for name in ('python/bin/python3', 'python/../../escape.txt'):\n"
			   "        data = b'#!/bin/sh\\n'\n"
			   "        info = tarfile.TarInfo(name); info.size = len(data)\n"
			   "        info.mode = 0o755\n"
			   "        t.addfile(info, io.BytesIO(data))\n"
			   "PY", archive), 0);
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "sha256sum '%s' | cut -c1-64 > '%s/evil.sha'",
		 archive, work);
	cr_assert_eq(pt_sh("%s", cmd), 0);
	char *shapath = pt_join(work, "evil.sha");
	char *sha = pt_read(shapath);
	sha[64] = '\0';
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, sha);
	pyrt_install_opts o = opts_for(pins);
	/* The pin's size is the fixture's; this archive's differs. */
	o.from_file = archive;
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = install_at(box, &o, NULL, &res, &err);
	cr_assert_eq(rc, PYRT_E_VERIFY, "size is checked too: %s", err.msg);

	char *path = pt_fixture_pins(work, "evil.yaml", "https://x.invalid/a/b",
				     NULL, sha);
	pt_sh("sed -i '/size:/d' '%s'", path);
	pyrt_pins *pins2 = load_pins(path);
	o = opts_for(pins2);
	o.from_file = archive;
	pyrt_error_clear(&err);
	rc = install_at(box, &o, NULL, &res, &err);
	cr_assert_eq(rc, PYRT_E_UNSAFE, "%s", err.msg);
	cr_assert(strncmp(err.msg, "archive refused: ", 17) == 0, "%s", err.msg);
	cr_assert(strstr(err.msg, "escape.txt"), "%s", err.msg);
	cr_assert_eq(staging_entries(), 0);
	cr_assert_neq(pt_sh("find '%s' -name escape.txt | grep -q .", work), 0);
	pyrt_pins_free(pins);
	pyrt_pins_free(pins2);
	free(path);
	free(sha);
	free(shapath);
}

/* A box root of exactly len bytes under work: folders of 200 bytes, the
 * last one shorter; all but the last made 0700.  malloc'd. */
static char *deep_box(size_t len)
{
	size_t at = strlen(work);
	cr_assert_lt(at + 2, len);
	char *root = malloc(len + 1);
	cr_assert_not_null(root);
	memcpy(root, work, at);
	while (at < len) {
		size_t n = len - at - 1 < 200 ? len - at - 1 : 200;
		root[at++] = '/';
		memset(root + at, 'd', n);
		at += n;
		if (at < len) {
			root[at] = '\0';
			cr_assert_eq(mkdir(root, 0700), 0, "%s", root);
		}
	}
	root[len] = '\0';
	return root;
}

/* Near PATH_MAX the box opens and the archive copy fits, but its
 * staging/<install id> does not: refused by name, never made under a
 * cut name (the old code made, extracted into and ran from one). */
Test(install, staging_path_too_long_is_refused_not_cut)
{
	pyrt_pins *pins = mirror_pins("runtime.tar.gz", NULL, NULL, NULL);
	char archive[sizeof www + 32];
	snprintf(archive, sizeof archive, "%s/pbs/fixture/runtime.tar.gz", www);
	/* "/runtime/python/staging/" + an id of 40 bytes or more */
	char *root = deep_box(PATH_MAX - 1 - 24 - 40);
	pyrt_install_opts o = opts_for(pins);
	o.from_file = archive;
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = install_at(root, &o, NULL, &res, &err);
	cr_assert_eq(rc, PYRT_E_USAGE, "%d: %s", rc, err.msg);
	cr_assert(strstr(err.msg, "path too long"), "%s", err.msg);
	cr_assert(strstr(err.msg, "/runtime/python/staging/"), "%s", err.msg);
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s/runtime/python/staging')\"",
			   root), 0, "nothing made under a cut name");
	char link[PATH_MAX + 32];
	snprintf(link, sizeof link, "%s/runtime/python/current", root);
	cr_assert_neq(access(link, F_OK), 0);
	free(root);
	pyrt_pins_free(pins);
}
