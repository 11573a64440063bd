/* Helpers shared by the criterion tests. */
#include "support.h"

#include "core/dist/manifest.h"
#include "core/runtime/install.h"
#include "core/runtime/marker.h"
#include "core/runtime/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

char *pt_tmpdir(const char *tag)
{
	const char *base = getenv("PYRT_TEST_TMP");
	if (!base || !*base)
		base = "/tmp";
	char *p = NULL;
	if (asprintf(&p, "%s/pyrt-%s-XXXXXX", base, tag) < 0)
		abort();
	if (!mkdtemp(p))
		abort();
	return p;
}

void pt_rmtree(const char *path)
{
	if (path && *path && strcmp(path, "/") != 0)
		pt_sh("rm -rf '%s'", path);
}

char *pt_join(const char *a, const char *b)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", a, b) < 0)
		abort();
	return p;
}

int pt_sh(const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	fflush(NULL);
	int st = system(cmd);
	free(cmd);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void pt_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

char *pt_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

const char *pt_source_dir(void)
{
	const char *d = getenv("PYRT_SOURCE_DIR");
	return d && *d ? d : ".";
}

const char *pt_binary_dir(void)
{
	const char *d = getenv("PYRT_BINARY_DIR");
	return d && *d ? d : ".";
}

const char *pt_fixtures(void)
{
	static char dir[4096];
	snprintf(dir, sizeof dir, "%s/fixtures", pt_binary_dir());
	if (pt_sh("bash '%s/tests/fixtures/build-fixtures.sh' '%s' >&2",
		  pt_source_dir(), dir) != 0)
		abort();
	return dir;
}

static int rec_step(pyrt_step step, pyrt_step_state state, const char *detail,
		    void *payload)
{
	pt_recorder *rec = payload;
	if ((unsigned)step >= PYRT_STEP__COUNT)
		return 0;
	if (state == PYRT_STEP_BEGIN)
		rec->steps_begun[step]++;
	else if (state == PYRT_STEP_END)
		rec->steps_ended[step]++;
	else if (state == PYRT_STEP_FAIL)
		rec->steps_failed[step]++;
	return 0;
}

static int rec_progress(pyrt_step step, const pyrt_progress *p, void *payload)
{
	pt_recorder *rec = payload;
	rec->progress_calls++;
	rec->last_done = p->done;
	rec->last_total = p->total;
	if (rec->cancel_after_progress > 0 &&
	    rec->progress_calls >= rec->cancel_after_progress)
		return 1;
	return 0;
}

static int rec_log(pyrt_log_level level, const char *line, void *payload)
{
	pt_recorder *rec = payload;
	size_t len = strlen(rec->log);
	snprintf(rec->log + len, sizeof rec->log - len, "%s\n", line);
	return 0;
}

pyrt_events pt_recorder_events(pt_recorder *rec)
{
	pyrt_events ev = PYRT_EVENTS_INIT;
	ev.on_step = rec_step;
	ev.on_progress = rec_progress;
	ev.on_log = rec_log;
	ev.payload = rec;
	return ev;
}

void pt_mirror_start(pt_mirror *m, const char *www)
{
	const char *fx = pt_fixtures();
	memset(m, 0, sizeof *m);
	char *dir = pt_tmpdir("mirror");
	char portfile[4096];
	snprintf(portfile, sizeof portfile, "%s/port", dir);
	snprintf(m->log, sizeof m->log, "%s/requests.log", dir);
	free(dir);
	char script[4096], cert[4096], key[4096];
	snprintf(script, sizeof script, "%s/tests/fixtures/mirror.py",
		 pt_source_dir());
	if (snprintf(cert, sizeof cert, "%s/server.pem", fx) >= (int)sizeof cert ||
	    snprintf(key, sizeof key, "%s/server.key", fx) >= (int)sizeof key)
		abort(); /* a fixtures path past PATH_MAX */
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		execlp("python3", "python3", script, "--root", www, "--cert",
		       cert, "--key", key, "--port-file", portfile, "--log",
		       m->log, (char *)NULL);
		_exit(127);
	}
	m->pid = pid;
	for (int i = 0; i < 200; i++) {
		char *text = pt_read(portfile);
		if (text && atoi(text) > 0) {
			m->port = atoi(text);
			free(text);
			break;
		}
		free(text);
		usleep(50 * 1000);
	}
	if (!m->port) {
		pt_mirror_stop(m);
		abort();
	}
	snprintf(m->base, sizeof m->base, "https://127.0.0.1:%d", m->port);
}

void pt_mirror_stop(pt_mirror *m)
{
	if (m->pid > 0) {
		kill(m->pid, SIGTERM);
		waitpid(m->pid, NULL, 0);
	}
	m->pid = 0;
}

int pt_status_read(const char *root, const pyrt_pins *pins, const char *key,
		   int deep, pyrt_status *st, pyrt_error *err)
{
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, root, 0, err);
	if (rc)
		return rc;
	rc = pyrt_status_read(box, pins, key, deep, NULL, st, err);
	pyrt_box_free(box);
	return rc;
}

const char *pt_host_key(void)
{
	static char key[sizeof "linux--gnu" + sizeof ((struct utsname *)0)->machine];
	struct utsname u;
	uname(&u);
	const char *arch = strcmp(u.machine, "arm64") == 0 ? "aarch64" :
			   strcmp(u.machine, "amd64") == 0 ? "x86_64" : u.machine;
	snprintf(key, sizeof key, "linux-%s-gnu", arch);
	return key;
}

int pt_fixture_pins_load(const char *dir, pyrt_pins **out, char *msg,
			 size_t msglen)
{
	char *path = pt_fixture_pins(dir, "pins.yaml",
				     "https://upstream.invalid/pbs/fixture/runtime.tar.gz",
				     NULL, NULL);
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = path ? pyrt_pins_load_file(out, path, &err)
		      : pyrt_error_set(&err, PYRT_E_IO, "cannot write pins");
	snprintf(msg, msglen, "%s", err.msg);
	free(path);
	return rc;
}

int pt_install_fixture(const char *box, const pyrt_pins *pins, char *msg,
		       size_t msglen)
{
	char archive[4096];
	if (snprintf(archive, sizeof archive, "%s/runtime.tar.gz",
		     pt_fixtures()) >= (int)sizeof archive)
		abort(); /* a fixtures path past PATH_MAX */
	pyrt_install_opts o = PYRT_INSTALL_OPTS_INIT;
	o.pins = pins;
	o.platform_key = pt_host_key();
	o.from_file = archive;
	pyrt_install_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_box *b = NULL;
	int rc = pyrt_box_open(&b, box, 0, &err);
	if (!rc)
		rc = pyrt_install_run(b, &o, NULL, &res, &err);
	pyrt_box_free(b);
	snprintf(msg, msglen, "%s", err.msg);
	return rc;
}

/* Trim trailing whitespace of a fixture text file's content. */
static char *pt_read_word(const char *dir, const char *name)
{
	char *path = pt_join(dir, name);
	char *text = pt_read(path);
	free(path);
	if (!text)
		abort();
	text[strcspn(text, " \t\r\n")] = '\0';
	return text;
}

char *pt_fixture_pins(const char *dir, const char *name, const char *url,
		      const char *version, const char *sha256)
{
	const char *fx = pt_fixtures();
	char *sha = pt_read_word(fx, "runtime.sha256");
	char *ver = pt_read_word(fx, "runtime.version");
	char *size = pt_read_word(fx, "runtime.size");
	char *path = pt_join(dir, name);
	char *text = NULL;
	if (asprintf(&text,
		     "schema: 1\n"
		     "runtime:\n"
		     "  implementation: cpython\n"
		     "  version: \"%s\"\n"
		     "  build: \"fixture\"\n"
		     "archives:\n"
		     "  %s:\n"
		     "    url: %s\n"
		     "    sha256: %s\n"
		     "    size: %s\n"
		     "baseline:\n"
		     "  - python-docx\n",
		     version ? version : ver, pt_host_key(), url,
		     sha256 ? sha256 : sha, size) < 0)
		abort();
	pt_write(path, text);
	free(text);
	free(sha);
	free(ver);
	free(size);
	return path;
}

void pt_lay_record(const char *install_dir, pyrt_marker *m)
{
	char path[4096], line[64];
	struct stat st;
	snprintf(path, sizeof path, "%s/python", install_dir);
	if (stat(path, &st) != 0)
		abort();
	snprintf(line, sizeof line, "d\t%04o\t0\t-\tpython\n",
		 (unsigned)(st.st_mode & 07777));
	snprintf(path, sizeof path, "%s/manifest.tsv", install_dir);
	pt_write(path, line);
	pyrt_error err = PYRT_ERROR_INIT;
	if (pyrt_manifest_load(NULL, path, m->manifest_sha256, &err) != 0) {
		fprintf(stderr, "pt_lay_record: %s\n", err.msg);
		abort();
	}
	m->files = 1;
	if (!m->source[0])
		strcpy(m->source, "https://example.invalid/runtime.tar.gz");
	if (!m->installed_at[0])
		strcpy(m->installed_at, "2026-11-29T00:00:00Z");
	if (!m->pins[0])
		strcpy(m->pins, "test");
	if (!m->archive_bytes)
		m->archive_bytes = 1;
	if (!m->baseline_state[0])
		strcpy(m->baseline_state, "none");
	snprintf(path, sizeof path, "%s/marker.json", install_dir);
	if (pyrt_marker_write(path, m, &err) != 0) {
		fprintf(stderr, "pt_lay_record: %s\n", err.msg);
		abort();
	}
}
