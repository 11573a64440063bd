/* ctest: test_manifest */
/*
 * The install manifest: building, the manifest.tsv round trip, rejection of
 * malformed files, and verification of a hand-made tree against it,
 * including tampering that must be seen without following symlinks.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/dist/manifest.h"
#include "support.h"

static char *tmp, *root;

static void setup(void)
{
	tmp = pt_tmpdir("manifest");
	root = pt_join(tmp, "root");
	cr_assert_eq(mkdir(root, 0700), 0);
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
	free(root);
}

TestSuite(manifest, .init = setup, .fini = teardown);

static char *path_in(const char *base, const char *rel, char *buf)
{
	snprintf(buf, 4096, "%s/%s", base, rel);
	return buf;
}

#define ROOT(rel) path_in(root, (rel), (char[4096]){ 0 })
#define TMP(rel) path_in(tmp, (rel), (char[4096]){ 0 })

/* ---- building and the file ---- */

Test(manifest, add_refuses_fields_that_would_break_the_format)
{
	pyrt_manifest *m = pyrt_manifest_new();
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 1, "-", "a\tb"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 1, "-", "a\nb"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, 'l', 0777, 1, "x\ty", "a"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, 'x', 0644, 1, "-", "a"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, '\0', 0644, 1, "-", "a"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 010000, 1, "-", "a"),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 1, "-", ""),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_count(m), 0);
	cr_assert_null(pyrt_manifest_at(m, 0));
	cr_assert_eq(pyrt_manifest_add(m, 'd', 0755, 0, "-", "a b/ü"), 0);
	cr_assert_eq(pyrt_manifest_count(m), 1);
	cr_assert_str_eq(pyrt_manifest_at(m, 0)->path, "a b/ü");
	pyrt_manifest_free(m);
	pyrt_manifest_free(NULL);
}

Test(manifest, write_read_round_trip)
{
	const char *digest =
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	pyrt_manifest *m = pyrt_manifest_new();
	cr_assert_eq(pyrt_manifest_add(m, 'd', 0755, 0, "-", "python"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 0, digest,
				       "python/a file with spaces\r"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'l', 0777, 10, "../lib x",
				       "python/bin/l"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'h', 0600, 12345678901ull,
				       "python/a", "python/b"), 0);
	char *path = TMP("manifest.tsv");
	pt_write(path, "old content\n");
	struct stat before, after;
	cr_assert_eq(stat(path, &before), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_write(m, path, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(path, &after), 0);
	/* Every user of a shared box reads it, whatever the umask. */
	cr_assert_eq(after.st_mode & 07777, 0644);
	cr_assert_neq(before.st_ino, after.st_ino, "not replaced by rename");
	cr_assert_eq(pt_sh("test $(ls -A '%s' | wc -l) -eq 2", tmp), 0,
		     "a temp file was left behind");

	char *text = pt_read(path);
	cr_assert_str_eq(text,
			 "d\t0755\t0\t-\tpython\n"
			 "f\t0644\t0\te3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\tpython/a file with spaces\r\n"
			 "l\t0777\t10\t../lib x\tpython/bin/l\n"
			 "h\t0600\t12345678901\tpython/a\tpython/b\n");
	free(text);

	pyrt_manifest *back = NULL;
	cr_assert_eq(pyrt_manifest_read(&back, path, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_manifest_count(back), 4);
	for (size_t i = 0; i < 4; i++) {
		const pyrt_manifest_entry *a = pyrt_manifest_at(m, i);
		const pyrt_manifest_entry *b = pyrt_manifest_at(back, i);
		cr_assert_eq(a->type, b->type);
		cr_assert_eq(a->mode, b->mode);
		cr_assert_eq(a->size, b->size);
		cr_assert_str_eq(a->extra, b->extra);
		cr_assert_str_eq(a->path, b->path);
	}
	pyrt_manifest_free(back);
	pyrt_manifest_free(m);
}

Test(manifest, write_into_missing_directory_fails)
{
	pyrt_manifest *m = pyrt_manifest_new();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_write(m, TMP("nope/manifest.tsv"), &err),
		     PYRT_E_IO);
	cr_assert(strstr(err.msg, "nope"), "%s", err.msg);
	pyrt_manifest_free(m);
}

/* ---- the writer: a manifest written as extraction goes (issue 28) ---- */

static void digest_n(unsigned char d[32], int i)
{
	for (int k = 0; k < 32; k++)
		d[k] = (unsigned char)(i * 31 + k);
}

/*
 * Lines streamed with their digests (and one mode) given later, many
 * buffers later for the first ones: the file is byte for byte what
 * pyrt_manifest_write gives for the same entries, and 0644.
 */
Test(manifest, writer_patches_late_fields_and_matches_write)
{
	enum { N = 6000 };
	char *path = TMP("streamed.tsv");
	pyrt_manifest_writer *w = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_writer_open(&w, path, &err), 0, "%s",
		     err.msg);
	pyrt_manifest *m = pyrt_manifest_new();
	uint64_t dir_at = 0, *at = calloc(N, sizeof *at);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'd', 0755, 0, "-", "python",
					      &dir_at), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'd', 0700, 0, "-", "python"), 0);
	char name[128], hex[65];
	unsigned char d[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "python/lib/a-long-enough-name-%05d"
			 ".py", i);
		cr_assert_eq(pyrt_manifest_writer_tell(w),
			     (uint64_t)(i ? at[i - 1] : dir_at) +
			     (i ? 1u + 1 + 4 + 1 + 5 + 1 + 64 + 1 + 38 + 1
				: 1u + 1 + 4 + 1 + 1 + 1 + 1 + 1 + 6 + 1));
		cr_assert_eq(pyrt_manifest_writer_add(w, 'f', 0644, 10000 + i,
						      NULL, name, &at[i]), 0);
		digest_n(d, i);
		for (int k = 0; k < 32; k++)
			snprintf(hex + 2 * k, 3, "%02x", d[k]);
		cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 10000 + i, hex,
					       name), 0);
		/* The worker's lag: each digest 300 files late. */
		if (i >= 300) {
			digest_n(d, i - 300);
			cr_assert_eq(pyrt_manifest_writer_set_digest(
					     w, at[i - 300], d), 0);
		}
	}
	for (int i = N - 300; i < N; i++) {
		digest_n(d, i);
		cr_assert_eq(pyrt_manifest_writer_set_digest(w, at[i], d), 0);
	}
	/* Long written out: the patch goes to the file. */
	cr_assert_eq(pyrt_manifest_writer_set_mode(w, dir_at, 0700), 0);
	/* A digest is given once; a directory has none. */
	cr_assert_eq(pyrt_manifest_writer_set_digest(w, at[0], d),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_writer_set_digest(w, dir_at, d),
		     PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_writer_count(w), N + 1);
	cr_assert_neq(access(path, F_OK), 0, "named before commit");
	cr_assert_eq(pyrt_manifest_writer_commit(w, &err), 0, "%s", err.msg);
	pyrt_manifest_writer_free(w);
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0644);
	cr_assert_gt(sb.st_size, 4 * 128 * 1024, "the buffer never filled");
	cr_assert_eq(pyrt_manifest_write(m, TMP("whole.tsv"), &err), 0);
	cr_assert_eq(pt_sh("cmp '%s' '%s'", path, TMP("whole.tsv")), 0);
	cr_assert_eq(pt_sh("test $(ls -A '%s' | wc -l) -eq 3", tmp), 0,
		     "a temp file was left behind");
	pyrt_manifest_free(m);
	free(at);
}

/* Until every digest came, nothing gets the name; what was written goes. */
Test(manifest, writer_commits_nothing_with_a_digest_missing)
{
	char *path = TMP("m.tsv");
	pyrt_manifest_writer *w = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_writer_open(&w, path, &err), 0);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'f', 0644, 1, NULL, "a",
					      NULL), 0);
	cr_assert_eq(pyrt_manifest_writer_commit(w, &err), PYRT_E_INTERNAL);
	cr_assert(strstr(err.msg, "1 file digests never came"), "%s", err.msg);
	cr_assert_neq(access(path, F_OK), 0);
	pyrt_manifest_writer_free(w);
	cr_assert_eq(pt_sh("test $(ls -A '%s' | wc -l) -eq 1", tmp), 0,
		     "the temp file outlived its writer");
	/* Bad fields are refused as pyrt_manifest_add refuses them. */
	cr_assert_eq(pyrt_manifest_writer_open(&w, path, &err), 0);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'f', 0644, 1, "-", "a\tb",
					      NULL), PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'f', 0644, 1, "abc", "a",
					      NULL), PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'l', 0777, 1, NULL, "a",
					      NULL), PYRT_E_INTERNAL);
	cr_assert_eq(pyrt_manifest_writer_add(w, 'd', 010000, 0, "-", "a",
					      NULL), PYRT_E_INTERNAL);
	pyrt_manifest_writer_free(w);
}

/*
 * A writer killed half way (the install killed in extraction): nothing at
 * the name, and the temp file it leaves is no manifest anyone can load —
 * a file whose digest had not come holds '?'s where it goes.
 */
Test(manifest, writer_killed_half_way_leaves_nothing_trusted)
{
	char *path = TMP("m.tsv");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pyrt_manifest_writer *w = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		if (pyrt_manifest_writer_open(&w, path, &err) != 0)
			_exit(2);
		char name[64];
		for (int i = 0; i < 20000; i++) {
			snprintf(name, sizeof name, "python/f%05d", i);
			if (pyrt_manifest_writer_add(w, 'f', 0644, 1, NULL,
						     name, NULL) != 0)
				_exit(2);
		}
		raise(SIGKILL);
		_exit(3);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "status %d", status);
	cr_assert_neq(access(path, F_OK), 0, "a killed writer named its file");
	glob_t g;
	cr_assert_eq(glob(TMP(".m.tsv.tmp-*"), 0, NULL, &g), 0);
	cr_assert_eq(g.gl_pathc, 1);
	struct stat sb;
	cr_assert_eq(stat(g.gl_pathv[0], &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0600);
	cr_assert_gt(sb.st_size, 0, "nothing was written before the kill");
	pyrt_manifest *m = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_read(&m, g.gl_pathv[0], &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "bad digest"), "%s", err.msg);
	globfree(&g);
}

/* The file system refuses a write (here a file size limit): an I/O error
 * with errno, and nothing named. */
Test(manifest, writer_write_failure_is_an_io_error)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { 100000, 100000 };
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	char *path = TMP("m.tsv");
	pyrt_manifest_writer *w = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_writer_open(&w, path, &err), 0);
	int rc = 0, i;
	char name[64];
	for (i = 0; i < 100000 && !rc; i++) {
		snprintf(name, sizeof name, "python/f%06d", i);
		rc = pyrt_manifest_writer_add(w, 'd', 0755, 0, "-", name, NULL);
	}
	cr_assert_eq(rc, PYRT_E_IO, "%d after %d lines", rc, i);
	cr_assert_eq(errno, EFBIG);
	cr_assert_eq(pyrt_manifest_writer_commit(w, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "File too large"), "%s", err.msg);
	pyrt_manifest_writer_free(w);
	cr_assert_neq(access(path, F_OK), 0);
	cr_assert_eq(pt_sh("test $(ls -A '%s' | wc -l) -eq 1", tmp), 0);
}

static void expect_malformed(const char *text, const char *needle)
{
	char *path = TMP("bad.tsv");
	pt_write(path, text);
	pyrt_manifest *m = (pyrt_manifest *)1;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_read(&m, path, &err), PYRT_E_IO,
		     "accepted: %s", text);
	cr_assert_null(m);
	cr_assert(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
}

Test(manifest, read_rejects_malformed_lines)
{
	const char *good = "d\t0755\t0\t-\tpython\n";
	char buf[512];
	const char *bad[] = {
		"d\t0755\t0\t-\n",             /* 4 fields */
		"x\t0755\t0\t-\tp\n",          /* type */
		"dd\t0755\t0\t-\tp\n",
		"d\t0855\t0\t-\tp\n",          /* not octal */
		"d\t17777\t0\t-\tp\n",         /* too many bits */
		"d\t-1\t0\t-\tp\n",
		"f\t0644\t1x\t-\tp\n",         /* size */
		"f\t0644\t-1\t-\tp\n",
		"f\t0644\t\t-\tp\n",
		"f\t0644\t1\t\tp\n",           /* empty extra */
		"f\t0644\t1\t-\t\n",           /* empty path */
		"f\t0644\t1\t-\t/etc/passwd\n",/* absolute */
		"f\t0644\t1\t-\ta/../../x\n",  /* climbs */
		"f\t0644\t1\t-\ta\tb\n",       /* tab in path */
		"f\t0644\t1\t-\tno-newline",   /* truncated */
		"f\t0644\t1\tabc\tp\n",        /* digest neither hex nor - */
		"d\t0755\t0\tx\tp\n",          /* a directory has no digest */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(buf, sizeof buf, "%s%s", good, bad[i]);
		expect_malformed(buf, "line 2");
	}
}

Test(manifest, read_rejects_a_nul_byte_and_an_endless_line)
{
	/* pt_write stops at NUL: write the bytes ourselves. */
	static const char nul[] = "d\t0755\t0\t-\tpy\0thon\n";
	FILE *f = fopen(TMP("nul.tsv"), "w");
	cr_assert_not_null(f);
	fwrite(nul, 1, sizeof nul - 1, f);
	fclose(f);
	pyrt_manifest *m = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_read(&m, TMP("nul.tsv"), &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "line 1: holds a NUL byte"), "%s", err.msg);
	err = (pyrt_error)PYRT_ERROR_INIT;
	/* Megabytes without a newline: refused at the line cap, not read
	 * into one ever-growing line. */
	cr_assert_eq(pt_sh("head -c 3000000 /dev/zero | tr '\\0' a > '%s'",
			   TMP("long.tsv")), 0);
	cr_assert_eq(pyrt_manifest_read(&m, TMP("long.tsv"), &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "line 1: line too long"), "%s", err.msg);
}

/* Odd files in the manifest's place: refused at once, naming the file. */
Test(manifest, load_refuses_odd_files_without_blocking, .timeout = 10)
{
	pyrt_manifest *m = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	char hex[PYRT_SHA256_HEX_LEN + 1];
	cr_assert_eq(mkfifo(TMP("fifo.tsv"), 0600), 0);
	cr_assert_eq(pyrt_manifest_load(&m, TMP("fifo.tsv"), hex, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "fifo.tsv is not a regular file"), "%s",
		  err.msg);
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(symlink("/dev/zero", TMP("zero.tsv")), 0);
	cr_assert_eq(pyrt_manifest_load(&m, TMP("zero.tsv"), hex, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "zero.tsv is a symbolic link"), "%s",
		  err.msg);
	err = (pyrt_error)PYRT_ERROR_INIT;
	/* Sparse: larger than any manifest, refused before a byte is read. */
	cr_assert_eq(pt_sh("truncate -s 1G '%s'", TMP("huge.tsv")), 0);
	cr_assert_eq(pyrt_manifest_load(&m, TMP("huge.tsv"), hex, &err),
		     PYRT_E_IO);
	cr_assert(strstr(err.msg, "huge.tsv is 1073741824 bytes, more than"),
		  "%s", err.msg);
	cr_assert_null(m);
}

Test(manifest, load_returns_the_digest_of_the_bytes)
{
	pt_write(TMP("m.tsv"), "d\t0755\t0\t-\tpython\n");
	char hex[PYRT_SHA256_HEX_LEN + 1], want[PYRT_SHA256_HEX_LEN + 1];
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_sha256_file_hex(TMP("m.tsv"), want, &err), 0);
	pyrt_manifest *m = NULL;
	cr_assert_eq(pyrt_manifest_load(&m, TMP("m.tsv"), hex, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(hex, want);
	cr_assert_eq(pyrt_manifest_count(m), 1);
	pyrt_manifest_free(m);
	/* Bytes only (what status does): the same digest, no entries kept. */
	memset(hex, 0, sizeof hex);
	cr_assert_eq(pyrt_manifest_load(NULL, TMP("m.tsv"), hex, &err), 0);
	cr_assert_str_eq(hex, want);
}

Test(manifest, read_missing_file_fails)
{
	pyrt_manifest *m = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_read(&m, TMP("absent.tsv"), &err),
		     PYRT_E_IO);
	cr_assert_null(m);
	cr_assert(strstr(err.msg, "absent.tsv"), "%s", err.msg);
}

Test(manifest, read_empty_file_is_an_empty_manifest)
{
	pt_write(TMP("empty.tsv"), "");
	pyrt_manifest *m = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_read(&m, TMP("empty.tsv"), &err), 0);
	cr_assert_eq(pyrt_manifest_count(m), 0);
	pyrt_manifest_free(m);
}

/* ---- verify ---- */

typedef struct problems {
	int n;
	char text[8192];
} problems;

static void collect(const char *path, const char *what, void *payload)
{
	problems *p = payload;
	p->n++;
	size_t len = strlen(p->text);
	snprintf(p->text + len, sizeof p->text - len, "%s: %s\n", path, what);
}

static void sha256sum_of(const char *path, char hex[65])
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%64s", hex), 1);
	pclose(p);
}

/* root/d (0755), d/f (0644, "hello\n"), d/l -> f, d/h == d/f, d/e (empty). */
static pyrt_manifest *make_tree(void)
{
	cr_assert_eq(mkdir(ROOT("d"), 0755), 0);
	cr_assert_eq(chmod(ROOT("d"), 0755), 0);
	pt_write(ROOT("d/f"), "hello\n");
	cr_assert_eq(chmod(ROOT("d/f"), 0644), 0);
	pt_write(ROOT("d/e"), "");
	cr_assert_eq(chmod(ROOT("d/e"), 0600), 0);
	cr_assert_eq(symlink("f", ROOT("d/l")), 0);
	cr_assert_eq(link(ROOT("d/f"), ROOT("d/h")), 0);
	char hf[65], he[65];
	sha256sum_of(ROOT("d/f"), hf);
	sha256sum_of(ROOT("d/e"), he);
	pyrt_manifest *m = pyrt_manifest_new();
	cr_assert_eq(pyrt_manifest_add(m, 'd', 0755, 0, "-", "d"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 6, hf, "d/f"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0600, 0, he, "d/e"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'l', 0777, 1, "f", "d/l"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'h', 0644, 6, "d/f", "d/h"), 0);
	return m;
}

static int verify(pyrt_manifest *m, problems *pr)
{
	memset(pr, 0, sizeof *pr);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_manifest_verify(m, root, collect, pr, &err);
	cr_assert_geq(rc, 0, "verify could not run: %s", err.msg);
	cr_assert_eq(rc, pr->n);
	return rc;
}

Test(manifest, verify_passes_on_intact_tree)
{
	pyrt_manifest *m = make_tree();
	problems pr;
	cr_assert_eq(verify(m, &pr), 0, "%s", pr.text);
	pyrt_manifest_free(m);
}

Test(manifest, caches_are_named_by_pycache_or_suffix)
{
	cr_assert(pyrt_manifest_is_cache("lib/python3.11/__pycache__"));
	cr_assert(pyrt_manifest_is_cache(
		"lib/python3.11/__pycache__/os.cpython-311.pyc"));
	cr_assert(pyrt_manifest_is_cache("__pycache__/x.txt"));
	cr_assert(pyrt_manifest_is_cache("lib/old.pyc"));
	cr_assert(pyrt_manifest_is_cache("lib/old.pyo"));
	cr_assert_not(pyrt_manifest_is_cache("lib/python3.11/os.py"));
	cr_assert_not(pyrt_manifest_is_cache("lib/x.pyc/inner.py"));
	cr_assert_not(pyrt_manifest_is_cache("lib/__pycache__x/y.py"));
	cr_assert_not(pyrt_manifest_is_cache("lib/a__pycache__/y.py"));
	cr_assert_not(pyrt_manifest_is_cache("bin/python3.11"));
	cr_assert_not(pyrt_manifest_is_cache("lib/pyc"));
}

/* CPython rewrites a cache whose recorded source mtime no longer matches,
 * and may drop one: neither is damage; a hash-based cache that changed is.
 * The source next to it is checked as ever. */
Test(manifest, verify_refuses_changed_caches_unless_they_fit_their_source)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(mkdir(ROOT("d/__pycache__"), 0755), 0);
	cr_assert_eq(chmod(ROOT("d/__pycache__"), 0755), 0);
	pt_write(ROOT("d/__pycache__/f.cpython-311.pyc"), "old cache");
	pt_write(ROOT("d/g.pyc"), "old");
	cr_assert_eq(pyrt_manifest_add(m, 'd', 0755, 0, "-", "d/__pycache__"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 9,
		"0000000000000000000000000000000000000000000000000000000000000000",
		"d/__pycache__/f.cpython-311.pyc"), 0);
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 3,
		"0000000000000000000000000000000000000000000000000000000000000000",
		"d/g.pyc"), 0);
	cr_assert_eq(pyrt_manifest_count(m), 8);
	cr_assert_eq(pyrt_manifest_checked_count(m), 5);
	/* Rewritten by CPython: a timestamp cache (flags 0).  A cache gone
	 * is fine too. */
	pt_write(ROOT("d/f.py"), "x = 1\n");
	struct stat src;
	cr_assert_eq(stat(ROOT("d/f.py"), &src), 0);
	unsigned char head[20] = { 0xa7, 0x0d, 0x0d, 0x0a };
	for (int b = 0; b < 4; b++) {
		head[8 + b] = (unsigned char)((uint32_t)src.st_mtime >> (8 * b));
		head[12 + b] = (unsigned char)((uint32_t)src.st_size >> (8 * b));
	}
	FILE *f = fopen(ROOT("d/__pycache__/f.cpython-311.pyc"), "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	cr_assert_eq(unlink(ROOT("d/g.pyc")), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 0, "%s", pr.text);
	/* The source changed after it (mtime, then size): the cache is
	 * neither the one shipped nor CPython's of this source. */
	struct timespec times[2] = { { .tv_sec = src.st_mtime - 100 },
				     { .tv_sec = src.st_mtime - 100 } };
	cr_assert_eq(utimensat(AT_FDCWD, ROOT("d/f.py"), times, 0), 0);
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert(strstr(pr.text, "d/__pycache__/f.cpython-311.pyc: a "
			 "timestamp bytecode cache that changed and does not "
			 "record its source's mtime and size"), "%s", pr.text);
	cr_assert(strstr(pr.text, "remove it (CPython rebuilds it)"), "%s",
		  pr.text);
	pt_write(ROOT("d/f.py"), "x = 12\n");
	times[0].tv_sec = times[1].tv_sec = src.st_mtime;
	cr_assert_eq(utimensat(AT_FDCWD, ROOT("d/f.py"), times, 0), 0);
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	pt_write(ROOT("d/f.py"), "x = 1\n");
	cr_assert_eq(utimensat(AT_FDCWD, ROOT("d/f.py"), times, 0), 0);
	cr_assert_eq(verify(m, &pr), 0, "%s", pr.text);
	/* A legacy cache beside no source runs as it is: it must be the one
	 * shipped. */
	f = fopen(ROOT("d/g.pyc"), "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert(strstr(pr.text, "d/g.pyc: a timestamp bytecode cache"),
		  "%s", pr.text);
	cr_assert_eq(unlink(ROOT("d/g.pyc")), 0);
	/* A hash-based cache that is not the one shipped (issue 26, door 5):
	 * CPython may run it without looking at the source. */
	head[4] = 1;
	f = fopen(ROOT("d/__pycache__/f.cpython-311.pyc"), "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert(strstr(pr.text, "a hash-based bytecode cache that changed"),
		  "%s", pr.text);
	cr_assert_eq(unlink(ROOT("d/__pycache__/f.cpython-311.pyc")), 0);
	pt_write(ROOT("d/f"), "jello\n");
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "d/f: content changed (sha256 differs)\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_changed_content_of_same_size)
{
	pyrt_manifest *m = make_tree();
	pt_write(ROOT("d/f"), "jello\n");
	problems pr;
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "d/f: content changed (sha256 differs)\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_size_and_mode)
{
	pyrt_manifest *m = make_tree();
	pt_write(ROOT("d/e"), "no longer empty\n");
	cr_assert_eq(chmod(ROOT("d"), 0777), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 2, "%s", pr.text);
	cr_assert(strstr(pr.text, "d: mode 0777, expected 0755\n"), "%s",
		  pr.text);
	cr_assert(strstr(pr.text, "d/e: size 16, expected 0\n"), "%s", pr.text);
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_setuid_bit)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(chmod(ROOT("d/e"), 04600), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "d/e: mode 4600, expected 0600\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_missing_and_wrong_type)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(unlink(ROOT("d/e")), 0);
	cr_assert_eq(unlink(ROOT("d/l")), 0);
	cr_assert_eq(mkdir(ROOT("d/l"), 0755), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 2, "%s", pr.text);
	cr_assert(strstr(pr.text, "d/e: missing\n"), "%s", pr.text);
	cr_assert(strstr(pr.text, "d/l: is a directory, expected a symlink\n"),
		  "%s", pr.text);
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_retargeted_symlink)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(unlink(ROOT("d/l")), 0);
	cr_assert_eq(symlink("/etc/passwd", ROOT("d/l")), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "d/l: symlink target '/etc/passwd', "
			 "expected 'f'\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_reports_broken_hardlink)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(unlink(ROOT("d/h")), 0);
	pt_write(ROOT("d/h"), "hello\n"); /* same bytes, other inode */
	cr_assert_eq(chmod(ROOT("d/h"), 0644), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "d/h: no longer a hard link to d/f\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_does_not_follow_a_directory_swapped_for_a_symlink)
{
	/* An identical copy elsewhere, reached through a link, must not pass. */
	pyrt_manifest *m = make_tree();
	cr_assert_eq(pt_sh("cp -a '%s/d' '%s/copy' && rm -rf '%s/d'", root,
			   tmp, root), 0);
	cr_assert_eq(symlink(TMP("copy"), ROOT("d")), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 5, "%s", pr.text);
	cr_assert(strstr(pr.text, "d: is a symlink, expected a directory\n"),
		  "%s", pr.text);
	cr_assert(strstr(pr.text, "d/f: a parent directory was replaced by a "
			 "symlink or a file\n"), "%s", pr.text);
	pyrt_manifest_free(m);
}

Test(manifest, verify_does_not_follow_a_file_swapped_for_a_symlink)
{
	pyrt_manifest *m = make_tree();
	cr_assert_eq(pt_sh("cp -a '%s/d/f' '%s/f2'", root, tmp), 0);
	cr_assert_eq(unlink(ROOT("d/f")), 0);
	cr_assert_eq(symlink(TMP("f2"), ROOT("d/f")), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 2, "%s", pr.text);
	cr_assert(strstr(pr.text, "d/f: is a symlink, expected a file\n"),
		  "%s", pr.text);
	cr_assert(strstr(pr.text, "d/h: no longer a hard link to d/f\n"),
		  "%s", pr.text);
	pyrt_manifest_free(m);
}

Test(manifest, verify_refuses_paths_that_climb_out)
{
	pyrt_manifest *m = make_tree();
	pt_write(TMP("outside"), "x");
	cr_assert_eq(pyrt_manifest_add(m, 'f', 0644, 1, "-", "../outside"), 0);
	problems pr;
	cr_assert_eq(verify(m, &pr), 1, "%s", pr.text);
	cr_assert_str_eq(pr.text, "../outside: path leaves the install\n");
	pyrt_manifest_free(m);
}

Test(manifest, verify_of_missing_root_is_an_error)
{
	pyrt_manifest *m = make_tree();
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_manifest_verify(m, TMP("no-such-root"), collect, NULL,
				      &err);
	cr_assert_eq(rc, PYRT_E_IO);
	cr_assert(strstr(err.msg, "no-such-root"), "%s", err.msg);
	pyrt_manifest_free(m);
}
