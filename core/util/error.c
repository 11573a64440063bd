/* First-failure-wins error recording shared by every core module. */
#include "core/util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/util/fmt.h"

static void error_vset(pyrt_error *err, int code, const char *suffix,
		       const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void error_vset(pyrt_error *err, int code, const char *suffix,
		       const char *fmt, va_list ap)
{
	/* A message too long for the record ends in "...", and then the
	 * errno text is left off rather than pushed further out. */
	int cut = pyrt_fmt_vtext(err->msg, sizeof err->msg, fmt, ap);
	size_t n = strlen(err->msg);
	if (suffix && !cut)
		pyrt_fmt_text(err->msg + n, sizeof err->msg - n, ": %s",
			      suffix);
	/* One line only: a message must fit a status line or a JSON field. */
	for (char *p = err->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	err->code = code;
}

int pyrt_error_set(pyrt_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	if (err->code != 0)
		return err->code;
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

int pyrt_error_set_errno(pyrt_error *err, int code, int errnum,
			 const char *fmt, ...)
{
	if (!err)
		return code;
	if (err->code != 0)
		return err->code;
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, code, strerror(errnum), fmt, ap);
	va_end(ap);
	return code;
}

void pyrt_error_clear(pyrt_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

const char *pyrt_strerror(int code)
{
	switch (code) {
	case PYRT_OK: return "success";
	case PYRT_E_USAGE: return "invalid usage";
	case PYRT_E_CONSENT: return "consent not given";
	case PYRT_E_NETWORK: return "download failed";
	case PYRT_E_VERIFY: return "archive verification failed";
	case PYRT_E_UNSAFE: return "archive refused as unsafe";
	case PYRT_E_BUSY: return "another installer is running";
	case PYRT_E_UNSUPPORTED: return "unsupported platform";
	case PYRT_E_IO: return "disk or filesystem error";
	case PYRT_E_BASELINE: return "baseline installation failed";
	case PYRT_E_CANCELLED: return "cancelled";
	case PYRT_E_PINS: return "invalid pins file";
	case PYRT_E_INTERPRETER: return "interpreter check failed";
	case PYRT_E_NOT_READY: return "runtime not ready";
	case PYRT_E_NOMEM: return "out of memory";
	case PYRT_E_INTERNAL: return "internal error";
	case PYRT_E_UNTRUSTED: return "box not owned by you or writable by others";
	case PYRT_E_PLUGIN: return "plugin requirements could not be installed";
	case PYRT_E_READONLY: return "the box is shared read-only: run the change as root";
	}
	return "unknown error";
}
