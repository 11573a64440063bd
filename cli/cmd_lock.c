/*
 * `pyrt lock --wheelhouse DIR [--platform KEY]... [--out FILE]`: the pins
 * in use with a wheel lock for a wheelhouse the operator trusts, written as
 * a pins file to review and distribute (what `pip-compile
 * --generate-hashes` is to a requirements file).  Every wheel of DIR that
 * fits the platform (this machine's by default) is hashed; the result is
 * read back through the pins parser before it is written, and written
 * atomically (0600, the operator's to publish), or to stdout without --out.
 * With --out, the same wheels go beside it as pylock.toml (PEP 751,
 * core/dist/pylock.h), for uv, pip and the other tools that read it.
 */
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/text.h"
#include "cli/commands.h"
#include "core/dist/platform.h"
#include "core/dist/pylock.h"
#include "core/pkgs/wheellock.h"
#include "core/util/error.h"
#include "core/util/fs.h"

/* Lock each platform asked for (or this machine's) into pins. */
static int lock_platforms(const app_request *opts, pyrt_pins *pins,
			  size_t *total, char *msg, size_t msglen)
{
	pyrt_platform here;
	const char *keys[APP_MAX_PLATFORMS];
	size_t n = opts->nplatforms;
	memcpy(keys, opts->platforms, n * sizeof *keys);
	if (n == 0) {
		int rc = app_detect_platform(&here, msg, msglen);
		if (rc)
			return rc;
		keys[n++] = here.key;
	}
	for (size_t i = 0; i < n; i++) {
		pyrt_error err = PYRT_ERROR_INIT;
		size_t count = 0, skipped = 0;
		int rc = pyrt_pins_find(pins, keys[i])
			 ? pyrt_wheellock_make(pins, keys[i], opts->wheelhouse,
					       &count, &skipped, &err)
			 : pyrt_error_set(&err, PYRT_E_USAGE, "--platform %s: "
					  "not a platform the pins pin an "
					  "archive for", keys[i]);
		if (rc) {
			snprintf(msg, msglen, "%s", err.msg);
			return rc;
		}
		if (!opts->quiet)
			app_text_printf(stderr, "pyrt: lock: %s: %zu wheel(s) of "
					"%s locked (%zu for other platforms "
					"left out)\n", keys[i], count,
					opts->wheelhouse, skipped);
		*total += count;
	}
	return 0;
}

/* The document, checked by the parser that will read it on every host. */
static int lock_format(const pyrt_pins *pins, char **text, size_t *len,
		       char *msg, size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_pins *back = NULL;
	int rc = pyrt_pins_format(pins, text, len, &err);
	if (!rc)
		rc = pyrt_pins_parse(&back, *text, *len, "the written pins",
				     &err);
	pyrt_pins_free(back);
	if (rc)
		snprintf(msg, msglen, "%s", err.msg);
	return rc;
}

static int lock_write(const app_request *opts, const char *text, size_t len,
		      char *msg, size_t msglen)
{
	if (!opts->out) {
		fwrite(text, 1, len, stdout);
		return fflush(stdout) == 0 ? 0 : PYRT_E_IO;
	}
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fs_write_file_atomic(opts->out, text, len, &err);
	if (rc)
		snprintf(msg, msglen, "%s", err.msg);
	return rc;
}

/* pylock.toml in --out's folder; "" without --out.  --out may not be that
 * file itself: the pins would be replaced by the PEP 751 lock. */
static int pylock_path(const app_request *opts, char *path, size_t len,
		       char *msg, size_t msglen)
{
	path[0] = '\0';
	if (!opts->out)
		return 0;
	char copy[PATH_MAX], copy2[PATH_MAX];
	snprintf(copy, sizeof copy, "%s", opts->out);
	snprintf(copy2, sizeof copy2, "%s", opts->out);
	if (strcmp(basename(copy), PYRT_PYLOCK_NAME) == 0) {
		snprintf(msg, msglen, "--out %s: pyrt lock writes the PEP 751 "
			 "lock as %s beside the pins file; give the pins file "
			 "another name (e.g. --out pins.lock.yaml)", opts->out,
			 PYRT_PYLOCK_NAME);
		return PYRT_E_USAGE;
	}
	if (snprintf(path, len, "%s/%s", dirname(copy2), PYRT_PYLOCK_NAME) >=
	    (int)len) {
		snprintf(msg, msglen, "--out %s: path too long", opts->out);
		return PYRT_E_USAGE;
	}
	return 0;
}

/* The PEP 751 lock of the same wheels, written as the pins are. */
static int pylock_write(const app_request *opts, const pyrt_pins *pins,
			const char *path, char *msg, size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	char *dir = realpath(opts->wheelhouse, NULL);
	char *text = NULL;
	size_t len = 0;
	int rc = pyrt_pylock_format(pins, dir ? dir : opts->wheelhouse, &text,
				    &len, &err);
	if (!rc)
		rc = pyrt_fs_write_file_atomic(path, text, len, &err);
	if (rc)
		snprintf(msg, msglen, "%s", err.msg);
	free(text);
	free(dir);
	return rc;
}

/* --out may not be pylock.toml itself: said before the pins are read. */
int cli_check_lock(const app_request *opts)
{
	char pylock[PATH_MAX];
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int rc = pylock_path(opts, pylock, sizeof pylock, msg, sizeof msg);
	if (rc)
		app_errorf("lock: %s", msg);
	return app_exit_code(rc);
}

int cli_cmd_lock(const cli_ctx *c)
{
	const app_request *opts = c->opts;
	char pylock[PATH_MAX];
	char msg[PYRT_ERROR_MSG_MAX + 512];
	pyrt_pins *pins = c->pins;
	char *text = NULL;
	size_t len = 0, total = 0;
	int rc = pylock_path(opts, pylock, sizeof pylock, msg, sizeof msg);
	if (!rc)
		rc = lock_platforms(opts, pins, &total, msg, sizeof msg);
	if (!rc)
		rc = lock_format(pins, &text, &len, msg, sizeof msg);
	if (!rc)
		rc = lock_write(opts, text, len, msg, sizeof msg);
	if (!rc && pylock[0])
		rc = pylock_write(opts, pins, pylock, msg, sizeof msg);
	if (rc) {
		app_errorf("lock: %s", msg);
	} else if (opts->out && !opts->quiet) {
		app_text_printf(stdout, "lock: %zu wheel(s) locked in %s (the "
				"pins of %s with a wheels: lock); review it, "
				"then install with --pins %s\n", total,
				opts->out, pyrt_pins_source(pins), opts->out);
		app_text_printf(stdout, "lock: the same wheels as %s (PEP "
				"751), for uv, pip and other tools\n", pylock);
	}
	free(text);
	return app_exit_code(rc);
}
