/* ctest: test_os */
/* Tests for core/util/os_linux.c: what each seam function promises in
 * core/util/os.h, so a port's file can be held to the same. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/os.h"
#include "support.h"

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("os");
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(os, .init = setup, .fini = teardown);

Test(os, pipe_is_cloexec_and_nonblock_on_request)
{
	int p[2];
	cr_assert_eq(pyrt_os_pipe(p, 0), 0);
	cr_expect(fcntl(p[0], F_GETFD) & FD_CLOEXEC);
	cr_expect(fcntl(p[1], F_GETFD) & FD_CLOEXEC);
	cr_expect_not(fcntl(p[0], F_GETFL) & O_NONBLOCK);
	close(p[0]);
	close(p[1]);
	cr_assert_eq(pyrt_os_pipe(p, PYRT_OS_NONBLOCK), 0);
	char c;
	cr_expect_eq(read(p[0], &c, 1), -1);
	cr_expect_eq(errno, EAGAIN);
	close(p[0]);
	close(p[1]);
}

Test(os, child_dies_with_its_parent)
{
	/* A middle process starts a grandchild that asks to die with it, and
	 * exits; the grandchild must be gone soon after. */
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t mid = fork();
	cr_assert_geq(mid, 0);
	if (mid == 0) {
		pid_t g = fork();
		if (g == 0) {
			if (pyrt_os_die_with_parent() != 0)
				_exit(3);
			if (write(p[1], "r", 1) != 1)
				_exit(4);
			pause();
			_exit(0);
		}
		char c;
		_exit(read(p[0], &c, 1) == 1 ? 0 : 5);
	}
	close(p[1]);
	int ws;
	cr_assert_eq(waitpid(mid, &ws, 0), mid);
	cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	/* The grandchild held the pipe's read end; once it is killed the
	 * read end has no holder left but ours, and nothing stays to write. */
	char c;
	struct pollfd pf = { .fd = p[0], .events = POLLIN };
	cr_expect_eq(poll(&pf, 1, 10000), 1, "the grandchild outlived its parent");
	cr_expect_eq(read(p[0], &c, 1), 0);
	close(p[0]);
}

Test(os, sync_fs_on_a_folder)
{
	int fd = open(tmp, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pyrt_os_sync_fs(fd), 0);
	close(fd);
}

Test(os, lock_belongs_to_the_open_file_description)
{
	char *path = pt_join(tmp, "lock");
	pt_write(path, "");
	int a = open(path, O_RDWR), b = open(path, O_RDWR);
	cr_assert(a >= 0 && b >= 0);
	cr_expect_eq(pyrt_os_lock_held(b), 0);
	cr_assert_eq(pyrt_os_lock_file(a, 1), 0);
	/* The same process, another description: held, and refused. */
	cr_expect_eq(pyrt_os_lock_held(b), 1);
	cr_expect_eq(pyrt_os_lock_file(b, 1), -1);
	cr_expect(errno == EAGAIN || errno == EACCES);
	cr_expect_eq(pyrt_os_lock_file(b, 0), -1);
	close(a);
	cr_expect_eq(pyrt_os_lock_held(b), 0);
	cr_expect_eq(pyrt_os_lock_file(b, 0), 0);
	close(b);
	free(path);
}

Test(os, fd_path_names_the_entry_in_the_folder)
{
	char *file = pt_join(tmp, "f");
	pt_write(file, "x");
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY);
	char via[128];
	cr_assert_eq(pyrt_os_fd_path(via, sizeof via, dfd, "f"), 0);
	struct stat s1, s2;
	cr_expect_eq(stat(via, &s1), 0);
	cr_expect_eq(stat(file, &s2), 0);
	cr_expect_eq(s1.st_ino, s2.st_ino);
	char tiny[8];
	cr_expect_eq(pyrt_os_fd_path(tiny, sizeof tiny, dfd, "f"), -1);
	cr_expect_eq(errno, ENAMETOOLONG);
	close(dfd);
	free(file);
}

Test(os, self_exe_is_this_binary)
{
	char exe[4096];
	cr_assert_eq(pyrt_os_self_exe(exe, sizeof exe), 0);
	cr_expect(strstr(exe, "test_os") != NULL, "%s", exe);
	char small[4];
	cr_expect_eq(pyrt_os_self_exe(small, sizeof small), -1);
}

Test(os, random_fills_and_differs)
{
	unsigned char a[32] = { 0 }, b[32] = { 0 }, zero[32] = { 0 };
	cr_assert_eq(pyrt_os_random(a, sizeof a), 0);
	cr_assert_eq(pyrt_os_random(b, sizeof b), 0);
	cr_expect_neq(memcmp(a, zero, sizeof a), 0);
	cr_expect_neq(memcmp(a, b, sizeof a), 0);
}

struct seen {
	int id;
	char names[8][64];
	int n;
};

static void record(int id, const char *name, void *ctx)
{
	struct seen *s = ctx;
	if (s->n < 8 && id == s->id)
		snprintf(s->names[s->n++], sizeof s->names[0], "%s", name);
}

Test(os, watch_sees_entries_change_and_reading_does_not)
{
	int w = pyrt_os_watch_new();
	cr_assert_geq(w, 0);
	char *file = pt_join(tmp, "marker");
	pt_write(file, "1");
	struct seen s = { .id = pyrt_os_watch_add(w, tmp) };
	cr_assert_geq(s.id, 0);
	struct pollfd pf = { .fd = w, .events = POLLIN };
	cr_expect_eq(poll(&pf, 1, 0), 0, "a fresh watch has nothing queued");
	/* Reading leaves no event. */
	free(pt_read(file));
	cr_expect_eq(poll(&pf, 1, 0), 0, "a read was queued as a change");
	pt_write(file, "2");
	cr_expect_eq(poll(&pf, 1, 0), 1);
	cr_assert_eq(pyrt_os_watch_drain(w, record, &s), 0);
	cr_assert_geq(s.n, 1);
	cr_expect_str_eq(s.names[0], "marker");
	cr_expect_eq(poll(&pf, 1, 0), 0, "drained, still readable");
	/* A watch on a file, not a folder, is refused. */
	cr_expect_eq(pyrt_os_watch_add(w, file), -1);
	pyrt_os_watch_rm(w, s.id);
	cr_expect_eq(poll(&pf, 1, 0), 1, "the removal is queued");
	close(w);
	free(file);
}
