/*
 * The checks of validate.h.  They run in the parser, before a command
 * starts, so `install --from-file /nonexistent` fails like a mistyped
 * option does: exit 2, one line, nothing created.
 */
#include "cli/validate.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/parse.h"
#include "core/dist/fetch.h"
#include "core/pkgs/baseline.h"
#include "core/util/error.h"
#include "core/util/fs.h"
#include "core/util/redact.h"
#include "core/util/trust.h"

static int fail(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return PYRT_E_USAGE;
}

/* "~" and "~/x" from HOME; "~user" is refused rather than guessed. */
static int expand_home(const char *given, const char *opt, char *out,
		       size_t len, char *msg, size_t msglen)
{
	if (given[0] != '~') {
		snprintf(out, len, "%s", given);
		return 0;
	}
	if (given[1] && given[1] != '/')
		return fail(msg, msglen, "%s %s: pyrt does not expand ~user; "
			    "give the full path", opt, given);
	const char *home = getenv("HOME");
	if (!home || home[0] != '/')
		return fail(msg, msglen, "%s %s: HOME is not set to an absolute "
			    "path, so ~ cannot be expanded; give the full path",
			    opt, given);
	int n = snprintf(out, len, "%s%s", home, given + 1);
	if (n < 0 || (size_t)n >= len)
		return fail(msg, msglen, "%s: path too long", opt);
	return 0;
}

static int normalise(const char *given, const char *opt, int trust,
		     pyrt_fs_seen *seen, char **out, char *msg, size_t msglen)
{
	char expanded[PATH_MAX], abs[PATH_MAX], cwd[PATH_MAX], real[PATH_MAX];
	*out = NULL;
	int rc = expand_home(given, opt, expanded, sizeof expanded, msg, msglen);
	if (rc)
		return rc;
	if (expanded[0] == '/') {
		snprintf(abs, sizeof abs, "%s", expanded);
	} else {
		if (!getcwd(cwd, sizeof cwd))
			return fail(msg, msglen, "%s %s: cannot tell the current "
				    "directory (%s); give an absolute path", opt,
				    given, strerror(errno));
		const char *rel = expanded;
		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		int n = strcmp(rel, ".") == 0
			? snprintf(abs, sizeof abs, "%s", cwd)
			: snprintf(abs, sizeof abs, "%s/%s", cwd, rel);
		if (n < 0 || (size_t)n >= sizeof abs)
			return fail(msg, msglen, "%s: path too long", opt);
	}
	pyrt_error err = PYRT_ERROR_INIT;
	if (trust) {
		/* Walked as typed: a link in it is part of where it leads.
		 * Core walks the resolved path in full where it uses it. */
		rc = pyrt_trust_path_seen(opt, abs, PYRT_TRUST_MISSING_OK |
					  PYRT_TRUST_LINKS_ONLY, real,
					  sizeof real, seen, &err);
		if (rc == PYRT_E_UNTRUSTED) {
			snprintf(msg, msglen, "%s", err.msg);
			return rc;
		}
		if (rc)
			return fail(msg, msglen, "%s", err.msg);
	} else if (pyrt_fs_resolve(abs, real, sizeof real, &err) != 0) {
		return fail(msg, msglen, "%s %s: %s", opt, given, err.msg);
	}
	size_t n = strlen(real);
	while (n > 1 && real[n - 1] == '/')
		real[--n] = '\0';
	if (!(*out = strdup(real)))
		return PYRT_E_NOMEM;
	return 0;
}

int cli_path_normalise(const char *given, const char *opt, char **out,
		       char *msg, size_t msglen)
{
	return normalise(given, opt, 0, NULL, out, msg, msglen);
}

int cli_path_normalise_trusted(const char *given, const char *opt,
			       char **out, char *msg, size_t msglen)
{
	return normalise(given, opt, 1, NULL, out, msg, msglen);
}

int cli_path_normalise_trusted_seen(const char *given, const char *opt,
				    pyrt_fs_seen *seen, char **out,
				    char *msg, size_t msglen)
{
	return normalise(given, opt, 1, seen, out, msg, msglen);
}

/* The gate (trust.h) on what an option of kind names, once it exists
 * (a missing one is refused below, by what the command does with it): the
 * file, or the folder and each entry in it, owned by root or us and
 * writable by no one else, every folder on the way the same. */
static int gate(const char *path, const char *opt, cli_path_kind kind,
		const pyrt_fs_seen *seen, char *msg, size_t msglen)
{
	/* normalise's walk lstat()ed every folder of path, and path itself
	 * when it exists: no link is left in it, so that is its stat, and
	 * the gate judges it rather than asking again. */
	struct stat st;
	const struct stat *known = NULL;
	size_t depth = 0;
	for (const char *c = path; *c; c++)
		depth += *c == '/' && c[1];
	if (seen && strcmp(seen->path, path) == 0) {
		if (depth > seen->depth)
			return 0; /* missing: refused by what uses it */
		known = pyrt_fs_seen_at(seen, depth);
	}
	if (known)
		st = *known;
	else if (stat(path, &st) != 0)
		return 0;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = 0, fd = -1;
	if (kind == CLI_PATH_GATED_DIR && S_ISDIR(st.st_mode))
		rc = pyrt_trust_dir_entries(opt, path, &err);
	else if ((rc = pyrt_trust_open_seen(opt, path, 0, seen, &fd,
					    &err)) == 0)
		close(fd);
	if (rc == PYRT_E_UNTRUSTED) {
		snprintf(msg, msglen, "%s", err.msg);
		return rc;
	}
	return rc ? fail(msg, msglen, "%s", err.msg) : 0;
}

/* Replace *field with its normalised form, owned by opts. */
static int normalise_field(app_request *o, const char **field, const char *opt,
			   cli_path_kind kind, char *msg, size_t msglen)
{
	if (!*field)
		return 0;
	if (o->nowned >= APP_OWNED_MAX)
		return PYRT_E_INTERNAL;
	int gated = kind == CLI_PATH_GATED || kind == CLI_PATH_GATED_DIR;
	/* "https://host/wheels" is no folder here: refused, not taken as
	 * a relative path. */
	if (gated && strstr(*field, "://")) {
		char shown[1024];
		pyrt_redact_url(*field, shown, sizeof shown);
		return fail(msg, msglen, "%s %s: %s is a local %s, not a URL%s",
			    opt, shown, opt, kind == CLI_PATH_GATED_DIR
			    ? "folder" : "file", strcmp(opt, "--wheelhouse")
			    ? "" : "; for an index use --index-url");
	}
	char *norm = NULL;
	pyrt_fs_seen *seen = gated ? malloc(sizeof *seen) : NULL;
	if (gated && !seen)
		return PYRT_E_NOMEM;
	int rc = normalise(*field, opt, gated, seen, &norm, msg, msglen);
	if (!rc) {
		o->owned[o->nowned++] = norm;
		*field = norm;
		if (gated)
			rc = gate(norm, opt, kind, seen, msg, msglen);
	}
	/* The pins loader walks pins_path again in core: it may judge what
	 * this walk saw (app_request.pins_seen). */
	if (!rc && seen && field == &o->pins_path) {
		free(o->pins_seen);
		o->pins_seen = seen;
		seen = NULL;
	}
	free(seen);
	return rc;
}

static int normalise_all(app_request *o, char *msg, size_t msglen)
{
	/* What each option's value is, and so whether it passes the gate,
	 * is the option table's path column (parse.c), not this list. */
	struct { const char **field; const char *opt, *name; } paths[] = {
		{ &o->pins_path, o->pins_from, "pins" },
		{ &o->cacert, o->cacert_from, "cacert" },
		{ &o->wheelhouse, "--wheelhouse", "wheelhouse" },
		{ &o->requirements, "--requirements", "requirements" },
		{ &o->from_file, "--from-file", "from-file" },
		{ &o->out, "--out", "out" },
		{ &o->bundle, "--bundle", "bundle" },
		{ &o->wheelhouse_from, "--wheelhouse-from",
		  "wheelhouse-from" },
		{ cli_command_of(o) == CLI_CMD_MIRROR && o->npositional
		  ? &o->positional[0] : NULL, "pyrt mirror DIR", NULL },
	};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (!paths[i].field)
			continue;
		/* "--bundle -" is stdout, not a file named "-". */
		if (paths[i].field == &o->bundle && o->bundle &&
		    strcmp(o->bundle, "-") == 0)
			continue;
		/* The mirror's DIR: what it holds is served as the truth. */
		cli_path_kind kind = paths[i].name
			? cli_opt_path_kind(paths[i].name) : CLI_PATH_GATED_DIR;
		int rc = normalise_field(o, paths[i].field, paths[i].opt
					 ? paths[i].opt : "--pins", kind, msg,
					 msglen);
		if (rc)
			return rc;
	}
	return 0;
}

/* A file pyrt will read: it exists, is a regular file and readable. */
static int check_input_file(const char *path, const char *opt, char *msg,
			    size_t msglen)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return fail(msg, msglen, "%s %s: %s", opt, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(msg, msglen, "%s %s: not a regular file", opt, path);
	if (access(path, R_OK) != 0)
		return fail(msg, msglen, "%s %s: cannot be read: %s", opt, path,
			    strerror(errno));
	return 0;
}

/* A directory pip will read wheels from. */
static int check_input_dir(const char *path, const char *opt, char *msg,
			   size_t msglen)
{
	DIR *d = opendir(path);
	if (!d)
		return fail(msg, msglen, "%s %s: %s%s", opt, path,
			    strerror(errno), errno == ENOTDIR
			    ? " (give the directory that holds the wheels)" : "");
	closedir(d);
	return 0;
}

/* A file pyrt will write: not a directory, in a directory that exists. */
static int check_output_file(const char *path, const char *opt,
			     const char *example, char *msg, size_t msglen)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return fail(msg, msglen, "%s %s: is a directory; name the file "
			    "to write, e.g. %s/%s", opt, path, path, example);
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", path);
	char *slash = strrchr(parent, '/');
	if (slash)
		*(slash == parent ? slash + 1 : slash) = '\0';
	if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
		return fail(msg, msglen, "%s %s: the directory %s does not "
			    "exist; create it first", opt, path, parent);
	return 0;
}

static int check_url(const char *url, const char *opt, char *msg,
		     size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_fetch_url_check(url, opt, &err) == 0)
		return 0;
	int rc = fail(msg, msglen, "%s", err.msg);
	/* libcurl missing (it parses URLs) is this machine's lack, not a
	 * usage mistake. */
	return err.code == PYRT_E_UNSUPPORTED ? err.code : rc;
}

/* Options that cannot both apply: refused, not one silently ignored. */
static int check_conflicts(const app_request *o, char *msg, size_t msglen)
{
	if (o->from_file && o->mirror)
		return fail(msg, msglen, "--from-file and --mirror conflict: a "
			    "local archive is not downloaded; drop one");
	if (o->wheelhouse && o->index_url)
		return fail(msg, msglen, "--wheelhouse and %s conflict: with a "
			    "wheelhouse pip reads no index; drop one",
			    o->index_url_from);
	if (cli_command_of(o) != CLI_CMD_INSTALL || !o->no_baseline)
		return 0;
	const char *with = o->requirements ? "--requirements"
			 : o->wheelhouse ? "--wheelhouse"
			 : o->index_url ? "--index-url" : NULL;
	if (with)
		return fail(msg, msglen, "--no-baseline and %s conflict: %s is "
			    "for the baseline, which --no-baseline skips; drop "
			    "one", with, with);
	return 0;
}

/* mirror: one DIR; --verify only reads, so it takes nothing that writes.
 * The directory itself is created by the command, its parent must be
 * there. */
static int check_mirror(const app_request *o, char *msg, size_t msglen)
{
	if (cli_command_of(o) != CLI_CMD_MIRROR)
		return 0;
	if (o->npositional != 1)
		return fail(msg, msglen, "pyrt mirror needs the mirror "
			    "directory: pyrt mirror DIR (or pyrt mirror "
			    "--verify DIR)");
	const char *dir = o->positional[0];
	const char *with = o->nplatforms ? "--platform"
			 : o->wheelhouse_from ? "--wheelhouse-from"
			 : o->mirror ? "--mirror" : NULL;
	if (o->mirror_verify && with)
		return fail(msg, msglen, "--verify and %s conflict: --verify "
			    "only re-checks what DIR holds; drop one", with);
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return fail(msg, msglen, "pyrt mirror %s: not a "
				    "directory; name the mirror directory",
				    dir);
	} else if (o->mirror_verify) {
		return fail(msg, msglen, "pyrt mirror --verify %s: %s", dir,
			    strerror(errno));
	} else {
		char parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s", dir);
		char *slash = strrchr(parent, '/');
		if (slash)
			*(slash == parent ? slash + 1 : slash) = '\0';
		if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
			return fail(msg, msglen, "pyrt mirror %s: the directory "
				    "%s does not exist; create it first", dir,
				    parent);
	}
	if (o->wheelhouse_from)
		return check_input_dir(o->wheelhouse_from, "--wheelhouse-from",
				       msg, msglen);
	return 0;
}

/* lock: the wheelhouse it hashes is required; the output is a new file. */
static int check_lock(const app_request *o, char *msg, size_t msglen)
{
	if (cli_command_of(o) != CLI_CMD_LOCK)
		return 0;
	if (!o->wheelhouse)
		return fail(msg, msglen, "pyrt lock needs the wheelhouse to lock: "
			    "pyrt lock --wheelhouse DIR [--platform KEY]... "
			    "[--out FILE]");
	if (o->out)
		return check_output_file(o->out, "--out", "pins.yaml", msg,
					 msglen);
	return 0;
}

/* plugins: --wheelhouse and --index-url are for `plugins install NAME`. */
static int check_plugins_words(const app_request *o, char *msg, size_t msglen)
{
	if (cli_command_of(o) != CLI_CMD_PLUGINS || o->npositional > 0)
		return 0;
	const char *opt = o->wheelhouse ? "--wheelhouse"
			: o->index_url ? "--index-url" : NULL;
	if (opt)
		return fail(msg, msglen, "pyrt plugins: %s applies to 'pyrt "
			    "plugins install NAME'", opt);
	return 0;
}

static int check_values(const app_request *o, char *msg, size_t msglen)
{
	int rc = 0;
	if (!rc && o->from_file)
		rc = check_input_file(o->from_file, "--from-file", msg, msglen);
	if (!rc && o->mirror)
		rc = check_url(o->mirror, o->mirror_from ? o->mirror_from
				   : "--mirror", msg, msglen);
	if (!rc && o->index_url)
		rc = check_url(o->index_url, o->index_url_from, msg, msglen);
	if (!rc && o->wheelhouse)
		rc = check_input_dir(o->wheelhouse, "--wheelhouse", msg, msglen);
	if (!rc && o->requirements) {
		pyrt_error err = PYRT_ERROR_INIT;
		int brc = pyrt_baseline_check_file(o->requirements, NULL, &err);
		if (brc != 0)
			rc = fail(msg, msglen, "%s", err.msg);
		/* Someone else's file is exit 14, as for the box. */
		if (brc == PYRT_E_UNTRUSTED)
			rc = brc;
	}
	if (!rc && o->out && cli_command_of(o) != CLI_CMD_LOCK)
		rc = check_output_file(o->out, "--out", "smoke.docx", msg,
				       msglen);
	if (!rc && o->bundle && strcmp(o->bundle, "-") != 0)
		rc = check_output_file(o->bundle, "--bundle", "pyrt-bundle.tar.gz",
				       msg, msglen);
	return rc;
}

int cli_args_validate(app_request *o, char *msg, size_t msglen)
{
	int rc = normalise_all(o, msg, msglen);
	if (!rc)
		rc = check_conflicts(o, msg, msglen);
	if (!rc)
		rc = check_plugins_words(o, msg, msglen);
	if (!rc)
		rc = check_mirror(o, msg, msglen);
	if (!rc)
		rc = check_lock(o, msg, msglen);
	if (!rc)
		rc = check_values(o, msg, msglen);
	return rc;
}

/* Levenshtein distance of a[0..la) and b, capped: enough for typos. */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);
	if (la > 64 || lb > 64)
		return (size_t)-1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *cli_suggest(const char *word, size_t len,
			const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = 3;
	for (const char *const *c = candidates; *c; c++) {
		size_t d = edit_distance(word, len, *c);
		if (d < best_d && d < len) {
			best = *c;
			best_d = d;
		}
	}
	return best;
}
