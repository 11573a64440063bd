/*
 * libcurl, libarchive, libcrypto, libyaml and zlib, loaded on first use.
 *
 * Linking them pulls about 37 more shared libraries (Kerberos, LDAP, GnuTLS,
 * ICU, libxml2, ...) into every start, ~20 ms of the dynamic loader's time,
 * while status, plugins, --help and --version never download or extract;
 * libcrypto alone is half the loader's remaining work (lazy_crypto.c).
 * So pyrt is not linked against any of them: core/util/lazy_curl.c,
 * core/util/lazy_archive.c, core/util/lazy_crypto.c, core/util/lazy_yaml.c and
 * core/util/lazy_zlib.c define the few functions core/ calls, with the
 * headers' own prototypes, and forward each to the library dlopen()ed the
 * first time one is needed.  fetch.h, extract.h and the other module
 * interfaces are unchanged; their entry points call pyrt_lazy_*() first so
 * a missing library is a refusal naming it and its Debian package, not a
 * crash.  tui/lazy_curses.c does the same for libncursesw (the TUI only),
 * serve/lazy_mhd.c for libmicrohttpd (serve only).
 */
#ifndef PYRT_LAZYLIB_H
#define PYRT_LAZYLIB_H

#include "core/util/error.h"

/** Load libcurl (once, thread-safe); PYRT_E_UNSUPPORTED naming the library
 *  and the Debian package when it cannot be loaded. */
int pyrt_lazy_curl(pyrt_error *err);

/** The same for libarchive. */
int pyrt_lazy_archive(pyrt_error *err);

/** The same for libcrypto (SHA-256; see core/util/lazy_crypto.c for why).
 *  pyrt_lazy_curl and pyrt_lazy_archive open it before their library:
 *  both depend on it, and dlopen()ing an object that came in as another's
 *  dependency, from a second thread, makes glibc replace its dependency
 *  list and defer freeing the old one past exit (the TUI's install under
 *  valgrind: 40 bytes definitely lost). */
int pyrt_lazy_crypto(pyrt_error *err);

/** The same for libyaml (core/util/lazy_yaml.c); pyrt_yamldoc_load() calls it. */
int pyrt_lazy_yaml(pyrt_error *err);

/** The same for zlib (core/util/lazy_zlib.c); pyrt_gunzip_open() calls it, and
 *  pyrt_lazy_curl and pyrt_lazy_archive before their library (both depend
 *  on it; see pyrt_lazy_crypto for why the order matters). */
int pyrt_lazy_zlib(pyrt_error *err);

/** Whether the library is in the process already (for tests and --version). */
int pyrt_lazy_curl_loaded(void);
int pyrt_lazy_archive_loaded(void);
int pyrt_lazy_crypto_loaded(void);
int pyrt_lazy_yaml_loaded(void);
int pyrt_lazy_zlib_loaded(void);

#endif
