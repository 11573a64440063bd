/*
 * The box's fingerprint (see watch.h): FNV-1a over the facts that change
 * when the state `pyrt status` and `pyrt plugins` read changes.
 */
#include "tui/watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runtime/box.h"
#include "core/runtime/lock.h"

#define PLUGINS_MAX 512

static void mix(unsigned long long *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		*h ^= p[i];
		*h *= 1099511628211ull;
	}
}

/* What lstat says changes when a file or link is replaced or written;
 * absent is a fact too. */
static void mix_stat(unsigned long long *h, int dirfd, const char *path)
{
	struct stat st;
	int rc = fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW);
	mix(h, &rc, sizeof rc);
	if (rc != 0)
		return;
	mix(h, &st.st_ino, sizeof st.st_ino);
	mix(h, &st.st_size, sizeof st.st_size);
	mix(h, &st.st_mtim, sizeof st.st_mtim);
}

static void mix_link(unsigned long long *h, const char *path)
{
	char target[4096];
	ssize_t n = readlink(path, target, sizeof target);
	mix(h, &n, sizeof n);
	if (n > 0)
		mix(h, target, (size_t)n);
	mix_stat(h, AT_FDCWD, path);
}

/* What stat (following links) says: the file a link leads to. */
static void mix_target(unsigned long long *h, const char *path)
{
	struct stat st;
	int rc = stat(path, &st);
	mix(h, &rc, sizeof rc);
	if (rc != 0)
		return;
	mix(h, &st.st_ino, sizeof st.st_ino);
	mix(h, &st.st_mode, sizeof st.st_mode);
	mix(h, &st.st_size, sizeof st.st_size);
	mix(h, &st.st_mtim, sizeof st.st_mtim);
}

/* The active install's marker (the baseline's outcome is written there)
 * and its interpreter (status checks it is there and executable). */
static void mix_install(unsigned long long *h, const pyrt_box *box,
			const char *interpreter)
{
	char dir[4096], path[4700];
	if (pyrt_box_link_install(box, pyrt_box_current(box), dir, sizeof dir,
				  NULL) != 0)
		return;
	snprintf(path, sizeof path, "%s/marker.json", dir);
	mix_stat(h, AT_FDCWD, path);
	if (!interpreter)
		return;
	snprintf(path, sizeof path, "%s/%s", dir, interpreter);
	mix_stat(h, AT_FDCWD, path);
	mix_target(h, path);
}

/* Each plugins/<name>/plugin.yaml; readdir's order is stable for an
 * unchanged directory, and a change of it is a change anyway. */
static void mix_plugins(unsigned long long *h, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];
	int n = 0;
	mix_stat(h, AT_FDCWD, dir);
	while (d && n++ < PLUGINS_MAX && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		mix(h, de->d_name, strlen(de->d_name));
		snprintf(path, sizeof path, "%s/plugin.yaml", de->d_name);
		mix_stat(h, dirfd(d), path);
	}
	if (d)
		closedir(d);
}

unsigned long long tui_watch_sig(const char *box_root,
				 const char *interpreter)
{
	unsigned long long h = 14695981039346656037ull;
	pyrt_box *box = NULL;
	if (pyrt_box_open(&box, box_root, 0, NULL) != 0) {
		mix_stat(&h, AT_FDCWD, box_root);
		return h;
	}
	pyrt_lock_holder holder;
	memset(&holder, 0, sizeof holder);
	int held = pyrt_lock_probe(pyrt_box_lock_path(box), &holder, NULL);
	mix(&h, &held, sizeof held);
	mix(&h, &holder.pid, sizeof holder.pid);
	mix_stat(&h, AT_FDCWD, pyrt_box_runtime_dir(box));
	mix_link(&h, pyrt_box_current(box));
	mix_link(&h, pyrt_box_previous(box));
	mix_install(&h, box, interpreter);
	mix_plugins(&h, pyrt_box_plugins_dir(box));
	pyrt_box_free(box);
	return h;
}
