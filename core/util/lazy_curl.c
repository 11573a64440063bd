/*
 * The libcurl functions core/ calls, forwarded to libcurl.so.4 loaded on
 * first use (see lazylib.h).  Each definition takes its prototype from
 * <curl/curl.h>, so a signature that drifts from the header fails to
 * compile.  A function core/ starts to call must be added here (the link
 * fails until it is).
 */
#include "core/util/lazy_loader.h"
#include "core/util/lazylib.h"

#include <stdarg.h>

#include <curl/curl.h>

/* libcurl's ABI has been soname 4 since 7.16 (2006), through 8.x. */
#if LIBCURL_VERSION_MAJOR < 7 || LIBCURL_VERSION_MAJOR > 8
#error "lazy_curl.c knows libcurl.so.4 (libcurl 7 and 8)"
#endif

#define CURL_SYMS(X) \
	X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
	X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_strerror) \
	X(curl_free) X(curl_global_init) X(curl_url) X(curl_url_cleanup) \
	X(curl_url_get) X(curl_url_set) X(curl_version_info)

LAZY_LIB_DEFINE(curl_lib, CURL_SYMS, "libcurl.so.4", "PYRT_TEST_LIBCURL",
		"libcurl4");

int pyrt_lazy_curl(pyrt_error *err)
{
	/* libcrypto first (lazylib.h says why); libcurl reports its own
	 * failure if libcrypto is missing. */
	pyrt_lazy_crypto(NULL);
	pyrt_lazy_zlib(NULL);
	return pyrt_lazy_lib_load(&curl_lib) ? 0 : pyrt_lazy_lib_error(&curl_lib, err);
}

int pyrt_lazy_curl_loaded(void)
{
	return LAZY_LIB_LOADED(curl_lib);
}

#define F(name) (pyrt_lazy_lib_need(&curl_lib), LAZY_FN(curl_lib_table, name))

/* The names in parentheses: curl.h makes setopt and getinfo macros. */
CURL *(curl_easy_init)(void)
{
	return F(curl_easy_init)();
}

/* The value's type follows from the option's number range, as in libcurl's
 * own curl_easy_setopt. */
CURLcode (curl_easy_setopt)(CURL *curl, CURLoption option, ...)
{
	va_list ap;
	CURLcode rc;
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = F(curl_easy_setopt)(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = F(curl_easy_setopt)(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = F(curl_easy_setopt)(curl, option,
					 va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = F(curl_easy_setopt)(curl, option, va_arg(ap, curl_off_t));
	else
		rc = F(curl_easy_setopt)(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *curl)
{
	return F(curl_easy_perform)(curl);
}

void curl_easy_cleanup(CURL *curl)
{
	F(curl_easy_cleanup)(curl);
}

/* Every CURLINFO takes a pointer to where the answer goes. */
CURLcode (curl_easy_getinfo)(CURL *curl, CURLINFO info, ...)
{
	va_list ap;
	va_start(ap, info);
	void *out = va_arg(ap, void *);
	va_end(ap);
	return F(curl_easy_getinfo)(curl, info, out);
}

const char *curl_easy_strerror(CURLcode code)
{
	return F(curl_easy_strerror)(code);
}

void curl_free(void *p)
{
	F(curl_free)(p);
}

CURLcode curl_global_init(long flags)
{
	return F(curl_global_init)(flags);
}

CURLU *curl_url(void)
{
	return F(curl_url)();
}

void curl_url_cleanup(CURLU *handle)
{
	F(curl_url_cleanup)(handle);
}

CURLUcode curl_url_get(CURLU *handle, CURLUPart what, char **part,
		       unsigned int flags)
{
	return F(curl_url_get)(handle, what, part, flags);
}

CURLUcode curl_url_set(CURLU *handle, CURLUPart what, const char *part,
		       unsigned int flags)
{
	return F(curl_url_set)(handle, what, part, flags);
}

curl_version_info_data *curl_version_info(CURLversion v)
{
	return F(curl_version_info)(v);
}
