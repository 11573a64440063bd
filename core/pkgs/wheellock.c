/*
 * The wheel lock at install time (wheellock.h).  The lock is the trust
 * anchor the mirror does not control: whoever can write a wheelhouse, a
 * mirror or an index can change a wheel and any index that describes it,
 * but not the pins the operator distributed.  So every wheel is judged
 * against the pins before any installer opens it, and what is installed
 * is a private copy made while it was hashed.
 */
#include "core/pkgs/wheellock.h"
#include "core/pkgs/wheelcheck.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runtime/box.h"
#include "core/runtime/interp.h"
#include "core/runtime/marker.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"
#include "core/util/requirement.h"
#include "core/util/sha256.h"
#include "core/util/testhook.h"
#include "core/util/trust.h"

#define LOCK_REQS_FILE "requirements.txt"
#define CLOSURE_TAG "PYRT-LOCK " /* py/lock_closure.py prints it */
#define CLOSURE_TIMEOUT_S 120.0
#define CLOSURE_OUTPUT_MAX (1024 * 1024)

struct pyrt_wheellock {
	char dir[PATH_MAX];       /* <box>/runtime/python/wheels */
	char files[PATH_MAX];     /* dir/files: the private copy */
	char reqs[PATH_MAX];      /* dir/requirements.txt */
	int have_files;           /* a wheelhouse was copied */
	size_t copied;
	unsigned char *present;   /* per locked wheel: copied */
	/* per locked wheel: its project is in the requirements' closure
	 * (all of them when no METADATA was at hand to close it), and the
	 * extras asked of it ("a,b"; on the project's first file) */
	unsigned char *wanted;
	char **extras;
	size_t n;
};

/* What one stage run works with. */
typedef struct stage_run {
	pyrt_wheellock *wl;
	const pyrt_pins *pins;
	const char *platform;
	const pyrt_pin_wheel *lock;
	size_t n;
	const char *wheelhouse;
	const char *const *reqs;
	size_t nreqs;
	char python[PATH_MAX];    /* the active install's interpreter */
	const pyrt_events *ev;
	/* without wheels at hand: {name: [Requires-Dist...]} of every
	 * locked wheel as `pyrt lock` recorded them (JSON), or NULL when
	 * the lock is older than that */
	char *recorded;
} stage_run;

/* ---- platform tags --------------------------------------------------------- */

/* Whether one tag of a wheel's platform part fits os/arch/libc. */
static int tag_fits(const char *tag, size_t n, const char *os,
		    const char *arch, const char *libc)
{
	char t[128];
	if (n >= sizeof t)
		return 0;
	memcpy(t, tag, n);
	t[n] = '\0';
	if (strcmp(t, "any") == 0)
		return 1;
	size_t al = strlen(arch), tl = strlen(t);
	int arch_ok = tl > al && t[tl - al - 1] == '_' &&
		      strcmp(t + tl - al, arch) == 0;
	if (strcmp(os, "linux") == 0 && strcmp(libc, "musl") == 0)
		return arch_ok && strncmp(t, "musllinux_", 10) == 0;
	if (strcmp(os, "linux") == 0)
		return arch_ok && (strncmp(t, "manylinux", 9) == 0 ||
				   strncmp(t, "linux_", 6) == 0);
	if (strcmp(os, "darwin") == 0)
		return strncmp(t, "macosx_", 7) == 0 &&
		       (arch_ok || strstr(t, "universal2") ||
			(strcmp(arch, "aarch64") == 0 &&
			 strstr(t, "_arm64")));
	if (strcmp(os, "windows") == 0)
		return strncmp(t, "win", 3) == 0 &&
		       (strcmp(arch, "x86_64") == 0 ? strstr(t, "amd64") != NULL
						    : strstr(t, arch) != NULL);
	return 0;
}

int pyrt_wheellock_fits(const char *file, const char *platform)
{
	char os[16], arch[24], libc[16];
	if (pyrt_pins_wheel_file_check(file) ||
	    sscanf(platform, "%15[^-]-%23[^-]-%15s", os, arch, libc) != 3)
		return 0;
	const char *end = file + strlen(file) - 4;
	const char *plat = end;
	while (plat > file && plat[-1] != '-')
		plat--;
	/* a compressed tag set: "manylinux_2_17_x86_64.manylinux2014_x86_64" */
	for (const char *p = plat; p < end;) {
		size_t n = strcspn(p, ".");
		if (p + n > end)
			n = (size_t)(end - p);
		if (tag_fits(p, n, os, arch, libc))
			return 1;
		p += n + (p + n < end);
	}
	return 0;
}

/* ---- the private folder -------------------------------------------------- */

/* A fresh 0700 folder: whatever a killed run left is ours (box lock). */
static int private_dir(const char *path, pyrt_error *err)
{
	int rc = pyrt_fs_remove_tree(path, NULL, err);
	if (rc)
		return rc;
	if (mkdir(path, 0700) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", path);
	int missing = 0;
	return pyrt_fs_check_private_dir(path, &missing, err);
}

static int stage_dirs(stage_run *s, const pyrt_box *box, pyrt_error *err)
{
	pyrt_wheellock *wl = s->wl;
	char install[PATH_MAX];
	int rc = pyrt_fmt_path(wl->dir, sizeof wl->dir, err, "%s/%s",
			   pyrt_box_runtime_dir(box), PYRT_WHEELLOCK_DIR);
	if (!rc)
		rc = pyrt_box_active_interpreter(box, s->pins, install,
						 sizeof install, s->python,
						 sizeof s->python, err);
	if (!rc)
		rc = pyrt_fmt_path(wl->files, sizeof wl->files, err, "%s/files",
				   wl->dir);
	if (!rc)
		rc = pyrt_fmt_path(wl->reqs, sizeof wl->reqs, err, "%s/%s",
				   wl->dir, LOCK_REQS_FILE);
	if (!rc)
		rc = private_dir(wl->dir, err);
	if (!rc && s->wheelhouse) {
		wl->have_files = 1;
		rc = private_dir(wl->files, err);
	}
	return rc;
}

/* ---- judging the requirements and the wheelhouse ------------------------- */

/* The locked wheel named file in lock, or -1. */
static long lock_index(const pyrt_pin_wheel *lock, size_t n, const char *file)
{
	for (size_t i = 0; lock && i < n; i++)
		if (strcmp(lock[i].file, file) == 0)
			return (long)i;
	return -1;
}

/* Whether file is in the lock of another platform of the pins. */
static int other_platform(const stage_run *s, const char *file)
{
	for (size_t k = 0; k < pyrt_pins_lock_count(s->pins); k++) {
		const char *key = pyrt_pins_lock_key_at(s->pins, k);
		size_t n = 0;
		const pyrt_pin_wheel *w = pyrt_pins_lock_find(s->pins, key, &n);
		if (strcmp(key, s->platform) != 0 && lock_index(w, n, file) >= 0)
			return 1;
	}
	return 0;
}

/* A requirement's project name, PEP 503-normalised, into out. */
static void req_project(const char *req, char *out, size_t len)
{
	/* The name ends at extras, a specifier or a marker. */
	size_t n = strspn(req, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789-_.");
	if (n >= len)
		n = len - 1;
	pyrt_name_normalize(req, n, '-', out);
}

/* Whether the lock holds a wheel of project name. */
static int lock_has_project(const stage_run *s, const char *name)
{
	for (size_t k = 0; k < s->n; k++)
		if (strcmp(s->lock[k].name, name) == 0)
			return 1;
	return 0;
}

/* Each requirement's project must be locked: a locked install takes
 * nothing the lock does not name. */
static int stage_reqs(const stage_run *s, const char *const *reqs,
		      size_t nreqs, pyrt_error *err)
{
	for (size_t i = 0; i < nreqs; i++) {
		char name[PYRT_PINS_WHEEL_FILE_MAX + 1];
		req_project(reqs[i], name, sizeof name);
		if (!lock_has_project(s, name))
			return pyrt_error_set(err, PYRT_E_VERIFY,
					      "%s is not in the wheel lock of "
					      "the pins (%s) for %s; nothing was "
					      "installed — add its wheels to the "
					      "lock with \"pyrt lock --wheelhouse DIR --out FILE\" and "
					      "distribute the new pins",
					      reqs[i], pyrt_pins_source(s->pins),
					      s->platform);
	}
	return 0;
}

/* The SHA-256 of an open file, read to its end (for a refusal). */
static void digest_of(int fd, char hex[PYRT_SHA256_HEX_LEN + 1],
		      unsigned long long *bytes)
{
	pyrt_error e = PYRT_ERROR_INIT;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pyrt_fmt_text(hex, PYRT_SHA256_HEX_LEN + 1, "(unreadable)");
	*bytes = 0;
	if (null >= 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	    pyrt_sha256_copy(fd, null, PYRT_PINS_WHEEL_SIZE_MAX, "wheel",
			     "/dev/null", NULL, hex, bytes, &e) != 0)
		pyrt_fmt_text(hex, PYRT_SHA256_HEX_LEN + 1, "(unreadable)");
	if (null >= 0)
		close(null);
}

/* Open a wheel of the wheelhouse once: a regular file, no link followed. */
static int open_wheel(const stage_run *s, const char *file, char *path,
		      size_t len, pyrt_error *err)
{
	int rc = pyrt_fmt_path(path, len, err, "%s/%s", s->wheelhouse, file);
	if (rc)
		return rc;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    O_NOCTTY);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return fd;
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return pyrt_error_set(err, PYRT_E_VERIFY, "%s: %s; a locked "
			      "install reads only regular files — nothing was "
			      "installed", path,
			      e ? strerror(e) : "not a regular file");
}

/* A wheel no lock names: refused, with its digest. */
static int refuse_unlocked(const stage_run *s, const char *file,
			   pyrt_error *err)
{
	char path[PATH_MAX], hex[PYRT_SHA256_HEX_LEN + 1];
	unsigned long long bytes = 0;
	int fd = open_wheel(s, file, path, sizeof path, err);
	if (fd < 0)
		return fd;
	digest_of(fd, hex, &bytes);
	close(fd);
	return pyrt_error_set(err, PYRT_E_VERIFY,
			      "%s is not in the wheel lock of the pins (%s) for "
			      "%s: expected no such wheel, got SHA-256 %s (%llu "
			      "bytes); nothing was installed — remove it from "
			      "the wheelhouse, or lock it with \"pyrt lock --wheelhouse DIR --out FILE\"",
			      path, pyrt_pins_source(s->pins), s->platform,
			      hex, bytes);
}

/* The refusal of a locked wheel whose bytes are not the lock's. */
static int refuse_mismatch(const char *path, const pyrt_pin_wheel *w,
			   const char *hex, unsigned long long bytes,
			   pyrt_error *err)
{
	return pyrt_error_set(err, PYRT_E_VERIFY,
			      "SHA-256 mismatch for %s: the wheel lock expects "
			      "%s (%llu bytes), got %s (%llu bytes); nothing "
			      "was installed — the wheelhouse or mirror was "
			      "changed: restore the wheel, or lock the new one "
			      "with \"pyrt lock --wheelhouse DIR --out FILE\" if you trust it", path,
			      w->sha256, (unsigned long long)w->size, hex,
			      bytes);
}

/* Copy a locked wheel into the private folder while hashing; keep the
 * copy only when it is the lock's bytes. */
static int copy_locked(stage_run *s, const pyrt_pin_wheel *w, pyrt_error *err)
{
	char path[PATH_MAX], copy[PATH_MAX + 256];
	char hex[PYRT_SHA256_HEX_LEN + 1];
	unsigned long long bytes = 0;
	int in = open_wheel(s, w->file, path, sizeof path, err);
	if (in < 0)
		return in;
	struct stat st;
	if (fstat(in, &st) != 0 || (uint64_t)st.st_size != w->size) {
		digest_of(in, hex, &bytes);
		close(in);
		return refuse_mismatch(path, w, hex, bytes, err);
	}
	int out = pyrt_fmt_path(copy, sizeof copy, err, "%s/%s", s->wl->files,
				w->file);
	if (!out)
		out = pyrt_fs_open_state(copy, O_WRONLY | O_CREAT | O_EXCL,
					 0600, err);
	if (out < 0) {
		close(in);
		return out;
	}
	int rc = pyrt_sha256_copy(in, out, w->size, path, copy, s->ev, hex,
				  &bytes, err);
	if (rc == PYRT_E_VERIFY)
		pyrt_fmt_text(hex, sizeof hex, "(it grew while it was read)");
	close(in);
	if (close(out) != 0 && !rc)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot write %s", copy);
	if ((!rc || rc == PYRT_E_VERIFY) &&
	    (rc || bytes != w->size || !pyrt_sha256_hex_equal(hex, w->sha256)))
		rc = refuse_mismatch(path, w, hex, bytes, err);
	if (rc)
		unlink(copy);
	return rc;
}

/* Every *.whl of the wheelhouse: copied, left (another platform's), or
 * refused. */
static int stage_wheelhouse(stage_run *s, pyrt_error *err)
{
	DIR *d = opendir(s->wheelhouse);
	if (!d)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "--wheelhouse %s", s->wheelhouse);
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 5 ||
		    strcmp(e->d_name + len - 4, ".whl") != 0)
			continue;
		long i = lock_index(s->lock, s->n, e->d_name);
		if (i >= 0) {
			rc = copy_locked(s, &s->lock[i], err);
			if (!rc) {
				s->wl->present[i] = 1;
				s->wl->copied++;
			}
		} else if (pyrt_pins_wheel_file_check(e->d_name) ||
			   (pyrt_wheellock_fits(e->d_name, s->platform) &&
			    !other_platform(s, e->d_name))) {
			/* What `pyrt lock` left out as another platform's
			 * (its fits rule) is left alone here too: neither
			 * installer reads anything but the private copy. */
			rc = refuse_unlocked(s, e->d_name, err);
		}
	}
	closedir(d);
	return rc;
}

/* ---- the requirements against the lock ------------------------------------ */

/* The fix of every refusal below: a lock that holds what is asked. */
static void relock_fix(const stage_run *s, const char *what, char *buf,
		       size_t len)
{
	pyrt_fmt_text(buf, len, "nothing was installed — re-lock: pyrt lock --pins "
		      "%s --wheelhouse DIR --platform %s --out FILE, with DIR "
		      "holding %s, then install with --pins FILE",
		      pyrt_pins_source(s->pins), s->platform, what);
}

/* py/lock_closure.py's refusal, in words. */
static int closure_refuse(const stage_run *s, json_t *r, pyrt_error *err)
{
	const char *req = json_string_value(json_object_get(r, "req"));
	const char *name = json_string_value(json_object_get(r, "name"));
	const char *locked = json_string_value(json_object_get(r, "locked"));
	const char *why = json_string_value(json_object_get(r, "why"));
	const char *detail = json_string_value(json_object_get(r, "detail"));
	char fix[1024], what[512], by[320] = "";
	req = req ? req : "?";
	name = name ? name : "?";
	why = why ? why : "?";
	detail = detail ? detail : "";
	if (*detail && (!strcmp(why, "version") || !strcmp(why, "missing")))
		pyrt_fmt_text(by, sizeof by, " (required by %s)", detail);
	if (!strcmp(why, "version")) {
		pyrt_fmt_text(what, sizeof what, "a wheel of %s that satisfies %s",
			      name, req);
		relock_fix(s, what, fix, sizeof fix);
		return pyrt_error_set(err, PYRT_E_VERIFY, "%s%s is not "
				      "satisfied by the wheel lock of the pins "
				      "(%s) for %s: it locks %s %s; %s", req, by,
				      pyrt_pins_source(s->pins), s->platform,
				      name, locked ? locked : "?", fix);
	}
	if (!strcmp(why, "missing")) {
		pyrt_fmt_text(what, sizeof what, "a wheel of %s", name);
		relock_fix(s, what, fix, sizeof fix);
		return pyrt_error_set(err, PYRT_E_VERIFY, "%s%s is not in the "
				      "wheel lock of the pins (%s) for %s; %s",
				      req, by, pyrt_pins_source(s->pins),
				      s->platform, fix);
	}
	if (!strcmp(why, "nowheel")) {
		pyrt_fmt_text(what, sizeof what, "a wheel of %s for this runtime's "
			      "interpreter", name);
		relock_fix(s, what, fix, sizeof fix);
		return pyrt_error_set(err, PYRT_E_VERIFY, "%s needs %s, and the "
				      "wheelhouse holds no locked wheel of it "
				      "that this runtime's interpreter can "
				      "install; %s", req, name, fix);
	}
	if (!strcmp(why, "marker"))
		return pyrt_error_set(err, PYRT_E_VERIFY, "the marker of %s "
				      "cannot be evaluated for this runtime "
				      "(%s), so the locked dependencies cannot "
				      "be told; nothing was installed — correct "
				      "the requirement, or lock a wheel whose "
				      "Requires-Dist markers pip can evaluate",
				      req, detail);
	pyrt_fmt_text(what, sizeof what, "a wheel of %s whose METADATA is readable",
		      name);
	relock_fix(s, what, fix, sizeof fix);
	return pyrt_error_set(err, PYRT_E_VERIFY, "the locked wheel of %s "
			      "cannot be read (%s); %s", name, detail, fix);
}

/* Mark the projects of the answer's "install" list as wanted, with the
 * extras asked of each. */
static int closure_take(stage_run *s, json_t *list, pyrt_error *err)
{
	pyrt_wheellock *wl = s->wl;
	size_t i;
	json_t *item;
	json_array_foreach(list, i, item) {
		const char *name = json_string_value(json_array_get(item, 0));
		json_t *ex = json_array_get(item, 1);
		char extras[512] = "";
		size_t k, used = 0;
		json_t *e;
		json_array_foreach(ex, k, e) {
			const char *t = json_string_value(e);
			/* pip reads the file: only a PEP 508 extra name */
			if (!t || !*t || strspn(t, "abcdefghijklmnopqrstuvwxyz"
						"0123456789-") != strlen(t) ||
			    used + strlen(t) + 2 >= sizeof extras)
				return pyrt_error_set(err, PYRT_E_INTERNAL,
						      "the wheel lock's check "
						      "named an odd extra");
			used += (size_t)snprintf(extras + used,
						 sizeof extras - used, "%s%s",
						 used ? "," : "", t);
		}
		int first = 1;
		for (size_t w = 0; name && w < s->n; w++) {
			if (strcmp(s->lock[w].name, name) != 0)
				continue;
			wl->wanted[w] = 1;
			if (first && extras[0] &&
			    !(wl->extras[w] = strdup(extras)))
				return pyrt_error_set(err, PYRT_E_NOMEM,
						      "out of memory");
			first = 0;
		}
	}
	return 0;
}

/* argv of the check: python -I -S -B -c PROGRAM DIR -- NAME==VERSION...
 * -- REQUIREMENT...; pairs holds the NAME==VERSION strings. */
static const char **closure_argv(const stage_run *s, char **pairs)
{
	/* 10 before the pairs, "--" after them and the final NULL. */
	const char **a = calloc(s->n + s->nreqs + PYRT_INTERP_PREFIX_LEN + 8,
				 sizeof *a);
	if (!a)
		return NULL;
	size_t i = pyrt_interp_argv(a, s->python);
	a[i++] = "-S";
	a[i++] = "-B";
	a[i++] = "-c";
	a[i++] = pyrt_py_lock_closure;
	a[i++] = s->wl->have_files ? s->wl->files
		 : s->recorded ? s->recorded : "";
	a[i++] = "--";
	for (size_t k = 0; k < s->n; k++) {
		size_t len = strlen(s->lock[k].name) +
			     strlen(s->lock[k].version) + 3;
		if (!(pairs[k] = malloc(len))) {
			free(a);
			return NULL;
		}
		pyrt_fmt_text(pairs[k], len, "%s==%s", s->lock[k].name,
			      s->lock[k].version);
		a[i++] = pairs[k];
	}
	a[i++] = "--";
	for (size_t k = 0; k < s->nreqs; k++)
		a[i++] = s->reqs[k];
	a[i] = NULL;
	return a;
}

/* The tagged JSON line of the check's output; NULL when absent. */
static json_t *closure_parse(const char *output)
{
	const char *tag = output;
	while (tag && (tag = strstr(tag, CLOSURE_TAG)) && tag != output &&
	       tag[-1] != '\n')
		tag++;
	if (!tag)
		return NULL;
	tag += strlen(CLOSURE_TAG);
	return json_loadb(tag, strcspn(tag, "\n"), 0, NULL);
}

/* Run the check in the runtime's interpreter; *out its answer. */
/* {name: [Requires-Dist...]} of every locked wheel, as JSON; NULL when
 * one was locked without them (an older lock) or out of memory. */
static char *recorded_json(const stage_run *s)
{
	json_t *o = json_object();
	for (size_t k = 0; o && k < s->n; k++) {
		const pyrt_pin_wheel *w = &s->lock[k];
		json_t *list = w->requires_known ? json_array() : NULL;
		for (size_t r = 0; list && r < w->nrequires; r++)
			json_array_append_new(list,
					      json_string(w->requires[r]));
		json_t *had = list ? json_object_get(o, w->name) : NULL;
		/* one project, several files: their Requires-Dist together */
		if (had && list) {
			json_array_extend(had, list);
			json_decref(list);
		} else if (!list ||
			   json_object_set_new(o, w->name, list) != 0) {
			json_decref(o);
			o = NULL;
		}
	}
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return text;
}

static int closure_run(const stage_run *s, json_t **out, pyrt_error *err)
{
	*out = NULL;
	char **pairs = calloc(s->n + 1, sizeof *pairs);
	const char **argv = pairs ? closure_argv(s, pairs) : NULL;
	char **envp = argv ? pyrt_proc_scrubbed_env(s->wl->dir) : NULL;
	int rc = envp ? 0 : pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	if (!rc) {
		pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
		po.argv = argv;
		po.envp = (const char *const *)envp;
		po.cwd = s->wl->dir;
		po.timeout_s = CLOSURE_TIMEOUT_S;
		po.capture_max = CLOSURE_OUTPUT_MAX;
		po.cancel = s->ev ? s->ev->cancel : NULL;
		rc = pyrt_proc_run(&po, &pr, err);
	}
	if (!rc && pr.cancelled)
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	else if (!rc && (!pr.exited || pr.exit_code != 0 || pr.truncated ||
			 !(*out = closure_parse(pr.output))))
		rc = pyrt_error_set(err, PYRT_E_INTERPRETER, "the wheel lock's "
				    "check of the requirements did not answer "
				    "(%s %d); nothing was installed — run "
				    "\"pyrt doctor\"", pr.timed_out
				    ? "timed out after" : "exit status",
				    pr.timed_out ? (int)CLOSURE_TIMEOUT_S
				    : pr.exited ? pr.exit_code
				    : 128 + pr.term_signal);
	pyrt_proc_result_clear(&pr);
	pyrt_proc_env_free(envp);
	for (size_t k = 0; pairs && k < s->n; k++)
		free(pairs[k]);
	free(pairs);
	free(argv);
	return rc;
}

/*
 * The requirements as written against the lock (each specifier and extra
 * satisfied by the locked version), and the locked projects they need:
 * with the wheels at hand, closed over their Requires-Dist; without (pip
 * reads an index), over the Requires-Dist `pyrt lock` recorded, or every
 * locked project when the lock is older than that (pip checks each
 * download against its hash).
 */
static int stage_closure(stage_run *s, pyrt_error *err)
{
	json_t *j = NULL;
	if (!s->wl->have_files)
		s->recorded = recorded_json(s);
	int rc = closure_run(s, &j, err);
	free(s->recorded);
	s->recorded = NULL;
	if (rc)
		return rc;
	json_t *refuse = json_object_get(j, "refuse");
	json_t *list = json_object_get(j, "install");
	const char *e = json_string_value(json_object_get(j, "error"));
	if (json_is_object(refuse))
		rc = closure_refuse(s, refuse, err);
	else if (e || !json_is_array(list))
		rc = pyrt_error_set(err, PYRT_E_VERIFY, "the requirements cannot "
				    "be checked against the wheel lock: %.300s; "
				    "nothing was installed", e ? e : "no answer");
	else
		rc = closure_take(s, list, err);
	size_t k;
	json_t *w;
	json_array_foreach(json_object_get(j, "warnings"), k, w)
		if (!rc && json_is_string(w) &&
		    pyrt_events_log(s->ev, PYRT_LOG_WARN, "wheel lock: %.300s",
				    json_string_value(w)))
			rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	if (!rc && !json_is_true(json_object_get(j, "closed")))
		for (size_t i = 0; i < s->n; i++)
			s->wl->wanted[i] = 1;
	json_decref(j);
	return rc;
}

/* ---- pip's requirements file ----------------------------------------------- */

/* One "name[extras]==version --hash=sha256:H ..." line a project (all its
 * files: one version, several tags), for the locked wheels that are there. */
static void reqs_line(FILE *f, const stage_run *s, size_t i)
{
	const char *name = s->lock[i].name;
	for (size_t k = 0; k < i; k++)
		if (strcmp(s->lock[k].name, name) == 0)
			return; /* written with the first file */
	if (s->wl->extras[i])
		fprintf(f, "%s[%s]==%s", name, s->wl->extras[i],
			s->lock[i].version);
	else
		fprintf(f, "%s==%s", name, s->lock[i].version);
	for (size_t k = i; k < s->n; k++) {
		if (s->wl->have_files && !s->wl->present[k])
			continue;
		if (strcmp(s->lock[k].name, name) == 0)
			fprintf(f, " --hash=sha256:%s", s->lock[k].sha256);
	}
	fputc('\n', f);
}

static int stage_reqs_file(const stage_run *s, pyrt_error *err)
{
	int fd = pyrt_fs_open_state(s->wl->reqs, O_WRONLY | O_CREAT | O_EXCL,
				    0600, err);
	if (fd < 0)
		return fd;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	fprintf(f, "# written by pyrt from the wheel lock of %s for %s\n",
		pyrt_pins_source(s->pins), s->platform);
	for (size_t i = 0; i < s->n; i++)
		if ((!s->wl->have_files || s->wl->present[i]) &&
		    s->wl->wanted[i])
			reqs_line(f, s, i);
	if (fclose(f) != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot write %s", s->wl->reqs);
	return 0;
}

/* ---- the operation ------------------------------------------------------- */

/* The lock of platform, or the refusal of pins that lock others only. */
static int stage_lock(stage_run *s, pyrt_error *err)
{
	s->lock = pyrt_pins_lock_find(s->pins, s->platform, &s->n);
	if (s->lock)
		return 0;
	return pyrt_error_set(err, PYRT_E_VERIFY,
			      "the pins (%s) lock the wheels of %s but not of "
			      "this runtime's platform %s; nothing was "
			      "installed — add its lock with \"pyrt lock "
			      "--platform %s --wheelhouse DIR\"",
			      pyrt_pins_source(s->pins),
			      pyrt_pins_lock_key_at(s->pins, 0), s->platform,
			      s->platform);
}

int pyrt_wheellock_stage(pyrt_wheellock **out, const pyrt_box *box,
			 const pyrt_pins *pins, const char *platform,
			 const char *wheelhouse, const char *const *reqs,
			 size_t nreqs, const pyrt_events *ev,
			 pyrt_error *err)
{
	*out = NULL;
	stage_run s = { .pins = pins, .platform = platform,
			.wheelhouse = wheelhouse, .reqs = reqs, .nreqs = nreqs,
			.ev = ev };
	int rc = stage_lock(&s, err);
	if (!rc)
		rc = stage_reqs(&s, reqs, nreqs, err);
	if (rc)
		return rc;
	s.wl = calloc(1, sizeof *s.wl);
	if (s.wl) {
		s.wl->n = s.n;
		s.wl->present = calloc(s.n, 1);
		s.wl->wanted = calloc(s.n, 1);
		s.wl->extras = calloc(s.n, sizeof *s.wl->extras);
	}
	if (!s.wl || !s.wl->present || !s.wl->wanted || !s.wl->extras) {
		pyrt_wheellock_free(s.wl);
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	rc = stage_dirs(&s, box, err);
	if (!rc && wheelhouse)
		rc = stage_wheelhouse(&s, err);
	for (size_t i = 0; !rc && wheelhouse && i < s.n; i++)
		if (!s.wl->present[i])
			rc = pyrt_events_log(ev, PYRT_LOG_WARN,
					     "the wheelhouse %s lacks the "
					     "locked wheel %s", wheelhouse,
					     s.lock[i].file)
			     ? pyrt_error_set(err, PYRT_E_CANCELLED,
					      "cancelled") : 0;
	if (!rc)
		rc = stage_closure(&s, err);
	if (!rc)
		rc = stage_reqs_file(&s, err);
	if (rc) {
		pyrt_wheellock_free(s.wl);
		return rc;
	}
	*out = s.wl;
	return 0;
}

const char *pyrt_wheellock_wheelhouse(const pyrt_wheellock *wl)
{
	return wl && wl->have_files ? wl->files : NULL;
}

const char *pyrt_wheellock_requirements(const pyrt_wheellock *wl)
{
	return wl ? wl->reqs : NULL;
}

size_t pyrt_wheellock_copied(const pyrt_wheellock *wl)
{
	return wl ? wl->copied : 0;
}

void pyrt_wheellock_free(pyrt_wheellock *wl)
{
	if (!wl)
		return;
	if (wl->dir[0])
		pyrt_fs_remove_tree(wl->dir, NULL, NULL);
	for (size_t i = 0; wl->extras && i < wl->n; i++)
		free(wl->extras[i]);
	free(wl->extras);
	free(wl->wanted);
	free(wl->present);
	free(wl);
}

/* The active install's platform key, from its marker. */
static int active_platform(const pyrt_box *box, char *out, size_t len,
			   pyrt_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int rc = pyrt_box_active_install(box, dir, sizeof dir, err);
	if (!rc)
		rc = pyrt_fmt_path(path, sizeof path, err, "%s/marker.json",
				   dir);
	if (rc)
		return rc;
	pyrt_marker m;
	pyrt_error merr = PYRT_ERROR_INIT;
	if (pyrt_marker_read(path, &m, &merr) != 0)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "managed Python runtime is broken (%s) — "
				      "run \"pyrt install --force\"", merr.msg);
	pyrt_fmt_text(out, len, "%s", m.platform);
	return 0;
}

int pyrt_wheellock_pip_install(const pyrt_pip_opts *opts,
			       const pyrt_pins *pins, const pyrt_events *ev,
			       pyrt_pip_each_result *result, pyrt_error *err)
{
	if (pyrt_pins_lock_count(pins) == 0)
		return pyrt_pip_install_each(opts, ev, result, err);
	memset(result, 0, sizeof *result);
	result->batch.exit_code = result->last.exit_code = -1;
	char platform[64];
	pyrt_wheellock *wl = NULL;
	int rc = active_platform(opts->box, platform, sizeof platform, err);
	if (!rc)
		rc = pyrt_wheellock_stage(&wl, opts->box, pins, platform,
					  opts->wheelhouse, opts->requirements,
					  opts->requirement_count, ev, err);
	if (rc)
		return rc;
	pyrt_testhook("wheels-staged");
	pyrt_pip_opts po = *opts;
	po.wheelhouse = pyrt_wheellock_wheelhouse(wl);
	po.hashed_requirements = pyrt_wheellock_requirements(wl);
	rc = pyrt_events_log(ev, PYRT_LOG_INFO, "wheel lock of %s for %s: %s",
			     pyrt_pins_source(pins), platform,
			     opts->wheelhouse ? "the locked wheels were copied "
			     "and verified; installing only those"
			     : "pip checks every download against it "
			     "(--require-hashes)");
	if (rc)
		rc = pyrt_error_set(err, PYRT_E_CANCELLED, "cancelled");
	else
		rc = pyrt_pip_install_each(&po, ev, result, err);
	pyrt_wheellock_free(wl);
	return rc;
}

/* ---- making a lock --------------------------------------------------------- */

/* Hash one wheel of dir into w (file owned by the caller). */
static int make_one(const char *dir, const char *file, pyrt_pin_wheel *w,
		    pyrt_error *err)
{
	char path[PATH_MAX], hex[PYRT_SHA256_HEX_LEN + 1];
	int rc = pyrt_fmt_path(path, sizeof path, err, "%s/%s", dir, file);
	if (rc)
		return rc;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		return pyrt_error_set(err, PYRT_E_USAGE, "%s: %s", path,
				      e ? strerror(e) : "not a regular file");
	}
	unsigned long long bytes = 0;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	rc = null < 0 ? pyrt_error_set_errno(err, PYRT_E_IO, errno,
						 "/dev/null")
		 : pyrt_sha256_copy(fd, null, PYRT_PINS_WHEEL_SIZE_MAX, path,
				    "/dev/null", NULL, hex, &bytes, err);
	if (null >= 0)
		close(null);
	/* Its Requires-Dist, recorded: a locked install from an index
	 * closes the requested projects over them without the wheels.  A
	 * wheel whose METADATA cannot be read is locked without them (pip
	 * will refuse it at install, naming it); such a lock gives pip the
	 * whole lock from an index, as a lock older than this does. */
	char **reqs = NULL;
	size_t nreqs = 0;
	int known = 0;
	if (!rc) {
		pyrt_error rerr = PYRT_ERROR_INIT;
		int rrc = pyrt_wheel_requires_fd(fd, file, &reqs, &nreqs,
						 &rerr);
		if (rrc == PYRT_E_NOMEM)
			rc = pyrt_error_set(err, rrc, "out of memory");
		known = rrc == 0;
	}
	close(fd);
	w->size = bytes;
	if (!rc && known) {
		w->requires = (const char *const *)reqs;
		w->nrequires = nreqs;
		w->requires_known = 1;
	}
	if (!rc && !(w->sha256 = strdup(hex)))
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	return rc;
}

static int make_cmp(const void *a, const void *b)
{
	return strcmp(((const pyrt_pin_wheel *)a)->file,
		      ((const pyrt_pin_wheel *)b)->file);
}

/* The wheels of dir that fit platform, hashed, into *out (sorted). */
static int make_scan(const char *platform, const char *dir,
		     pyrt_pin_wheel **out, size_t *n,
		     size_t *skipped, pyrt_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return pyrt_error_set_errno(err, PYRT_E_USAGE, errno,
					    "--wheelhouse %s", dir);
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (pyrt_pins_wheel_file_check(e->d_name))
			continue;
		if (!pyrt_wheellock_fits(e->d_name, platform)) {
			(*skipped)++;
			continue;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			pyrt_pin_wheel *v = realloc(*out, cap * sizeof *v);
			if (!v) {
				rc = pyrt_error_set(err, PYRT_E_NOMEM,
						    "out of memory");
				break;
			}
			*out = v;
		}
		pyrt_pin_wheel *w = &(*out)[*n];
		memset(w, 0, sizeof *w); /* name, version from the file name */
		if (!(w->file = strdup(e->d_name))) {
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
			break;
		}
		(*n)++;
		rc = make_one(dir, e->d_name, w, err);
	}
	closedir(d);
	return rc;
}

int pyrt_wheellock_make(pyrt_pins *pins, const char *platform,
			const char *dir, size_t *count, size_t *skipped,
			pyrt_error *err)
{
	pyrt_pin_wheel *w = NULL;
	size_t n = 0;
	*count = *skipped = 0;
	/* What is hashed here is what a locked install will accept: the
	 * folder and every wheel in it pass the gate first (trust.h), in
	 * core, whatever front end asked. */
	int rc = pyrt_trust_dir_entries("--wheelhouse", dir, err);
	if (!rc)
		rc = make_scan(platform, dir, &w, &n, skipped, err);
	if (!rc && n == 0)
		rc = pyrt_error_set(err, PYRT_E_USAGE, "%s holds no wheel for "
				    "%s (*.whl with a platform tag \"any\" or "
				    "of %s); nothing to lock", dir, platform,
				    platform);
	if (!rc)
		qsort(w, n, sizeof *w, make_cmp);
	if (!rc) {
		pyrt_error perr = PYRT_ERROR_INIT;
		rc = pyrt_pins_set_lock(pins, platform, w, n, &perr);
		if (rc)
			rc = pyrt_error_set(err, rc == PYRT_E_PINS ? PYRT_E_USAGE
					    : rc, "%s: %s%s", dir, perr.msg,
					    rc == PYRT_E_PINS ? "; keep one" : "");
	}
	if (!rc)
		*count = n;
	for (size_t i = 0; i < n; i++) {
		free((char *)w[i].file);
		free((char *)w[i].sha256);
		pyrt_wheel_requires_free((char **)w[i].requires,
					 w[i].nrequires);
	}
	free(w);
	return rc;
}
