/* ctest: test_box */
/* core/runtime/box: the layout's paths, opening without writing, the
 * default root, what `current` may point to, and the one way to the active
 * interpreter (pyrt_box_active_interpreter) that pip and smoke share. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/util/trust.h"
#include "support.h"

static char *work;

static void setup(void)
{
	work = pt_tmpdir("box");
}

static void teardown(void)
{
	pt_rmtree(work);
	free(work);
}

TestSuite(box, .init = setup, .fini = teardown);

/* The box at work/name, opened (made with create). */
static pyrt_box *open_box(const char *name, int create)
{
	char root[PATH_MAX];
	snprintf(root, sizeof root, "%s/%s", work, name);
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_open(&box, root, create, &err), 0, "%s",
		     err.msg);
	return box;
}

/* A box with installs/<id>/python made 0755 and current pointing at it. */
static pyrt_box *box_with_install(const char *id)
{
	pyrt_box *box = open_box("b", 1);
	cr_assert_eq(pt_sh("umask 022 && mkdir -p '%s/%s/python/bin' && "
			   "ln -s 'installs/%s/python' '%s'",
			   pyrt_box_installs_dir(box), id, id,
			   pyrt_box_current(box)), 0);
	return box;
}

Test(box, open_without_create_writes_nothing_and_names_the_layout)
{
	pyrt_box *box = open_box("none", 0);
	pyrt_error err = PYRT_ERROR_INIT;
	const char *root = pyrt_box_root(box);
	cr_assert_neq(access(root, F_OK), 0, "nothing may be created");
	char want[PATH_MAX + 32];
	snprintf(want, sizeof want, "%s/runtime/python", root);
	cr_assert_str_eq(pyrt_box_runtime_dir(box), want);
	snprintf(want, sizeof want, "%s/runtime/python/current", root);
	cr_assert_str_eq(pyrt_box_current(box), want);
	snprintf(want, sizeof want, "%s/plugins", root);
	cr_assert_str_eq(pyrt_box_plugins_dir(box), want);
	cr_assert_eq(pyrt_box_shared(box), 0);
	cr_assert_eq(pyrt_box_check_change(box, "uninstall", &err), 0);
	pyrt_box_free(box);
	pyrt_box_free(NULL);
}

Test(box, open_with_create_keeps_private_state_private)
{
	pyrt_box *box = open_box("made", 1);
	struct stat st;
	cr_assert_eq(stat(pyrt_box_logs_dir(box), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700, "logs are %o", st.st_mode & 0777);
	cr_assert_eq(stat(pyrt_box_installs_dir(box), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0755, "installs are %o",
		     st.st_mode & 0777);
	pyrt_box_free(box);
}

Test(box, default_root_from_xdg_then_home)
{
	char buf[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	setenv("XDG_DATA_HOME", "/x/data", 1);
	setenv("HOME", "/h", 1);
	cr_assert_eq(pyrt_box_default_root(buf, sizeof buf, &err), 0);
	cr_assert_str_eq(buf, "/x/data/pyrt");
	setenv("XDG_DATA_HOME", "relative", 1);
	cr_assert_eq(pyrt_box_default_root(buf, sizeof buf, &err), 0);
	cr_assert_str_eq(buf, "/h/.local/share/pyrt");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "", 1);
	cr_assert_eq(pyrt_box_default_root(buf, sizeof buf, &err),
		     PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "--box-root"), "%s", err.msg);
	cr_assert_eq(pyrt_box_default_root(buf, 4, &err), PYRT_E_USAGE);
}

Test(box, current_must_point_into_installs)
{
	pyrt_box *box = box_with_install("a1");
	char dir[PATH_MAX], want[PATH_MAX + 32];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_link_install(box, pyrt_box_current(box), dir,
					   sizeof dir, &err), 0, "%s", err.msg);
	snprintf(want, sizeof want, "%s/installs/a1", pyrt_box_runtime_dir(box));
	cr_assert_str_eq(dir, want);
	cr_assert_eq(pt_sh("ln -sfn /usr '%s'", pyrt_box_current(box)), 0);
	cr_assert_eq(pyrt_box_link_install(box, pyrt_box_current(box), dir,
					   sizeof dir, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "not to an install pyrt made"), "%s", err.msg);
	cr_assert_eq(pt_sh("ln -sfn installs/../../x/python '%s'",
			   pyrt_box_current(box)), 0);
	cr_assert_eq(pyrt_box_link_install(box, pyrt_box_current(box), dir,
					   sizeof dir, &err), PYRT_E_IO);
	pyrt_box_free(box);
}

Test(box, active_interpreter_names_the_fix_for_each_gap)
{
	char dir[PATH_MAX], py[PATH_MAX];
	pyrt_box *box = open_box("empty", 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_active_interpreter(box, NULL, dir, sizeof dir,
						 py, sizeof py, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "not provisioned"), "%s", err.msg);
	cr_assert(strstr(err.msg, "run \"pyrt install\""), "%s", err.msg);
	pyrt_box_free(box);

	box = box_with_install("a1");
	/* the tree is there, its interpreter is not */
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_box_active_interpreter(box, NULL, dir, sizeof dir,
						 py, sizeof py, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "python/bin/python3 is missing or not "
			 "executable"), "%s", err.msg);
	cr_assert(strstr(err.msg, "pyrt install --force"), "%s", err.msg);
	/* there but not executable */
	char *bin = pt_join(dir, "python/bin/python3");
	pt_write(bin, "#!/bin/sh\n");
	cr_assert_eq(pyrt_box_active_interpreter(box, NULL, dir, sizeof dir,
						 py, sizeof py, &err),
		     PYRT_E_NOT_READY);
	chmod(bin, 0755);
	cr_assert_eq(pyrt_box_active_interpreter(box, NULL, dir, sizeof dir,
						 py, sizeof py, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(py, bin);
	/* a dangling current is broken, not missing */
	cr_assert_eq(pt_sh("rm -rf '%s/python'", dir), 0);
	cr_assert_eq(pyrt_box_active_interpreter(box, NULL, dir, sizeof dir,
						 py, sizeof py, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "pyrt install --force"), "%s", err.msg);
	free(bin);
	pyrt_box_free(box);
}

/* The pins' layout says where the interpreter is: python3.11 alone is
 * found, and python3 beside it is not what is asked for. */
Test(box, active_interpreter_follows_the_pins_layout)
{
	char *pins_path = pt_fixture_pins(work, "pins.yaml",
					  "https://127.0.0.1/rt.tar.gz", NULL, NULL);
	cr_assert_eq(pt_sh("printf 'layout:\\n  interpreter: "
			   "python/bin/python3.11\\n' >>'%s'", pins_path), 0);
	pyrt_pins *pins = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&pins, pins_path, &err), 0, "%s",
		     err.msg);
	pyrt_box *box = box_with_install("b2");
	char dir[PATH_MAX], py[PATH_MAX];
	cr_assert_eq(pyrt_box_active_install(box, dir, sizeof dir, &err), 0,
		     "%s", err.msg);
	char *bin = pt_join(dir, "python/bin/python3");
	pt_write(bin, "#!/bin/sh\n");
	chmod(bin, 0755);
	cr_assert_eq(pyrt_box_active_interpreter(box, pins, dir, sizeof dir,
						 py, sizeof py, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "python3.11 is missing"), "%s", err.msg);
	free(bin);
	bin = pt_join(dir, "python/bin/python3.11");
	pt_write(bin, "#!/bin/sh\n");
	chmod(bin, 0755);
	cr_assert_eq(pyrt_box_active_interpreter(box, pins, dir, sizeof dir,
						 py, sizeof py, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(py, bin);
	free(bin);
	free(pins_path);
	pyrt_box_free(box);
	pyrt_pins_free(pins);
}

/*
 * `pyrt status` opens the box judging what the command line's walk of the
 * same root saw (app_request.box_seen) instead of lstat()ing each folder
 * again: a parent seen as 0777 (not sticky) in that record is refused
 * with the words a real one gets; with no record, or a record of another
 * path, the box opens on what the file system says.
 */
Test(box, open_judges_the_walk_it_is_given)
{
	char *parent = pt_join(work, "p");
	cr_assert_eq(mkdir(parent, 0755), 0);
	char *root = pt_join(parent, "box");
	char real_parent[PATH_MAX], root_real[PATH_MAX + 8];
	cr_assert_not_null(realpath(parent, real_parent));
	snprintf(root_real, sizeof root_real, "%s/box", real_parent);
	pyrt_fs_seen *seen = malloc(sizeof *seen);
	cr_assert_not_null(seen);
	pyrt_error err = PYRT_ERROR_INIT;
	char out[PATH_MAX];
	cr_assert_eq(pyrt_trust_path_seen("--box-root", root_real,
					  PYRT_TRUST_MISSING_OK |
					  PYRT_TRUST_LINKS_ONLY, out,
					  sizeof out, seen, &err), 0, "%s",
		     err.msg);
	pyrt_box *box = NULL;
	cr_assert_eq(pyrt_box_open_seen(&box, out, 0, seen, &err), 0, "%s",
		     err.msg);
	pyrt_box_free(box);
	box = NULL;
	/* the box does not exist: its parent is the deepest folder seen */
	cr_assert_geq(seen->depth, 1);
	seen->st[seen->depth].st_mode = S_IFDIR | 0777;
	cr_assert_eq(pyrt_box_open_seen(&box, out, 0, seen, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert_null(box);
	char msg[PYRT_ERROR_MSG_MAX];
	snprintf(msg, sizeof msg, "%s", err.msg);
	cr_assert_eq(chmod(parent, 0777), 0);
	cr_assert_eq(pyrt_box_open(&box, out, 0, &err), PYRT_E_UNTRUSTED);
	cr_assert_str_eq(msg, err.msg);
	cr_assert_eq(chmod(parent, 0755), 0);
	cr_assert_eq(pyrt_box_open_seen(&box, out, 0, NULL, &err), 0, "%s",
		     err.msg);
	pyrt_box_free(box);
	box = NULL;
	snprintf(seen->path, sizeof seen->path, "%.4000s/other", real_parent);
	cr_assert_eq(pyrt_box_open_seen(&box, out, 0, seen, &err), 0, "%s",
		     err.msg);
	pyrt_box_free(box);
	free(seen);
	free(root);
	free(parent);
}
