/*
 * The walk of trust.h.  The path is resolved by hand, as the kernel would,
 * so that each folder is checked before a name is looked up in it and each
 * link before it is followed: realpath(3) alone says where a link leads
 * today, not who can make it lead elsewhere tomorrow.
 */
#include "core/util/trust.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/fmt.h"
#include "core/util/fs.h"

/* As the kernel's MAXSYMLINKS: a loop is refused, not followed forever. */
#define TRUST_MAX_LINKS 40

typedef struct walk {
	const char *label;
	const char *given;
	char cur[PATH_MAX];  /* resolved so far: absolute, no links */
	int cur_checked;     /* cur passed the folder rule */
	int cur_known;       /* cur_st is the lstat of cur this walk made */
	struct stat cur_st;
	size_t depth;        /* components of cur */
	pyrt_fs_seen *seen;  /* what was lstat'ed of cur's folders, or NULL */
	/* An earlier walk's record of this very path: its lstats stand in
	 * for this walk's own while the walk goes name by name down it. */
	const pyrt_fs_seen *reuse;
	pyrt_error *err;
} walk;

/* The earlier walk's lstat of cur's prefix of depth components. */
static const struct stat *reused(const walk *w, size_t depth)
{
	return w->reuse ? pyrt_fs_seen_at(w->reuse, depth) : NULL;
}

/* Remember st as the lstat of cur (depth components). */
static void seen_note(walk *w, const struct stat *st)
{
	if (!w->seen || w->depth > PYRT_FS_SEEN_MAX)
		return;
	w->seen->st[w->depth] = *st;
	w->seen->known[w->depth] = 1;
}

static int trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* "refusing LABEL PATH: <why>" — one message naming what to fix. */
__attribute__((format(printf, 2, 3)))
static int refuse(walk *w, const char *fmt, ...)
{
	char why[PYRT_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	pyrt_fmt_vtext(why, sizeof why, fmt, ap);
	va_end(ap);
	return pyrt_error_set(w->err, PYRT_E_UNTRUSTED, "refusing %s %s: %s",
			      w->label, w->given, why);
}

/* A folder a name is looked up in: who else could swap that name. */
static int check_folder(walk *w)
{
	if (w->cur_checked)
		return 0;
	struct stat st;
	char owner[128];
	/* The step that reached cur lstat'ed it just now: judge that, not a
	 * second lstat of the same name. */
	const struct stat *before = w->cur_known ? NULL : reused(w, w->depth);
	if (w->cur_known)
		st = w->cur_st;
	else if (before)
		st = *before;
	else if (lstat(w->cur, &st) != 0)
		return pyrt_error_set_errno(w->err, PYRT_E_USAGE, errno,
					    "%s %s: cannot read %s", w->label,
					    w->given, w->cur);
	if (!w->cur_known)
		seen_note(w, &st);
	int shared = (st.st_mode & (S_IWGRP | S_IWOTH)) &&
		     !(st.st_mode & S_ISVTX);
	if (trusted_uid(st.st_uid) && !shared) {
		w->cur_checked = 1;
		return 0;
	}
	/* The owner's name only for the message: NSS is not free. */
	pyrt_fs_owner_name(st.st_uid, owner, sizeof owner);
	if (!trusted_uid(st.st_uid))
		return refuse(w, "the folder %s is owned by %s, who could put "
			      "another file in its place — keep it in a "
			      "folder owned by you or root", w->cur, owner);
	return refuse(w, "the folder %s (owner %s) is writable by others "
		      "(mode %04o) and not sticky, so anyone could put another "
		      "file in its place — run \"chmod go-w %s\", or keep it "
		      "elsewhere", w->cur, owner, (unsigned)(st.st_mode & 07777),
		      w->cur);
}

/* The rule on what a path names (st): nobody but root or us may change
 * it.  it names it in the message, fixpath in the chmod fix. */
static int judge(walk *w, const struct stat *st, const char *it,
		 const char *fixpath)
{
	char owner[128], me[128];
	if (trusted_uid(st->st_uid) && !(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	pyrt_fs_owner_name(st->st_uid, owner, sizeof owner);
	if (!trusted_uid(st->st_uid)) {
		pyrt_fs_owner_name(geteuid(), me, sizeof me);
		return refuse(w, "%s is owned by %s, who could change it — "
			      "use a copy owned by %s%s and writable by no "
			      "one else", it, owner, geteuid() ? me : "root",
			      geteuid() ? " or root" : "");
	}
	/* A shared sticky folder (/tmp) is meant to be writable: changing its
	 * mode would break the machine, a folder of its own fixes this. */
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return refuse(w, "%s is a folder shared by every user (owner "
			      "%s, mode %04o) — leave its mode as it is and "
			      "use a folder of its own that only you or root "
			      "can write", it, owner,
			      (unsigned)(st->st_mode & 07777));
	return refuse(w, "%s (owner %s) is writable by %s (mode %04o) — run "
		      "\"chmod go-w %s\"", it, owner,
		      (st->st_mode & S_IWOTH) ? "everyone" : "its group",
		      (unsigned)(st->st_mode & 07777), fixpath);
}

static int check_final(walk *w)
{
	struct stat st;
	if (w->cur_known)
		st = w->cur_st;
	else if (lstat(w->cur, &st) != 0)
		return pyrt_error_set_errno(w->err, PYRT_E_USAGE, errno,
					    "%s %s: cannot read %s", w->label,
					    w->given, w->cur);
	/* "it" when the path led where it says, else where it led. */
	return judge(w, &st, strcmp(w->cur, w->given) ? w->cur : "it",
		     w->cur);
}

/* cur/name into cur; 0, or -1 when too long. */
static int cur_append(walk *w, const char *name)
{
	size_t n = strlen(w->cur);
	int k = snprintf(w->cur + n, sizeof w->cur - n, "%s%s",
			 n > 1 ? "/" : "", name);
	return k < 0 || (size_t)k >= sizeof w->cur - n ? -1 : 0;
}

static void cur_parent(walk *w)
{
	char *slash = strrchr(w->cur, '/');
	if (slash && slash != w->cur)
		*slash = '\0';
	else
		pyrt_fmt_text(w->cur, sizeof w->cur, "/");
	w->cur_checked = 0;
	w->cur_known = 0;
	w->reuse = NULL; /* the record is of a path walked straight down */
	if (w->depth)
		w->depth--;
}

/* The part that does not exist yet, appended as typed: no "." or "..",
 * which would climb out of what was checked. */
static int append_missing(walk *w, const char *name, const char *rest)
{
	w->cur_known = 0;
	if (cur_append(w, name) != 0)
		goto too_long;
	for (const char *c = rest; *c;) {
		c += strspn(c, "/");
		size_t n = strcspn(c, "/");
		if (n == 0)
			break;
		char comp[NAME_MAX + 1];
		if (n > NAME_MAX)
			goto too_long;
		memcpy(comp, c, n);
		comp[n] = '\0';
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return pyrt_error_set(w->err, PYRT_E_USAGE,
					      "%s %s: \".\" or \"..\" in a part "
					      "that does not exist yet",
					      w->label, w->given);
		if (cur_append(w, comp) != 0)
			goto too_long;
		c += n;
	}
	return 0;
too_long:
	return pyrt_error_set(w->err, PYRT_E_USAGE, "%s %s: path too long",
			      w->label, w->given);
}

/* A link on the way: followed only when its owner is root or us.  Its
 * target, then what followed it in the path, becomes what is left. */
static int follow_link(walk *w, const char *at, const struct stat *st,
		       char *rest, size_t restlen, const char *after)
{
	char target[PATH_MAX], owner[128];
	ssize_t n = readlink(at, target, sizeof target - 1);
	if (n < 0)
		return pyrt_error_set_errno(w->err, PYRT_E_USAGE, errno,
					    "%s %s: cannot read the link %s",
					    w->label, w->given, at);
	target[n] = '\0';
	if (!trusted_uid(st->st_uid)) {
		pyrt_fs_owner_name(st->st_uid, owner, sizeof owner);
		return refuse(w, "%s is a symbolic link owned by %s, who can "
			      "point it anywhere (today: %s) — give the path "
			      "it should lead to, or use a link owned by you "
			      "or root", at, owner, target);
	}
	char next[2 * PATH_MAX];
	int k = snprintf(next, sizeof next, "%s/%s", target, after);
	if (k < 0 || (size_t)k >= restlen)
		return pyrt_error_set(w->err, PYRT_E_USAGE,
				      "%s %s: path too long", w->label,
				      w->given);
	memcpy(rest, next, (size_t)k + 1);
	if (target[0] == '/') {
		pyrt_fmt_text(w->cur, sizeof w->cur, "/");
		w->cur_checked = 0;
		w->cur_known = 0;
		w->depth = 0;
	}
	return 0;
}

/* One name looked up in cur.  *done = 1 when the rest does not exist and
 * may be created (MISSING_OK). */
static int walk_step(walk *w, const char *name, char *rest, size_t restlen,
		     const char *after, unsigned flags, int *links, int *done)
{
	int rc = flags & PYRT_TRUST_LINKS_ONLY ? 0 : check_folder(w);
	if (rc)
		return rc;
	char at[PATH_MAX];
	int k = snprintf(at, sizeof at, "%s%s%s", w->cur,
			 strcmp(w->cur, "/") ? "/" : "", name);
	if (k < 0 || (size_t)k >= sizeof at)
		return pyrt_error_set(w->err, PYRT_E_USAGE,
				      "%s %s: path too long", w->label,
				      w->given);
	struct stat st;
	const struct stat *before = reused(w, w->depth + 1);
	if (before)
		st = *before;
	else if (lstat(at, &st) != 0) {
		if (errno == ENOENT && (flags & PYRT_TRUST_MISSING_OK)) {
			*done = 1;
			return append_missing(w, name, after);
		}
		return pyrt_error_set_errno(w->err, PYRT_E_USAGE, errno,
					    "%s %s", w->label, w->given);
	}
	if (S_ISLNK(st.st_mode)) {
		w->reuse = NULL; /* the record is of a path with no link */
		if ((rc = check_folder(w)) != 0)
			return rc;
		if (++*links > TRUST_MAX_LINKS)
			return pyrt_error_set(w->err, PYRT_E_USAGE,
					      "%s %s: too many symbolic links",
					      w->label, w->given);
		return follow_link(w, at, &st, rest, restlen, after);
	}
	memcpy(w->cur, at, (size_t)k + 1);
	w->cur_checked = 0;
	w->cur_known = 1;
	w->cur_st = st;
	w->depth++;
	seen_note(w, &st);
	memmove(rest, after, strlen(after) + 1);
	return 0;
}

static int walk_all(walk *w, const char *abs, unsigned flags)
{
	char rest[2 * PATH_MAX];
	pyrt_fmt_text(rest, sizeof rest, "%s", abs);
	pyrt_fmt_text(w->cur, sizeof w->cur, "/");
	w->cur_known = 0;
	w->depth = 0;
	int links = 0, done = 0;
	while (!done) {
		const char *p = rest + strspn(rest, "/");
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		char name[NAME_MAX + 1];
		if (n > NAME_MAX)
			return pyrt_error_set(w->err, PYRT_E_USAGE,
					      "%s %s: a name is too long",
					      w->label, w->given);
		memcpy(name, p, n);
		name[n] = '\0';
		const char *after = p + n;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			if (name[1])
				cur_parent(w);
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		int rc = walk_step(w, name, rest, sizeof rest, after, flags,
				   &links, &done);
		if (rc)
			return rc;
	}
	/* What exists of cur: a missing tail was appended past depth. */
	if (w->seen) {
		w->seen->depth = w->depth;
		pyrt_fmt_text(w->seen->path, sizeof w->seen->path, "%s",
			      w->cur);
	}
	if (done || (flags & (PYRT_TRUST_NO_FINAL | PYRT_TRUST_LINKS_ONLY)))
		return 0;
	return check_final(w);
}

static int trust_walk(const char *label, const char *path, unsigned flags,
		      char *resolved, size_t len, pyrt_fs_seen *seen,
		      const pyrt_fs_seen *reuse, pyrt_error *err);

int pyrt_trust_path(const char *label, const char *path, unsigned flags,
		    char *resolved, size_t len, pyrt_error *err)
{
	return pyrt_trust_path_seen(label, path, flags, resolved, len, NULL,
				    err);
}

int pyrt_trust_path_walked(const char *label, const char *path,
			   unsigned flags, char *resolved, size_t len,
			   pyrt_fs_seen *seen, const pyrt_fs_seen *reuse,
			   pyrt_error *err)
{
	return trust_walk(label, path, flags, resolved, len, seen, reuse, err);
}

int pyrt_trust_path_reuse(const char *label, const char *path, unsigned flags,
			  char *resolved, size_t len,
			  const pyrt_fs_seen *reuse, pyrt_error *err)
{
	return trust_walk(label, path, flags, resolved, len, NULL, reuse, err);
}

int pyrt_trust_path_seen(const char *label, const char *path, unsigned flags,
			 char *resolved, size_t len, pyrt_fs_seen *seen,
			 pyrt_error *err)
{
	return trust_walk(label, path, flags, resolved, len, seen, NULL, err);
}

static int trust_walk(const char *label, const char *path, unsigned flags,
		      char *resolved, size_t len, pyrt_fs_seen *seen,
		      const pyrt_fs_seen *reuse, pyrt_error *err)
{
	walk w = { .label = label, .given = path, .seen = seen, .err = err };
	if (seen) {
		memset(seen->known, 0, sizeof seen->known);
		seen->depth = 0;
		seen->path[0] = '\0';
	}
	char abs[PATH_MAX];
	if (!path || !*path)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s: empty path",
				      label);
	if (path[0] == '/') {
		if (strlen(path) >= sizeof abs)
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "%s %s: path too long", label,
					      path);
		pyrt_fmt_text(abs, sizeof abs, "%s", path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "%s %s: cannot tell the "
						    "working directory", label,
						    path);
		int k = snprintf(abs, sizeof abs, "%s/%s", cwd, path);
		if (k < 0 || (size_t)k >= sizeof abs)
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "%s %s: path too long", label,
					      path);
	}
	/* Only a record of this very path, spelled as its walk resolved it. */
	if (reuse && strcmp(reuse->path, abs) == 0)
		w.reuse = reuse;
	int rc = walk_all(&w, abs, flags);
	if (rc)
		return rc;
	if (resolved && snprintf(resolved, len, "%s", w.cur) >= (int)len)
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "%s %s: path too long", label, path);
	return 0;
}

int pyrt_trust_fd(const char *label, int fd, const char *shown,
		  pyrt_error *err)
{
	walk w = { .label = label, .given = shown, .err = err };
	struct stat st;
	if (fstat(fd, &st) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno, "%s %s",
					    label, shown);
	return judge(&w, &st, "it", shown);
}

int pyrt_trust_open(const char *label, const char *path, unsigned flags,
		    int *fd, pyrt_error *err)
{
	return pyrt_trust_open_seen(label, path, flags, NULL, fd, err);
}

int pyrt_trust_open_seen(const char *label, const char *path, unsigned flags,
			 const pyrt_fs_seen *seen, int *fd, pyrt_error *err)
{
	char real[PATH_MAX];
	*fd = -1;
	int rc = trust_walk(label, path, 0, real, sizeof real, NULL, seen, err);
	if (rc)
		return rc;
	/* The folder first, then the name in it without following a link:
	 * the walk left no link in real, so one there now is a swap. */
	char folder[PATH_MAX];
	pyrt_fmt_text(folder, sizeof folder, "%s", real);
	char *slash = strrchr(folder, '/');
	const char *name = slash && slash[1] ? slash + 1 : ".";
	if (slash)
		*(slash == folder ? slash + 1 : slash) = '\0';
	int dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno, "%s %s",
					    label, path);
	int f = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		       O_CLOEXEC | (flags & PYRT_TRUST_DIR ? O_DIRECTORY : 0));
	int saved = errno;
	close(dfd);
	if (f < 0)
		return pyrt_error_set_errno(err, saved == ELOOP
					    ? PYRT_E_UNTRUSTED : PYRT_E_USAGE,
					    saved, "%s %s%s", label, path,
					    saved == ELOOP ? ": became a "
					    "symbolic link while pyrt read it"
					    : "");
	if ((rc = pyrt_trust_fd(label, f, path, err)) != 0) {
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

/* One entry of a gated folder, judged on what fstatat sees there (no link
 * followed); a link is walked by the whole rule. */
static int entry_check(const char *label, int dfd, const char *real,
		       const char *name, pyrt_error *err)
{
	char entry[PATH_MAX];
	int k = snprintf(entry, sizeof entry, "%s/%s", real, name);
	if (k < 0 || (size_t)k >= sizeof entry)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s %s/%s: path too "
				      "long", label, real, name);
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno, "%s %s",
					    label, entry);
	if (S_ISLNK(st.st_mode))
		return pyrt_trust_path(label, entry, 0, NULL, 0, err);
	walk w = { .label = label, .given = entry, .err = err };
	return judge(&w, &st, "it", entry);
}

int pyrt_trust_dir_entries(const char *label, const char *dir,
			   pyrt_error *err)
{
	char real[PATH_MAX];
	int rc = pyrt_trust_path(label, dir, 0, real, sizeof real, err);
	if (rc)
		return rc;
	int dfd = -1;
	if ((rc = pyrt_trust_open(label, real, PYRT_TRUST_DIR, &dfd, err)))
		return rc;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno, "%s %s",
					    label, dir);
	}
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		rc = entry_check(label, dirfd(d), real, de->d_name, err);
	}
	closedir(d);
	return rc;
}
