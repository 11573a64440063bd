/*
 * Half-installed distributions (see halfdist.h): each .dist-info folder's
 * RECORD read as pip writes it (CSV: path, hash, size), and every path it
 * lists looked up without following a symlink.
 */
#include "halfdist.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "requirement.h"

#define RECORD_MAX (16 * 1024 * 1024)
#define SUFFIX ".dist-info"

/* Name and version from "name-version.dist-info". */
static void folder_names(pyrt_halfdist *h, const char *folder)
{
	size_t n = strlen(folder) - strlen(SUFFIX);
	const char *dash = memchr(folder, '-', n);
	size_t name_len = dash ? (size_t)(dash - folder) : n;
	char norm[sizeof h->name];
	if (name_len >= sizeof norm)
		name_len = sizeof norm - 1;
	/* A name that is not ASCII is shown as it is. */
	pyrt_name_normalize(folder, name_len, '-', norm);
	snprintf(h->name, sizeof h->name, "%s", norm);
	if (dash)
		snprintf(h->version, sizeof h->version, "%.*s",
			 (int)(n - name_len - 1), dash + 1);
	snprintf(h->folder, sizeof h->folder, "%s", folder);
}

/* The first CSV field of line (pip quotes a path holding a comma or a
 * quote, doubling the quote) into out; 0, or -1 when it does not fit. */
static int record_path(const char *line, char *out, size_t len)
{
	size_t o = 0;
	if (*line != '"') {
		size_t n = strcspn(line, ",");
		if (n >= len)
			return -1;
		memcpy(out, line, n);
		out[n] = '\0';
		return 0;
	}
	for (const char *p = line + 1; *p; p++) {
		if (*p == '"' && p[1] != '"')
			break;
		if (*p == '"')
			p++;
		if (o + 1 >= len)
			return -1;
		out[o++] = *p;
	}
	out[o] = '\0';
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The first file RECORD lists that is missing, into h->why; 1 when there
 * is one, 0 when none. */
static int record_missing(const char *site, char *text, pyrt_halfdist *h)
{
	char rel[PATH_MAX], full[2 * PATH_MAX];
	struct stat sb;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		size_t n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (record_path(line, rel, sizeof rel) == 0 && rel[0] &&
		    !ends_with(rel, ".pyc")) {
			snprintf(full, sizeof full, "%s%s%s",
				 rel[0] == '/' ? "" : site,
				 rel[0] == '/' ? "" : "/", rel);
			if (lstat(full, &sb) != 0 &&
			    (errno == ENOENT || errno == ENOTDIR)) {
				snprintf(h->why, sizeof h->why, "%s, which its "
					 "RECORD lists, is missing", rel);
				return 1;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Whether the folder site/folder is half-installed; h filled when it is. */
static int half(const char *site, const char *folder, pyrt_halfdist *h)
{
	char path[2 * PATH_MAX];
	struct stat sb;
	memset(h, 0, sizeof *h);
	snprintf(path, sizeof path, "%s/%s", site, folder);
	if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return 0;
	folder_names(h, folder);
	snprintf(path, sizeof path, "%s/%s/METADATA", site, folder);
	h->has_metadata = lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
	snprintf(path, sizeof path, "%s/%s/RECORD", site, folder);
	int absent = lstat(path, &sb) != 0;
	if (absent || !S_ISREG(sb.st_mode)) {
		h->no_record = 1;
		snprintf(h->why, sizeof h->why, "%s/RECORD %s: the installer "
			 "stopped before it finished", folder,
			 absent ? "is missing" : "is not a file");
		return 1;
	}
	char *text = NULL;
	size_t len = 0;
	if (pyrt_fs_read_file(path, RECORD_MAX, &text, &len, NULL) != 0) {
		snprintf(h->why, sizeof h->why, "%s/RECORD cannot be read",
			 folder);
		return 1;
	}
	int missing = record_missing(site, text, h);
	free(text);
	return missing;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pyrt_halfdist_scan(const char *site, pyrt_halfdist *out, size_t max)
{
	DIR *dir = opendir(site);
	if (!dir)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	/* Sorted, so the same tree always names the same first one. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (!ends_with(de->d_name, SUFFIX) ||
		    strlen(de->d_name) == strlen(SUFFIX))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			char **more = realloc(names, cap * sizeof *names);
			if (!more) {
				rc = -1;
				break;
			}
			names = more;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(dir);
	if (names)
		qsort(names, n, sizeof *names, name_cmp);
	size_t found = 0;
	pyrt_halfdist h;
	for (size_t i = 0; i < n; i++) {
		if (!rc && half(site, names[i], &h)) {
			if (found < max)
				out[found] = h;
			found++;
		}
		free(names[i]);
	}
	free(names);
	return rc ? -1 : (int)found;
}
