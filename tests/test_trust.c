/* ctest: test_trust */
/* Tests for core/util/trust.c: the walk of a typed path that decides what runs. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/trust.h"
#include "support.h"

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("trust");
	chmod(tmp, 0755);
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(trust, .init = setup, .fini = teardown);

static int walk(const char *path, unsigned flags, char *out, pyrt_error *err)
{
	pyrt_error_clear(err);
	return pyrt_trust_path("--pins", path, flags, out, out ? PATH_MAX : 0,
			       err);
}

Test(trust, a_private_file_is_taken_and_resolved)
{
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, out, &err), 0, "%s", err.msg);
	char *real = realpath(f, NULL);
	cr_assert_str_eq(out, real);
	free(real);
	free(f);
}

Test(trust, a_file_others_can_write_is_refused_with_the_fix)
{
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	cr_assert_eq(chmod(f, 0664), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "refusing --pins"), "%s", err.msg);
	cr_assert(strstr(err.msg, "writable by its group (mode 0664)"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, "chmod go-w"), "%s", err.msg);
	/* The object is the caller's with NO_FINAL. */
	cr_assert_eq(walk(f, PYRT_TRUST_NO_FINAL, NULL, &err), 0, "%s",
		     err.msg);
	free(f);
}

Test(trust, a_shared_folder_must_be_sticky)
{
	char *dir = pt_join(tmp, "shared");
	char *f = pt_join(dir, "pins.yaml");
	cr_assert_eq(mkdir(dir, 0777), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	pt_write(f, "x\n");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(f, 0, NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "not sticky"), "%s", err.msg);
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(walk(f, 0, NULL, &err), 0, "%s", err.msg);
	free(f);
	free(dir);
}

Test(trust, the_missing_tail_is_kept_without_dot_dot)
{
	char *p = pt_join(tmp, "new/sub");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(p, 0, out, &err), PYRT_E_USAGE);
	cr_assert_eq(walk(p, PYRT_TRUST_MISSING_OK, out, &err), 0, "%s",
		     err.msg);
	cr_assert(strstr(out, "/new/sub"), "%s", out);
	char *q = pt_join(tmp, "new/../../etc");
	cr_assert_eq(walk(q, PYRT_TRUST_MISSING_OK, out, &err), PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "\"..\""), "%s", err.msg);
	free(q);
	free(p);
}

Test(trust, dot_dot_of_a_real_folder_climbs_without_checking_it)
{
	/* cwd-relative paths cross folders the user only passes through. */
	char *other = pt_join(tmp, "other");
	cr_assert_eq(mkdir(other, 0777), 0);
	cr_assert_eq(chmod(other, 0777), 0);
	char *f = pt_join(tmp, "pins.yaml");
	pt_write(f, "x\n");
	char *via = pt_join(other, "../pins.yaml");
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(via, 0, out, &err), 0, "%s", err.msg);
	free(via);
	free(f);
	free(other);
}

Test(trust, links_loop_and_are_followed_when_ours)
{
	char *a = pt_join(tmp, "a"), *b = pt_join(tmp, "b");
	cr_assert_eq(symlink(a, b), 0);
	cr_assert_eq(symlink(b, a), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(a, 0, NULL, &err), PYRT_E_USAGE);
	cr_assert(strstr(err.msg, "too many symbolic links"), "%s", err.msg);
	char *dir = pt_join(tmp, "real"), *f = pt_join(dir, "pins.yaml");
	char *link = pt_join(tmp, "rel"), *via = pt_join(link, "pins.yaml");
	cr_assert_eq(mkdir(dir, 0755), 0);
	pt_write(f, "x\n");
	cr_assert_eq(symlink("real", link), 0);
	char out[PATH_MAX];
	cr_assert_eq(walk(via, 0, out, &err), 0, "%s", err.msg);
	cr_assert(strstr(out, "/real/pins.yaml"), "%s", out);
	free(a); free(b); free(dir); free(f); free(link); free(via);
}

Test(trust, a_link_someone_else_owns_is_refused_even_links_only)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give a link to another uid");
	char *sticky = pt_join(tmp, "sticky"), *dir = pt_join(tmp, "real");
	char *link = pt_join(sticky, "link"), *via = pt_join(link, "x");
	cr_assert_eq(mkdir(sticky, 0755), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_eq(lchown(link, 1234, 1234), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(walk(via, PYRT_TRUST_MISSING_OK | PYRT_TRUST_LINKS_ONLY,
			  NULL, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "symbolic link owned by uid 1234"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, dir), "names where it points: %s", err.msg);
	cr_assert_eq(lchown(link, 0, 0), 0);
	cr_assert_eq(walk(via, PYRT_TRUST_MISSING_OK, NULL, &err), 0, "%s",
		     err.msg);
	free(sticky); free(dir); free(link); free(via);
}

Test(trust, a_wheelhouse_is_checked_entry_by_entry)
{
	char *wh = pt_join(tmp, "wh"), *w = pt_join(wh, "a-1-py3-none-any.whl");
	cr_assert_eq(mkdir(wh, 0755), 0);
	pt_write(w, "x");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_trust_dir_entries("--wheelhouse", wh, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(chmod(w, 0666), 0);
	cr_assert_eq(pyrt_trust_dir_entries("--wheelhouse", wh, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "a-1-py3-none-any.whl"), "%s", err.msg);
	free(w);
	free(wh);
}

/* Each folder of the resolved path with what an lstat of it says now. */
static void expect_seen_matches(const char *resolved, const pyrt_fs_seen *seen)
{
	char prefix[PATH_MAX] = "/";
	size_t depth = 0;
	for (const char *c = resolved; ; depth++) {
		const struct stat *st = pyrt_fs_seen_at(seen, depth);
		struct stat now;
		if (depth <= seen->depth) {
			cr_assert_eq(lstat(prefix, &now), 0, "%s", prefix);
			if (st) {
				cr_assert_eq(st->st_ino, now.st_ino, "%s", prefix);
				cr_assert_eq(st->st_dev, now.st_dev, "%s", prefix);
			}
		} else {
			cr_assert_null(st, "%s beyond what exists", prefix);
		}
		c += strspn(c, "/");
		size_t n = strcspn(c, "/");
		if (!n)
			break;
		size_t used = strlen(prefix);
		snprintf(prefix + used, sizeof prefix - used, "%s%.*s",
			 used > 1 ? "/" : "", (int)n, c);
		c += n;
	}
}

/*
 * The box's walk tells what it lstat()ed of the resolved path's folders
 * (through a link and a ".." here, with a missing tail), and the ancestor
 * rule judges that instead of a stat of its own: a folder's mode as seen
 * decides, and the message is the one a stat gives.
 */
Test(trust, the_walk_tells_what_it_saw_of_each_folder)
{
	char *real = pt_join(tmp, "real");
	char *sub = pt_join(tmp, "real/sub");
	char *link = pt_join(tmp, "via");
	cr_assert_eq(mkdir(real, 0755), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(symlink(sub, link), 0);
	char given[PATH_MAX], out[PATH_MAX];
	snprintf(given, sizeof given, "%s/via/../sub/box/new", tmp);
	pyrt_fs_seen seen;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_trust_path_seen("box root", given,
					  PYRT_TRUST_MISSING_OK |
					  PYRT_TRUST_LINKS_ONLY, out,
					  sizeof out, &seen, &err), 0, "%s",
		     err.msg);
	char *want = realpath(sub, NULL);
	cr_assert_not_null(want);
	char *want_box = pt_join(want, "box/new");
	cr_assert_str_eq(out, want_box);
	expect_seen_matches(out, &seen);
	/* real/sub exists, box/new does not */
	cr_assert_not_null(pyrt_fs_seen_at(&seen, seen.depth));
	cr_assert_null(pyrt_fs_seen_at(&seen, seen.depth + 1));
	cr_assert_eq(pyrt_fs_check_ancestors_seen(out, &seen, &err), 0, "%s",
		     err.msg);
	/* What was seen is what is judged: real/sub seen as 0777. */
	pyrt_fs_seen forged = seen;
	forged.st[seen.depth].st_mode = S_IFDIR | 0777;
	cr_assert_eq(pyrt_fs_check_ancestors_seen(out, &forged, &err),
		     PYRT_E_UNTRUSTED);
	char msg[PYRT_ERROR_MSG_MAX];
	snprintf(msg, sizeof msg, "%s", err.msg);
	/* and the same words as a stat of a folder really 0777 */
	cr_assert_eq(chmod(sub, 0777), 0);
	cr_assert_eq(pyrt_fs_check_ancestors(out, &err), PYRT_E_UNTRUSTED);
	cr_assert_str_eq(msg, err.msg);
	/* a spelling other than the resolved one is never paired */
	char odd[PATH_MAX + 2];
	snprintf(odd, sizeof odd, "%s/", out);
	cr_assert_eq(pyrt_fs_check_ancestors_seen(odd, &forged, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert_eq(chmod(sub, 0755), 0);
	cr_assert_eq(pyrt_fs_check_ancestors_seen(odd, &forged, &err), 0,
		     "%s", err.msg);
	free(want_box);
	free(want);
	free(link);
	free(sub);
	free(real);
}

/*
 * The front end's gate opens the path its own walk resolved: it judges
 * that walk's lstats (a folder forged as 0777 in the record is refused, in
 * the words a real 0777 folder gets), and a record of another path is not
 * used.
 */
Test(trust, the_gate_judges_the_walk_it_was_given)
{
	char *dir = pt_join(tmp, "conf");
	cr_assert_eq(mkdir(dir, 0755), 0);
	char *f = pt_join(dir, "pins.yaml");
	pt_write(f, "x\n");
	pyrt_fs_seen seen;
	char out[PATH_MAX];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_trust_path_seen("--pins", f, PYRT_TRUST_MISSING_OK |
					  PYRT_TRUST_LINKS_ONLY, out,
					  sizeof out, &seen, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(seen.path, out);
	int fd = -1;
	cr_assert_eq(pyrt_trust_open_seen("--pins", out, 0, &seen, &fd, &err),
		     0, "%s", err.msg);
	cr_assert_geq(fd, 0);
	close(fd);
	pyrt_fs_seen forged = seen;
	cr_assert_geq(forged.depth, 2);
	forged.st[forged.depth - 1].st_mode = S_IFDIR | 0777;
	cr_assert_eq(pyrt_trust_open_seen("--pins", out, 0, &forged, &fd, &err),
		     PYRT_E_UNTRUSTED);
	char msg[PYRT_ERROR_MSG_MAX];
	snprintf(msg, sizeof msg, "%s", err.msg);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(pyrt_trust_open("--pins", out, 0, &fd, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert_str_eq(msg, err.msg);
	cr_assert_eq(chmod(dir, 0755), 0);
	/* the record of another path: walked afresh, and passes */
	snprintf(forged.path, sizeof forged.path, "%s/other", tmp);
	cr_assert_eq(pyrt_trust_open_seen("--pins", out, 0, &forged, &fd, &err),
		     0, "%s", err.msg);
	close(fd);
	free(f);
	free(dir);
}
