/* ctest: test_cache_seal */
/* core/util/cache_seal: the checksum is FNV-1a 64 as 16 lowercase hex
 * digits, and any one changed byte, a cut, or a malformed sum is refused;
 * the sealed file and the identities the box's memos share. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/cache_seal.h"

Test(cache_seal, known_values)
{
	char hex[PYRT_CACHE_SUM_LEN + 1];
	pyrt_cache_sum("", 0, hex);
	cr_assert_str_eq(hex, "cbf29ce484222325"); /* FNV-1a 64 offset basis */
	pyrt_cache_sum("a", 1, hex);
	cr_assert_str_eq(hex, "af63dc4c8601ec8c");
}

Test(cache_seal, any_change_is_refused)
{
	const char *data = "entry line 1\nentry line 2\n";
	size_t len = strlen(data);
	char hex[PYRT_CACHE_SUM_LEN + 1], copy[64];
	pyrt_cache_sum(data, len, hex);
	cr_assert(pyrt_cache_sum_ok(hex, data, len));
	for (size_t i = 0; i < len; i++) {
		memcpy(copy, data, len);
		copy[i] ^= 0x01;
		cr_assert_not(pyrt_cache_sum_ok(hex, copy, len), "byte %zu", i);
	}
	cr_assert_not(pyrt_cache_sum_ok(hex, data, len - 1), "a torn write");
	char upper[PYRT_CACHE_SUM_LEN + 1];
	for (size_t i = 0; i <= PYRT_CACHE_SUM_LEN; i++)
		upper[i] = (char)(hex[i] >= 'a' && hex[i] <= 'f'
				  ? hex[i] - 32 : hex[i]);
	if (strcmp(upper, hex) != 0)
		cr_assert_not(pyrt_cache_sum_ok(upper, data, len),
			      "upper case is not the form written");
	cr_assert_not(pyrt_cache_sum_ok("123", data, len), "too short");
}

/* The sealed file the box's whole-file memos share: read back as written;
 * a flipped byte, a file others may write, or a folder others may write
 * is a miss. */
static void sealed_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/pyrt-seal.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0700);
}

static int read_back(const char *dir, char **data, const char **body,
		     size_t *len)
{
	return pyrt_cache_read_sealed(dir, "memo", 1 << 20, data, body, len);
}

Test(cache_seal, sealed_file_reads_back_and_refuses_damage)
{
	char dir[64], path[128], *data = NULL;
	const char *body = NULL;
	size_t len = 0;
	sealed_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/memo", dir);
	pyrt_cache_write_sealed(dir, "memo", "abc\ndef\n", 8);
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
	cr_assert_eq(read_back(dir, &data, &body, &len), 0);
	cr_assert_eq(len, 8);
	cr_assert_eq(memcmp(body, "abc\ndef\n", 8), 0);
	free(data);

	chmod(path, 0620);
	cr_assert_eq(read_back(dir, &data, &body, &len), -1, "group-writable");
	chmod(path, 0602);
	cr_assert_eq(read_back(dir, &data, &body, &len), -1, "world-writable");
	chmod(path, 0600);
	chmod(dir, 0770);
	cr_assert_eq(read_back(dir, &data, &body, &len), -1, "folder others write");
	chmod(dir, 0700);

	FILE *f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, 18, SEEK_SET);
	fputc('X', f);
	fclose(f);
	cr_assert_eq(read_back(dir, &data, &body, &len), -1, "a flipped byte");
	cr_assert_null(data);
	unlink(path);
	cr_assert_eq(read_back(dir, &data, &body, &len), -1, "missing");
	rmdir(dir);
}

Test(cache_seal, settled_means_older_than_the_start_by_the_settle_time)
{
	struct stat sb;
	memset(&sb, 0, sizeof sb);
	struct timespec start = { 1000, 500 };
	sb.st_mtim.tv_sec = sb.st_ctim.tv_sec = 1000 - PYRT_CACHE_SETTLE_S;
	sb.st_mtim.tv_nsec = sb.st_ctim.tv_nsec = 499;
	cr_assert(pyrt_cache_settled(&sb, &start));
	sb.st_ctim.tv_nsec = 500;
	cr_assert_not(pyrt_cache_settled(&sb, &start), "ctime at the limit");
	sb.st_ctim.tv_nsec = 0;
	sb.st_mtim.tv_sec = 999;
	cr_assert_not(pyrt_cache_settled(&sb, &start), "mtime recent");

	pyrt_cache_id a, b;
	pyrt_cache_id_of(&sb, &a);
	sb.st_ctim.tv_nsec = 1;
	pyrt_cache_id_of(&sb, &b);
	cr_assert_not(pyrt_cache_id_same(&a, &b), "one ns of ctime");
	sb.st_ctim.tv_nsec = 0;
	pyrt_cache_id_of(&sb, &b);
	cr_assert(pyrt_cache_id_same(&a, &b));
}

Test(cache_seal, identity_reads_back_raw_and_a_short_one_is_bad)
{
	struct stat sb;
	memset(&sb, 0, sizeof sb);
	sb.st_dev = 41;
	sb.st_ino = 1234567;
	sb.st_mode = S_IFDIR | 0755;
	sb.st_size = 4096;
	sb.st_mtim.tv_sec = 1796328216;
	sb.st_mtim.tv_nsec = 431329093;
	sb.st_ctim = sb.st_mtim;
	pyrt_cache_id id, back = { { 0 } }, other;
	pyrt_cache_id_of(&sb, &id);
	pyrt_cache_text t = { .max = 4096 };
	pyrt_cache_text_add(&t, "D", 1);
	pyrt_cache_text_add_id(&t, &id);
	pyrt_cache_text_add(&t, "\n", 1);
	cr_assert_eq(t.len, 2 + PYRT_CACHE_ID_BYTES + 1);
	pyrt_cache_cursor c = { t.s + 1, t.s + t.len, 0 };
	cr_assert(pyrt_cache_cur_id(&c, &back));
	cr_assert(pyrt_cache_cur_char(&c, '\n'));
	cr_assert_not(c.bad);
	cr_assert(pyrt_cache_id_same(&id, &back));
	/* One byte of it changed: another identity. */
	t.s[2 + 9] ^= 1;
	c = (pyrt_cache_cursor){ t.s + 1, t.s + t.len, 0 };
	cr_assert(pyrt_cache_cur_id(&c, &other));
	cr_assert_not(pyrt_cache_id_same(&id, &other));
	/* Cut short, or not after a space: bad, and stays bad. */
	c = (pyrt_cache_cursor){ t.s + 1, t.s + t.len - 2, 0 };
	cr_assert_not(pyrt_cache_cur_id(&c, &back));
	cr_assert(c.bad);
	cr_assert_not(pyrt_cache_cur_char(&c, '\n'));
	c = (pyrt_cache_cursor){ t.s, t.s + t.len, 0 };
	cr_assert_not(pyrt_cache_cur_id(&c, &back));
	free(t.s);
}
