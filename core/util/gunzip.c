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
 *
 * Hashing (issue 28): the consumer may hand the worker the SHA-256 of each
 * file it extracts (pyrt_gunzip_hash_*), so hashing leaves the extraction's
 * critical path for the thread that otherwise waits on a full ring.  The
 * consumer copies what it wrote into GZ_HCHUNKS chunks of records (begin
 * TAG, data, end); a queued chunk goes to the worker, which takes queued
 * chunks before it fills another slot, and hands back (TAG, digest) pairs.
 * Chunks change owner under the mutex as slots do; the queue is bounded,
 * so memory does not grow with the number of files.
 */
#include "core/util/gunzip.h"
#include "core/util/fmt.h"
#include "core/util/lazylib.h"
#include "core/util/sha256.h"

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
#define GZ_HCHUNKS 4
#define GZ_HCHUNK_SIZE (128 * 1024)
#define GZ_HREC 16 /* a record's header: op, length, tag */

enum { GZ_OP_BEGIN = 1, GZ_OP_DATA, GZ_OP_ZEROS, GZ_OP_END };

typedef struct gz_hres {
	size_t tag;
	unsigned char digest[PYRT_GUNZIP_DIGEST_LEN];
} gz_hres;

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

	/* Hashing, under mu: chunks [hhead, hhead + hqueued) are the
	 * worker's (hhead being hashed when hbusy); the next one is the
	 * consumer's, filled up to hfill.  Results wait in res. */
	unsigned char *hbuf;     /* GZ_HCHUNKS * GZ_HCHUNK_SIZE, or NULL */
	size_t hlen[GZ_HCHUNKS];
	unsigned hhead, hqueued;
	int hbusy;
	int hfail;               /* the worker could not hash (no memory) */
	gz_hres *res;
	size_t nres, capres;
	/* Consumer-only. */
	size_t hfill;
	size_t hpending;         /* files begun, digests not yet given */
	pyrt_gunzip_digest_fn hfn;
	void *hctx;
	/* Worker-only. */
	pyrt_sha256 *hsha;
	size_t htag;
	gz_hres *wres;
	size_t nwres, capwres;

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

/* Hash one queued chunk's records (worker, outside the lock); results go
 * to wres.  Returns 0, or 1 when out of memory. */
static int gz_hash_chunk(pyrt_gunzip *g, const unsigned char *c, size_t len)
{
	size_t off = 0;
	while (off + GZ_HREC <= len) {
		uint32_t op, n;
		uint64_t tag;
		memcpy(&op, c + off, 4);
		memcpy(&n, c + off + 4, 4);
		memcpy(&tag, c + off + 8, 8);
		off += GZ_HREC;
		if (op == GZ_OP_BEGIN) {
			if (!g->hsha && !(g->hsha = pyrt_sha256_new()))
				return 1;
			if (pyrt_sha256_reset(g->hsha) != 0)
				return 1;
			g->htag = (size_t)tag;
		} else if (op == GZ_OP_DATA) {
			if (pyrt_sha256_update(g->hsha, c + off, n) != 0)
				return 1;
			off += ((size_t)n + 7) & ~(size_t)7;
		} else if (op == GZ_OP_ZEROS) {
			static const unsigned char zeros[64 * 1024];
			while (tag > 0) {
				size_t k = tag < sizeof zeros ? (size_t)tag
							      : sizeof zeros;
				if (pyrt_sha256_update(g->hsha, zeros, k) != 0)
					return 1;
				tag -= k;
			}
		} else if (op == GZ_OP_END) {
			char hex[PYRT_SHA256_HEX_LEN + 1];
			if (g->nwres == g->capwres) {
				size_t cap = g->capwres ? g->capwres * 2 : 256;
				gz_hres *v = realloc(g->wres, cap * sizeof *v);
				if (!v)
					return 1;
				g->wres = v;
				g->capwres = cap;
			}
			if (pyrt_sha256_final_hex(g->hsha, hex) != 0)
				return 1;
			gz_hres *r = &g->wres[g->nwres++];
			r->tag = g->htag;
			for (size_t i = 0; i < PYRT_GUNZIP_DIGEST_LEN; i++) {
				unsigned hi = (unsigned)(hex[2 * i] <= '9'
					? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10);
				unsigned lo = (unsigned)(hex[2 * i + 1] <= '9'
					? hex[2 * i + 1] - '0'
					: hex[2 * i + 1] - 'a' + 10);
				r->digest[i] = (unsigned char)(hi << 4 | lo);
			}
		}
	}
	return 0;
}

/* The worker's results join res (under the lock); 1 when out of memory. */
static int gz_hash_publish(pyrt_gunzip *g)
{
	if (!g->nwres)
		return 0;
	if (g->nres + g->nwres > g->capres) {
		size_t cap = g->capres ? g->capres : 256;
		while (cap < g->nres + g->nwres)
			cap *= 2;
		gz_hres *v = realloc(g->res, cap * sizeof *v);
		if (!v)
			return 1;
		g->res = v;
		g->capres = cap;
	}
	memcpy(g->res + g->nres, g->wres, g->nwres * sizeof *g->wres);
	g->nres += g->nwres;
	g->nwres = 0;
	return 0;
}

/*
 * The worker: queued hash chunks first, then the next free slot, until
 * stop.  After the stream's end (or a failure) it keeps hashing what the
 * consumer queues until pyrt_gunzip_free stops it.
 */
static void *gz_worker(void *arg)
{
	pyrt_gunzip *g = arg;
	int inflating = 1;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!atomic_load(&g->stop) && !(g->hqueued && !g->hbusy) &&
		       !(inflating &&
			 g->filled + (unsigned)g->held < GZ_SLOTS))
			pthread_cond_wait(&g->can_fill, &g->mu);
		if (atomic_load(&g->stop))
			break;
		if (g->hqueued && !g->hbusy) {
			unsigned c = g->hhead;
			size_t len = g->hlen[c];
			int skip = g->hfail;
			g->hbusy = 1;
			pthread_mutex_unlock(&g->mu);
			int fail = skip ? 1 : gz_hash_chunk(g,
				g->hbuf + (size_t)c * GZ_HCHUNK_SIZE, len);
			pthread_mutex_lock(&g->mu);
			if (fail || gz_hash_publish(g))
				g->hfail = 1;
			g->hbusy = 0;
			g->hhead = (c + 1) % GZ_HCHUNKS;
			g->hqueued--;
			pthread_cond_signal(&g->can_read);
			continue;
		}
		int slot = (int)((g->head + (unsigned)g->held + g->filled) %
				 GZ_SLOTS);
		pthread_mutex_unlock(&g->mu);
		size_t n = 0;
		int end = 0;
		int rc = gz_fill(g, g->ring + (size_t)slot * GZ_SLOT_SIZE,
				 GZ_SLOT_SIZE, &n, &end);
		pthread_mutex_lock(&g->mu);
		if (n > 0) {
			g->len[slot] = n;
			g->filled++;
		}
		if (rc || end) {
			g->done = 1;
			g->code = rc == GZ_STOPPED ? 0 : rc;
			inflating = 0;
		}
		pthread_cond_signal(&g->can_read);
	}
	if (inflating) {
		g->done = 1;
		g->code = 0;
		pthread_cond_signal(&g->can_read);
	}
	pthread_mutex_unlock(&g->mu);
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

int pyrt_gunzip_hash_start(pyrt_gunzip *g, pyrt_gunzip_digest_fn fn,
			   void *ctx)
{
	if (!g || !fn || g->hbuf)
		return PYRT_E_INTERNAL;
	unsigned char *b = malloc((size_t)GZ_HCHUNKS * GZ_HCHUNK_SIZE);
	if (!b)
		return PYRT_E_NOMEM;
	pthread_mutex_lock(&g->mu);
	g->hbuf = b;
	pthread_mutex_unlock(&g->mu);
	g->hfn = fn;
	g->hctx = ctx;
	g->hfill = 0;
	return 0;
}

/* Results so far to the consumer's callback (outside the lock). */
static int gz_hash_give(pyrt_gunzip *g, gz_hres *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g->hfn(g->hctx, v[i].tag, v[i].digest) != 0)
			return PYRT_E_INTERNAL;
	if (n > g->hpending)
		return PYRT_E_INTERNAL;
	g->hpending -= n;
	return 0;
}

/* Queue the consumer's chunk (when it holds anything) and wait for the
 * next one; with all, wait until every queued chunk is hashed.  Gives the
 * results that are ready.  0, or an error code. */
static int gz_hash_flush(pyrt_gunzip *g, int all)
{
	pthread_mutex_lock(&g->mu);
	if (g->hfill) {
		unsigned c = (g->hhead + g->hqueued) % GZ_HCHUNKS;
		g->hlen[c] = g->hfill;
		g->hqueued++;
		g->hfill = 0;
		pthread_cond_signal(&g->can_fill);
	}
	while (!g->hfail && (all ? g->hqueued > 0 : g->hqueued >= GZ_HCHUNKS))
		pthread_cond_wait(&g->can_read, &g->mu);
	gz_hres *v = g->res;
	size_t n = g->nres;
	int fail = g->hfail;
	g->res = NULL;
	g->nres = g->capres = 0;
	pthread_mutex_unlock(&g->mu);
	int rc = fail ? PYRT_E_NOMEM : gz_hash_give(g, v, n);
	free(v);
	return rc;
}

/* Room for a record of need bytes in the consumer's chunk. */
static int gz_hash_room(pyrt_gunzip *g, size_t need)
{
	if (g->hfill + need <= GZ_HCHUNK_SIZE)
		return 0;
	return gz_hash_flush(g, 0);
}

static unsigned char *gz_hash_put(pyrt_gunzip *g, uint32_t op, uint32_t n,
				  uint64_t tag)
{
	unsigned c = (g->hhead + g->hqueued) % GZ_HCHUNKS;
	unsigned char *p = g->hbuf + (size_t)c * GZ_HCHUNK_SIZE + g->hfill;
	memcpy(p, &op, 4);
	memcpy(p + 4, &n, 4);
	memcpy(p + 8, &tag, 8);
	g->hfill += GZ_HREC + (((size_t)n + 7) & ~(size_t)7);
	return p + GZ_HREC;
}

int pyrt_gunzip_hash_begin(pyrt_gunzip *g, size_t tag)
{
	int rc = gz_hash_room(g, GZ_HREC);
	if (rc)
		return rc;
	/* hhead and hqueued are read for the consumer's own chunk: the
	 * worker only moves hhead past chunks queued before it. */
	pthread_mutex_lock(&g->mu);
	gz_hash_put(g, GZ_OP_BEGIN, 0, (uint64_t)tag);
	pthread_mutex_unlock(&g->mu);
	g->hpending++;
	return 0;
}

int pyrt_gunzip_hash_data(pyrt_gunzip *g, const void *data, size_t len)
{
	const unsigned char *d = data;
	while (len > 0) {
		int rc = gz_hash_room(g, GZ_HREC + 8);
		if (rc)
			return rc;
		size_t room = (GZ_HCHUNK_SIZE - g->hfill - GZ_HREC) &
			      ~(size_t)7;
		size_t n = len < room ? len : room;
		pthread_mutex_lock(&g->mu);
		unsigned char *p = gz_hash_put(g, GZ_OP_DATA, (uint32_t)n, 0);
		pthread_mutex_unlock(&g->mu);
		memcpy(p, d, n);
		d += n;
		len -= n;
	}
	return 0;
}

int pyrt_gunzip_hash_zeros(pyrt_gunzip *g, uint64_t n)
{
	int rc = gz_hash_room(g, GZ_HREC);
	if (rc)
		return rc;
	pthread_mutex_lock(&g->mu);
	gz_hash_put(g, GZ_OP_ZEROS, 0, n);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

int pyrt_gunzip_hash_end(pyrt_gunzip *g)
{
	int rc = gz_hash_room(g, GZ_HREC);
	if (rc)
		return rc;
	pthread_mutex_lock(&g->mu);
	gz_hash_put(g, GZ_OP_END, 0, 0);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

int pyrt_gunzip_hash_finish(pyrt_gunzip *g)
{
	int rc = gz_hash_flush(g, 1);
	if (!rc && g->hpending)
		rc = PYRT_E_INTERNAL; /* a file begun was never given back */
	return rc;
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
	free(g->hbuf);
	free(g->res);
	free(g->wres);
	pyrt_sha256_free(g->hsha);
	free(g->path);
	free(g);
}
