/* sha256: FIPS 180-2 vectors, streaming vs one-shot, files, digest checks. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "core/util/sha256.h"
#include "support.h"

#define HEX_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define HEX_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define HEX_448 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define HEX_MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

/* One-shot digest of a buffer through the public streaming API. */
static void digest(const void *data, size_t len, char hex[65])
{
	pyrt_sha256 *ctx = pyrt_sha256_new();
	cr_assert_not_null(ctx);
	cr_assert_eq(pyrt_sha256_update(ctx, data, len), 0);
	cr_assert_eq(pyrt_sha256_final_hex(ctx, hex), 0);
	pyrt_sha256_free(ctx);
}

Test(sha256, empty_input)
{
	char hex[65];
	digest("", 0, hex);
	cr_assert_str_eq(hex, HEX_EMPTY);
}

Test(sha256, abc)
{
	char hex[65];
	digest("abc", 3, hex);
	cr_assert_str_eq(hex, HEX_ABC);
}

Test(sha256, two_block_message)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];
	digest(m, strlen(m), hex);
	cr_assert_str_eq(hex, HEX_448);
}

Test(sha256, million_a)
{
	char *buf = malloc(1000000);
	char hex[65];
	cr_assert_not_null(buf);
	memset(buf, 'a', 1000000);
	digest(buf, 1000000, hex);
	free(buf);
	cr_assert_str_eq(hex, HEX_MILLION_A);
}

/* Odd chunk sizes cross the 64-byte block boundary at every offset. */
Test(sha256, streaming_in_odd_chunks_equals_one_shot)
{
	static const size_t chunks[] = { 1, 3, 7, 63, 64, 65, 127, 1000, 4093 };
	size_t len = 1000000;
	char *buf = malloc(len);
	char one[65], hex[65];

	cr_assert_not_null(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + i / 251);
	digest(buf, len, one);
	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
		pyrt_sha256 *ctx = pyrt_sha256_new();
		cr_assert_not_null(ctx);
		for (size_t off = 0; off < len; off += chunks[c]) {
			size_t n = len - off < chunks[c] ? len - off : chunks[c];
			cr_assert_eq(pyrt_sha256_update(ctx, buf + off, n), 0);
		}
		cr_assert_eq(pyrt_sha256_final_hex(ctx, hex), 0);
		cr_assert_str_eq(hex, one, "chunk size %zu", chunks[c]);
		pyrt_sha256_free(ctx);
	}
	free(buf);

	/* And the million-'a' vector streamed in 4093-byte pieces. */
	pyrt_sha256 *ctx = pyrt_sha256_new();
	char a[4093];
	memset(a, 'a', sizeof a);
	for (size_t off = 0; off < 1000000; off += sizeof a) {
		size_t n = 1000000 - off < sizeof a ? 1000000 - off : sizeof a;
		cr_assert_eq(pyrt_sha256_update(ctx, a, n), 0);
	}
	cr_assert_eq(pyrt_sha256_final_hex(ctx, hex), 0);
	cr_assert_str_eq(hex, HEX_MILLION_A);
	pyrt_sha256_free(ctx);
}

Test(sha256, reset_discards_earlier_input)
{
	pyrt_sha256 *ctx = pyrt_sha256_new();
	char hex[65];
	cr_assert_eq(pyrt_sha256_update(ctx, "garbage", 7), 0);
	cr_assert_eq(pyrt_sha256_reset(ctx), 0);
	cr_assert_eq(pyrt_sha256_update(ctx, "abc", 3), 0);
	cr_assert_eq(pyrt_sha256_final_hex(ctx, hex), 0);
	cr_assert_str_eq(hex, HEX_ABC);
	/* final leaves the context fresh for the next digest */
	cr_assert_eq(pyrt_sha256_final_hex(ctx, hex), 0);
	cr_assert_str_eq(hex, HEX_EMPTY);
	pyrt_sha256_free(ctx);
	pyrt_sha256_free(NULL);
}

Test(sha256, file_hex)
{
	char *dir = pt_tmpdir("sha256");
	char *small = pt_join(dir, "abc.txt");
	char *big = pt_join(dir, "big.bin");
	char *empty = pt_join(dir, "empty");
	char hex[65];
	pyrt_error err = PYRT_ERROR_INIT;

	pt_write(small, "abc");
	pt_write(empty, "");
	/* the 1,000,000 'a' vector, read from a file */
	cr_assert_eq(pt_sh("head -c 1000000 /dev/zero | tr '\\0' a > '%s'",
			   big), 0);

	cr_assert_eq(pyrt_sha256_file_hex(small, hex, &err), 0, "%s", err.msg);
	cr_assert_str_eq(hex, HEX_ABC);
	cr_assert_eq(pyrt_sha256_file_hex(empty, hex, &err), 0, "%s", err.msg);
	cr_assert_str_eq(hex, HEX_EMPTY);
	cr_assert_eq(pyrt_sha256_file_hex(big, hex, &err), 0, "%s", err.msg);
	cr_assert_str_eq(hex, HEX_MILLION_A);

	/* A file larger than the read buffer: compare with sha256sum. */
	char *huge = pt_join(dir, "huge.bin");
	char *sum = pt_join(dir, "huge.sum");
	cr_assert_eq(pt_sh("head -c 3145733 /dev/urandom > '%s' && "
			   "sha256sum '%s' | cut -c1-64 | tr -d '\\n' > '%s'",
			   huge, huge, sum), 0);
	char *want = pt_read(sum);
	cr_assert_eq(pyrt_sha256_file_hex(huge, hex, &err), 0, "%s", err.msg);
	cr_assert_str_eq(hex, want);
	free(want);
	free(huge);
	free(sum);

	char *missing = pt_join(dir, "missing");
	cr_assert_eq(pyrt_sha256_file_hex(missing, hex, &err), PYRT_E_IO);
	cr_assert_not_null(strstr(err.msg, missing), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "No such file"), "%s", err.msg);
	free(missing);

	pt_rmtree(dir);
	free(small);
	free(big);
	free(empty);
	free(dir);
}

Test(sha256, hex_valid)
{
	cr_assert(pyrt_sha256_hex_valid(HEX_ABC));
	cr_assert(pyrt_sha256_hex_valid(HEX_EMPTY));
	cr_assert_not(pyrt_sha256_hex_valid(NULL));
	cr_assert_not(pyrt_sha256_hex_valid(""));
	/* 63 and 65 digits */
	cr_assert_not(pyrt_sha256_hex_valid(
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a"));
	cr_assert_not(pyrt_sha256_hex_valid(HEX_ABC "0"));
	/* uppercase, non-hex letter, space */
	cr_assert_not(pyrt_sha256_hex_valid(
		"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
	cr_assert_not(pyrt_sha256_hex_valid(
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015aD"));
	cr_assert_not(pyrt_sha256_hex_valid(
		"ga7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	cr_assert_not(pyrt_sha256_hex_valid(
		"ba7816bf8f01cfea414140de5dae2223 00361a396177a9cb410ff61f20015ad"));
}

Test(sha256, hex_equal)
{
	cr_assert(pyrt_sha256_hex_equal(HEX_ABC, HEX_ABC));
	char copy[65];
	memcpy(copy, HEX_ABC, sizeof copy);
	cr_assert(pyrt_sha256_hex_equal(HEX_ABC, copy));

	/* differs in the last digit */
	copy[63] = 'c';
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC, copy));
	/* differs in the first digit only */
	memcpy(copy, HEX_ABC, sizeof copy);
	copy[0] = 'c';
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC, copy));
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC, HEX_EMPTY));

	/* malformed digests are never equal, not even to themselves */
	const char *upper =
		"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD";
	cr_assert_not(pyrt_sha256_hex_equal(upper, upper));
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC, upper));
	cr_assert_not(pyrt_sha256_hex_equal("abc", "abc"));
	cr_assert_not(pyrt_sha256_hex_equal(NULL, HEX_ABC));
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC, NULL));
	cr_assert_not(pyrt_sha256_hex_equal(HEX_ABC "00", HEX_ABC "00"));
}
