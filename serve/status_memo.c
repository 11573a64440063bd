/*
 * GET /api/runtime/python answered from memory while nothing it was made
 * from has changed.  A desktop app gates every execute_code call on it, so
 * it is asked many times a second; reading the box each time (the trust walk
 * over every ancestor, the marker, the manifest, the lock) costs ~50 system
 * calls, a tenth of what serving the answer does.
 *
 * Never stale: before the box is read, inotify watches go on every folder
 * the answer depends on -- each folder above the box (only for events that
 * name the next folder down, or the folder itself: chown, chmod, rename),
 * the box, runtime/ (the lock), runtime/python (current), the install that
 * current leads to (marker, manifest), its site-packages folders (see
 * watch_site) and the interpreter's folder.  The
 * kernel queues an event before the system call that caused it returns, so
 * any change that finished before a GET began is in the queue that GET
 * drains first; a change during the read is in it for the next GET.
 * Reading causes no such event: the mask leaves out opens, reads and
 * read-only closes, and status writes nothing.  The lock's holder writes its
 * record (IN_MODIFY) and holds the file open for writing, so its death
 * closes it (IN_CLOSE_WRITE).  An overflowed queue, or a watch the kernel
 * dropped, forgets the answer; without inotify every GET reads the box.
 */
#include "serve/internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/fix.h"
#include "app/status_json.h"
#include "app/text.h"
#include "core/runtime/marker.h"

#define MEMO_WATCHES 64
#define MEMO_MASK (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | \
		   IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | \
		   IN_MOVE_SELF)

struct memo_watch {
	int wd;
	char only[NAME_MAX + 1]; /* "": every event; else events naming it */
};

struct srv_status_memo {
	pthread_mutex_t mu;
	int ifd;                 /* -1: not watching, read every time */
	int valid;
	char *body;              /* the JSON answer, '\n'-ended */
	size_t len;
	char etag[24];
	struct memo_watch w[MEMO_WATCHES];
	size_t nw;
};

srv_status_memo *srv_status_memo_new(void)
{
	srv_status_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	m->ifd = -1;
	return m;
}

void srv_status_memo_free(srv_status_memo *m)
{
	if (!m)
		return;
	if (m->ifd >= 0)
		close(m->ifd);
	free(m->body);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t x = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)s[i]) * 1099511628211ULL;
	return x;
}

static const struct memo_watch *watch_of(const srv_status_memo *m, int wd)
{
	for (size_t i = 0; i < m->nw; i++)
		if (m->w[i].wd == wd)
			return &m->w[i];
	return NULL;
}

/* Does this event change what status would say? */
static int event_matters(const srv_status_memo *m, const struct inotify_event *e)
{
	if (e->mask & (IN_Q_OVERFLOW | IN_IGNORED))
		return 1;
	const struct memo_watch *w = watch_of(m, e->wd);
	if (!w || !w->only[0] || e->len == 0)
		return 1;
	return strcmp(e->name, w->only) == 0;
}

/* Read every queued event; 1 when one of them matters. */
static int drain(srv_status_memo *m)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;
	for (;;) {
		ssize_t n = read(m->ifd, buf, sizeof buf);
		if (n <= 0)
			return n < 0 && errno != EAGAIN && errno != EINTR ? 1 : changed;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;
			changed |= event_matters(m, e);
			p += sizeof *e + e->len;
		}
	}
}

static int add_watch(srv_status_memo *m, const char *dir, const char *only)
{
	if (m->nw == MEMO_WATCHES)
		return -1;
	int wd = inotify_add_watch(m->ifd, dir, MEMO_MASK | IN_ONLYDIR);
	if (wd < 0)
		return -1;
	/* A folder reached twice (two paths through it) with different next
	 * parts: every event of it matters. */
	for (size_t i = 0; i < m->nw; i++) {
		if (m->w[i].wd != wd)
			continue;
		if (!only || strcmp(m->w[i].only, only) != 0)
			m->w[i].only[0] = '\0';
		return 0;
	}
	struct memo_watch *w = &m->w[m->nw++];
	w->wd = wd;
	snprintf(w->only, sizeof w->only, "%s", only ? only : "");
	return 0;
}

/* 1 when dir is a folder strictly above the box root. */
static int above_box(const char *dir, const char *box)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return box[1] != '\0';
	return strncmp(dir, box, n) == 0 && box[n] == '/';
}

/*
 * Watch each existing folder on the way to path, from "/", and path itself
 * when it is a folder.  The walk stops at the first part that is missing or
 * not a folder (a symlink such as current): the watch on its parent sees it
 * appear or change.
 */
static int watch_chain(srv_status_memo *m, const char *path, const char *box)
{
	char dir[PATH_MAX];
	if (path[0] != '/' || strlen(path) >= sizeof dir)
		return -1;
	snprintf(dir, sizeof dir, "/");
	const char *p = path + 1;
	for (;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		char name[NAME_MAX + 1];
		if (n == 0 || n > NAME_MAX) {
			return n == 0 ? add_watch(m, dir, NULL) : -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (add_watch(m, dir, above_box(dir, box) ? name : NULL) != 0)
			return -1;
		size_t len = strlen(dir);
		snprintf(dir + len, sizeof dir - len, "%s%s",
			 len > 1 ? "/" : "", name);
		struct stat st;
		if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			return 0;
		p += n;
	}
}

/*
 * The install's site-packages folders (its marker's search path): the
 * baseline's verdict counts a distribution only when the files its RECORD
 * lists are there (dists.h), so a package folder or a dist-info moved,
 * removed or added there changes the answer.  A file deleted deeper inside
 * a package folder is not seen here (a watch per folder would not fit):
 * `pyrt status`, ?deep=1 and doctor read the files every time.
 */
static int watch_site(srv_status_memo *m, const char *real, const char *box)
{
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s", real);
	char *slash = strrchr(path, '/');
	if (!slash)
		return 0;
	snprintf(slash, sizeof path - (size_t)(slash - path), "/marker.json");
	pyrt_marker *mk = malloc(sizeof *mk);
	if (!mk || pyrt_marker_read(path, mk, NULL) != 0) {
		free(mk);
		return 0;
	}
	int rc = 0;
	for (int i = 0; !rc && mk->search_path_known &&
	     i < mk->search_path_count; i++) {
		const char *rel = mk->search_path[i];
		size_t n = strlen(rel);
		struct stat st;
		if (n < 9 || strcmp(rel + n - 9, "-packages") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", real, rel);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = watch_chain(m, path, box);
	}
	free(mk);
	return rc;
}

/* Fresh watches on everything the next answer will be made from. */
static int watch_box(srv_status_memo *m, const char *box_root)
{
	if (m->ifd >= 0)
		close(m->ifd);
	m->nw = 0;
	m->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->ifd < 0)
		return -1;
	char box[PATH_MAX], path[PATH_MAX + 64], real[PATH_MAX];
	if (!realpath(box_root, box))
		snprintf(box, sizeof box, "%s", box_root);
	snprintf(path, sizeof path, "%s/runtime/python/current", box);
	if (watch_chain(m, path, box) != 0)
		return -1;
	if (realpath(path, real)) {
		if (watch_site(m, real, box) != 0)
			return -1;
		snprintf(path, sizeof path, "%s/bin", real);
		if (watch_chain(m, path, box) != 0)
			return -1;
		snprintf(path, sizeof path, "%s/bin/python3", real);
		char *slash;
		if (realpath(path, real) && (slash = strrchr(real, '/'))) {
			*slash = '\0';
			if (watch_chain(m, real[0] ? real : "/", box) != 0)
				return -1;
		}
	}
	return 0;
}

char *srv_status_read_text(const srv_ctx *ctx, int deep, size_t *len,
			   char etag[24], pyrt_error *err)
{
	pyrt_status *st = calloc(1, sizeof *st);
	int rc = st ? pyrt_status_read_cached(ctx->opts->box_root, ctx->pins,
					      ctx->platform_key, deep,
					      ctx->status_cache, st, err)
		    : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* Worded as `pyrt status --box-root B --pins P` words it (the API's
	 * answer is that command's): the box and pins, not the server's
	 * sources. */
	app_request as_status = { .command = APP_CMD_STATUS,
				  .box_root = ctx->opts->box_root,
				  .box_root_from = ctx->opts->box_root_from,
				  .pins_path = ctx->opts->pins_path,
				  .pins_from = ctx->opts->pins_from };
	if (rc == 0)
		app_fix_status(&as_status, st);
	json_t *obj = rc == 0 ? app_status_json(st) : NULL;
	free(st);
	char *text = obj ? json_dumps(obj, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS)
			 : NULL;
	json_decref(obj);
	if (!text) {
		if (rc == 0)
			pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		return NULL;
	}
	*len = strlen(text);
	text[(*len)++] = '\n'; /* over the NUL: the length says where it ends */
	snprintf(etag, 24, "\"%016llx\"", (unsigned long long)fnv1a(text, *len));
	return text;
}

static int read_answer(srv_status_memo *m, const srv_ctx *ctx, pyrt_error *err)
{
	size_t len = 0;
	char *text = srv_status_read_text(ctx, 0, &len, m->etag, err);
	if (!text)
		return err->code ? err->code : PYRT_E_NOMEM;
	free(m->body);
	m->body = text;
	m->len = len;
	return 0;
}

char *srv_status_memo_get(srv_status_memo *m, const srv_ctx *ctx, size_t *len,
			  char etag[24], pyrt_error *err)
{
	pthread_mutex_lock(&m->mu);
	if (m->valid && (m->ifd < 0 || drain(m)))
		m->valid = 0;
	int rc = 0;
	if (!m->valid) {
		int watching = watch_box(m, ctx->opts->box_root) == 0;
		rc = read_answer(m, ctx, err);
		m->valid = rc == 0 && watching;
	}
	char *copy = rc == 0 ? malloc(m->len) : NULL;
	if (copy) {
		memcpy(copy, m->body, m->len);
		*len = m->len;
		memcpy(etag, m->etag, 24);
	} else if (rc == 0) {
		pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	pthread_mutex_unlock(&m->mu);
	return copy;
}
