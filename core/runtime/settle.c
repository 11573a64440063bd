/*
 * Settling a stopped run's leftovers (settle.h).  Every folder is opened
 * without following a symlink; what is removed is removed through the
 * folder that was read.
 */
#include "core/runtime/settle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/os.h"
#include "core/util/requirement.h"

/* The normalised project name of "Name-1.0" or "Name-1.0.dist-info"
 * (before the first '-'), into out; 0 or -1. */
static int stem_norm(const char *name, char *out, size_t len)
{
	size_t n = strcspn(name, "-");
	if (!n || n >= len)
		return -1;
	return pyrt_name_normalize(name, n, '_', out);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcasecmp(s + n - k, suffix) == 0;
}

/* 1 when site folder fd holds a .dist-info whose project name normalises
 * to want, other than staged's own ("<staged>.dist-info": the broken one
 * the installer stages over). */
static int site_has_dist(int fd, const char *want, const char *staged)
{
	size_t sn = strlen(staged);
	int dfd = dup(fd);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	rewinddir(dir);
	struct dirent *de;
	char norm[256];
	int found = 0;
	while (!found && (de = readdir(dir)))
		found = de->d_name[0] != '~' &&
			ends_with(de->d_name, ".dist-info") &&
			!(strncmp(de->d_name, staged, sn) == 0 &&
			  strcmp(de->d_name + sn, ".dist-info") == 0) &&
			stem_norm(de->d_name, norm, sizeof norm) == 0 &&
			strcmp(norm, want) == 0;
	closedir(dir);
	return found;
}

typedef struct settle_ctx {
	int64_t reconciled;
	int dry_run;
	const pyrt_events *ev;
	pyrt_settle_report *rep;
	pyrt_error *err;
} settle_ctx;

/* Remove fd/name (a folder) named through fd: the folder that was read. */
static int remove_at(settle_ctx *c, int fd, const char *name)
{
	char path[PATH_MAX];
	if (pyrt_os_fd_path(path, sizeof path, fd, name) != 0)
		return pyrt_error_set_errno(c->err, PYRT_E_IO, errno,
					    "cannot name %s through its folder",
					    name);
	return pyrt_fs_remove_tree(path, NULL, c->err);
}

static void note_first(settle_ctx *c, const char *site, const char *what)
{
	if (!c->rep->first[0])
		pyrt_fmt_text(c->rep->first, sizeof c->rep->first, "%s/%s",
			      site, what);
}

/* Each staged distribution in site/.pyrt-fastwheel (sfd: site's fd). */
static int settle_staging(settle_ctx *c, int sfd, const char *site)
{
	int fd = openat(sfd, PYRT_FASTWHEEL_STAGING, O_RDONLY | O_DIRECTORY |
			O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int lfd = dup(fd);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dir) {
		if (lfd >= 0)
			close(lfd);
		close(fd);
		return 0;
	}
	struct dirent *de;
	char norm[256], what[600];
	int rc = 0;
	while (!rc && (de = readdir(dir))) {
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		pyrt_fmt_text(what, sizeof what, "%s/%s", PYRT_FASTWHEEL_STAGING, n);
		note_first(c, site, what);
		struct stat sb;
		int64_t mtime = fstatat(fd, n, &sb, AT_SYMLINK_NOFOLLOW) == 0
			? (int64_t)sb.st_mtim.tv_sec * 1000000000LL +
			  sb.st_mtim.tv_nsec : 0;
		int installed = stem_norm(n, norm, sizeof norm) == 0 &&
				site_has_dist(sfd, norm, n);
		int stale = c->reconciled && mtime < c->reconciled;
		if (!c->dry_run && !installed && !stale) {
			c->rep->staged_kept++;
			continue;
		}
		c->rep->staged_dropped++;
		if (c->dry_run)
			continue;
		rc = remove_at(c, fd, n);
		if (!rc && pyrt_events_log(c->ev, PYRT_LOG_INFO, "dropped the "
			 "staging of %s/%s, left by a run that stopped (%s): "
			 "never committed", site, what, installed
			 ? "another install of it is in place since"
			 : "older than the last finished install"))
			rc = pyrt_error_set(c->err, PYRT_E_CANCELLED,
					    "cancelled");
	}
	closedir(dir);
	if (!rc && !c->dry_run && !c->rep->staged_kept)
		unlinkat(sfd, PYRT_FASTWHEEL_STAGING, AT_REMOVEDIR);
	close(fd);
	return rc;
}

/* pip's stash folders ("~xxx") in the site folder sfd. */
static int settle_stashes(settle_ctx *c, int sfd, const char *site)
{
	int lfd = dup(sfd);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dir) {
		if (lfd >= 0)
			close(lfd);
		return 0;
	}
	rewinddir(dir);
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(dir))) {
		struct stat sb;
		if (de->d_name[0] != '~' ||
		    fstatat(sfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(sb.st_mode))
			continue;
		note_first(c, site, de->d_name);
		c->rep->stashes++;
		if (c->dry_run)
			continue;
		rc = remove_at(c, sfd, de->d_name);
		if (!rc && pyrt_events_log(c->ev, PYRT_LOG_INFO, "removed "
					   "pip's stash folder %s/%s, left by a "
					   "pip run that stopped", site,
					   de->d_name))
			rc = pyrt_error_set(c->err, PYRT_E_CANCELLED,
					    "cancelled");
	}
	closedir(dir);
	return rc;
}

int pyrt_settle(const char *install_dir, const pyrt_marker *m,
		int64_t reconciled_ns, int dry_run, const pyrt_events *ev,
		pyrt_settle_report *rep, pyrt_error *err)
{
	memset(rep, 0, sizeof *rep);
	if (!m->search_path_known)
		return 0;
	char prefix[PATH_MAX], site[PATH_MAX];
	if (snprintf(prefix, sizeof prefix, "%s/python", install_dir) >=
	    (int)sizeof prefix)
		return pyrt_error_set(err, PYRT_E_INTERNAL, "path too long");
	settle_ctx c = { reconciled_ns, dry_run, ev, rep, err };
	int rc = 0;
	for (int i = 0; !rc && i < m->search_path_count; i++) {
		const char *rel = m->search_path[i];
		/* The standard library's folders hold no distribution. */
		if (!strstr(rel, "-packages"))
			continue;
		int fd = pyrt_fs_open_dir_nofollow(prefix, rel, NULL);
		if (fd < 0)
			continue;
		if (pyrt_fmt_path(site, sizeof site, NULL, "%s/%s", prefix,
				  rel) != 0) {
			close(fd);
			continue;
		}
		rc = settle_staging(&c, fd, site);
		if (!rc)
			rc = settle_stashes(&c, fd, site);
		close(fd);
	}
	return rc;
}
