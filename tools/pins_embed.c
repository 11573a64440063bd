/*
 * Build-time generator: pins.yaml -> build/pins_builtin.c, the builtin pins
 * as const C data (core/dist/pins_table.h).  pins.yaml is read with the real
 * pyrt_pins_load_file(), so an invalid table fails the build with the same
 * "<file>:<line>: <what>" a --pins file gets at run time, and pyrt itself
 * never parses YAML for its builtin pins (issue 13: status under 5 ms).
 *
 * Usage: pyrt_pins_embed PINS.yaml OUT.c [SYMBOL]
 * SYMBOL names the table (pyrt_pins_builtin_table; tests/ makes tables of
 * its own fixtures with other names).  OUT.c is written next to itself and
 * renamed into place, so a failed run never leaves a half-written file that
 * make would take as up to date.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dist/pins.h"

/*
 * A C string literal for s, or NULL.  Every byte that is not printable
 * ASCII, and '"', '\\' and '?' (trigraphs), is a three-digit octal escape:
 * an octal escape ends after three digits, so it cannot run into the next
 * character the way a hex escape would.
 */
static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("NULL", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
		    *p != '?')
			fputc(*p, f);
		else
			fprintf(f, "\\%03o", *p);
	}
	fputc('"', f);
}

static void put_field(FILE *f, const char *indent, const char *name,
		      const char *s)
{
	fprintf(f, "%s.%s = ", indent, name);
	put_str(f, s);
	fputs(",\n", f);
}

static void put_u64(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, "\t\t.%s = UINT64_C(%" PRIu64 "),\n", name, v);
}

static void put_archives(FILE *f, const pyrt_pins *pins)
{
	size_t n = pyrt_pins_archive_count(pins);

	if (n == 0)
		return;
	fputs("static const pyrt_pin_archive archives[] = {\n", f);
	for (size_t i = 0; i < n; i++) {
		const pyrt_pin_archive *a = pyrt_pins_archive_at(pins, i);

		fputs("\t{\n", f);
		put_field(f, "\t\t", "key", a->key);
		put_field(f, "\t\t", "url", a->url);
		put_field(f, "\t\t", "sha256", a->sha256);
		put_u64(f, "size", a->size);
		put_u64(f, "unpacked_size", a->unpacked_size);
		put_u64(f, "entries", a->entries);
		fputs("\t},\n", f);
	}
	fputs("};\n\n", f);
}

static void put_baseline(FILE *f, const pyrt_pins *pins)
{
	size_t n = pyrt_pins_baseline_count(pins);

	if (n == 0)
		return;
	fputs("static const char *const baseline[] = {\n", f);
	for (size_t i = 0; i < n; i++) {
		fputc('\t', f);
		put_str(f, pyrt_pins_baseline_at(pins, i));
		fputs(",\n", f);
	}
	fputs("};\n\n", f);
}

/* C has no empty arrays: an empty list is NULL with a count of 0. */
/* The file name for the header comment, when it cannot end the comment. */
static const char *comment_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (const char *s = base; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return "a pins file";
	return *base ? base : "a pins file";
}

static void put_table(FILE *f, const pyrt_pins *pins, const char *symbol)
{
	size_t n_archives = pyrt_pins_archive_count(pins);
	size_t n_baseline = pyrt_pins_baseline_count(pins);

	fprintf(f, "/* Generated from %s by tools/pins_embed.c; "
		"do not edit. */\n"
		"#include <stdint.h>\n\n"
		"#include \"core/dist/pins_table.h\"\n\n",
		comment_name(pyrt_pins_source(pins)));
	put_archives(f, pins);
	put_baseline(f, pins);
	fprintf(f, "extern const pyrt_pins_table %s;\n"
		"const pyrt_pins_table %s = {\n", symbol, symbol);
	put_field(f, "\t", "implementation", pyrt_pins_implementation(pins));
	put_field(f, "\t", "version", pyrt_pins_version(pins));
	put_field(f, "\t", "build", pyrt_pins_build(pins));
	fprintf(f, "\t.archives = %s,\n\t.n_archives = %zu,\n",
		n_archives ? "archives" : "NULL", n_archives);
	fprintf(f, "\t.baseline = %s,\n\t.n_baseline = %zu,\n",
		n_baseline ? "baseline" : "NULL", n_baseline);
	put_field(f, "\t", "interpreter", pyrt_pins_layout_interpreter(pins));
	fputs("};\n", f);
}

static int write_table(const char *out, const pyrt_pins *pins,
		       const char *symbol)
{
	size_t len = strlen(out);
	char *tmp = malloc(len + sizeof ".tmp");
	FILE *f;
	int ok;

	if (!tmp) {
		fprintf(stderr, "pyrt_pins_embed: out of memory\n");
		return -1;
	}
	memcpy(tmp, out, len);
	memcpy(tmp + len, ".tmp", sizeof ".tmp");
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		free(tmp);
		return -1;
	}
	put_table(f, pins, symbol);
	ok = !ferror(f);
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, out) != 0) {
		perror(ok ? out : tmp);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static int is_identifier(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_pins *pins = NULL;
	const char *symbol = argc > 3 ? argv[3] : "pyrt_pins_builtin_table";
	int rc;

	if (argc < 3 || argc > 4 || !is_identifier(symbol)) {
		fprintf(stderr, "usage: pyrt_pins_embed PINS.yaml OUT.c "
				"[SYMBOL]\n(SYMBOL: a C identifier)\n");
		return 2;
	}
	if (pyrt_pins_load_file(&pins, argv[1], &err) < 0) {
		/* "<file>:<line>: <what>", as compilers and editors read it. */
		fprintf(stderr, "%s\n", err.msg[0] ? err.msg : argv[1]);
		return 1;
	}
	/* The built-in table carries no wheel lock: a lock is distributed
	 * as a pins file (`pyrt lock`), and dropping it silently here would
	 * make a locked fleet's binary install unlocked wheels. */
	if (pyrt_pins_lock_count(pins) > 0) {
		fprintf(stderr, "%s: a wheels: lock cannot be compiled into "
			"pyrt; distribute it as a pins file (--pins) and "
			"remove it here\n", argv[1]);
		pyrt_pins_free(pins);
		return 1;
	}
	rc = write_table(argv[2], pins, symbol);
	pyrt_pins_free(pins);
	return rc < 0 ? 1 : 0;
}
