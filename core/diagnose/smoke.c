/*
 * The ADR's acceptance test.  The active install's interpreter writes a
 * .docx with python-docx in a private 0700 workspace under the box (under
 * $TMPDIR for another user of root's shared box) (scrubbed environment, its own process group, a hard timeout); then pyrt, not
 * Python, opens the result with libarchive and looks for the paragraph in
 * word/document.xml, so a runtime that only pretends to work cannot pass.
 * The paragraph carries a random nonce, so a stale document cannot pass
 * either.
 */
#include "core/diagnose/smoke.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime/box.h"
#include "core/runtime/interp.h"
#include "core/util/clock.h"
#include "core/util/fmt.h"
#include "core/util/fs.h"
#include "core/util/lazylib.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"

#define SMOKE_TIMEOUT_S 60.0
#define SMOKE_XML_MAX (16u << 20)
#define SMOKE_EXIT_NO_DOCX 3
#define SMOKE_EXIT_BROKEN_DOCX 4

/* argv[1] is the paragraph, argv[2] the output path: nothing is quoted into
 * the source, so no paragraph or path can change what runs. */
/* Everything one run holds, so that one cleanup releases it on every path. */
typedef struct smoke_run {
	const pyrt_events *ev;
	const pyrt_box *box;   /* the caller's */
	char install_dir[PATH_MAX];
	const pyrt_pins *pins;    /* where the interpreter is */
	char python[PATH_MAX];
	char workspace[PATH_MAX];
	char docx[PATH_MAX];
	char last_line[512];
	int have_workspace;
} smoke_run;

/* n random bytes as 2n lowercase hex digits (hex must hold 2n + 1). */
static int random_hex(char *hex, size_t n, pyrt_error *err)
{
	unsigned char bytes[32];
	if (n > sizeof bytes)
		return pyrt_error_set(err, PYRT_E_INTERNAL, "nonce too long");
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot open /dev/urandom");
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, bytes + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			return pyrt_error_set_errno(err, PYRT_E_IO,
						    k < 0 ? errno : EIO,
						    "cannot read /dev/urandom");
		}
		got += (size_t)k;
	}
	close(fd);
	for (size_t i = 0; i < n; i++)
		pyrt_fmt_text(hex + 2 * i, 3, "%02x", bytes[i]);
	return 0;
}

/* The active install and its interpreter; every failure names the fix. */
static int smoke_find_runtime(smoke_run *r, pyrt_error *err)
{
	return pyrt_box_active_interpreter(r->box, r->pins, r->install_dir,
					   sizeof r->install_dir, r->python,
					   sizeof r->python, err);
}

/* A private 0700 directory under <box>/runtime/python: the child's HOME
 * and cwd, so nothing it writes lands outside the box. */
static int smoke_make_workspace(smoke_run *r, pyrt_error *err)
{
	/* A shared box is root's: another user's smoke writes nothing in
	 * it, and works in a private folder of its own under $TMPDIR. */
	/* So does a box on a read-only file system (or one this user may
	 * not write): smoke reads the runtime, it need not write there. */
	const char *tmp = getenv("TMPDIR");
	int elsewhere = pyrt_box_shared(r->box) ||
			access(pyrt_box_runtime_dir(r->box), W_OK | X_OK) != 0;
	const char *dir = !elsewhere ? pyrt_box_runtime_dir(r->box)
			  : tmp && tmp[0] == '/' ? tmp : "/tmp";
	int n = snprintf(r->workspace, sizeof r->workspace, "%s/%ssmoke-XXXXXX",
			 dir, elsewhere ? "pyrt-" : "");
	if (n < 0 || (size_t)n >= sizeof r->workspace)
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "the smoke workspace path under %s is "
				      "too long", dir);
	if (!mkdtemp(r->workspace))
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create a smoke workspace "
					    "under %s", dir);
	r->have_workspace = 1;
	return pyrt_fmt_path(r->docx, sizeof r->docx, err, "%s/smoke.docx",
			     r->workspace);
}

/* Each output line becomes a debug log line; the last one explains a
 * failure. */
static int smoke_on_line(const char *line, void *payload)
{
	smoke_run *r = payload;
	if (line[0])
		pyrt_fmt_text(r->last_line, sizeof r->last_line, "%s", line);
	return pyrt_events_log(r->ev, PYRT_LOG_DEBUG, "python: %s", line) ? 1
									   : 0;
}

/* How the child ended, as the code and sentence the header promises. */
static int smoke_judge_child(const smoke_run *r, const pyrt_proc_result *pr,
			     pyrt_error *err)
{
	if (pr->cancelled || pyrt_events_cancelled(r->ev))
		return pyrt_error_set(err, PYRT_E_CANCELLED,
				      "smoke test cancelled");
	if (pr->timed_out)
		return pyrt_error_set(err, PYRT_E_INTERPRETER,
				      "the smoke script did not finish within "
				      "%.0f s and was stopped", SMOKE_TIMEOUT_S);
	if (pr->exited && pr->exit_code == SMOKE_EXIT_NO_DOCX)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "python-docx is not installed in the "
				      "managed runtime — run \"pyrt baseline\" "
				      "(or \"pyrt plugins install cowork\")");
	if (pr->exited && pr->exit_code == SMOKE_EXIT_BROKEN_DOCX)
		return pyrt_error_set(err, PYRT_E_NOT_READY,
				      "%s — run \"pyrt baseline\" to repair the "
				      "document libraries", r->last_line);
	if (!pr->exited || pr->exit_code != 0)
		return pyrt_error_set(err, PYRT_E_INTERPRETER,
				      "the smoke script failed (%s %d): %s",
				      pr->exited ? "exit" : "signal",
				      pr->exited ? pr->exit_code
						 : pr->term_signal,
				      r->last_line[0] ? r->last_line
						      : "no output");
	return 0;
}

/* Run the interpreter on the script with the scrubbed environment. */
static int smoke_write_docx(smoke_run *r, const char *paragraph,
			    pyrt_error *err)
{
	const char *argv[PYRT_INTERP_PREFIX_LEN + 5];
	size_t k = pyrt_interp_argv(argv, r->python);
	argv[k++] = "-c";
	argv[k++] = pyrt_py_smoke;
	argv[k++] = paragraph;
	argv[k++] = r->docx;
	argv[k] = NULL;
	char **envp = pyrt_proc_scrubbed_env(r->workspace);
	if (!envp)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.cwd = r->workspace;
	po.timeout_s = SMOKE_TIMEOUT_S;
	po.capture_max = 16 * 1024;
	po.on_line = smoke_on_line;
	po.payload = r;
	po.cancel = r->ev ? r->ev->cancel : NULL;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	int rc = pyrt_proc_run(&po, &pr, err);
	pyrt_proc_env_free(envp);
	if (rc == 0)
		rc = smoke_judge_child(r, &pr, err);
	pyrt_proc_result_clear(&pr);
	return rc;
}

/* Read the current entry's data whole, refusing more than SMOKE_XML_MAX. */
static int smoke_read_entry(struct archive *a, char **out, size_t *len,
			    pyrt_error *err)
{
	size_t cap = 64 * 1024, used = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (;;) {
		if (used == cap) {
			if (cap >= SMOKE_XML_MAX) {
				free(buf);
				return pyrt_error_set(err, PYRT_E_VERIFY,
						      "word/document.xml is "
						      "larger than %u bytes",
						      SMOKE_XML_MAX);
			}
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				return pyrt_error_set(err, PYRT_E_NOMEM,
						      "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		la_ssize_t k = archive_read_data(a, buf + used, cap - used);
		if (k < 0) {
			pyrt_error_set(err, PYRT_E_VERIFY,
				       "cannot read word/document.xml: %s",
				       archive_error_string(a));
			free(buf);
			return PYRT_E_VERIFY;
		}
		if (k == 0)
			break;
		used += (size_t)k;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

/* Open the document as the zip it must be and require the paragraph in
 * word/document.xml.  python-docx writes the text as one <w:t> run, and the
 * paragraph is plain ASCII, so a substring match is exact enough. */
static int smoke_check_docx(const char *path, const char *paragraph,
			    pyrt_error *err)
{
	int lrc = pyrt_lazy_archive(err);
	if (lrc != 0)
		return lrc;
	struct archive *a = archive_read_new();
	if (!a)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = 0;
	char *xml = NULL;
	size_t len = 0;
	archive_read_support_format_zip(a);
	if (archive_read_open_filename(a, path, 16384) != ARCHIVE_OK) {
		rc = pyrt_error_set(err, PYRT_E_VERIFY,
				    "the smoke document %s is not a readable "
				    "zip: %s", path, archive_error_string(a));
		goto cleanup;
	}
	struct archive_entry *e;
	int r;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (name && strcmp(name, "word/document.xml") == 0)
			break;
		archive_read_data_skip(a);
	}
	if (r != ARCHIVE_OK) {
		rc = pyrt_error_set(err, PYRT_E_VERIFY,
				    r == ARCHIVE_EOF
				    ? "the smoke document %s is not a .docx: "
				      "it has no word/document.xml%s"
				    : "the smoke document %s is not a readable "
				      "zip: %s", path,
				    r == ARCHIVE_EOF ? ""
						     : archive_error_string(a));
		goto cleanup;
	}
	rc = smoke_read_entry(a, &xml, &len, err);
	if (rc)
		goto cleanup;
	if (!memmem(xml, len, paragraph, strlen(paragraph)))
		rc = pyrt_error_set(err, PYRT_E_VERIFY,
				    "word/document.xml of the smoke document "
				    "does not hold the paragraph \"%s\"",
				    paragraph);
cleanup:
	free(xml);
	archive_read_free(a);
	return rc;
}

/* Copy src into an open fd; returns 0 or an errno value. */
static int copy_into(const char *src, int dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	char buf[65536];
	int e = 0;
	for (;;) {
		ssize_t k = read(in, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			e = errno;
			break;
		}
		if (k == 0)
			break;
		if (pyrt_fs_write_all(dst, buf, (size_t)k) != 0) {
			e = errno;
			break;
		}
	}
	close(in);
	if (!e && fsync(dst) != 0)
		e = errno;
	return e;
}

/* The user asked for the document: 0644 less their umask (the kernel
 * applies it), written beside out_path and renamed into place so a reader
 * never sees half a file. */
static int smoke_copy_out(const smoke_run *r, const char *out_path,
			  pyrt_error *err)
{
	char nonce[17];
	int rc = random_hex(nonce, 8, err);
	if (rc)
		return rc;
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%s", out_path,
			 (long)getpid(), nonce);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return pyrt_error_set(err, PYRT_E_USAGE, "path too long: %s",
				      out_path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, errno,
					    "cannot create %s", tmp);
	int e = copy_into(r->docx, fd);
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, out_path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot write %s", out_path);
	}
	return 0;
}

/* The checks in order; the caller cleans up. */
static int smoke_steps(smoke_run *r, const char *out_path,
		       pyrt_smoke_result *res, pyrt_error *err)
{
	char nonce[17];
	int rc = smoke_find_runtime(r, err);
	if (!rc)
		rc = random_hex(nonce, 8, err);
	if (!rc)
		rc = smoke_make_workspace(r, err);
	if (rc)
		return rc;
	pyrt_fmt_text(res->paragraph, sizeof res->paragraph, "pyrt smoke test %s",
		      nonce);
	rc = pyrt_events_log(r->ev, PYRT_LOG_INFO,
			     "smoke: %s writes a .docx with python-docx",
			     r->python);
	if (!rc)
		rc = smoke_write_docx(r, res->paragraph, err);
	if (!rc)
		rc = smoke_check_docx(r->docx, res->paragraph, err);
	if (rc)
		return rc == PYRT_E_CANCELLED
			       ? pyrt_error_set(err, rc, "smoke test cancelled")
			       : rc;
	struct stat sb;
	if (stat(r->docx, &sb) == 0)
		res->docx_bytes = (unsigned long long)sb.st_size;
	if (out_path) {
		rc = smoke_copy_out(r, out_path, err);
		if (rc)
			return rc;
		pyrt_fmt_text(res->docx_path, sizeof res->docx_path, "%s", out_path);
	}
	return pyrt_events_log(r->ev, PYRT_LOG_INFO,
			       "smoke: word/document.xml holds \"%s\"",
			       res->paragraph);
}

int pyrt_smoke_run(const pyrt_box *box, const pyrt_pins *pins,
		   const char *out_path, const pyrt_events *ev,
		   pyrt_smoke_result *result, pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	double start = pyrt_now();
	if (pyrt_events_cancelled(ev))
		return pyrt_error_set(err, PYRT_E_CANCELLED,
				      "smoke test cancelled");
	smoke_run r;
	memset(&r, 0, sizeof r);
	r.ev = ev;
	r.pins = pins;
	r.box = box;
	int rc = smoke_steps(&r, out_path, result, err);
	if (r.have_workspace) {
		int rrc = pyrt_fs_remove_tree(r.workspace, NULL, err);
		if (!rc)
			rc = rrc;
	}
	result->seconds = pyrt_now() - start;
	return rc;
}
