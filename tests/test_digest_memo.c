/* ctest: test_digest_memo
 * The box's memo of checked digests (core/dist/digest_memo.h): an entry answers
 * only for the very file it was made for, survives a new process, and a
 * memo file that is malformed or not private is no memo at all. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/digest_memo.h"
#include "support.h"

#define HEX_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HEX_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static char *root, *dir, *file;

static void setup(void)
{
	root = pt_tmpdir("digest_memo");
	dir = pt_join(root, "cache");
	file = pt_join(root, "manifest.tsv");
	pt_write(file, "one\n");
	sleep(3); /* only a file left alone 2 s is remembered */
}

static void teardown(void)
{
	pt_rmtree(root);
	free(root);
	free(dir);
	free(file);
}

TestSuite(digest_memo, .init = setup, .fini = teardown);

static struct stat stat_of(const char *path)
{
	struct stat sb;
	cr_assert_eq(lstat(path, &sb), 0);
	return sb;
}

/* Remember HEX_A for file in a memo written to dir, as one process would. */
static void remember(const char *hex)
{
	pyrt_digest_memo *m = pyrt_digest_memo_new(dir);
	cr_assert_not_null(m);
	struct stat sb = stat_of(file);
	pyrt_digest_memo_put(m, file, &sb, hex);
	pyrt_digest_memo_free(m);
}

static int recalled(char hex[PYRT_SHA256_HEX_LEN + 1])
{
	pyrt_digest_memo *m = pyrt_digest_memo_new(dir);
	cr_assert_not_null(m);
	struct stat sb = stat_of(file);
	int hit = pyrt_digest_memo_get(m, file, &sb, hex);
	pyrt_digest_memo_free(m);
	return hit;
}

Test(digest_memo, another_process_recalls_it_from_a_private_file)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	remember(HEX_A);
	struct stat d = stat_of(dir);
	char *memo = pt_join(dir, PYRT_DIGEST_MEMO_FILE);
	struct stat f = stat_of(memo);
	free(memo);
	cr_expect_eq(d.st_mode & 07777, 0700);
	cr_expect_eq(f.st_mode & 07777, 0600);
	cr_assert_eq(recalled(hex), 1);
	cr_expect_str_eq(hex, HEX_A);
}

Test(digest_memo, a_changed_file_is_a_miss)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	remember(HEX_A);
	pt_write(file, "two\n"); /* same size, same inode, new ctime */
	cr_expect_eq(recalled(hex), 0);
}

Test(digest_memo, a_chmod_is_a_miss)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	remember(HEX_A);
	cr_assert_eq(chmod(file, 0640), 0);
	cr_expect_eq(recalled(hex), 0);
}

Test(digest_memo, a_file_changed_just_now_is_not_remembered)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	pt_write(file, "two\n");
	remember(HEX_A);
	cr_expect_eq(recalled(hex), 0);
	char *memo = pt_join(dir, PYRT_DIGEST_MEMO_FILE);
	cr_expect_neq(access(memo, F_OK), 0);
	free(memo);
}

Test(digest_memo, another_path_is_a_miss)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	pyrt_digest_memo *m = pyrt_digest_memo_new(dir);
	struct stat sb = stat_of(file);
	pyrt_digest_memo_put(m, file, &sb, HEX_A);
	char *other = pt_join(root, "other");
	cr_expect_eq(pyrt_digest_memo_get(m, other, &sb, hex), 0);
	cr_expect_eq(pyrt_digest_memo_get(m, file, &sb, hex), 1);
	free(other);
	pyrt_digest_memo_free(m);
}

Test(digest_memo, a_second_put_replaces_the_entry)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	remember(HEX_A);
	remember(HEX_B);
	cr_assert_eq(recalled(hex), 1);
	cr_expect_str_eq(hex, HEX_B);
	char *memo = pt_join(dir, PYRT_DIGEST_MEMO_FILE);
	char *text = pt_read(memo);
	free(memo);
	cr_assert_not_null(text);
	/* A line starts with its digest; the path at its end may hold
	 * anything (a checkout under a folder of 64 'a' holds HEX_A). */
	cr_expect(strncmp(text, HEX_A, 64) != 0 &&
		  !strstr(text, "\n" HEX_A " "), "%s", text);
	free(text);
}

Test(digest_memo, it_keeps_eight_and_drops_the_oldest)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	pyrt_digest_memo *m = pyrt_digest_memo_new(dir);
	struct stat sb = stat_of(file);
	pyrt_digest_memo_put(m, file, &sb, HEX_A);
	for (int i = 0; i < 8; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%d", i);
		char *p = pt_join(root, name);
		pyrt_digest_memo_put(m, p, &sb, HEX_B);
		free(p);
	}
	cr_expect_eq(pyrt_digest_memo_get(m, file, &sb, hex), 0);
	pyrt_digest_memo_free(m);
}

Test(digest_memo, bad_input_is_no_memo)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	struct stat sb = stat_of(file);
	pyrt_digest_memo *m = pyrt_digest_memo_new(dir);
	pyrt_digest_memo_put(m, file, &sb, "not hex");
	pyrt_digest_memo_put(m, "relative/path", &sb, HEX_A);
	cr_expect_eq(pyrt_digest_memo_get(m, file, &sb, hex), 0);
	pyrt_digest_memo_free(m);
	char *memo = pt_join(dir, PYRT_DIGEST_MEMO_FILE);
	cr_expect_neq(access(memo, F_OK), 0, "nothing to remember: no file");
	/* A file of another format, then a line cut short. */
	cr_assert_eq(mkdir(dir, 0700), 0);
	pt_write(memo, "pyrt-digests 2\n" HEX_A " 1 2 3 4 5 6 7 /x\n");
	chmod(memo, 0600);
	cr_expect_eq(recalled(hex), 0);
	FILE *f = fopen(memo, "w");
	fprintf(f, "pyrt-digests 1\n%s %llu %llu\n", HEX_A,
		(unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino);
	fclose(f);
	cr_expect_eq(recalled(hex), 0);
	free(memo);
}

Test(digest_memo, a_memo_in_a_shared_directory_is_not_read)
{
	char hex[PYRT_SHA256_HEX_LEN + 1] = "";
	remember(HEX_A);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_expect_eq(recalled(hex), 0);
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_expect_eq(recalled(hex), 1);
}
