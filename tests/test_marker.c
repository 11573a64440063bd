/* ctest: test_marker */
/*
 * The version marker: the round trip, that any change to its bytes is a
 * finding (its own digest), that every field is checked on write and read
 * with nothing cut to fit, schema 1 markers, and the manifest it vouches for.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/manifest.h"
#include "core/runtime/marker.h"
#include "support.h"

#define SHA "5acfa3e9ba26b51ae161c83aff278da915b590d22373a424b2ba55b8afe91fcc"

static char *tmp, *mpath;

static void setup(void)
{
	tmp = pt_tmpdir("marker");
	mpath = pt_join(tmp, "marker.json");
}

static void teardown(void)
{
	pt_rmtree(tmp);
	free(tmp);
	free(mpath);
}

TestSuite(marker, .init = setup, .fini = teardown);

static pyrt_marker valid(void)
{
	pyrt_marker m;
	memset(&m, 0, sizeof m);
	strcpy(m.implementation, "cpython");
	strcpy(m.version, "3.12.14");
	strcpy(m.build, "20260814");
	strcpy(m.platform, "linux-x86_64-gnu");
	strcpy(m.sha256, SHA);
	strcpy(m.source, "https://example.invalid/a.tar.gz");
	strcpy(m.installed_at, "2026-11-29T00:00:00Z");
	strcpy(m.pins, "builtin");
	m.archive_bytes = 1234;
	m.files = 2;
	strcpy(m.manifest_sha256, SHA);
	strcpy(m.baseline_state, "partial");
	m.baseline_missing_count = 1;
	strcpy(m.baseline_missing[0], "python-pptx");
	strcpy(m.baseline_error, "no matching distribution");
	return m;
}

static void write_valid(void)
{
	pyrt_marker m = valid();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_write(mpath, &m, &err), 0, "%s", err.msg);
}

static void put(const char *text, size_t len)
{
	FILE *f = fopen(mpath, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Refused as not valid, naming the file and why. */
static void expect_invalid(const char *why)
{
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), PYRT_E_NOT_READY,
		     "accepted: %s", pt_read(mpath));
	cr_assert(strstr(err.msg, mpath) && strstr(err.msg, why),
		  "'%s' lacks the path or '%s'", err.msg, why);
	cr_assert_eq(m.version[0], '\0', "a refused marker is not half-read");
}

/* Replace the first from in the marker file with to. */
static void edit(const char *from, const char *to)
{
	char *text = pt_read(mpath);
	char *at = strstr(text, from);
	cr_assert_not_null(at, "'%s' not in %s", from, text);
	char *out = NULL;
	cr_assert(asprintf(&out, "%.*s%s%s", (int)(at - text), text, to,
			   at + strlen(from)) > 0);
	put(out, strlen(out));
	free(out);
	free(text);
}

Test(marker, round_trip)
{
	write_valid();
	pyrt_marker m, want = valid();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(m.schema, PYRT_MARKER_SCHEMA);
	cr_assert_str_eq(m.build, want.build);
	cr_assert_str_eq(m.manifest_sha256, want.manifest_sha256);
	cr_assert_eq(m.files, 2);
	cr_assert_eq(m.baseline_missing_count, 1);
	cr_assert_str_eq(m.baseline_missing[0], "python-pptx");
	struct stat st;
	cr_assert_eq(stat(mpath, &st), 0);
	/* Every user of a shared box reads it, whatever the umask. */
	cr_assert_eq(st.st_mode & 0777, 0644);
}

/* Every single-byte change, and every cut, of a valid marker is refused:
 * the old reader accepted most of them. */
Test(marker, any_changed_byte_or_cut_is_refused)
{
	write_valid();
	char *orig = pt_read(mpath);
	size_t len = strlen(orig);
	int accepted = 0, cases = 0;
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			char *b = strdup(orig);
			b[i] ^= (char)(1 << bit);
			put(b, len);
			free(b);
			pyrt_marker m;
			cases++;
			if (pyrt_marker_read(mpath, &m, NULL) == 0) {
				accepted++;
				fprintf(stderr, "accepted: byte %zu bit %d\n",
					i, bit);
			}
		}
		put(orig, i);
		cases++;
		pyrt_marker m;
		if (pyrt_marker_read(mpath, &m, NULL) == 0) {
			accepted++;
			fprintf(stderr, "accepted: cut at %zu\n", i);
		}
	}
	free(orig);
	cr_assert_eq(accepted, 0, "%d of %d changed markers accepted", accepted,
		     cases);
}

Test(marker, a_consistent_edit_still_fails_its_digest)
{
	write_valid();
	edit("\"files\": 2", "\"files\": 3");
	expect_invalid("does not match its digest");
}

Test(marker, write_refuses_invalid_fields)
{
	static const struct {
		size_t off, len;
		const char *value, *why;
	} cases[] = {
		{ offsetof(pyrt_marker, sha256), sizeof(((pyrt_marker *)0)->sha256),
		  "abc", "sha256" },
		{ offsetof(pyrt_marker, build), sizeof(((pyrt_marker *)0)->build),
		  "a/b", "build" },
		{ offsetof(pyrt_marker, version), sizeof(((pyrt_marker *)0)->version),
		  "", "version" },
		{ offsetof(pyrt_marker, platform),
		  sizeof(((pyrt_marker *)0)->platform), "linux", "platform" },
		{ offsetof(pyrt_marker, installed_at),
		  sizeof(((pyrt_marker *)0)->installed_at), "yesterday",
		  "installed_at" },
		{ offsetof(pyrt_marker, manifest_sha256),
		  sizeof(((pyrt_marker *)0)->manifest_sha256), "xyz",
		  "manifest_sha256" },
		{ offsetof(pyrt_marker, baseline_state),
		  sizeof(((pyrt_marker *)0)->baseline_state), "done",
		  "baseline.state" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pyrt_marker m = valid();
		snprintf((char *)&m + cases[i].off, cases[i].len, "%s",
			 cases[i].value);
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_marker_write(mpath, &m, &err),
			     PYRT_E_INTERNAL, "%s accepted", cases[i].why);
		cr_assert(strstr(err.msg, cases[i].why), "%s", err.msg);
		cr_assert_neq(access(mpath, F_OK), 0, "written anyway");
	}
	pyrt_marker m = valid();
	m.files = 0;
	cr_assert_eq(pyrt_marker_write(mpath, &m, NULL), PYRT_E_INTERNAL);
}

/* A schema 1 marker (older pyrt, no digests): every field is still
 * checked, so {"sha256": "abc"} is refused as the issue asked. */
static const char v1[] =
	"{\"archive_bytes\": 1234, \"baseline\": {\"error\": \"\", "
	"\"missing\": [], \"state\": \"none\"}, \"build\": \"20260814\", "
	"\"files\": 2, \"implementation\": \"cpython\", "
	"\"installed_at\": \"2026-11-29T00:00:00Z\", \"pins\": \"builtin\", "
	"\"platform\": \"linux-x86_64-gnu\", \"schema\": 1, "
	"\"sha256\": \"" SHA "\", \"source\": \"x.tar.gz\", "
	"\"version\": \"3.12.14\"}";

Test(marker, schema_1_is_read_and_its_fields_checked)
{
	put(v1, sizeof v1 - 1);
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(m.schema, 1);
	cr_assert_str_eq(m.manifest_sha256, "");
	/* ... but it vouches for no manifest. */
	pyrt_manifest *man = (pyrt_manifest *)1;
	cr_assert_eq(pyrt_marker_load_manifest(&m, tmp, &man, &err),
		     PYRT_E_NOT_READY);
	cr_assert_null(man);
	cr_assert(strstr(err.msg, "records no digest of manifest.tsv"), "%s",
		  err.msg);

	edit("\"sha256\": \"" SHA "\"", "\"sha256\": \"abc\"");
	expect_invalid("sha256 is missing or not valid");
	put(v1, sizeof v1 - 1);
	edit("\"files\": 2", "\"files\": \"2\"");
	expect_invalid("files is not a non-negative integer");
	put(v1, sizeof v1 - 1);
	edit("\"build\": \"20260814\"",
	     "\"build\": \"0123456789012345678901234567890123456789\"");
	expect_invalid("build is longer than 31 bytes");
	put(v1, sizeof v1 - 1);
	edit("\"schema\": 1", "\"schema\": 3");
	expect_invalid("schema is not 1 or 2");
	put(v1, sizeof v1 - 1);
	edit("\"files\": 2", "\"files\": 2, \"files\": 3");
	expect_invalid("duplicate");
}

/* pyrt baseline rewrites an older install's marker: it stays schema 1,
 * now with its own digest, and is read back as such. */
Test(marker, without_a_manifest_digest_it_is_written_as_schema_1)
{
	pyrt_marker m = valid(), back;
	m.manifest_sha256[0] = '\0';
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_write(mpath, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_marker_read(mpath, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.schema, 1);
	cr_assert_str_eq(back.manifest_sha256, "");
	edit("\"files\": 2", "\"files\": 3");
	expect_invalid("does not match its digest");
}

Test(marker, odd_files_are_refused_naming_them, .timeout = 10)
{
	pyrt_marker m;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "marker.json"), "%s", err.msg);
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(mkfifo(mpath, 0600), 0);
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), PYRT_E_UNTRUSTED);
	cr_assert(strstr(err.msg, "marker.json is not a regular file"), "%s",
		  err.msg);
	unlink(mpath);
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(symlink("/dev/zero", mpath), 0);
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), PYRT_E_UNTRUSTED);
	unlink(mpath);
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(pt_sh("truncate -s 1G '%s'", mpath), 0);
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "is larger than"), "%s", err.msg);
}

/* The manifest must be the one the marker recorded: digest and count. */
Test(marker, load_manifest_requires_the_recorded_one)
{
	char *man_path = pt_join(tmp, "manifest.tsv");
	pt_write(man_path, "d\t0755\t0\t-\tpython\nd\t0755\t0\t-\tpython/bin\n");
	pyrt_marker m = valid();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_manifest_load(NULL, man_path, m.manifest_sha256,
					&err), 0);
	pyrt_manifest *man = NULL;
	cr_assert_eq(pyrt_marker_load_manifest(&m, tmp, &man, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(pyrt_manifest_count(man), 2);
	pyrt_manifest_free(man);

	/* Cut at a line boundary, one line removed, emptied: each still a
	 * well-formed manifest, none the recorded one. */
	const char *cuts[] = { "d\t0755\t0\t-\tpython\n",
			       "d\t0755\t0\t-\tpython/bin\n", "" };
	for (size_t i = 0; i < 3; i++) {
		err = (pyrt_error)PYRT_ERROR_INIT;
		pt_write(man_path, cuts[i]);
		cr_assert_eq(pyrt_marker_load_manifest(&m, tmp, &man, &err),
			     PYRT_E_NOT_READY, "accepted '%s'", cuts[i]);
		cr_assert_null(man);
		cr_assert(strstr(err.msg, "manifest.tsv is not the manifest "
					  "marker.json recorded"),
			  "%s", err.msg);
	}
	/* The recorded bytes but a marker counting otherwise. */
	pt_write(man_path, "d\t0755\t0\t-\tpython\nd\t0755\t0\t-\tpython/bin\n");
	m.files = 3;
	err = (pyrt_error)PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_load_manifest(&m, tmp, &man, &err),
		     PYRT_E_NOT_READY);
	cr_assert(strstr(err.msg, "lists 2 entries, marker.json counts 3"),
		  "%s", err.msg);
	free(man_path);
}

/* search_path (where the plugin checker looks for distributions) is
 * optional: absent reads as not recorded, present round-trips, and only
 * relative paths of plain components are written or read. */
Test(marker, search_path_is_optional_and_checked)
{
	write_valid();
	pyrt_marker m = valid();
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(m.search_path_known, 0, "a marker without it: unknown");
	char *text = pt_read(mpath);
	cr_assert_null(strstr(text, "search_path"));
	free(text);

	m = valid();
	m.search_path_known = 1;
	m.search_path_count = 2;
	strcpy(m.search_path[0], "lib/python3.12");
	strcpy(m.search_path[1], "lib/python3.12/site-packages");
	cr_assert_eq(pyrt_marker_write(mpath, &m, &err), 0, "%s", err.msg);
	pyrt_marker back;
	cr_assert_eq(pyrt_marker_read(mpath, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.schema, PYRT_MARKER_SCHEMA, "no new schema");
	cr_assert_eq(back.search_path_known, 1);
	cr_assert_eq(back.search_path_count, 2);
	cr_assert_str_eq(back.search_path[1], "lib/python3.12/site-packages");
	/* Rewritten as read (pyrt baseline does): kept. */
	cr_assert_eq(pyrt_marker_write(mpath, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(pyrt_marker_read(mpath, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(m.search_path_count, 2);
	/* Covered by the digest like every field. */
	edit("site-packages", "site-packageX");
	expect_invalid("does not match its digest");

	const char *const bad[] = { "/abs", "../up", "a/../b", "a//b", "a/",
				    "./a", "", "a/./b", "tab\there" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		m = valid();
		m.search_path_known = 1;
		m.search_path_count = 1;
		strcpy(m.search_path[0], bad[i]);
		cr_assert_eq(pyrt_marker_write(mpath, &m, NULL),
			     PYRT_E_INTERNAL, "[%s] written", bad[i]);
		cr_assert_eq(pyrt_marker_search_entry_ok(bad[i]), 0);
	}
	cr_assert(pyrt_marker_search_entry_ok("local/lib/python3.11/dist-packages"));
}
