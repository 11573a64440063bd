/*
 * The pip output parser (pyrt_pip_parse_line) on any text: the input is
 * split into lines and each is trimmed as pyrt_pip_install trims pip's
 * lines, then parsed into one result, as one pip run's output would be.
 * What it fills stays NUL-terminated inside its fields.
 */
#include <string.h>

#include "core/pkgs/pip.h"
#include "fuzz.h"

#define LINE_CHUNK 4096     /* proc.c's longest piece of a line */
#define LINE_MAX_BYTES 4200 /* pip.c's line buffer */

static void check_field(const char *f, size_t cap, const char *what)
{
	if (strnlen(f, cap) == cap)
		fuzz_fail("%s is not terminated inside its %zu bytes", what,
			  cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pyrt_pip_result res;
	char cause[256] = "";
	char line[LINE_MAX_BYTES];
	memset(&res, 0, sizeof res);
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t end = nl ? (size_t)(nl - data) : size;
		size_t n = end - at;
		/* proc.c hands a longer line over in LINE_CHUNK pieces. */
		int piece = n > LINE_CHUNK;
		if (piece)
			n = LINE_CHUNK;
		memcpy(line, data + at, n);
		line[n] = '\0';
		/* proc.c hands over text up to a NUL as the line. */
		n = strlen(line);
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		pyrt_pip_parse_line(line, &res, cause, sizeof cause);
		at = piece ? at + LINE_CHUNK : end + 1;
	}
	check_field(res.reason, sizeof res.reason, "reason");
	check_field(res.failed_requirement, sizeof res.failed_requirement,
		    "failed_requirement");
	check_field(cause, sizeof cause, "net_cause");
	if (res.failed_requirement[0] && !res.reason[0])
		fuzz_fail("a failed requirement without a reason");
	if (cause[0] && !res.index_unreachable)
		fuzz_fail("a network cause without index_unreachable");
	return 0;
}
