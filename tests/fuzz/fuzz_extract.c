/*
 * The extraction guard (pyrt_extract) fed any bytes as an archive file
 * (tar, tar.gz, whatever libarchive reads).  Each input is written to a
 * fresh private directory holding the archive, the destination and an
 * empty neighbour, and extracted with small caps.  Whatever the outcome,
 * nothing may appear beside the destination, and what is inside it obeys
 * the rules of extract.h: no devices, FIFOs or sockets; no setuid, setgid,
 * sticky or group/other-write bits; files owner rw, directories owner rwx;
 * no absolute symlink, none that leads out of the destination.  The
 * directory is removed after every input.
 *
 * The last byte of the input, when odd, also asks for the layout check
 * (required_file python/bin/python3), so both paths get fuzzed.
 */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dist/extract.h"
#include "core/dist/manifest.h"
#include "fuzz.h"

/* nftw has no payload: the destination being walked. */
static size_t dest_len;

/* Whether target, read from a link at rel (relative to the destination),
 * stays inside it by its names alone. */
static int link_inside(const char *rel, const char *target)
{
	long depth = 0;
	for (const char *c = rel; *c; c++)
		depth += *c == '/';
	for (const char *c = target; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			depth--;
		else if (n && !(n == 1 && c[0] == '.'))
			depth++;
		if (depth < 0)
			return 0;
		c += n;
		c += *c == '/';
	}
	return 1;
}

static int check_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)flag;
	if (ftw->level == 0)
		return 0;
	const char *rel = path + dest_len + 1;
	mode_t m = st->st_mode;
	if (S_ISCHR(m) || S_ISBLK(m) || S_ISFIFO(m) || S_ISSOCK(m))
		fuzz_fail("%s: a device, FIFO or socket was created", rel);
	if (S_ISLNK(m)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n < 0)
			fuzz_fail("%s: unreadable symlink", rel);
		target[n] = '\0';
		if (target[0] == '/' || !link_inside(rel, target))
			fuzz_fail("%s: symlink to %s leads out", rel, target);
		return 0;
	}
	if (m & (S_ISUID | S_ISGID | S_ISVTX | S_IWGRP | S_IWOTH))
		fuzz_fail("%s: mode %04o keeps a bit the guard clears", rel,
			  (unsigned)(m & 07777));
	if (S_ISREG(m) && (m & 0600) != 0600)
		fuzz_fail("%s: file mode %04o is not owner rw", rel,
			  (unsigned)(m & 07777));
	if (S_ISDIR(m) && (m & 0700) != 0700)
		fuzz_fail("%s: directory mode %04o is not owner rwx", rel,
			  (unsigned)(m & 07777));
	return 0;
}

/* The private directory holds in, out and side (and the manifest when
 * extraction succeeded: never a half one), and side stays empty. */
static void check_nothing_beside(const char *dir, const char *side, int ok)
{
	DIR *d = opendir(dir);
	if (!d)
		fuzz_fail("cannot read %s", dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (strcmp(n, ".") && strcmp(n, "..") && strcmp(n, "in") &&
		    strcmp(n, "out") && strcmp(n, "side") &&
		    (!ok || strcmp(n, "manifest.tsv")))
			fuzz_fail("%s/%s was created outside the destination",
				  dir, n);
	}
	closedir(d);
	if (rmdir(side) != 0)
		fuzz_fail("%s is no longer empty", side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[PATH_MAX], in[PATH_MAX + 8], out[PATH_MAX + 8];
	char side[PATH_MAX + 8], mpath[PATH_MAX + 16];
	int n = snprintf(dir, sizeof dir, "%s/x", fuzz_scratch());
	if (n < 0 || (size_t)n >= sizeof dir)
		fuzz_fail("the scratch path %s is too long", fuzz_scratch());
	snprintf(in, sizeof in, "%s/in", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(side, sizeof side, "%s/side", dir);
	snprintf(mpath, sizeof mpath, "%s/manifest.tsv", dir);
	fuzz_rmtree(dir);
	if (mkdir(dir, 0700) || mkdir(out, 0700) || mkdir(side, 0700))
		fuzz_fail("cannot make %s", dir);
	fuzz_write(in, data, size);

	pyrt_extract_opts opts = PYRT_EXTRACT_OPTS_INIT;
	opts.max_total_bytes = 1u << 20; /* a bomb stops early */
	opts.max_entries = 4096;
	opts.required_file = size && (data[size - 1] & 1)
			     ? "python/bin/python3" : NULL;
	pyrt_extract_result res = { 0, 0, 0 };
	pyrt_error err = { 0 };
	int rc = pyrt_extract(in, out, &opts, NULL, mpath, &res, &err);
	if (getenv("PYRT_FUZZ_VERBOSE")) /* what each seed reaches */
		fprintf(stderr, "extract: %d %s (%llu entries)\n", rc,
			rc ? err.msg : "ok", (unsigned long long)res.entries);
	if (rc != 0 && !err.msg[0])
		fuzz_fail("extract failed (%d) without a message", rc);
	if (rc == 0 && res.bytes > opts.max_total_bytes)
		fuzz_fail("%llu bytes extracted past the cap",
			  (unsigned long long)res.bytes);
	if (rc == 0 && res.entries > opts.max_entries)
		fuzz_fail("%llu entries extracted past the cap",
			  (unsigned long long)res.entries);
	check_nothing_beside(dir, side, rc == 0);
	if (rc == 0) {
		/* What was streamed reads back whole, and the fresh tree
		 * passes the check against it. */
		pyrt_manifest *made = NULL;
		if (pyrt_manifest_read(&made, mpath, &err) != 0)
			fuzz_fail("the streamed manifest does not read: %s",
				  err.msg);
		if (pyrt_manifest_count(made) != res.records)
			fuzz_fail("the manifest lists %zu of %llu entries",
				  pyrt_manifest_count(made),
				  (unsigned long long)res.records);
		int bad = pyrt_manifest_verify(made, out, NULL, NULL, &err);
		if (bad != 0)
			fuzz_fail("the fresh tree fails its manifest (%d)", bad);
		pyrt_manifest_free(made);
	}
	dest_len = strlen(out);
	nftw(out, check_one, 16, FTW_PHYS);
	fuzz_rmtree(dir);
	return 0;
}
