/*
 * Error codes and the one-line message that travels with them.
 *
 * Core functions return 0 or a negative pyrt_code and fill a caller-owned
 * pyrt_error.  The first failure wins: later pyrt_error_set calls on an
 * already-set error are ignored, so cleanup paths cannot overwrite the cause.
 */
#ifndef PYRT_ERROR_H
#define PYRT_ERROR_H

#include <stddef.h>

/** Failure classes.  Each maps to one process exit code (see cli/). */
typedef enum pyrt_code {
	PYRT_OK = 0,
	PYRT_E_USAGE = -1,       /**< bad command line or option value */
	PYRT_E_CONSENT = -2,     /**< consent refused, or required and not given */
	PYRT_E_NETWORK = -3,     /**< download failed (DNS, TLS, HTTP, stall, cap) */
	PYRT_E_VERIFY = -4,      /**< archive digest or size differs from the pin */
	PYRT_E_UNSAFE = -5,      /**< archive refused by the extraction guard */
	PYRT_E_BUSY = -6,        /**< another installer holds the box lock */
	PYRT_E_UNSUPPORTED = -7, /**< no pin for this platform, or a library
				      pyrt loads on first use is missing */
	PYRT_E_IO = -8,          /**< disk or filesystem failure */
	PYRT_E_BASELINE = -9,    /**< pip baseline failed */
	PYRT_E_CANCELLED = -10,  /**< cancelled by the user or a signal */
	PYRT_E_PINS = -11,       /**< pins file malformed */
	PYRT_E_INTERPRETER = -12,/**< interpreter does not start or is the wrong version */
	PYRT_E_NOT_READY = -13,  /**< runtime not provisioned or broken */
	PYRT_E_NOMEM = -14,      /**< out of memory */
	PYRT_E_INTERNAL = -15,   /**< a bug: an invariant did not hold */
	PYRT_E_UNTRUSTED = -16,  /**< a box path someone else controls */
	PYRT_E_PLUGIN = -17,     /**< a plugin's requirements failed to install */
	PYRT_E_READONLY = -18    /**< a change asked of a box shared read-only (root's) */
} pyrt_code;

#define PYRT_ERROR_MSG_MAX 1024

/** The first failure of an operation: its code and a one-line message. */
typedef struct pyrt_error {
	int code;
	char msg[PYRT_ERROR_MSG_MAX];
} pyrt_error;

#define PYRT_ERROR_INIT { 0, { 0 } }

/**
 * Record a failure unless one is already recorded; returns the code that is
 * now in *err (so `return pyrt_error_set(...)` returns the first failure).
 * err may be NULL, then only code is returned.  No trailing newline.
 */
int pyrt_error_set(pyrt_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** As pyrt_error_set, appending ": strerror(errnum)". */
int pyrt_error_set_errno(pyrt_error *err, int code, int errnum,
			 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** Forget a recorded failure (for retry loops that recover). */
void pyrt_error_clear(pyrt_error *err);

/** A fixed description of a code, for when no message was recorded. */
const char *pyrt_strerror(int code);

#endif
