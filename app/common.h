/*
 * Small helpers shared by the front ends: loading pins and the platform the
 * way every command reports their failures, terminal checks, sizes.
 */
#ifndef PYRT_APP_COMMON_H
#define PYRT_APP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "app/args.h"
#include "core/dist/pins.h"
#include "core/dist/platform.h"

/**
 * opts with the package source the box remembers (declared.h) when the
 * request names none (no --wheelhouse, --index-url or their variables):
 * the printed fix "pyrt baseline" then installs from where the install
 * did, which on an air-gapped box is the only place that works.  *copy
 * and buf[len] hold what the result points into; the result is opts
 * itself when nothing is remembered.
 */
const app_request *app_with_source(const app_request *opts,
				   app_request *copy, char *buf, size_t len);

/** Print "pyrt: <message>" on stderr ("pyrt <cmd>: ..." messages as is). */
void app_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * Load the pins the options name (--pins / PYRT_PINS, else builtin).
 * On failure writes the reason to msg and returns PYRT_E_PINS (any failure
 * to use the named file) or PYRT_E_NOMEM.
 */
int app_load_pins(const app_request *opts, pyrt_pins **out, char *msg,
		  size_t msglen);

/** Detect the platform; on failure writes the reason to msg. */
int app_detect_platform(pyrt_platform *out, char *msg, size_t msglen);

/** The pinned keys joined with ", " into buf. */
void app_supported_keys(const pyrt_pins *pins, char *buf, size_t len);

/** Non-zero when fd is a terminal and TERM is not "dumb". */
int app_is_terminal(int fd);

/** Append formatted text to a NUL-terminated buffer, truncating quietly. */
void app_cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** v[0..n) joined with ", " into buf, truncating quietly. */
void app_join(const char *const *v, size_t n, char *buf, size_t len);

/** "812 B", "12.3 KiB", "35.0 MiB", "1.2 GiB": the one size format of
 * every front end. */
void app_human_bytes(uint64_t n, char *buf, size_t len);

/** The CA bundle a download would use: --cacert, else CURL_CA_BUNDLE, else
 * SSL_CERT_FILE; NULL for the system store. */
const char *app_cacert(const app_request *opts);

/** The pins' implementation as people write it ("CPython"). */
const char *app_impl_name(const pyrt_pins *pins);

#endif
