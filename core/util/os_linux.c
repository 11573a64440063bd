/* The operating system's part, for Linux (os.h). */
#include "core/util/os.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <unistd.h>

int pyrt_os_pipe(int fds[2], int flags)
{
	return pipe2(fds, O_CLOEXEC | (flags & PYRT_OS_NONBLOCK ? O_NONBLOCK : 0));
}

int pyrt_os_die_with_parent(void)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL);
}

int pyrt_os_sync_fs(int fd)
{
	return syncfs(fd);
}

static int ofd_set(int fd, short type)
{
	/* l_pid must be 0 for an OFD request. */
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };
	int rc;
	while ((rc = fcntl(fd, F_OFD_SETLK, &fl)) != 0 && errno == EINTR)
		;
	return rc;
}

int pyrt_os_unlock_file(int fd)
{
	return ofd_set(fd, F_UNLCK);
}

int pyrt_os_lock_file(int fd, int exclusive)
{
	return ofd_set(fd, exclusive ? F_WRLCK : F_RDLCK);
}

int pyrt_os_lock_held(int fd)
{
	/* l_pid must be 0 for an OFD request. */
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	int rc;
	while ((rc = fcntl(fd, F_OFD_GETLK, &fl)) != 0 && errno == EINTR)
		;
	if (rc != 0)
		return -1;
	return fl.l_type != F_UNLCK;
}

int pyrt_os_fd_path(char *buf, size_t len, int dirfd, const char *name)
{
	int n = snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return access("/proc/self/fd", X_OK);
}

int pyrt_os_self_exe(char *buf, size_t len)
{
	if (len == 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n < 0)
		return -1;
	if ((size_t)n == len - 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int pyrt_os_random(void *buf, size_t n)
{
	unsigned char *p = buf;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/* Reading leaves no event (opens, reads and read-only closes are out of
 * the mask); a writer's death closes its file (IN_CLOSE_WRITE). */
#define WATCH_MASK (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | \
		    IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | \
		    IN_MOVE_SELF | IN_ONLYDIR)

int pyrt_os_watch_new(void)
{
	return inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

int pyrt_os_watch_add(int watcher, const char *dir)
{
	return inotify_add_watch(watcher, dir, WATCH_MASK);
}

void pyrt_os_watch_rm(int watcher, int id)
{
	inotify_rm_watch(watcher, id);
}

int pyrt_os_watch_drain(int watcher, pyrt_os_watch_fn fn, void *ctx)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(watcher, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;
			int lost = (e->mask & IN_Q_OVERFLOW) != 0;
			fn(lost ? -1 : e->wd, e->len ? e->name : "", ctx);
			p += sizeof *e + e->len;
		}
	}
}
