/*
 * The version marker reader (pyrt_marker_read) on any file: it reads or
 * refuses with a message, every field it fills is terminated inside its
 * buffer, the missing list stays within its cap, and a marker it read is
 * written and read back the same.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/marker.h"
#include "fuzz.h"

#define FIELD(m, f) check_field((m)->f, sizeof (m)->f, #f)

static void check_field(const char *f, size_t cap, const char *what)
{
	if (strnlen(f, cap) == cap)
		fuzz_fail("%s is not terminated inside its %zu bytes", what,
			  cap);
}

static void check_marker(const pyrt_marker *m)
{
	FIELD(m, implementation);
	FIELD(m, version);
	FIELD(m, build);
	FIELD(m, platform);
	FIELD(m, sha256);
	FIELD(m, source);
	FIELD(m, installed_at);
	FIELD(m, pins);
	FIELD(m, baseline_state);
	FIELD(m, baseline_error);
	if (m->baseline_missing_count < 0 ||
	    m->baseline_missing_count > PYRT_MARKER_MISSING_MAX)
		fuzz_fail("baseline_missing_count %d", m->baseline_missing_count);
	for (int i = 0; i < m->baseline_missing_count; i++)
		FIELD(m, baseline_missing[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[PATH_MAX], out[PATH_MAX];
	snprintf(in, sizeof in, "%s/marker.json", fuzz_scratch());
	snprintf(out, sizeof out, "%s/again.json", fuzz_scratch());
	fuzz_write(in, data, size);
	/* 10 KB each: on the heap, so ASan sees their edges. */
	pyrt_marker *m = malloc(sizeof *m), *again = malloc(sizeof *again);
	if (!m || !again)
		fuzz_fail("out of memory");
	pyrt_error err = { 0 };
	int rc = pyrt_marker_read(in, m, &err);
	check_marker(m);
	if (rc != 0 && !err.msg[0])
		fuzz_fail("read failed (%d) without a message", rc);
	pyrt_error werr = { 0 }, rerr = { 0 };
	/* A field cut at its size may end inside a UTF-8 sequence; the
	 * writer refuses that, and then there is nothing to read back. */
	if (rc == 0 && pyrt_marker_write(out, m, &werr) == 0) {
		if (pyrt_marker_read(out, again, &rerr) != 0)
			fuzz_fail("a marker written cannot be read: %s",
				  rerr.msg);
		/* Not the source: redacting a redacted URL may take more
		 * (a query key "a://u:p" left by the first pass is a
		 * valueless parameter to the second).  What redaction
		 * promises is test_redact's to prove. */
		if (strcmp(m->version, again->version) != 0 ||
		    strcmp(m->sha256, again->sha256) != 0 ||
		    m->baseline_missing_count != again->baseline_missing_count)
			fuzz_fail("the marker changed in a round trip");
	}
	free(m);
	free(again);
	return 0;
}
