/*
 * The mirror of mirror.h.  Archives go through pyrt_fetch exactly as an
 * install fetches them (TLS checks, caps, resume, retries) and are checked
 * against the pin's SHA-256 and size before they get their final name;
 * wheels are copied from a local wheelhouse, following the baseline's
 * Requires-Dist through the wheels' own METADATA.
 */
#include "core/dist/mirror.h"

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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/dist/fetch.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/os.h"
#include "core/util/redact.h"
#include "core/util/requirement.h"
#include "core/util/sha256.h"
#include "core/util/trust.h"

#define MIRROR_DIR_MODE 0755
#define MIRROR_FILE_MODE 0644
#define METADATA_MAX (1024 * 1024)
#define INDEX_MAX (16 * 1024 * 1024)
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* The index an unfinished run set aside: read back by the next run, never
 * by --verify (it is not the index). */
#define INDEX_OLD "." PYRT_MIRROR_INDEX ".old"
#define INDEX_TEMP "." PYRT_MIRROR_INDEX ".partial"

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

/*
 * Everything below the mirror root is reached from one descriptor of it,
 * with O_NOFOLLOW at every step: a folder swapped for a symlink between a
 * check and a write (DIR/wheels -> /etc) makes the write fail, never land
 * elsewhere.
 */

/* The subfolder name of dfd, made 0755 if absent (a web server's user
 * lists and reads it), opened; returns its descriptor or a negative code. */
static int subdir_open(int dfd, const char *dir, const char *name,
		       pyrt_error *err)
{
	if (mkdirat(dfd, name, MIRROR_DIR_MODE) != 0 && errno != EEXIST)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s/%s", dir, name);
	int fd = openat(dfd, name, DIR_FLAGS);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "%s/%s is not a directory (a symbolic "
				      "link or a file); pyrt writes the mirror "
				      "only into folders it made — remove it",
				      dir, name);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s/%s", dir, name);
	return fd;
}

/* A file of the mirror opened for reading: regular, never through a link,
 * never blocking on a FIFO.  -1 when it is none of that. */
static int open_regular_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* SHA-256 and length of what fd holds from its current offset. */
static int hash_fd(int fd, char *hex, uint64_t *bytes, pyrt_error *err)
{
	int rc = pyrt_sha256_ready(err);
	pyrt_sha256 *sha = rc ? NULL : pyrt_sha256_new();
	char buf[64 * 1024];
	if (!rc && !sha)
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	*bytes = 0;
	while (!rc) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot read");
		if (n <= 0)
			break;
		pyrt_sha256_update(sha, buf, (size_t)n);
		*bytes += (uint64_t)n;
	}
	if (!rc && pyrt_sha256_final_hex(sha, hex) != 0)
		rc = pyrt_error_set(err, PYRT_E_INTERNAL, "SHA-256 failed");
	pyrt_sha256_free(sha);
	return rc;
}

/* 1 when name in dfd is a regular file with this digest and size (size
 * 0: unknown), 0 otherwise. */
static int file_matches_at(int dfd, const char *name, const char *sha256,
			   uint64_t size)
{
	int fd = open_regular_at(dfd, name);
	if (fd < 0)
		return 0;
	char hex[PYRT_SHA256_HEX_LEN + 1];
	uint64_t bytes = 0;
	pyrt_error e = PYRT_ERROR_INIT;
	int ok = hash_fd(fd, hex, &bytes, &e) == 0 &&
		 (!size || bytes == size) && pyrt_sha256_hex_equal(hex, sha256);
	close(fd);
	return ok;
}

/* ".<name>.partial": hidden, so never a name the mirror serves. */
static void partial_of(const char *name, char *out, size_t len)
{
	pyrt_fmt_text(out, len, ".%s.partial", name);
}

/* Create the partial 0644 (so the renamed file can be served) before
 * pyrt_fetch opens it; an existing one is resumed. */
static int partial_precreate(int dfd, const char *partial, const char *shown,
			     pyrt_error *err)
{
	int fd = openat(dfd, partial, O_RDWR | O_CREAT | O_NOFOLLOW |
			O_NONBLOCK | O_CLOEXEC, MIRROR_FILE_MODE);
	struct stat st;
	if (fd < 0)
		return pyrt_error_set_errno(err, errno == ELOOP
					    ? PYRT_E_UNTRUSTED : PYRT_E_IO,
					    errno, "cannot open %s", shown);
	int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		  st.st_uid != geteuid();
	close(fd);
	if (bad)
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "%s is not a regular file of yours — "
				      "remove it", shown);
	return 0;
}

/* pyrt_fetch writes by name: the name goes through the folder's descriptor
 * (pyrt_os_fd_path), so it resolves to the folder this descriptor holds,
 * whatever is renamed. */
static int fetch_into(const pyrt_mirror_opts *opts, const pyrt_events *ev,
		      const pyrt_pin_archive *pin, const char *url,
		      int subfd, const char *partial, const char *shown,
		      pyrt_fetch_result *fr, pyrt_error *err)
{
	int rc = partial_precreate(subfd, partial, shown, err);
	if (rc)
		return rc;
	char via[64 + NAME_MAX];
	if (pyrt_os_fd_path(via, sizeof via, subfd, partial) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot name %s through its folder",
					    shown);
	pyrt_fetch_opts fo = PYRT_FETCH_OPTS_INIT;
	fo.url = url;
	fo.partial_path = via;
	fo.cacert = opts->cacert;
	fo.expected_size = pin->size;
	if (opts->fetch_attempts)
		fo.max_attempts = opts->fetch_attempts;
	memset(fr, 0, sizeof *fr);
	return pyrt_fetch(&fo, ev, fr, err);
}

/* The partial is complete and verified: give it its name, durably. */
static int publish_at(int subfd, const char *partial, const char *name,
		      const char *shown, pyrt_error *err)
{
	if (renameat(subfd, partial, subfd, name) != 0) {
		int rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					      "cannot rename the partial of %s",
					      shown);
		unlinkat(subfd, partial, 0);
		return rc;
	}
	fsync(subfd);
	return 0;
}

/* The URL to fetch pin from: its own, or the same path on the source. */
static int archive_url(const pyrt_mirror_opts *opts,
		       const pyrt_pin_archive *pin, char **url,
		       pyrt_error *err)
{
	if (opts->source_mirror)
		return pyrt_fetch_mirror_url(pin->url, opts->source_mirror, url,
					     err);
	*url = strdup(pin->url);
	return *url ? 0 : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
}

/* Fetch one pinned archive into the folder subfd as name, verified. */
static int fetch_verified(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			  const pyrt_pin_archive *pin, const char *rel,
			  int subfd, const char *name, pyrt_error *err)
{
	char *url = NULL;
	int rc = archive_url(opts, pin, &url, err);
	if (rc)
		return rc;
	char shown[2048], partial[NAME_MAX + 16];
	pyrt_redact_url(url, shown, sizeof shown);
	pyrt_events_log(ev, PYRT_LOG_INFO, "fetching %s (%s) from %s", rel,
			pin->key, shown);
	partial_of(name, partial, sizeof partial);
	pyrt_fetch_result fr;
	rc = fetch_into(opts, ev, pin, url, subfd, partial, rel, &fr, err);
	/* A resumed head may be another run's bad bytes: once more from 0. */
	if (!rc && fr.resumes > 0 &&
	    !pyrt_sha256_hex_equal(fr.sha256, pin->sha256)) {
		unlinkat(subfd, partial, 0);
		rc = fetch_into(opts, ev, pin, url, subfd, partial, rel, &fr,
				err);
	}
	free(url);
	if (rc)
		return rc;
	if (!pyrt_sha256_hex_equal(fr.sha256, pin->sha256) ||
	    (pin->size && fr.bytes != pin->size)) {
		unlinkat(subfd, partial, 0);
		return pyrt_error_set(err, PYRT_E_VERIFY,
				      "SHA-256 mismatch for %s (%s): expected "
				      "%s (%llu bytes), got %s (%llu bytes); "
				      "the download was deleted, the mirror "
				      "keeps no file under that name", shown,
				      pin->key, pin->sha256,
				      (unsigned long long)pin->size, fr.sha256,
				      (unsigned long long)fr.bytes);
	}
	return publish_at(subfd, partial, name, rel, err);
}

/* Download one pinned archive to its place; *fetched is 1 when bytes were
 * downloaded, 0 when the file was already there and matched. */
static int mirror_archive(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			  int dfd, const pyrt_pin_archive *pin,
			  const char *rel, int *fetched, pyrt_error *err)
{
	char sub[NAME_MAX + 1];
	const char *slash = strchr(rel, '/');
	pyrt_fmt_text(sub, sizeof sub, "%.*s", (int)(slash - rel), rel);
	const char *name = slash + 1;
	int subfd = subdir_open(dfd, opts->dir, sub, err);
	if (subfd < 0)
		return subfd;
	*fetched = 0;
	int rc = 0;
	if (!file_matches_at(subfd, name, pin->sha256, pin->size)) {
		rc = fetch_verified(opts, ev, pin, rel, subfd, name, err);
		*fetched = rc == 0;
	}
	close(subfd);
	return rc;
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
	if (out)
		pyrt_name_normalize(s, n, '-', out);
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
				pyrt_fmt_text(marker, sizeof marker, "%.*s",
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

/* Mark the wheels the n requirements reqs need; names the wheelhouse
 * lacks go to missing. */
static int wheels_select_reqs(const char *src, const char *const *reqs,
			      size_t nreqs, wheelhouse *wh, strlist *missing,
			      pyrt_error *err)
{
	strlist todo = { 0 }, optional = { 0 }, extras = { 0 }, seen = { 0 };
	int rc = 0;
	for (size_t i = 0; !rc && i < nreqs; i++)
		if (add_requirement(reqs[i], &todo, &extras) != 0)
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
			rc = pyrt_fmt_path(path, sizeof path, err, "%s/%s", src,
					   wh->v[w].file);
			char *meta = rc ? NULL : wheel_metadata(path);
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

/* The baseline's wheels. */
static int wheels_select(const char *src, const pyrt_pins *pins,
			 wheelhouse *wh, strlist *missing, pyrt_error *err)
{
	size_t n = pyrt_pins_baseline_count(pins);
	const char **reqs = calloc(n ? n : 1, sizeof *reqs);
	if (!reqs)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		reqs[i] = pyrt_pins_baseline_at(pins, i);
	int rc = wheels_select_reqs(src, reqs, n, wh, missing, err);
	free(reqs);
	return rc;
}

int pyrt_mirror_wheels_needed(const char *dir,
			      const char *const *reqs, size_t n,
			      pyrt_mirror_wheel_fn fn, void *ctx,
			      pyrt_error *err)
{
	wheelhouse wh = { 0 };
	strlist missing = { 0 };
	int rc = wheelhouse_scan(dir, &wh, err);
	if (!rc)
		rc = wheels_select_reqs(dir, reqs, n, &wh, &missing,
					err);
	for (size_t i = 0; !rc && i < wh.n; i++)
		if (wh.v[i].selected)
			fn(wh.v[i].name, wh.v[i].file, ctx);
	for (size_t i = 0; !rc && i < missing.n; i++)
		fn(missing.v[i], NULL, ctx);
	strlist_free(&missing);
	wheelhouse_free(&wh);
	return rc;
}

/* Copy src to name in the folder wfd through a 0644 partial, hashing;
 * fsync, rename.  shown is name as the user sees it (wheels/<file>). */
static int copy_hashed_at(const char *src, int wfd, const char *name,
			  const char *shown, char *hex, uint64_t *bytes,
			  pyrt_error *err)
{
	char partial[NAME_MAX + 16];
	partial_of(name, partial, sizeof partial);
	int in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = in < 0 ? errno : EINVAL;
		if (in >= 0)
			close(in);
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot read %s", src);
	}
	unlinkat(wfd, partial, 0);
	int out = openat(wfd, partial, O_WRONLY | O_CREAT | O_EXCL |
			 O_NOFOLLOW | O_CLOEXEC, MIRROR_FILE_MODE);
	if (out < 0) {
		int e = errno;
		close(in);
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot create the partial of %s",
					    shown);
	}
	unsigned long long copied = 0;
	int rc = pyrt_sha256_copy(in, out, ULLONG_MAX, src, shown, NULL, hex,
				  &copied, err);
	*bytes = copied;
	if (!rc && fsync(out) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", shown);
	if (close(out) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", shown);
	close(in);
	if (rc) {
		unlinkat(wfd, partial, 0);
		return rc;
	}
	return publish_at(wfd, partial, name, shown, err);
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

/* Copy the selected wheels into the folder wfd; index them in idx. */
static int copy_selected(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			 const wheelhouse *wh, int wfd, json_t *wheels,
			 pyrt_error *err)
{
	for (size_t i = 0; i < wh->n; i++) {
		if (!wh->v[i].selected)
			continue;
		if (pyrt_events_cancelled(ev))
			return pyrt_error_set(err, PYRT_E_CANCELLED,
					      "cancelled");
		char src[PATH_MAX], rel[PATH_MAX];
		char hex[PYRT_SHA256_HEX_LEN + 1];
		uint64_t bytes = 0;
		int rc = pyrt_fmt_path(src, sizeof src, err, "%s/%s",
				       opts->wheelhouse_from, wh->v[i].file);
		if (!rc)
			rc = pyrt_fmt_path(rel, sizeof rel, err, "%s/%s",
					   PYRT_MIRROR_WHEELS, wh->v[i].file);
		if (!rc)
			rc = copy_hashed_at(src, wfd, wh->v[i].file, rel, hex,
					    &bytes, err);
		if (rc)
			return rc;
		if (json_object_set_new(wheels, rel,
				json_pack("{s:s, s:I}", "sha256", hex, "size",
					  (json_int_t)bytes)) != 0)
			return pyrt_error_set(err, PYRT_E_NOMEM,
					      "out of memory");
	}
	return 0;
}

/* Copy the wheels the baseline needs into <dir>/wheels; index them. */
static int mirror_wheels(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			 int dfd, json_t *idx, pyrt_mirror_result *res,
			 pyrt_error *err)
{
	json_t *lacking = json_array();
	wheelhouse wh = { 0 };
	strlist missing = { 0 };
	int wfd = -1;
	int rc = wheelhouse_scan(opts->wheelhouse_from, &wh, err);
	if (!rc)
		rc = wheels_select(opts->wheelhouse_from, opts->pins, &wh,
				   &missing, err);
	if (!rc && (wfd = subdir_open(dfd, opts->dir, PYRT_MIRROR_WHEELS,
				      err)) < 0)
		rc = wfd;
	if (!rc)
		rc = copy_selected(opts, ev, &wh, wfd,
				   json_object_get(idx, "wheels"), err);
	if (wfd >= 0)
		close(wfd);
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

/*
 * The index is what --verify trusts, so it exists only for a finished run:
 * a run sets the old one aside first (INDEX_OLD, which it still merges
 * from) and writes the new one last, through a temp file, fsync and
 * rename, once every file it names is in place.  A run killed or out of
 * disk on the way leaves no index, and --verify says so.
 */

/* The JSON object in name, or NULL (none, unreadable, not an object). */
static json_t *index_load_at(int dfd, const char *name)
{
	int fd = open_regular_at(dfd, name);
	if (fd < 0)
		return NULL;
	json_error_t je;
	json_t *idx = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
	close(fd);
	if (idx && !json_is_object(idx)) {
		json_decref(idx);
		return NULL;
	}
	return idx;
}

/* The index to merge from: the current one, else the one an unfinished
 * run set aside. */
static json_t *index_load(int dfd)
{
	json_t *idx = index_load_at(dfd, PYRT_MIRROR_INDEX);
	return idx ? idx : index_load_at(dfd, INDEX_OLD);
}

/* From here until the new index is written, there is none. */
static int index_retire(int dfd, const char *dir, pyrt_error *err)
{
	if (renameat(dfd, PYRT_MIRROR_INDEX, dfd, INDEX_OLD) != 0 &&
	    errno != ENOENT)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot set the old index %s/%s "
					    "aside", dir, PYRT_MIRROR_INDEX);
	fsync(dfd);
	return 0;
}

static int index_write(int dfd, const char *dir, json_t *idx,
		       pyrt_error *err)
{
	char *text = json_dumps(idx, JSON_INDENT(2) | JSON_SORT_KEYS |
				JSON_ENSURE_ASCII);
	if (!text)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	size_t len = strlen(text);
	text[len] = '\n'; /* json_dumps leaves room only for the NUL */
	int rc = 0;
	/* pyrt_fs_write_file_atomic's 0600 would hide it from the web
	 * server: the same temp + fsync + rename, 0644. */
	unlinkat(dfd, INDEX_TEMP, 0);
	int fd = openat(dfd, INDEX_TEMP, O_WRONLY | O_CREAT | O_EXCL |
			O_NOFOLLOW | O_CLOEXEC, MIRROR_FILE_MODE);
	if (fd < 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot create %s/%s", dir,
					  INDEX_TEMP);
	if (!rc && (pyrt_fs_write_all(fd, text, len + 1) != 0 || fsync(fd) != 0))
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s/%s", dir,
					  INDEX_TEMP);
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s/%s", dir,
					  INDEX_TEMP);
	if (!rc && renameat(dfd, INDEX_TEMP, dfd, PYRT_MIRROR_INDEX) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot rename %s/%s to %s", dir,
					  INDEX_TEMP, PYRT_MIRROR_INDEX);
	if (rc) {
		unlinkat(dfd, INDEX_TEMP, 0);
	} else {
		unlinkat(dfd, INDEX_OLD, 0);
		fsync(dfd);
	}
	free(text);
	return rc;
}

static int mirror_all_archives(const pyrt_mirror_opts *opts,
			       const pyrt_events *ev, int dfd,
			       json_t *archives, pyrt_mirror_result *res,
			       pyrt_error *err)
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
			rc = mirror_archive(opts, ev, dfd, pin, rel, &fetched,
					    err);
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
		if (pyrt_events_cancelled(ev))
			return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	}
	return 0;
}

/* The index object: the old one's entries kept where this run does not
 * replace them (another --platform, the wheels when none are copied). */
static json_t *index_begin(const pyrt_mirror_opts *opts, int dfd)
{
	json_t *old = index_load(dfd);
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

/*
 * The mirror root, opened once: walked as typed (trust.h; it may not exist
 * yet), made 0755 if absent, opened without following a link, and still
 * ours (or root's) and writable by no one else once open.
 */
static int mirror_open_root(const char *dir, pyrt_error *err)
{
	char real[PATH_MAX];
	int rc = pyrt_trust_path("the mirror directory", dir,
				 PYRT_TRUST_MISSING_OK, real, sizeof real, err);
	if (rc)
		return rc;
	if (mkdir(real, MIRROR_DIR_MODE) != 0 && errno != EEXIST)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", dir);
	int fd = open(real, DIR_FLAGS);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "%s is not a directory pyrt can "
					    "write a mirror into", dir);
	struct stat st;
	if (fstat(fd, &st) != 0 || (st.st_uid && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return pyrt_error_set(err, PYRT_E_UNTRUSTED,
				      "refusing the mirror directory %s: it "
				      "changed owner or mode while pyrt opened "
				      "it — check who else writes there", dir);
	}
	return fd;
}

/* The mirror's lock: a private file beside DIR (".DIR.lock", 0600, in
 * DIR's parent, which passed the gate).  Not DIR itself: flock needs only
 * a read descriptor, and every user can open a 0755 folder, so any user
 * could hold it and stall every `pyrt mirror` (issue 26, door 4). */
static int mirror_lock_open(const char *dir, pyrt_error *err)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	int rc = pyrt_fmt_path(parent, sizeof parent, err, "%s", dir);
	if (rc)
		return rc;
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = '\0';
	char *slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		return pyrt_error_set(err, PYRT_E_USAGE, "%s: name a folder "
				      "below another for the mirror", dir);
	if (snprintf(name, sizeof name, ".%s.lock", slash + 1) >=
	    (int)sizeof name)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s: name too long",
				      dir);
	*(slash == parent ? slash + 1 : slash) = '\0';
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno, "cannot "
					    "open %s", parent);
	int fd = openat(pfd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
			O_NONBLOCK | O_CLOEXEC, 0600);
	int e = errno;
	close(pfd);
	struct stat st;
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, e, "cannot open "
					    "the mirror's lock %s/%s", parent,
					    name);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() ||
	    ((st.st_mode & 077) && fchmod(fd, 0600) != 0)) {
		close(fd);
		return pyrt_error_set(err, PYRT_E_UNTRUSTED, "refusing the "
				      "mirror's lock %s/%s: not a private "
				      "file of yours — remove it", parent,
				      name);
	}
	return fd;
}

/* One run at a time per mirror: the others wait here (a cron job and an
 * operator, or three hosts sharing DIR), cancellable. */
static int mirror_lock(int dfd, const char *dir, const pyrt_events *ev,
		       pyrt_error *err)
{
	int said = 0;
	while (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "cannot lock %s", dir);
		if (!said++)
			pyrt_events_log(ev, PYRT_LOG_INFO,
					"another pyrt mirror is writing %s; "
					"waiting for it to finish (Ctrl-C to "
					"stop)", dir);
		if (pyrt_events_cancelled(ev))
			return pyrt_error_set(err, PYRT_E_CANCELLED,
					      "cancelled while waiting for "
					      "another pyrt mirror on %s", dir);
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	return 0;
}

static int mirror_locked(const pyrt_mirror_opts *opts, const pyrt_events *ev,
			 int dfd, pyrt_mirror_result *res, pyrt_error *err)
{
	json_t *idx = index_begin(opts, dfd);
	if (!idx)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = index_retire(dfd, opts->dir, err);
	if (!rc)
		rc = mirror_all_archives(opts, ev, dfd,
					 json_object_get(idx, "archives"), res,
					 err);
	if (!rc && opts->wheelhouse_from)
		rc = mirror_wheels(opts, ev, dfd, idx, res, err);
	res->wheels = json_object_size(json_object_get(idx, "wheels"));
	if (!rc && pyrt_events_cancelled(ev))
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (!rc)
		rc = index_write(dfd, opts->dir, idx, err);
	json_decref(idx);
	return rc;
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
	/* The wheels copied from there are what every host runs as root. */
	if (!rc && opts->wheelhouse_from)
		rc = pyrt_trust_dir_entries("--wheelhouse-from",
					    opts->wheelhouse_from, err);
	if (rc)
		return rc;
	int dfd = mirror_open_root(opts->dir, err);
	if (dfd < 0)
		return dfd;
	int lfd = mirror_lock_open(opts->dir, err);
	rc = lfd < 0 ? lfd : mirror_lock(lfd, opts->dir, ev, err);
	if (!rc)
		rc = mirror_locked(opts, ev, dfd, res, err);
	/* Closing the descriptor releases the lock. */
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return rc;
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
	/* A cut path never opens: another file's digest is no verdict. */
	if (pyrt_fmt_path(path, sizeof path, NULL, "%s/%s", dir, rel)) {
		fn(rel, "its path under the mirror is too long", payload);
		return 1;
	}
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pyrt_fmt_text(what, sizeof what, "missing or not a regular file "
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
		pyrt_fmt_text(what, sizeof what, "size mismatch: expected %lld "
			      "bytes, got %lld — run \"pyrt mirror DIR\" again to "
			      "fetch it anew", (long long)size,
			      (long long)st.st_size);
		fn(rel, what, payload);
		return 1;
	}
	if (!pyrt_sha256_hex_equal(hex, want)) {
		pyrt_fmt_text(what, sizeof what, "SHA-256 mismatch: expected %s, "
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
	*checked = 0;
	int rc = pyrt_fmt_path(path, sizeof path, err, "%s/%s", dir,
			       PYRT_MIRROR_INDEX);
	if (rc)
		return rc;
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
	pyrt_error e = PYRT_ERROR_INIT;
	if (pyrt_fmt_path(rel, sizeof rel, &e, "%s/%s", PYRT_MIRROR_WHEELS,
			  file) ||
	    pyrt_fmt_path(path, sizeof path, &e, "%s/%s", dir, rel)) {
		fn(file, e.msg, payload);
		return 1;
	}
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
		pyrt_fmt_text(what, sizeof what, "not in the wheel lock of the pins "
			      "(%s): expected no such wheel, got SHA-256 %s — remove "
			      "it, or lock it with \"pyrt lock --wheelhouse DIR --out FILE\"",
			      pyrt_pins_source(pins), hex);
		fn(rel, what, payload);
		return 1;
	}
	if ((uint64_t)st.st_size == w->size &&
	    pyrt_sha256_hex_equal(hex, w->sha256))
		return 0;
	pyrt_fmt_text(what, sizeof what, "SHA-256 mismatch with the wheel lock of "
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
	int rc = pyrt_fmt_path(wheels, sizeof wheels, err, "%s/%s", dir,
			       PYRT_MIRROR_WHEELS);
	if (rc)
		return rc;
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
