/*
 * The pins parser (pyrt_pins_parse) on any bytes: it returns a table or a
 * "<source>:<line>: ..." message, and a table it returns holds what the
 * accessors promise (keys findable, digests 64 lowercase hex).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist/pins.h"
#include "fuzz.h"

static void check_table(const pyrt_pins *pins)
{
	if (!pyrt_pins_implementation(pins) || !pyrt_pins_version(pins))
		fuzz_fail("a parsed table without implementation or version");
	size_t n = pyrt_pins_archive_count(pins);
	for (size_t i = 0; i < n; i++) {
		const pyrt_pin_archive *a = pyrt_pins_archive_at(pins, i);
		if (!a || !a->key || !a->url || !a->sha256)
			fuzz_fail("archive %zu has a missing field", i);
		if (strlen(a->sha256) != 64 ||
		    strspn(a->sha256, "0123456789abcdef") != 64)
			fuzz_fail("archive %s: sha256 \"%s\" is not 64 "
				  "lowercase hex", a->key, a->sha256);
		if (!pyrt_pins_find(pins, a->key))
			fuzz_fail("archive %s cannot be found by its key",
				  a->key);
	}
	if (pyrt_pins_archive_at(pins, n))
		fuzz_fail("an archive past the count");
	for (size_t i = 0; i < pyrt_pins_baseline_count(pins); i++)
		if (!pyrt_pins_baseline_at(pins, i))
			fuzz_fail("baseline %zu is NULL", i);
	const char *layout = pyrt_pins_layout_interpreter(pins);
	if (layout && !*layout)
		fuzz_fail("an empty layout interpreter");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pyrt_pins *pins = NULL;
	pyrt_error err = { 0 };
	int rc = pyrt_pins_parse(&pins, (const char *)data, size, "fuzz.yaml",
				 &err);
	if (rc == 0) {
		if (!pins)
			fuzz_fail("parse returned 0 and no table");
		check_table(pins);
	} else if (pins) {
		fuzz_fail("parse failed (%d) and returned a table", rc);
	} else if (!err.msg[0]) {
		fuzz_fail("parse failed (%d) without a message", rc);
	}
	pyrt_pins_free(pins);
	return 0;
}
