/*
 * The threaded gzip reader against gzip(1): what gzip -c makes must come
 * back byte for byte (one member, several, empty ones); broken input must
 * end in an error after the good bytes, never in a hang; freeing mid-stream
 * must stop the worker.  Then extraction through it: multi-member archives,
 * truncated ones, and plain tar that keeps libarchive's own path.
 *
 * Hangs are caught by criterion's per-test timeout; nothing here asserts a
 * duration.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/extract.h"
#include "core/util/gunzip.h"
#include "core/util/sha256.h"
#include "support.h"

#define SLOT (256 * 1024)

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("gunzip");
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(gunzip, .init = setup, .fini = teardown, .timeout = 60);

/* tmp/name in a caller-provided buffer (see TMP). */
static char *tmp_path(const char *name, char *buf)
{
	snprintf(buf, 4096, "%s/%s", tmp, name);
	return buf;
}

#define TMP(name) tmp_path((name), (char[4096]){ 0 })

/* n bytes: stretches of pseudo-random bytes and of repeats, so gzip makes
 * both stored and compressed blocks. */
static unsigned char *make_data(size_t n, unsigned seed)
{
	unsigned char *d = malloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		d[i] = (i / 5000) % 3 == 0 ? (unsigned char)(i % 7)
					   : (unsigned char)(x >> 24);
	}
	return d;
}

static void write_bytes(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(d, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/* name.gz made by gzip(1) from n bytes of make_data(seed); returns the data. */
static unsigned char *gz_file(const char *name, size_t n, unsigned seed)
{
	unsigned char *d = make_data(n, seed);
	write_bytes(TMP(name), d, n);
	cr_assert_eq(pt_sh("gzip -n -6 -f '%s'", TMP(name)), 0);
	return d;
}

typedef struct outbuf {
	unsigned char *p;
	size_t n;
	int rc;
	pyrt_error err;
} outbuf;

/* Everything pyrt_gunzip_read hands out until the end or an error. */
static outbuf read_all(const char *path)
{
	outbuf o = { .err = PYRT_ERROR_INIT };
	pyrt_gunzip *g = NULL;
	cr_assert_eq(pyrt_gunzip_open(&g, path, &o.err), 0, "%s", o.err.msg);
	for (;;) {
		const void *data = NULL;
		size_t len = 0;
		o.rc = pyrt_gunzip_read(g, &data, &len, &o.err);
		if (o.rc || len == 0)
			break;
		cr_assert_not_null(data);
		o.p = realloc(o.p, o.n + len);
		memcpy(o.p + o.n, data, len);
		o.n += len;
	}
	if (!o.rc) {
		struct stat sb;
		cr_assert_eq(stat(path, &sb), 0);
		cr_assert_eq(pyrt_gunzip_bytes_in(g), (uint64_t)sb.st_size,
			     "not every compressed byte was counted");
	}
	pyrt_gunzip_free(g);
	return o;
}

static void assert_round_trip(size_t n, unsigned seed)
{
	unsigned char *d = gz_file("data", n, seed);
	outbuf o = read_all(TMP("data.gz"));
	cr_assert_eq(o.rc, 0, "%zu bytes: %s", n, o.err.msg);
	cr_assert_eq(o.n, n, "%zu bytes came back as %zu", n, o.n);
	cr_assert(n == 0 || memcmp(o.p, d, n) == 0, "%zu bytes differ", n);
	free(o.p);
	free(d);
}

Test(gunzip, round_trip_matches_gzip_cli)
{
	/* Tiny, exactly one and two ring slots, odd sizes, several MiB. */
	const size_t sizes[] = { 1, 2, 100, SLOT - 1, SLOT, SLOT + 1, 2 * SLOT,
				 3 * 1024 * 1024 + 77, 9 * 1024 * 1024 + 5 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		assert_round_trip(sizes[i], (unsigned)i + 1);
}

Test(gunzip, empty_member_is_an_empty_stream)
{
	assert_round_trip(0, 7);
}

Test(gunzip, multi_member_is_the_concatenation)
{
	/* cat a.gz empty.gz b.gz: every member, the empty one included. */
	unsigned char *a = gz_file("a", 1234567, 11);
	unsigned char *e = gz_file("e", 0, 12);
	unsigned char *b = gz_file("b", 700001, 13);
	cr_assert_eq(pt_sh("cd '%s' && cat a.gz e.gz b.gz > ab.gz", tmp), 0);
	outbuf o = read_all(TMP("ab.gz"));
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert_eq(o.n, 1234567 + 700001);
	cr_assert(memcmp(o.p, a, 1234567) == 0, "first member differs");
	cr_assert(memcmp(o.p + 1234567, b, 700001) == 0,
		  "second member differs");
	free(o.p);
	free(a);
	free(e);
	free(b);
}

Test(gunzip, trailing_zeros_after_the_last_member_are_ignored)
{
	unsigned char *d = gz_file("z", 5000, 21);
	cr_assert_eq(pt_sh("head -c 1000 /dev/zero >> '%s'", TMP("z.gz")), 0);
	outbuf o = read_all(TMP("z.gz"));
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert_eq(o.n, 5000);
	cr_assert(memcmp(o.p, d, 5000) == 0);
	free(o.p);
	free(d);
}

/* A failure must come after every good byte before it, as a prefix. */
static void assert_fails(const char *path, const unsigned char *orig,
			 size_t n, const char *needle)
{
	outbuf o = read_all(path);
	cr_assert_eq(o.rc, PYRT_E_IO, "rc %d (%s)", o.rc, o.err.msg);
	cr_assert_eq(o.err.code, PYRT_E_IO);
	cr_assert(strstr(o.err.msg, needle), "message: %s", o.err.msg);
	cr_assert(strstr(o.err.msg, path), "message names no file: %s",
		  o.err.msg);
	cr_assert_leq(o.n, n);
	cr_assert(!orig || o.n == 0 || memcmp(o.p, orig, o.n) == 0,
		  "bytes before the failure are wrong");
	free(o.p);
}

Test(gunzip, truncated_stream_is_an_error_after_its_good_bytes)
{
	const size_t n = 4 * 1024 * 1024;
	unsigned char *d = gz_file("t", n, 31);
	struct stat sb;
	cr_assert_eq(stat(TMP("t.gz"), &sb), 0);
	cr_assert_eq(truncate(TMP("t.gz"), sb.st_size / 2), 0);
	assert_fails(TMP("t.gz"), d, n, "truncated");
	/* Cut inside the 8-byte trailer: all data is there, the check is not. */
	unsigned char *s = gz_file("s", 1000, 32);
	cr_assert_eq(stat(TMP("s.gz"), &sb), 0);
	cr_assert_eq(truncate(TMP("s.gz"), sb.st_size - 3), 0);
	assert_fails(TMP("s.gz"), s, 1000, "truncated");
	/* Just the header. */
	cr_assert_eq(truncate(TMP("s.gz"), 10), 0);
	assert_fails(TMP("s.gz"), NULL, 0, "truncated");
	free(d);
	free(s);
}

Test(gunzip, corrupt_stream_is_an_error)
{
	/* A wrong CRC in the trailer: the data inflates, the check fails. */
	const size_t n = 300000;
	unsigned char *d = gz_file("c", n, 41);
	struct stat sb;
	cr_assert_eq(stat(TMP("c.gz"), &sb), 0);
	cr_assert_eq(pt_sh("printf '\\377\\377\\377\\377' | dd of='%s' bs=1 "
			   "seek=%lld conv=notrunc status=none", TMP("c.gz"),
			   (long long)sb.st_size - 8), 0);
	assert_fails(TMP("c.gz"), d, n, "corrupt");
	/* Garbage in place of the deflate data right after the header. */
	write_bytes(TMP("g.gz"), "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
		    "\xff\xff\xff\xff\xff\xff\xff\xff", 18);
	assert_fails(TMP("g.gz"), NULL, 0, "corrupt");
	/* A second member whose header is wrong. */
	cr_assert_eq(pt_sh("cd '%s' && gzip -c -n /dev/null > h.gz && "
			   "printf '\\037\\000junk' >> h.gz", tmp), 0);
	assert_fails(TMP("h.gz"), NULL, 0, "corrupt");
	free(d);
}

Test(gunzip, empty_and_non_gzip_inputs_are_errors)
{
	write_bytes(TMP("empty"), "", 0);
	cr_assert_eq(pyrt_gunzip_is_gzip(TMP("empty")), 0);
	assert_fails(TMP("empty"), NULL, 0, "not gzip");
	write_bytes(TMP("text"), "hello\n", 6);
	cr_assert_eq(pyrt_gunzip_is_gzip(TMP("text")), 0);
	assert_fails(TMP("text"), NULL, 0, "not gzip");
	/* A directory opens but cannot be read: a read error. */
	cr_assert_eq(mkdir(TMP("dir"), 0700), 0);
	assert_fails(TMP("dir"), NULL, 0, "cannot read");
}

Test(gunzip, magic_sniffing)
{
	unsigned char *d = gz_file("m", 10, 51);
	cr_assert_neq(pyrt_gunzip_is_gzip(TMP("m.gz")), 0);
	cr_assert_eq(pyrt_gunzip_is_gzip(TMP("absent")), 0);
	write_bytes(TMP("one"), "\x1f", 1);
	cr_assert_eq(pyrt_gunzip_is_gzip(TMP("one")), 0);
	free(d);
}

Test(gunzip, missing_file_fails_to_open)
{
	pyrt_gunzip *g = (pyrt_gunzip *)1;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_gunzip_open(&g, TMP("absent.gz"), &err), PYRT_E_IO);
	cr_assert_null(g);
	cr_assert(strstr(err.msg, "absent.gz"), "%s", err.msg);
	pyrt_gunzip_free(NULL);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	cr_assert_not_null(d);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

Test(gunzip, free_mid_stream_stops_a_bounded_worker)
{
	/* Incompressible, so compressed bytes read ~ plain bytes produced. */
	const size_t n = 24 * 1024 * 1024;
	cr_assert_eq(pt_sh("head -c %zu /dev/urandom | gzip -1 -n > '%s'", n,
			   TMP("r.gz")), 0);
	int before = open_fds();
	pyrt_gunzip *g = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_gunzip_open(&g, TMP("r.gz"), &err), 0, "%s", err.msg);
	const void *data = NULL;
	size_t len = 0;
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pyrt_gunzip_read(g, &data, &len, &err), 0);
		cr_assert_gt(len, 0);
	}
	/* The ring is bounded: four slots, one input buffer, and slack for
	 * gzip's framing; nowhere near the whole 24 MiB. */
	cr_assert_leq(pyrt_gunzip_bytes_in(g), 8 * SLOT,
		      "the worker read ahead %llu bytes",
		      (unsigned long long)pyrt_gunzip_bytes_in(g));
	pyrt_gunzip_free(g); /* the timeout catches a worker that never stops */
	cr_assert_eq(open_fds(), before, "a descriptor was left open");
}

Test(gunzip, free_right_after_open)
{
	unsigned char *d = gz_file("f", 3 * 1024 * 1024, 61);
	for (int i = 0; i < 20; i++) {
		pyrt_gunzip *g = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_gunzip_open(&g, TMP("f.gz"), &err), 0);
		pyrt_gunzip_free(g);
	}
	free(d);
}

/* ---- extraction through the worker ---- */

/* tmp/src/python/... : a few files, one large, and a symlink. */
static void make_tree(void)
{
	unsigned char *big = make_data(2 * 1024 * 1024 + 3, 71);
	cr_assert_eq(pt_sh("mkdir -p '%s/src/python/bin' '%s/src/python/lib' "
			   "&& printf 'x\\n' > '%s/src/python/bin/python3.11' "
			   "&& ln -s python3.11 '%s/src/python/bin/python3'",
			   tmp, tmp, tmp, tmp), 0);
	char path[4096];
	snprintf(path, sizeof path, "%s/src/python/lib/big", tmp);
	write_bytes(path, big, 2 * 1024 * 1024 + 3);
	free(big);
}

static int extract_to(const char *archive, const char *dir, pyrt_error *err)
{
	cr_assert_eq(mkdir(dir, 0700), 0);
	return pyrt_extract(archive, dir, NULL, NULL, NULL, NULL, err);
}

Test(gunzip, extract_multi_member_and_plain_tar)
{
	make_tree();
	cr_assert_eq(pt_sh("cd '%s' && tar -C src -cf x.tar python && "
			   "head -c 700000 x.tar | gzip -n > x2.tgz && "
			   "tail -c +700001 x.tar | gzip -n >> x2.tgz && "
			   "xz -0 -k x.tar", tmp), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(extract_to(TMP("x2.tgz"), TMP("d1"), &err), 0, "%s",
		     err.msg);
	cr_assert_eq(pt_sh("diff -r '%s/src' '%s/d1'", tmp, tmp), 0);
	/* Not gzip: libarchive's own readers, as before. */
	cr_assert_eq(extract_to(TMP("x.tar"), TMP("d2"), &err), 0, "%s",
		     err.msg);
	cr_assert_eq(pt_sh("diff -r '%s/src' '%s/d2'", tmp, tmp), 0);
	cr_assert_eq(extract_to(TMP("x.tar.xz"), TMP("d3"), &err), 0, "%s",
		     err.msg);
	cr_assert_eq(pt_sh("diff -r '%s/src' '%s/d3'", tmp, tmp), 0);
}

Test(gunzip, extract_of_a_truncated_or_corrupt_gzip_is_an_io_error)
{
	make_tree();
	/* Cut in the middle; a bad block type right after the header; a
	 * wrong CRC, which only the end of the stream can tell. */
	cr_assert_eq(pt_sh("cd '%s' && tar -C src -cf - python | gzip -n > "
			   "x.tgz && head -c 600000 x.tgz > cut.tgz && "
			   "cp x.tgz bad.tgz && printf '\377\377\377\377' | "
			   "dd of=bad.tgz bs=1 seek=10 conv=notrunc "
			   "status=none && cp x.tgz crc.tgz && "
			   "printf '\377\377\377\377' | dd of=crc.tgz bs=1 "
			   "seek=$(( $(stat -c %%s x.tgz) - 8 )) conv=notrunc "
			   "status=none", tmp), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	int before = open_fds();
	int rc = extract_to(TMP("cut.tgz"), TMP("d1"), &err);
	cr_assert_eq(rc, PYRT_E_IO, "%d %s", rc, err.msg);
	cr_assert(strstr(err.msg, "cannot read archive: gzip data in ") &&
		  strstr(err.msg, "truncated"), "%s", err.msg);
	const char *bad[] = { "bad.tgz", "crc.tgz" };
	const char *dirs[] = { "d2", "d3" };
	for (int i = 0; i < 2; i++) {
		memset(&err, 0, sizeof err);
		rc = extract_to(TMP(bad[i]), TMP(dirs[i]), &err);
		cr_assert_eq(rc, PYRT_E_IO, "%s: %d %s", bad[i], rc, err.msg);
		cr_assert(strstr(err.msg, "cannot read archive: gzip data in ")
			  && strstr(err.msg, "corrupt"), "%s", err.msg);
	}
	cr_assert_eq(open_fds(), before, "a descriptor was left open");
}

/* ---- each file's SHA-256 on the worker (issue 28) ---- */

typedef struct digests {
	size_t n;
	size_t tags[4096];
	unsigned char d[4096][PYRT_GUNZIP_DIGEST_LEN];
} digests;

static int take_digest(void *ctx, size_t tag, const unsigned char *digest)
{
	digests *g = ctx;
	cr_assert_lt(g->n, 4096);
	g->tags[g->n] = tag;
	memcpy(g->d[g->n], digest, PYRT_GUNZIP_DIGEST_LEN);
	g->n++;
	return 0;
}

static void hex_of(const unsigned char *d, char *hex)
{
	for (size_t i = 0; i < PYRT_GUNZIP_DIGEST_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The digest of n bytes of data followed by zeros zero bytes, by the
 * one-shot path (sha256.h), as hex. */
static void digest_of(const unsigned char *data, size_t n, size_t zeros,
		      char *hex)
{
	pyrt_sha256 *s = pyrt_sha256_new();
	cr_assert_not_null(s);
	pyrt_sha256_update(s, data, n);
	unsigned char *z = calloc(1, zeros ? zeros : 1);
	pyrt_sha256_update(s, z, zeros);
	free(z);
	cr_assert_eq(pyrt_sha256_final_hex(s, hex), 0);
	pyrt_sha256_free(s);
}

Test(gunzip, worker_hashes_each_file_in_order_through_a_bounded_queue)
{
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_sha256_ready(&err), 0, "%s", err.msg);
	/* A stream for the worker to inflate while it hashes. */
	unsigned char *d = gz_file("h", 3 * SLOT + 11, 7);
	pyrt_gunzip *g = NULL;
	cr_assert_eq(pyrt_gunzip_open(&g, TMP("h.gz"), &err), 0, "%s", err.msg);
	digests *got = calloc(1, sizeof *got);
	cr_assert_eq(pyrt_gunzip_hash_start(g, take_digest, got), 0);
	/* 3,000 files: empty, tiny, one larger than the whole queue (4 x
	 * 128 KiB), odd sizes, some with a sparse hole; more records than
	 * the queue holds, so the writer waits for the worker. */
	size_t big = 600 * 1024 + 3;
	unsigned char *src = make_data(big, 3);
	char want[3000][PYRT_SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < 3000; i++) {
		size_t n = i == 17 ? big : (i * 37) % 5000;
		size_t zeros = i % 10 == 3 ? 70000 + i : 0;
		cr_assert_eq(pyrt_gunzip_hash_begin(g, 10 + i), 0);
		/* The data in pieces, as extraction hands it over. */
		for (size_t off = 0; off < n;) {
			size_t k = n - off < 4093 ? n - off : 4093;
			cr_assert_eq(pyrt_gunzip_hash_data(g, src + off, k), 0);
			off += k;
		}
		if (zeros)
			cr_assert_eq(pyrt_gunzip_hash_zeros(g, zeros), 0);
		cr_assert_eq(pyrt_gunzip_hash_end(g), 0);
		digest_of(src, n, zeros, want[i]);
		/* The stream keeps flowing between files. */
		if (i % 500 == 0) {
			const void *b;
			size_t len;
			cr_assert_eq(pyrt_gunzip_read(g, &b, &len, &err), 0);
		}
	}
	cr_assert_eq(pyrt_gunzip_hash_finish(g), 0);
	cr_assert_eq(got->n, 3000, "%zu digests for 3000 files", got->n);
	for (size_t i = 0; i < 3000; i++) {
		char hex[PYRT_SHA256_HEX_LEN + 1];
		hex_of(got->d[i], hex);
		cr_assert_eq(got->tags[i], 10 + i, "digest %zu has tag %zu",
			     i, got->tags[i]);
		cr_assert_str_eq(hex, want[i], "file %zu", i);
	}
	pyrt_gunzip_free(g);
	free(got);
	free(src);
	free(d);
}

Test(gunzip, a_file_begun_and_never_ended_is_an_error)
{
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_sha256_ready(&err), 0, "%s", err.msg);
	unsigned char *d = gz_file("u", 1000, 9);
	pyrt_gunzip *g = NULL;
	cr_assert_eq(pyrt_gunzip_open(&g, TMP("u.gz"), &err), 0, "%s", err.msg);
	digests *got = calloc(1, sizeof *got);
	cr_assert_eq(pyrt_gunzip_hash_start(g, take_digest, got), 0);
	cr_assert_eq(pyrt_gunzip_hash_begin(g, 1), 0);
	cr_assert_eq(pyrt_gunzip_hash_data(g, d, 1000), 0);
	cr_assert_eq(pyrt_gunzip_hash_finish(g), PYRT_E_INTERNAL);
	pyrt_gunzip_free(g);
	free(got);
	free(d);
}
