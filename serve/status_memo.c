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
 *
 * Hundreds of pollers ask at once, so a GET that finds nothing queued takes
 * no lock anyone waits on: poll(2) with no timeout says whether the queue
 * holds an event (it does not consume one), and the answer is an immutable
 * object every request shares by reference, swapped under a rwlock that
 * only a rebuild takes for writing.  Only a GET that finds the queue
 * non-empty, or no answer, takes the rebuild mutex, drains and rebuilds.
 * The inotify descriptor lives as long as the memo (rewatching removes the
 * old watches instead), so the number a reader polls is always the one the
 * watches are on.
 */
#include "serve/internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/fix.h"
#include "app/status_json.h"
#include "app/text.h"
#include "app/status.h"
#include "core/runtime/marker.h"
#include "core/util/os.h"

/* The box's path, its runtime and every folder of the site-packages: the
 * fixture baseline with pip is about 200.  Past this many the answer is
 * not remembered (every GET reads the box), never remembered half-watched. */
#define MEMO_WATCHES 4096
#define MEMO_TREE_DEPTH 32

struct memo_watch {
	int wd;
	char only[NAME_MAX + 1]; /* "": every event; else events naming it */
};

struct srv_status_memo {
	pthread_mutex_t mu;      /* one rebuild at a time; owns ifd's watches */
	pthread_rwlock_t rw;     /* cur's swap against readers' references */
	srv_status_answer *cur;  /* NULL: no answer the watches vouch for */
	int ifd;                 /* -1: no inotify, read every time */
	struct memo_watch *w;    /* nw in use of capw */
	size_t nw, capw;
};

srv_status_memo *srv_status_memo_new(void)
{
	srv_status_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	pthread_rwlock_init(&m->rw, NULL);
	m->ifd = pyrt_os_watch_new();
	return m;
}

void srv_status_memo_free(srv_status_memo *m)
{
	if (!m)
		return;
	if (m->ifd >= 0)
		close(m->ifd);
	srv_status_answer_release(m->cur);
	pthread_rwlock_destroy(&m->rw);
	pthread_mutex_destroy(&m->mu);
	free(m->w);
	free(m);
}

/* The last holder's release: the 200's free callback frees the answer
 * once no connection is sending it any more (maybe at once). */
void srv_status_answer_release(srv_status_answer *a)
{
	if (!a || __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (a->not_modified)
		MHD_destroy_response(a->not_modified);
	if (a->ok)
		MHD_destroy_response(a->ok);
	else
		free(a);
}

static void answer_free(void *cls)
{
	free(cls);
}

/* The headers both answers carry; 0 when all were added. */
static int common_headers(struct MHD_Response *r, const char *etag)
{
	return (MHD_add_response_header(r, "ETag", etag) == MHD_YES &&
		MHD_add_response_header(r, "Cache-Control", "no-cache") == MHD_YES)
		? 0 : -1;
}

/* The 200 and 304 responses, made once for every request the answer
 * serves; 0, or -1 (out of memory) with a freed. */
static int make_responses(srv_status_answer *a)
{
	struct MHD_Response *nm = MHD_create_response_from_buffer(
		0, NULL, MHD_RESPMEM_PERSISTENT);
	struct MHD_Response *ok = nm
		? MHD_create_response_from_buffer_with_free_callback_cls(
			  a->len, a->body, answer_free, a)
		: NULL;
	if (ok && common_headers(nm, a->etag) == 0 &&
	    common_headers(ok, a->etag) == 0 &&
	    MHD_add_response_header(ok, "Content-Type", "application/json") == MHD_YES) {
		a->not_modified = nm;
		a->ok = ok;
		return 0;
	}
	if (nm)
		MHD_destroy_response(nm);
	if (ok)
		MHD_destroy_response(ok); /* its callback frees a */
	else
		free(a);
	return -1;
}

static srv_status_answer *answer_ref(srv_status_answer *a)
{
	if (a)
		__atomic_add_fetch(&a->refs, 1, __ATOMIC_RELAXED);
	return a;
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

struct drain_ctx {
	const srv_status_memo *m;
	int changed;
};

/* Does this change alter what status would say?  A lost queue, or a watch
 * gone (its removal), always does. */
static void on_change(int id, const char *name, void *cls)
{
	struct drain_ctx *d = cls;
	const struct memo_watch *w = id < 0 ? NULL : watch_of(d->m, id);
	if (!w || !w->only[0] || !name[0] || strcmp(name, w->only) == 0)
		d->changed = 1;
}

/* Read every queued change; 1 when one of them matters. */
static int drain(srv_status_memo *m)
{
	struct drain_ctx d = { m, 0 };
	return pyrt_os_watch_drain(m->ifd, on_change, &d) != 0 || d.changed;
}

static int add_watch(srv_status_memo *m, const char *dir, const char *only)
{
	if (m->nw == MEMO_WATCHES)
		return -1;
	if (m->nw == m->capw) {
		size_t cap = m->capw ? m->capw * 2 : 64;
		struct memo_watch *v = realloc(m->w, cap * sizeof *v);
		if (!v)
			return -1;
		m->w = v;
		m->capw = cap;
	}
	int wd = pyrt_os_watch_add(m->ifd, dir);
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

/* Every folder below dir (not following links), watched for any event: a
 * file deleted deep inside a package folder changes that folder only. */
static int watch_tree(srv_status_memo *m, const char *dir, int depth)
{
	if (depth > MEMO_TREE_DEPTH)
		return -1;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		char path[PATH_MAX];
		struct stat st;
		if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
		    (int)sizeof path) {
			rc = -1;
			break;
		}
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = add_watch(m, path, NULL);
		if (!rc)
			rc = watch_tree(m, path, depth + 1);
	}
	closedir(d);
	return rc;
}

/*
 * The install's site-packages folders (its marker's search path) and every
 * folder below them: the baseline's verdict counts a distribution only
 * when the files its RECORD lists are there (dists.h), so a package folder
 * or a dist-info moved, removed or added, or a file deleted anywhere inside
 * a package folder, changes the answer.
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
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = watch_chain(m, path, box);
			if (!rc)
				rc = watch_tree(m, path, 0);
		}
	}
	free(mk);
	return rc;
}

/* Fresh watches on everything the next answer will be made from. */
static int watch_box(srv_status_memo *m, const char *box_root)
{
	if (m->ifd < 0)
		return -1;
	/* What is queued now was caused before the read below, which sees
	 * it; dropping it (and the IN_IGNORED of the removals) keeps the
	 * next GET from rebuilding for nothing. */
	for (size_t i = 0; i < m->nw; i++)
		pyrt_os_watch_rm(m->ifd, m->w[i].wd);
	m->nw = 0;
	drain(m);
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

srv_status_answer *srv_status_read_answer(const srv_ctx *ctx, int deep,
					  pyrt_error *err)
{
	pyrt_status *st = calloc(1, sizeof *st);
	int rc = st ? app_status_read(ctx->opts->box_root, ctx->pins,
					      ctx->platform_key, deep,
					      ctx->status_cache, st, err)
		    : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	/* Worded as `pyrt status --box-root B --pins P` words it (the API's
	 * answer is that command's): the box and pins, not the server's
	 * sources. */
	app_request as_status = { .command_word = "status",
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
	size_t n = text ? strlen(text) : 0;
	srv_status_answer *a = text ? malloc(sizeof *a + n + 1) : NULL;
	if (!a) {
		free(text);
		if (rc == 0)
			pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		return NULL;
	}
	a->refs = 1;
	a->ok = a->not_modified = NULL;
	memcpy(a->body, text, n);
	free(text);
	a->body[n++] = '\n';
	a->len = n;
	snprintf(a->etag, sizeof a->etag, "\"%016llx\"",
		 (unsigned long long)fnv1a(a->body, a->len));
	if (make_responses(a) != 0) {
		pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		return NULL;
	}
	return a;
}

/* 1 when the inotify queue holds an event (poll does not consume it). */
static int queue_nonempty(const srv_status_memo *m)
{
	struct pollfd p = { .fd = m->ifd, .events = POLLIN };
	int n;
	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return n != 0;
}

static void publish(srv_status_memo *m, srv_status_answer *a)
{
	pthread_rwlock_wrlock(&m->rw);
	srv_status_answer *old = m->cur;
	m->cur = a;
	pthread_rwlock_unlock(&m->rw);
	srv_status_answer_release(old);
}

/* The rebuild: drain, and read the box again when something mattered. */
static srv_status_answer *memo_rebuild(srv_status_memo *m, const srv_ctx *ctx,
				       pyrt_error *err)
{
	pthread_mutex_lock(&m->mu);
	if (m->cur && drain(m))
		publish(m, NULL);
	srv_status_answer *a = answer_ref(m->cur);
	if (!a) {
		int watching = watch_box(m, ctx->opts->box_root) == 0;
		a = srv_status_read_answer(ctx, 0, err);
		if (a && watching)
			publish(m, answer_ref(a));
	}
	pthread_mutex_unlock(&m->mu);
	return a;
}

srv_status_answer *srv_status_memo_get(srv_status_memo *m, const srv_ctx *ctx,
				       pyrt_error *err)
{
	if (m->ifd >= 0 && !queue_nonempty(m)) {
		pthread_rwlock_rdlock(&m->rw);
		srv_status_answer *a = answer_ref(m->cur);
		pthread_rwlock_unlock(&m->rw);
		if (a)
			return a;
	}
	return memo_rebuild(m, ctx, err);
}
