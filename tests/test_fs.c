/* ctest: test_fs */
/* Tests for core/util/fs.c: link-safe bounded removal, atomic writes, private mkdirs. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/fs.h"
#include "support.h"

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("fs");
}

static void teardown(void)
{
	/* Read-only leftovers from a failed test must not block cleanup. */
	pt_sh("chmod -R u+rwx '%s' 2>/dev/null", tmp);
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(fs, .init = setup, .fini = teardown);

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

Test(fs, remove_tree_does_not_follow_symlinks)
{
	char *outside = pt_join(tmp, "outside");
	char *victim = pt_join(tmp, "victim");
	cr_assert_eq(pt_sh("mkdir -p '%s/keep' && echo precious > '%s/keep/file'",
			   outside, outside), 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/a/b/c' && echo x > '%s/a/b/c/f' && "
			   "ln -s '%s' '%s/a/link-dir' && "
			   "ln -s '%s/keep/file' '%s/a/b/link-file' && "
			   "ln -s /nonexistent '%s/dangling'",
			   victim, victim, outside, victim, outside, victim,
			   victim), 0);

	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(victim, NULL, &err), 0, "%s", err.msg);
	cr_assert(!exists(victim));
	char *kept_path = pt_join(outside, "keep/file");
	char *kept = pt_read(kept_path);
	cr_assert_not_null(kept);
	cr_assert_str_eq(kept, "precious\n");
	free(kept);
	free(kept_path);
	free(outside);
	free(victim);
}

Test(fs, remove_tree_top_level_symlink_is_unlinked_only)
{
	char *target = pt_join(tmp, "target");
	char *link = pt_join(tmp, "link");
	cr_assert_eq(pt_sh("mkdir '%s' && echo keep > '%s/f' && ln -s '%s' '%s'",
			   target, target, target, link), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(link, NULL, &err), 0, "%s", err.msg);
	cr_assert(!exists(link));
	cr_assert(exists(target));
	char *f = pt_join(target, "f");
	cr_assert(exists(f));

	/* Trailing slash must not turn the link into its target. */
	cr_assert_eq(pt_sh("ln -s '%s' '%s'", target, link), 0);
	char *slashed = NULL;
	cr_assert(asprintf(&slashed, "%s/", link) > 0);
	cr_assert_eq(pyrt_fs_remove_tree(slashed, NULL, &err), 0, "%s", err.msg);
	cr_assert(!exists(link));
	cr_assert(exists(f));
	free(slashed);
	free(f);
	free(target);
	free(link);
}

Test(fs, remove_tree_plain_file)
{
	char *f = pt_join(tmp, "file");
	pt_write(f, "data");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(f, NULL, &err), 0, "%s", err.msg);
	cr_assert(!exists(f));
	free(f);
}

/*
 * Permissions do not bind root, so as root the removal runs in a child
 * that has become nobody, on a tree nobody owns.
 */
static int remove_as_unprivileged(const char *path, char *msg, size_t len)
{
	pyrt_error err = PYRT_ERROR_INIT;
	if (geteuid() != 0) {
		int rc = pyrt_fs_remove_tree(path, NULL, &err);
		snprintf(msg, len, "%s", err.msg);
		return rc;
	}
	cr_assert_eq(pt_sh("chown -R 65534:65534 '%s'", tmp), 0);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		close(p[0]);
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0)
			_exit(99);
		int rc = pyrt_fs_remove_tree(path, NULL, &err);
		dprintf(p[1], "%s", err.msg);
		_exit(rc == 0 ? 0 : 1);
	}
	close(p[1]);
	ssize_t k = read(p[0], msg, len - 1);
	msg[k > 0 ? k : 0] = '\0';
	close(p[0]);
	int st;
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 99, "cannot drop root");
	return WEXITSTATUS(st) == 0 ? 0 : PYRT_E_IO;
}

Test(fs, remove_tree_read_only_dirs)
{
	char *t = pt_join(tmp, "ro");
	cr_assert_eq(pt_sh("mkdir -p '%s/a/b' '%s/c' && echo 1 > '%s/a/b/f' && "
			   "echo 2 > '%s/c/g' && chmod 0555 '%s/a/b' '%s/a' && "
			   "chmod 0000 '%s/c' && chmod 0500 '%s'",
			   t, t, t, t, t, t, t, t), 0);
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(remove_as_unprivileged(t, msg, sizeof msg), 0, "%s", msg);
	cr_assert(!exists(t));
	free(t);
}

Test(fs, remove_tree_deep_tree)
{
	/* Deeper than a walk holding a descriptor per level could go. */
	char *t = pt_join(tmp, "deep");
	char *chain = calloc(300, 2);
	for (int i = 0; i < 300; i++)
		memcpy(chain + 2 * i, "d/", 2);
	chain[599] = '\0'; /* "d/d/…/d", 300 levels */
	cr_assert_eq(pt_sh("mkdir -p '%s/%s' && : > '%s/%s/leaf' && : > '%s/d/top'",
			   t, chain, t, chain, t), 0);
	struct rlimit rl;
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 64;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(t, NULL, &err), 0, "%s", err.msg);
	cr_assert(!exists(t));
	free(chain);
	free(t);
}

Test(fs, remove_tree_entry_limit)
{
	char *t = pt_join(tmp, "many");
	cr_assert_eq(pt_sh("mkdir '%s' && cd '%s' && for i in $(seq 1 50); do "
			   ": > f$i; done", t, t), 0);
	pyrt_fs_remove_limits lim = { 10, 120.0 };
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(t, &lim, &err), PYRT_E_IO);
	cr_assert_eq(err.code, PYRT_E_IO);
	cr_assert(strstr(err.msg, "gave up removing"), "%s", err.msg);
	cr_assert(strstr(err.msg, t), "%s", err.msg);
	cr_assert(strstr(err.msg, "10 entries"), "%s", err.msg);
	cr_assert(exists(t));

	/* Within the limit the same tree goes away. */
	pyrt_fs_remove_limits roomy = { 100, 120.0 };
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_remove_tree(t, &roomy, &err), 0, "%s", err.msg);
	cr_assert(!exists(t));
	free(t);
}

Test(fs, remove_tree_time_limit)
{
	char *t = pt_join(tmp, "slow");
	cr_assert_eq(pt_sh("mkdir -p '%s/a' && : > '%s/a/f'", t, t), 0);
	pyrt_fs_remove_limits lim = { 1000, -1.0 };
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(t, &lim, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "gave up removing"), "%s", err.msg);
	cr_assert(strstr(err.msg, "seconds"), "%s", err.msg);
	free(t);
}

Test(fs, remove_tree_missing_is_ok)
{
	char *t = pt_join(tmp, "nothing-here");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_remove_tree(t, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(err.code, 0);
	free(t);
}

Test(fs, write_file_atomic_creates_private_and_replaces)
{
	char *f = pt_join(tmp, "state.json");
	pyrt_error err = PYRT_ERROR_INIT;
	mode_t old = umask(022);
	cr_assert_eq(pyrt_fs_write_file_atomic(f, "first", 5, &err), 0, "%s",
		     err.msg);
	struct stat st;
	cr_assert_eq(stat(f, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	char *got = pt_read(f);
	cr_assert_str_eq(got, "first");
	free(got);

	cr_assert_eq(pyrt_fs_write_file_atomic(f, "second!", 7, &err), 0, "%s",
		     err.msg);
	got = pt_read(f);
	cr_assert_str_eq(got, "second!");
	free(got);
	cr_assert_eq(stat(f, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	umask(old);

	/* No temp files are left next to it. */
	cr_assert_eq(pt_sh("test -z \"$(ls -A '%s' | grep -v '^state.json$')\"",
			   tmp), 0);
	free(f);
}

Test(fs, write_file_atomic_reports_missing_dir)
{
	char *f = pt_join(tmp, "no/such/dir/file");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_write_file_atomic(f, "x", 1, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, f), "%s", err.msg);
	free(f);
}

Test(fs, mkdirs_creates_private_dirs)
{
	mode_t old = umask(022);
	char *d = pt_join(tmp, "x/y/z");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_mkdirs(d, &err), 0, "%s", err.msg);
	const char *parts[] = { "x", "x/y", "x/y/z" };
	for (size_t i = 0; i < 3; i++) {
		char *p = pt_join(tmp, parts[i]);
		struct stat st;
		cr_assert_eq(stat(p, &st), 0, "%s", p);
		cr_assert(S_ISDIR(st.st_mode));
		cr_assert_eq(st.st_mode & 07777, 0700, "%s mode %o", p,
			     st.st_mode & 07777);
		free(p);
	}
	/* Existing directories are fine, and keep their mode. */
	cr_assert_eq(chmod(tmp, 0755), 0);
	cr_assert_eq(pyrt_fs_mkdirs(d, &err), 0, "%s", err.msg);
	struct stat st;
	cr_assert_eq(stat(tmp, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0755);
	umask(old);
	free(d);
}

Test(fs, mkdirs_file_in_the_way)
{
	char *f = pt_join(tmp, "file");
	pt_write(f, "x");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_mkdirs(f, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, f), "%s", err.msg);
	char *below = pt_join(f, "sub");
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_mkdirs(below, &err), PYRT_E_IO);
	free(below);
	free(f);
}

Test(fs, read_file_bounded)
{
	char *f = pt_join(tmp, "r");
	pt_write(f, "hello world");
	char *out = NULL;
	size_t len = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_read_file(f, 11, &out, &len, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(len, 11);
	cr_assert_str_eq(out, "hello world");
	free(out);

	cr_assert_eq(pyrt_fs_read_file(f, 10, &out, &len, &err), PYRT_E_IO);
	cr_assert_null(out);
	cr_assert(strstr(err.msg, "larger than 10 bytes"), "%s", err.msg);

	/* Larger than the first read buffer. */
	cr_assert_eq(pt_sh("head -c 100000 /dev/zero | tr '\\0' a > '%s'", f), 0);
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_read_file(f, 1 << 20, &out, &len, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(len, 100000);
	cr_assert_eq(strlen(out), 100000);
	free(out);

	char *missing = pt_join(tmp, "missing");
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_read_file(missing, 10, &out, &len, &err),
		     PYRT_E_IO);
	cr_assert(strstr(err.msg, missing), "%s", err.msg);
	free(missing);
	free(f);
}

Test(fs, free_bytes_and_time)
{
	cr_assert_gt(pyrt_fs_free_bytes(tmp), 0);
	char *missing = pt_join(tmp, "missing");
	cr_assert_eq(pyrt_fs_free_bytes(missing), 0);
	free(missing);

	char buf[40];
	pyrt_fs_now_rfc3339(buf, sizeof buf);
	cr_assert_eq(strlen(buf), 20, "%s", buf);
	int y, mo, d, h, mi, s;
	char z = 0;
	cr_assert_eq(sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h,
			    &mi, &s, &z), 7, "%s", buf);
	cr_assert_eq(z, 'Z');
	cr_assert_geq(y, 2024);
	char tiny[5] = "xxxx";
	pyrt_fs_now_rfc3339(tiny, sizeof tiny);
	cr_assert_eq(tiny[0], '\0');
}

/* ---- state files and box directories someone else may control -------- */

Test(fs, open_state_refuses_a_symlink_and_never_writes_through_it)
{
	char *victim = pt_join(tmp, "victim");
	char *link = pt_join(tmp, "x.partial");
	pt_write(victim, "precious");
	cr_assert_eq(symlink(victim, link), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	int fd = pyrt_fs_open_state(link, O_RDWR | O_CREAT, 0600, &err);
	cr_assert_eq(fd, PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "symbolic link"), "%s", err.msg);
	char *text = pt_read(victim);
	cr_assert_str_eq(text, "precious");
	free(text);
	free(victim);
	free(link);
}

Test(fs, open_state_refuses_a_fifo_at_once)
{
	char *fifo = pt_join(tmp, "marker.json");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	/* Without O_NONBLOCK this open would wait for a writer forever. */
	cr_assert_eq(pyrt_fs_open_state(fifo, O_RDONLY, 0, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
	char *out = NULL;
	pyrt_error_clear(&err);
	cr_assert_neq(pyrt_fs_read_file(fifo, 100, &out, NULL, &err), 0);
	cr_assert_null(out);
	free(fifo);
}

Test(fs, open_state_refuses_a_file_someone_else_owns)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to chown");
	char *path = pt_join(tmp, "lock");
	pt_write(path, "");
	cr_assert_eq(chown(path, 65534, 65534), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fs_open_state(path, O_RDWR, 0, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "owned by uid 65534"), "%s", err.msg);
	cr_assert(strstr(err.msg, "not by you (uid 0"), "%s", err.msg);
	free(path);
}

Test(fs, open_state_creates_private_files_and_reads_them)
{
	char *path = pt_join(tmp, "new");
	pyrt_error err = PYRT_ERROR_INIT;
	int fd = pyrt_fs_open_state(path, O_WRONLY | O_CREAT | O_EXCL, 0600,
				    &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	cr_assert_eq(write(fd, "ok", 2), 2);
	/* Blocking again once known regular. */
	cr_assert_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	char *out = NULL;
	cr_assert_eq(pyrt_fs_read_state(path, 10, &out, NULL, &err), 0);
	cr_assert_str_eq(out, "ok");
	free(out);
	free(path);
}

Test(fs, private_dir_check_names_owner_mode_and_fix)
{
	char *dir = pt_join(tmp, "box");
	char *link = pt_join(tmp, "boxlink");
	pyrt_error err = PYRT_ERROR_INIT;
	int missing = 0;
	cr_assert_eq(pyrt_fs_check_private_dir(dir, &missing, &err), 0);
	cr_assert_eq(missing, 1);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(pyrt_fs_check_private_dir(dir, &missing, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(missing, 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(pyrt_fs_check_private_dir(dir, NULL, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "writable by everyone"), "%s", err.msg);
	cr_assert(strstr(err.msg, "chmod go-w"), "%s", err.msg);
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(symlink(dir, link), 0);
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_check_private_dir(link, NULL, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "symbolic link"), "%s", err.msg);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 65534, 65534), 0);
		pyrt_error_clear(&err);
		cr_assert_eq(pyrt_fs_check_private_dir(dir, NULL, &err),
			     PYRT_E_UNTRUSTED);
		cr_assert(strstr(err.msg, "owned by uid 65534 (nobody)"),
			  "%s", err.msg);
	}
	free(dir);
	free(link);
}

Test(fs, ancestors_must_be_ours_or_roots_and_sticky_when_shared)
{
	char *shared = pt_join(tmp, "shared");
	char *box = pt_join(shared, "box");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(mkdir(shared, 0777), 0);
	cr_assert_eq(chmod(shared, 0777), 0);
	cr_assert_eq(pyrt_fs_check_ancestors(box, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "not sticky"), "%s", err.msg);
	/* As /tmp: others may add entries but not rename ours away. */
	cr_assert_eq(chmod(shared, 01777), 0);
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_check_ancestors(box, &err), 0, "%s", err.msg);
	if (geteuid() == 0) {
		cr_assert_eq(chmod(shared, 0755), 0);
		cr_assert_eq(chown(shared, 65534, 65534), 0);
		cr_assert_eq(pyrt_fs_check_ancestors(box, &err),
			     PYRT_E_UNTRUSTED);
		cr_assert(strstr(err.msg, "owned by uid 65534"), "%s",
			  err.msg);
	}
	free(shared);
	free(box);
}

Test(fs, resolve_follows_existing_links_and_keeps_the_new_tail)
{
	char *real = pt_join(tmp, "real");
	char *link = pt_join(tmp, "link");
	char out[PATH_MAX], want[PATH_MAX + 16];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	char given[PATH_MAX];
	int n = snprintf(given, sizeof given, "%s/not/yet", link);
	cr_assert_lt(n, (int)sizeof given);
	cr_assert_eq(pyrt_fs_resolve(given, out, sizeof out, &err), 0, "%s",
		     err.msg);
	char rreal[PATH_MAX];
	cr_assert_not_null(realpath(real, rreal));
	snprintf(want, sizeof want, "%s/not/yet", rreal);
	cr_assert_str_eq(out, want);
	snprintf(given, sizeof given, "%s/new/../x", link);
	cr_assert_eq(pyrt_fs_resolve(given, out, sizeof out, &err),
		     PYRT_E_USAGE);
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_fs_resolve("/", out, sizeof out, &err), 0);
	cr_assert_str_eq(out, "/");
	cr_assert_eq(pyrt_fs_resolve("relative", out, sizeof out, &err),
		     PYRT_E_USAGE);
	free(real);
	free(link);
}
