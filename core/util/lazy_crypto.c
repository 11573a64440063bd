/*
 * The few libcrypto functions pyrt calls, forwarded to libcrypto.so.3 loaded
 * on first use (see lazylib.h).  libcrypto is bound at load time in full
 * (BIND_NOW: ~4,000 symbol look-ups, ~17,000 relocations) and runs its
 * initialisers, about half of what the dynamic loader spent on every pyrt
 * start, while `pyrt status` on a box it has seen before hashes nothing
 * (core/runtime/status.c remembers the digests it checked).  Each definition takes
 * its prototype from OpenSSL's headers, so a drifting signature fails to
 * compile.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/util/lazy_loader.h"
#include "core/util/lazylib.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

/* The ABI of OpenSSL 3.x is soname 3. */
#if OPENSSL_VERSION_MAJOR != 3
#error "lazy_crypto.c knows libcrypto.so.3 (OpenSSL 3)"
#endif

#define CRYPTO_SYMS(X) \
	X(SHA256_Init) X(SHA256_Update) X(SHA256_Final) X(OPENSSL_cleanse) \
	X(CRYPTO_memcmp) X(OpenSSL_version)

LAZY_LIB_DEFINE(crypto_lib, CRYPTO_SYMS, "libcrypto.so.3", "PYRT_TEST_LIBCRYPTO",
		"libssl3");

int pyrt_lazy_crypto(pyrt_error *err)
{
	return pyrt_lazy_lib_load(&crypto_lib) ? 0
					  : pyrt_lazy_lib_error(&crypto_lib, err);
}

int pyrt_lazy_crypto_loaded(void)
{
	return LAZY_LIB_LOADED(crypto_lib);
}

#define F(name) (pyrt_lazy_lib_need(&crypto_lib), LAZY_FN(crypto_lib_table, name))

int SHA256_Init(SHA256_CTX *c)
{
	return F(SHA256_Init)(c);
}

int SHA256_Update(SHA256_CTX *c, const void *data, size_t len)
{
	return F(SHA256_Update)(c, data, len);
}

int SHA256_Final(unsigned char *md, SHA256_CTX *c)
{
	return F(SHA256_Final)(md, c);
}

void OPENSSL_cleanse(void *ptr, size_t len)
{
	F(OPENSSL_cleanse)(ptr, len);
}

int CRYPTO_memcmp(const void *a, const void *b, size_t len)
{
	return F(CRYPTO_memcmp)(a, b, len);
}

const char *OpenSSL_version(int type)
{
	return F(OpenSSL_version)(type);
}
