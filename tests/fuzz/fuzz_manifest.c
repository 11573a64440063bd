/*
 * The install manifest reader (pyrt_manifest_read) on any file: it reads
 * or refuses, and what it reads survives a round trip: written out with
 * pyrt_manifest_write and read back, every entry is the same.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/dist/manifest.h"
#include "fuzz.h"

static void same_entries(const pyrt_manifest *a, const pyrt_manifest *b)
{
	size_t n = pyrt_manifest_count(a);
	if (pyrt_manifest_count(b) != n)
		fuzz_fail("%zu entries read back as %zu", n,
			  pyrt_manifest_count(b));
	for (size_t i = 0; i < n; i++) {
		const pyrt_manifest_entry *x = pyrt_manifest_at(a, i);
		const pyrt_manifest_entry *y = pyrt_manifest_at(b, i);
		if (!x || !y)
			fuzz_fail("entry %zu missing", i);
		if (x->type != y->type || x->mode != y->mode ||
		    x->size != y->size || strcmp(x->extra, y->extra) != 0 ||
		    strcmp(x->path, y->path) != 0)
			fuzz_fail("entry %zu differs after a round trip: "
				  "%c %o %llu %s %s / %c %o %llu %s %s", i,
				  x->type, x->mode,
				  (unsigned long long)x->size, x->extra,
				  x->path, y->type, y->mode,
				  (unsigned long long)y->size, y->extra,
				  y->path);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[PATH_MAX], out[PATH_MAX];
	snprintf(in, sizeof in, "%s/manifest.tsv", fuzz_scratch());
	snprintf(out, sizeof out, "%s/again.tsv", fuzz_scratch());
	fuzz_write(in, data, size);
	pyrt_manifest *m = NULL, *again = NULL;
	pyrt_error err = { 0 };
	int rc = pyrt_manifest_read(&m, in, &err);
	if (rc == 0 && !m)
		fuzz_fail("read returned 0 and no manifest");
	if (rc != 0 && (m || !err.msg[0]))
		fuzz_fail("read failed (%d) with a manifest or no message", rc);
	if (m) {
		size_t index;
		for (size_t i = 0; i < pyrt_manifest_count(m); i++) {
			const pyrt_manifest_entry *e = pyrt_manifest_at(m, i);
			if (pyrt_manifest_find(m, e->path, &index) != 1)
				fuzz_fail("entry %zu (%s) is not found by its "
					  "path", i, e->path);
		}
		pyrt_error werr = { 0 }, rerr = { 0 };
		if (pyrt_manifest_write(m, out, &werr) != 0)
			fuzz_fail("a manifest read cannot be written: %s",
				  werr.msg);
		if (pyrt_manifest_read(&again, out, &rerr) != 0)
			fuzz_fail("a manifest written cannot be read: %s",
				  rerr.msg);
		same_entries(m, again);
	}
	pyrt_manifest_free(m);
	pyrt_manifest_free(again);
	return 0;
}
