/*
 * The mirror of mirror.h.  Archives go through pyrt_fetch exactly as an
 * install fetches them (TLS checks, caps, resume, retries) and are checked
 * against the pin's SHA-256 and size before they get their final name;
 * wheels are copied from a local wheelhouse, following the baseline's
 * Requires-Dist through the wheels' own METADATA.
 */
#include "mirror.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fetch.h"
#include "fs.h"
#include "redact.h"
#include "sha256.h"

#define MIRROR_DIR_MODE 0755
#define MIRROR_FILE_MODE 0644
#define METADATA_MAX (1024 * 1024)
#define INDEX_MAX (16 * 1024 * 1024)

int pyrt_mirror_check_platforms(const pyrt_pins *pins,
				const char *const *platforms, size_t n,
				pyrt_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (pyrt_pins_find(pins, platforms[i]))
			continue;
		char keys[512] = "";
		size_t used = 0;
		for (size_t k = 0; k < pyrt_pins_archive_count(pins); k++) {
			int w = snprintf(keys + used, sizeof keys - used, "%s%s",
					 k ? ", " : "",
					 pyrt_pins_archive_at(pins, k)->key);
			if (w < 0 || (size_t)w >= sizeof keys - used)
				break;
			used += (size_t)w;
		}
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "--platform %s is not in the pins (%s); "
				      "pinned: %s", platforms[i],
				      pyrt_pins_source(pins), keys);
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Percent-decode [s, s+n) into out; -1 when the result is not a plain,
 * visible file name. */
static int decode_segment(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || o + 1 >= len)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	/* Hidden names are the mirror's own temporaries (and "." / ".."). */
	return (o == 0 || out[0] == '.') ? -1 : 0;
}

int pyrt_mirror_relpath(const char *url, char *out, size_t len,
			pyrt_error *err)
{
	size_t end = strcspn(url, "?#");
	const char *seg[2] = { NULL, NULL };
	size_t seglen[2] = { 0, 0 };
	size_t stop = end;
	const char *scheme = strstr(url, "://");
	size_t path_start = scheme ? (size_t)(scheme - url) + 3 : 0;
	path_start += strcspn(url + path_start, "/");
	for (int k = 1; k >= 0; k--) {
		size_t i = stop;
		while (i > path_start && url[i - 1] != '/')
			i--;
		if (i <= path_start)
			break;
		seg[k] = url + i;
		seglen[k] = stop - i;
		stop = i - 1;
	}
	char a[256], b[256];
	if (!seg[0] || !seg[1] ||
	    decode_segment(seg[0], seglen[0], a, sizeof a) != 0 ||
	    decode_segment(seg[1], seglen[1], b, sizeof b) != 0)
		return pyrt_error_set(err, PYRT_E_PINS,
				      "the pinned URL %.200s does not end in "
				      "<build>/<file> with plain file names, so "
				      "it has no place in a mirror", url);
	int n = snprintf(out, len, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= len)
		return pyrt_error_set(err, PYRT_E_PINS, "mirror path too long");
	return 0;
}

/* mkdir that leaves an existing directory alone; new ones are 0755 so a
 * web server's user can list and read them. */
static int mkdir_public(const char *path, pyrt_error *err)
{
	if (mkdir(path, MIRROR_DIR_MODE) == 0 || errno == EEXIST) {
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		return pyrt_error_set(err, PYRT_E_IO, "%s exists and is not a "
				      "directory; choose another mirror "
				      "directory", path);
	}
	return pyrt_error_set_errno(err, PYRT_E_IO, errno, "cannot create %s",
				    path);
}

static void fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* "<dir>/<rel>" → "<dir>/<reldir>/.<base>.partial" */
static void partial_name(const char *final, char *out, size_t len)
{
	const char *slash = strrchr(final, '/');
	size_t dlen = slash ? (size_t)(slash - final) : 0;
	snprintf(out, len, "%.*s/.%s.partial", (int)dlen, final,
		 slash ? slash + 1 : final);
}

/* Hash a file that may not exist: 1 when it exists with this digest and
 * size (or size 0: unknown), 0 otherwise. */
static int file_matches(const char *path, const char *sha256, uint64_t size)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size && (uint64_t)st.st_size != size))
		return 0;
	char hex[PYRT_SHA256_HEX_LEN + 1];
	pyrt_error e = PYRT_ERROR_INIT;
	if (pyrt_sha256_file_hex(path, hex, &e) != 0)
		return 0;
	return pyrt_sha256_hex_equal(hex, sha256);
}

/* Create the partial 0644 (so the renamed file can be served) before
 * pyrt_fetch opens it; an existing one is resumed. */
static int partial_precreate(const char *partial, pyrt_error *err)
{
	int fd = pyrt_fs_open_state(partial, O_RDWR | O_CREAT, MIRROR_FILE_MODE,
				    err);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int fetch_into(const pyrt_mirror_opts *opts, const pyrt_events *ev,
		      const pyrt_pin_archive *pin, const char *url,
		      const char *partial, pyrt_fetch_result *fr,
		      pyrt_error *err)
{
	int rc = partial_precreate(partial, err);
	if (rc)
		return rc;
	pyrt_fetch_opts fo = PYRT_FETCH_OPTS_INIT;
	fo.url = url;
	fo.partial_path = partial;
	fo.cacert = opts->cacert;
	fo.expected_size = pin->size;
	if (opts->fetch_attempts)
		fo.max_attempts = opts->fetch_attempts;
	memset(fr, 0, sizeof *fr);
	return pyrt_fetch(&fo, ev, fr, err);
}

/* Download one pinned archive to its place; *fetched is 1 when bytes were
 * downloaded, 0 when the file was already there and matched. */
static int mirror_archive(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			  const pyrt_pin_archive *pin, const char *rel,
			  int *fetched, pyrt_error *err)
{
	char final[PATH_MAX], partial[PATH_MAX + 16], sub[PATH_MAX];
	snprintf(final, sizeof final, "%s/%s", opts->dir, rel);
	snprintf(sub, sizeof sub, "%s/%.*s", opts->dir,
		 (int)(strchr(rel, '/') - rel), rel);
	int rc = mkdir_public(sub, err);
	if (rc)
		return rc;
	*fetched = 0;
	if (file_matches(final, pin->sha256, pin->size))
		return 0;
	char *url = NULL;
	if (opts->source_mirror) {
		rc = pyrt_fetch_mirror_url(pin->url, opts->source_mirror, &url,
					   err);
	} else if (!(url = strdup(pin->url))) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	if (rc)
		return rc;
	char shown[2048];
	pyrt_redact_url(url, shown, sizeof shown);
	pyrt_events_log(ev, PYRT_LOG_INFO, "fetching %s (%s) from %s", rel,
			pin->key, shown);
	partial_name(final, partial, sizeof partial);
	pyrt_fetch_result fr;
	rc = fetch_into(opts, ev, pin, url, partial, &fr, err);
	/* A resumed head may be another run's bad bytes: once more from 0. */
	if (!rc && fr.resumes > 0 &&
	    !pyrt_sha256_hex_equal(fr.sha256, pin->sha256)) {
		unlink(partial);
		rc = fetch_into(opts, ev, pin, url, partial, &fr, err);
	}
	free(url);
	if (rc)
		return rc;
	if (!pyrt_sha256_hex_equal(fr.sha256, pin->sha256) ||
	    (pin->size && fr.bytes != pin->size)) {
		unlink(partial);
		return pyrt_error_set(err, PYRT_E_VERIFY,
				      "SHA-256 mismatch for %s (%s): expected "
				      "%s (%llu bytes), got %s (%llu bytes); "
				      "the download was deleted, the mirror "
				      "keeps no file under that name", shown,
				      pin->key, pin->sha256,
				      (unsigned long long)pin->size, fr.sha256,
				      (unsigned long long)fr.bytes);
	}
	if (rename(partial, final) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot rename %s to %s", partial,
					  final);
		unlink(partial);
		return rc;
	}
	fsync_dir_of(final);
	*fetched = 1;
	return 0;
}

/* ---- wheels ---------------------------------------------------------- */

typedef struct wheel {
	char *file;  /* base name in the wheelhouse */
	char *name;  /* normalised project name */
	int selected;
} wheel;

typedef struct strlist {
	char **v;
	size_t n, cap;
} strlist;

static int strlist_add(strlist *l, const char *s, size_t n)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strndup(s, n)))
		return -1;
	l->n++;
	return 0;
}

static int strlist_has(const strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 1;
	return 0;
}

static void strlist_free(strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* PEP 503: lower case, runs of -_. as one '-'. */
static char *normalise_name(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			if (o == 0 || out[o - 1] != '-')
				out[o++] = '-';
			continue;
		}
		out[o++] = (char)tolower((unsigned char)s[i]);
	}
	out[o] = '\0';
	return out;
}

static size_t name_span(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '-' || s[n] == '_' ||
	       s[n] == '.')
		n++;
	return n;
}

typedef struct wheelhouse {
	wheel *v;
	size_t n;
} wheelhouse;

static void wheelhouse_free(wheelhouse *wh)
{
	for (size_t i = 0; i < wh->n; i++) {
		free(wh->v[i].file);
		free(wh->v[i].name);
	}
	free(wh->v);
	memset(wh, 0, sizeof *wh);
}

static int is_wheel_name(const char *f)
{
	size_t n = strlen(f);
	return n > 4 && f[0] != '.' && strcmp(f + n - 4, ".whl") == 0 &&
	       strchr(f, '-');
}

static int wheelhouse_scan(const char *dir, wheelhouse *wh, pyrt_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "--wheelhouse-from %s", dir);
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!is_wheel_name(e->d_name))
			continue;
		if (wh->n == cap) {
			cap = cap ? cap * 2 : 32;
			wheel *v = realloc(wh->v, cap * sizeof *v);
			if (!v) {
				rc = pyrt_error_set(err, PYRT_E_NOMEM,
						    "out of memory");
				break;
			}
			wh->v = v;
		}
		wheel *w = &wh->v[wh->n];
		w->selected = 0;
		w->file = strdup(e->d_name);
		w->name = normalise_name(e->d_name, strcspn(e->d_name, "-"));
		if (!w->file || !w->name) {
			free(w->file);
			free(w->name);
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
			break;
		}
		wh->n++;
	}
	closedir(d);
	return rc;
}

/* The METADATA member of a wheel, NUL-terminated; NULL when it has none. */
static char *wheel_metadata(const char *path)
{
	struct archive *a = archive_read_new();
	if (!a)
		return NULL;
	archive_read_support_format_zip(a);
	char *buf = NULL;
	struct archive_entry *ent;
	if (archive_read_open_filename(a, path, 64 * 1024) != ARCHIVE_OK)
		goto done;
	while (archive_read_next_header(a, &ent) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ent);
		const char *slash = name ? strchr(name, '/') : NULL;
		if (!slash || slash - name < 11 ||
		    strncmp(slash - 10, ".dist-info", 10) != 0 ||
		    strcmp(slash + 1, "METADATA") != 0)
			continue;
		if (!(buf = malloc(METADATA_MAX + 1)))
			break;
		la_ssize_t n, used = 0;
		while (used < METADATA_MAX &&
		       (n = archive_read_data(a, buf + used,
					      (size_t)(METADATA_MAX - used))) > 0)
			used += n;
		buf[used] = '\0';
		break;
	}
done:
	archive_read_free(a);
	return buf;
}

/* "Requires-Dist: name[extras] (spec); marker" lines of the headers: the
 * names to follow into todo.  A dependency behind `extra == "x"` is
 * followed only when some requirement asked for extra x; one behind any
 * other marker is followed when the wheelhouse has it. */
static int follow_requires(const char *meta, const strlist *extras,
			   strlist *todo, strlist *optional)
{
	for (const char *line = meta; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len == 0 || (len == 1 && line[0] == '\r'))
			break; /* end of the headers */
		static const char key[] = "Requires-Dist:";
		if (len > sizeof key && strncasecmp(line, key, sizeof key - 1) == 0) {
			const char *p = line + sizeof key - 1;
			while (*p == ' ')
				p++;
			size_t n = name_span(p);
			const char *semi = memchr(p, ';', len - (size_t)(p - line));
			int needed = 1;
			if (semi) {
				char marker[512];
				snprintf(marker, sizeof marker, "%.*s",
					 (int)(len - (size_t)(semi - line)), semi);
				needed = 0;
				if (strstr(marker, "extra")) {
					for (size_t i = 0; i < extras->n; i++)
						if (strstr(marker, extras->v[i]))
							needed = 2;
				} else {
					needed = 2;
				}
			}
			char *norm = n ? normalise_name(p, n) : NULL;
			if (n && !norm)
				return -1;
			if (norm && needed &&
			    strlist_add(needed == 1 ? todo : optional, norm,
					strlen(norm)) != 0) {
				free(norm);
				return -1;
			}
			free(norm);
		}
		if (!eol)
			break;
		line = eol + 1;
	}
	return 0;
}

/* The baseline requirement's name into todo, its [extras] into extras. */
static int add_requirement(const char *req, strlist *todo, strlist *extras)
{
	size_t n = name_span(req);
	char *norm = normalise_name(req, n);
	if (!norm || strlist_add(todo, norm, strlen(norm)) != 0) {
		free(norm);
		return -1;
	}
	free(norm);
	const char *p = req + n;
	if (*p != '[')
		return 0;
	for (p++; *p && *p != ']';) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t k = name_span(p);
		if (k == 0)
			break;
		if (strlist_add(extras, p, k) != 0)
			return -1;
		p += k;
	}
	return 0;
}

/* Mark the wheels the baseline needs; names it lacks go to missing. */
static int wheels_select(const char *src, const pyrt_pins *pins,
			 wheelhouse *wh, strlist *missing, pyrt_error *err)
{
	strlist todo = { 0 }, optional = { 0 }, extras = { 0 }, seen = { 0 };
	int rc = 0;
	for (size_t i = 0; !rc && i < pyrt_pins_baseline_count(pins); i++)
		if (add_requirement(pyrt_pins_baseline_at(pins, i), &todo,
				    &extras) != 0)
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* todo: needed (missing is reported); optional: marker-guarded. */
	while (!rc && (todo.n || optional.n)) {
		int is_optional = todo.n == 0;
		strlist *from = is_optional ? &optional : &todo;
		char *name = from->v[--from->n];
		if (strlist_has(&seen, name)) {
			free(name);
			continue;
		}
		if (strlist_add(&seen, name, strlen(name)) != 0) {
			free(name);
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
			break;
		}
		int found = 0;
		for (size_t w = 0; !rc && w < wh->n; w++) {
			if (strcmp(wh->v[w].name, name) != 0)
				continue;
			found = 1;
			wh->v[w].selected = 1;
			char path[PATH_MAX];
			snprintf(path, sizeof path, "%s/%s", src, wh->v[w].file);
			char *meta = wheel_metadata(path);
			if (meta && follow_requires(meta, &extras, &todo,
						    &optional) != 0)
				rc = pyrt_error_set(err, PYRT_E_NOMEM,
						    "out of memory");
			free(meta);
		}
		if (!rc && !found && !is_optional &&
		    strlist_add(missing, name, strlen(name)) != 0)
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		free(name);
	}
	strlist_free(&todo);
	strlist_free(&optional);
	strlist_free(&extras);
	strlist_free(&seen);
	return rc;
}

/* Copy src to final through a 0644 partial, hashing; fsync, rename. */
static int copy_hashed(const char *src, const char *final, char *hex,
		       uint64_t *bytes, pyrt_error *err)
{
	char partial[PATH_MAX + 16];
	partial_name(final, partial, sizeof partial);
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot read %s", src);
	unlink(partial);
	int out = pyrt_fs_open_state(partial, O_WRONLY | O_CREAT | O_EXCL,
				     MIRROR_FILE_MODE, err);
	if (out < 0) {
		close(in);
		return out;
	}
	int rc = pyrt_sha256_ready(err);
	pyrt_sha256 *sha = rc ? NULL : pyrt_sha256_new();
	char buf[64 * 1024];
	if (!rc && !sha)
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	*bytes = 0;
	while (!rc) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot read %s", src);
		if (n <= 0)
			break;
		pyrt_sha256_update(sha, buf, (size_t)n);
		for (ssize_t off = 0; !rc && off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
							  "cannot write %s",
							  partial);
			else
				off += w;
		}
		*bytes += (uint64_t)n;
	}
	if (!rc && pyrt_sha256_final_hex(sha, hex) != 0)
		rc = pyrt_error_set(err, PYRT_E_INTERNAL, "SHA-256 failed");
	if (!rc && fsync(out) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", partial);
	if (close(out) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", partial);
	close(in);
	pyrt_sha256_free(sha);
	if (!rc && rename(partial, final) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot rename %s to %s", partial,
					  final);
	if (rc)
		unlink(partial);
	else
		fsync_dir_of(final);
	return rc;
}

static void join_missing(const strlist *missing, pyrt_mirror_result *res)
{
	size_t used = 0;
	res->missing_wheels = missing->n;
	for (size_t i = 0; i < missing->n; i++) {
		int w = snprintf(res->missing + used, sizeof res->missing - used,
				 "%s%s", i ? ", " : "", missing->v[i]);
		if (w < 0 || (size_t)w >= sizeof res->missing - used)
			break;
		used += (size_t)w;
	}
}

/* Copy the selected wheels into <dir>/wheels; index them in *wheels. */
static int mirror_wheels(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			 json_t *idx, pyrt_mirror_result *res,
			 pyrt_error *err)
{
	json_t *wheels = json_object_get(idx, "wheels");
	json_t *lacking = json_array();
	wheelhouse wh = { 0 };
	strlist missing = { 0 };
	char dest[PATH_MAX];
	snprintf(dest, sizeof dest, "%s/%s", opts->dir, PYRT_MIRROR_WHEELS);
	int rc = wheelhouse_scan(opts->wheelhouse_from, &wh, err);
	if (!rc)
		rc = wheels_select(opts->wheelhouse_from, opts->pins, &wh,
				   &missing, err);
	if (!rc)
		rc = mkdir_public(dest, err);
	for (size_t i = 0; !rc && i < wh.n; i++) {
		if (!wh.v[i].selected)
			continue;
		char src[PATH_MAX], final[PATH_MAX], rel[PATH_MAX];
		char hex[PYRT_SHA256_HEX_LEN + 1];
		uint64_t bytes = 0;
		snprintf(src, sizeof src, "%s/%s", opts->wheelhouse_from,
			 wh.v[i].file);
		snprintf(final, sizeof final, "%s/%s", dest, wh.v[i].file);
		snprintf(rel, sizeof rel, "%s/%s", PYRT_MIRROR_WHEELS,
			 wh.v[i].file);
		rc = copy_hashed(src, final, hex, &bytes, err);
		if (!rc && json_object_set_new(wheels, rel,
				json_pack("{s:s, s:I}", "sha256", hex, "size",
					  (json_int_t)bytes)) != 0)
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; !rc && i < missing.n; i++)
		if (json_array_append_new(lacking, json_string(missing.v[i])))
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!rc && json_object_set(idx, "wheels_missing", lacking) != 0)
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	json_decref(lacking);
	if (!rc) {
		join_missing(&missing, res);
		if (missing.n)
			pyrt_events_log(ev, PYRT_LOG_WARN,
					"the wheelhouse %s has no wheel for %s "
					"(the baseline will be partial)",
					opts->wheelhouse_from, res->missing);
	}
	strlist_free(&missing);
	wheelhouse_free(&wh);
	return rc;
}

/* ---- the index --------------------------------------------------------- */

/* The index already in dir, or NULL (none, or unreadable: rebuilt). */
static json_t *index_load(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, PYRT_MIRROR_INDEX);
	json_error_t je;
	json_t *idx = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (idx && !json_is_object(idx)) {
		json_decref(idx);
		return NULL;
	}
	return idx;
}

static int index_write(const char *dir, json_t *idx, pyrt_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, PYRT_MIRROR_INDEX);
	char *text = json_dumps(idx, JSON_INDENT(2) | JSON_SORT_KEYS |
				JSON_ENSURE_ASCII);
	if (!text)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	size_t len = strlen(text);
	text[len] = '\n'; /* json_dumps leaves room only for the NUL */
	int rc = 0;
	/* Written with pyrt_fs_write_file_atomic's 0600 would hide it from
	 * the web server: the same temp + fsync + rename, 0644. */
	char partial[PATH_MAX + 16];
	partial_name(path, partial, sizeof partial);
	unlink(partial);
	int fd = pyrt_fs_open_state(partial, O_WRONLY | O_CREAT | O_EXCL,
				    MIRROR_FILE_MODE, err);
	if (fd < 0) {
		free(text);
		return fd;
	}
	ssize_t w = write(fd, text, len + 1);
	if (w != (ssize_t)(len + 1) || fsync(fd) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno ? errno : EIO,
					  "cannot write %s", partial);
	if (close(fd) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", partial);
	if (!rc && rename(partial, path) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot rename %s to %s", partial,
					  path);
	if (rc)
		unlink(partial);
	else
		fsync_dir_of(path);
	free(text);
	return rc;
}

static int mirror_all_archives(const pyrt_mirror_opts *opts,
			       const pyrt_events *ev, json_t *archives,
			       pyrt_mirror_result *res, pyrt_error *err)
{
	size_t n = opts->nplatforms ? opts->nplatforms
				    : pyrt_pins_archive_count(opts->pins);
	for (size_t i = 0; i < n; i++) {
		const pyrt_pin_archive *pin = opts->nplatforms
			? pyrt_pins_find(opts->pins, opts->platforms[i])
			: pyrt_pins_archive_at(opts->pins, i);
		if (!pin)
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "--platform %s is not pinned",
					      opts->platforms[i]);
		char rel[PATH_MAX];
		int fetched = 0;
		int rc = pyrt_mirror_relpath(pin->url, rel, sizeof rel, err);
		if (!rc)
			rc = mirror_archive(opts, ev, pin, rel, &fetched, err);
		if (rc)
			return rc;
		if (fetched)
			res->fetched++;
		else
			res->kept++;
		json_t *entry = json_pack("{s:s, s:s, s:I}", "file", rel,
					  "sha256", pin->sha256, "size",
					  (json_int_t)pin->size);
		if (!entry || json_object_set_new(archives, pin->key, entry))
			return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		/* Each archive is indexed as soon as it is in place. */
		if (pyrt_events_cancelled(ev))
			return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	}
	return 0;
}

/* The index object: the old one's entries kept where this run does not
 * replace them (another --platform, the wheels when none are copied). */
static json_t *index_begin(const pyrt_mirror_opts *opts)
{
	json_t *old = index_load(opts->dir);
	json_t *archives = old ? json_object_get(old, "archives") : NULL;
	json_t *wheels = old ? json_object_get(old, "wheels") : NULL;
	json_t *lacking = old ? json_object_get(old, "wheels_missing") : NULL;
	json_t *idx = json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:o}",
		"schema", 1, "pins", pyrt_pins_source(opts->pins),
		"version", pyrt_pins_version(opts->pins),
		"build", pyrt_pins_build(opts->pins),
		"archives", json_is_object(archives) ? json_deep_copy(archives)
						     : json_object(),
		"wheels", json_is_object(wheels) && !opts->wheelhouse_from
			  ? json_deep_copy(wheels) : json_object(),
		"wheels_missing", json_is_array(lacking) && !opts->wheelhouse_from
			  ? json_deep_copy(lacking) : json_array());
	json_decref(old);
	return idx;
}

int pyrt_mirror_run(const pyrt_mirror_opts *opts, const pyrt_events *ev,
		    pyrt_mirror_result *res, pyrt_error *err)
{
	memset(res, 0, sizeof *res);
	if (!opts || !opts->dir || !opts->pins)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_mirror_run: missing arguments");
	int rc = pyrt_mirror_check_platforms(opts->pins, opts->platforms,
					     opts->nplatforms, err);
	if (rc)
		return rc;
	rc = mkdir_public(opts->dir, err);
	if (rc)
		return rc;
	json_t *idx = index_begin(opts);
	if (!idx)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	rc = mirror_all_archives(opts, ev, json_object_get(idx, "archives"),
				 res, err);
	if (!rc && opts->wheelhouse_from)
		rc = mirror_wheels(opts, ev, idx, res, err);
	res->wheels = json_object_size(json_object_get(idx, "wheels"));
	/* Whatever is in place by now is indexed, even after a failure, so
	 * --verify checks what the directory holds. */
	int wrc = index_write(opts->dir, idx, err);
	json_decref(idx);
	return rc ? rc : wrc;
}

/* ---- verify ------------------------------------------------------------ */

/* An index path must stay inside the mirror: relative, no "." or ".."
 * or hidden component. */
static int safe_rel(const char *rel)
{
	if (!rel[0] || rel[0] == '/')
		return 0;
	for (const char *p = rel; *p;) {
		if (*p == '.')
			return 0;
		size_t n = strcspn(p, "/");
		if (n == 0)
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

static int verify_one(const char *dir, const char *rel, json_t *entry,
		      pyrt_mirror_problem_fn fn, void *payload)
{
	const char *want = json_string_value(json_object_get(entry, "sha256"));
	json_int_t size = json_integer_value(json_object_get(entry, "size"));
	char what[512];
	if (!safe_rel(rel) || !want || !pyrt_sha256_hex_valid(want)) {
		fn(rel, "the index entry is malformed (path or sha256) — run "
		   "\"pyrt mirror DIR\" again", payload);
		return 1;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(what, sizeof what, "missing or not a regular file "
			 "(%s) — run \"pyrt mirror DIR\" again",
			 fd < 0 ? strerror(errno) : "not a file");
		if (fd >= 0)
			close(fd);
		fn(rel, what, payload);
		return 1;
	}
	close(fd);
	char hex[PYRT_SHA256_HEX_LEN + 1];
	pyrt_error e = PYRT_ERROR_INIT;
	if (pyrt_sha256_file_hex(path, hex, &e) != 0) {
		fn(rel, e.msg, payload);
		return 1;
	}
	if (size > 0 && (json_int_t)st.st_size != size) {
		snprintf(what, sizeof what, "size mismatch: expected %lld "
			 "bytes, got %lld — run \"pyrt mirror DIR\" again to "
			 "fetch it anew", (long long)size,
			 (long long)st.st_size);
		fn(rel, what, payload);
		return 1;
	}
	if (!pyrt_sha256_hex_equal(hex, want)) {
		snprintf(what, sizeof what, "SHA-256 mismatch: expected %s, "
			 "got %s — run \"pyrt mirror DIR\" again to fetch it "
			 "anew", want, hex);
		fn(rel, what, payload);
		return 1;
	}
	return 0;
}

int pyrt_mirror_verify(const char *dir, pyrt_mirror_problem_fn on_problem,
		       void *payload, size_t *checked, pyrt_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, PYRT_MIRROR_INDEX);
	*checked = 0;
	struct stat st;
	if (lstat(path, &st) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s has no %s: not a pyrt mirror — make "
				      "one with \"pyrt mirror %s\"", dir,
				      PYRT_MIRROR_INDEX, dir);
	json_error_t je;
	json_t *idx = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	json_t *archives = idx ? json_object_get(idx, "archives") : NULL;
	json_t *wheels = idx ? json_object_get(idx, "wheels") : NULL;
	if (!json_is_object(archives) ||
	    (wheels && !json_is_object(wheels))) {
		json_decref(idx);
		return pyrt_error_set(err, PYRT_E_VERIFY,
				      "%s is not a valid mirror index (%s) — "
				      "run \"pyrt mirror %s\" again", path,
				      idx ? "no archives object" : je.text,
				      dir);
	}
	int problems = 0;
	const char *key;
	json_t *entry;
	json_object_foreach(archives, key, entry) {
		const char *file = json_string_value(json_object_get(entry,
								     "file"));
		(*checked)++;
		problems += verify_one(dir, file ? file : "", entry,
				       on_problem, payload);
	}
	if (wheels)
		json_object_foreach(wheels, key, entry) {
			(*checked)++;
			problems += verify_one(dir, key, entry, on_problem,
					       payload);
		}
	json_decref(idx);
	return problems;
}

/* ---- verify against the pins' wheel lock --------------------------------- */

/* The lock entry for file in any platform's lock, or NULL. */
static const pyrt_pin_wheel *lock_entry(const pyrt_pins *pins,
					const char *file)
{
	for (size_t k = 0; k < pyrt_pins_lock_count(pins); k++) {
		size_t n = 0;
		const pyrt_pin_wheel *w = pyrt_pins_lock_find(
			pins, pyrt_pins_lock_key_at(pins, k), &n);
		for (size_t i = 0; i < n; i++)
			if (strcmp(w[i].file, file) == 0)
				return &w[i];
	}
	return NULL;
}

static int verify_locked_wheel(const char *dir, const char *file,
			       const pyrt_pins *pins,
			       pyrt_mirror_problem_fn fn, void *payload)
{
	char rel[PATH_MAX], path[PATH_MAX * 2], hex[PYRT_SHA256_HEX_LEN + 1];
	char what[512];
	snprintf(rel, sizeof rel, "%s/%s", PYRT_MIRROR_WHEELS, file);
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	pyrt_error e = PYRT_ERROR_INIT;
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		fn(rel, "not a regular file", payload);
		return 1;
	}
	if (pyrt_sha256_file_hex(path, hex, &e) != 0) {
		fn(rel, e.msg, payload);
		return 1;
	}
	const pyrt_pin_wheel *w = lock_entry(pins, file);
	if (!w) {
		snprintf(what, sizeof what, "not in the wheel lock of the pins "
			 "(%s): expected no such wheel, got SHA-256 %s — remove "
			 "it, or lock it with \"pyrt lock\"",
			 pyrt_pins_source(pins), hex);
		fn(rel, what, payload);
		return 1;
	}
	if ((uint64_t)st.st_size == w->size &&
	    pyrt_sha256_hex_equal(hex, w->sha256))
		return 0;
	snprintf(what, sizeof what, "SHA-256 mismatch with the wheel lock of "
		 "the pins (%s): expected %s (%llu bytes), got %s (%llu bytes)"
		 " — restore the wheel from a source you trust",
		 pyrt_pins_source(pins), w->sha256,
		 (unsigned long long)w->size, hex,
		 (unsigned long long)st.st_size);
	fn(rel, what, payload);
	return 1;
}

int pyrt_mirror_verify_lock(const char *dir, const pyrt_pins *pins,
			    pyrt_mirror_problem_fn on_problem, void *payload,
			    size_t *checked, pyrt_error *err)
{
	*checked = 0;
	if (pyrt_pins_lock_count(pins) == 0)
		return 0;
	char wheels[PATH_MAX];
	snprintf(wheels, sizeof wheels, "%s/%s", dir, PYRT_MIRROR_WHEELS);
	DIR *d = opendir(wheels);
	if (!d)
		return errno == ENOENT ? 0
		       : pyrt_error_set_errno(err, PYRT_E_IO, errno,
					      "cannot read %s", wheels);
	int problems = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || n < 5 ||
		    strcmp(e->d_name + n - 4, ".whl") != 0)
			continue;
		(*checked)++;
		problems += verify_locked_wheel(dir, e->d_name, pins,
						on_problem, payload);
	}
	closedir(d);
	return problems;
}
