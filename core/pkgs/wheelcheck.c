/*
 * The table of contents of wheelcheck.h.  Only names are read, never a
 * member's bytes: the check costs a seek to the central directory.
 */
#include "core/pkgs/wheelcheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "core/util/fmt.h"
#include "core/util/lazylib.h"
#include "core/util/requirement.h"
#include "core/util/sanitize.h"

/* A project name is at most this long here (PEP 508 sets no bound; the
 * index's is far below). */
#define NAME_CAP 256

/* The normalised project name of a wheel file name, up to its first '-'
 * ("python_docx-0.8.11-py3-none-any.whl": "python_docx"). */
static int file_project(const char *file, char *out)
{
	const char *dash = strchr(file, '-');
	size_t n = dash ? (size_t)(dash - file) : 0;
	if (n == 0 || n >= NAME_CAP)
		return -1;
	return pyrt_name_normalize(file, n, '_', out);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

/* Whether the folder name comp[0..n) is this wheel's own .dist-info. */
static int own_dist_info(const char *comp, size_t n, const char *project)
{
	const char *dash = memchr(comp, '-', n);
	char name[NAME_CAP];
	size_t k = dash ? (size_t)(dash - comp) : 0;
	if (k == 0 || k >= NAME_CAP ||
	    pyrt_name_normalize(comp, k, '_', name) != 0)
		return 0;
	return strcmp(name, project) == 0;
}

/* Why member path may not be in the wheel of project, or NULL. */
static const char *member_fault(const char *path, const char *project,
				int *own_seen)
{
	/* Absolute and ".." members are the installers' to refuse (the
	 * fast path names them, pip too): what only pyrt can see is which
	 * metadata a wheel brings. */
	const char *comp[4] = { 0 };
	size_t len[4] = { 0 }, depth = 0;
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 11 && strncmp(c, "__pycache__", 11) == 0)
			return "a bytecode cache (__pycache__/), which would "
			       "replace another package's";
		if (depth < 4) {
			comp[depth] = c;
			len[depth] = n;
		}
		depth++;
		c += n;
		c += strspn(c, "/");
	}
	/* What lands at the top of site-packages: the wheel's top level,
	 * and the top of <name>.data/purelib or platlib (or any scheme). */
	const char *top = comp[0];
	size_t topn = len[0];
	int in_data = depth >= 3 && ends_with(comp[0], len[0], ".data");
	if (in_data) {
		top = comp[2];
		topn = len[2];
	}
	if (!top || (depth < 2 && !in_data))
		return NULL; /* a file at the top: not a metadata folder */
	if (ends_with(top, topn, ".egg-info"))
		return "an .egg-info folder: the metadata of another "
		       "distribution";
	if (!ends_with(top, topn, ".dist-info"))
		return NULL;
	if (in_data || !own_dist_info(top, topn, project))
		return "the .dist-info of another distribution, which pip "
		       "would install and a later repair would trust";
	*own_seen = 1;
	return NULL;
}

static int wheelcheck_read(int fd, const char *project, const char *shown,
			   const char *fix, pyrt_error *err);

#define FIX_WHEELHOUSE "get the wheel from its project again, or leave it " \
	"out of the wheelhouse"
#define FIX_INDEX "the index serves it: remove it from the index, or " \
	"install another version of the project (pins, --requirements)"

static int wheelcheck_fd_fix(int fd, const char *file, const char *shown,
			     const char *fix, pyrt_error *err)
{
	char project[NAME_CAP];
	if (file_project(file, project) != 0)
		return pyrt_error_set(err, PYRT_E_UNSAFE, "refusing the wheel "
				      "%s: its file name names no project "
				      "(NAME-VERSION-...whl)", shown);
	int rc = pyrt_lazy_archive(err);
	if (rc)
		return rc;
	/* A wheel's names are UTF-8 (PEP 427); in pyrt's "C" locale
	 * libarchive could not convert one that is not ASCII and would give
	 * no name at all.  This thread reads in C.UTF-8 meanwhile. */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t was = utf8 ? uselocale(utf8) : (locale_t)0;
	rc = wheelcheck_read(fd, project, shown, fix, err);
	if (utf8) {
		uselocale(was);
		freelocale(utf8);
	}
	return rc;
}

int pyrt_wheelcheck_fd(int fd, const char *file, const char *shown,
		       pyrt_error *err)
{
	return wheelcheck_fd_fix(fd, file, shown, FIX_WHEELHOUSE, err);
}

/* The central directory of the wheel open as fd, member by member. */
static int wheelcheck_read(int fd, const char *project, const char *shown,
			   const char *fix, pyrt_error *err)
{
	int rc = 0;
	struct archive *a = archive_read_new();
	if (!a)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* The central directory, as pip's zipfile reads it: a wheel whose
	 * local headers say otherwise cannot show us one list and pip
	 * another. */
	archive_read_support_format_zip_seekable(a);
	if (lseek(fd, 0, SEEK_SET) != 0 ||
	    archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		rc = pyrt_error_set(err, PYRT_E_UNSAFE, "refusing the wheel "
				    "%s: not a readable zip archive (%s)",
				    shown, archive_error_string(a)
				    ? archive_error_string(a) : "no detail");
		archive_read_free(a);
		return rc;
	}
	struct archive_entry *e;
	int own = 0, r;
	/* A warning is a name libarchive could not convert to the locale's
	 * charset (pyrt runs in "C"): a wheel's names are UTF-8 (PEP 427),
	 * and read as such. */
	while (!rc && ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
		       r == ARCHIVE_WARN)) {
		const char *path = archive_entry_pathname_utf8(e);
		if (!path)
			path = archive_entry_pathname(e);
		const char *why = path ? member_fault(path, project, &own)
				       : "a member with no name";
		if (why) {
			char name[256];
			pyrt_sanitize(path ? path : "", 1, name, sizeof name);
			rc = pyrt_error_set(err, PYRT_E_UNSAFE, "refusing the "
					    "wheel %s: its member %s is %s — "
					    "nothing was installed; %s",
					    shown, name, why, fix);
		}
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = pyrt_error_set(err, PYRT_E_UNSAFE, "refusing the wheel "
				    "%s: its table of contents cannot be read "
				    "(%s)", shown, archive_error_string(a)
				    ? archive_error_string(a) : "no detail");
	archive_read_free(a);
	return rc;
}

/* Every *.whl of dir; from_index: pip's fetched folder, named by file. */
static int wheelcheck_dir(const char *dir, int from_index, pyrt_error *err)
{
	const char *opt = from_index ? "pip's download folder" : "--wheelhouse";
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "%s %s", opt, dir);
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "%s %s", opt, dir);
	}
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (!ends_with(de->d_name, n, ".whl"))
			continue;
		/* A link is followed, as pip will: the gate walked it, and
		 * only root or we can change it in a gated folder (pip's
		 * download folder is pyrt's own, 0700). */
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NONBLOCK |
				O_CLOEXEC);
		char shown[PATH_MAX + 32];
		if (from_index)
			pyrt_fmt_text(shown, sizeof shown, "%s (from the index)",
				      de->d_name);
		else
			pyrt_fmt_text(shown, sizeof shown, "%s/%s", dir,
				      de->d_name);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
			rc = pyrt_error_set(err, PYRT_E_USAGE, "%s: %s is not "
					    "a readable file", opt, shown);
		else
			rc = wheelcheck_fd_fix(fd, de->d_name, shown,
					       from_index ? FIX_INDEX
							  : FIX_WHEELHOUSE,
					       err);
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return rc;
}

int pyrt_wheelcheck_dir(const char *dir, pyrt_error *err)
{
	return wheelcheck_dir(dir, 0, err);
}

int pyrt_wheelcheck_fetched(const char *dir, pyrt_error *err)
{
	return wheelcheck_dir(dir, 1, err);
}

/* ---- Requires-Dist, for `pyrt lock` ---------------------------------------- */

#define METADATA_MAX (4u << 20) /* a METADATA larger than this is refused */

void pyrt_wheel_requires_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* 1 when path is NAME.dist-info/METADATA at the wheel's top level. */
static int is_metadata(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash && strcmp(slash, "/METADATA") == 0 &&
	       ends_with(path, (size_t)(slash - path), ".dist-info");
}

/* The headers of METADATA text (up to the first empty line): each
 * Requires-Dist value, with folded lines joined by a blank. */
static int requires_parse(const char *text, const char *shown, char ***out,
			  size_t *n, pyrt_error *err)
{
	const char *p = text;
	char *cur = NULL;
	size_t cap = 0;
	int rc = 0;
	while (!rc && *p && *p != '\n' && !(*p == '\r' && p[1] == '\n')) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		int folded = *p == ' ' || *p == '\t';
		if (folded && cur) {
			size_t old = strlen(cur);
			char *v = realloc(cur, old + len + 2);
			if (!v) {
				rc = pyrt_error_set(err, PYRT_E_NOMEM,
						    "out of memory");
				break;
			}
			cur = v;
			pyrt_fmt_text(cur + old, len + 2, " %.*s", (int)len, p);
		} else {
			if (cur) {
				(*out)[(*n)++] = cur;
				cur = NULL;
			}
			if (len > 14 && strncasecmp(p, "Requires-Dist:", 14) == 0) {
				const char *v = p + 14;
				size_t vl = len - 14;
				while (vl && (*v == ' ' || *v == '\t')) {
					v++;
					vl--;
				}
				if (*n + 1 >= cap) {
					cap = cap ? cap * 2 : 8;
					char **nv = realloc(*out,
							    cap * sizeof *nv);
					if (!nv) {
						rc = pyrt_error_set(
							err, PYRT_E_NOMEM,
							"out of memory");
						break;
					}
					*out = nv;
				}
				if (!(cur = strndup(v, vl)))
					rc = pyrt_error_set(err, PYRT_E_NOMEM,
							    "out of memory");
			}
		}
		p = end ? end + 1 : p + len;
	}
	if (cur && !rc)
		(*out)[(*n)++] = cur;
	else
		free(cur);
	for (size_t i = 0; !rc && i < *n; i++)
		for (const char *c = (*out)[i]; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				rc = pyrt_error_set(err, PYRT_E_VERIFY, "the "
						    "wheel %s has a "
						    "Requires-Dist with a "
						    "control character",
						    shown);
				break;
			}
	return rc;
}

int pyrt_wheel_requires_fd(int fd, const char *shown, char ***out, size_t *n,
			   pyrt_error *err)
{
	*out = NULL;
	*n = 0;
	int rc = pyrt_lazy_archive(err);
	if (rc)
		return rc;
	struct archive *a = archive_read_new();
	if (!a)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	archive_read_support_format_zip_seekable(a);
	if (lseek(fd, 0, SEEK_SET) != 0 ||
	    archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		archive_read_free(a);
		return pyrt_error_set(err, PYRT_E_VERIFY, "the wheel %s is not "
				      "a readable zip archive", shown);
	}
	struct archive_entry *e;
	char *text = NULL;
	int found = 0, r;
	while (!rc && ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
		       r == ARCHIVE_WARN)) {
		const char *path = archive_entry_pathname(e);
		if (!path || !is_metadata(path))
			continue;
		if (found++) {
			rc = pyrt_error_set(err, PYRT_E_VERIFY, "the wheel %s "
					    "has more than one "
					    "*.dist-info/METADATA", shown);
			break;
		}
		la_int64_t size = archive_entry_size(e);
		if (size < 0 || size > (la_int64_t)METADATA_MAX ||
		    !(text = calloc((size_t)size + 1, 1))) {
			rc = pyrt_error_set(err, PYRT_E_VERIFY, "the wheel %s's "
					    "METADATA cannot be read", shown);
			break;
		}
		size_t got = 0;
		la_ssize_t k = 1;
		while (got < (size_t)size && k > 0 &&
		       (k = archive_read_data(a, text + got,
					      (size_t)size - got)) > 0)
			got += (size_t)k;
		if (got != (size_t)size)
			rc = pyrt_error_set(err, PYRT_E_VERIFY, "the wheel %s's "
					    "METADATA cannot be read", shown);
	}
	archive_read_free(a);
	if (!rc && !found)
		rc = pyrt_error_set(err, PYRT_E_VERIFY, "the wheel %s has no "
				    "*.dist-info/METADATA", shown);
	if (!rc)
		rc = requires_parse(text, shown, out, n, err);
	free(text);
	if (rc) {
		pyrt_wheel_requires_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
