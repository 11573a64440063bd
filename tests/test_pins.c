/* ctest: test_pins */
/* pins: the compiled-in table, custom files, and every refusal's message. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/dist/pins.h"
#include "core/dist/pins_table.h"
#include "core/util/trust.h"
#include "support.h"

/* Generated at build time from tests/fixtures/pins_table_*.yaml. */
extern const pyrt_pins_table pt_pins_table_full;
extern const pyrt_pins_table pt_pins_table_none;

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Lines 1-5 of every custom document. */
#define HEAD                                                                   \
	"schema: 1\n"                                                          \
	"runtime:\n"                                                           \
	"  implementation: cpython\n"                                          \
	"  version: \"3.12.14\"\n"                                             \
	"  build: \"20260814\"\n"
/* Lines 6-10. */
#define ARCHIVES                                                               \
	"archives:\n"                                                          \
	"  linux-x86_64-gnu:\n"                                                \
	"    url: https://example.invalid/a.tar.gz\n"                          \
	"    sha256: " HEX64 "\n"                                              \
	"    size: 1234\n"
/* Lines 11-12. */
#define BASELINE                                                               \
	"baseline:\n"                                                          \
	"  - python-docx\n"

/* Published digests (reference/pbs-cpython-3.12.14.tsv). */
static const struct {
	const char *key, *sha256, *triple;
} reference[] = {
	{ "darwin-aarch64-none",
	  "dd5b76ab11451a4a4367c17c61d944dded56b425396b07f102922a7ebef7d55f",
	  "aarch64-apple-darwin" },
	{ "darwin-x86_64-none",
	  "aec265e3cddaccdb2a3d783331596351b24d4a63c97af0a38f75f643c9451de9",
	  "x86_64-apple-darwin" },
	{ "linux-aarch64-gnu",
	  "2d8e17dfd732102cfeb18e0e1fa6769b24caa034e159981129590fe409c7157a",
	  "aarch64-unknown-linux-gnu" },
	{ "linux-aarch64-musl",
	  "4167705abc3e40767c7bd8f006ae5dbe677397391a2d9f7549e7759e3806180a",
	  "aarch64-unknown-linux-musl" },
	{ "linux-x86_64-gnu",
	  "5acfa3e9ba26b51ae161c83aff278da915b590d22373a424b2ba55b8afe91fcc",
	  "x86_64-unknown-linux-gnu" },
	{ "linux-x86_64-musl",
	  "25adbf9d865ada81c728ba9ee6cd042736b6b46dcd3a889198038da04eed9c4a",
	  "x86_64-unknown-linux-musl" },
	{ "windows-x86_64-none",
	  "89f18f6932917163b74339ebcec2645c8e47ae7f1c5f2ac37f2b4f4cf3beb647",
	  "x86_64-pc-windows-msvc" },
};
#define N_REFERENCE (sizeof reference / sizeof reference[0])

static char *tmp;

static void setup(void)
{
	tmp = pt_tmpdir("pins");
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
}

TestSuite(pins, .init = setup, .fini = teardown);

/* Write text to <tmp>/<name>; malloc'd path. */
static char *write_case(const char *name, const char *text)
{
	char *path = pt_join(tmp, name);
	pt_write(path, text);
	return path;
}

static pyrt_pins *load_ok(const char *text)
{
	char *path = write_case("ok.yaml", text);
	pyrt_pins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_load_file(&p, path, &err), 0, "%s", err.msg);
	cr_assert_not_null(p);
	cr_assert_str_eq(pyrt_pins_source(p), path);
	free(path);
	return p;
}

/*
 * A refused document: PYRT_E_PINS, nothing returned, and the message is
 * "<path>:<line>: ..." naming what was expected.
 */
static void expect_refused(const char *name, const char *text, int line,
			   const char *expectation)
{
	char *path = write_case(name, text);
	pyrt_pins *p = (pyrt_pins *)&p;
	pyrt_error err = PYRT_ERROR_INIT;
	char prefix[4200];

	cr_assert_eq(pyrt_pins_load_file(&p, path, &err), PYRT_E_PINS,
		     "%s: accepted (msg '%s')", name, err.msg);
	cr_assert_null(p, "%s: out not cleared", name);
	cr_assert_eq(err.code, PYRT_E_PINS);
	snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
	cr_assert_eq(strncmp(err.msg, prefix, strlen(prefix)), 0,
		     "%s: want prefix '%s', got '%s'", name, prefix, err.msg);
	cr_assert_not_null(strstr(err.msg, expectation),
			   "%s: want '%s' in '%s'", name, expectation,
			   err.msg);
	cr_assert_null(strchr(err.msg, '\n'));
	free(path);
}

static void check_reference(const pyrt_pins *p)
{
	cr_assert_eq(pyrt_pins_archive_count(p), N_REFERENCE);
	for (size_t i = 0; i < N_REFERENCE; i++) {
		const pyrt_pin_archive *a = pyrt_pins_find(p, reference[i].key);
		cr_assert_not_null(a, "%s not pinned", reference[i].key);
		cr_assert_str_eq(a->key, reference[i].key);
		cr_assert_str_eq(a->sha256, reference[i].sha256, "%s",
				 reference[i].key);
		const char *release = "https://github.com/astral-sh/"
				      "python-build-standalone/releases/"
				      "download/20260814/";
		cr_assert_eq(strncmp(a->url, release, strlen(release)), 0,
			     "%s", a->url);
		cr_assert_not_null(strstr(a->url, reference[i].triple),
				   "%s: %s", reference[i].key, a->url);
		cr_assert_not_null(strstr(a->url, "cpython-3.12.14%2B20260814-"),
				   "%s", a->url);
	}
}

Test(pins, builtin_table)
{
	pyrt_pins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	static const char *baseline[] = { "python-docx", "openpyxl",
					  "python-pptx", "reportlab", "pillow" };

	cr_assert_eq(pyrt_pins_load_builtin(&p, &err), 0, "%s", err.msg);
	cr_assert_str_eq(pyrt_pins_source(p), "builtin");
	cr_assert_str_eq(pyrt_pins_implementation(p), "cpython");
	cr_assert_str_eq(pyrt_pins_version(p), "3.12.14");
	cr_assert_str_eq(pyrt_pins_build(p), "20260814");
	check_reference(p);
	cr_assert_str_eq(pyrt_pins_find(p, "linux-x86_64-gnu")->sha256,
			 "5acfa3e9ba26b51ae161c83aff278da915b590d22373a424b2ba55b8afe91fcc");
	cr_assert_str_eq(pyrt_pins_find(p, "darwin-aarch64-none")->sha256,
			 "dd5b76ab11451a4a4367c17c61d944dded56b425396b07f102922a7ebef7d55f");
	cr_assert_null(pyrt_pins_find(p, "linux-riscv64-gnu"));
	cr_assert_eq(pyrt_pins_baseline_count(p), 5);
	for (size_t i = 0; i < 5; i++)
		cr_assert_str_eq(pyrt_pins_baseline_at(p, i), baseline[i]);
	cr_assert_null(pyrt_pins_baseline_at(p, 5));
	cr_assert_str_eq(pyrt_pins_layout_interpreter(p), "python/bin/python3");
	pyrt_pins_free(p);
}

static void expect_str_or_null(const char *want, const char *got,
			       const char *what)
{
	if (!want) {
		cr_assert_null(got, "%s: want NULL, got '%s'", what, got);
		return;
	}
	cr_assert_not_null(got, "%s: want '%s', got NULL", what, want);
	cr_assert_str_eq(got, want, "%s", what);
}

/* Two tables hold the same pins, field by field (not the source). */
static void expect_same(const pyrt_pins *want, const pyrt_pins *got)
{
	size_t n = pyrt_pins_archive_count(want);

	expect_str_or_null(pyrt_pins_implementation(want),
			   pyrt_pins_implementation(got), "implementation");
	expect_str_or_null(pyrt_pins_version(want), pyrt_pins_version(got),
			   "version");
	expect_str_or_null(pyrt_pins_build(want), pyrt_pins_build(got),
			   "build");
	expect_str_or_null(pyrt_pins_layout_interpreter(want),
			   pyrt_pins_layout_interpreter(got), "interpreter");
	cr_assert_eq(pyrt_pins_archive_count(got), n);
	for (size_t i = 0; i < n; i++) {
		const pyrt_pin_archive *a = pyrt_pins_archive_at(want, i);
		const pyrt_pin_archive *b = pyrt_pins_archive_at(got, i);
		cr_assert_not_null(b, "archive %zu", i);
		expect_str_or_null(a->key, b->key, "key");
		expect_str_or_null(a->url, b->url, a->key);
		expect_str_or_null(a->sha256, b->sha256, a->key);
		cr_assert_eq(a->size, b->size, "%s size", a->key);
		cr_assert_eq(a->unpacked_size, b->unpacked_size,
			     "%s unpacked_size", a->key);
		cr_assert_eq(a->entries, b->entries, "%s entries", a->key);
	}
	cr_assert_null(pyrt_pins_archive_at(got, n));
	n = pyrt_pins_baseline_count(want);
	cr_assert_eq(pyrt_pins_baseline_count(got), n);
	for (size_t i = 0; i < n; i++)
		expect_str_or_null(pyrt_pins_baseline_at(want, i),
				   pyrt_pins_baseline_at(got, i), "baseline");
	cr_assert_null(pyrt_pins_baseline_at(got, n));
}

/* Load a file of the source tree, relative path; the caller frees it. */
static pyrt_pins *load_source_file(const char *rel)
{
	char *path = pt_join(pt_source_dir(), rel);
	pyrt_pins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_pins_load_file(&p, path, &err), 0, "%s", err.msg);
	cr_assert_str_eq(pyrt_pins_source(p), path);
	free(path);
	return p;
}

/*
 * The compiled-in table is the repository's pins.yaml, parsed at build time
 * (tools/pins_embed.c) into exactly what parsing it at run time gives.
 */
Test(pins, builtin_is_the_source_file)
{
	pyrt_pins *file = load_source_file("pins.yaml"), *builtin = NULL;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_pins_load_builtin(&builtin, &err), 0, "%s", err.msg);
	cr_assert_str_eq(pyrt_pins_source(builtin), "builtin");
	check_reference(file);
	expect_same(file, builtin);
	pyrt_pins_free(file);
	pyrt_pins_free(builtin);
}

/*
 * pins.yaml leaves the sizes 0 and the layout default, and has no byte
 * that needs escaping: a fixture with every field set and such bytes goes
 * through the same generator, so a dropped or mangled field shows.
 */
Test(pins, generated_table_keeps_every_field)
{
	pyrt_pins *file = load_source_file("tests/fixtures/pins_table_full.yaml");
	pyrt_pins *table = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	const pyrt_pin_archive *a = pyrt_pins_archive_at(file, 0);

	/* The fixture is what this test needs: nothing 0, nothing default. */
	cr_assert_eq(pyrt_pins_archive_count(file), 2);
	cr_assert_eq(a->size, UINT64_MAX);
	cr_assert_eq(a->unpacked_size, 4294967297u);
	cr_assert_eq(a->entries, 999999);
	cr_assert_not_null(strstr(a->url, "a\"b\\c?\?=d?\xc3\xa9" "7f"),
			   "%s", a->url);
	cr_assert_str_eq(pyrt_pins_layout_interpreter(file),
			 "py\"th\\on/bin/p?\?=y?\xc3\xa9" "7");
	cr_assert_eq(pyrt_pins_baseline_count(file), 3);

	cr_assert_eq(pyrt_pins_from_table(&table, &pt_pins_table_full, "table",
					  &err), 0, "%s", err.msg);
	cr_assert_str_eq(pyrt_pins_source(table), "table");
	expect_same(file, table);
	pyrt_pins_free(file);
	pyrt_pins_free(table);
}

/* No baseline and `layout: none`: NULL in the table, the same handle. */
Test(pins, generated_table_empty_and_absent)
{
	pyrt_pins *file = load_source_file("tests/fixtures/pins_table_none.yaml");
	pyrt_pins *table = NULL;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_null(pyrt_pins_layout_interpreter(file));
	cr_assert_eq(pyrt_pins_baseline_count(file), 0);
	cr_assert_eq(pyrt_pins_from_table(&table, &pt_pins_table_none, NULL,
					  &err), 0, "%s", err.msg);
	expect_same(file, table);
	pyrt_pins_free(file);
	pyrt_pins_free(table);
	cr_assert_eq(pyrt_pins_from_table(NULL, &pt_pins_table_none, NULL,
					  &err), PYRT_E_INTERNAL);
}

/*
 * An invalid pins.yaml fails the build: the generator exits 1 with the
 * message pyrt gives for the same file at run time, and leaves no output
 * that make could take as up to date.
 */
Test(pins, generator_refuses_invalid_pins)
{
	char *bad = write_case("bad.yaml", HEAD ARCHIVES "baseline: 7\n");
	char *out = pt_join(tmp, "out.c"), *errf = pt_join(tmp, "err");
	char *tool = pt_join(pt_binary_dir(), "pyrt_pins_embed");
	pyrt_pins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	char *said, want[PYRT_ERROR_MSG_MAX + 1];

	cr_assert_eq(pyrt_pins_load_file(&p, bad, &err), PYRT_E_PINS);
	cr_assert_eq(strncmp(err.msg, bad, strlen(bad)), 0, "%s", err.msg);
	cr_assert_eq(strncmp(err.msg + strlen(bad), ":11: ", 5), 0, "%s",
		     err.msg);
	cr_assert_eq(pt_sh("'%s' '%s' '%s' 2>'%s'", tool, bad, out, errf), 1);
	said = pt_read(errf);
	snprintf(want, sizeof want, "%s\n", err.msg);
	cr_assert_str_eq(said, want);
	cr_assert_null(pt_read(out), "a refused table was written");
	free(said);
	/* The same file, valid, is written; a bad symbol is a usage error. */
	pt_write(bad, HEAD ARCHIVES BASELINE);
	cr_assert_eq(pt_sh("'%s' '%s' '%s' 2>'%s'", tool, bad, out, errf), 0);
	said = pt_read(out);
	cr_assert_not_null(strstr(said, "const pyrt_pins_table "
					"pyrt_pins_builtin_table = {"));
	free(said);
	cr_assert_eq(pt_sh("'%s' '%s' '%s' 'a-b' 2>/dev/null", tool, bad, out),
		     2);
	free(bad);
	free(out);
	free(errf);
	free(tool);
}

Test(pins, custom_file)
{
	pyrt_pins *p = load_ok(
		HEAD ARCHIVES
		"  darwin-aarch64-none:\n"
		"    url: http://127.0.0.1:8443/b.tar.gz\n"
		"    sha256: " HEX64 "\n"
		"baseline:\n"
		"  - python-docx>=1.1\n"
		"  - \"pillow\"\n");
	cr_assert_eq(pyrt_pins_archive_count(p), 2);
	const pyrt_pin_archive *a = pyrt_pins_find(p, "linux-x86_64-gnu");
	cr_assert_not_null(a);
	cr_assert_str_eq(a->url, "https://example.invalid/a.tar.gz");
	cr_assert_str_eq(a->sha256, HEX64);
	cr_assert_eq(a->size, 1234);
	a = pyrt_pins_find(p, "darwin-aarch64-none");
	cr_assert_not_null(a);
	cr_assert_str_eq(a->url, "http://127.0.0.1:8443/b.tar.gz");
	cr_assert_eq(a->size, 0, "size absent reads as 0");
	cr_assert_str_eq(pyrt_pins_archive_at(p, 1)->key, "darwin-aarch64-none");
	cr_assert_null(pyrt_pins_find(p, "linux-aarch64-gnu"));
	cr_assert_eq(pyrt_pins_baseline_count(p), 2);
	cr_assert_str_eq(pyrt_pins_baseline_at(p, 0), "python-docx>=1.1");
	cr_assert_str_eq(pyrt_pins_baseline_at(p, 1), "pillow");
	cr_assert_str_eq(pyrt_pins_layout_interpreter(p), "python/bin/python3");
	pyrt_pins_free(p);
	pyrt_pins_free(NULL);
}

Test(pins, empty_baseline_and_flow_style)
{
	pyrt_pins *p = load_ok(HEAD ARCHIVES "baseline: []\n");
	cr_assert_eq(pyrt_pins_baseline_count(p), 0);
	cr_assert_eq(pyrt_pins_archive_count(p), 1);
	pyrt_pins_free(p);

	p = load_ok("schema: 1\n"
		    "runtime: {implementation: cpython, version: '3.13.1', "
		    "build: '1'}\n"
		    "archives: {linux-aarch64-musl: {url: 'https://h/x', "
		    "sha256: " HEX64 ", size: 7}}\n"
		    "baseline: [a, b]\n");
	cr_assert_str_eq(pyrt_pins_version(p), "3.13.1");
	cr_assert_eq(pyrt_pins_find(p, "linux-aarch64-musl")->size, 7);
	cr_assert_eq(pyrt_pins_baseline_count(p), 2);
	pyrt_pins_free(p);
}

Test(pins, parse_from_memory_names_source)
{
	const char doc[] = HEAD ARCHIVES BASELINE;
	pyrt_pins *p = NULL;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_pins_parse(&p, doc, sizeof doc - 1, "mem", &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(pyrt_pins_source(p), "mem");
	pyrt_pins_free(p);
	/* the length is honoured: cut after line 5, archives are missing */
	cr_assert_eq(pyrt_pins_parse(&p, doc, strlen(HEAD), "mem", &err),
		     PYRT_E_PINS);
	cr_assert_null(p);
	cr_assert_eq(strncmp(err.msg, "mem:1: ", 7), 0, "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "\"archives\""), "%s", err.msg);
}

Test(pins, refuses_bad_yaml_syntax)
{
	/* unterminated quote on line 4: libyaml notices at line 5 */
	expect_refused("quote.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  version: \"3.12.14\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       5, "invalid YAML: did not find expected key");
	expect_refused("flow.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: [cpython\n"
		       "  version: \"3.12.14\"\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       4, "invalid YAML: did not find expected ',' or ']'");
	expect_refused("colon.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  version: 3.12: 14\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       4, "invalid YAML: mapping values are not allowed");
	expect_refused("tab.yaml", HEAD ARCHIVES "baseline:\n\t- pillow\n",
		       12, "invalid YAML: found character that cannot start "
		       "any token");
}

Test(pins, refuses_missing_keys)
{
	/* the runtime mapping starts on line 3 */
	expect_refused("noversion.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       3, "runtime: expected a key \"version\"");
	expect_refused("nobaseline.yaml", HEAD ARCHIVES, 1,
		       "expected a key \"baseline\"");
	expect_refused("noschema.yaml",
		       "\n# comment\nruntime: {}\n" ARCHIVES BASELINE, 3,
		       "expected a key \"schema\"");
	expect_refused("nosha.yaml",
		       HEAD
		       "archives:\n"
		       "  linux-x86_64-gnu:\n"
		       "    url: https://example.invalid/a.tar.gz\n" BASELINE,
		       8, "archives.linux-x86_64-gnu: expected a key \"sha256\"");
	expect_refused("empty.yaml", "", 1, "expected a mapping with schema");
	expect_refused("list.yaml", "- schema\n", 1,
		       "expected a mapping with schema");
}

/* Release pages print digests in either case: accepted, kept lowercase. */
Test(pins, accepts_an_uppercase_digest_as_lowercase)
{
	pyrt_pins *p = load_ok(HEAD
			       "archives:\n"
			       "  linux-x86_64-gnu:\n"
			       "    url: https://example.invalid/a.tar.gz\n"
			       "    sha256: 0123456789ABCDEF0123456789abcdef"
			       "0123456789abcdef0123456789ABCDEF\n" BASELINE);
	const pyrt_pin_archive *a = pyrt_pins_find(p, "linux-x86_64-gnu");
	cr_assert_not_null(a);
	cr_assert_str_eq(a->sha256, "0123456789abcdef0123456789abcdef"
			 "0123456789abcdef0123456789abcdef");
	pyrt_pins_free(p);
}

Test(pins, refuses_bad_digest)
{
	expect_refused("short.yaml",
		       HEAD
		       "archives:\n"
		       "  linux-x86_64-gnu:\n"
		       "    url: https://example.invalid/a.tar.gz\n"
		       "    sha256: 0123456789abcdef0123456789abcdef"
		       "0123456789abcdef0123456789abcde\n" BASELINE,
		       9, "expected 64 hex digits");
	expect_refused("long.yaml",
		       HEAD
		       "archives:\n"
		       "  linux-x86_64-gnu:\n"
		       "    sha256: " HEX64 "0\n"
		       "    url: https://example.invalid/a.tar.gz\n" BASELINE,
		       8, "expected 64 hex digits");
	expect_refused("nothex.yaml",
		       HEAD
		       "archives:\n"
		       "  linux-x86_64-gnu:\n"
		       "    url: https://example.invalid/a.tar.gz\n"
		       "    sha256: g123456789abcdef0123456789abcdef"
		       "0123456789abcdef0123456789abcdef\n" BASELINE,
		       9, "expected 64 hex digits");
}

Test(pins, refuses_unknown_schema)
{
	expect_refused("schema2.yaml", "schema: 2\n" "runtime: {}\n", 1,
		       "unknown schema 2, this pyrt reads schema 1");
	/* a newer schema's unknown keys do not hide the schema message */
	expect_refused("schema3.yaml",
		       "# v3\n\nfancy: yes\nschema: 3\n" ARCHIVES, 4,
		       "unknown schema 3, this pyrt reads schema 1");
	expect_refused("schema0.yaml", "schema: 0\n", 1,
		       "unknown schema 0, this pyrt reads schema 1");
	expect_refused("schemaword.yaml", "schema: one\n", 1,
		       "schema: expected the integer 1");
}

Test(pins, refuses_bad_platform_keys)
{
	static const char *bad[] = {
		"Linux-x86_64-gnu", "linux-x86_64-glibc", "linux-x86-64-gnu",
		"linux_x86_64-gnu", "linux-x86_64", "-x86_64-gnu",
		"linux--gnu", "linux-x86_64-gnu-", "linux-x86_64-gnu x",
	};
	char text[1024], name[32];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text,
			 HEAD
			 "archives:\n"
			 "  \"%s\":\n"
			 "    url: https://example.invalid/a.tar.gz\n"
			 "    sha256: " HEX64 "\n" BASELINE,
			 bad[i]);
		snprintf(name, sizeof name, "key%zu.yaml", i);
		expect_refused(name, text, 7,
			       "archives: expected a key <os>-<arch>-<libc>");
	}
	expect_refused("dupkey.yaml",
		       HEAD ARCHIVES
		       "  linux-x86_64-gnu:\n"
		       "    url: https://example.invalid/b.tar.gz\n"
		       "    sha256: " HEX64 "\n" BASELINE,
		       11, "duplicate key \"linux-x86_64-gnu\"");
}

Test(pins, refuses_unknown_keys)
{
	expect_refused("runtime.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  verison: \"3.12.14\"\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       4, "runtime: unknown key \"verison\", expected one of: "
		       "implementation, version, build");
	expect_refused("archive.yaml",
		       HEAD
		       "archives:\n"
		       "  linux-x86_64-gnu:\n"
		       "    url: https://example.invalid/a.tar.gz\n"
		       "    sha265: " HEX64 "\n" BASELINE,
		       9, "archives.linux-x86_64-gnu: unknown key \"sha265\"");
	expect_refused("top.yaml", HEAD ARCHIVES BASELINE "baselines: []\n",
		       13, "top level: unknown key \"baselines\"");
	expect_refused("dup.yaml",
		       HEAD ARCHIVES "    url: https://example.invalid/c\n"
		       BASELINE,
		       11, "duplicate key \"url\"");
}

Test(pins, refuses_bad_size)
{
	static const char *bad[] = { "-5", "abc", "0", "1.5", "\"1234\"",
				     "99999999999999999999", "[]" };
	char text[1024], name[32];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text,
			 HEAD
			 "archives:\n"
			 "  linux-x86_64-gnu:\n"
			 "    url: https://example.invalid/a.tar.gz\n"
			 "    sha256: " HEX64 "\n"
			 "    size: %s\n" BASELINE,
			 bad[i]);
		snprintf(name, sizeof name, "size%zu.yaml", i);
		expect_refused(name, text, 10,
			       "archives.linux-x86_64-gnu.size: expected a "
			       "positive integer");
	}
}

Test(pins, unpacked_size_and_entries)
{
	/* Optional per archive: what the tree unpacks to, for the
	 * extraction caps; absent reads as 0. */
	pyrt_pins *p = load_ok(
		HEAD ARCHIVES
		"    unpacked_size: 104857600\n"
		"    entries: 10000\n"
		"  darwin-aarch64-none:\n"
		"    url: http://127.0.0.1:8443/b.tar.gz\n"
		"    sha256: " HEX64 "\n" BASELINE);
	const pyrt_pin_archive *a = pyrt_pins_find(p, "linux-x86_64-gnu");
	cr_assert_eq(a->unpacked_size, 104857600);
	cr_assert_eq(a->entries, 10000);
	a = pyrt_pins_find(p, "darwin-aarch64-none");
	cr_assert_eq(a->unpacked_size, 0);
	cr_assert_eq(a->entries, 0);
	pyrt_pins_free(p);
}

Test(pins, refuses_bad_unpacked_size_and_entries)
{
	static const char *bad[] = { "-5", "abc", "0", "1.5", "\"1234\"",
				     "99999999999999999999", "[]", "1 GiB" };
	static const char *const keys[] = { "unpacked_size", "entries" };
	char text[1024], name[48], want[128];

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			snprintf(text, sizeof text, HEAD ARCHIVES "    %s: %s\n"
				 BASELINE, keys[k], bad[i]);
			snprintf(name, sizeof name, "%s%zu.yaml", keys[k], i);
			snprintf(want, sizeof want, "archives.linux-x86_64-gnu."
				 "%s: expected a positive integer", keys[k]);
			expect_refused(name, text, 11, want);
		}
}

Test(pins, refuses_bad_url)
{
	static const char *bad[] = { "example.invalid/a.tar.gz",
				     "ftp://example.invalid/a.tar.gz",
				     "file:///tmp/a.tar.gz", "https://",
				     "HTTPS://example.invalid/a" };
	char text[1024], name[32];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text,
			 HEAD
			 "archives:\n"
			 "  linux-x86_64-gnu:\n"
			 "    url: %s\n"
			 "    sha256: " HEX64 "\n" BASELINE,
			 bad[i]);
		snprintf(name, sizeof name, "url%zu.yaml", i);
		expect_refused(name, text, 8,
			       "archives.linux-x86_64-gnu.url: expected a URL "
			       "starting with https:// or http://");
	}
}

Test(pins, refuses_bad_shapes)
{
	expect_refused("version-null.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  version:\n"
		       "  build: \"20260814\"\n" ARCHIVES BASELINE,
		       4, "runtime.version: expected a non-empty string");
	expect_refused("build-list.yaml",
		       "schema: 1\n"
		       "runtime:\n"
		       "  implementation: cpython\n"
		       "  version: \"3.12.14\"\n"
		       "  build: [1]\n" ARCHIVES BASELINE,
		       5, "runtime.build: expected a non-empty string");
	expect_refused("baseline-null.yaml", HEAD ARCHIVES "baseline:\n", 11,
		       "baseline: expected a list");
	expect_refused("baseline-item.yaml",
		       HEAD ARCHIVES "baseline:\n  - pillow\n  - {a: b}\n", 13,
		       "baseline[1]: expected a non-empty string");
	expect_refused("archives-list.yaml",
		       HEAD "archives:\n  - linux-x86_64-gnu\n" BASELINE, 7,
		       "archives: expected a mapping");
	expect_refused("two-docs.yaml",
		       HEAD ARCHIVES BASELINE "---\nschema: 1\n", 14,
		       "expected a single YAML document");
}

/* "[" * depth + "]" * depth: the nesting that made libyaml crawl. */
static char *nested_flow(const char *prefix, size_t depth, const char *open,
			 const char *close, const char *suffix)
{
	size_t lo = strlen(open), lc = strlen(close);
	size_t n = strlen(prefix) + depth * (lo + lc) + strlen(suffix) + 1;
	char *s = malloc(n), *o = s;
	cr_assert_not_null(s);
	o = stpcpy(o, prefix);
	for (size_t i = 0; i < depth; i++)
		o = stpcpy(o, open);
	for (size_t i = 0; i < depth; i++)
		o = stpcpy(o, close);
	stpcpy(o, suffix);
	return s;
}

Test(pins, refuses_deep_nesting_at_its_line)
{
	/* 10,000 deep: refused at the first level past the cap, on the line
	 * the nesting starts, naming the rule (before, libyaml spent time
	 * quadratic in the depth and the walk then complained of a list). */
	char *seq = nested_flow(HEAD ARCHIVES "baseline: ", 10000, "[", "]",
				"\n");
	expect_refused("deep-seq.yaml", seq, 11,
		       "nesting deeper than 32 levels: pyrt reads YAML nested "
		       "at most 32 deep");
	char *map = nested_flow(HEAD ARCHIVES BASELINE "layout: ", 10000,
				"{a: ", "}", "\n");
	expect_refused("deep-map.yaml", map, 13,
		       "nesting deeper than 32 levels");
	free(seq);
	free(map);
	/* 32 levels is allowed, and then judged by the schema as usual. */
	char *at_cap = nested_flow(HEAD ARCHIVES "baseline: ", 31, "[", "]",
				   "\n");
	expect_refused("at-cap.yaml", at_cap, 11,
		       "baseline[0]: expected a non-empty string");
	free(at_cap);
}

Test(pins, refuses_aliases)
{
	/* An alias that would even pass the schema is refused. */
	expect_refused("alias.yaml",
		       HEAD ARCHIVES "baseline:\n  - &p python-docx\n"
		       "  - *p\n", 13,
		       "alias *p: pyrt reads YAML without aliases");
	/* The billion laughs: nine aliases a level, nine levels. */
	expect_refused("lol.yaml",
		       HEAD ARCHIVES BASELINE
		       "layout: {interpreter: &a [l, l, l, l, l, l, l, l, l]}\n"
		       "x1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		       "x2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		       "x3: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n", 14,
		       "alias *a: pyrt reads YAML without aliases");
}

Test(pins, missing_and_unreadable_files)
{
	char *path = pt_join(tmp, "absent.yaml");
	pyrt_pins *p = (pyrt_pins *)&p;
	pyrt_error err = PYRT_ERROR_INIT;
	char want[4200];

	cr_assert_eq(pyrt_pins_load_file(&p, path, &err), PYRT_E_PINS);
	cr_assert_null(p);
	snprintf(want, sizeof want, "%s: cannot read: No such file or directory",
		 path);
	cr_assert_str_eq(err.msg, want);
	free(path);

	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_pins_load_file(&p, tmp, &err), PYRT_E_PINS);
	snprintf(want, sizeof want, "%s: cannot read: Is a directory", tmp);
	cr_assert_str_eq(err.msg, want);

	/* more than 1 MiB: refused before parsing */
	path = pt_join(tmp, "big.yaml");
	cr_assert_eq(pt_sh("{ printf 'schema: 1\\n'; head -c 1048576 /dev/zero "
			   "| tr '\\0' '#'; } > '%s'", path), 0);
	pyrt_error_clear(&err);
	cr_assert_eq(pyrt_pins_load_file(&p, path, &err), PYRT_E_PINS);
	cr_assert_not_null(strstr(err.msg, path), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "larger than 1 MiB"), "%s", err.msg);
	free(path);
}

Test(pins, layout)
{
	pyrt_pins *p = load_ok(HEAD ARCHIVES BASELINE "layout: none\n");
	cr_assert_null(pyrt_pins_layout_interpreter(p));
	pyrt_pins_free(p);

	p = load_ok(HEAD ARCHIVES BASELINE
		    "layout:\n  interpreter: python/install/bin/python3.12\n");
	cr_assert_str_eq(pyrt_pins_layout_interpreter(p),
			 "python/install/bin/python3.12");
	pyrt_pins_free(p);

	p = load_ok(HEAD ARCHIVES BASELINE);
	cr_assert_str_eq(pyrt_pins_layout_interpreter(p), "python/bin/python3");
	pyrt_pins_free(p);

	expect_refused("layout-word.yaml", HEAD ARCHIVES BASELINE "layout: yes\n",
		       13, "layout: expected none or a mapping");
	expect_refused("layout-empty.yaml", HEAD ARCHIVES BASELINE "layout: {}\n",
		       13, "layout: expected a key \"interpreter\"");
	expect_refused("layout-key.yaml",
		       HEAD ARCHIVES BASELINE "layout:\n  interp: bin/python\n",
		       14, "layout: unknown key \"interp\"");
	expect_refused("layout-abs.yaml",
		       HEAD ARCHIVES BASELINE
		       "layout:\n  interpreter: /usr/bin/python3\n",
		       14, "layout.interpreter: expected a relative path");
	expect_refused("layout-up.yaml",
		       HEAD ARCHIVES BASELINE
		       "layout:\n  interpreter: python/../../bin/sh\n",
		       14, "layout.interpreter: expected a relative path");
}

/*
 * Baseline entries reach pip's command line: each must be a PEP 508
 * requirement, and a refusal names the file, the line, the entry and the
 * rule it breaks.
 */
Test(pins, refuses_baseline_entries_that_are_not_requirements)
{
	static const struct {
		const char *entry, *why;
	} bad[] = {
		{ "\"--log=/tmp/x\"", "pip option" },
		{ "\"-r /etc/shadow\"", "pip option" },
		{ "\"pillow @ file:///tmp/x.whl\"", "direct reference" },
		{ "https://host/x.whl", "URL" },
		{ "git+https://host/x.git", "URL" },
		{ "./x", "path" },
		{ "/abs/x.whl", "path" },
		{ "x.whl", "file name" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[1024], name[32];
		snprintf(text, sizeof text, HEAD ARCHIVES "baseline:\n"
			 "  - python-docx\n  - %s\n", bad[i].entry);
		snprintf(name, sizeof name, "bad-entry-%zu.yaml", i);
		expect_refused(name, text, 13, bad[i].why);
		char *path = pt_join(tmp, name);
		pyrt_pins *p = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		pyrt_pins_load_file(&p, path, &err);
		cr_assert(strstr(err.msg, "baseline[1]"), "%s", err.msg);
		cr_assert(strstr(err.msg, "PEP 508"), "%s", err.msg);
		free(path);
	}
	pyrt_pins *p = load_ok(HEAD ARCHIVES "baseline:\n"
			       "  - Pillow[extra1,extra2]>=9,<11\n"
			       "  - 'foo ; python_version>\"3.8\"'\n");
	cr_assert_eq(pyrt_pins_baseline_count(p), 2);
	pyrt_pins_free(p);
}

/*
 * Fields that become the install id (a directory name) and marker fields:
 * bounded and of a known alphabet, refused at their line.  A 40-byte build
 * was cut to 31 in the marker (every install then reinstalled), a 300-byte
 * one cut the install id short so two installs collided.
 */
Test(pins, refuses_runtime_fields_too_long_or_with_odd_characters)
{
	static const struct {
		const char *impl, *version, *build;
		int line;
		const char *want;
	} bad[] = {
		{ "cpython", "3.12.14", "0123456789012345678901234567890123456789",
		  5, "runtime.build: expected a build like 20260814" },
		{ "cpython", "3.12.14", "a/b", 5, "runtime.build: expected" },
		{ "cpython", "3.12.14", "..", 5, "runtime.build: expected" },
		{ "cpython", "3.12.14", "a b", 5, "runtime.build: expected" },
		{ "cpython", "3.12.14", "fixture\\u009d", 5,
		  "runtime.build: expected" },
		{ "cpython", "3.12 14", "1", 4, "runtime.version: expected" },
		{ "cpython", "v3.12", "1", 4, "runtime.version: expected" },
		{ "cpython", "3.1234567890123456789012345678901", "1", 4,
		  "runtime.version: expected" },
		{ "CPython", "3.12.14", "1", 3,
		  "runtime.implementation: expected" },
		{ "cpython-with-a-long-name", "3.12.14", "1", 3,
		  "runtime.implementation: expected" },
	};
	char text[2048], name[32];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text,
			 "schema: 1\nruntime:\n  implementation: \"%s\"\n"
			 "  version: \"%s\"\n  build: \"%s\"\n" ARCHIVES BASELINE,
			 bad[i].impl, bad[i].version, bad[i].build);
		snprintf(name, sizeof name, "runtime%zu.yaml", i);
		expect_refused(name, text, bad[i].line, bad[i].want);
	}
	/* The longest allowed still loads, whole. */
	pyrt_pins *p = load_ok("schema: 1\nruntime:\n  implementation: cpython\n"
			       "  version: \"3.13.0rc1\"\n"
			       "  build: \"0123456789012345678901234567890\"\n"
			       ARCHIVES BASELINE);
	cr_assert_str_eq(pyrt_pins_build(p), "0123456789012345678901234567890");
	pyrt_pins_free(p);
}

Test(pins, refuses_archive_fields_too_long)
{
	char text[4096], url[1100];
	memset(url, 'a', sizeof url - 1);
	url[sizeof url - 1] = '\0';
	memcpy(url, "https://x/", 10);
	snprintf(text, sizeof text,
		 HEAD "archives:\n  linux-x86_64-gnu:\n    url: %s\n"
		 "    sha256: " HEX64 "\n" BASELINE, url);
	expect_refused("longurl.yaml", text, 8,
		       "archives.linux-x86_64-gnu.url: expected at most 1024 "
		       "bytes");
	expect_refused("longkey.yaml",
		       HEAD "archives:\n  linux-x86_64_and_a_very_long_arch_name_"
		       "indeed-gnu:\n    url: https://e.invalid/a\n"
		       "    sha256: " HEX64 "\n" BASELINE,
		       7, "at most 47 bytes");
	expect_refused("entries.yaml",
		       HEAD ARCHIVES "    entries: 1000001\n" BASELINE, 11,
		       "entries: expected a positive integer (members in the "
		       "archive) of at most 1000000");
	char interp[700];
	memset(interp, 'p', sizeof interp - 1);
	interp[sizeof interp - 1] = '\0';
	snprintf(text, sizeof text,
		 HEAD ARCHIVES BASELINE "layout:\n  interpreter: %s\n", interp);
	expect_refused("longinterp.yaml", text, 14,
		       "layout.interpreter: expected a relative path inside "
		       "the archive of at most 512 bytes");
}

Test(pins, field_check_rules)
{
	cr_assert_null(pyrt_pins_field_check(PYRT_PINS_BUILD, "20260814"));
	cr_assert_null(pyrt_pins_field_check(PYRT_PINS_BUILD, "fixture"));
	cr_assert_null(pyrt_pins_field_check(PYRT_PINS_VERSION, "3.12.14"));
	cr_assert_null(pyrt_pins_field_check(PYRT_PINS_IMPLEMENTATION,
					     "cpython"));
	cr_assert_null(pyrt_pins_field_check(PYRT_PINS_PLATFORM,
					     "linux-x86_64-gnu"));
	cr_assert_not_null(pyrt_pins_field_check(PYRT_PINS_BUILD, ""));
	cr_assert_not_null(pyrt_pins_field_check(PYRT_PINS_BUILD, "-x"));
	cr_assert_not_null(pyrt_pins_field_check(PYRT_PINS_PLATFORM, "linux"));
	cr_assert_not_null(pyrt_pins_field_check(PYRT_PINS_VERSION, NULL));
}

/* Lines 13-16: a wheel lock of one wheel for linux-x86_64-gnu. */
#define WHEELS                                                                 \
	"wheels:\n"                                                            \
	"  linux-x86_64-gnu:\n"                                                \
	"    - {file: python_docx-0.8.11-py3-none-any.whl, sha256: " HEX64     \
	", size: 180139}\n"                                                    \
	"    - file: lxml-4.9.2-cp311-cp311-linux_x86_64.whl\n"                 \
	"      sha256: " HEX64 "\n"                                            \
	"      size: 7\n"

Test(pins, wheel_lock)
{
	pyrt_pins *p = load_ok(HEAD ARCHIVES BASELINE WHEELS);
	size_t n = 0;
	cr_assert_eq(pyrt_pins_lock_count(p), 1);
	cr_assert_str_eq(pyrt_pins_lock_key_at(p, 0), "linux-x86_64-gnu");
	const pyrt_pin_wheel *w = pyrt_pins_lock_find(p, "linux-x86_64-gnu", &n);
	cr_assert_not_null(w);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(w[0].file, "python_docx-0.8.11-py3-none-any.whl");
	cr_assert_str_eq(w[0].sha256, HEX64);
	cr_assert_eq(w[0].size, 180139);
	cr_assert_eq(w[1].size, 7);
	cr_assert_null(pyrt_pins_lock_find(p, "linux-aarch64-gnu", &n));
	cr_assert_eq(n, 0);
	/* written back, it parses to the same lock */
	char *text = NULL;
	size_t len = 0;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_pins_format(p, &text, &len, &err), 0, "%s", err.msg);
	pyrt_pins *q = NULL;
	cr_assert_eq(pyrt_pins_parse(&q, text, len, "back", &err), 0, "%s\n%s",
		     err.msg, text);
	w = pyrt_pins_lock_find(q, "linux-x86_64-gnu", &n);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(w[1].file, "lxml-4.9.2-cp311-cp311-linux_x86_64.whl");
	cr_assert_str_eq(pyrt_pins_find(q, "linux-x86_64-gnu")->sha256, HEX64);
	cr_assert_str_eq(pyrt_pins_baseline_at(q, 0), "python-docx");
	free(text);
	pyrt_pins_free(q);
	pyrt_pins_free(p);
	/* without a wheels: key, nothing is locked */
	p = load_ok(HEAD ARCHIVES BASELINE);
	cr_assert_eq(pyrt_pins_lock_count(p), 0);
	pyrt_pins_free(p);
}

/* Every refusal of the lock names the file and the line of what is wrong. */
Test(pins, refuses_bad_wheel_locks_at_their_line)
{
	expect_refused("wk.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  Linux-x86:\n    - {file: a-1-py3-none-any.whl, sha256: "
		       HEX64 ", size: 1}\n", 14, "wheels: expected a key <os>-<arch>-<libc>");
	expect_refused("wunpinned.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-aarch64-gnu:\n    - {file: a-1-py3-none-any.whl, sha256: "
		       HEX64 ", size: 1}\n", 14, "has no archive in archives");
	expect_refused("wempty.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu: []\n", 14,
		       "wheels.linux-x86_64-gnu: expected a non-empty list");
	expect_refused("wshape.yaml", HEAD ARCHIVES BASELINE "wheels: []\n", 13,
		       "wheels: expected a mapping");
	expect_refused("wfile.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: ../evil-1-py3-none-any.whl, sha256: " HEX64
		       ", size: 1}\n", 15,
		       "wheels.linux-x86_64-gnu[0].file: expected a wheel file name");
	expect_refused("wfile2.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: evil.tar.gz, sha256: " HEX64 ", size: 1}\n",
		       15, "expected a wheel file name");
	expect_refused("wsha.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - file: a-1-py3-none-any.whl\n"
		       "      sha256: abc\n      size: 1\n",
		       16, "wheels.linux-x86_64-gnu[0].sha256: expected 64 hex digits");
	expect_refused("wsize.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - file: a-1-py3-none-any.whl\n"
		       "      sha256: " HEX64 "\n      size: 0\n",
		       17, "wheels.linux-x86_64-gnu[0].size: expected a positive integer");
	expect_refused("wmissing.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - file: a-1-py3-none-any.whl\n"
		       "      sha256: " HEX64 "\n",
		       15, "expected a key \"size\"");
	expect_refused("wunknown.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64
		       ", size: 1, url: x}\n",
		       15, "unknown key \"url\"");
	expect_refused("wdup.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n",
		       16, "a-1-py3-none-any.whl is listed twice");
	expect_refused("wtwo.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n"
		       "    - {file: A-2-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n",
		       16, "are two versions of a");
	expect_refused("wdupkey.yaml", HEAD ARCHIVES BASELINE
		       "wheels:\n  linux-x86_64-gnu:\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n"
		       "  linux-x86_64-gnu:\n"
		       "    - {file: a-1-py3-none-any.whl, sha256: " HEX64 ", size: 1}\n",
		       16, "duplicate key \"linux-x86_64-gnu\"");
}

Test(pins, wheel_file_names)
{
	static const char *good[] = {
		"a-1-py3-none-any.whl", "python_docx-0.8.11-py3-none-any.whl",
		"x-1.0+local-1build-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
		"x-1!2.0-py2.py3-none-any.whl",
	};
	static const char *bad[] = {
		"", ".a-1-py3-none-any.whl", "a-1-py3-none.whl", "a/b-1-py3-none-any.whl",
		"a-1-py3-none-any.zip", "a--1-py3-none-any.whl", "a-1-py3-none-any-.whl",
		"a-1-py3-none-any-x-y.whl", "a b-1-py3-none-any.whl", "a-1-py3-none-an\ny.whl",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		cr_assert_null(pyrt_pins_wheel_file_check(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_not_null(pyrt_pins_wheel_file_check(bad[i]), "%s", bad[i]);
	char name[64], ver[64];
	cr_assert_eq(pyrt_pins_wheel_project("Python_Docx-0.8.11-py3-none-any.whl",
					     name, sizeof name, ver, sizeof ver), 0);
	cr_assert_str_eq(name, "python-docx");
	cr_assert_str_eq(ver, "0.8.11");
}

/* The built-in table carries no lock: the generator refuses one rather
 * than drop it silently. */
Test(pins, generator_refuses_a_wheel_lock)
{
	char *locked = write_case("locked.yaml", HEAD ARCHIVES BASELINE WHEELS);
	char *out = pt_join(tmp, "out.c"), *errf = pt_join(tmp, "err");
	char *tool = pt_join(pt_binary_dir(), "pyrt_pins_embed");
	cr_assert_eq(pt_sh("'%s' '%s' '%s' 2>'%s'", tool, locked, out, errf), 1);
	char *said = pt_read(errf);
	cr_assert_not_null(strstr(said, "a wheels: lock cannot be compiled"),
			   "%s", said);
	cr_assert_null(pt_read(out));
	free(said);
	free(locked);
	free(out);
	free(errf);
	free(tool);
}

/*
 * The loader's trust walk judges the front end's record of the same path
 * (app_request.pins_seen) rather than lstat()ing each folder again: a
 * folder seen as 0777 in the record is refused; no record, or one of
 * another path, and the walk asks the file system.
 */
Test(pins, the_walk_judges_the_record_it_is_given)
{
	char *path = write_case("seen.yaml", HEAD ARCHIVES "baseline: []\n");
	char real[PATH_MAX];
	cr_assert_not_null(realpath(path, real));
	pyrt_fs_seen *seen = malloc(sizeof *seen);
	cr_assert_not_null(seen);
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_trust_path_seen("--pins", real, PYRT_TRUST_MISSING_OK |
					  PYRT_TRUST_LINKS_ONLY, NULL, 0, seen,
					  &err), 0, "%s", err.msg);
	pyrt_pins *p = NULL;
	cr_assert_eq(pyrt_pins_load_file_seen(&p, real, seen, &err), 0, "%s",
		     err.msg);
	pyrt_pins_free(p);
	p = NULL;
	cr_assert_geq(seen->depth, 2);
	seen->st[seen->depth - 1].st_mode = S_IFDIR | 0777;
	cr_assert_eq(pyrt_pins_load_file_seen(&p, real, seen, &err),
		     PYRT_E_UNTRUSTED);
	cr_assert_null(p);
	cr_assert(strstr(err.msg, "refusing pins file"), "%s", err.msg);
	cr_assert_eq(pyrt_pins_load_file_seen(&p, real, NULL, &err), 0, "%s",
		     err.msg);
	pyrt_pins_free(p);
	p = NULL;
	snprintf(seen->path, sizeof seen->path, "%s/other.yaml", tmp);
	cr_assert_eq(pyrt_pins_load_file_seen(&p, real, seen, &err), 0, "%s",
		     err.msg);
	pyrt_pins_free(p);
	free(seen);
	free(path);
}
