/* ctest: test_wheellock */
/* Tests for core/pkgs/wheellock.c: making a lock takes the gate in core
 * (issue 26, door 2), whatever front end asks. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/pkgs/wheellock.h"
#include "support.h"

static char *tmp;
static pyrt_pins *pins;

static void setup(void)
{
	tmp = pt_tmpdir("wheellock");
	char msg[512];
	cr_assert_eq(pt_fixture_pins_load(tmp, &pins, msg, sizeof msg), 0,
		     "%s", msg);
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(wheellock, .init = setup, .fini = teardown);

/* A wheel whose bytes are never read by the cases below: the gate comes
 * first, and a trusted folder's wheel is hashed. */
static char *wheelhouse(const char *name, mode_t mode)
{
	char *dir = pt_join(tmp, name);
	cr_assert_eq(mkdir(dir, 0755), 0);
	char *whl = pt_join(dir, "demo-1.0-py3-none-any.whl");
	pt_write(whl, "not really a zip, and not read by the gate\n");
	free(whl);
	cr_assert_eq(chmod(dir, mode), 0);
	return dir;
}

Test(wheellock, make_refuses_a_folder_others_can_write)
{
	char *dir = wheelhouse("open", 0777);
	size_t count = 9, skipped = 9;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_wheellock_make(pins, pt_host_key(), dir, &count,
					 &skipped, &err),
		     PYRT_E_UNTRUSTED, "%s", err.msg);
	cr_expect(strstr(err.msg, "--wheelhouse"), "%s", err.msg);
	cr_expect_eq(count, 0);
	free(dir);
}

Test(wheellock, make_refuses_a_wheel_others_can_write)
{
	char *dir = wheelhouse("onewheel", 0755);
	char *whl = pt_join(dir, "demo-1.0-py3-none-any.whl");
	cr_assert_eq(chmod(whl, 0666), 0);
	size_t count = 0, skipped = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_wheellock_make(pins, pt_host_key(), dir, &count,
					 &skipped, &err),
		     PYRT_E_UNTRUSTED, "%s", err.msg);
	cr_expect(strstr(err.msg, "demo-1.0-py3-none-any.whl"), "%s", err.msg);
	free(whl);
	free(dir);
}

Test(wheellock, make_hashes_a_trusted_folder)
{
	char *dir = wheelhouse("mine", 0755);
	size_t count = 0, skipped = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_wheellock_make(pins, pt_host_key(), dir, &count,
					 &skipped, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 1);
	free(dir);
}
