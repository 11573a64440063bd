/*
 * A PYRT_LAZY=OFF build (CMakeLists.txt): libcurl, libarchive, libcrypto,
 * libyaml and zlib are linked as usual and the stubs in lazy_*.c are left
 * out, so the real functions answer under their own names.  Ports start
 * here (no dlopen() or sonames to get right first), and sanitizer builds
 * see the libraries' allocations whole.  What lazylib.h promises still
 * holds: every library is there, so loading always succeeds.
 */
#include "core/util/lazylib.h"

int pyrt_lazy_curl(pyrt_error *err)
{
	(void)err;
	return 0;
}

int pyrt_lazy_archive(pyrt_error *err)
{
	(void)err;
	return 0;
}

int pyrt_lazy_crypto(pyrt_error *err)
{
	(void)err;
	return 0;
}

int pyrt_lazy_yaml(pyrt_error *err)
{
	(void)err;
	return 0;
}

int pyrt_lazy_zlib(pyrt_error *err)
{
	(void)err;
	return 0;
}

int pyrt_lazy_curl_loaded(void) { return 1; }
int pyrt_lazy_archive_loaded(void) { return 1; }
int pyrt_lazy_crypto_loaded(void) { return 1; }
int pyrt_lazy_yaml_loaded(void) { return 1; }
int pyrt_lazy_zlib_loaded(void) { return 1; }
