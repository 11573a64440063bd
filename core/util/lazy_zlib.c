/*
 * The zlib functions core/util/gunzip.c calls, forwarded to libz.so.1 loaded on
 * first use (see lazylib.h).  Only an install inflates; linked, zlib was one
 * more library mapped and relocated on every status, --help and --version.
 * Each definition takes its prototype from <zlib.h>, so a drifting
 * signature fails to compile.
 */
#include "core/util/lazy_loader.h"
#include "core/util/lazylib.h"

#include <zlib.h>

/* zlib 1.x keeps soname 1. */
#if ZLIB_VERNUM < 0x1200 || ZLIB_VERNUM >= 0x2000
#error "lazy_zlib.c knows libz.so.1 (zlib 1.2+)"
#endif

#define ZLIB_SYMS(X) \
	X(inflateInit2_) X(inflate) X(inflateReset) X(inflateEnd) X(zError)

LAZY_LIB_DEFINE(zlib_lib, ZLIB_SYMS, "libz.so.1", "PYRT_TEST_LIBZ", "zlib1g");

int pyrt_lazy_zlib(pyrt_error *err)
{
	return pyrt_lazy_lib_load(&zlib_lib) ? 0 : pyrt_lazy_lib_error(&zlib_lib, err);
}

int pyrt_lazy_zlib_loaded(void)
{
	return LAZY_LIB_LOADED(zlib_lib);
}

#define F(name) (pyrt_lazy_lib_need(&zlib_lib), LAZY_FN(zlib_lib_table, name))

int inflateInit2_(z_streamp strm, int window_bits, const char *version,
		  int stream_size)
{
	return F(inflateInit2_)(strm, window_bits, version, stream_size);
}

int inflate(z_streamp strm, int flush)
{
	return F(inflate)(strm, flush);
}

int inflateReset(z_streamp strm)
{
	return F(inflateReset)(strm);
}

int inflateEnd(z_streamp strm)
{
	return F(inflateEnd)(strm);
}

const char *zError(int code)
{
	return F(zError)(code);
}
