/*
 * pip, run inside the managed runtime and nowhere else.  The child is the
 * active install's own interpreter with -I, a scrubbed environment and a
 * private 0700 HOME (and TMPDIR inside it), in its own process group under a
 * hard timeout (proc.c).  Every line pip prints goes whole to a 0600 log
 * file; the front end gets the same lines as log events, capped to the first
 * 40% and the last 60% of SHOWN_MAX bytes with a truncation marker between,
 * so a runaway pip cannot flood a terminal or an NDJSON consumer.
 *
 * The caller holds the box lock: pip writes into the active install, which
 * only an installer may swap.
 *
 * pip is given PEP 508 requirements only, after "--" (requirement.h), so
 * no string from pins, a --requirements file or a plugin manifest can be
 * read as one of pip's options.
 *
 * pip resolves a batch as a whole, so one unavailable requirement fails
 * them all; pyrt_pip_install_each follows a failed batch with one run per
 * requirement, for the baseline and a plugin's requirements alike.
 */
#include "core/pkgs/pip.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/dist/fetch.h"
#include "core/pkgs/fastwheel.h"
#include "core/pkgs/wheelcheck.h"
#include "core/runtime/box.h"
#include "core/runtime/interp.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"
#include "core/util/redact.h"
#include "core/util/requirement.h"
#include "core/util/sanitize.h"
#include "core/util/testhook.h"
#include "core/util/trust.h"

#define PIP_TIMEOUT_DEFAULT_S 900.0
#define PIP_GRACE_S 5.0
#define PIP_CAPTURE_MAX (64 * 1024) /* what a failure message draws from */
#define SHOWN_MAX (64 * 1024)       /* what the front end is shown */
#define PIP_LOGS_KEPT 50
#define PIP_EXTRA_ENV 5             /* entries pip_env adds */
#define PIP_KNOWN_MAX 8             /* index URLs hidden in pip's lines */
/* the interpreter's prefix, -m pip install|download, 7 options */
#define PIP_FIXED_ARGS (PYRT_INTERP_PREFIX_LEN + 10)

/*
 * The shown output: lines are forwarded live until the head budget is
 * spent; later ones wait in a ring of the newest tail bytes and are shown
 * after pip ends, behind a marker naming how much was left out.
 */
typedef struct shown {
	size_t head_left;
	int holding;
	char *ring;
	size_t cap, len, pos;
	uint64_t held;
} shown;

/* Everything one pip run owns; freed in pip_cleanup. */
typedef struct pip_run {
	const pyrt_pip_opts *opts;
	const pyrt_events *ev;
	pyrt_pip_result *res;
	const pyrt_box *box;   /* the caller's */
	char install_dir[PATH_MAX];
	char python[PATH_MAX];
	char home[PATH_MAX];
	char tmp[PATH_MAX];
	char wheelhouse[PATH_MAX]; /* absolute: pip runs with cwd = home */
	char cacert[PATH_MAX];
	FILE *log;
	char **envp;
	const char **argv;
	const char **fast_argv;    /* the wheelhouse installer's, or NULL */
	/* From an index: pip download's command line and the private folder
	 * it fills, which pyrt inspects before pip installs from it; NULL and
	 * "" with a wheelhouse */
	const char **fetch_argv;
	char fetched[PATH_MAX];
	char **fast_envp;          /* its environment: no network settings */
	const char *who;           /* "pip", or the installer: messages name it */
	shown sh;
	int stopped;               /* a front-end callback asked to cancel */
	char last_line[512];       /* last non-empty line, when no ERROR: */
	char net_cause[256];       /* why pip could not reach the index */
	/* The index URLs pip is given: their paths are hidden in its lines */
	const char *known[PIP_KNOWN_MAX];
	size_t known_count;
	char *extra_index;         /* a copy of PIP_EXTRA_INDEX_URL, split */
} pip_run;

static int pip_check_opts(const pyrt_pip_opts *o, pyrt_error *err)
{
	if (!o || o->version != PYRT_PIP_OPTS_VERSION)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pip options of an unknown version");
	if (!o->box)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pip options lack the box");
	if (o->requirement_count == 0 || !o->requirements)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pip called with nothing to install");
	if (o->index_url &&
	    pyrt_fetch_url_check(o->index_url, "--index-url", err) != 0)
		return PYRT_E_USAGE;
	/* The callers check where each requirement comes from (file and
	 * line); this is the last word before pip's command line. */
	for (size_t i = 0; i < o->requirement_count; i++) {
		char why[PYRT_ERROR_MSG_MAX / 2];
		if (pyrt_requirement_check(o->requirements[i], why,
					   sizeof why) != 0)
			return pyrt_error_set(err, PYRT_E_USAGE,
					      "pip was not started: %s", why);
	}
	return 0;
}

/* "2 requirements", plus the wheelhouse when there is one. */
static void pip_detail(const pyrt_pip_opts *o, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%zu requirement%s", o->requirement_count,
			 o->requirement_count == 1 ? "" : "s");
	if (o->wheelhouse && n > 0 && (size_t)n < len)
		pyrt_fmt_text(buf + n, len - (size_t)n, " from wheelhouse %s",
			      o->wheelhouse);
}

/* The active install and its interpreter, or the fix when there is none. */
static int pip_locate(pip_run *r, pyrt_error *err)
{
	r->box = r->opts->box;
	return pyrt_box_active_interpreter(r->box, r->opts->pins,
					   r->install_dir,
					   sizeof r->install_dir, r->python,
					   sizeof r->python, err);
}

/*
 * PEP 668: an interpreter that carries EXTERNALLY-MANAGED came from a
 * distribution, not from a python-build-standalone archive; pyrt never
 * writes that marker, so it refuses in one sentence instead of passing
 * pip's long refusal through.  A glob finds the stdlib without starting
 * Python.
 */
static int pip_externally_managed(pip_run *r, pyrt_error *err)
{
	char pattern[PATH_MAX];
	int rc = pyrt_fmt_path(pattern, sizeof pattern, err,
			       "%s/python/lib/python3.*/EXTERNALLY-MANAGED",
			       r->install_dir);
	if (rc)
		return rc;
	glob_t g;
	int found = glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	if (!found)
		return 0;
	return pyrt_error_set(err, PYRT_E_BASELINE,
			      "this runtime carries an EXTERNALLY-MANAGED marker "
			      "(PEP 668), so it is not a runtime pyrt installed "
			      "from a python-build-standalone archive and pip "
			      "may not install into it; reinstall it with "
			      "\"pyrt install --force\"");
}

/* A private directory: made 0700, or reused when it already is ours. */
static int pip_private_dir(const char *path, pyrt_error *err)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", path);
	struct stat st;
	if (lstat(path, &st) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot inspect %s", path);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0)
		return pyrt_error_set(err, PYRT_E_IO,
				      "%s is not a private directory of this user "
				      "(expected mode 0700, a directory, not a link); "
				      "remove it and retry", path);
	return 0;
}

/*
 * pip's HOME is <box>/runtime/python/pip-home, its TMPDIR (build and unpack
 * directories) pip-home/tmp: nothing of the operator's home is read, and
 * nothing pip leaves behind lands outside the box.
 */
static int pip_home(pip_run *r, pyrt_error *err)
{
	int rc = pyrt_fmt_path(r->home, sizeof r->home, err, "%s/pip-home",
			       pyrt_box_runtime_dir(r->box));
	if (!rc)
		rc = pyrt_fmt_path(r->tmp, sizeof r->tmp, err, "%s/tmp", r->home);
	if (!rc)
		rc = pip_private_dir(r->home, err);
	return rc ? rc : pip_private_dir(r->tmp, err);
}

/* Paths pip sees are absolute, because it runs with cwd = its home. */
static int pip_absolute(const char *opt, const char *path, int want_dir,
			char *out, size_t len, pyrt_error *err)
{
	char *real = realpath(path, NULL);
	if (!real)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno, "%s %s",
					    opt, path);
	struct stat st;
	int ok = stat(real, &st) == 0 &&
		 (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
	int rc = pyrt_fmt_path(out, len, err, "%s", real);
	free(real);
	if (rc)
		return rc;
	if (!ok)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s %s is not a %s",
				      opt, path, want_dir ? "directory" : "file");
	return 0;
}

/*
 * The scrubbed environment plus what pip itself needs.  The cache is off
 * (PIP_NO_CACHE_DIR): reruns only install what is missing, so a cache would
 * mostly hold copies of wheels already installed, growing in the box with
 * nothing to prune it.  PIP_CONFIG_FILE=/dev/null keeps /etc/pip.conf out
 * (index and proxy come from the variables proc.c passes through), and the
 * root warning is silenced because this is a private runtime, not a system
 * Python.
 *
 * The index pyrt was given goes in PIP_INDEX_URL, never on pip's command
 * line: /proc/PID/cmdline is readable by every local user, a process's
 * environment only by its owner, and the URL may carry a password or a
 * token.  It replaces a PIP_INDEX_URL inherited from the caller, as
 * --index-url would have.
 */
static int pip_env(pip_run *r, pyrt_error *err)
{
	char **base = pyrt_proc_network_env(r->home);
	if (!base)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	const char *index = r->opts->wheelhouse ? NULL : r->opts->index_url;
	size_t n = 0;
	for (size_t k = 0; base[k]; k++) {
		if (index && strncmp(base[k], "PIP_INDEX_URL=", 14) == 0)
			free(base[k]);
		else
			base[n++] = base[k];
	}
	base[n] = NULL;
	char **env = realloc(base, (n + PIP_EXTRA_ENV + 1) * sizeof *env);
	if (!env) {
		pyrt_proc_env_free(base);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	r->envp = env;
	env[n] = NULL;
	const char *fixed[PIP_EXTRA_ENV - 2] = {
		"PIP_NO_CACHE_DIR=1", "PIP_CONFIG_FILE=/dev/null",
		"PIP_ROOT_USER_ACTION=ignore",
	};
	/* NULL-terminated after every entry, so a failure frees cleanly. */
	for (size_t i = 0; i < PIP_EXTRA_ENV - 2; i++) {
		if (!(env[n] = strdup(fixed[i])))
			return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		env[++n] = NULL;
	}
	if (asprintf(&env[n], "TMPDIR=%s", r->tmp) < 0) {
		env[n] = NULL;
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	env[++n] = NULL;
	if (index && asprintf(&env[n], "PIP_INDEX_URL=%s", index) < 0) {
		env[n] = NULL;
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	if (index)
		env[++n] = NULL;
	return 0;
}

/*
 * python3 -I -m pip install <options> [--no-index --find-links DIR]
 * [--cert FILE] -- reqs.  "--" ends pip's options: whatever a requirement
 * says, pip reads it as a requirement.
 *
 * From an index, pip runs twice (issue 26: wheels carry only themselves,
 * whoever serves them): "pip download -d FETCHED" with the index, the
 * same options and the same requirements (or lock), then, once pyrt has
 * inspected every wheel in FETCHED, "pip install --no-index --find-links
 * FETCHED".  The installer never sees a byte pyrt did not read first.
 */
static int pip_argv_for(pip_run *r, int fetch, const char ***out,
			pyrt_error *err)
{
	const pyrt_pip_opts *o = r->opts;
	/* + -d DIR or the find-links (3) + --cert FILE (2) + the reinstall's
	 * (2) + --require-hashes -r FILE (3) + "--" + the list + NULL; the
	 * index goes through the environment (pip_env) */
	size_t n = PIP_FIXED_ARGS + 3 + 2 + 2 + 3 + 1 +
		   o->requirement_count + 1;
	const char **a = calloc(n, sizeof *a);
	if (!a)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	*out = a;
	size_t i = pyrt_interp_argv(a, r->python);
	a[i++] = "-m";
	a[i++] = "pip";
	a[i++] = fetch ? "download" : "install";
	a[i++] = "--only-binary=:all:";
	a[i++] = "--disable-pip-version-check";
	a[i++] = "--no-input";
	/* pip's defaults (5 retries with backoff, 15 s each) make a machine
	 * without network wait half a minute per run for an answer pyrt
	 * already has after the first refused connection. */
	a[i++] = "--retries";
	a[i++] = PYRT_PIP_RETRIES;
	a[i++] = "--timeout";
	a[i++] = PYRT_PIP_NET_TIMEOUT_S;
	const char *links = o->wheelhouse ? r->wheelhouse
			    : r->fetched[0] ? r->fetched : NULL;
	if (fetch) {
		a[i++] = "-d";
		a[i++] = r->fetched;
	} else if (links) {
		a[i++] = "--no-index";
		a[i++] = "--find-links";
		a[i++] = links;
	}
	if (o->cacert) {
		a[i++] = "--cert";
		a[i++] = r->cacert;
	}
	if (o->reinstall && !fetch)
		a[i++] = "--force-reinstall";
	if (o->reinstall)
		a[i++] = "--no-deps";
	if (o->hashed_requirements) {
		/* pyrt wrote this file from the lock: name==version and
		 * --hash lines only, nothing pip would take as an option */
		a[i++] = "--require-hashes";
		a[i++] = "-r";
		a[i++] = o->hashed_requirements;
		a[i] = NULL;
		return 0;
	}
	a[i++] = "--";
	for (size_t k = 0; k < o->requirement_count; k++)
		a[i++] = o->requirements[k];
	a[i] = NULL;
	return 0;
}

/* A folder a killed run left (pip runs under the box lock, so none is in
 * use): removed, so downloads do not pile up in the box. */
static void pip_drop_stale_fetches(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		pyrt_error rerr = PYRT_ERROR_INIT;
		if (strncmp(de->d_name, "wheels-", 7) != 0 ||
		    pyrt_fmt_path(path, sizeof path, &rerr, "%s/%s", tmp,
				  de->d_name) != 0)
			continue;
		pyrt_fs_remove_tree(path, NULL, &rerr);
	}
	closedir(d);
}

/* From an index: the private folder pip download fills, made 0700 by
 * mkdtemp inside pip's private TMPDIR, fresh for each run (pip would take
 * a wheel already there as downloaded). */
static int pip_fetch_dir(pip_run *r, pyrt_error *err)
{
	pip_drop_stale_fetches(r->tmp);
	int rc = pyrt_fmt_path(r->fetched, sizeof r->fetched, err,
			       "%s/wheels-XXXXXX", r->tmp);
	if (rc)
		return rc;
	if (mkdtemp(r->fetched))
		return 0;
	rc = pyrt_error_set_errno(err, PYRT_E_IO, errno, "cannot create a "
				  "private folder in %s", r->tmp);
	r->fetched[0] = '\0';
	return rc;
}

static int pip_argv(pip_run *r, pyrt_error *err)
{
	int rc = 0;
	if (!r->opts->wheelhouse)
		rc = pip_fetch_dir(r, err);
	if (!rc && !r->opts->wheelhouse)
		rc = pip_argv_for(r, 1, &r->fetch_argv, err);
	return rc ? rc : pip_argv_for(r, 0, &r->argv, err);
}

/*
 * With a wheelhouse, the installer first (fastwheel.h): python3 -I -S -B -c
 * PROGRAM WHEELHOUSE -- reqs.  After -c, every argument is sys.argv data.
 * -S: no .pth file in site-packages runs as whoever runs pyrt (the program
 * puts the site folders on sys.path itself).
 */
static int fast_argv(pip_run *r, pyrt_error *err)
{
	const pyrt_pip_opts *o = r->opts;
	/* It reads a directory: no index, proxy or credential reaches it
	 * (the crash points' variables do, in a test build). */
	r->fast_envp = pyrt_testhook_env(pyrt_proc_scrubbed_env(r->home));
	const char **a = calloc(PYRT_INTERP_PREFIX_LEN + 7 + o->requirement_count + 1,
				 sizeof *a);
	if (!a || !r->fast_envp) {
		free(a);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	r->fast_argv = a;
	size_t i = pyrt_interp_argv(a, r->python);
	a[i++] = "-S";
	a[i++] = "-B";
	/* Unbuffered: into a pipe its stdout is block-buffered, so every line
	 * arrived at once when it exited (-I ignores PYTHONUNBUFFERED).  pip
	 * flushes its own log lines. */
	a[i++] = "-u";
	a[i++] = "-c";
	a[i++] = pyrt_py_fastwheel;
	a[i++] = r->wheelhouse;
	a[i++] = "--";
	for (size_t k = 0; k < o->requirement_count; k++)
		a[i++] = o->requirements[k];
	a[i] = NULL;
	return 0;
}

/* The installer left it to pip: what it said is no reason for pip's run,
 * and the lines it showed are shown once. */
static void pip_undecided(pip_run *r)
{
	r->res->exit_code = -1;
	r->res->reason[0] = '\0';
	r->res->failed_requirement[0] = '\0';
	r->last_line[0] = '\0';
	r->sh.len = r->sh.pos = 0;
	r->sh.held = 0;
}

/* "plugin cowork" → "plugin-cowork": a purpose only ever names a file. */
static void pip_sanitize(const char *in, char *out, size_t len)
{
	size_t i = 0;
	for (; in && in[i] && i + 1 < len && i < 64; i++) {
		char c = in[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_';
		out[i] = ok ? c : '-';
	}
	out[i] = '\0';
	if (!out[0])
		pyrt_fmt_text(out, len, "install");
}

typedef struct log_entry {
	time_t mtime;
	char *name;
} log_entry;

static int log_mtime_cmp(const void *a, const void *b)
{
	const log_entry *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the newest pip logs only (by mtime: names start with the purpose). */
static void pip_prune_logs(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	log_entry logs[512];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < sizeof logs / sizeof *logs) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (strncmp(de->d_name, "pip-", 4) != 0 || len < 8 ||
		    strcmp(de->d_name + len - 4, ".log") != 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(logs[n].name = strdup(de->d_name)))
			continue;
		logs[n++].mtime = st.st_mtime;
	}
	qsort(logs, n, sizeof *logs, log_mtime_cmp);
	for (size_t i = 0; i < n; i++) {
		/* The one about to be written counts as kept. */
		if (i + PIP_LOGS_KEPT <= n)
			unlinkat(dirfd(d), logs[i].name, 0);
		free(logs[i].name);
	}
	closedir(d);
}

/*
 * <logs>/pip-<purpose>-<UTC stamp>-<pid>.log, created exclusively and
 * owner-only; a second run in the same second (the baseline's
 * per-requirement retries) gets a "-2", "-3" suffix.
 */
static int pip_open_log(pip_run *r, pyrt_error *err)
{
	const char *dir = pyrt_box_logs_dir(r->box);
	int rc = pyrt_fs_mkdirs(dir, err);
	if (rc)
		return rc;
	pip_prune_logs(dir);
	char purpose[80], stamp[32];
	pip_sanitize(r->opts->purpose, purpose, sizeof purpose);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	char *path = r->res->log_path;
	size_t len = sizeof r->res->log_path;
	for (int k = 1; k <= 100; k++) {
		if (k == 1)
			rc = pyrt_fmt_path(path, len, err, "%s/pip-%s-%s-%ld.log",
					   dir, purpose, stamp, (long)getpid());
		else
			rc = pyrt_fmt_path(path, len, err,
					   "%s/pip-%s-%s-%ld-%d.log", dir,
					   purpose, stamp, (long)getpid(), k);
		if (rc)
			return rc;
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC, 0600);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 || !(r->log = fdopen(fd, "w"))) {
			rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
						  "cannot create the pip log %s",
						  path);
			if (fd >= 0)
				close(fd);
			path[0] = '\0';
			return rc;
		}
		return 0;
	}
	path[0] = '\0';
	return pyrt_error_set(err, PYRT_E_IO, "cannot create a pip log in %s",
			      dir);
}

/* The index URLs pip gets: pyrt's own, else PIP_INDEX_URL passed through,
 * and every URL of PIP_EXTRA_INDEX_URL (pip splits it on blanks). */
static int pip_known_urls(pip_run *r, pyrt_error *err)
{
	const char *index = r->opts->index_url ? r->opts->index_url
					       : getenv("PIP_INDEX_URL");
	if (index && *index)
		r->known[r->known_count++] = index;
	const char *extra = getenv("PIP_EXTRA_INDEX_URL");
	if (!extra || !*extra)
		return 0;
	if (!(r->extra_index = strdup(extra)))
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	char *save = NULL;
	for (char *u = strtok_r(r->extra_index, " \t\n", &save);
	     u && r->known_count < PIP_KNOWN_MAX;
	     u = strtok_r(NULL, " \t\n", &save))
		r->known[r->known_count++] = u;
	return 0;
}

/* buf with the known index URLs' paths hidden, in place (cut to len). */
static void pip_hide_known(const pip_run *r, char *buf, size_t len)
{
	if (r->known_count == 0)
		return;
	char *hidden = pyrt_redact_known_urls(buf, r->known, r->known_count);
	/* Out of memory: the line is dropped rather than shown as it is. */
	pyrt_fmt_text(buf, len, "%s", hidden ? hidden : "[line hidden: out of memory]");
	free(hidden);
}

/* The command line and start time head the log, for whoever reads it
 * (the installer's program by its name, not its text). */
/* The requirements file pyrt wrote from the lock goes into the log as
 * comments: it is removed with the private folder after the run. */
static void pip_log_hashes(pip_run *r)
{
	FILE *f = fopen(r->opts->hashed_requirements, "re");
	char line[1024];
	if (!f)
		return;
	fprintf(r->log, "# %s:\n", r->opts->hashed_requirements);
	while (fgets(line, sizeof line, f))
		fprintf(r->log, "#   %s%s", line,
			strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

static void pip_log_header(pip_run *r, const char **argv)
{
	char when[40];
	pyrt_fs_now_rfc3339(when, sizeof when);
	fprintf(r->log, "# pyrt %s, started %s:", r->opts->purpose
		? r->opts->purpose : "pip", when);
	char clean[1024];
	for (const char **a = argv; *a; a++) {
		if (*a == pyrt_py_fastwheel) {
			fputs(" <pyrt wheelhouse installer>", r->log);
			continue;
		}
		pyrt_sanitize(*a, 1, clean, sizeof clean);
		pyrt_redact(clean);
		fprintf(r->log, " %s", clean);
	}
	fputc('\n', r->log);
	/* The index is in pip's environment: named here, by host only. */
	/* The run that asks the index: pip download, else pip install. */
	const char **first = r->fetch_argv ? r->fetch_argv : r->argv;
	if (argv == first && r->opts->index_url && !r->opts->wheelhouse) {
		pyrt_fmt_text(clean, sizeof clean, "%s", r->opts->index_url);
		pip_hide_known(r, clean, sizeof clean);
		pyrt_redact(clean);
		fprintf(r->log, "# index (PIP_INDEX_URL): %s\n", clean);
	}
	if (argv == first && r->opts->hashed_requirements)
		pip_log_hashes(r);
	fflush(r->log);
}

static int shown_init(shown *s)
{
	memset(s, 0, sizeof *s);
	s->head_left = SHOWN_MAX / 5 * 2;
	s->cap = SHOWN_MAX - s->head_left;
	s->ring = malloc(s->cap);
	return s->ring ? 0 : -1;
}

/* Keep the newest cap bytes of held lines, each ended by '\n'. */
static void shown_hold(shown *s, const char *line, size_t n)
{
	for (size_t i = 0; i <= n; i++) {
		s->ring[s->pos] = i < n ? line[i] : '\n';
		s->pos = (s->pos + 1) % s->cap;
		if (s->len < s->cap)
			s->len++;
	}
	s->held += n + 1;
}

/* One line of pip's output: live to the front end, or into the ring. */
static int shown_line(pip_run *r, const char *line)
{
	shown *s = &r->sh;
	size_t n = strlen(line);
	if (!s->holding && n + 1 <= s->head_left) {
		s->head_left -= n + 1;
		return pyrt_events_log(r->ev, PYRT_LOG_INFO, "%s", line);
	}
	s->holding = 1;
	shown_hold(s, line, n);
	return 0;
}

/* After pip ended: the marker (if anything was dropped), then the tail. */
static int shown_finish(pip_run *r)
{
	shown *s = &r->sh;
	if (!s->holding || s->len == 0)
		return 0;
	char *lin = malloc(s->len + 1);
	if (!lin)
		return 0; /* the log file has it all; showing is a help */
	size_t start = s->len < s->cap ? 0 : s->pos;
	for (size_t i = 0; i < s->len; i++)
		lin[i] = s->ring[(start + i) % s->cap];
	lin[s->len] = '\0';
	char *p = lin;
	uint64_t dropped = s->held - s->len;
	if (dropped > 0) {
		/* The ring may begin mid-line: that fragment is dropped too. */
		char *nl = strchr(p, '\n');
		dropped += nl ? (uint64_t)(nl + 1 - p) : 0;
		p = nl ? nl + 1 : p + strlen(p);
	}
	int rc = 0;
	if (dropped > 0)
		rc = pyrt_events_log(r->ev, PYRT_LOG_INFO,
				     "[… %llu bytes truncated; the log has "
				     "everything …]", (unsigned long long)dropped);
	for (char *nl; !rc && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		rc = pyrt_events_log(r->ev, PYRT_LOG_INFO, "%s", p);
	}
	free(lin);
	return rc;
}

/* Copy text after prefix up to the first " (" or the end, trimmed. */
static void pip_take_name(const char *text, char *out, size_t len)
{
	size_t n = strcspn(text, " (");
	if (n >= len)
		n = len - 1;
	memcpy(out, text, n);
	out[n] = '\0';
}

/* Learn from pip's ERROR: lines: the reason, and which requirement. */
static void pip_parse_error(pyrt_pip_result *res, const char *line)
{
	static const char *const named[] = {
		"No matching distribution found for ",
		"Could not find a version that satisfies the requirement ",
	};
	if (strncmp(line, "ERROR: ", 7) != 0)
		return;
	const char *text = line + 7;
	if (res->hash_mismatch)
		return; /* keep the refusal as the reason */
	pyrt_fmt_text(res->reason, sizeof res->reason, "%s", text);
	if (strncmp(text, "THESE PACKAGES DO NOT MATCH THE HASHES", 38) == 0)
		res->hash_mismatch = 1;
	for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
		size_t plen = strlen(named[i]);
		if (strncmp(text, named[i], plen) == 0)
			pip_take_name(text + plen, res->failed_requirement,
				      sizeof res->failed_requirement);
	}
}

/*
 * pip's "WARNING: Retrying (...) after connection broken by
 * 'NewConnectionError(... [Errno -2] Name or service not known')'": the
 * index was out of reach, and its later "No matching distribution" says
 * nothing about the requirement.  Keeps "NewConnectionError: [Errno -2]
 * Name or service not known" as the cause.
 */
static void pip_parse_warning(pyrt_pip_result *res, const char *line,
			      char *net_cause, size_t cause_len)
{
	if (strncmp(line, "WARNING: Retrying (", 19) != 0)
		return;
	res->index_unreachable = 1;
	if (net_cause[0])
		return;
	const char *by = strstr(line, "broken by '");
	const char *kind = by ? by + 11 : "connection error";
	int klen = (int)strcspn(kind, "(:'");
	const char *eno = strstr(line, "[Errno");
	if (!eno)
		eno = strstr(line, "[SSL");
	int elen = eno ? (int)strcspn(eno, "'\"") : 0;
	pyrt_fmt_text(net_cause, cause_len, "%.*s%s%.*s", klen, kind,
		      eno ? ": " : "", elen, eno ? eno : "");
}

/*
 * After "THESE PACKAGES DO NOT MATCH THE HASHES", pip names each file:
 *     python-docx==0.8.11 from https://…/python_docx-….whl (from -r …):
 *         Expected sha256 bafce18b…
 *              Got        ac764172…
 * The first one becomes one clause of the refusal.
 */
static void pip_parse_hash(pyrt_pip_result *res, const char *line)
{
	if (!res->hash_mismatch)
		return;
	char *d = res->hash_detail;
	size_t len = sizeof res->hash_detail, used = strlen(d);
	while (*line == ' ')
		line++;
	if (strncmp(line, "Expected sha256 ", 16) == 0 && used &&
	    !strstr(d, "expected"))
		pyrt_fmt_text(d + used, len - used, ": expected sha256 %.64s",
			      line + 16);
	else if (strncmp(line, "Got ", 4) == 0 && strstr(d, "expected") &&
		 !strstr(d, ", got")) {
		line += 4;
		while (*line == ' ')
			line++;
		pyrt_fmt_text(d + used, len - used, ", got %.64s", line);
	} else if (!used && strstr(line, "==") && strstr(line, " from ")) {
		size_t n = strcspn(line, "(");
		while (n && line[n - 1] == ' ')
			n--;
		pyrt_fmt_text(d, len, "%.*s", (int)(n < 400 ? n : 400), line);
	}
}

void pyrt_pip_parse_line(const char *line, pyrt_pip_result *result,
			 char *net_cause, size_t net_cause_len)
{
	pip_parse_hash(result, line);
	pip_parse_error(result, line);
	pip_parse_warning(result, line, net_cause, net_cause_len);
}

/* proc's line callback: log file, error parsing, the shown output. */
static int pip_on_line(const char *line, void *payload)
{
	pip_run *r = payload;
	char buf[4200];
	pyrt_fmt_text(buf, sizeof buf, "%s", line);
	size_t n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	/* pip names its index ("Looking in indexes: https://user:****@…",
	 * "url: /simple/TOKEN/x/"): no credential, and no token in the
	 * index's path, reaches the log, the screen or a reason. */
	pip_hide_known(r, buf, sizeof buf);
	pyrt_redact(buf);
	n = strlen(buf);
	/* The log is read with cat and less: pip's (and its packages') bytes
	 * reach it cleaned and with secrets hidden, one line per line. */
	char clean[sizeof buf];
	pyrt_sanitize(buf, 1, clean, sizeof clean);
	pyrt_redact(clean);
	fprintf(r->log, "%s\n", clean);
	pyrt_pip_parse_line(buf, r->res, r->net_cause, sizeof r->net_cause);
	if (n > 0)
		pyrt_fmt_text(r->last_line, sizeof r->last_line, "%s", buf);
	if (shown_line(r, buf) != 0) {
		r->stopped = 1;
		return 1;
	}
	return 0;
}

/* " through the proxy http://p:3128 (https_proxy)" when pip's failure was
 * the proxy's: the operator must know which one to fix.  Shown without
 * credentials. */
static void pip_proxy_named(const pip_run *r, char *buf, size_t len)
{
	static const char *const vars[] = { "https_proxy", "HTTPS_PROXY",
					    "http_proxy", "HTTP_PROXY" };
	buf[0] = '\0';
	if (strncmp(r->net_cause, "ProxyError", 10) != 0)
		return;
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		char url[256];
		pyrt_redact_url(v, url, sizeof url);
		pyrt_fmt_text(buf, len, " through the proxy %s (%s)", url, vars[i]);
		return;
	}
}

/* The one-line failure, from what pip said and how it ended. */
static int pip_failure(pip_run *r, const pyrt_proc_result *pr,
		       double timeout, pyrt_error *err)
{
	const char *log = r->res->log_path;
	if (pr->cancelled || r->stopped)
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (pr->timed_out)
		return pyrt_error_set(err, PYRT_E_BASELINE,
				      "%s did not finish within %.0f s and was "
				      "stopped; see %s", r->who, timeout, log);
	if (!pr->exited)
		return pyrt_error_set(err, PYRT_E_BASELINE,
				      "%s was killed by signal %d; see %s",
				      r->who, pr->term_signal, log);
	if (r->res->index_unreachable) {
		char proxy[300];
		pip_proxy_named(r, proxy, sizeof proxy);
		pyrt_fmt_text(r->res->reason, sizeof r->res->reason,
			      "pip could not reach the package index (%s)%s",
			      r->net_cause, proxy);
		return pyrt_error_set(err, PYRT_E_BASELINE,
				      "%s%s%s; %s; see %s", r->res->reason,
				      r->res->failed_requirement[0]
				      ? ", so it found no " : "",
				      r->res->failed_requirement,
				      PYRT_PIP_OFFLINE_FIX, log);
	}
	if (r->res->hash_mismatch)
		return pyrt_error_set(err, PYRT_E_VERIFY,
				      "pip refused a wheel whose SHA-256 is not "
				      "the wheel lock's: %s; nothing of it was "
				      "installed — the index serves other bytes "
				      "than the lock names; see %s",
				      r->res->hash_detail[0]
				      ? r->res->hash_detail
				      : r->res->reason, log);
	if (!r->res->reason[0])
		pyrt_fmt_text(r->res->reason, sizeof r->res->reason, "%s",
			      r->last_line[0] ? r->last_line : "no output");
	if (r->res->failed_requirement[0])
		return pyrt_error_set(err, PYRT_E_BASELINE,
				      "pip could not install %s: %s; see %s",
				      r->res->failed_requirement,
				      r->res->reason, log);
	return pyrt_error_set(err, PYRT_E_BASELINE,
			      "%s failed (exit %d): %s; see %s", r->who,
			      pr->exit_code, r->res->reason, log);
}

/* Start argv (pip, or the wheelhouse installer) and wait for it; the
 * outcome lands in r->res and err.  *undecided: the installer left the
 * requirements to pip (it wrote nothing), which is not a failure. */
static int pip_execute(pip_run *r, const char **argv, int *undecided,
		       pyrt_error *err)
{
	double timeout = r->opts->timeout_s > 0 ? r->opts->timeout_s
						: PIP_TIMEOUT_DEFAULT_S;
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)(argv == r->fast_argv ? r->fast_envp
							     : r->envp);
	/* Not the operator's cwd: pip would take a directory there named
	 * like a requirement for a local project. */
	po.cwd = r->home;
	po.timeout_s = timeout;
	po.grace_s = PIP_GRACE_S;
	po.capture_max = PIP_CAPTURE_MAX;
	po.on_line = pip_on_line;
	po.payload = r;
	po.cancel = r->ev ? r->ev->cancel : NULL;
	po.keep_fd = r->opts->lock_fd;
	pyrt_proc_result pr;
	int rc = pyrt_proc_run(&po, &pr, err);
	if (rc)
		return rc;
	if (shown_finish(r) != 0)
		r->stopped = 1;
	/* A stopped pip's status is the signal's doing, not pip's verdict. */
	if (pr.exited && !pr.timed_out && !pr.cancelled && !r->stopped)
		r->res->exit_code = pr.exit_code;
	*undecided = argv == r->fast_argv && r->res->exit_code ==
		     PYRT_FASTWHEEL_UNDECIDED;
	fprintf(r->log, "# %s %s\n", r->who,
		pr.timed_out ? "stopped: timeout"
		: pr.cancelled || r->stopped ? "stopped: cancelled"
		: !pr.exited ? "killed by a signal"
		: *undecided ? "left it to pip"
		: pr.exit_code ? "failed" : "succeeded");
	fflush(r->log);
	if (!*undecided && (!pr.exited || pr.exit_code != 0 || r->stopped))
		rc = pip_failure(r, &pr, timeout, err);
	pyrt_proc_result_clear(&pr);
	return rc;
}

/* Everything before pip starts: where, whether allowed, with what. */
static int pip_prepare(pip_run *r, pyrt_error *err)
{
	const pyrt_pip_opts *o = r->opts;
	int rc = pip_locate(r, err);
	if (!rc)
		rc = pip_externally_managed(r, err);
	if (!rc && o->cacert)
		rc = pip_absolute("--cacert", o->cacert, 0, r->cacert,
				  sizeof r->cacert, err);
	if (!rc && o->wheelhouse)
		rc = pip_absolute("--wheelhouse", o->wheelhouse, 1,
				  r->wheelhouse, sizeof r->wheelhouse, err);
	/* pip and the installer read every archive in the wheelhouse. */
	if (!rc && o->wheelhouse)
		rc = pyrt_trust_dir_entries("--wheelhouse", o->wheelhouse, err);
	/* Each wheel carries only itself, before any installer sees it. */
	if (!rc && o->wheelhouse)
		rc = pyrt_wheelcheck_dir(o->wheelhouse, err);
	if (!rc)
		rc = pip_home(r, err);
	if (!rc && !o->wheelhouse)
		rc = pip_known_urls(r, err);
	if (!rc)
		rc = pip_env(r, err);
	if (!rc)
		rc = pip_argv(r, err);
	if (!rc && o->wheelhouse && !o->reinstall)
		rc = fast_argv(r, err);
	if (!rc && shown_init(&r->sh) != 0)
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	if (!rc)
		rc = pip_open_log(r, err);
	return rc;
}

static void pip_cleanup(pip_run *r)
{
	/* What pip fetched never outlives the run: installed, or refused. */
	if (r->fetched[0]) {
		pyrt_error rerr = PYRT_ERROR_INIT;
		pyrt_fs_remove_tree(r->fetched, NULL, &rerr);
	}
	free(r->fetch_argv);
	free(r->fast_argv);
	pyrt_proc_env_free(r->fast_envp);
	if (r->log)
		fclose(r->log);
	free(r->sh.ring);
	free(r->argv);
	free(r->extra_index);
	pyrt_proc_env_free(r->envp);
}

int pyrt_pip_install(const pyrt_pip_opts *opts, const pyrt_events *ev,
		     pyrt_pip_result *result, pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	result->exit_code = -1;
	int rc = pip_check_opts(opts, err);
	if (rc)
		return rc;
	char detail[PATH_MAX + 64];
	pip_detail(opts, detail, sizeof detail);
	rc = pyrt_events_step(ev, PYRT_STEP_BASELINE, PYRT_STEP_BEGIN, detail);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	pip_run r;
	memset(&r, 0, sizeof r);
	r.opts = opts;
	r.ev = ev;
	r.res = result;
	rc = pip_prepare(&r, err);
	int undecided = 1;
	if (!rc && r.fast_argv) {
		r.who = "the wheelhouse installer";
		pip_log_header(&r, r.fast_argv);
		rc = pip_execute(&r, r.fast_argv, &undecided, err);
		if (!rc && undecided)
			pip_undecided(&r);
	}
	if (!rc && undecided && r.fetch_argv) {
		r.who = "pip";
		pip_log_header(&r, r.fetch_argv);
		rc = pip_execute(&r, r.fetch_argv, &undecided, err);
		/* Each wheel carries only itself, before pip installs it. */
		if (!rc)
			rc = pyrt_wheelcheck_fetched(r.fetched, err);
		if (rc == PYRT_E_UNSAFE && err)
			fprintf(r.log, "# refused: %s\n", err->msg);
		undecided = 1;
	}
	if (!rc && undecided) {
		r.who = "pip";
		pip_log_header(&r, r.argv);
		rc = pip_execute(&r, r.argv, &undecided, err);
	}
	pip_cleanup(&r);
	if (rc) {
		pyrt_events_step(ev, PYRT_STEP_BASELINE, PYRT_STEP_FAIL,
				 err && err->msg[0] ? err->msg
						    : pyrt_strerror(rc));
		return rc;
	}
	rc = pyrt_events_step(ev, PYRT_STEP_BASELINE, PYRT_STEP_END, NULL);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

/* Everything one pyrt_pip_install_each call tracks across its runs. */
typedef struct each_run {
	const pyrt_pip_opts *opts;
	const pyrt_events *ev;
	pyrt_pip_each_result *res;
	pyrt_error first;     /* the first failure alone: its code and words */
	char names[1024];     /* "a, b" of those that failed alone */
} each_run;

/* Whether the batch's failure calls for trying each requirement alone. */
static int each_wanted(const each_run *e, int rc)
{
	size_t n = e->opts->requirement_count;
	return rc == PYRT_E_BASELINE && e->res->batch.exit_code > 0 && n > 0 &&
	       !e->opts->hashed_requirements;
}

/* A retry's failure that ends the operation instead of being noted. */
static int each_ends(const each_run *e, int rc)
{
	return !(rc == PYRT_E_BASELINE && e->res->last.exit_code > 0);
}

/* Note requirement i as failed alone, and why (the first one's words). */
static void each_note(each_run *e, size_t i, int rc, const pyrt_error *perr)
{
	pyrt_pip_each_result *res = e->res;
	const char *req = e->opts->requirements[i];
	size_t used = strlen(e->names);
	if (used + 1 < sizeof e->names)
		pyrt_fmt_text(e->names + used, sizeof e->names - used, "%s%s",
			      res->failed_count ? ", " : "", req);
	if (res->failed_count == 0)
		res->first = res->last;
	res->failed[res->failed_count++] = i;
	res->index_unreachable |= res->last.index_unreachable;
	pyrt_error_set(&e->first, rc, "%s", perr->msg);
}

/* One requirement alone: the baseline names each run for it. */
static int each_one(each_run *e, size_t i, pyrt_error *perr)
{
	const pyrt_pip_opts *o = e->opts;
	pyrt_pip_opts po = *o;
	char purpose[160];
	po.requirements = &o->requirements[i];
	po.requirement_count = 1;
	const char *base = o->purpose ? o->purpose : "pip";
	pyrt_fmt_text(purpose, sizeof purpose, "%s %s", base, o->requirements[i]);
	po.purpose = purpose;
	if (pyrt_events_log(e->ev, PYRT_LOG_INFO, "%s: %s", base,
			    o->requirements[i]))
		return pyrt_error_set(perr, PYRT_E_CANCELLED, "cancelled");
	return pyrt_pip_install(&po, e->ev, &e->res->last, perr);
}

/* After a failed batch: each requirement alone, noting what fails. */
static int each_retry(each_run *e, pyrt_error *err)
{
	size_t n = e->opts->requirement_count;
	int rc = pyrt_events_log(e->ev, PYRT_LOG_INFO, "pip refused the batch; "
				 "installing each of the %zu requirements "
				 "alone", n);
	if (rc)
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	e->res->failed = calloc(n, sizeof *e->res->failed);
	if (!e->res->failed)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		pyrt_error perr = PYRT_ERROR_INIT;
		rc = each_one(e, i, &perr);
		if (rc && each_ends(e, rc))
			return pyrt_error_set(err, rc, "%s", perr.msg);
		if (rc)
			each_note(e, i, rc, &perr);
	}
	e->res->retried = 1;
	if (e->res->failed_count == 0)
		return 0;
	if (e->res->failed_count == 1)
		return pyrt_error_set(err, e->first.code, "%s", e->first.msg);
	return pyrt_error_set(err, e->first.code, "could not install %s; the "
			      "first failure: %s", e->names, e->first.msg);
}

/* The batch never reached the index: running each requirement alone would
 * only fail the same way, once per requirement.  Every one is noted as
 * failed, for the batch's reason. */
static int each_unreachable(each_run *e, const pyrt_error *perr,
			    pyrt_error *err)
{
	size_t n = e->opts->requirement_count;
	pyrt_pip_each_result *res = e->res;
	res->failed = calloc(n, sizeof *res->failed);
	if (!res->failed)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		res->failed[res->failed_count++] = i;
	res->first = res->batch;
	res->index_unreachable = 1;
	return pyrt_error_set(err, PYRT_E_BASELINE, "%s", perr->msg);
}

int pyrt_pip_install_each(const pyrt_pip_opts *opts,
			  const pyrt_events *ev, pyrt_pip_each_result *result,
			  pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	result->batch.exit_code = result->last.exit_code = -1;
	if (!opts)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pip options of an unknown version");
	each_run e = { .opts = opts, .ev = ev, .res = result };
	pyrt_error perr = PYRT_ERROR_INIT;
	int rc = pyrt_pip_install(opts, ev, &result->batch, &perr);
	result->last = result->batch;
	if (rc == 0)
		return 0;
	if (rc == PYRT_E_BASELINE && result->batch.index_unreachable)
		return each_unreachable(&e, &perr, err);
	if (!each_wanted(&e, rc))
		return pyrt_error_set(err, rc, "%s", perr.msg);
	return each_retry(&e, err);
}

void pyrt_pip_each_result_clear(pyrt_pip_each_result *result)
{
	if (!result)
		return;
	free(result->failed);
	result->failed = NULL;
	result->failed_count = 0;
}
