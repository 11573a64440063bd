/*
 * Helpers shared by the front ends.
 */
#include "app/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/text.h"
#include "core/pkgs/pylock_read.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/util/clock.h"
#include "core/util/error.h"
#include "core/util/size.h"

const app_request *app_with_source(const app_request *opts,
				   app_request *copy, char *buf, size_t len)
{
	if (opts->wheelhouse || opts->index_url || !opts->box_root)
		return opts;
	pyrt_box *box = NULL;
	pyrt_declared *d = pyrt_declared_new();
	char path[4096];
	int found = 0;
	const app_request *out = opts;
	if (d && pyrt_box_open(&box, opts->box_root, 0, NULL) == 0 &&
	    pyrt_declared_path(pyrt_box_runtime_dir(box), path, sizeof path,
			       NULL) == 0 &&
	    pyrt_declared_read(d, path, &found, NULL) == 0 && found) {
		const char *wh = pyrt_declared_wheelhouse(d);
		const char *url = pyrt_declared_index_url(d);
		if ((wh || url) && (size_t)snprintf(buf, len, "%s",
						    wh ? wh : url) < len) {
			*copy = *opts;
			if (wh)
				copy->wheelhouse = buf;
			else
				copy->index_url = buf;
			out = copy;
		}
	}
	pyrt_declared_free(d);
	pyrt_box_free(box);
	return out;
}

void app_errorf(const char *fmt, ...)
{
	char line[PYRT_ERROR_MSG_MAX + 1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* "pyrt install needs consent: ..." already names the program. */
	app_text_printf(stderr, "%s%s\n",
			strncmp(line, "pyrt ", 5) == 0 ? "" : "pyrt: ", line);
}

int app_load_pins(const app_request *opts, pyrt_pins **out, char *msg,
		  size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = !opts->pins_path ? pyrt_pins_load_builtin(out, &err)
		 : pyrt_pylock_is_name(opts->pins_path)
		 ? pyrt_pylock_load_pins(out, opts->pins_path, opts->box_root,
					 &err)
		 : pyrt_pins_load_file_seen(out, opts->pins_path,
					    opts->pins_seen, &err);
	if (rc >= 0)
		return rc;
	const char *why = err.msg[0] ? err.msg : pyrt_strerror(rc);
	/* Name the file when core's message does not, so the user knows
	 * which of --pins / PYRT_PINS to fix. */
	if (opts->pins_path && !strstr(why, opts->pins_path))
		snprintf(msg, msglen, "pins file '%s' (from %s): %s",
			 opts->pins_path, opts->pins_from, why);
	else
		snprintf(msg, msglen, "%s", why);
	/* An unreadable pins file is as unusable as a malformed one: both
	 * are exit 11, so scripts need to check one code.  A missing libyaml
	 * is this machine's fault, not the file's: exit 8, like any other
	 * library pyrt loads on first use. */
	/* A pylock.toml needs a runtime to be read (pylock_read.h). */
	return rc == PYRT_E_NOMEM || rc == PYRT_E_UNSUPPORTED ||
	       rc == PYRT_E_NOT_READY || rc == PYRT_E_INTERPRETER ||
	       rc == PYRT_E_UNTRUSTED ? rc : PYRT_E_PINS;
}

int app_detect_platform(pyrt_platform *out, char *msg, size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_platform_detect(out, &err);
	if (rc < 0)
		snprintf(msg, msglen, "cannot tell which platform this is: %s",
			 err.msg[0] ? err.msg : pyrt_strerror(rc));
	return rc;
}

void app_supported_keys(const pyrt_pins *pins, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pyrt_pins_archive_count(pins); i++) {
		const pyrt_pin_archive *a = pyrt_pins_archive_at(pins, i);
		int n = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", a->key);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

int app_is_terminal(int fd)
{
	const char *term = getenv("TERM");
	return isatty(fd) && !(term && strcmp(term, "dumb") == 0);
}

void app_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void app_join(const char *const *v, size_t n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		app_cat(buf, len, "%s%s", i ? ", " : "", v[i]);
}

void app_human_bytes(uint64_t n, char *buf, size_t len)
{
	pyrt_size_human(n, buf, len);
}

const char *app_cacert(const app_request *opts)
{
	static const char *const vars[] = { "CURL_CA_BUNDLE", "SSL_CERT_FILE" };
	if (opts->cacert)
		return opts->cacert;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

const char *app_impl_name(const pyrt_pins *pins)
{
	const char *impl = pyrt_pins_implementation(pins);
	return (!impl || strcmp(impl, "cpython") == 0) ? "CPython" : impl;
}
