/*
 * The single table of exit codes.  The code, `pyrt --help` and the README all
 * read from here, so they cannot drift apart.
 */
#include "app/exitcodes.h"

#include <stddef.h>

#include "core/util/error.h"

typedef struct exit_row {
	int code;         /* pyrt_code */
	int exit_status;
	const char *name; /* JSON "code" */
	const char *help; /* NULL: folded into the previous row's line */
} exit_row;

static const exit_row exit_table[] = {
	{ PYRT_OK, 0, "ok", "ok / ready" },
	{ PYRT_E_NOT_READY, 1, "not_ready",
	  "not ready (status/doctor/verify found a problem)" },
	{ PYRT_E_USAGE, 2, "usage", "usage" },
	{ PYRT_E_CONSENT, 3, "consent", "consent refused or required" },
	{ PYRT_E_NETWORK, 4, "network", "network" },
	{ PYRT_E_VERIFY, 5, "verification",
	  "verification (digest/size mismatch)" },
	{ PYRT_E_UNSAFE, 6, "unsafe_archive", "unsafe archive" },
	{ PYRT_E_BUSY, 7, "busy", "busy (another installer, with --no-wait)" },
	{ PYRT_E_UNSUPPORTED, 8, "unsupported_platform",
	  "unsupported platform" },
	{ PYRT_E_IO, 9, "io", "disk/io" },
	{ PYRT_E_BASELINE, 10, "baseline", "baseline" },
	{ PYRT_E_PINS, 11, "pins", "pins file invalid" },
	{ PYRT_E_INTERPRETER, 12, "interpreter", "interpreter check failed" },
	{ PYRT_E_INTERNAL, 13, "internal", "internal/out of memory" },
	{ PYRT_E_UNTRUSTED, 14, "untrusted",
	  "box or input not trusted (someone else's, or writable by others)" },
	{ PYRT_E_PLUGIN, 15, "plugin",
	  "plugin install (its requirements could not be installed)" },
	{ PYRT_E_READONLY, 16, "read_only",
	  "read-only: the box is root's, shared with you — run the change as root" },
	{ PYRT_E_NOMEM, 13, "out_of_memory", NULL },
	{ PYRT_E_CANCELLED, 130, "cancelled", "cancelled (Ctrl-C/SIGTERM/SIGHUP)" },
};

#define NROWS (sizeof exit_table / sizeof exit_table[0])

static const exit_row *find_row(int code)
{
	for (size_t i = 0; i < NROWS; i++)
		if (exit_table[i].code == code)
			return &exit_table[i];
	return NULL;
}

int app_exit_code(int code)
{
	const exit_row *r = find_row(code);
	return r ? r->exit_status : 13;
}

const char *app_code_name(int code)
{
	const exit_row *r = find_row(code);
	return r ? r->name : "internal";
}

void app_exit_table_print(FILE *out, const char *indent)
{
	for (size_t i = 0; i < NROWS; i++)
		if (exit_table[i].help)
			fprintf(out, "%s%3d  %s\n", indent,
				exit_table[i].exit_status, exit_table[i].help);
}
