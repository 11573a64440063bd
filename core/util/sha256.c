/*
 * Streaming SHA-256 over OpenSSL's SHA256_* functions, and the digest checks
 * the verifier relies on: a strict hex syntax test and a comparison whose
 * time does not depend on where two digests differ.
 *
 * Not EVP: the first EVP digest initialises OpenSSL 3's provider machinery
 * (algorithm tables, the default provider, openssl.cnf), a few milliseconds
 * that `pyrt status` would pay to hash a marker and a manifest.  SHA256_*
 * (deprecated in 3.0, still shipped) run the same assembly (SHA-NI where
 * the CPU has it) with no initialisation.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/util/fs.h"
#include "core/util/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "core/util/lazylib.h"

#define SHA256_FILE_BUF (1024 * 1024)

struct pyrt_sha256 {
	SHA256_CTX md;
};

int pyrt_sha256_ready(pyrt_error *err)
{
	return pyrt_lazy_crypto(err);
}

pyrt_sha256 *pyrt_sha256_new(void)
{
	if (pyrt_lazy_crypto(NULL) != 0)
		return NULL;
	pyrt_sha256 *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return NULL;
	if (SHA256_Init(&ctx->md) != 1) {
		pyrt_sha256_free(ctx);
		return NULL;
	}
	return ctx;
}

void pyrt_sha256_free(pyrt_sha256 *ctx)
{
	if (!ctx)
		return;
	OPENSSL_cleanse(&ctx->md, sizeof ctx->md);
	free(ctx);
}

int pyrt_sha256_reset(pyrt_sha256 *ctx)
{
	if (!ctx || SHA256_Init(&ctx->md) != 1)
		return PYRT_E_INTERNAL;
	return 0;
}

int pyrt_sha256_update(pyrt_sha256 *ctx, const void *data, size_t len)
{
	if (!ctx || (len > 0 && !data))
		return PYRT_E_INTERNAL;
	if (len == 0)
		return 0;
	if (SHA256_Update(&ctx->md, data, len) != 1)
		return PYRT_E_INTERNAL;
	return 0;
}

/*
 * Finishing leaves the context ready for a new digest, so one context can
 * hash several files in a row without a separate reset.
 */
int pyrt_sha256_final_hex(pyrt_sha256 *ctx, char hex[PYRT_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[SHA256_DIGEST_LENGTH];
	const unsigned int n = SHA256_DIGEST_LENGTH;

	if (!ctx || !hex)
		return PYRT_E_INTERNAL;
	if (SHA256_Final(md, &ctx->md) != 1 || n * 2 != PYRT_SHA256_HEX_LEN)
		return PYRT_E_INTERNAL;
	for (unsigned int i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0x0f];
	}
	hex[PYRT_SHA256_HEX_LEN] = '\0';
	return pyrt_sha256_reset(ctx);
}

/* Feed an open descriptor through ctx until end of file. */
static int sha256_fd(pyrt_sha256 *ctx, int fd, const char *path,
		     pyrt_error *err)
{
	unsigned char *buf = malloc(SHA256_FILE_BUF);
	int rc = 0;

	if (!buf)
		return pyrt_error_set(err, PYRT_E_NOMEM,
				      "out of memory hashing %s", path);
	for (;;) {
		ssize_t n = read(fd, buf, SHA256_FILE_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot read %s", path);
			goto cleanup;
		}
		if (n == 0)
			break;
		rc = pyrt_sha256_update(ctx, buf, (size_t)n);
		if (rc < 0) {
			pyrt_error_set(err, rc, "SHA-256 update failed on %s",
				       path);
			goto cleanup;
		}
	}
cleanup:
	free(buf);
	return rc;
}

int pyrt_sha256_copy(int in, int out, unsigned long long cap,
		     const char *in_name, const char *out_name,
		     const pyrt_events *ev,
		     char hex[PYRT_SHA256_HEX_LEN + 1],
		     unsigned long long *bytes, pyrt_error *err)
{
	enum { CHUNK = 256 * 1024 };
	*bytes = 0;
	int rc = pyrt_sha256_ready(err);
	if (rc)
		return rc;
	unsigned char *buf = malloc(CHUNK);
	pyrt_sha256 *sha = pyrt_sha256_new();
	if (!buf || !sha) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto done;
	}
	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot read %s", in_name);
			goto done;
		}
		if (n == 0)
			break;
		if (*bytes + (unsigned long long)n > cap) {
			rc = pyrt_error_set(err, PYRT_E_VERIFY, "%s is larger "
					    "than %llu bytes", in_name, cap);
			goto done;
		}
		pyrt_sha256_update(sha, buf, (size_t)n);
		if (pyrt_fs_write_all(out, buf, (size_t)n) != 0) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot write %s", out_name);
			goto done;
		}
		*bytes += (unsigned long long)n;
		if (pyrt_events_cancelled(ev)) {
			rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
			goto done;
		}
	}
	if (pyrt_sha256_final_hex(sha, hex) != 0)
		rc = pyrt_error_set(err, PYRT_E_INTERNAL, "SHA-256 failed");
done:
	pyrt_sha256_free(sha);
	free(buf);
	return rc;
}

int pyrt_sha256_file_hex(const char *path, char hex[PYRT_SHA256_HEX_LEN + 1],
			 pyrt_error *err)
{
	pyrt_sha256 *ctx = NULL;
	int fd = -1;
	int rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", path);
	ctx = pyrt_sha256_new();
	if (!ctx) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM,
				    "out of memory hashing %s", path);
		goto cleanup;
	}
	rc = sha256_fd(ctx, fd, path, err);
	if (rc < 0)
		goto cleanup;
	rc = pyrt_sha256_final_hex(ctx, hex);
	if (rc < 0)
		pyrt_error_set(err, rc, "SHA-256 finish failed on %s", path);
cleanup:
	pyrt_sha256_free(ctx);
	close(fd);
	return rc;
}

int pyrt_sha256_hex_valid(const char *s)
{
	if (!s)
		return 0;
	for (size_t i = 0; i < PYRT_SHA256_HEX_LEN; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	return s[PYRT_SHA256_HEX_LEN] == '\0';
}

/*
 * Only the comparison of two well-formed digests is constant-time; the
 * syntax check may return early, but it depends on one input's shape alone,
 * not on how much of it matches the other.
 */
int pyrt_sha256_hex_equal(const char *a, const char *b)
{
	if (!pyrt_sha256_hex_valid(a) || !pyrt_sha256_hex_valid(b))
		return 0;
	return pyrt_bytes_equal_ct(a, b, PYRT_SHA256_HEX_LEN);
}

/* Not CRYPTO_memcmp: comparing the digests status remembered must not
 * load libcrypto for this alone. */
int pyrt_bytes_equal_ct(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char diff = 0;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(x[i] ^ y[i]);
	return diff == 0;
}
