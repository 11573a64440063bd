/* ctest: test_lock */
/* Tests for core/runtime/lock.c: the box lock between processes and the staging sweep. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/runtime/lock.h"
#include "support.h"

static char *tmp;
static char *lock_path;

static void setup(void)
{
	tmp = pt_tmpdir("lock");
	lock_path = pt_join(tmp, "install.lock");
}

static void teardown(void)
{
	pt_sh("chmod -R u+rwx '%s' 2>/dev/null", tmp);
	pt_rmtree(tmp);
	free(lock_path);
	free(tmp);
}

TestSuite(lock, .init = setup, .fini = teardown);

static pid_t exited_pid(void)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return pid;
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t k;
	while (used + 1 < len && (k = read(fd, buf + used, len - 1 - used)) > 0)
		used += (size_t)k;
	buf[used] = '\0';
}

Test(lock, acquire_records_holder)
{
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);
	cr_assert_not_null(lock);

	struct stat st;
	cr_assert_eq(stat(lock_path, &st), 0);
	/* Readable (a shared box's users see the install), never writable,
	 * by others; the umask may take the read away. */
	cr_assert_eq(st.st_mode & 07133, 0, "mode %o", st.st_mode & 07777);
	cr_assert_eq(st.st_mode & 0600, 0600);
	char *text = pt_read(lock_path);
	char expect[64];
	snprintf(expect, sizeof expect, "pid=%ld\n", (long)getpid());
	cr_assert(strncmp(text, expect, strlen(expect)) == 0, "%s", text);
	char host[256] = "";
	gethostname(host, sizeof host);
	char host_line[300];
	snprintf(host_line, sizeof host_line, "\nhost=%s\n", host);
	cr_assert(strstr(text, host_line), "%s", text);
	cr_assert(strstr(text, "\nstarted=20"), "%s", text);
	free(text);

	pyrt_lock_release(lock);
	pyrt_lock_release(NULL);
}

Test(lock, second_acquire_without_wait_is_busy)
{
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);

	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		close(p[0]);
		pyrt_lock *l2 = NULL;
		pyrt_error e2 = PYRT_ERROR_INIT;
		int rc = pyrt_lock_acquire(&l2, lock_path, 0, NULL, &e2);
		dprintf(p[1], "%d|%s", rc, e2.msg);
		_exit(l2 == NULL ? 0 : 1);
	}
	close(p[1]);
	char buf[2048];
	read_all(p[0], buf, sizeof buf);
	close(p[0]);
	int st;
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child got a lock");

	char expect_rc[16];
	snprintf(expect_rc, sizeof expect_rc, "%d|", PYRT_E_BUSY);
	cr_assert(strncmp(buf, expect_rc, strlen(expect_rc)) == 0, "%s", buf);
	char who[64];
	snprintf(who, sizeof who, "(pid %ld on ", (long)getpid());
	cr_assert(strstr(buf, "another pyrt install is running"), "%s", buf);
	cr_assert(strstr(buf, who), "%s", buf);
	cr_assert(strstr(buf, "drop --no-wait"), "%s", buf);

	pyrt_lock_release(lock);
}

Test(lock, probe_sees_holder_until_release)
{
	pyrt_lock_holder h;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_probe(lock_path, &h, &err), 0, "%s", err.msg);
	struct stat st;
	cr_assert_neq(stat(lock_path, &st), 0, "probe created the lock file");

	pyrt_lock *lock = NULL;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(pyrt_lock_probe(lock_path, &h, &err), 1, "%s", err.msg);
	cr_assert_eq(h.pid, (long)getpid());
	cr_assert_neq(h.host[0], '\0');
	cr_assert_neq(h.started[0], '\0');
	cr_assert_eq(pyrt_lock_probe(lock_path, NULL, &err), 1, "%s", err.msg);

	pyrt_lock_release(lock);
	cr_assert_eq(pyrt_lock_probe(lock_path, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(h.pid, 0);
	cr_assert_eq(stat(lock_path, &st), 0);
	cr_assert_eq(st.st_size, 0, "release left a holder record behind");

	/* And it can be taken again. */
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);
	pyrt_lock_release(lock);
}

/*
 * status and doctor probe the lock while installs run: a probe must never
 * be what makes an `install --no-wait` fail as busy.  Two children probe
 * without pause while this process takes and drops the lock thousands of
 * times without waiting; every attempt must get it.
 */
Test(lock, probe_never_makes_a_no_wait_acquire_busy)
{
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);
	pyrt_lock_release(lock);
	pid_t probers[2];
	for (int i = 0; i < 2; i++) {
		probers[i] = fork();
		cr_assert_geq(probers[i], 0);
		if (probers[i] == 0) {
			for (;;)
				pyrt_lock_probe(lock_path, NULL, NULL);
		}
	}
	int busy = 0, tries = 20000;
	for (int i = 0; i < tries; i++) {
		pyrt_error e = PYRT_ERROR_INIT;
		int rc = pyrt_lock_acquire(&lock, lock_path, 0, NULL, &e);
		if (rc == PYRT_E_BUSY) {
			busy++;
			continue;
		}
		cr_assert_eq(rc, 0, "%s", e.msg);
		pyrt_lock_release(lock);
	}
	for (int i = 0; i < 2; i++) {
		kill(probers[i], SIGKILL);
		waitpid(probers[i], NULL, 0);
	}
	cr_assert_eq(busy, 0, "%d of %d no-wait acquires were refused as busy "
		     "because status probed the lock", busy, tries);
}

/* The waiting child reports its log lines to the parent through a pipe. */
static int log_to_pipe(pyrt_log_level level, const char *line, void *payload)
{
	int fd = *(int *)payload;
	dprintf(fd, "%s\n", line);
	return 0;
}

Test(lock, waiting_acquire_gets_lock_after_release)
{
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);

	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		close(p[0]);
		pyrt_events ev = PYRT_EVENTS_INIT;
		ev.on_log = log_to_pipe;
		ev.payload = &p[1];
		pyrt_lock *l2 = NULL;
		pyrt_error e2 = PYRT_ERROR_INIT;
		int rc = pyrt_lock_acquire(&l2, lock_path, 1, &ev, &e2);
		if (rc != 0 || !l2)
			_exit(2);
		/* Our own record is in the file now. */
		char *text = pt_read(lock_path);
		char expect[64];
		snprintf(expect, sizeof expect, "pid=%ld\n", (long)getpid());
		int ok = text && strncmp(text, expect, strlen(expect)) == 0;
		free(text);
		pyrt_lock_release(l2);
		_exit(ok ? 0 : 3);
	}
	close(p[1]);
	/* Wait for the child to say it is waiting: then it cannot be done. */
	char line[1024] = "";
	FILE *f = fdopen(p[0], "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof line, f));
	char who[64];
	snprintf(who, sizeof who, "waiting for the install running as pid %ld on ",
		 (long)getpid());
	cr_assert(strstr(line, who), "%s", line);
	int st;
	cr_assert_eq(waitpid(child, &st, WNOHANG), 0,
		     "child finished while the lock was held");

	pyrt_lock_release(lock);
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st), "child died");
	cr_assert_eq(WEXITSTATUS(st), 0, "child exit %d", WEXITSTATUS(st));
	/* Only one waiting line was logged. */
	cr_assert_null(fgets(line, sizeof line, f), "extra log: %s", line);
	fclose(f);
}

Test(lock, waiting_acquire_honours_cancel)
{
	pyrt_lock *lock = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&lock, lock_path, 0, NULL, &err), 0,
		     "%s", err.msg);

	/* A second open file description conflicts even within one process. */
	atomic_int cancel = 1;
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	ev.cancel = &cancel;
	pyrt_lock *l2 = NULL;
	pyrt_error e2 = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_lock_acquire(&l2, lock_path, 1, &ev, &e2),
		     PYRT_E_CANCELLED, "%s", e2.msg);
	cr_assert_null(l2);
	cr_assert_eq(e2.code, PYRT_E_CANCELLED);
	cr_assert(strstr(rec.log, "waiting for the install running as pid"),
		  "%s", rec.log);

	/* The holder is untouched by the cancelled waiter. */
	pyrt_lock_holder h;
	cr_assert_eq(pyrt_lock_probe(lock_path, &h, &err), 1);
	cr_assert_eq(h.pid, (long)getpid());
	pyrt_lock_release(lock);
}

static void write_owner(const char *dir, long pid, const char *host)
{
	char *path = pt_join(dir, ".owner");
	char text[512];
	snprintf(text, sizeof text,
		 "pid=%ld\nhost=%s\nstarted=2026-01-01T00:00:00Z\n", pid, host);
	pt_write(path, text);
	free(path);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

Test(lock, mark_owner_writes_private_record)
{
	char *dir = pt_join(tmp, "stage");
	cr_assert_eq(mkdir(dir, 0700), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_staging_mark_owner(dir, &err), 0, "%s", err.msg);
	char *owner = pt_join(dir, ".owner");
	struct stat st;
	cr_assert_eq(stat(owner, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	char *text = pt_read(owner);
	char expect[64];
	snprintf(expect, sizeof expect, "pid=%ld\nhost=", (long)getpid());
	cr_assert(strncmp(text, expect, strlen(expect)) == 0, "%s", text);
	cr_assert(strstr(text, "\nstarted="), "%s", text);
	free(text);
	free(owner);
	free(dir);
}

Test(lock, staging_sweep_removes_only_stale)
{
	char host[256] = "";
	cr_assert_eq(gethostname(host, sizeof host), 0);
	char *root = pt_join(tmp, "staging");
	char *outside = pt_join(tmp, "outside");
	cr_assert_eq(pt_sh("mkdir -p '%s' '%s/keep' && echo precious > '%s/keep/f'",
			   root, outside, outside), 0);

	/* dead: owner pid reaped; holds a read-only dir and a link outward. */
	pid_t dead = exited_pid();
	char *d_dead = pt_join(root, "dead");
	cr_assert_eq(pt_sh("mkdir -p '%s/python/lib' && echo x > '%s/python/lib/m.py' && "
			   "ln -s '%s' '%s/python/escape' && chmod 0555 '%s/python/lib'",
			   d_dead, d_dead, outside, d_dead, d_dead), 0);
	write_owner(d_dead, (long)dead, host);

	/* live: marked by us. */
	char *d_live = pt_join(root, "live");
	cr_assert_eq(mkdir(d_live, 0700), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_staging_mark_owner(d_live, &err), 0, "%s", err.msg);

	/* elsewhere: a dead pid, but on another host: cannot tell, keep. */
	char *d_other = pt_join(root, "elsewhere");
	cr_assert_eq(mkdir(d_other, 0700), 0);
	write_owner(d_other, (long)dead, "some-other-host.invalid");

	/* Unowned: stale only once it is old. */
	char *d_old = pt_join(root, "unowned-old");
	char *d_new = pt_join(root, "unowned-new");
	cr_assert_eq(pt_sh("mkdir '%s' '%s' && touch -d '3 hours ago' '%s'",
			   d_old, d_new, d_old), 0);

	/* A symlink entry pointing at a real directory: junk, unlinked only. */
	char *d_link = pt_join(root, "link");
	cr_assert_eq(symlink(outside, d_link), 0);

	/* A plain file is none of the sweep's business. */
	char *f_file = pt_join(root, "note.txt");
	pt_write(f_file, "x");

	cr_assert_eq(pyrt_staging_count_stale(root, &err), 3, "%s", err.msg);
	/* Counting removed nothing. */
	cr_assert(exists(d_dead) && exists(d_old) && exists(d_link));

	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	cr_assert_eq(pyrt_staging_sweep(root, &ev, &err), 3, "%s", err.msg);

	cr_assert(!exists(d_dead));
	cr_assert(!exists(d_old));
	cr_assert(!exists(d_link));
	cr_assert(exists(d_live));
	cr_assert(exists(d_other));
	cr_assert(exists(d_new));
	cr_assert(exists(f_file));
	char *kept_path = pt_join(outside, "keep/f");
	char *kept = pt_read(kept_path);
	cr_assert_not_null(kept);
	cr_assert_str_eq(kept, "precious\n");

	char line[128];
	snprintf(line, sizeof line, "removed stale staging dead (pid %ld is gone)",
		 (long)dead);
	cr_assert(strstr(rec.log, line), "%s", rec.log);
	cr_assert(strstr(rec.log, "removed stale staging unowned-old"), "%s",
		  rec.log);
	cr_assert_null(strstr(rec.log, "live"), "%s", rec.log);

	/* Nothing stale is left. */
	cr_assert_eq(pyrt_staging_count_stale(root, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_staging_sweep(root, &ev, &err), 0, "%s", err.msg);

	free(kept);
	free(kept_path);
	free(f_file);
	free(d_link);
	free(d_new);
	free(d_old);
	free(d_other);
	free(d_live);
	free(d_dead);
	free(outside);
	free(root);
}

Test(lock, staging_sweep_missing_root_is_empty)
{
	char *root = pt_join(tmp, "no-staging");
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_staging_count_stale(root, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_staging_sweep(root, NULL, &err), 0, "%s", err.msg);
	free(root);
}

Test(lock, staging_sweep_honours_cancel)
{
	char host[256] = "";
	gethostname(host, sizeof host);
	char *root = pt_join(tmp, "staging");
	char *d = pt_join(root, "dead");
	cr_assert_eq(pt_sh("mkdir -p '%s'", d), 0);
	write_owner(d, (long)exited_pid(), host);
	atomic_int cancel = 1;
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.cancel = &cancel;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_staging_sweep(root, &ev, &err), PYRT_E_CANCELLED);
	cr_assert(exists(d));
	free(d);
	free(root);
}
