/*
 * The box lock and the staging sweep.  The lock is flock(2) on a file that
 * also says who holds it, so a second installer can tell the user whom it is
 * waiting for.  The holder also sets an open-file-description record lock
 * (F_OFD_SETLK) on the same file: that one can be tested with F_OFD_GETLK
 * without taking anything, so status and doctor look at the lock without
 * ever holding it for the instant that would turn away an install
 * --no-wait.  Staging directories carry the same pid/host/start record in
 * .owner; one whose owner is dead on this host is removed by the next
 * installer, under the lock.
 */
#include "core/runtime/lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/os.h"

#define OWNER_FILE ".owner"
#define OWNER_MAX 4096
#define STALE_UNOWNED_SECONDS 3600

struct pyrt_lock {
	int fd;
	char path[PATH_MAX]; /* for withdrawing the published state */
};

/* This host's name, never empty. */
static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0 || !buf[0])
		pyrt_fmt_text(buf, len, "unknown");
	buf[len - 1] = '\0';
}

/* The "pid=…\nhost=…\nstarted=…\n" record, describing this process now. */
static int owner_record(char *buf, size_t len)
{
	char host[256], started[40];
	host_name(host, sizeof host);
	pyrt_fs_now_rfc3339(started, sizeof started);
	return snprintf(buf, len, "pid=%ld\nhost=%s\nstarted=%s\n",
			(long)getpid(), host, started);
}

/* Parse an owner record; returns 1 when it names a pid, 0 otherwise. */
static int parse_holder(const char *text, pyrt_lock_holder *h)
{
	memset(h, 0, sizeof *h);
	const char *line = text;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		if (n > 4 && strncmp(line, "pid=", 4) == 0) {
			h->pid = strtol(line + 4, NULL, 10);
		} else if (n > 5 && strncmp(line, "host=", 5) == 0) {
			size_t k = n - 5 < sizeof h->host ? n - 5
							  : sizeof h->host - 1;
			memcpy(h->host, line + 5, k);
			h->host[k] = '\0';
		} else if (n > 8 && strncmp(line, "started=", 8) == 0) {
			size_t k = n - 8 < sizeof h->started
					   ? n - 8 : sizeof h->started - 1;
			memcpy(h->started, line + 8, k);
			h->started[k] = '\0';
		}
		line = end ? end + 1 : NULL;
	}
	/* A pid that does not fit pid_t would make kill() address a group. */
	if (h->pid <= 0 || h->pid > INT_MAX)
		h->pid = 0;
	return h->pid > 0;
}

/* Read the holder record from an open lock or owner file. */
static int read_holder(int fd, pyrt_lock_holder *h)
{
	char buf[OWNER_MAX];
	ssize_t k;
	do
		k = pread(fd, buf, sizeof buf - 1, 0);
	while (k < 0 && errno == EINTR);
	buf[k > 0 ? k : 0] = '\0';
	return parse_holder(buf, h);
}

/*
 * The holder writes its record just after its flock succeeds; a prober
 * that lost the race in that gap would report "not recorded yet" and a
 * --no-wait caller could not name who holds the box.  Give the record a
 * moment (at most half a second) to appear.
 */
static void read_holder_settled(int fd, pyrt_lock_holder *h)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	for (int i = 0; i < 50; i++) {
		if (read_holder(fd, h))
			return;
		nanosleep(&ts, NULL);
	}
}

/* "pid N on HOST since T", or a vaguer phrase when the record is empty. */
static void describe_holder(const pyrt_lock_holder *h, char *buf, size_t len)
{
	if (h->pid > 0)
		pyrt_fmt_text(buf, len, "pid %ld on %s since %s", h->pid,
			      h->host[0] ? h->host : "an unknown host",
			      h->started[0] ? h->started : "an unknown time");
	else
		pyrt_fmt_text(buf, len, "holder not recorded yet");
}

static void publish_state(const char *lock_path, const char *rec, size_t n);

/* Record ourselves as holder; only called with the flock held. */
static int write_holder(int fd, const char *lock_path, pyrt_error *err)
{
	char rec[512];
	int n = owner_record(rec, sizeof rec);
	if (n < 0 || (size_t)n >= sizeof rec)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "lock holder record too long");
	if (ftruncate(fd, 0) != 0 || pwrite(fd, rec, (size_t)n, 0) != n)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot write lock file %s",
					    lock_path);
	publish_state(lock_path, rec, (size_t)n);
	return 0;
}

/*
 * flock only means something if the file we locked is still the one at
 * lock_path; someone may have removed or replaced it in between.
 */
static int still_linked(int fd, const char *lock_path)
{
	struct stat a, b;
	if (fstat(fd, &a) != 0 || lstat(lock_path, &b) != 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The marker a prober can see without locking: a write lock on the whole
 * file, owned by this open file description (dropped with it on close,
 * whatever the process does with its other descriptors): os.h's
 * pyrt_os_lock_file.
 */

/* O_NOFOLLOW: a planted symlink must not make us create or lock elsewhere.
 * 0600: flock needs only a read descriptor, so a lock every user can open
 * is one any user can hold, and stall root's installs for ever (issue 26,
 * door 4).  A lock an older pyrt made 0644 is closed now; who holds it is
 * published beside it (state_path) for everyone else. */
static int open_lock_file(const char *lock_path, pyrt_error *err)
{
	int fd = pyrt_fs_open_state(lock_path, O_RDWR | O_CREAT, 0600, err);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 077) &&
	    fchmod(fd, 0600) != 0) {
		int e = errno;
		close(fd);
		return pyrt_error_set_errno(err, PYRT_E_IO, e, "cannot make "
					    "the lock %s private", lock_path);
	}
	return fd;
}

/* The published state beside the lock: "an install is running, pid,
 * since", readable by every user whatever the umask, written only by the
 * lock's holder. */
static int state_path(const char *lock_path, char *buf, size_t len)
{
	return pyrt_fmt_path(buf, len, NULL, "%s.state", lock_path);
}

/* Publish (rec) or withdraw (NULL) the holder; best effort: status reads
 * it, nothing depends on it to be safe. */
static void publish_state(const char *lock_path, const char *rec, size_t n)
{
	char path[PATH_MAX];
	if (state_path(lock_path, path, sizeof path))
		return;
	pyrt_error err = PYRT_ERROR_INIT;
	int fd = pyrt_fs_open_state(path, O_RDWR | O_CREAT, 0644, &err);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 0777) != 0644)
		(void)!fchmod(fd, 0644);
	if (ftruncate(fd, 0) == 0 && rec)
		(void)!pwrite(fd, rec, n, 0);
	close(fd);
}

static void sleep_100ms(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/*
 * Try once.  Returns 1 with *fdp holding the lock, 0 when another process
 * holds it (*holder filled), or a negative pyrt_code.
 */
static int try_lock(const char *lock_path, int *fdp, pyrt_lock_holder *holder,
		    pyrt_error *err)
{
	for (;;) {
		int fd = open_lock_file(lock_path, err);
		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int e = errno;
			if (e == EWOULDBLOCK)
				read_holder_settled(fd, holder);
			close(fd);
			if (e == EWOULDBLOCK)
				return 0;
			if (e == EINTR)
				continue;
			return pyrt_error_set_errno(err, PYRT_E_IO, e,
						    "cannot lock %s",
						    lock_path);
		}
		if (still_linked(fd, lock_path)) {
			*fdp = fd;
			return 1;
		}
		/* Replaced under us: lock whatever is there now. */
		close(fd);
	}
}

/* Log once that we are waiting, naming the holder when it is recorded. */
static int log_waiting(const pyrt_events *ev, const pyrt_lock_holder *h)
{
	if (h->pid > 0)
		return pyrt_events_log(ev, PYRT_LOG_INFO,
				       "waiting for the install running as pid %ld on %s since %s…",
				       h->pid, h->host, h->started);
	return pyrt_events_log(ev, PYRT_LOG_INFO,
			       "waiting for another pyrt install to finish…");
}

/*
 * Poll until the lock is ours.  Returns 1 with *fdp set, 0 when busy and
 * not waiting (*holder filled), or a negative pyrt_code.
 */
static int wait_for_lock(const char *lock_path, int wait,
			 const pyrt_events *ev, int *fdp,
			 pyrt_lock_holder *holder, pyrt_error *err)
{
	int logged = 0, rc;
	while ((rc = try_lock(lock_path, fdp, holder, err)) == 0) {
		if (!wait)
			return 0;
		if (!logged) {
			logged = 1;
			if (log_waiting(ev, holder) != 0)
				break;
		}
		if (pyrt_events_cancelled(ev))
			break;
		sleep_100ms();
		if (pyrt_events_cancelled(ev))
			break;
	}
	if (rc != 0)
		return rc;
	char who[512];
	describe_holder(holder, who, sizeof who);
	return pyrt_error_set(err, PYRT_E_CANCELLED,
			      "cancelled while waiting for the install running as %s",
			      who);
}

/* Take the box lock, failing fast or waiting as the caller asked. */
int pyrt_lock_acquire(pyrt_lock **out, const char *lock_path, int wait,
		      const pyrt_events *ev, pyrt_error *err)
{
	*out = NULL;
	int fd = -1;
	pyrt_lock_holder holder;
	int rc = wait_for_lock(lock_path, wait, ev, &fd, &holder, err);
	if (rc == 0) {
		char who[512];
		describe_holder(&holder, who, sizeof who);
		return pyrt_error_set(err, PYRT_E_BUSY,
				      "another pyrt install is running (%s); retry later or drop --no-wait to wait for it",
				      who);
	}
	if (rc < 0)
		return rc;
	pyrt_lock *lock = malloc(sizeof *lock);
	if (!lock) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	if ((rc = write_holder(fd, lock_path, err)) != 0)
		goto cleanup;
	/* After the record, so a prober that sees it held can read who.
	 * No other process sets it without the flock: it cannot conflict.
	 * A kernel without OFD locks leaves probes to flock (see probe). */
	pyrt_os_lock_file(fd, 1);
	lock->fd = fd;
	/* fits: open refused a path of PATH_MAX or more */
	pyrt_fmt_text(lock->path, sizeof lock->path, "%s", lock_path);
	*out = lock;
	lock = NULL;
	fd = -1;
cleanup:
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
	free(lock);
	return rc;
}

int pyrt_lock_fd(const pyrt_lock *lock)
{
	return lock ? lock->fd : -1;
}

/* Empty the record first so a prober never reads a holder that left. */
void pyrt_lock_release(pyrt_lock *lock)
{
	if (!lock)
		return;
	publish_state(lock->path, NULL, 0);
	pyrt_os_unlock_file(lock->fd);
	if (ftruncate(lock->fd, 0) != 0) {
		/* Harmless: the next owner overwrites the stale record. */
	}
	flock(lock->fd, LOCK_UN);
	close(lock->fd);
	free(lock);
}


/* The published state of a lock we cannot open: held while it names a
 * live process on this host (a holder that died leaves a record whose pid
 * is gone).  1 held, 0 not. */
static int probe_state(const char *lock_path, pyrt_lock_holder *holder)
{
	char path[PATH_MAX], text[OWNER_MAX], host[256];
	if (state_path(lock_path, path, sizeof path))
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, text, sizeof text - 1, 0);
	close(fd);
	pyrt_lock_holder h;
	if (n <= 0)
		return 0;
	text[n] = '\0';
	host_name(host, sizeof host);
	if (!parse_holder(text, &h) || h.pid <= 0 || strcmp(h.host, host) ||
	    (kill((pid_t)h.pid, 0) != 0 && errno != EPERM))
		return 0;
	if (holder)
		*holder = h;
	return 1;
}

/* Non-blocking look at the lock for status and doctor; takes nothing. */
int pyrt_lock_probe(const char *lock_path, pyrt_lock_holder *holder,
		    pyrt_error *err)
{
	if (holder)
		memset(holder, 0, sizeof *holder);
	/* EACCES: root's private lock, seen by another user: what it
	 * publishes says whether an install runs. */
	if (access(lock_path, R_OK) != 0) {
		if (errno == EACCES)
			return probe_state(lock_path, holder);
		if (errno == ENOENT)
			return 0;
	}
	int fd = pyrt_fs_open_state(lock_path, O_RDONLY, 0, err);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return fd;
	}
	/* 1 when a holder's record lock is on the file, -1 when the kernel
	 * cannot tell. */
	int rc = pyrt_os_lock_held(fd);
	if (rc == 1 && holder)
		read_holder(fd, holder);
	if (rc >= 0) {
		close(fd);
		return rc;
	}
	/* No OFD locks here: a shared flock, held for an instant (an
	 * install --no-wait starting in that instant is turned away). */
	while ((rc = flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR)
		;
	if (rc == 0) {
		flock(fd, LOCK_UN);
		rc = 0;
	} else if (errno == EWOULDBLOCK) {
		if (holder)
			read_holder(fd, holder);
		rc = 1;
	} else {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot probe lock file %s",
					  lock_path);
	}
	close(fd);
	return rc;
}

/* Atomic, so a sweep never reads half a record and judges it unowned. */
int pyrt_staging_mark_owner(const char *dir, pyrt_error *err)
{
	char rec[512];
	int n = owner_record(rec, sizeof rec);
	if (n < 0 || (size_t)n >= sizeof rec)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "owner record too long");
	char *path = NULL;
	if (asprintf(&path, "%s/%s", dir, OWNER_FILE) < 0)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = pyrt_fs_write_file_atomic(path, rec, (size_t)n, err);
	free(path);
	return rc;
}

/* Why a staging entry may go; reason is for the log line. */
typedef struct stale_verdict {
	int stale;
	int is_dir;
	char reason[128];
} stale_verdict;

/* Read dir/.owner without following links; 1 when it names a pid. */
static int read_owner(int rootfd, const char *name, pyrt_lock_holder *h)
{
	memset(h, 0, sizeof *h);
	int dfd = openat(rootfd, name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	int fd = openat(dfd, OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return 0;
	int ok = read_holder(fd, h);
	close(fd);
	return ok && h->host[0];
}

/* The pid at the end of an install id ("...-20261201T101513Z-6668"), or 0. */
static long name_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	if (!dash || !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1) ||
	    strlen(dash + 1) > 9)
		return 0;
	return strtol(dash + 1, NULL, 10);
}

/*
 * Decide about one staging entry.  Conservative: a live pid, a pid on
 * another host, or a recent unowned directory is kept.
 */
static void judge_entry(int rootfd, const char *name, const char *host,
			stale_verdict *v)
{
	memset(v, 0, sizeof *v);
	struct stat st;
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		v->stale = 1;
		pyrt_fmt_text(v->reason, sizeof v->reason, "a stray symlink");
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	v->is_dir = 1;
	pyrt_lock_holder h;
	if (read_owner(rootfd, name, &h)) {
		if (strcmp(h.host, host) != 0 || h.pid == (long)getpid())
			return;
		if (kill((pid_t)h.pid, 0) == 0 || errno != ESRCH)
			return;
		v->stale = 1;
		pyrt_fmt_text(v->reason, sizeof v->reason, "pid %ld is gone",
			      h.pid);
		return;
	}
	/* Killed between mkdir and the owner record: the install id ends
	 * with the installer's pid. */
	long pid = name_pid(name);
	if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
	    errno == ESRCH) {
		v->stale = 1;
		pyrt_fmt_text(v->reason, sizeof v->reason,
			      "no owner record, and pid %ld is gone", pid);
		return;
	}
	if (time(NULL) - st.st_mtime > STALE_UNOWNED_SECONDS) {
		v->stale = 1;
		pyrt_fmt_text(v->reason, sizeof v->reason,
			      "no owner, untouched for over an hour");
	}
}

/* Remove one stale entry; a failure is logged, not fatal to the install. */
static int remove_entry(const char *root, int rootfd, const char *name,
			const stale_verdict *v, const pyrt_events *ev)
{
	pyrt_error rerr = PYRT_ERROR_INIT;
	int rc = 0;
	if (!v->is_dir) {
		if (unlinkat(rootfd, name, 0) != 0 && errno != ENOENT)
			rc = pyrt_error_set_errno(&rerr, PYRT_E_IO, errno,
						  "cannot remove %s/%s",
						  root, name);
	} else {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", root, name) < 0)
			return PYRT_E_NOMEM;
		rc = pyrt_fs_remove_tree(path, NULL, &rerr);
		free(path);
	}
	if (rc != 0) {
		int lrc = pyrt_events_log(ev, PYRT_LOG_WARN,
					  "could not remove stale staging %s: %s",
					  name, rerr.msg);
		return lrc != 0 ? lrc : 1;
	}
	rc = pyrt_events_log(ev, PYRT_LOG_INFO,
			     "removed stale staging %s (%s)", name, v->reason);
	return rc;
}

/*
 * Walk staging_root judging each entry; remove the stale ones when ev_remove
 * is set.  Returns how many were (or would be) removed.
 */
static int staging_walk(const char *root, int remove, const pyrt_events *ev,
			pyrt_error *err)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		if (errno == ENOENT)
			return 0;
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open staging directory %s",
					    root);
	}
	int dup_fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		int e = errno;
		if (dup_fd >= 0)
			close(dup_fd);
		close(rootfd);
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot read staging directory %s",
					    root);
	}
	char host[256];
	host_name(host, sizeof host);
	int count = 0, rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (remove && pyrt_events_cancelled(ev)) {
			rc = pyrt_error_set(err, PYRT_E_CANCELLED,
					    "cancelled while sweeping %s",
					    root);
			break;
		}
		stale_verdict v;
		judge_entry(rootfd, de->d_name, host, &v);
		if (!v.stale)
			continue;
		if (!remove) {
			count++;
			continue;
		}
		int r = remove_entry(root, rootfd, de->d_name, &v, ev);
		if (r < 0) {
			rc = r == PYRT_E_CANCELLED
				     ? pyrt_error_set(err, r,
						      "cancelled while sweeping %s",
						      root)
				     : pyrt_error_set(err, r, "out of memory");
			break;
		}
		if (r == 0)
			count++;
	}
	closedir(d);
	close(rootfd);
	return rc != 0 ? rc : count;
}

/* Called with the box lock held, before a new staging dir is made. */
int pyrt_staging_sweep(const char *staging_root, const pyrt_events *ev,
		       pyrt_error *err)
{
	return staging_walk(staging_root, 1, ev, err);
}

/* The sweep's verdicts without acting on them, for doctor. */
int pyrt_staging_count_stale(const char *staging_root, pyrt_error *err)
{
	return staging_walk(staging_root, 0, NULL, err);
}
