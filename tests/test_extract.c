/* ctest: test_extract */
/*
 * Guarded extraction: one test per refusal rule, on archives built here with
 * libarchive's writer (so malicious members can be made by hand), plus a
 * realistic tree that must come out sanitised and verifiable.
 *
 * The tests may run as root; none relies on it: owners are checked to be the
 * caller's, and modes are checked as numbers rather than by trying access.
 */
#include <criterion/criterion.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/dist/extract.h"
#include "core/dist/manifest.h"
#include "support.h"

/* Per-test paths: tmp/{a.tar.gz, dest/, outside/} and nothing else. */
static char *tmp, *dest, *archive_path, *outside, *sentinel;

static void setup(void)
{
	tmp = pt_tmpdir("extract");
	dest = pt_join(tmp, "dest");
	archive_path = pt_join(tmp, "a.tar.gz");
	outside = pt_join(tmp, "outside");
	sentinel = pt_join(tmp, "sentinel");
	cr_assert_eq(mkdir(dest, 0700), 0);
	cr_assert_eq(mkdir(outside, 0700), 0);
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
	free(dest);
	free(archive_path);
	free(outside);
	free(sentinel);
}

TestSuite(extract, .init = setup, .fini = teardown);

/* dest/rel in a caller-provided buffer (see DEST). */
static char *dest_path(const char *rel, char *buf)
{
	snprintf(buf, 4096, "%s/%s", dest, rel);
	return buf;
}

#define DEST(rel) dest_path((rel), (char[4096]){ 0 })

/* ---- archive building ---- */

static struct archive *ar_open(void)
{
	struct archive *a = archive_write_new();
	cr_assert_not_null(a);
	cr_assert_eq(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	cr_assert_eq(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	cr_assert_eq(archive_write_open_filename(a, archive_path), ARCHIVE_OK,
		     "%s", archive_error_string(a));
	return a;
}

static void ar_close(struct archive *a)
{
	cr_assert_eq(archive_write_close(a), ARCHIVE_OK, "%s",
		     archive_error_string(a));
	archive_write_free(a);
}

static struct archive_entry *ar_entry(const char *name, mode_t type,
				      unsigned int perm)
{
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_uid(e, 1234);
	archive_entry_set_gid(e, 1234);
	archive_entry_set_mtime(e, 1700000000, 0);
	return e;
}

static void ar_put(struct archive *a, struct archive_entry *e,
		   const void *data, size_t len)
{
	cr_assert(archive_write_header(a, e) >= ARCHIVE_WARN, "%s",
		  archive_error_string(a));
	if (len)
		cr_assert_eq(archive_write_data(a, data, len), (ssize_t)len);
	archive_entry_free(e);
}

static void ar_file(struct archive *a, const char *name, unsigned int perm,
		    const char *text)
{
	struct archive_entry *e = ar_entry(name, AE_IFREG, perm);
	archive_entry_set_size(e, (la_int64_t)strlen(text));
	ar_put(a, e, text, strlen(text));
}

/* A file of n bytes, pattern-filled (or zeros, which gzip squeezes). */
static void ar_bytes(struct archive *a, const char *name, size_t n, int zeros)
{
	char *buf = malloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		buf[i] = zeros ? 0 : (char)(i * 7 + i / 4096);
	struct archive_entry *e = ar_entry(name, AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)n);
	ar_put(a, e, buf, n);
	free(buf);
}

static void ar_dir(struct archive *a, const char *name, unsigned int perm)
{
	ar_put(a, ar_entry(name, AE_IFDIR, perm), NULL, 0);
}

static void ar_symlink(struct archive *a, const char *name, const char *target)
{
	struct archive_entry *e = ar_entry(name, AE_IFLNK, 0777);
	archive_entry_set_symlink(e, target);
	ar_put(a, e, NULL, 0);
}

static void ar_hardlink(struct archive *a, const char *name, const char *target)
{
	struct archive_entry *e = ar_entry(name, AE_IFREG, 0644);
	archive_entry_set_hardlink(e, target);
	archive_entry_set_size(e, 0);
	ar_put(a, e, NULL, 0);
}

static void ar_special(struct archive *a, const char *name, mode_t type)
{
	struct archive_entry *e = ar_entry(name, type, 0644);
	if (type == AE_IFCHR)
		archive_entry_set_rdev(e, makedev(1, 3));
	ar_put(a, e, NULL, 0);
}

/* ---- checks ---- */

/* Nothing but dest, the archive and the empty outside dir exist in tmp. */
static void assert_nothing_outside(void)
{
	struct stat sb;
	cr_assert_neq(lstat(sentinel, &sb), 0, "sentinel was created");
	DIR *d = opendir(tmp);
	cr_assert_not_null(d);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		cr_assert(!strcmp(n, ".") || !strcmp(n, "..") ||
			  !strcmp(n, "dest") || !strcmp(n, "a.tar.gz") ||
			  !strcmp(n, "outside"),
			  "unexpected %s/%s after extraction", tmp, n);
	}
	closedir(d);
	d = opendir(outside);
	cr_assert_not_null(d);
	int n = 0;
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	cr_assert_eq(n, 2, "something was written into %s", outside);
}

/*
 * Extract with opts, the manifest written to outside/manifest.tsv; on
 * success *m is what it holds (read back), on failure there is no file
 * there (nor its temp file: assert_nothing_outside).
 */
static int extract_m(const pyrt_extract_opts *o, const pyrt_events *ev,
		     pyrt_manifest **m, pyrt_extract_result *res,
		     pyrt_error *err)
{
	char *mpath = pt_join(outside, "manifest.tsv");
	int rc = pyrt_extract(archive_path, dest, o, ev, mpath, res, err);
	*m = NULL;
	if (rc == 0) {
		pyrt_error rerr = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_manifest_read(m, mpath, &rerr), 0, "%s",
			     rerr.msg);
		cr_assert(unlink(mpath) == 0);
	} else {
		cr_assert_neq(access(mpath, F_OK), 0, "a failed extraction "
			      "left a manifest");
	}
	free(mpath);
	return rc;
}

/* Extract with opts and expect PYRT_E_UNSAFE with exactly msg. */
static void expect_refused(const pyrt_extract_opts *o, const char *msg)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_manifest *m = NULL;
	int rc = extract_m(o, NULL, &m, NULL, &err);
	cr_assert_eq(rc, PYRT_E_UNSAFE, "rc %d: %s", rc, err.msg);
	cr_assert_eq(err.code, PYRT_E_UNSAFE);
	cr_assert_str_eq(err.msg, msg);
	/* A refused extraction leaves no manifest, not even half of one. */
	cr_assert_null(m);
	assert_nothing_outside();
}

static pyrt_extract_opts opts_no_layout(void)
{
	pyrt_extract_opts o = PYRT_EXTRACT_OPTS_INIT;
	o.required_file = NULL;
	return o;
}

static void assert_mode(const char *rel, unsigned int mode, mode_t type)
{
	char *p = pt_join(dest, rel);
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0, "%s missing", rel);
	cr_assert_eq(sb.st_mode & S_IFMT, type, "%s has the wrong type", rel);
	cr_assert_eq(sb.st_mode & 07777, mode, "%s mode %04o, expected %04o",
		     rel, (unsigned)(sb.st_mode & 07777), mode);
	cr_assert_eq(sb.st_uid, geteuid(), "%s owned by uid %u", rel,
		     (unsigned)sb.st_uid);
	cr_assert_eq(sb.st_gid, getegid(), "%s owned by gid %u", rel,
		     (unsigned)sb.st_gid);
	free(p);
}

/* ---- names ---- */

Test(extract, refuses_absolute_name)
{
	struct archive *a = ar_open();
	ar_file(a, "python/ok", 0644, "fine\n");
	ar_file(a, sentinel, 0644, "pwned\n");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	char msg[4096];
	snprintf(msg, sizeof msg, "%s: absolute path", sentinel);
	expect_refused(&o, msg);
}

Test(extract, refuses_dotdot_component)
{
	struct archive *a = ar_open();
	ar_file(a, "python/../../sentinel", 0644, "pwned\n");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	expect_refused(&o, "python/../../sentinel: path contains '..'");
}

Test(extract, refuses_dotdot_even_when_it_stays_inside)
{
	struct archive *a = ar_open();
	ar_file(a, "python/a/../b", 0644, "x\n");
	ar_close(a);
	expect_refused(NULL, "python/a/../b: path contains '..'");
}

Test(extract, refuses_empty_name_of_a_file)
{
	struct archive *a = ar_open();
	ar_file(a, ".", 0644, "");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	expect_refused(&o, ".: empty name");
}

/* ---- symlinks ---- */

Test(extract, refuses_absolute_symlink_target)
{
	struct archive *a = ar_open();
	ar_symlink(a, "python/etc", outside);
	ar_close(a);
	expect_refused(NULL, "python/etc: absolute symlink target");
}

Test(extract, refuses_symlink_leaving_dest)
{
	struct archive *a = ar_open();
	ar_symlink(a, "python/up", "../../outside");
	ar_close(a);
	expect_refused(NULL, "python/up: symlink target leaves the destination");
}

Test(extract, refuses_symlink_climbing_after_a_name)
{
	/* The classic: l1 -> ".", l2 -> "l1/.." would resolve one level up
	 * more than it looks, and chains of these escape. */
	struct archive *a = ar_open();
	ar_symlink(a, "python/l1", ".");
	ar_symlink(a, "python/l2", "l1/..");
	ar_close(a);
	expect_refused(NULL, "python/l2: symlink target climbs after a name");
}

Test(extract, refuses_write_through_earlier_symlink_member)
{
	struct archive *a = ar_open();
	ar_dir(a, "python/sub", 0755);
	ar_symlink(a, "python/d", "sub");
	ar_file(a, "python/d/x", 0644, "through the link\n");
	ar_close(a);
	expect_refused(NULL, "python/d/x: would write through symlink python/d");
	struct stat sb;
	char *p = pt_join(dest, "python/sub/x");
	cr_assert_neq(lstat(p, &sb), 0, "file was written through the link");
	free(p);
}

Test(extract, refuses_write_through_symlink_planted_in_dest)
{
	/* Even a link to outside that is already there (not from the archive)
	 * is never followed while walking parents. */
	cr_assert_eq(symlink(outside, DEST("python")), 0);
	struct archive *a = ar_open();
	ar_file(a, "python/x", 0644, "through the link\n");
	ar_close(a);
	expect_refused(NULL, "python/x: would write through symlink python");
}

Test(extract, refuses_file_over_planted_symlink)
{
	/* A file member never opens an existing leaf, link or not. */
	cr_assert_eq(mkdir(DEST("python"), 0700), 0);
	cr_assert_eq(symlink(sentinel, DEST("python/f")), 0);
	struct archive *a = ar_open();
	ar_file(a, "python/f", 0644, "pwned\n");
	ar_close(a);
	expect_refused(NULL, "python/f: duplicate member");
}

Test(extract, refuses_symlink_member_replaced_by_file)
{
	struct archive *a = ar_open();
	ar_symlink(a, "python/f", "g");
	ar_file(a, "python/f", 0644, "x\n");
	ar_close(a);
	expect_refused(NULL, "python/f: duplicate member");
}

/* ---- hardlinks ---- */

Test(extract, refuses_hardlink_to_non_member)
{
	cr_assert_eq(mkdir(DEST("python"), 0700), 0);
	pt_write(DEST("python/planted"), "not from the archive\n");
	struct archive *a = ar_open();
	ar_hardlink(a, "python/h", "python/planted");
	ar_close(a);
	expect_refused(NULL, "python/h: hardlink target is not an earlier "
		       "file member");
}

Test(extract, refuses_hardlink_to_outside)
{
	pt_write(sentinel, "outside file\n");
	struct archive *a = ar_open();
	ar_hardlink(a, "python/h", "../sentinel");
	ar_close(a);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_UNSAFE);
	cr_assert_str_eq(err.msg, "python/h: hardlink target is not an earlier "
			 "file member");
	struct stat sb;
	cr_assert_eq(stat(sentinel, &sb), 0);
	cr_assert_eq(sb.st_nlink, 1, "the outside file gained a link");
}

Test(extract, refuses_hardlink_to_absolute_path)
{
	pt_write(sentinel, "outside file\n");
	struct archive *a = ar_open();
	ar_hardlink(a, "python/h", sentinel);
	ar_close(a);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_UNSAFE);
	cr_assert_str_eq(err.msg, "python/h: hardlink target is not an earlier "
			 "file member");
	struct stat sb;
	cr_assert_eq(stat(sentinel, &sb), 0);
	cr_assert_eq(sb.st_nlink, 1, "the outside file gained a link");
}

Test(extract, refuses_hardlink_to_directory_or_symlink_member)
{
	struct archive *a = ar_open();
	ar_dir(a, "python/dir", 0755);
	ar_hardlink(a, "python/h", "python/dir");
	ar_close(a);
	expect_refused(NULL, "python/h: hardlink target is not an earlier "
		       "file member");
	pt_rmtree(dest);
	cr_assert_eq(mkdir(dest, 0700), 0);
	a = ar_open();
	ar_file(a, "python/f", 0644, "x\n");
	ar_symlink(a, "python/l", "f");
	ar_hardlink(a, "python/h", "python/l");
	ar_close(a);
	expect_refused(NULL, "python/h: hardlink target is not an earlier "
		       "file member");
}

Test(extract, refuses_hardlink_to_later_member)
{
	struct archive *a = ar_open();
	ar_hardlink(a, "python/h", "python/f");
	ar_file(a, "python/f", 0644, "x\n");
	ar_close(a);
	expect_refused(NULL, "python/h: hardlink target is not an earlier "
		       "file member");
}

/* ---- special files ---- */

Test(extract, refuses_char_device)
{
	struct archive *a = ar_open();
	ar_special(a, "python/null", AE_IFCHR);
	ar_close(a);
	expect_refused(NULL, "python/null: device/fifo member not allowed");
}

Test(extract, refuses_fifo)
{
	struct archive *a = ar_open();
	ar_special(a, "python/fifo", AE_IFIFO);
	ar_close(a);
	expect_refused(NULL, "python/fifo: device/fifo member not allowed");
}

/* ---- duplicates ---- */

Test(extract, refuses_duplicate_file)
{
	struct archive *a = ar_open();
	ar_file(a, "python/a", 0644, "first\n");
	ar_file(a, "python/a", 0644, "second\n");
	ar_close(a);
	expect_refused(NULL, "python/a: duplicate member");
	char *text = pt_read(DEST("python/a"));
	cr_assert_str_eq(text, "first\n");
	free(text);
}

Test(extract, refuses_directory_over_file)
{
	struct archive *a = ar_open();
	ar_file(a, "python/a", 0644, "first\n");
	ar_dir(a, "python/a", 0755);
	ar_close(a);
	expect_refused(NULL, "python/a/: duplicate member");
}

Test(extract, refuses_remoding_a_directory_it_did_not_create)
{
	cr_assert_eq(mkdir(DEST("python"), 0700), 0);
	struct archive *a = ar_open();
	ar_dir(a, "python", 0777);
	ar_close(a);
	expect_refused(NULL, "python/: duplicate member");
	assert_mode("python", 0700, S_IFDIR);
}

/* ---- caps ---- */

Test(extract, refuses_too_many_entries)
{
	struct archive *a = ar_open();
	ar_file(a, "python/1", 0644, "1");
	ar_file(a, "python/2", 0644, "2");
	ar_file(a, "python/3", 0644, "3");
	ar_file(a, "python/4", 0644, "4");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	o.max_entries = 3;
	expect_refused(&o, "python/4: archive exceeds the cap of 3 entries "
		       "(decompression bomb?)");
}

Test(extract, refuses_file_larger_than_cap)
{
	struct archive *a = ar_open();
	ar_bytes(a, "python/zeros", 2 * 1024 * 1024, 1);
	ar_close(a);
	struct stat sb;
	cr_assert_eq(stat(archive_path, &sb), 0);
	cr_assert_lt(sb.st_size, 64 * 1024, "a gzip of zeros should be small");
	pyrt_extract_opts o = opts_no_layout();
	o.max_total_bytes = 1024 * 1024;
	expect_refused(&o, "python/zeros: archive exceeds the cap of 1048576 "
		       "bytes (decompression bomb?)");
	/* The declared size alone refuses it: not one byte was written. */
	struct stat st;
	cr_assert_neq(lstat(DEST("python"), &st), 0);
}

Test(extract, refuses_total_larger_than_cap)
{
	struct archive *a = ar_open();
	ar_bytes(a, "python/a", 600 * 1024, 1);
	ar_bytes(a, "python/b", 600 * 1024, 1);
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	o.max_total_bytes = 1024 * 1024;
	expect_refused(&o, "python/b: archive exceeds the cap of 1048576 "
		       "bytes (decompression bomb?)");
}

Test(extract, accepts_exactly_the_cap)
{
	struct archive *a = ar_open();
	ar_bytes(a, "python/a", 512 * 1024, 1);
	ar_bytes(a, "python/b", 512 * 1024, 1);
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	o.max_total_bytes = 1024 * 1024;
	o.max_entries = 2;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_extract_result res = { 0 };
	int rc = pyrt_extract(archive_path, dest, &o, NULL, NULL, &res, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(res.bytes, 1024 * 1024);
	cr_assert_eq(res.entries, 2);
}

/* ---- modes as tarfile's data filter leaves them ---- */

/* What Python's tarfile.data_filter makes of every member of the archive:
 * one "<octal mode> <name>" line each (python3 3.11.4+ or 3.12+). */
static char *python_data_filter_modes(void)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "python3 -c 'import sys, tarfile\n"
		 "for m in tarfile.open(sys.argv[1]):\n"
		 "    print(\"%%o %%s\" %% (tarfile.data_filter(m, sys.argv[2])"
		 ".mode, m.name))' '%s' '%s'", archive_path, dest);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	char *out = calloc(1, 65536);
	cr_assert_not_null(out);
	size_t n = fread(out, 1, 65535, f);
	cr_assert_eq(pclose(f), 0, "python3 tarfile.data_filter failed: %.*s",
		     (int)n, out);
	return out;
}

Test(extract, file_modes_match_tarfile_data_filter)
{
	static const struct {
		unsigned int in, out;
	} cases[] = {
		{ 0677, 0644 }, { 0777, 0755 }, { 0700, 0700 }, { 0444, 0644 },
		{ 0755, 0755 }, { 0611, 0600 }, { 0570, 0750 }, { 04755, 0755 },
		{ 0007, 0604 }, { 0100, 0700 },
	};
	const size_t n = sizeof cases / sizeof cases[0];
	struct archive *a = ar_open();
	char name[64];
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "python/m%04o", cases[i].in);
		ar_file(a, name, cases[i].in, "x\n");
	}
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_extract(archive_path, dest, &o, NULL, NULL, NULL,
				  &err), 0, "%s", err.msg);
	char *py = python_data_filter_modes();
	for (size_t i = 0; i < n; i++) {
		char line[96];
		snprintf(name, sizeof name, "python/m%04o", cases[i].in);
		assert_mode(name, cases[i].out, S_IFREG);
		/* The same numbers from tarfile itself, on the same archive. */
		snprintf(line, sizeof line, "%o %s\n", cases[i].out, name);
		cr_assert_not_null(strstr(py, line), "tarfile's data filter "
				   "disagrees on %s (want '%o'): %s", name,
				   cases[i].out, py);
	}
	free(py);
}

/* ---- headers ---- */

Test(extract, refuses_a_huge_pax_header_as_unsafe)
{
	/* A 2 MiB name goes into a pax extended header, more than libarchive
	 * reads; that is an unsafe archive (exit 6), not a disk error. */
	size_t len = 2 * 1024 * 1024;
	char *name = malloc(len + 8);
	cr_assert_not_null(name);
	memcpy(name, "python/", 7);
	memset(name + 7, 'a', len);
	name[7 + len] = '\0';
	struct archive *a = ar_open();
	ar_file(a, "python/first", 0644, "x\n");
	ar_file(a, name, 0644, "x\n");
	ar_close(a);
	free(name);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_extract_opts o = opts_no_layout();
	int rc = pyrt_extract(archive_path, dest, &o, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_UNSAFE, "rc %d: %s", rc, err.msg);
	cr_assert(strstr(err.msg, "an extended (pax) header over 1 MiB after "
			 "member python/first"), "%s", err.msg);
	assert_nothing_outside();
}

Test(extract, caps_come_from_the_pin_or_default)
{
	pyrt_extract_opts o = PYRT_EXTRACT_OPTS_INIT;
	cr_assert_eq(o.max_total_bytes, 1024ull * 1024 * 1024);
	cr_assert_eq(o.max_entries, 100000);
	pyrt_extract_caps_from_pin(&o, 0, 0);
	cr_assert_eq(o.max_total_bytes, 1024ull * 1024 * 1024);
	cr_assert_eq(o.max_entries, 100000);
	pyrt_extract_caps_from_pin(&o, 40000000, 10000);
	cr_assert_eq(o.max_total_bytes, 80000000);
	cr_assert_eq(o.max_entries, 20000);
	pyrt_extract_caps_from_pin(&o, UINT64_MAX / 2 + 1, 7);
	cr_assert_eq(o.max_total_bytes, UINT64_MAX, "saturates");
	cr_assert_eq(o.max_entries, 14);
}

Test(extract, refuses_more_than_twice_the_pinned_entries)
{
	struct archive *a = ar_open();
	for (int i = 1; i <= 5; i++) {
		char name[32];
		snprintf(name, sizeof name, "python/%d", i);
		ar_file(a, name, 0644, "1");
	}
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	pyrt_extract_caps_from_pin(&o, 0, 2);
	expect_refused(&o, "python/5: archive exceeds the cap of 4 entries "
		       "(2x the 2 its pin declares; decompression bomb?)");
}

Test(extract, refuses_more_than_twice_the_pinned_bytes)
{
	struct archive *a = ar_open();
	ar_file(a, "python/a", 0644, "0123456789");
	ar_file(a, "python/b", 0644, "0123456789");
	ar_file(a, "python/c", 0644, "0");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	pyrt_extract_caps_from_pin(&o, 10, 0);
	expect_refused(&o, "python/c: archive exceeds the cap of 20 bytes "
		       "(2x the unpacked_size 10 its pin declares; "
		       "decompression bomb?)");
	/* Exactly twice is allowed. */
	pt_rmtree(dest);
	cr_assert_eq(mkdir(dest, 0700), 0);
	a = ar_open();
	ar_file(a, "python/a", 0644, "0123456789");
	ar_file(a, "python/b", 0644, "0123456789");
	ar_close(a);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_extract(archive_path, dest, &o, NULL, NULL, NULL,
				  &err), 0, "%s", err.msg);
}

Test(extract, default_entry_cap_is_100000)
{
	/* "./" members create nothing (dest is not ours to re-mode), so the
	 * count alone is tested: 100,001 of them, under the default caps. */
	struct archive *a = ar_open();
	for (int i = 0; i <= 100000; i++)
		ar_dir(a, "./", 0755);
	ar_close(a);
	expect_refused(NULL, "./: archive exceeds the cap of 100000 entries "
		       "(decompression bomb?)");
}

Test(extract, default_byte_cap_is_1_gib)
{
	/* A sparse member declaring 1 GiB + 1 with one byte of data: the
	 * declared size alone is refused under the default caps. */
	struct archive *a = ar_open();
	struct archive_entry *e = ar_entry("python/big", AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)(1024ll * 1024 * 1024 + 1));
	archive_entry_sparse_add_entry(e, 0, 1);
	ar_put(a, e, "x", 1);
	ar_close(a);
	expect_refused(NULL, "python/big: archive exceeds the cap of "
		       "1073741824 bytes (decompression bomb?)");
}

/* ---- layout ---- */

Test(extract, refuses_member_outside_top_folder)
{
	struct archive *a = ar_open();
	ar_file(a, "python/bin/python3", 0755, "#!\n");
	ar_file(a, "other/x", 0644, "x\n");
	ar_close(a);
	expect_refused(NULL, "other/x: member outside the expected top "
		       "folder 'python/'");
}

Test(extract, refuses_prefix_lookalike_top_folder)
{
	struct archive *a = ar_open();
	ar_file(a, "python/bin/python3", 0755, "#!\n");
	ar_file(a, "python2/x", 0644, "x\n");
	ar_close(a);
	expect_refused(NULL, "python2/x: member outside the expected top "
		       "folder 'python/'");
}

static const char *const layout_msg =
	"layout: python/bin/python3 missing; not a python-build-standalone "
	"install_only archive";

Test(extract, refuses_missing_interpreter)
{
	struct archive *a = ar_open();
	ar_file(a, "python/bin/python3.12", 0755, "#!\n");
	ar_close(a);
	expect_refused(NULL, layout_msg);
}

Test(extract, refuses_dangling_interpreter_symlink)
{
	struct archive *a = ar_open();
	ar_symlink(a, "python/bin/python3", "python3.12");
	ar_close(a);
	expect_refused(NULL, layout_msg);
}

Test(extract, refuses_interpreter_symlink_to_directory)
{
	struct archive *a = ar_open();
	ar_dir(a, "python/bin/python3.12", 0755);
	ar_symlink(a, "python/bin/python3", "python3.12");
	ar_close(a);
	expect_refused(NULL, layout_msg);
}

Test(extract, refuses_interpreter_as_directory)
{
	struct archive *a = ar_open();
	ar_dir(a, "python/bin/python3", 0755);
	ar_close(a);
	expect_refused(NULL, layout_msg);
}

Test(extract, accepts_interpreter_symlink_chain)
{
	struct archive *a = ar_open();
	ar_file(a, "./python/lib/real", 0755, "#!\n");
	ar_symlink(a, "./python/bin/python3", "python3.12");
	ar_symlink(a, "./python/bin/python3.12", "../lib/real");
	ar_close(a);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
}

/* ---- the happy path ---- */

/* sha256sum's digest of a file, to check ours against an outside tool. */
static void sha256sum_of(const char *path, char hex[65])
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%64s", hex), 1);
	pclose(p);
}

static const pyrt_manifest_entry *find_entry(const pyrt_manifest *m,
					     const char *path)
{
	for (size_t i = 0; i < pyrt_manifest_count(m); i++)
		if (strcmp(pyrt_manifest_at(m, i)->path, path) == 0)
			return pyrt_manifest_at(m, i);
	return NULL;
}

static void build_realistic(void)
{
	struct archive *a = ar_open();
	ar_dir(a, "python/", 0755);
	ar_dir(a, "python/bin/", 0777);
	ar_file(a, "python/bin/python3.11", 04777, "#!/fake/interpreter\n");
	ar_symlink(a, "python/bin/python3", "python3.11");
	ar_symlink(a, "python/bin/top", "../../python");
	ar_file(a, "python/lib/x/y.py", 0644, "print('hello')\n");
	ar_hardlink(a, "python/lib/x/hard.py", "python/lib/x/y.py");
	ar_file(a, "python/lib/x/empty", 0644, "");
	ar_bytes(a, "python/lib/big.bin", 3 * 1024 * 1024 + 17, 0);
	ar_dir(a, "python/ro", 0500);
	ar_file(a, "python/ro/f", 0400, "read only\n");
	ar_symlink(a, "python/share/up", "../lib");
	ar_file(a, "python/g+w", 02775, "group write\n");
	ar_close(a);
}

typedef struct problems {
	int n;
	char text[4096];
} problems;

static void collect(const char *path, const char *what, void *payload)
{
	problems *p = payload;
	p->n++;
	size_t len = strlen(p->text);
	snprintf(p->text + len, sizeof p->text - len, "%s: %s\n", path, what);
}

Test(extract, realistic_tree_is_sanitised)
{
	build_realistic();
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_manifest *m = NULL;
	pyrt_extract_result res = { 0 };
	/* Where install writes it: in dest, beside the top folder. */
	char *streamed = pt_join(dest, "manifest.tsv");
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, streamed, &res,
			      &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(pyrt_manifest_read(&m, streamed, &err), 0, "%s", err.msg);
	cr_assert_eq(res.entries, 13);
	cr_assert_eq(res.records, 16);

	assert_mode("python", 0755, S_IFDIR);
	assert_mode("python/bin", 0755, S_IFDIR);       /* 0777 */
	assert_mode("python/bin/python3.11", 0755, S_IFREG); /* 04777 */
	assert_mode("python/lib", 0755, S_IFDIR);       /* implicit */
	assert_mode("python/lib/x", 0755, S_IFDIR);     /* implicit */
	assert_mode("python/lib/x/y.py", 0644, S_IFREG);
	assert_mode("python/ro", 0700, S_IFDIR);        /* 0500 */
	assert_mode("python/ro/f", 0600, S_IFREG);      /* 0400 */
	assert_mode("python/g+w", 0755, S_IFREG);       /* 02775 */
	assert_mode("python/bin/python3", 0777, S_IFLNK);

	char target[256];
	char *p = pt_join(dest, "python/bin/python3");
	ssize_t n = readlink(p, target, sizeof target - 1);
	cr_assert_gt(n, 0);
	target[n] = '\0';
	cr_assert_str_eq(target, "python3.11");
	free(p);

	struct stat s1, s2;
	cr_assert_eq(stat(p = pt_join(dest, "python/lib/x/y.py"), &s1), 0);
	free(p);
	cr_assert_eq(stat(p = pt_join(dest, "python/lib/x/hard.py"), &s2), 0);
	free(p);
	cr_assert_eq(s1.st_ino, s2.st_ino, "hardlink is not the same inode");
	cr_assert_eq(s1.st_nlink, 2);
	cr_assert_eq(s1.st_mtime, 1700000000, "mtime not restored");

	/* 13 members + the implicit python/lib, python/lib/x, python/share. */
	cr_assert_eq(pyrt_manifest_count(m), 16);
	char hex[65];
	cr_assert_eq(stat(p = pt_join(dest, "python/lib/big.bin"), &s1), 0);
	cr_assert_eq(s1.st_size, 3 * 1024 * 1024 + 17);
	sha256sum_of(p, hex);
	free(p);
	const pyrt_manifest_entry *e = find_entry(m, "python/lib/big.bin");
	cr_assert_not_null(e);
	cr_assert_eq(e->type, 'f');
	cr_assert_eq(e->size, 3 * 1024 * 1024 + 17);
	cr_assert_str_eq(e->extra, hex);
	sha256sum_of(p = pt_join(dest, "python/lib/x/empty"), hex);
	free(p);
	cr_assert_str_eq(find_entry(m, "python/lib/x/empty")->extra, hex);
	e = find_entry(m, "python/lib/x/hard.py");
	cr_assert_eq(e->type, 'h');
	cr_assert_str_eq(e->extra, "python/lib/x/y.py");
	e = find_entry(m, "python/bin/python3");
	cr_assert_eq(e->type, 'l');
	cr_assert_str_eq(e->extra, "python3.11");
	e = find_entry(m, "python/bin");
	cr_assert_eq(e->type, 'd');
	cr_assert_eq(e->mode, 0755);
	e = find_entry(m, "python/ro/f");
	cr_assert_eq(e->mode, 0600);

	/* Readable like the tree it lists: other users of a shared box
	 * verify.  The only other thing beside python/. */
	cr_assert_eq(stat(streamed, &s1), 0);
	cr_assert_eq(s1.st_mode & 07777, 0644);
	cr_assert_eq(pt_sh("test \"$(ls -A '%s' | tr '\\n' ' ')\" = "
			   "'manifest.tsv python '", dest), 0);

	/* Round trip through the file: the streamed bytes are exactly what
	 * writing the whole manifest at once gives. */
	char *mpath = pt_join(tmp, "outside/manifest.tsv");
	cr_assert_eq(pyrt_manifest_write(m, mpath, &err), 0, "%s", err.msg);
	cr_assert_eq(pt_sh("cmp '%s' '%s'", streamed, mpath), 0);
	pyrt_manifest *back = NULL;
	cr_assert_eq(pyrt_manifest_read(&back, mpath, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_manifest_count(back), pyrt_manifest_count(m));
	for (size_t i = 0; i < pyrt_manifest_count(m); i++) {
		const pyrt_manifest_entry *a = pyrt_manifest_at(m, i);
		const pyrt_manifest_entry *b = pyrt_manifest_at(back, i);
		cr_assert_eq(a->type, b->type);
		cr_assert_eq(a->mode, b->mode);
		cr_assert_eq(a->size, b->size);
		cr_assert_str_eq(a->extra, b->extra);
		cr_assert_str_eq(a->path, b->path);
	}

	problems pr = { 0 };
	rc = pyrt_manifest_verify(back, dest, collect, &pr, &err);
	cr_assert_eq(rc, 0, "fresh tree has problems:\n%s", pr.text);

	/* Tamper three ways; each must be reported, and nothing else. */
	cr_assert_eq(pt_sh("printf 'X' | dd of='%s/python/lib/big.bin' bs=1 "
			   "seek=1001 conv=notrunc status=none", dest), 0);
	cr_assert_eq(chmod(p = pt_join(dest, "python/ro/f"), 0644), 0);
	free(p);
	p = pt_join(dest, "python/bin/python3");
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(symlink("/bin/sh", p), 0);
	free(p);
	memset(&pr, 0, sizeof pr);
	rc = pyrt_manifest_verify(back, dest, collect, &pr, &err);
	cr_assert_eq(rc, 3, "problems:\n%s", pr.text);
	cr_assert(strstr(pr.text, "python/lib/big.bin: content changed"),
		  "%s", pr.text);
	cr_assert(strstr(pr.text, "python/ro/f: mode 0644, expected 0600"),
		  "%s", pr.text);
	cr_assert(strstr(pr.text, "python/bin/python3: symlink target "
			 "'/bin/sh', expected 'python3.11'"), "%s", pr.text);

	pyrt_manifest_free(back);
	pyrt_manifest_free(m);
	free(mpath);
	free(streamed);
}

Test(extract, without_hashing_records_dash)
{
	build_realistic();
	pyrt_extract_opts o = PYRT_EXTRACT_OPTS_INIT;
	o.hash_files = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_manifest *m = NULL;
	cr_assert_eq(extract_m(&o, NULL, &m, NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(find_entry(m, "python/lib/big.bin")->extra, "-");
	problems pr = { 0 };
	cr_assert_eq(pyrt_manifest_verify(m, dest, collect, &pr, &err), 0,
		     "%s", pr.text);
	pyrt_manifest_free(m);
}

/* ---- the manifest written as extraction goes (issue 28) ---- */

/*
 * Enough files that the manifest passes its 128 KiB buffer many times:
 * each digest, given by the inflating worker after its line, and a
 * directory re-moded long after its line was written land where they
 * belong, in the buffer or in the file.
 */
Test(extract, streamed_manifest_holds_every_digest_and_late_mode)
{
	struct archive *a = ar_open();
	ar_file(a, "python/bin/python3", 0755, "#!/fake\n");
	ar_file(a, "python/late/f", 0644, "early content\n");
	char name[256], text[64];
	for (int i = 0; i < 4000; i++) {
		snprintf(name, sizeof name, "python/many/d%02d/a-long-name-to-"
			 "make-the-manifest-lines-long-%05d.py", i / 100, i);
		snprintf(text, sizeof text, "file %d\n", i);
		ar_file(a, name, 0644, text);
	}
	ar_dir(a, "python/late", 0750);
	ar_close(a);
	pyrt_manifest *m = NULL;
	pyrt_extract_result res = { 0 };
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(extract_m(NULL, NULL, &m, &res, &err), 0, "%s", err.msg);
	/* 4002 files, python/, bin, late, many and its 40 folders. */
	cr_assert_eq(pyrt_manifest_count(m), 4002 + 44);
	cr_assert_eq(res.records, pyrt_manifest_count(m));
	const pyrt_manifest_entry *e = find_entry(m, "python/late");
	cr_assert_not_null(e);
	cr_assert_eq(e->mode, 0750);
	char hex[65];
	sha256sum_of(DEST("python/many/d39/a-long-name-to-make-the-manifest-"
			  "lines-long-03999.py"), hex);
	cr_assert_str_eq(find_entry(m, "python/many/d39/a-long-name-to-make-"
				    "the-manifest-lines-long-03999.py")->extra,
			 hex);
	problems pr = { 0 };
	cr_assert_eq(pyrt_manifest_verify(m, dest, collect, &pr, &err), 0,
		     "%s", pr.text);
	pyrt_manifest_free(m);
}

/*
 * "An earlier file member" is asked of the tree, in the folders this
 * extraction made: a file dest held beside the top folder (install's
 * owner record is one) is none, for a hardlink or the layout check.
 */
Test(extract, files_beside_the_top_folder_are_not_members)
{
	pt_write(DEST(".owner"), "12345\n");
	struct archive *a = ar_open();
	ar_file(a, "python/bin/python3", 0755, "#!/fake\n");
	ar_hardlink(a, "python/h", ".owner");
	ar_close(a);
	expect_refused(NULL, "python/h: hardlink target is not an earlier "
		       "file member");
	struct stat sb;
	cr_assert_eq(stat(DEST(".owner"), &sb), 0);
	cr_assert_eq(sb.st_nlink, 1, "the owner record gained a link");
	pt_rmtree(dest);
	cr_assert_eq(mkdir(dest, 0700), 0);
	pt_write(DEST(".owner"), "12345\n");
	a = ar_open();
	ar_symlink(a, "python/bin/python3", "../../.owner");
	ar_close(a);
	expect_refused(NULL, "layout: python/bin/python3 missing; not a "
		       "python-build-standalone install_only archive");
}

/* With no top folder, what dest held at the start is still no member's,
 * while a file a member made there is one. */
Test(extract, without_a_top_folder_what_dest_held_is_not_a_member)
{
	pt_write(DEST(".owner"), "12345\n");
	struct archive *a = ar_open();
	ar_file(a, "f", 0644, "x\n");
	ar_hardlink(a, "h", "f");
	ar_hardlink(a, "h2", ".owner");
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	expect_refused(&o, "h2: hardlink target is not an earlier file "
		       "member");
	struct stat s1, s2;
	cr_assert_eq(stat(DEST("f"), &s1), 0);
	cr_assert_eq(stat(DEST("h"), &s2), 0);
	cr_assert_eq(s1.st_ino, s2.st_ino, "the member's own hardlink");
	cr_assert_eq(stat(DEST(".owner"), &s1), 0);
	cr_assert_eq(s1.st_nlink, 1, "what dest held gained a link");
}

/* A run killed half way leaves its manifest under the temp name only. */
static int kill_at_tenth(pyrt_step step, const pyrt_progress *p, void *pl)
{
	(void)step;
	(void)p;
	int *calls = pl;
	if (++*calls == 10)
		raise(SIGKILL);
	return 0;
}

Test(extract, killed_half_way_leaves_no_manifest)
{
	struct archive *a = ar_open();
	for (int i = 0; i < 2000; i++) {
		char name[64];
		snprintf(name, sizeof name, "python/f%04d", i);
		ar_file(a, name, 0644, "x\n");
	}
	ar_close(a);
	char *mpath = pt_join(outside, "manifest.tsv");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int calls = 0;
		pyrt_events ev = PYRT_EVENTS_INIT;
		ev.on_progress = kill_at_tenth;
		ev.payload = &calls;
		pyrt_extract_opts o = opts_no_layout();
		o.progress_interval_s = 0;
		pyrt_error err = PYRT_ERROR_INIT;
		pyrt_extract(archive_path, dest, &o, &ev, mpath, NULL, &err);
		_exit(3);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "the child was not killed half way (status %d)", status);
	cr_assert_neq(access(mpath, F_OK), 0, "a killed run left a manifest");
	cr_assert_eq(pt_sh("ls -A '%s' | grep -qx '.manifest.tsv.tmp-.*'",
			   outside), 0, "no temp file: nothing was streamed");
	free(mpath);
}

/* ---- progress, cancel, corrupt input ---- */

Test(extract, reports_progress_in_compressed_bytes)
{
	build_realistic();
	struct stat sb;
	cr_assert_eq(stat(archive_path, &sb), 0);
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_extract(archive_path, dest, NULL, &ev, NULL, NULL,
				  &err), 0, "%s", err.msg);
	cr_assert_geq(rec.progress_calls, 2); /* a first and a last report */
	cr_assert_eq(rec.last_total, (unsigned long long)sb.st_size);
	cr_assert_gt(rec.last_done, 0);
	cr_assert_leq(rec.last_done, rec.last_total);
}

Test(extract, honours_cancel_flag)
{
	build_realistic();
	atomic_int cancel = 1;
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.cancel = &cancel;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, &ev, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_CANCELLED, "%d %s", rc, err.msg);
	struct stat sb;
	cr_assert_neq(lstat(DEST("python"), &sb), 0, "extracted despite cancel");
}

Test(extract, honours_cancel_from_progress_callback)
{
	build_realistic();
	pt_recorder rec;
	memset(&rec, 0, sizeof rec);
	rec.cancel_after_progress = 1;
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, &ev, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_CANCELLED, "%d %s", rc, err.msg);
}

Test(extract, corrupt_archive_is_an_io_error)
{
	build_realistic();
	struct stat sb;
	cr_assert_eq(stat(archive_path, &sb), 0);
	cr_assert_eq(truncate(archive_path, sb.st_size / 2), 0);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_IO, "%d %s", rc, err.msg);
	cr_assert(strncmp(err.msg, "cannot read archive: ", 21) == 0, "%s",
		  err.msg);
}

Test(extract, not_an_archive_is_an_io_error)
{
	pt_write(archive_path, "this is not a tarball\n");
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_IO, "%d %s", rc, err.msg);
}

Test(extract, missing_archive_is_an_io_error)
{
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	cr_assert_eq(rc, PYRT_E_IO, "%d %s", rc, err.msg);
	cr_assert(strstr(err.msg, archive_path), "%s", err.msg);
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

Test(extract, closes_every_descriptor)
{
	/* A refusal deep in a tree and a success must both leave no fd open. */
	struct archive *a = ar_open();
	ar_file(a, "python/a/b/c/f", 0644, "x\n");
	ar_symlink(a, "python/a/b/l", "c");
	ar_file(a, "python/a/b/l/g", 0644, "x\n");
	ar_close(a);
	int before = open_fds();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL,
				  &err), PYRT_E_UNSAFE);
	cr_assert_eq(open_fds(), before);
	pt_rmtree(dest);
	cr_assert_eq(mkdir(dest, 0700), 0);
	build_realistic();
	pyrt_manifest *m = NULL;
	cr_assert_eq(extract_m(NULL, NULL, &m, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(open_fds(), before);
	cr_assert_eq(pyrt_manifest_verify(m, dest, NULL, NULL, &err), 0);
	cr_assert_eq(open_fds(), before);
	pyrt_manifest_free(m);
}

Test(extract, modes_do_not_depend_on_umask)
{
	build_realistic();
	mode_t old = umask(077);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_extract(archive_path, dest, NULL, NULL, NULL, NULL, &err);
	umask(old);
	cr_assert_eq(rc, 0, "%s", err.msg);
	assert_mode("python/bin", 0755, S_IFDIR);
	assert_mode("python/lib", 0755, S_IFDIR); /* implicit parent */
	assert_mode("python/bin/python3.11", 0755, S_IFREG);
	assert_mode("python/lib/x/y.py", 0644, S_IFREG);
}

Test(extract, sparse_file_keeps_its_length_and_digest)
{
	/* A data region in the middle and a trailing hole: libarchive reports
	 * only the region, the length must still come out right. */
	const size_t n = 5 * 1024 * 1024, at = 2000000;
	char *buf = calloc(1, n);
	memcpy(buf + at, "middle", 6);
	struct archive *a = ar_open();
	struct archive_entry *e = ar_entry("python/sparse", AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_sparse_add_entry(e, (la_int64_t)at, 6);
	ar_put(a, e, buf, n); /* the writer keeps only the listed region */
	ar_close(a);
	pyrt_extract_opts o = opts_no_layout();
	pyrt_manifest *m = NULL;
	pyrt_extract_result res = { 0 };
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(extract_m(&o, NULL, &m, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.bytes, n);
	char *text = pt_read(DEST("python/sparse"));
	cr_assert_str_eq(text + at, "middle"); /* followed by a zero byte */
	free(text);
	struct stat sb;
	cr_assert_eq(stat(DEST("python/sparse"), &sb), 0);
	cr_assert_eq((size_t)sb.st_size, n);
	char hex[65];
	sha256sum_of(DEST("python/sparse"), hex);
	cr_assert_str_eq(find_entry(m, "python/sparse")->extra, hex);
	cr_assert_eq(find_entry(m, "python/sparse")->size, n);
	pyrt_manifest_free(m);
	free(buf);
}
