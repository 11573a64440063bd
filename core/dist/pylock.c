/*
 * pylock.toml (PEP 751) from the pins' wheel lock.  Packages are sorted by
 * name and version, wheels by file name, so the same lock always gives the
 * same bytes.  Strings are TOML basic strings with every byte that needs it
 * escaped: a path may hold a quote or a backslash.
 */
#include "core/dist/pylock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lock_row {
	const pyrt_pin_wheel *w;
	char name[256];
	char version[128];
} lock_row;

static int row_cmp(const void *a, const void *b)
{
	const lock_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->version, y->version);
	return c ? c : strcmp(x->w->file, y->w->file);
}

/* s as a TOML basic string ("..."), escaped, into f. */
static void toml_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Every locked wheel once, with its project and version; *n of them. */
static lock_row *lock_rows(const pyrt_pins *pins, size_t *n)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < pyrt_pins_lock_count(pins); i++) {
		size_t m = 0;
		pyrt_pins_lock_find(pins, pyrt_pins_lock_key_at(pins, i), &m);
		total += m;
	}
	lock_row *rows = calloc(total ? total : 1, sizeof *rows);
	if (!rows)
		return NULL;
	for (size_t i = 0; i < pyrt_pins_lock_count(pins); i++) {
		size_t m = 0;
		const pyrt_pin_wheel *w = pyrt_pins_lock_find(
			pins, pyrt_pins_lock_key_at(pins, i), &m);
		for (size_t j = 0; j < m; j++) {
			int seen = 0;
			for (size_t q = 0; q < k && !seen; q++)
				seen = strcmp(rows[q].w->file, w[j].file) == 0;
			if (seen || pyrt_pins_wheel_project(
					    w[j].file, rows[k].name,
					    sizeof rows[k].name,
					    rows[k].version,
					    sizeof rows[k].version) != 0)
				continue;
			rows[k++].w = &w[j];
		}
	}
	qsort(rows, k, sizeof *rows, row_cmp);
	*n = k;
	return rows;
}

static void write_doc(FILE *f, const lock_row *rows, size_t n,
		      const char *wheel_dir)
{
	fputs("# PEP 751 lock written by `pyrt lock` from the wheels of ", f);
	toml_str(f, wheel_dir);
	fputs(";\n# the same wheels as the pins' wheels: section.\n"
	      "lock-version = \"1.0\"\ncreated-by = \"pyrt\"\n", f);
	for (size_t i = 0; i < n; i++) {
		const lock_row *r = &rows[i];
		if (i == 0 || strcmp(r->name, rows[i - 1].name) != 0 ||
		    strcmp(r->version, rows[i - 1].version) != 0) {
			fputs("\n[[packages]]\nname = ", f);
			toml_str(f, r->name);
			fputs("\nversion = ", f);
			toml_str(f, r->version);
			fputc('\n', f);
		}
		fputs("\n[[packages.wheels]]\nname = ", f);
		toml_str(f, r->w->file);
		fputs("\npath = ", f);
		char *path = NULL;
		if (asprintf(&path, "%s/%s", wheel_dir, r->w->file) < 0)
			path = NULL;
		toml_str(f, path ? path : r->w->file);
		free(path);
		fprintf(f, "\nsize = %llu\nhashes = { sha256 = ",
			(unsigned long long)r->w->size);
		toml_str(f, r->w->sha256);
		fputs(" }\n", f);
	}
}

int pyrt_pylock_format(const pyrt_pins *pins, const char *wheel_dir,
		       char **out, size_t *len, pyrt_error *err)
{
	*out = NULL;
	*len = 0;
	size_t n = 0;
	lock_row *rows = lock_rows(pins, &n);
	if (!rows)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (n == 0) {
		free(rows);
		return pyrt_error_set(err, PYRT_E_USAGE, "the pins lock no "
				      "wheel: nothing to write to %s",
				      PYRT_PYLOCK_NAME);
	}
	FILE *f = open_memstream(out, len);
	if (!f) {
		free(rows);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	write_doc(f, rows, n, wheel_dir);
	free(rows);
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	return 0;
}
