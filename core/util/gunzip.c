/*
 * Threaded gzip inflate: one worker thread per open stream, a ring of
 * GZ_SLOTS output buffers between it and the consumer.
 *
 * Ownership of a slot moves under the mutex: the worker fills the slot after
 * the filled ones, the consumer holds the oldest filled slot until its next
 * read, when the slot goes back to the worker.  The worker blocks when every
 * slot is filled or held, so read-ahead is bounded; it checks the stop flag
 * between reads and inflate calls, so pyrt_gunzip_free returns promptly.
 * Every signal is blocked in the worker: the process's handlers (SIGINT sets
 * the cancel flag) run on the main thread, and the worker's reads never see
 * EINTR.
 */
#include "core/util/gunzip.h"
#include "core/util/fmt.h"
#include "core/util/lazylib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define GZ_SLOTS 4
#define GZ_SLOT_SIZE (256 * 1024)
#define GZ_IN_SIZE (256 * 1024)
#define GZ_MSG_MAX 512

/* The worker's way of saying "stopped on request": never reported. */
#define GZ_STOPPED 1

struct pyrt_gunzip {
	int fd;
	char *path;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t can_fill; /* a slot came back to the worker, or stop */
	pthread_cond_t can_read; /* a slot was filled, or the worker is done */
	unsigned char *ring;     /* GZ_SLOTS * GZ_SLOT_SIZE */
	size_t len[GZ_SLOTS];
	unsigned head;           /* oldest filled or held slot */
	unsigned filled;         /* filled slots not yet handed out */
	int held;                /* the consumer holds slot head */
	int done;                /* the worker has finished: end or failure */
	int code;                /* its failure, 0 at a clean end */
	char msg[GZ_MSG_MAX];
	atomic_int stop;
	_Atomic uint64_t bytes_in;

	/* Worker-only state. */
	unsigned char *in;
	z_stream z;
	int z_ready;
	int eof;                 /* the file is read to its end */
	int in_member;           /* inside a gzip member */
	unsigned long members;   /* members started */
};

int pyrt_gunzip_is_gzip(const char *path)
{
	unsigned char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, magic, sizeof magic, 0);
	close(fd);
	return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

static int gz_fail(pyrt_gunzip *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record the worker's failure (kept until the consumer reaches it). */
static int gz_fail(pyrt_gunzip *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pyrt_fmt_vtext(g->msg, sizeof g->msg, fmt, ap);
	va_end(ap);
	return PYRT_E_IO;
}

/* Refill the input buffer with one large read; sets eof at the end. */
static int gz_read_input(pyrt_gunzip *g)
{
	for (;;) {
		ssize_t n = read(g->fd, g->in, GZ_IN_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gz_fail(g, "cannot read %s: %s", g->path,
				       strerror(errno));
		if (n == 0)
			g->eof = 1;
		atomic_fetch_add(&g->bytes_in, (uint64_t)n);
		g->z.next_in = g->in;
		g->z.avail_in = (uInt)n;
		return 0;
	}
}

/*
 * Between members: start the next one when the input holds one, or report
 * the end.  Anything but a gzip header after a member ends the stream, so
 * padding after the last member is ignored; the first member must be there.
 */
static int gz_next_member(pyrt_gunzip *g, int *end)
{
	z_stream *z = &g->z;
	if (z->avail_in == 0 || z->next_in[0] != 0x1f) {
		if (g->members == 0)
			return gz_fail(g, "%s is not gzip data", g->path);
		*end = 1;
		return 0;
	}
	if (g->members > 0 && inflateReset(z) != Z_OK)
		return gz_fail(g, "cannot restart inflate on %s", g->path);
	g->in_member = 1;
	g->members++;
	return 0;
}

/* One inflate call and what its result means for the stream. */
static int gz_inflate_step(pyrt_gunzip *g)
{
	z_stream *z = &g->z;
	int zr = inflate(z, Z_NO_FLUSH);
	if (zr == Z_STREAM_END) {
		g->in_member = 0; /* its CRC and length have been checked */
		return 0;
	}
	if (zr == Z_OK)
		return 0;
	/* No progress with room to write: it wants input, if there is any. */
	if (zr == Z_BUF_ERROR && z->avail_in == 0 && !g->eof)
		return 0;
	if (zr == Z_BUF_ERROR && z->avail_in == 0)
		return gz_fail(g, "gzip data in %s is truncated (the file "
			       "ends inside member %lu)", g->path, g->members);
	if (zr == Z_MEM_ERROR)
		return gz_fail(g, "out of memory inflating %s", g->path);
	return gz_fail(g, "gzip data in %s is corrupt (member %lu: %s)",
		       g->path, g->members, z->msg ? z->msg : "bad data");
}

/*
 * Fill out with up to cap plain bytes.  Stops early only at the end of the
 * stream (*end set), on a failure, or when asked to stop (GZ_STOPPED).
 */
static int gz_fill(pyrt_gunzip *g, unsigned char *out, size_t cap,
		   size_t *got, int *end)
{
	z_stream *z = &g->z;
	int rc = 0;
	z->next_out = out;
	z->avail_out = (uInt)cap;
	while (!rc && !*end && z->avail_out > 0) {
		if (atomic_load_explicit(&g->stop, memory_order_relaxed))
			rc = GZ_STOPPED;
		else if (z->avail_in == 0 && !g->eof)
			rc = gz_read_input(g);
		else if (!g->in_member)
			rc = gz_next_member(g, end);
		else
			rc = gz_inflate_step(g);
	}
	*got = cap - z->avail_out;
	return rc;
}

/* Wait for a free slot; -1 when asked to stop. */
static int gz_claim(pyrt_gunzip *g)
{
	pthread_mutex_lock(&g->mu);
	while (g->filled + (unsigned)g->held >= GZ_SLOTS &&
	       !atomic_load(&g->stop))
		pthread_cond_wait(&g->can_fill, &g->mu);
	int slot = atomic_load(&g->stop)
		   ? -1
		   : (int)((g->head + (unsigned)g->held + g->filled) % GZ_SLOTS);
	pthread_mutex_unlock(&g->mu);
	return slot;
}

/* Hand a filled slot (possibly empty, at the end) and the outcome over. */
static void gz_publish(pyrt_gunzip *g, int slot, size_t n, int rc, int end)
{
	pthread_mutex_lock(&g->mu);
	if (slot >= 0 && n > 0) {
		g->len[slot] = n;
		g->filled++;
	}
	if (rc || end) {
		g->done = 1;
		g->code = rc == GZ_STOPPED ? 0 : rc;
	}
	pthread_cond_signal(&g->can_read);
	pthread_mutex_unlock(&g->mu);
}

/* The worker: fill slot after slot until the end, a failure or stop. */
static void *gz_worker(void *arg)
{
	pyrt_gunzip *g = arg;
	for (;;) {
		int slot = gz_claim(g);
		if (slot < 0) {
			gz_publish(g, -1, 0, GZ_STOPPED, 0);
			break;
		}
		size_t n = 0;
		int end = 0;
		int rc = gz_fill(g, g->ring + (size_t)slot * GZ_SLOT_SIZE,
				 GZ_SLOT_SIZE, &n, &end);
		gz_publish(g, slot, n, rc, end);
		if (rc || end)
			break;
	}
	return NULL;
}

/* Start the worker with every signal blocked (it inherits the mask). */
static int gz_start(pyrt_gunzip *g, pyrt_error *err)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&g->thread, NULL, gz_worker, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, e, "cannot start "
					    "the decompression thread");
	g->started = 1;
	return 0;
}

/* Everything but the thread: buffers, the file, zlib, the locks. */
static int gz_prepare(pyrt_gunzip *g, const char *path, pyrt_error *err)
{
	g->path = strdup(path);
	g->ring = malloc((size_t)GZ_SLOTS * GZ_SLOT_SIZE);
	g->in = malloc(GZ_IN_SIZE);
	if (!g->path || !g->ring || !g->in)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	g->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (g->fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", path);
	/* 16 + 15: gzip wrapper only, the largest window. */
	int zr = inflateInit2(&g->z, 16 + MAX_WBITS);
	if (zr != Z_OK)
		return pyrt_error_set(err, zr == Z_MEM_ERROR ? PYRT_E_NOMEM
							      : PYRT_E_INTERNAL,
				      "cannot start inflate: %s",
				      zError(zr));
	g->z_ready = 1;
	return 0;
}

int pyrt_gunzip_open(pyrt_gunzip **out, const char *path, pyrt_error *err)
{
	if (!out || !path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "gunzip: no output or path");
	*out = NULL;
	int lib_rc = pyrt_lazy_zlib(err);
	if (lib_rc)
		return lib_rc;
	pyrt_gunzip *g = calloc(1, sizeof *g);
	if (!g)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	g->fd = -1;
	atomic_init(&g->stop, 0);
	atomic_init(&g->bytes_in, 0);
	if (pthread_mutex_init(&g->mu, NULL) != 0) {
		free(g);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	pthread_cond_init(&g->can_fill, NULL);
	pthread_cond_init(&g->can_read, NULL);
	int rc = gz_prepare(g, path, err);
	if (!rc)
		rc = gz_start(g, err);
	if (rc) {
		pyrt_gunzip_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int pyrt_gunzip_read(pyrt_gunzip *g, const void **data, size_t *len,
		     pyrt_error *err)
{
	*data = NULL;
	*len = 0;
	pthread_mutex_lock(&g->mu);
	if (g->held) {
		/* The caller is done with the block it had: back to the worker. */
		g->held = 0;
		g->head = (g->head + 1) % GZ_SLOTS;
		pthread_cond_signal(&g->can_fill);
	}
	while (!g->filled && !g->done)
		pthread_cond_wait(&g->can_read, &g->mu);
	int code = 0;
	if (g->filled) {
		g->filled--;
		g->held = 1;
		*data = g->ring + (size_t)g->head * GZ_SLOT_SIZE;
		*len = g->len[g->head];
	} else {
		code = g->code;
	}
	pthread_mutex_unlock(&g->mu);
	if (code)
		return pyrt_error_set(err, code, "%s", g->msg);
	return 0;
}

uint64_t pyrt_gunzip_bytes_in(const pyrt_gunzip *g)
{
	return g ? atomic_load(&g->bytes_in) : 0;
}

void pyrt_gunzip_free(pyrt_gunzip *g)
{
	if (!g)
		return;
	if (g->started) {
		atomic_store(&g->stop, 1);
		pthread_mutex_lock(&g->mu);
		pthread_cond_signal(&g->can_fill);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
	}
	if (g->z_ready)
		inflateEnd(&g->z);
	if (g->fd >= 0)
		close(g->fd);
	pthread_cond_destroy(&g->can_fill);
	pthread_cond_destroy(&g->can_read);
	pthread_mutex_destroy(&g->mu);
	free(g->in);
	free(g->ring);
	free(g->path);
	free(g);
}
