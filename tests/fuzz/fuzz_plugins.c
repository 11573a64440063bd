/*
 * The plugin.yaml parser (pyrt_plugins_parse_manifest) on any bytes, as
 * plugins/cowork/plugin.yaml: one row, either invalid with a message naming
 * the file, or with requirements that each have a spec and a normalised
 * name, and nothing a terminal would take as control bytes in the message.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pkgs/plugins.h"
#include "fuzz.h"

static void check_row(const pyrt_plugin *pl)
{
	if (!pl || !pl->name || strcmp(pl->name, "cowork") != 0)
		fuzz_fail("the row is not plugin cowork");
	if (pl->verdict == PYRT_VERDICT_INVALID) {
		if (!pl->error || !strstr(pl->error, "plugins/cowork/plugin.yaml"))
			fuzz_fail("an invalid row whose error does not name "
				  "the file: %s", pl->error ? pl->error : "(none)");
		for (const char *c = pl->error; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fuzz_fail("control byte 0x%02x in the error",
					  (unsigned char)*c);
		return;
	}
	if (pl->error)
		fuzz_fail("a valid row with an error: %s", pl->error);
	if (pl->enabled != 0 && pl->enabled != 1)
		fuzz_fail("enabled is %d", pl->enabled);
	for (size_t i = 0; i < pl->require_count; i++) {
		const pyrt_requirement *q = &pl->requires[i];
		if (!q->spec || !q->name || !*q->name)
			fuzz_fail("requirement %zu lacks a spec or a name", i);
		if (strspn(q->name, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
		    strlen(q->name))
			fuzz_fail("name \"%s\" is not in normal form", q->name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader hands the parser a NUL-terminated buffer of size bytes. */
	char *text = fuzz_strndup(data, size);
	pyrt_plugins *p = NULL;
	pyrt_error err = { 0 };
	int rc = pyrt_plugins_parse_manifest(&p, "cowork", text, size, &err);
	if (rc == 0) {
		if (pyrt_plugins_count(p) != 1)
			fuzz_fail("%zu rows for one manifest",
				  pyrt_plugins_count(p));
		check_row(pyrt_plugins_at(p, 0));
	} else if (rc != PYRT_E_NOMEM) {
		fuzz_fail("parse returned %d", rc);
	}
	pyrt_plugins_free(p);
	free(text);
	return 0;
}
