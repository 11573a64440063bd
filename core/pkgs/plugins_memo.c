/*
 * The plugin checker's remembered answer (see plugins_memo.h).
 */
#include "core/pkgs/plugins_memo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util/cache_seal.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"

/* 2: the file starts with its body's checksum on a line of its own;
 * 3: each distribution's line names its METADATA's identity. */
#define MEMO_SCHEMA 3
#define MEMO_MAX (4 * 1024 * 1024)
#define MEMO_PATHS_MAX 64

/* A growing text buffer; on no memory it stays failed (s == NULL). */
typedef struct text {
	char *s;
	size_t len, cap;
	int failed;
} text;

static void text_add(text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->s ? t->s + t->len : NULL,
				  t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = 1;
			return;
		}
		if (t->s && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap : 1024;
		while (cap <= t->len + (size_t)n)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			free(t->s);
			*t = (text){ .failed = 1 };
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

static long long mtime_ns(const struct stat *sb)
{
	return (long long)sb->st_mtim.tv_sec * 1000000000LL +
	       sb->st_mtim.tv_nsec;
}

char *pyrt_plugins_memo_id(const pyrt_status *st)
{
	struct stat sb;
	char link[4096];
	if (!st->have_marker || stat(st->interpreter, &sb) != 0)
		return NULL;
	ssize_t n = readlink(st->path, link, sizeof link - 1);
	if (n < 0)
		return NULL;
	link[n] = '\0';
	text t = { 0 };
	text_add(&t, "interpreter %s %llu %llu %lld %lld\ncurrent %s\n"
		 "archive %s\ninstalled %s\n", st->interpreter,
		 (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
		 (long long)sb.st_size, mtime_ns(&sb), link,
		 st->marker.sha256, st->marker.installed_at);
	return t.s;
}

static int is_dist_name(const char *name)
{
	size_t n = strlen(name);
	return (n > 10 && strcmp(name + n - 10, ".dist-info") == 0) ||
	       (n > 9 && strcmp(name + n - 9, ".egg-info") == 0);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* " B <checksum>" of the file's first MiB (as the checker names it), or
 * " B ?" when it cannot be read. */
static void meta_bytes(text *t, int dfd, const char *rel)
{
	enum { CAP = 1 << 20 };
	char sum[PYRT_CACHE_SUM_LEN + 1];
	int fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(CAP) : NULL;
	size_t got = 0;
	while (buf && got < CAP) {
		ssize_t k = read(fd, buf + got, CAP - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		got += (size_t)k;
	}
	if (buf) {
		pyrt_cache_sum(buf, got, sum);
		text_add(t, " B %s", sum);
	} else {
		text_add(t, " B ?");
	}
	free(buf);
	if (fd >= 0)
		close(fd);
}

/* 1 when the stored "seen" text's line for entry name names its bytes
 * (" B "); 0 otherwise, or with no stored text. */
static int named_bytes(const char *stored, const char *name)
{
	size_t len = strlen(name);
	for (const char *l = stored; l && *l;) {
		const char *end = strchr(l, '\n');
		if (!end)
			break;
		if (strncmp(l, "E ", 2) == 0 && strncmp(l + 2, name, len) == 0 &&
		    l[2 + len] == ' ') {
			const char *b = strstr(l, " B ");
			return b && b < end;
		}
		l = end + 1;
	}
	return 0;
}

/* A distribution's METADATA (PKG-INFO in an egg-info folder; the entry
 * itself when it is a file) by inode, size, mtime and ctime, or "-", as
 * the checker's meta_identity writes it (py/plugin_check.py): the answer
 * about a distribution is computed from that file, and a rewrite in place
 * changes its ctime whatever it does to the rest; its bytes too where
 * the stored line names them (git's racily clean rule, see below). */
static void meta_identity(text *t, int dfd, const char *name,
			  const struct stat *entry, int bytes)
{
	struct stat sb = *entry;
	char rel[NAME_MAX + 16];
	pyrt_fmt_text(rel, sizeof rel, "%s", name);
	if (S_ISDIR(entry->st_mode)) {
		size_t len = strlen(name);
		const char *file = len > 9 && strcmp(name + len - 9, ".egg-info") == 0
					   ? "PKG-INFO" : "METADATA";
		pyrt_fmt_text(rel, sizeof rel, "%s/%s", name, file);
		if (fstatat(dfd, rel, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			text_add(t, "-\n");
			return;
		}
	}
	text_add(t, "%llu %lld %lld %lld", (unsigned long long)sb.st_ino,
		 (long long)sb.st_size, mtime_ns(&sb),
		 (long long)sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec);
	/* The bytes are named where the stored line names them: the checker
	 * saw the file within 2 s of its change, when another write in the
	 * same clock tick could leave its times as they were.  Equal bytes
	 * under the same identity are the same answer; a file the checker saw
	 * settled and that changed since has another ctime, a miss. */
	if (bytes)
		meta_bytes(t, dfd, rel);
	text_add(t, "\n");
}

/* The dist entries of directory dir as the checker lists them ("E name ino
 * mtime_ns META" lines, by name); 0, or -1 when the directory cannot be
 * read. */
static int seen_dir(text *t, const char *dir, const char *stored)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!is_dist_name(e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name)))
			rc = -1;
		else
			n++;
	}
	if (names)
		qsort(names, n, sizeof *names, name_cmp);
	text sub = { 0 };
	struct stat sb;
	for (size_t i = 0; i < n && !rc; i++) {
		if (fstatat(dfd, names[i], &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = -1;
			break;
		}
		text_add(&sub, "E %s %llu %lld ", names[i],
			 (unsigned long long)sb.st_ino, mtime_ns(&sb));
		meta_identity(&sub, dfd, names[i], &sb,
			      named_bytes(stored, names[i]));
	}
	if (sub.failed)
		rc = -1;
	if (!rc && sub.s)
		text_add(t, "%s", sub.s);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(sub.s);
	closedir(d);
	return rc;
}

/* One sys.path entry's lines, as the checker writes them. */
static void seen_path(text *t, const char *p, const char *stored)
{
	struct stat sb;
	text_add(t, "P %s\n", p);
	if (stat(p, &sb) != 0) {
		text_add(t, "M\n");
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		text_add(t, "F %llu %lld %lld\n", (unsigned long long)sb.st_ino,
			 (long long)sb.st_size, mtime_ns(&sb));
		return;
	}
	text lines = { 0 };
	if (seen_dir(&lines, p, stored) != 0 || lines.failed)
		text_add(t, "M\n");
	else if (lines.s)
		text_add(t, "%s", lines.s);
	free(lines.s);
}

/* The "seen" text again, for the paths ("P " lines) of the stored one. */
static char *seen_now(const char *stored)
{
	text t = { 0 };
	size_t paths = 0;
	for (const char *l = stored; *l && !t.failed;) {
		const char *end = strchr(l, '\n');
		if (!end)
			break;
		if (strncmp(l, "P ", 2) == 0) {
			if (++paths > MEMO_PATHS_MAX)
				break;
			char *p = strndup(l + 2, (size_t)(end - l - 2));
			if (!p)
				t.failed = 1;
			else
				seen_path(&t, p, stored);
			free(p);
		}
		l = end + 1;
	}
	if (t.failed || paths > MEMO_PATHS_MAX) {
		free(t.s);
		return NULL;
	}
	return t.s ? t.s : strdup("");
}

static int specs_match(json_t *arr, const char *const *specs, size_t n)
{
	if (!json_is_array(arr) || json_array_size(arr) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(arr, i);
		if (!json_is_string(s) || strcmp(json_string_value(s), specs[i]))
			return 0;
	}
	return 1;
}

/* Every spec has an object answer, so applying it cannot half-fail. */
static int results_complete(json_t *results, const char *const *specs,
			    size_t n)
{
	if (!json_is_object(results))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!json_is_object(json_object_get(results, specs[i])))
			return 0;
	return 1;
}

/* dir/file when dir is private (ours, not a symlink, not writable by
 * others); 0 or -1. */
static int memo_path(const char *dir, const char *file, char *path,
		     size_t len)
{
	int missing = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_fs_check_private_dir(dir, &missing, &err) != 0 || missing)
		return -1;
	int n = snprintf(path, len, "%s/%s", dir, file);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* dir/file parsed, or NULL (missing, not ours, too big, a checksum that
 * does not verify, not JSON). */
static json_t *memo_read(const char *dir, const char *file)
{
	char *data = NULL, path[4200];
	size_t len = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	if (memo_path(dir, file, path, sizeof path) != 0 ||
	    pyrt_fs_read_state(path, MEMO_MAX, &data, &len, &err) != 0)
		return NULL;
	const size_t head = PYRT_CACHE_SUM_LEN + 1;
	json_t *root = NULL;
	if (len > head && data[PYRT_CACHE_SUM_LEN] == '\n' &&
	    pyrt_cache_sum_ok(data, data + head, len - head))
		root = json_loadb(data + head, len - head,
				  JSON_REJECT_DUPLICATES, NULL);
	free(data);
	return root;
}

/* root written to dir/file: 0600 through O_CREAT|O_EXCL on a temporary
 * name, then renamed over.  Best effort. */
static void memo_write(const char *dir, const char *file, json_t *root)
{
	char path[4200];
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return;
	if (memo_path(dir, file, path, sizeof path) != 0)
		return;
	char *body = json_dumps(root, JSON_COMPACT);
	if (!body)
		return;
	size_t blen = strlen(body);
	char *buf = malloc(PYRT_CACHE_SUM_LEN + 1 + blen + 1);
	if (!buf) {
		free(body);
		return;
	}
	pyrt_cache_sum(body, blen, buf);
	buf[PYRT_CACHE_SUM_LEN] = '\n';
	memcpy(buf + PYRT_CACHE_SUM_LEN + 1, body, blen + 1);
	free(body);
	char tmp[4200];
	pyrt_error err = PYRT_ERROR_INIT;
	/* A memo not written is only asked again: a cut name is not used. */
	if (pyrt_fmt_path(tmp, sizeof tmp, &err, "%s.%ld.tmp", path,
			  (long)getpid())) {
		free(buf);
		return;
	}
	int fd = pyrt_fs_open_state(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600,
				    &err);
	if (fd >= 0) {
		size_t len = strlen(buf), off = 0;
		while (off < len) {
			ssize_t w = write(fd, buf + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		/* No fsync: a torn or empty file after a crash is a miss. */
		if (close(fd) != 0 || off != len || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(buf);
}

json_t *pyrt_plugins_memo_load(const char *dir, const char *id,
			       const char *const *specs, size_t nspecs)
{
	json_t *root = id ? memo_read(dir, PYRT_PLUGINS_MEMO_FILE) : NULL;
	json_t *seen = json_object_get(root, "seen");
	json_t *sid = json_object_get(root, "id");
	json_t *results = json_object_get(root, "results");
	json_t *out = NULL;
	if (json_integer_value(json_object_get(root, "schema")) != MEMO_SCHEMA ||
	    !json_is_string(sid) || strcmp(json_string_value(sid), id) != 0 ||
	    !specs_match(json_object_get(root, "specs"), specs, nspecs) ||
	    !results_complete(results, specs, nspecs) || !json_is_string(seen))
		goto done;
	char *now = seen_now(json_string_value(seen));
	if (now && strcmp(now, json_string_value(seen)) == 0)
		out = json_pack("{s:O}", "results", results);
	free(now);
done:
	json_decref(root);
	return out;
}

void pyrt_plugins_memo_store(const char *dir, const char *id,
			     const char *const *specs, size_t nspecs,
			     json_t *doc)
{
	json_t *seen = json_object_get(doc, "seen");
	json_t *results = json_object_get(doc, "results");
	if (!id || !json_is_string(seen) || !json_is_object(results))
		return;
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < nspecs; i++)
		if (json_array_append_new(arr, json_string(specs[i])) != 0) {
			json_decref(arr);
			arr = NULL;
		}
	json_t *root = arr ? json_pack("{s:i, s:s, s:o, s:O, s:O}", "schema",
				       MEMO_SCHEMA, "id", id, "specs", arr,
				       "seen", seen, "results", results)
			   : NULL;
	if (root)
		memo_write(dir, PYRT_PLUGINS_MEMO_FILE, root);
	json_decref(root);
}

json_t *pyrt_plugins_manifests_load(const char *dir, const char *plugins_dir)
{
	json_t *root = memo_read(dir, PYRT_PLUGINS_MANIFESTS_FILE);
	json_t *pd = json_object_get(root, "plugins_dir");
	json_t *entries = json_object_get(root, "manifests");
	json_t *out = NULL;
	if (json_integer_value(json_object_get(root, "schema")) == MEMO_SCHEMA &&
	    json_is_string(pd) && strcmp(json_string_value(pd), plugins_dir) == 0 &&
	    json_is_object(entries))
		out = json_incref(entries);
	json_decref(root);
	return out;
}

void pyrt_plugins_manifests_store(const char *dir, const char *plugins_dir,
				  json_t *entries)
{
	json_t *root = json_pack("{s:i, s:s, s:O}", "schema", MEMO_SCHEMA,
				 "plugins_dir", plugins_dir, "manifests",
				 entries);
	if (root)
		memo_write(dir, PYRT_PLUGINS_MANIFESTS_FILE, root);
	json_decref(root);
}
