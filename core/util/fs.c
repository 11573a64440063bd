/*
 * Filesystem helpers shared by the engine.  Everything that touches a tree
 * we did not write ourselves (extracted archives, leftover staging) goes
 * through descriptor-relative calls with O_NOFOLLOW, so a planted symlink can
 * never redirect a removal or a chmod outside the tree.
 */
#include "core/util/fs.h"

#include <dirent.h>
#include <pwd.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/util/clock.h"
#include "core/util/fmt.h"

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* mkdir -p; each component we create is 0700, existing ones are kept. */
int pyrt_fs_mkdirs(const char *path, pyrt_error *err)
{
	if (!path || !*path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "mkdirs called with an empty path");
	char *copy = strdup(path);
	if (!copy)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = 0;
	char *p = copy;
	for (;;) {
		while (*p == '/')
			p++;
		char *slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		if (*p && mkdir(copy, 0700) != 0 && errno != EEXIST) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot create directory %s",
						  copy);
			goto cleanup;
		}
		if (!slash)
			break;
		*slash = '/';
		p = slash + 1;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot create directory %s", path);
	else if (!S_ISDIR(st.st_mode))
		rc = pyrt_error_set(err, PYRT_E_IO,
				    "cannot create directory %s: a file of that name is in the way",
				    path);
cleanup:
	free(copy);
	return rc;
}

/* One directory we descended into: how to find it again from below. */
typedef struct rt_frame {
	char *name;   /* its name inside the parent */
	dev_t pdev;   /* the parent's identity, checked when we climb back */
	ino_t pino;
} rt_frame;

/* State of one pyrt_fs_remove_tree walk. */
typedef struct rt_walk {
	const char *top;
	pyrt_fs_remove_limits lim;
	double started;
	uint64_t entries;
	rt_frame *stack;
	size_t depth, cap;
	pyrt_error *err;
} rt_walk;

/* Where we are, for messages: "<top>/<a>/<b>/<name>" (truncated if long). */
static void rt_where(const rt_walk *w, const char *name, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", w->top);
	for (size_t i = 0; i < w->depth && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "/%s",
					 w->stack[i].name);
	if (name && used < len)
		pyrt_fmt_text(buf + used, len - used, "/%s", name);
}

/* An I/O failure at the current position of the walk, named in full. */
static int rt_io_error(rt_walk *w, int errnum, const char *what,
		       const char *name)
{
	char where[PATH_MAX];
	rt_where(w, name, where, sizeof where);
	return pyrt_error_set_errno(w->err, PYRT_E_IO, errnum, "cannot %s %s",
				    what, where);
}

/* Count one removal and enforce the limits a caller set for the walk. */
static int rt_tick(rt_walk *w)
{
	w->entries++;
	if (w->entries > w->lim.max_entries)
		return pyrt_error_set(w->err, PYRT_E_IO,
				      "gave up removing %s after %llu entries",
				      w->top,
				      (unsigned long long)w->lim.max_entries);
	double spent = pyrt_now() - w->started;
	if (spent > w->lim.max_seconds)
		return pyrt_error_set(w->err, PYRT_E_IO,
				      "gave up removing %s after %.0f seconds",
				      w->top, spent);
	return 0;
}

/*
 * Unlink every non-directory in dirfd.  Stops at the first subdirectory and
 * hands its name back (malloc'd) so the caller can descend; *sub stays NULL
 * when the directory is now empty.
 */
static int rt_drain(rt_walk *w, int dirfd, char **sub)
{
	*sub = NULL;
	int dup_fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return rt_io_error(w, errno, "read directory", NULL);
	DIR *d = fdopendir(dup_fd);
	if (!d) {
		int e = errno;
		close(dup_fd);
		return rt_io_error(w, e, "read directory", NULL);
	}
	/* The dup shares the offset of earlier passes over this directory. */
	rewinddir(d);
	int rc = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno)
				rc = rt_io_error(w, errno, "read directory",
						 NULL);
			break;
		}
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		int is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				if (errno == ENOENT)
					continue;
				rc = rt_io_error(w, errno, "inspect", n);
				break;
			}
			is_dir = S_ISDIR(st.st_mode);
		}
		if (!is_dir) {
			if ((rc = rt_tick(w)) != 0)
				break;
			if (unlinkat(dirfd, n, 0) == 0 || errno == ENOENT)
				continue;
			if (errno != EISDIR) {
				rc = rt_io_error(w, errno, "remove", n);
				break;
			}
		}
		*sub = strdup(n);
		if (!*sub)
			rc = pyrt_error_set(w->err, PYRT_E_NOMEM,
					    "out of memory");
		break;
	}
	closedir(d);
	return rc;
}

/*
 * Open a subdirectory for removal, making it readable, searchable and
 * writable for us first: extracted trees may contain 0555 directories.
 * Returns the fd, -1 when the entry turned out not to be a directory (it
 * was swapped for a file or symlink; the caller unlinks it), or a negative
 * pyrt_code below -1 on failure.
 */
static int rt_open_sub(rt_walk *w, int dirfd, const char *name)
{
	/* The top of the walk is named by its full path already. */
	const char *label = name == w->top ? NULL : name;
	int fd = openat(dirfd, name, DIR_OPEN_FLAGS);
	if (fd < 0 && errno == EACCES) {
		/* Refused (never a symlink under AT_SYMLINK_NOFOLLOW). */
		if (fchmodat(dirfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
			fd = openat(dirfd, name, DIR_OPEN_FLAGS);
		else
			errno = EACCES;
	}
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return -1;
		if (errno == ENOENT)
			return -1;
		return rt_io_error(w, errno, "open", label);
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return rt_io_error(w, e, "inspect", label);
	}
	if ((st.st_mode & 0700) != 0700 && fchmod(fd, 0700) != 0) {
		int e = errno;
		close(fd);
		return rt_io_error(w, e, "make writable", label);
	}
	return fd;
}

/* Remember how to climb back out of a directory we are entering. */
static int rt_push(rt_walk *w, char *name, int parent_fd)
{
	int rc = rt_tick(w);
	if (rc != 0)
		return rc;
	struct stat st;
	if (fstat(parent_fd, &st) != 0)
		return rt_io_error(w, errno, "inspect", NULL);
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		rt_frame *s = realloc(w->stack, cap * sizeof *s);
		if (!s)
			return pyrt_error_set(w->err, PYRT_E_NOMEM,
					      "out of memory");
		w->stack = s;
		w->cap = cap;
	}
	w->stack[w->depth++] = (rt_frame){ name, st.st_dev, st.st_ino };
	return 0;
}

/*
 * Climb from the emptied directory fd back to its parent and remove it.
 * The parent is reached through ".." and must be the very directory we came
 * from, so a rename during the walk cannot lead us elsewhere.  Returns the
 * parent fd or a negative pyrt_code; fd is closed either way.
 */
static int rt_pop(rt_walk *w, int fd)
{
	rt_frame f = w->stack[--w->depth];
	int pfd = openat(fd, "..", DIR_OPEN_FLAGS);
	int e = errno;
	close(fd);
	int rc = 0;
	struct stat st;
	if (pfd < 0)
		rc = rt_io_error(w, e, "climb back out of", f.name);
	else if (fstat(pfd, &st) != 0 || st.st_dev != f.pdev ||
		 st.st_ino != f.pino)
		rc = pyrt_error_set(w->err, PYRT_E_IO,
				    "cannot remove %s: the tree was moved while being removed",
				    w->top);
	else if (unlinkat(pfd, f.name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		rc = rt_io_error(w, errno, "remove", f.name);
	free(f.name);
	if (rc != 0) {
		if (pfd >= 0)
			close(pfd);
		return rc;
	}
	return pfd;
}

/*
 * Empty the directory open as fd, depth first, holding one or two
 * descriptors at a time whatever the depth.  fd is consumed.
 */
static int rt_empty(rt_walk *w, int fd)
{
	int rc = 0;
	for (;;) {
		char *sub = NULL;
		if ((rc = rt_drain(w, fd, &sub)) != 0)
			break;
		if (!sub) {
			if (w->depth == 0)
				break;
			int pfd = rt_pop(w, fd);
			fd = -1;
			if (pfd < 0) {
				rc = pfd;
				break;
			}
			fd = pfd;
			continue;
		}
		int cfd = rt_open_sub(w, fd, sub);
		if (cfd == -1) {
			/* Became a non-directory under us: plain unlink. */
			int u = unlinkat(fd, sub, 0);
			int e = errno;
			if ((rc = rt_tick(w)) == 0 && u != 0 && e != ENOENT)
				rc = rt_io_error(w, e, "remove", sub);
			free(sub);
			if (rc != 0)
				break;
			continue;
		}
		if (cfd < 0) {
			free(sub);
			rc = cfd;
			break;
		}
		if ((rc = rt_push(w, sub, fd)) != 0) {
			free(sub);
			close(cfd);
			break;
		}
		close(fd);
		fd = cfd;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Remove a tree without ever following a symlink, within the given limits. */
int pyrt_fs_remove_tree(const char *path, const pyrt_fs_remove_limits *limits,
			pyrt_error *err)
{
	static const pyrt_fs_remove_limits defaults = PYRT_FS_REMOVE_LIMITS_INIT;
	if (!path || !*path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "remove_tree called with an empty path");
	/* "dir/" would make lstat follow a symlink named dir. */
	char *top = strdup(path);
	if (!top)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	size_t n = strlen(top);
	while (n > 1 && top[n - 1] == '/')
		top[--n] = '\0';

	rt_walk w = { .top = top, .lim = limits ? *limits : defaults,
		      .started = pyrt_now(), .err = err };
	int rc = 0;
	struct stat st;
	if (lstat(top, &st) != 0) {
		if (errno != ENOENT)
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot inspect %s", top);
		goto cleanup;
	}
	if (!S_ISDIR(st.st_mode)) {
		if ((rc = rt_tick(&w)) == 0 && unlink(top) != 0 &&
		    errno != ENOENT)
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot remove %s", top);
		goto cleanup;
	}
	int fd = rt_open_sub(&w, AT_FDCWD, top);
	if (fd == -1) {
		/* Swapped for a non-directory since the lstat. */
		if (unlink(top) != 0 && errno != ENOENT)
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot remove %s", top);
		goto cleanup;
	}
	if (fd < 0) {
		rc = fd;
		goto cleanup;
	}
	if ((rc = rt_tick(&w)) != 0) {
		close(fd);
		goto cleanup;
	}
	if ((rc = rt_empty(&w, fd)) != 0)
		goto cleanup;
	if (rmdir(top) != 0 && errno != ENOENT)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot remove %s", top);
cleanup:
	for (size_t i = 0; i < w.depth; i++)
		free(w.stack[i].name);
	free(w.stack);
	free(top);
	return rc;
}

int pyrt_fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t k = write(fd, p, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO; /* no progress: never loop on it */
			return -1;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Make a rename durable: fsync the directory that holds path. */
static void fsync_parent(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return;
	char *slash = strrchr(copy, '/');
	const char *dir = ".";
	if (slash == copy)
		dir = "/";
	else if (slash) {
		*slash = '\0';
		dir = copy;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/*
 * Create the 0600 temp file next to path.  The name carries our pid and a
 * retry index rather than a counter, so two writers never share a name and
 * no global state is needed.
 */
static int open_temp(const char *path, char **tmp, pyrt_error *err)
{
	for (unsigned n = 0; n < 100; n++) {
		char *name = NULL;
		if (asprintf(&name, "%s.tmp.%ld.%u", path, (long)getpid(),
			     n) < 0)
			return pyrt_error_set(err, PYRT_E_NOMEM,
					      "out of memory");
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC, 0600);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		int e = errno;
		free(name);
		if (e != EEXIST)
			return pyrt_error_set_errno(err, PYRT_E_IO, e,
						    "cannot create a temporary file next to %s",
						    path);
	}
	return pyrt_error_set(err, PYRT_E_IO,
			      "cannot create a temporary file next to %s: too many leftovers",
			      path);
}

/* Readers see either the old file or the new one, never a torn write. */
int pyrt_fs_write_file_atomic(const char *path, const void *data, size_t len,
			      pyrt_error *err)
{
	return pyrt_fs_write_file_atomic_mode(path, data, len, 0600, err);
}

int pyrt_fs_write_file_atomic_mode(const char *path, const void *data,
				   size_t len, unsigned mode, pyrt_error *err)
{
	char *tmp = NULL;
	int fd = open_temp(path, &tmp, err);
	if (fd < 0)
		return fd;
	int rc = 0;
	/* fchmod, not open's mode: the umask must not make a file every user
	 * should read (the marker of a shared box) private by accident. */
	if (pyrt_fs_write_all(fd, data, len) != 0 || fchmod(fd, (mode_t)mode) != 0 ||
	    fsync(fd) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
		close(fd);
		goto cleanup;
	}
	if (close(fd) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", tmp);
		goto cleanup;
	}
	if (rename(tmp, path) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot replace %s", path);
		goto cleanup;
	}
	fsync_parent(path);
cleanup:
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* Read an open file whole, refusing anything longer than max_len; the
 * descriptor is closed. */
static int fs_read_fd(int fd, const char *path, size_t max_len, char **out,
		      size_t *len, struct stat *sb, pyrt_error *err)
{
	int rc = 0;
	if (max_len == SIZE_MAX)
		max_len--;
	size_t cap = max_len < 4096 ? max_len + 1 : 4096, used = 0;
	char *buf = malloc(cap);
	if (!buf) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	for (;;) {
		if (used == cap) {
			size_t ncap = cap * 2 > max_len + 1 ? max_len + 1
							    : cap * 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				rc = pyrt_error_set(err, PYRT_E_NOMEM,
						    "out of memory");
				goto cleanup;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t k = read(fd, buf + used, cap - used);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot read %s", path);
			goto cleanup;
		}
		if (k == 0)
			break;
		used += (size_t)k;
		if (used > max_len) {
			rc = pyrt_error_set(err, PYRT_E_IO,
					    "%s is larger than %zu bytes",
					    path, max_len);
			goto cleanup;
		}
	}
	if (sb && fstat(fd, sb) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot stat %s", path);
		goto cleanup;
	}
	/* used <= max_len < cap here, so the terminator fits. */
	buf[used] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = used;
cleanup:
	free(buf);
	close(fd);
	return rc;
}

/* Read a small file whole.  Not blocking on a FIFO or device: only a
 * regular file is read. */
int pyrt_fs_read_file(const char *path, size_t max_len, char **out,
		      size_t *len, pyrt_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", path);
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pyrt_error_set(err, PYRT_E_IO,
				      "%s is not a regular file", path);
	}
	return fs_read_fd(fd, path, max_len, out, len, NULL, err);
}

int pyrt_fs_read_state(const char *path, size_t max_len, char **out,
		       size_t *len, pyrt_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = pyrt_fs_open_state(path, O_RDONLY, 0, err);
	if (fd < 0)
		return fd;
	return fs_read_fd(fd, path, max_len, out, len, NULL, err);
}

int pyrt_fs_read_state_stat(const char *path, size_t max_len, char **out,
			    size_t *len, struct stat *sb, pyrt_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = pyrt_fs_open_state(path, O_RDONLY, 0, err);
	if (fd < 0)
		return fd;
	return fs_read_fd(fd, path, max_len, out, len, sb, err);
}

/* f_bavail, not f_bfree: root's reserve is not ours to count on. */
uint64_t pyrt_fs_free_bytes(const char *path)
{
	struct statvfs sv;
	if (statvfs(path, &sv) != 0)
		return 0;
	return (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
}

/* UTC with a Z, the form status and markers record; "" if buf is too small. */
void pyrt_fs_now_rfc3339(char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	time_t now = time(NULL);
	struct tm tm;
	if (!gmtime_r(&now, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		buf[0] = '\0';
}

void pyrt_fs_owner_name(unsigned uid, char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char scratch[1024];
	if (getpwuid_r(uid, &pw, scratch, sizeof scratch, &found) == 0 && found)
		pyrt_fmt_text(buf, len, "uid %u (%s)", (unsigned)uid, pw.pw_name);
	else
		pyrt_fmt_text(buf, len, "uid %u", (unsigned)uid);
}

/* Why a state file is refused, or 0 when it may be used. */
static int fs_state_refuse(const char *path, const struct stat *st,
			   pyrt_error *err)
{
	char owner[128], me[128];
	if (!S_ISREG(st->st_mode))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "%s is not a regular file; pyrt keeps only "
				      "regular files there — remove it", path);
	/* Root's files are trusted by everyone (a shared box): whoever is
	 * root could change ours too. */
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		pyrt_fs_owner_name(st->st_uid, owner, sizeof owner);
		pyrt_fs_owner_name(geteuid(), me, sizeof me);
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "%s is owned by %s, not by you (%s) or "
				      "root — remove it, or run pyrt as its "
				      "owner", path, owner, me);
	}
	return 0;
}

int pyrt_fs_open_state(const char *path, int flags, unsigned mode,
		       pyrt_error *err)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    O_NOCTTY, (mode_t)mode);
	if (fd < 0 && errno == ELOOP)
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "%s is a symbolic link; pyrt never follows "
				      "links for its own files — remove it", path);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", path);
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot stat %s", path);
	if (!rc)
		rc = fs_state_refuse(path, &st, err);
	/* O_NONBLOCK kept a FIFO from hanging the open; on the regular file
	 * fs_state_refuse let through it changes nothing (open(2)), so a
	 * reader keeps it and saves two calls.  A writer's descriptor may be
	 * handed to a child: cleared there. */
	if (!rc && (flags & O_ACCMODE) != O_RDONLY &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot use %s", path);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int pyrt_fs_check_private_dir(const char *path, int *missing,
			      pyrt_error *err)
{
	return pyrt_fs_check_private_dir_stat(path, NULL, missing, NULL, err);
}

int pyrt_fs_check_private_dir_stat(const char *path, const struct stat *known,
				   int *missing, struct stat *seen,
				   pyrt_error *err)
{
	struct stat st;
	char owner[128], me[128];
	if (missing)
		*missing = 0;
	if (known)
		st = *known;
	else if (lstat(path, &st) != 0) {
		if (errno == ENOENT && missing) {
			*missing = 1;
			return 0;
		}
		return pyrt_error_set_errno(err, errno == EACCES ? PYRT_E_UNTRUSTED
								 : PYRT_E_IO,
					    errno, "cannot read %s", path);
	}
	if (seen)
		*seen = st;
	if (S_ISLNK(st.st_mode))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing %s: it is a symbolic link inside "
				      "the box, and pyrt never follows those — "
				      "remove it (the next install recreates it)",
				      path);
	if (!S_ISDIR(st.st_mode))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing %s: it is not a directory — "
				      "remove it", path);
	/* OpenSSH's rule: root's directories are trusted by every user. */
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		pyrt_fs_owner_name(st.st_uid, owner, sizeof owner);
		pyrt_fs_owner_name(geteuid(), me, sizeof me);
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing the box directory %s: it is "
				      "owned by %s, not by you (%s) or root — "
				      "run pyrt as its owner, or use a box root "
				      "of your own (--box-root DIR)", path,
				      owner, me);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing the box directory %s: it is "
				      "writable by %s (mode %04o) — run "
				      "\"chmod go-w %s\"", path,
				      (st.st_mode & S_IWOTH) ? "everyone"
							     : "its group",
				      (unsigned)(st.st_mode & 07777), path);
	return 0;
}

/* One directory above the box: owner root or us; others' write only with
 * the sticky bit (they can add entries, not rename ours). */
static int fs_check_ancestor(const char *dir, const struct stat *known,
			     pyrt_error *err)
{
	struct stat st;
	char owner[128];
	if (known)
		st = *known;
	else if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0
				       : pyrt_error_set_errno(err, PYRT_E_UNTRUSTED,
							      errno,
							      "cannot read %s",
							      dir);
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		pyrt_fs_owner_name(st.st_uid, owner, sizeof owner);
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing a box under %s: that directory "
				      "is owned by %s, who could swap the box "
				      "for their own — use a box root in a "
				      "directory owned by you or root", dir,
				      owner);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing a box under %s: that directory "
				      "is writable by others (mode %04o) and not "
				      "sticky — run \"chmod go-w %s\" or use "
				      "another box root", dir,
				      (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

const struct stat *pyrt_fs_seen_at(const pyrt_fs_seen *seen, size_t depth)
{
	if (!seen || depth > seen->depth || depth > PYRT_FS_SEEN_MAX ||
	    !seen->known[depth])
		return NULL;
	return &seen->st[depth];
}

/* Components of an absolute path ("/" has none, "/a/b" two). */
static size_t path_depth(const char *path)
{
	size_t n = 0;
	for (const char *c = path; *c;) {
		c += strspn(c, "/");
		size_t k = strcspn(c, "/");
		n += k > 0;
		c += k;
	}
	return n;
}

/* Absolute, no empty, "." or ".." name, no trailing "/" (but "/"). */
static int path_canonical(const char *path)
{
	if (path[0] != '/')
		return 0;
	if (!path[1])
		return 1;
	for (const char *c = path; *c;) {
		c++; /* the '/' */
		size_t k = strcspn(c, "/");
		if (k == 0 || (k == 1 && c[0] == '.') ||
		    (k == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += k;
	}
	return 1;
}

int pyrt_fs_check_ancestors(const char *path, pyrt_error *err)
{
	return pyrt_fs_check_ancestors_seen(path, NULL, err);
}

int pyrt_fs_check_ancestors_seen(const char *path, const pyrt_fs_seen *seen,
				 pyrt_error *err)
{
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
		return pyrt_error_set(err, PYRT_E_USAGE, "path too long: %s",
				      path);
	/* A resolved path is "/" and names: one component fewer a step.
	 * Any other spelling would pair a folder with another's lstat. */
	if (seen && (strcmp(seen->path, dir) != 0 || !path_canonical(dir)))
		seen = NULL;
	size_t depth = seen ? path_depth(dir) : 0;
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		depth = depth ? depth - 1 : 0;
		if (slash == dir) {
			return fs_check_ancestor("/", pyrt_fs_seen_at(seen, 0),
						 err);
		}
		*slash = '\0';
		int rc = fs_check_ancestor(dir, pyrt_fs_seen_at(seen, depth),
					   err);
		if (rc)
			return rc;
	}
}

int pyrt_fs_resolve(const char *path, char *out, size_t len, pyrt_error *err)
{
	char head[PATH_MAX], real[PATH_MAX];
	if (!path || path[0] != '/' || strlen(path) >= sizeof head)
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "not an absolute path: %s", path ? path : "");
	pyrt_fmt_text(head, sizeof head, "%s", path);
	/* Walk up to the longest prefix that exists; the rest is new. */
	size_t cut = strlen(head);
	while (!realpath(head, real)) {
		if (errno != ENOENT)
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "cannot resolve %s", head);
		char *slash = strrchr(head, '/');
		if (!slash || slash == head) {
			pyrt_fmt_text(real, sizeof real, "/");
			cut = 0;
			break;
		}
		*slash = '\0';
		cut = (size_t)(slash - head);
	}
	const char *tail = path + cut;
	for (const char *c = tail; *c;) {
		c += strspn(c, "/");
		size_t n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "%s: \".\" or \"..\" in a part "
					      "that does not exist yet", path);
		c += n;
	}
	int n = snprintf(out, len, "%s%s",
			 strcmp(real, "/") == 0 && *tail ? "" : real, tail);
	if (n < 0 || (size_t)n >= len)
		return pyrt_error_set(err, PYRT_E_USAGE, "path too long: %s",
				      path);
	return 0;
}

int pyrt_fs_path_inside(const char *path, const char *dir)
{
	char real[PATH_MAX];
	if (!realpath(dir, real))
		return 0;
	size_t n = strlen(real);
	return strncmp(path, real, n) == 0 && path[n] == '/';
}

static int open_dir_walk(int fd, int own, const char *rel, int *absent);

int pyrt_fs_open_dir_nofollow(const char *prefix, const char *rel,
			      int *absent)
{
	if (absent)
		*absent = 0;
	return open_dir_walk(open(prefix, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				  O_CLOEXEC), 1, rel, absent);
}

int pyrt_fs_open_dir_nofollow_at(int dirfd, const char *rel, int *absent)
{
	if (absent)
		*absent = 0;
	if (dirfd >= 0 && !*rel)
		return fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	return open_dir_walk(dirfd, 0, rel, absent);
}

/* rel opened one component at a time from fd, closed on the way when own
 * (the caller's otherwise). */
static int open_dir_walk(int fd, int own, const char *rel, int *absent)
{
	char part[NAME_MAX + 1];
	while (fd >= 0 && *rel) {
		size_t n = strcspn(rel, "/");
		if (!n || n >= sizeof part) {
			if (own)
				close(fd);
			errno = n ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		memcpy(part, rel, n);
		part[n] = '\0';
		rel += n + (rel[n] == '/');
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
		int e = errno;
		if (own)
			close(fd);
		own = 1;
		fd = next;
		if (fd < 0)
			errno = e;
	}
	if (fd < 0 && errno == ENOENT && absent)
		*absent = 1;
	return fd;
}
