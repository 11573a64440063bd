/*
 * The install pipeline.  Order matters for the guarantees:
 *   lock → sweep stale staging → download (resumable) → verify the digest
 *   → guarded extract into private staging (the manifest written as it
 *   goes) → start the staged interpreter → marker (with the manifest's
 *   digest) → syncfs → move into installs/ → atomic swap of `current`
 *   → previous install kept as the single rollback target.
 * Until the swap nothing visible changes; any failure or cancel before it
 * removes only what this run created (staging) and keeps the first error.
 */
#include "core/runtime/install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/dist/extract.h"
#include "core/dist/fetch.h"
#include "core/dist/manifest.h"
#include "core/runtime/box.h"
#include "core/runtime/declared.h"
#include "core/runtime/interp.h"
#include "core/runtime/lock.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/os.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"
#include "core/util/redact.h"
#include "core/util/sha256.h"
#include "core/util/testhook.h"

#define CHECK_TIMEOUT_DEFAULT_S 60.0
/* A --from-file archive without a pinned size: well above any runtime. */
#define PYRT_FROM_FILE_MAX (4ULL << 30)
/* The rollback target while the two links move (see install_swap). */
#define INSTALL_PENDING_LINK ".previous.pending"

/* Everything one run owns; freed in one place. */
typedef struct install_run {
	const pyrt_install_opts *opts;
	const pyrt_events *ev;
	const pyrt_pin_archive *pin;
	const pyrt_box *box;  /* the caller's */
	pyrt_lock *lock;
	uint64_t files;               /* entries manifest.tsv lists */
	char archive_path[PATH_MAX];  /* the verified archive on disk */
	int archive_is_download;      /* ours to delete */
	int archive_is_copy;          /* --from-file's private copy */
	char source[2048];            /* redacted URL, or local path */
	char id[128];
	char staging[PATH_MAX];
	int staging_made;
	char unswapped[PATH_MAX];     /* in installs/, current not yet swapped */
	char sha256[PYRT_SHA256_HEX_LEN + 1];
	uint64_t archive_bytes;
	/* What the check reported the plugin checker will search (relative
	 * to the python/ prefix); known 0: not recorded. */
	int search_known;
	int search_count;
	char search[PYRT_MARKER_SEARCH_MAX][PYRT_MARKER_SEARCH_LEN];
} install_run;

static void install_repair(const pyrt_box *box, const pyrt_events *ev);

/* The archive pin for the platform, or an unsupported-platform error. */
static const pyrt_pin_archive *install_pin(const pyrt_install_opts *opts,
					   pyrt_error *err)
{
	const pyrt_pin_archive *pin =
		pyrt_pins_find(opts->pins, opts->platform_key);
	if (pin)
		return pin;
	char keys[1024] = "";
	for (size_t i = 0; i < pyrt_pins_archive_count(opts->pins); i++) {
		const pyrt_pin_archive *a = pyrt_pins_archive_at(opts->pins, i);
		size_t used = strlen(keys);
		pyrt_fmt_text(keys + used, sizeof keys - used, "%s%s",
			      i ? ", " : "", a->key);
	}
	pyrt_error_set(err, PYRT_E_UNSUPPORTED,
		       "unsupported platform %s: no pinned runtime for it "
		       "(supported: %s)", opts->platform_key, keys);
	return NULL;
}

static int install_check_opts(const pyrt_install_opts *opts, pyrt_error *err)
{
	if (!opts || opts->version != PYRT_INSTALL_OPTS_VERSION)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "install options of an unknown version");
	if (!opts->pins || !opts->platform_key)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "install options lack pins or platform");
	return 0;
}

/* The URL to fetch: the pin's, or the same file under --mirror. */
static int install_url(const pyrt_install_opts *opts,
		       const pyrt_pin_archive *pin, char *buf, size_t len,
		       pyrt_error *err)
{
	if (!opts->mirror) {
		pyrt_fmt_text(buf, len, "%s", pin->url);
		return 0;
	}
	char *url = NULL;
	int rc = pyrt_fetch_mirror_url(pin->url, opts->mirror, &url, err);
	if (rc)
		return rc;
	pyrt_fmt_text(buf, len, "%s", url);
	free(url);
	return 0;
}

/*
 * Does the active install already match the pin?  Reads only the marker and
 * checks the interpreter file exists, so a second install is a fast no-op.
 */
static int install_is_current(const pyrt_box *box, const pyrt_pins *pins,
			      const pyrt_pin_archive *pin, const char *key)
{
	char dir[PATH_MAX];
	if (pyrt_box_link_install(box, pyrt_box_current(box), dir, sizeof dir,
				  NULL) != 0)
		return 0;
	char path[PATH_MAX];
	pyrt_marker m;
	if (pyrt_fmt_path(path, sizeof path, NULL, "%s/marker.json", dir) ||
	    pyrt_marker_read(path, &m, NULL) != 0)
		return 0;
	const char *interp = pyrt_pins_layout_interpreter(pins);
	if (interp) {
		if (pyrt_fmt_path(path, sizeof path, NULL, "%s/%s", dir,
				  interp) || access(path, X_OK) != 0)
			return 0;
	}
	return strcmp(m.version, pyrt_pins_version(pins)) == 0 &&
	       strcmp(m.build, pyrt_pins_build(pins)) == 0 &&
	       strcmp(m.platform, key) == 0 &&
	       pyrt_sha256_hex_equal(m.sha256, pin->sha256);
}

int pyrt_install_plan_make(const pyrt_box *box, const pyrt_install_opts *opts,
			   pyrt_install_plan *plan, pyrt_error *err)
{
	memset(plan, 0, sizeof *plan);
	int rc = install_check_opts(opts, err);
	if (rc)
		return rc;
	const pyrt_pin_archive *pin = install_pin(opts, err);
	if (!pin)
		return err ? err->code : PYRT_E_UNSUPPORTED;
	pyrt_fmt_text(plan->version, sizeof plan->version, "%s",
		      pyrt_pins_version(opts->pins));
	pyrt_fmt_text(plan->build, sizeof plan->build, "%s",
		      pyrt_pins_build(opts->pins));
	pyrt_fmt_text(plan->platform, sizeof plan->platform, "%s", pin->key);
	pyrt_fmt_text(plan->sha256, sizeof plan->sha256, "%s", pin->sha256);
	plan->size = pin->size;
	if (!opts->from_file) {
		char url[sizeof plan->url];
		rc = install_url(opts, pin, url, sizeof url, err);
		if (rc)
			return rc;
		pyrt_fetch_url_host(url, plan->host, sizeof plan->host);
		/* The plan is shown (consent, wizard): never its credentials. */
		pyrt_redact_url(url, plan->url, sizeof plan->url);
	} else {
		struct stat st;
		if (stat(opts->from_file, &st) == 0)
			plan->size = (uint64_t)st.st_size;
	}
	rc = pyrt_box_check_change(box, "install", err);
	if (rc)
		return rc;
	pyrt_fmt_text(plan->destination, sizeof plan->destination, "%s",
		      pyrt_box_current(box));
	/* The box may not exist yet: measure the nearest existing ancestor. */
	char probe[PATH_MAX];
	pyrt_fmt_text(probe, sizeof probe, "%s", pyrt_box_root(box));
	while (access(probe, F_OK) != 0 && strrchr(probe, '/') &&
	       strrchr(probe, '/') != probe)
		*strrchr(probe, '/') = '\0';
	plan->free_bytes = pyrt_fs_free_bytes(probe);
	plan->already_current =
		install_is_current(box, opts->pins, pin, opts->platform_key);
	return 0;
}

/* Step bracket helpers: a failed step is reported before returning. */
static int step_fail(install_run *r, pyrt_step step, int rc, pyrt_error *err)
{
	pyrt_events_step(r->ev, step, PYRT_STEP_FAIL,
			 err && err->msg[0] ? err->msg : pyrt_strerror(rc));
	return rc;
}

static int install_lock(install_run *r, pyrt_error *err)
{
	int rc = pyrt_events_step(r->ev, PYRT_STEP_LOCK, PYRT_STEP_BEGIN,
				  pyrt_box_root(r->box));
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	rc = pyrt_lock_acquire(&r->lock, pyrt_box_lock_path(r->box),
			       !r->opts->no_wait, r->ev, err);
	if (rc)
		return step_fail(r, PYRT_STEP_LOCK, rc, err);
	rc = pyrt_staging_sweep(pyrt_box_staging_dir(r->box), r->ev, err);
	if (rc < 0)
		return step_fail(r, PYRT_STEP_LOCK, rc, err);
	install_repair(r->box, r->ev);
	pyrt_testhook("locked");
	rc = pyrt_events_step(r->ev, PYRT_STEP_LOCK, PYRT_STEP_END, NULL);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

/*
 * A resumed download that does not match the pin may be good bytes after
 * a bad head (an older run's, another server's): the head cannot be told
 * apart, so the file is fetched once more from byte 0, and only a
 * mismatch of that whole fresh copy is final (install_verify).
 */
static int install_refetch(install_run *r, const pyrt_fetch_opts *fo,
			   pyrt_fetch_result *fr, pyrt_error *err)
{
	if (pyrt_events_log(r->ev, PYRT_LOG_WARN, "the resumed download "
			    "does not match the pinned SHA-256; downloading "
			    "it again from the start") != 0)
		return pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (unlink(r->archive_path) != 0 && errno != ENOENT)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot remove %s",
					    r->archive_path);
	memset(fr, 0, sizeof *fr);
	return pyrt_fetch(fo, r->ev, fr, err);
}

/* Fetch into downloads/<digest prefix>.partial, resuming what is there. */
static int install_download(install_run *r, pyrt_error *err)
{
	char url[2048];
	int rc = install_url(r->opts, r->pin, url, sizeof url, err);
	if (rc)
		return rc;
	char host[256];
	pyrt_fetch_url_host(url, host, sizeof host);
	char detail[320];
	pyrt_fmt_text(detail, sizeof detail, "from %s", host);
	rc = pyrt_events_step(r->ev, PYRT_STEP_DOWNLOAD, PYRT_STEP_BEGIN,
			      detail);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	/* Stored in the marker and shown in messages: without credentials;
	 * only pyrt_fetch sees the real URL. */
	pyrt_redact_url(url, r->source, sizeof r->source);
	/* Named by the pinned digest so a different pin never resumes it. */
	rc = pyrt_fmt_path(r->archive_path, sizeof r->archive_path, err,
			   "%s/%.16s.partial", pyrt_box_downloads_dir(r->box),
			   r->pin->sha256);
	if (rc)
		return rc;
	r->archive_is_download = 1;

	pyrt_fetch_opts fo = PYRT_FETCH_OPTS_INIT;
	fo.url = url;
	fo.partial_path = r->archive_path;
	fo.cacert = r->opts->cacert;
	fo.expected_size = r->pin->size;
	if (r->opts->fetch_attempts)
		fo.max_attempts = r->opts->fetch_attempts;
	if (r->opts->low_speed_time_s)
		fo.low_speed_time_s = r->opts->low_speed_time_s;
	pyrt_fetch_result fr;
	memset(&fr, 0, sizeof fr);
	rc = pyrt_fetch(&fo, r->ev, &fr, err);
	if (!rc && fr.resumes > 0 &&
	    !pyrt_sha256_hex_equal(fr.sha256, r->pin->sha256))
		rc = install_refetch(r, &fo, &fr, err);
	if (rc)
		return step_fail(r, PYRT_STEP_DOWNLOAD, rc, err);
	memcpy(r->sha256, fr.sha256, sizeof r->sha256);
	r->archive_bytes = fr.bytes;
	rc = pyrt_events_step(r->ev, PYRT_STEP_DOWNLOAD, PYRT_STEP_END, NULL);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

/* Copy in to out while hashing; at most cap bytes (more is refused). */
static int install_copy_hash(install_run *r, int in, int out, uint64_t cap,
			     pyrt_error *err)
{
	unsigned long long bytes = 0;
	char name[PATH_MAX + 16];
	pyrt_fmt_text(name, sizeof name, "--from-file %s", r->opts->from_file);
	int rc = pyrt_sha256_copy(in, out, cap, name, r->archive_path, r->ev,
				  r->sha256, &bytes, err);
	r->archive_bytes += bytes;
	if (rc == PYRT_E_VERIFY)
		rc = pyrt_error_set(err, PYRT_E_VERIFY,
				    "--from-file %s is larger than the pinned "
				    "%llu bytes; nothing was activated",
				    r->opts->from_file,
				    (unsigned long long)cap);
	return rc;
}

/*
 * Remove what a killed run left in dir: every entry whose name starts with
 * prefix and, when links_only, is a symlink (else anything but a
 * directory).  Each removal is logged as "removed <what> <name>" when what
 * is given.  Only under the box lock: no other run is between steps.
 */
static void install_sweep_prefix(const char *dir, const char *prefix,
				 int links_only, const char *what,
				 const pyrt_events *ev)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	size_t plen = strlen(prefix);
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		if (links_only &&
		    (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		     !S_ISLNK(st.st_mode)))
			continue;
		if (unlinkat(dfd, e->d_name, 0) == 0 && what)
			pyrt_events_log(ev, PYRT_LOG_INFO, "removed %s %s",
					what, e->d_name);
	}
	closedir(d);
}

/*
 * --from-file: no download.  The file is opened once and copied, while it
 * is hashed, into a private file in the box; only that copy is extracted.
 * Whoever can write the given file or its folder can change it at any
 * moment, so its name is never opened a second time.
 */
static int install_local(install_run *r, pyrt_error *err)
{
	const char *path = r->opts->from_file;
	int rc = pyrt_events_step(r->ev, PYRT_STEP_DOWNLOAD, PYRT_STEP_SKIP,
				  "local archive");
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	int in = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "--from-file %s", path);
	struct stat st;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "--from-file %s is not a regular file",
				      path);
	}
	pyrt_fmt_text(r->source, sizeof r->source, "%s", path);
	int n = snprintf(r->archive_path, sizeof r->archive_path,
			 "%s/from-file.%ld.tmp", pyrt_box_downloads_dir(r->box),
			 (long)getpid());
	if (n < 0 || (size_t)n >= sizeof r->archive_path) {
		close(in);
		return pyrt_error_set(err, PYRT_E_USAGE, "box path too long");
	}
	/* A copy left by a killed run was removed with the lock taken
	 * (install_repair). */
	int out = pyrt_fs_open_state(r->archive_path,
				     O_WRONLY | O_CREAT | O_EXCL, 0600, err);
	if (out < 0) {
		close(in);
		return out;
	}
	r->archive_is_copy = 1;
	uint64_t cap = r->pin->size ? r->pin->size : PYRT_FROM_FILE_MAX;
	rc = install_copy_hash(r, in, out, cap, err);
	close(in);
	if (close(out) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", r->archive_path);
	return rc;
}

/* Constant-time digest comparison; a mismatch removes our download. */
static int install_verify(install_run *r, pyrt_error *err)
{
	int rc = pyrt_events_step(r->ev, PYRT_STEP_VERIFY, PYRT_STEP_BEGIN,
				  NULL);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	int size_ok = !r->pin->size || r->pin->size == r->archive_bytes;
	if (pyrt_sha256_hex_equal(r->sha256, r->pin->sha256) && size_ok)
		goto ok;
	if (r->archive_is_download || r->archive_is_copy)
		unlink(r->archive_path);
	if (!size_ok)
		pyrt_error_set(err, PYRT_E_VERIFY,
			       "size mismatch for %s: expected %llu bytes, got "
			       "%llu; %s, nothing was activated", r->source,
			       (unsigned long long)r->pin->size,
			       (unsigned long long)r->archive_bytes,
			       r->archive_is_download ? "the download was deleted"
						      : "the file was left as it is");
	else
		pyrt_error_set(err, PYRT_E_VERIFY,
			       "SHA-256 mismatch for %s: expected %s, got %s; "
			       "%s, nothing was activated", r->source,
			       r->pin->sha256, r->sha256,
			       r->archive_is_download ? "the download was deleted"
						      : "the file was left as it is");
	return step_fail(r, PYRT_STEP_VERIFY, PYRT_E_VERIFY, err);
ok:
	rc = pyrt_events_step(r->ev, PYRT_STEP_VERIFY, PYRT_STEP_END,
			      r->sha256);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

/* A unique install id: version, build, digest prefix, time, pid. */
/* The pins' fields are bounded (pins.c), so the id always fits; were it
 * ever cut, its stamp and pid would go and two installs could collide. */
static int install_make_id(install_run *r, pyrt_error *err)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	int n = snprintf(r->id, sizeof r->id, "%s+%s-%.12s-%s-%ld",
			 pyrt_pins_version(r->opts->pins),
			 pyrt_pins_build(r->opts->pins), r->sha256, stamp,
			 (long)getpid());
	if (n < 0 || (size_t)n >= sizeof r->id)
		return pyrt_error_set(err, PYRT_E_PINS,
				      "the install id for version %s build %s "
				      "is too long — shorten them in the pins",
				      pyrt_pins_version(r->opts->pins),
				      pyrt_pins_build(r->opts->pins));
	return 0;
}

/* Put a short phrase in front of a recorded message. */
static void install_prefix_message(pyrt_error *err, const char *prefix)
{
	char copy[PYRT_ERROR_MSG_MAX];
	memcpy(copy, err->msg, sizeof copy);
	pyrt_fmt_text(err->msg, sizeof err->msg, "%s%s", prefix, copy);
}

static int install_extract(install_run *r, pyrt_error *err)
{
	int rc = pyrt_events_step(r->ev, PYRT_STEP_EXTRACT, PYRT_STEP_BEGIN,
				  NULL);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	rc = install_make_id(r, err);
	if (rc)
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	rc = pyrt_fmt_path(r->staging, sizeof r->staging, err, "%s/%s",
			   pyrt_box_staging_dir(r->box), r->id);
	if (rc)
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	/* Made 0755 (chmod: whatever the umask): it becomes installs/<id>,
	 * every user's to read; staging/ keeps it private until then. */
	if (mkdir(r->staging, 0700) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot create %s", r->staging);
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	}
	r->staging_made = 1;
	if (chmod(r->staging, 0755) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot make %s readable", r->staging);
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	}
	pyrt_testhook("staging-made");
	rc = pyrt_staging_mark_owner(r->staging, err);
	if (rc)
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	/* Written as extraction goes (memory stays flat in the number of
	 * files); beside python/, named only once everything succeeded. */
	char mpath[PATH_MAX];
	rc = pyrt_fmt_path(mpath, sizeof mpath, err, "%s/manifest.tsv",
			   r->staging);
	if (rc)
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	pyrt_extract_opts xo = PYRT_EXTRACT_OPTS_INIT;
	pyrt_extract_caps_from_pin(&xo, r->pin->unpacked_size,
				   r->pin->entries);
	xo.required_file = pyrt_pins_layout_interpreter(r->opts->pins);
	pyrt_extract_result xr;
	memset(&xr, 0, sizeof xr);
	/* Members all lie under python/ (layout rule), so the owner marker
	 * beside them cannot collide with the archive. */
	rc = pyrt_extract(r->archive_path, r->staging, &xo, r->ev, mpath, &xr,
			  err);
	if (rc == PYRT_E_UNSAFE && err)
		install_prefix_message(err, "archive refused: ");
	if (rc)
		return step_fail(r, PYRT_STEP_EXTRACT, rc, err);
	r->files = xr.records;
	char detail[64];
	pyrt_fmt_text(detail, sizeof detail, "%llu entries",
		      (unsigned long long)xr.entries);
	rc = pyrt_events_step(r->ev, PYRT_STEP_EXTRACT, PYRT_STEP_END, detail);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

/* Path p made relative to one of the prefixes; NULL when under none. */
static const char *search_rel(const char *p, const char *const *prefixes,
			      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(prefixes[i]);
		if (k && strncmp(p, prefixes[i], k) == 0 && p[k] == '/')
			return p + k + 1;
	}
	return NULL;
}

/* The "P " lines after the version into r->search; any line it cannot
 * record (outside the prefix, too many, odd) leaves it unknown. */
static void install_search_path(install_run *r, const char *rel_interp,
				const char *output)
{
	char lit[PATH_MAX], real[PATH_MAX], stage_real[PATH_MAX];
	size_t top = strcspn(rel_interp, "/");
	int n = 0;
	r->search_known = 0;
	/* A prefix that does not fit would match other paths: unknown. */
	if (pyrt_fmt_path(lit, sizeof lit, NULL, "%s/%.*s", r->staging,
			  (int)top, rel_interp))
		return;
	real[0] = '\0';
	if (realpath(r->staging, stage_real) &&
	    pyrt_fmt_path(real, sizeof real, NULL, "%s/%.*s", stage_real,
			  (int)top, rel_interp))
		return;
	const char *prefixes[] = { lit, real };
	const char *l = strchr(output, '\n');
	while (l && *++l) {
		size_t len = strcspn(l, "\n");
		char line[PATH_MAX];
		if (len < 3 || len >= sizeof line || strncmp(l, "P ", 2) != 0 ||
		    n == PYRT_MARKER_SEARCH_MAX)
			return;
		memcpy(line, l + 2, len - 2);
		line[len - 2] = '\0';
		const char *rel = search_rel(line, prefixes, 2);
		if (!rel || !pyrt_marker_search_entry_ok(rel))
			return;
		pyrt_fmt_text(r->search[n++], sizeof r->search[0], "%s", rel);
		l += len;
		if (!*l)
			break;
	}
	r->search_count = n;
	r->search_known = n > 0;
}

/*
 * Start the staged interpreter on py/install_check.py the way execute_code
 * will (-I, scrubbed environment, hard timeout) and require the pinned
 * version: an archive that verifies but cannot run on this machine must
 * never become current.
 */
static int install_check(install_run *r, pyrt_error *err)
{
	const char *rel = pyrt_pins_layout_interpreter(r->opts->pins);
	if (!rel)
		return pyrt_events_step(r->ev, PYRT_STEP_CHECK, PYRT_STEP_SKIP,
					"no interpreter in this layout");
	pyrt_testhook("before-check");
	int rc = pyrt_events_step(r->ev, PYRT_STEP_CHECK, PYRT_STEP_BEGIN,
				  NULL);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	char interp[PATH_MAX];
	rc = pyrt_fmt_path(interp, sizeof interp, err, "%s/%s", r->staging,
			   rel);
	if (rc)
		return step_fail(r, PYRT_STEP_CHECK, rc, err);
	const char *argv[PYRT_INTERP_PREFIX_LEN + 5];
	size_t k = pyrt_interp_argv(argv, interp);
	argv[k++] = "-S";
	argv[k++] = "-B";
	argv[k++] = "-c";
	argv[k++] = pyrt_py_install_check;
	argv[k] = NULL;
	char **envp = pyrt_proc_scrubbed_env(r->staging);
	if (!envp)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.cwd = r->staging;
	po.timeout_s = r->opts->check_timeout_s > 0 ? r->opts->check_timeout_s
						    : CHECK_TIMEOUT_DEFAULT_S;
	po.capture_max = 64 * 1024;
	po.cancel = r->ev ? r->ev->cancel : NULL;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	rc = pyrt_proc_run(&po, &pr, err);
	pyrt_proc_env_free(envp);
	if (rc)
		return step_fail(r, PYRT_STEP_CHECK, rc, err);
	const char *want = pyrt_pins_version(r->opts->pins);
	char got[64] = "";
	if (pr.output)
		sscanf(pr.output, "%63s", got);
	if (pr.cancelled)
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	else if (pr.timed_out)
		rc = pyrt_error_set(err, PYRT_E_INTERPRETER,
				    "the staged interpreter did not answer within "
				    "%.0f s; nothing was activated", po.timeout_s);
	else if (!pr.exited || pr.exit_code != 0)
		/* Its words, or that it had none: never an empty reason. */
		rc = pyrt_error_set(err, PYRT_E_INTERPRETER,
				    "the staged interpreter failed to start "
				    "(%s %d): %.200s; nothing was activated",
				    pr.exited ? "exit" : "killed by signal",
				    pr.exited ? pr.exit_code : pr.term_signal,
				    pr.output && pr.output[strspn(pr.output,
								  " \t\r\n")]
					? pr.output
					: "it printed nothing");
	else if (strcmp(got, want) != 0)
		rc = pyrt_error_set(err, PYRT_E_INTERPRETER,
				    "the staged interpreter reports Python %s but "
				    "the pin says %s; nothing was activated",
				    got, want);
	if (!rc && pr.output)
		install_search_path(r, rel, pr.output);
	pyrt_proc_result_clear(&pr);
	if (rc)
		return step_fail(r, PYRT_STEP_CHECK, rc, err);
	rc = pyrt_events_step(r->ev, PYRT_STEP_CHECK, PYRT_STEP_END, got);
	return rc ? pyrt_error_set(err, rc, "cancelled") : 0;
}

static int install_write_marker(install_run *r, pyrt_error *err)
{
	pyrt_marker m;
	memset(&m, 0, sizeof m);
	m.schema = 1;
	pyrt_fmt_text(m.implementation, sizeof m.implementation, "%s",
		      pyrt_pins_implementation(r->opts->pins));
	pyrt_fmt_text(m.version, sizeof m.version, "%s",
		      pyrt_pins_version(r->opts->pins));
	pyrt_fmt_text(m.build, sizeof m.build, "%s", pyrt_pins_build(r->opts->pins));
	pyrt_fmt_text(m.platform, sizeof m.platform, "%s", r->pin->key);
	memcpy(m.sha256, r->sha256, sizeof m.sha256);
	pyrt_fmt_text(m.source, sizeof m.source, "%s", r->source);
	pyrt_fs_now_rfc3339(m.installed_at, sizeof m.installed_at);
	pyrt_fmt_text(m.pins, sizeof m.pins, "%s", pyrt_pins_source(r->opts->pins));
	m.archive_bytes = r->archive_bytes;
	m.files = r->files;
	strcpy(m.baseline_state, "none");
	m.search_path_known = r->search_known;
	m.search_path_count = r->search_count;
	memcpy(m.search_path, r->search, sizeof m.search_path);
	char path[PATH_MAX];
	int rc = pyrt_fmt_path(path, sizeof path, err, "%s/manifest.tsv",
			       r->staging);
	/* Extraction wrote it; its digest is of the bytes on disk, read
	 * back as verify will. */
	if (!rc)
		rc = pyrt_manifest_load(NULL, path, m.manifest_sha256, err);
	if (!rc)
		rc = pyrt_fmt_path(path, sizeof path, err, "%s/marker.json",
				   r->staging);
	return rc ? rc : pyrt_marker_write(path, &m, err);
}

/*
 * Make dir durable: fsync it (so a rename inside it survives a crash), or,
 * with whole_fs, syncfs its filesystem: one call instead of an fsync per
 * extracted file, so the swap never points at data still in the page cache.
 */
static int install_sync(const char *dir, int whole_fs, pyrt_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open %s", dir);
	int rc = whole_fs ? pyrt_os_sync_fs(fd) : fsync(fd);
	int saved = errno;
	close(fd);
	if (rc != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, saved,
					    "cannot sync %s", dir);
	return 0;
}

/*
 * Point link (current or previous) at target atomically: a new symlink under
 * a temporary name renamed over the old one, so readers see old or new.
 */
static int install_point(const char *runtime_dir, const char *link,
			 const char *target, pyrt_error *err)
{
	char tmp[PATH_MAX];
	int rc = pyrt_fmt_path(tmp, sizeof tmp, err, "%s/.link.%ld",
			       runtime_dir, (long)getpid());
	if (rc)
		return rc;
	unlink(tmp);
	if (symlink(target, tmp) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", tmp);
	pyrt_testhook("link-made");
	if (rename(tmp, link) != 0) {
		int saved = errno;
		unlink(tmp);
		return pyrt_error_set_errno(err, PYRT_E_IO, saved,
					    "cannot activate %s", link);
	}
	return install_sync(runtime_dir, 0, err);
}

/* The relative link target of a link, "" when absent. */
static void install_link_target(const char *link, char *buf, size_t len)
{
	ssize_t n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Remove installs that neither current nor previous points at (left by a
 * crash between move and swap, or superseded rollback targets).
 */
static void install_prune(const pyrt_box *box, const pyrt_events *ev)
{
	char cur[PATH_MAX], prev[PATH_MAX];
	install_link_target(pyrt_box_current(box), cur, sizeof cur);
	install_link_target(pyrt_box_previous(box), prev, sizeof prev);
	const char *dir = pyrt_box_installs_dir(box);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char want[PATH_MAX];
		/* One whose link would not fit is kept, never misnamed. */
		if (pyrt_fmt_path(want, sizeof want, NULL, "installs/%s/python",
				  de->d_name) ||
		    strcmp(want, cur) == 0 || strcmp(want, prev) == 0)
			continue;
		char path[PATH_MAX];
		pyrt_error perr = PYRT_ERROR_INIT;
		/* A cut path would name another tree: that one is left. */
		if (pyrt_fmt_path(path, sizeof path, &perr, "%s/%s", dir,
				  de->d_name) == 0 &&
		    pyrt_fs_remove_tree(path, NULL, &perr) == 0)
			pyrt_events_log(ev, PYRT_LOG_INFO,
					"removed superseded install %s",
					de->d_name);
		else
			pyrt_events_log(ev, PYRT_LOG_WARN, "%s", perr.msg);
	}
	closedir(d);
}

/*
 * Make target current and keep old as the rollback target.  Two links move,
 * and no rename moves both: so the rollback target is written down first, as
 * the link .previous.pending, and renamed over `previous` once `current` has
 * moved.  A run killed in between leaves that record for the next run's
 * repair (install_settle_pending) instead of a lost rollback target.
 * Returns 0 once current points at target (*kept: previous now points at
 * old; when it could not be moved, perr says why), else nothing changed.
 */
static int install_swap(const pyrt_box *box, const char *target,
			const char *old, int *kept, pyrt_error *perr,
			pyrt_error *err)
{
	const char *runtime = pyrt_box_runtime_dir(box);
	char pending[PATH_MAX];
	int rc = pyrt_fmt_path(pending, sizeof pending, err, "%s/%s", runtime,
			       INSTALL_PENDING_LINK);
	if (rc)
		return rc;
	int keep = old[0] && strcmp(old, target) != 0;
	*kept = 0;
	if (keep) {
		unlink(pending);
		if (symlink(old, pending) != 0)
			return pyrt_error_set_errno(err, PYRT_E_IO, errno,
						    "cannot create %s", pending);
		rc = install_sync(runtime, 0, err);
		if (rc) {
			unlink(pending);
			return rc;
		}
	}
	rc = install_point(runtime, pyrt_box_current(box), target, err);
	if (rc) {
		if (keep)
			unlink(pending);
		return rc;
	}
	pyrt_testhook("between-swaps");
	if (!keep)
		return 0;
	if (rename(pending, pyrt_box_previous(box)) != 0) {
		pyrt_error_set_errno(perr, PYRT_E_IO, errno,
				     "cannot move %s to %s", pending,
				     pyrt_box_previous(box));
		return 0;
	}
	*kept = install_sync(runtime, 0, perr) == 0;
	return 0;
}

/*
 * Finish what a run killed between the two link moves began: when current
 * has moved away from the recorded old install, that install becomes the
 * rollback target; when it has not, the record goes.
 */
static void install_settle_pending(const pyrt_box *box, const pyrt_events *ev)
{
	char pending[PATH_MAX], want[PATH_MAX], cur[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	if (pyrt_fmt_path(pending, sizeof pending, NULL, "%s/%s",
			  pyrt_box_runtime_dir(box), INSTALL_PENDING_LINK) ||
	    lstat(pending, &st) != 0 || !S_ISLNK(st.st_mode))
		return;
	install_link_target(pending, want, sizeof want);
	install_link_target(pyrt_box_current(box), cur, sizeof cur);
	if (cur[0] && strcmp(cur, want) != 0 &&
	    pyrt_box_link_install(box, pending, dir, sizeof dir, NULL) == 0 &&
	    rename(pending, pyrt_box_previous(box)) == 0) {
		pyrt_events_log(ev, PYRT_LOG_INFO,
				"kept %s as the rollback target (an earlier "
				"run stopped before it could)", want);
		install_sync(pyrt_box_runtime_dir(box), 0, NULL);
		return;
	}
	unlink(pending);
}

/*
 * Under the box lock no other run is between steps, so whatever a killed
 * run left is ours to settle: the rollback target it had not recorded yet,
 * its temporary links (killed between symlink(2) and rename(2)), its
 * from-file copy, and installs that neither link names (moved but never
 * swapped, or superseded).  Every install runs this once it holds the
 * lock, before it copies a --from-file archive.
 */
static void install_repair(const pyrt_box *box, const pyrt_events *ev)
{
	install_settle_pending(box, ev);
	install_sweep_prefix(pyrt_box_runtime_dir(box), ".link.", 1,
			     "the stray link", ev);
	install_sweep_prefix(pyrt_box_downloads_dir(box), "from-file.", 0,
			     NULL, ev);
	install_prune(box, ev);
}

static int install_activate(install_run *r, pyrt_install_result *res,
			    pyrt_error *err)
{
	int rc = pyrt_events_step(r->ev, PYRT_STEP_ACTIVATE, PYRT_STEP_BEGIN,
				  NULL);
	if (rc)
		return pyrt_error_set(err, rc, "cancelled");
	/* The owner record stays until the tree has left staging: a run
	 * killed before that leaves a directory the next sweep knows. */
	pyrt_testhook("before-marker");
	rc = install_write_marker(r, err);
	if (!rc)
		rc = install_sync(r->staging, 1, err);
	char dest[PATH_MAX], owner[PATH_MAX];
	if (!rc)
		rc = pyrt_fmt_path(dest, sizeof dest, err, "%s/%s",
				   pyrt_box_installs_dir(r->box), r->id);
	if (!rc)
		rc = pyrt_fmt_path(owner, sizeof owner, err, "%s/.owner", dest);
	pyrt_testhook("before-move");
	/* Last chance to honour a cancel: after the swap it is a success. */
	if (!rc && pyrt_events_cancelled(r->ev))
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (!rc && rename(r->staging, dest) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot move %s into place", r->staging);
	if (rc)
		return step_fail(r, PYRT_STEP_ACTIVATE, rc, err);
	r->staging_made = 0;
	pyrt_fmt_text(r->unswapped, sizeof r->unswapped, "%s", dest);
	unlink(owner);
	rc = install_sync(pyrt_box_installs_dir(r->box), 0, err);
	pyrt_testhook("before-swap");
	if (!rc && pyrt_events_cancelled(r->ev))
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (rc)
		return step_fail(r, PYRT_STEP_ACTIVATE, rc, err);

	const char *runtime = pyrt_box_runtime_dir(r->box);
	char old[PATH_MAX], target[PATH_MAX];
	install_link_target(pyrt_box_current(r->box), old, sizeof old);
	rc = pyrt_fmt_path(target, sizeof target, err, "installs/%s/python",
			   r->id);
	if (rc)
		return step_fail(r, PYRT_STEP_ACTIVATE, rc, err);
	/* The one instant that matters: current flips from old to new. */
	int kept = 0;
	pyrt_error perr = PYRT_ERROR_INIT;
	rc = install_swap(r->box, target, old, &kept, &perr, err);
	if (rc)
		return step_fail(r, PYRT_STEP_ACTIVATE, rc, err);
	r->unswapped[0] = '\0';
	if (kept) /* "" rather than a cut path (it is there all the same) */
		pyrt_fmt_path(res->previous, sizeof res->previous, NULL,
			      "%s/%s", runtime, old);
	else if (perr.msg[0])
		pyrt_events_log(r->ev, PYRT_LOG_WARN,
				"new runtime active, but the rollback link was "
				"not kept (the next run keeps it): %s",
				perr.msg);
	pyrt_testhook("after-swap");
	install_prune(r->box, r->ev);
	pyrt_fmt_text(res->install_dir, sizeof res->install_dir, "%s", dest);
	/* current points at the new install: a cancel that arrives now
	 * cannot undo that, so it is not reported as if it had. */
	pyrt_events_step(r->ev, PYRT_STEP_ACTIVATE, PYRT_STEP_END,
			 pyrt_box_current(r->box));
	return 0;
}

/* Undo what this run created, never more; errors here are only logged. */
static void install_cleanup(install_run *r, int rc)
{
	if (rc)
		pyrt_testhook("cleanup");
	if (r->staging_made) {
		pyrt_error cerr = PYRT_ERROR_INIT;
		if (pyrt_fs_remove_tree(r->staging, NULL, &cerr) != 0)
			pyrt_events_log(r->ev, PYRT_LOG_WARN,
					"could not remove staging: %s",
					cerr.msg);
	}
	/* Moved into installs/ but never made current: not an install. */
	if (r->unswapped[0]) {
		pyrt_error cerr = PYRT_ERROR_INIT;
		if (pyrt_fs_remove_tree(r->unswapped, NULL, &cerr) != 0)
			pyrt_events_log(r->ev, PYRT_LOG_WARN,
					"could not remove %s: %s",
					r->unswapped, cerr.msg);
	}
	/* A verified download is consumed once activated; a partial one is
	 * kept (cancel, network error) so the next run resumes it. */
	if (rc == 0 && r->archive_is_download)
		unlink(r->archive_path);
	/* The private copy of --from-file never outlives its run. */
	if (r->archive_is_copy)
		unlink(r->archive_path);
	pyrt_lock_release(r->lock);
}

/* A box on a read-only file system cannot be locked, and needs no lock
 * when it is already what the pins want: nobody can change it. */
static int install_read_only(const pyrt_box *box)
{
	return access(pyrt_box_root(box), W_OK) != 0 && errno == EROFS;
}

static int install_pipeline(install_run *r, pyrt_install_result *res,
			    pyrt_error *err)
{
	if (!r->opts->force && install_read_only(r->box) &&
	    install_is_current(r->box, r->opts->pins, r->pin,
			       r->opts->platform_key)) {
		res->already_current = 1;
		return 0;
	}
	int rc = install_lock(r, err);
	if (rc)
		return rc;
	if (!r->opts->force && install_is_current(r->box, r->opts->pins, r->pin,
						 r->opts->platform_key)) {
		res->already_current = 1;
		return 0;
	}
	rc = r->opts->from_file ? install_local(r, err)
				: install_download(r, err);
	if (!rc)
		pyrt_testhook("after-download");
	if (!rc)
		rc = install_verify(r, err);
	if (!rc)
		rc = install_extract(r, err);
	if (!rc)
		rc = install_check(r, err);
	if (!rc)
		rc = install_activate(r, res, err);
	return rc;
}

int pyrt_install_run(const pyrt_box *box, const pyrt_install_opts *opts,
		     const pyrt_events *ev, pyrt_install_result *res,
		     pyrt_error *err)
{
	memset(res, 0, sizeof *res);
	int rc = install_check_opts(opts, err);
	if (rc)
		return rc;
	install_run r;
	memset(&r, 0, sizeof r);
	r.opts = opts;
	r.ev = ev;
	r.pin = install_pin(opts, err);
	if (!r.pin)
		return err ? err->code : PYRT_E_UNSUPPORTED;
	r.box = box;
	rc = pyrt_box_create(box, err);
	if (!rc)
		rc = pyrt_box_check_change(box, "install", err);
	if (rc)
		return rc;
	rc = install_pipeline(&r, res, err);
	if (rc == 0) {
		pyrt_fmt_text(res->current, sizeof res->current, "%s",
			      pyrt_box_current(r.box));
		memcpy(res->sha256, r.sha256[0] ? r.sha256 : r.pin->sha256,
		       sizeof res->sha256);
		res->archive_bytes = r.archive_bytes;
		res->files = r.files;
	}
	install_cleanup(&r, rc);
	return rc;
}

/* Take the box lock for a maintenance command (rollback, uninstall) on
 * the box the caller opened. */
static int install_lock_box(const pyrt_box *box, const char *command,
			    int no_wait, const pyrt_events *ev,
			    pyrt_lock **lock, pyrt_error *err)
{
	int rc = pyrt_box_check_change(box, command, err);
	if (rc)
		return rc;
	if (access(pyrt_box_runtime_dir(box), F_OK) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "nothing is installed under %s",
				      pyrt_box_root(box));
	rc = pyrt_lock_acquire(lock, pyrt_box_lock_path(box), !no_wait, ev,
			       err);
	if (rc)
		return rc;
	install_repair(box, ev);
	return 0;
}

/*
 * Switching to a broken install would trade a runtime for a dead one and
 * call it done: the target must pass the quick checks status runs on
 * current, unless the operator insists.  Returns 0 or PYRT_E_NOT_READY.
 */
static int rollback_target_ok(const pyrt_install_opts *o,
			      const pyrt_box *box,
			      const pyrt_events *ev, pyrt_error *err)
{
	pyrt_status *st = calloc(1, sizeof *st);
	if (!st)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	pyrt_status_check_link(box, pyrt_box_previous(box), o->pins,
			       o->platform_key, st);
	int rc = 0;
	if (st->state == PYRT_STATE_BROKEN && o->force)
		pyrt_events_log(ev, PYRT_LOG_WARN, "rolling back to a broken "
				"install (--force): %s: %s", st->failed_check,
				st->failed_why);
	else if (st->state == PYRT_STATE_BROKEN)
		rc = pyrt_error_set(err, PYRT_E_NOT_READY,
				    "the rollback target %s is broken (%s: %s) — "
				    "keep the active runtime, run \"pyrt "
				    "install --force\" for a fresh one, or "
				    "\"pyrt rollback --force\" to switch "
				    "anyway", pyrt_box_previous(box),
				    st->failed_check, st->failed_why);
	free(st);
	return rc;
}

int pyrt_install_rollback(const pyrt_box *box, const pyrt_install_opts *o,
			  const pyrt_events *ev, pyrt_error *err)
{
	pyrt_lock *lock = NULL;
	int rc = install_lock_box(box, "rollback", o->no_wait, ev, &lock, err);
	if (rc)
		return rc;
	char dir[PATH_MAX], cur[PATH_MAX], prev[PATH_MAX];
	rc = pyrt_box_link_install(box, pyrt_box_previous(box), dir,
				   sizeof dir, err);
	if (rc == PYRT_E_NOT_READY) {
		pyrt_error_clear(err);
		rc = pyrt_error_set(err, PYRT_E_NOT_READY,
				    "no previous runtime to roll back to");
	}
	if (!rc)
		rc = rollback_target_ok(o, box, ev, err);
	if (rc)
		goto cleanup;
	install_link_target(pyrt_box_current(box), cur, sizeof cur);
	install_link_target(pyrt_box_previous(box), prev, sizeof prev);
	int kept = 0;
	pyrt_error perr = PYRT_ERROR_INIT;
	rc = install_swap(box, prev, cur, &kept, &perr, err);
	if (rc)
		goto cleanup;
	if (cur[0] && strcmp(cur, prev) != 0 && !kept)
		rc = pyrt_error_set(err, perr.code ? perr.code : PYRT_E_IO,
				    "%s", perr.msg);
	else if (!cur[0] && unlink(pyrt_box_previous(box)) != 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot remove %s",
					  pyrt_box_previous(box));
	if (!rc)
		pyrt_events_log(ev, PYRT_LOG_INFO, "current now points to %s",
				prev);
cleanup:
	pyrt_lock_release(lock);
	return rc;
}

int pyrt_install_uninstall(const pyrt_box *box, int no_wait,
			   const pyrt_events *ev, pyrt_error *err)
{
	pyrt_lock *lock = NULL;
	int rc = install_lock_box(box, "uninstall", no_wait, ev, &lock, err);
	if (rc)
		return rc;
	/* Deactivate first: from here on status says not_provisioned, never
	 * a half-removed tree. */
	if (unlink(pyrt_box_current(box)) != 0 && errno != ENOENT)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot remove %s",
					  pyrt_box_current(box));
	if (!rc && unlink(pyrt_box_previous(box)) != 0 && errno != ENOENT)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot remove %s",
					  pyrt_box_previous(box));
	if (!rc)
		rc = install_sync(pyrt_box_runtime_dir(box), 0, err);
	const char *dirs[] = { pyrt_box_installs_dir(box),
			       pyrt_box_staging_dir(box),
			       pyrt_box_downloads_dir(box) };
	for (size_t i = 0; !rc && i < sizeof dirs / sizeof *dirs; i++)
		rc = pyrt_fs_remove_tree(dirs[i], NULL, err);
	/* What the runtime should hold (declared.h) goes with it: a new
	 * install starts from its own baseline, not from this one's. */
	char decl[PATH_MAX];
	if (!rc && pyrt_declared_path(pyrt_box_runtime_dir(box), decl,
				      sizeof decl, NULL) == 0 &&
	    unlink(decl) != 0 && errno != ENOENT)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot remove %s", decl);
	/* The plugin check's remembered answer names a runtime now gone. */
	char memo[PATH_MAX];
	if (!rc && pyrt_fmt_path(memo, sizeof memo, NULL, "%s/"
				 PYRT_BOX_CACHE_DIR,
				 pyrt_box_runtime_dir(box)) == 0)
		pyrt_fs_remove_tree(memo, NULL, NULL);
	if (!rc)
		pyrt_events_log(ev, PYRT_LOG_INFO, "removed the runtime under %s",
				pyrt_box_runtime_dir(box));
	pyrt_lock_release(lock);
	return rc;
}
