/* Start-up files nobody vouches for (see startup_files.h). */
#include "core/runtime/startup_files.h"

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

#define RECORD_MAX (8 * 1024 * 1024)

static const char FINDING[] =
	"a start-up file that neither the archive nor any installed "
	"distribution's RECORD lists: it runs at every interpreter start; "
	"remove it if nobody here put it there, or reinstall with "
	"\"pyrt install --force\"";

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* sitecustomize.py, usercustomize.py, their bytecode-free variants a
 * package or an extension can take. */
static int is_customize(const char *name)
{
	static const char *const stems[] = { "sitecustomize", "usercustomize" };
	for (size_t i = 0; i < 2; i++) {
		size_t k = strlen(stems[i]);
		if (strncmp(name, stems[i], k) == 0 &&
		    (name[k] == '\0' || name[k] == '.'))
			return 1;
	}
	return 0;
}

/* 1 when some RECORD under site (dirfd) lists name as a first field
 * (a top-level file: no '/' in it). */
static int record_lists(int site_fd, const char *name)
{
	/* A descriptor of its own: a dup would share the caller's place in
	 * the listing. */
	int own = openat(site_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = own >= 0 ? fdopendir(own) : NULL;
	if (!d) {
		if (own >= 0)
			close(own);
		return 0;
	}
	int found = 0;
	size_t nlen = strlen(name);
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (!ends_with(de->d_name, ".dist-info"))
			continue;
		char rel[NAME_MAX + 16];
		pyrt_fmt_text(rel, sizeof rel, "%s/RECORD", de->d_name);
		int fd = openat(site_fd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			continue;
		char *buf = NULL;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size < RECORD_MAX && (buf = malloc((size_t)st.st_size + 1))) {
			ssize_t got = read(fd, buf, (size_t)st.st_size);
			buf[got > 0 ? got : 0] = '\0';
			for (char *line = buf; line && *line && !found;) {
				if (strncmp(line, name, nlen) == 0 && line[nlen] == ',')
					found = 1;
				line = strchr(line, '\n');
				if (line)
					line++;
			}
		}
		free(buf);
		close(fd);
	}
	closedir(d);
	return found;
}

static int shipped(pyrt_manifest *m, const char *rel)
{
	size_t at;
	return pyrt_manifest_find(m, rel, &at) == 1;
}

/* One folder: its start-up files that nobody lists. */
static int check_dir(pyrt_manifest *m, const char *install_dir,
		     const char *rel_dir, int site,
		     void (*on_problem)(const char *, const char *, void *),
		     void *payload)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/%s", install_dir, rel_dir) >= (int)sizeof path)
		return 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = own >= 0 ? fdopendir(own) : NULL;
	if (!d && own >= 0)
		close(own);
	int found = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		const char *n = de->d_name;
		if (!is_customize(n) && !(site && ends_with(n, ".pth")))
			continue;
		char rel[PATH_MAX];
		if (snprintf(rel, sizeof rel, "%s/%s", rel_dir, n) >= (int)sizeof rel)
			continue;
		if (shipped(m, rel) || (site && record_lists(fd, n)))
			continue;
		on_problem(rel, FINDING, payload);
		found++;
	}
	if (d)
		closedir(d);
	close(fd);
	return found;
}

static int is_site(const char *rel)
{
	return ends_with(rel, "-packages");
}

int pyrt_startup_files_check(pyrt_manifest *m, const pyrt_marker *marker,
			     const char *install_dir,
			     void (*on_problem)(const char *, const char *,
						void *),
			     void *payload, pyrt_error *err)
{
	int found = 0;
	char rel[PATH_MAX];
	if (marker && marker->search_path_known) {
		for (int i = 0; i < marker->search_path_count; i++) {
			pyrt_fmt_text(rel, sizeof rel, "python/%s", marker->search_path[i]);
			found += check_dir(m, install_dir, rel,
					   is_site(rel), on_problem, payload);
		}
		return found;
	}
	char lib[PATH_MAX];
	if (snprintf(lib, sizeof lib, "%s/python/lib", install_dir) >= (int)sizeof lib)
		return pyrt_error_set(err, PYRT_E_IO, "%s: path too long", install_dir);
	DIR *d = opendir(lib);
	if (!d)
		return errno == ENOENT ? 0
			: pyrt_error_set_errno(err, PYRT_E_IO, errno, "cannot read %s", lib);
	struct dirent *de;
	static const char *const below[] = { "", "/lib-dynload", "/site-packages" };
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "python3", 7) != 0)
			continue;
		for (size_t k = 0; k < 3; k++) {
			pyrt_fmt_text(rel, sizeof rel, "python/lib/%.200s%s",
				      de->d_name, below[k]);
			found += check_dir(m, install_dir, rel, k == 2,
					   on_problem, payload);
		}
	}
	closedir(d);
	return found;
}
