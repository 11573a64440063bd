/* ctest: test_fetch */
/*
 * pyrt_fetch against a real loopback HTTPS server (tests/fixtures/mirror.py)
 * that injects faults per request: resets, stalls, short and endless bodies,
 * error statuses, servers that ignore Range.  Each test gets a fresh CA,
 * server and random file, so tests cannot see each other's state.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/dist/fetch.h"
#include "support.h"

#define DATA_SIZE (3 * 1024 * 1024 + 12345)

typedef struct mirror {
	pid_t pid;
	int port;
	char *log;
} mirror;

static char *tmp, *ca_dir, *www, *data_path, *part, *ca_pem, *other_pem;
static char data_sha[PYRT_SHA256_HEX_LEN + 1];
static mirror tls_srv, plain_srv;
static char url_buf[1024];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static char run_ca[4096]; /* the runner's shared CA dir, for POST_ALL */

/*
 * Work done once per run, in the runner process; the test workers inherit
 * its environment.  python3 is resolved from PATH once because a
 * version-manager shim can take a second per start and every test starts
 * its own server; the CA is made once because openssl is slow to spawn.
 */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	char path[4096];
	const char *cur = getenv("PYRT_TEST_PYTHON");
	FILE *p = NULL;

	if (!(cur && *cur))
		p = popen("python3 -c 'import sys; print(sys.executable)'", "r");
	if (p && fgets(path, sizeof path, p)) {
		path[strcspn(path, "\n")] = '\0';
		if (path[0] == '/' && access(path, X_OK) == 0)
			setenv("PYRT_TEST_PYTHON", path, 1);
	}
	if (p)
		pclose(p);

	cur = getenv("PYRT_TEST_FETCH_CA");
	if (cur && *cur)
		return;
	char *dir = pt_tmpdir("fetch-ca");
	if (pt_sh("bash '%s/tests/fixtures/make-ca.sh' '%s'", pt_source_dir(),
		  dir) == 0) {
		setenv("PYRT_TEST_FETCH_CA", dir, 1);
		snprintf(run_ca, sizeof run_ca, "%s", dir);
	}
	free(dir);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	if (run_ca[0])
		pt_rmtree(run_ca);
}

static const char *python(void)
{
	const char *p = getenv("PYRT_TEST_PYTHON");
	return p && *p ? p : "python3";
}

/* Start mirror.py and wait until it has written its port. */
static void mirror_start(mirror *m, int plain)
{
	char *script = pt_join(pt_source_dir(), "tests/fixtures/mirror.py");
	char *portf = pt_join(tmp, plain ? "port-plain" : "port-tls");
	char *cert = pt_join(ca_dir, "server.pem");
	char *key = pt_join(ca_dir, "server.key");
	m->log = pt_join(tmp, plain ? "log-plain" : "log-tls");
	const char *argv[] = { python(), script, "--root", www, "--port-file",
			       portf, "--log", m->log, "--lifetime", "600",
			       plain ? "--plain" : "--cert", cert, "--key", key,
			       NULL };
	if (plain)
		argv[11] = NULL;

	fflush(NULL);
	m->pid = fork();
	cr_assert_neq(m->pid, -1, "fork: %s", strerror(errno));
	if (m->pid == 0) {
		/* Do not outlive a crashed test. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 3000; i++) {
		char *s = pt_read(portf);
		if (s && atoi(s) > 0) {
			m->port = atoi(s);
			free(s);
			break;
		}
		free(s);
		int st;
		cr_assert_eq(waitpid(m->pid, &st, WNOHANG), 0,
			     "mirror.py exited early");
		sleep_ms(10);
	}
	cr_assert_gt(m->port, 0, "mirror.py did not report a port");
	free(script);
	free(portf);
	free(cert);
	free(key);
}

/* tests/fixtures/proxy.py over TLS, with the test CA's server certificate. */
static void proxy_start(mirror *m)
{
	char *script = pt_join(pt_source_dir(), "tests/fixtures/proxy.py");
	char *portf = pt_join(tmp, "port-proxy");
	char *cert = pt_join(ca_dir, "server.pem");
	char *key = pt_join(ca_dir, "server.key");
	m->log = pt_join(tmp, "log-proxy");
	const char *argv[] = { python(), script, "--port-file", portf, "--log",
			       m->log, "--lifetime", "600", "--cert", cert,
			       "--key", key, NULL };

	fflush(NULL);
	m->pid = fork();
	cr_assert_neq(m->pid, -1, "fork: %s", strerror(errno));
	if (m->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 3000 && m->port <= 0; i++) {
		char *s = pt_read(portf);
		m->port = s ? atoi(s) : 0;
		free(s);
		int st;
		cr_assert_eq(waitpid(m->pid, &st, WNOHANG), 0,
			     "proxy.py exited early");
		if (m->port <= 0)
			sleep_ms(10);
	}
	cr_assert_gt(m->port, 0, "proxy.py did not report a port");
	free(script);
	free(portf);
	free(cert);
	free(key);
}

/* SIGTERM by pid, then SIGKILL if it has not gone within a few seconds. */
static void mirror_stop(mirror *m)
{
	if (m->pid <= 0)
		goto out;
	kill(m->pid, SIGTERM);
	for (int i = 0; i < 500; i++) {
		if (waitpid(m->pid, NULL, WNOHANG) != 0)
			goto out;
		sleep_ms(10);
	}
	kill(m->pid, SIGKILL);
	waitpid(m->pid, NULL, 0);
out:
	free(m->log);
	memset(m, 0, sizeof *m);
}

static void setup(void)
{
	/* A proxy from the environment must not intercept loopback. */
	setenv("no_proxy", "127.0.0.1,localhost,::1", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost,::1", 1);
	tmp = pt_tmpdir("fetch");
	const char *shared = getenv("PYRT_TEST_FETCH_CA");
	if (shared && *shared) {
		ca_dir = strdup(shared);
	} else {
		ca_dir = pt_join(tmp, "ca");
		cr_assert_eq(pt_sh("bash '%s/tests/fixtures/make-ca.sh' '%s'",
				   pt_source_dir(), ca_dir), 0);
	}
	ca_pem = pt_join(ca_dir, "ca.pem");
	other_pem = pt_join(ca_dir, "other.pem");
	www = pt_join(tmp, "www");
	cr_assert_eq(mkdir(www, 0700), 0);
	data_path = pt_join(www, "data.bin");
	cr_assert_eq(pt_sh("head -c %d /dev/urandom > '%s'", DATA_SIZE,
			   data_path), 0);
	cr_assert_eq(pt_sh("mkdir -p '%s/mirror/20260814' && cp '%s' "
			   "'%s/mirror/20260814/cpython+1.tar.gz'",
			   www, data_path, www), 0);
	cr_assert_eq(pt_sh("sha256sum '%s' | cut -c1-64 > '%s/data.sha'",
			   data_path, tmp), 0);
	char *shaf = pt_join(tmp, "data.sha");
	char *s = pt_read(shaf);
	cr_assert(s && strlen(s) >= PYRT_SHA256_HEX_LEN);
	memcpy(data_sha, s, PYRT_SHA256_HEX_LEN);
	data_sha[PYRT_SHA256_HEX_LEN] = '\0';
	free(s);
	free(shaf);
	part = pt_join(tmp, "dl.partial");
	mirror_start(&tls_srv, 0);
}

static void teardown(void)
{
	mirror_stop(&tls_srv);
	mirror_stop(&plain_srv);
	pt_rmtree(tmp);
	free(tmp);
	free(ca_dir);
	free(www);
	free(data_path);
	free(part);
	free(ca_pem);
	free(other_pem);
}

TestSuite(fetch, .init = setup, .fini = teardown);

/* Options for https://127.0.0.1:PORT/<pathq> with test-sized timings. */
static pyrt_fetch_opts opts_for(const char *pathq)
{
	snprintf(url_buf, sizeof url_buf, "https://127.0.0.1:%d/%s",
		 tls_srv.port, pathq);
	pyrt_fetch_opts o = PYRT_FETCH_OPTS_INIT;
	o.url = url_buf;
	o.partial_path = part;
	o.cacert = ca_pem;
	o.max_attempts = 3;
	o.backoff_ms = 10;
	o.connect_timeout_s = 10;
	o.low_speed_time_s = 20;
	o.progress_interval_s = 0;
	return o;
}

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The first n bytes of the served file, as a partial download. */
static void prewrite(long long n)
{
	cr_assert_eq(pt_sh("head -c %lld '%s' > '%s'", n, data_path, part), 0);
}

static int log_count(const mirror *m, const char *needle)
{
	char *s = pt_read(m->log);
	int n = 0;
	for (char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(s);
	return n;
}

/* The digest fetch reported must be the one of the bytes left on disk. */
static void assert_complete(const pyrt_fetch_result *r)
{
	cr_assert_str_eq(r->sha256, data_sha);
	cr_assert_eq(r->bytes, DATA_SIZE);
	cr_assert_eq(file_size(part), DATA_SIZE);
	cr_assert_eq(pt_sh("cmp -s '%s' '%s'", part, data_path), 0,
		     "partial file differs from the served file");
}

Test(fetch, full_download_hash_matches)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	int rc = pyrt_fetch(&o, &ev, &r, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.http_status, 200);
	char hex[PYRT_SHA256_HEX_LEN + 1];
	cr_assert_eq(pyrt_sha256_file_hex(part, hex, &err), 0);
	cr_assert_str_eq(hex, r.sha256);

	struct stat st;
	cr_assert_eq(stat(part, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_gt(rec.progress_calls, 0);
	cr_assert_eq(rec.last_done, DATA_SIZE);
	cr_assert_eq(rec.last_total, DATA_SIZE);
	cr_assert_eq(log_count(&tls_srv, "range=-"), 1);
}

Test(fetch, system_cas_do_not_trust_test_ca)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.cacert = NULL;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(err.code, PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "certificate verification failed"),
		  "%s", err.msg);
	cr_assert(strstr(err.msg, "--cacert"), "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(log_count(&tls_srv, "GET "), 0);
}

Test(fetch, wrong_ca_refused_without_retry)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin");
	o.cacert = other_pem;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "certificate verification failed"),
		  "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
	cr_assert_null(strstr(rec.log, "retrying"), "%s", rec.log);
}

Test(fetch, missing_ca_file_is_reported)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	char *missing = pt_join(tmp, "nope.pem");
	o.cacert = missing;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, missing), "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
	free(missing);
}

Test(fetch, plain_http_to_loopback_allowed)
{
	mirror_start(&plain_srv, 1);
	const char *hosts[] = { "127.0.0.1", "localhost" };
	for (size_t i = 0; i < 2; i++) {
		char url[256];
		snprintf(url, sizeof url, "http://%s:%d/data.bin", hosts[i],
			 plain_srv.port);
		pyrt_fetch_opts o = opts_for("data.bin");
		o.url = url;
		pyrt_fetch_result r;
		pyrt_error err = PYRT_ERROR_INIT;
		unlink(part);
		cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s: %s", url,
			     err.msg);
		assert_complete(&r);
	}
	cr_assert_eq(log_count(&plain_srv, "GET /data.bin"), 2);
}

Test(fetch, plain_http_elsewhere_refused_before_connecting)
{
	const char *urls[] = {
		"http://example.invalid/x",
		"http://10.255.255.1/x",
		"http://127.0.0.1.example.invalid/x",
		"http://localhost.example.invalid/x",
		"HTTP://example.invalid/x",
		"ftp://127.0.0.1/x",
		"file:///etc/passwd",
		"not a url",
		"//127.0.0.1/x",
	};
	for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
		pyrt_fetch_opts o = opts_for("data.bin");
		o.url = urls[i];
		pyrt_fetch_result r;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_USAGE,
			     "%s: %s", urls[i], err.msg);
		cr_assert_eq(r.attempts, 0, "%s", urls[i]);
		cr_assert(strstr(err.msg, urls[i]), "%s", err.msg);
		cr_assert_eq(file_size(part), -1, "%s created a file", urls[i]);
	}
	pyrt_fetch_opts o = opts_for("data.bin");
	o.url = "http://example.invalid/x";
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_fetch(&o, NULL, &r, &err);
	cr_assert(strstr(err.msg, "https is required"), "%s", err.msg);
}

/* ::1 is loopback: refused only by the connection (nothing listens there). */
Test(fetch, plain_http_to_ipv6_loopback_passes_the_check)
{
	char url[256];
	snprintf(url, sizeof url, "http://[::1]:%d/data.bin", tls_srv.port);
	pyrt_fetch_opts o = opts_for("data.bin");
	o.url = url;
	o.max_attempts = 1;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fetch(&o, NULL, &r, &err);
	cr_assert_neq(rc, PYRT_E_USAGE, "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
}

Test(fetch, not_found_is_permanent)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=status:404");
	o.max_attempts = 4;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(r.http_status, 404);
	cr_assert(strstr(err.msg, "404"), "%s", err.msg);
	cr_assert_eq(log_count(&tls_srv, "GET "), 1);
	/* The 404 page is not the archive, and an empty file is no start. */
	cr_assert_eq(file_size(part), -1, "a 404 left a partial file");
}

Test(fetch, missing_file_is_permanent)
{
	pyrt_fetch_opts o = opts_for("no-such-file.tar.gz");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(r.http_status, 404);
}

Test(fetch, server_error_is_retried_to_the_limit)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin?fault=status:500");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 3);
	cr_assert_eq(r.http_status, 500);
	cr_assert_eq(log_count(&tls_srv, "GET "), 3);
	cr_assert(strstr(rec.log, "download interrupted (HTTP 500); retrying "
			 "in 10 ms, attempt 2 of 3"), "%s", rec.log);
	cr_assert(strstr(rec.log, "retrying in 20 ms, attempt 3 of 3"), "%s",
		  rec.log);
	cr_assert(strstr(err.msg, "after 3 attempts"), "%s", err.msg);
	cr_assert(strstr(err.msg, "HTTP 500"), "%s", err.msg);
	cr_assert_eq(file_size(part), -1, "500s left a partial file");
}

Test(fetch, too_many_requests_is_retried)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=status:429");
	o.max_attempts = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 2);
	cr_assert_eq(r.http_status, 429);
}

Test(fetch, reset_once_then_resumed_with_range)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin?fault=once_reset_after:1500000");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.attempts, 2);
	cr_assert_eq(r.resumed_from, 0, "no partial file existed before");
	cr_assert_eq(log_count(&tls_srv, "GET "), 2);
	cr_assert_eq(log_count(&tls_srv, "range=bytes="), 1);
	cr_assert_eq(log_count(&tls_srv, "range=bytes=0-"), 0);
	cr_assert(strstr(rec.log, "download interrupted ("), "%s", rec.log);
	cr_assert(strstr(rec.log, "attempt 2 of 3"), "%s", rec.log);
	cr_assert(strstr(rec.log, "resuming at "), "%s", rec.log);
}

Test(fetch, resume_from_partial_file)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(1000000);
	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 1000000);
	cr_assert_eq(r.http_status, 206);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(log_count(&tls_srv, "range=bytes=1000000-"), 1);
	cr_assert(strstr(rec.log, "resuming at 1000000 bytes"), "%s", rec.log);
	cr_assert_eq(rec.last_done, DATA_SIZE);
	cr_assert_eq(rec.last_total, DATA_SIZE);
}

/* A wrong prefix is kept (the verifier catches it): the digest must say so. */
Test(fetch, resumed_digest_covers_the_old_bytes)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(500000);
	cr_assert_eq(pt_sh("printf 'XXXX' | dd of='%s' bs=1 seek=10 "
			   "conv=notrunc status=none", part), 0);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.resumed_from, 500000);
	cr_assert_str_neq(r.sha256, data_sha);
	char hex[PYRT_SHA256_HEX_LEN + 1];
	cr_assert_eq(pyrt_sha256_file_hex(part, hex, &err), 0);
	cr_assert_str_eq(hex, r.sha256);
}

Test(fetch, resume_when_server_ignores_range)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin?fault=ignore_range");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(1000000);
	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.http_status, 200);
	cr_assert_eq(log_count(&tls_srv, "range=bytes=1000000-"), 1);
	cr_assert(strstr(rec.log, "ignored the range"), "%s", rec.log);
}

Test(fetch, complete_partial_file_gets_416_and_is_done)
{
	for (int with_size = 0; with_size < 2; with_size++) {
		pyrt_fetch_opts o = opts_for("data.bin");
		o.expected_size = with_size ? DATA_SIZE : 0;
		pyrt_fetch_result r;
		pyrt_error err = PYRT_ERROR_INIT;

		prewrite(DATA_SIZE);
		cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
		assert_complete(&r);
		cr_assert_eq(r.http_status, 416);
		cr_assert_eq(r.resumed_from, DATA_SIZE);
		cr_assert_eq(r.attempts, 1);
	}
}

Test(fetch, partial_longer_than_server_file_starts_over)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(DATA_SIZE);
	cr_assert_eq(pt_sh("printf 'trailing junk' >> '%s'", part), 0);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.attempts, 2);
	cr_assert_eq(log_count(&tls_srv, "range=-"), 1);
}

Test(fetch, partial_larger_than_pinned_size_is_dropped)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(DATA_SIZE);
	cr_assert_eq(pt_sh("printf 'trailing junk' >> '%s'", part), 0);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(log_count(&tls_srv, "range=-"), 1);
}

Test(fetch, short_body_fails_and_keeps_partial)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=short:200000");
	o.max_attempts = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 2);
	cr_assert(strstr(err.msg, "after 2 attempts"), "%s", err.msg);
	/* Each try got 200000 more bytes; the second one asked for the rest. */
	cr_assert_eq(file_size(part), 400000);
	cr_assert_eq(log_count(&tls_srv, "range=bytes=200000-"), 1);
	cr_assert_eq(pt_sh("cmp -s -n 400000 '%s' '%s'", part, data_path), 0);
}

Test(fetch, endless_body_is_cut_at_the_cap)
{
	pyrt_fetch_opts o = opts_for("endless.bin?fault=endless");
	o.max_size = 1024 * 1024;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "exceeds the cap of 1048576 bytes"), "%s",
		  err.msg);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(file_size(part), -1, "partial of a capped body kept");
}

Test(fetch, stall_is_cut_off)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=stall_after:1000");
	o.max_attempts = 2;
	o.low_speed_limit = 1000;
	o.low_speed_time_s = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "too slow"), "%s", err.msg);
	cr_assert_eq(r.attempts, 2);
	cr_assert_gt(file_size(part), 0);
	cr_assert_eq(log_count(&tls_srv, "range=bytes="), 1);
}

Test(fetch, cancel_from_progress_keeps_partial)
{
	pt_recorder rec = { 0 };
	rec.cancel_after_progress = 3;
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin?fault=slow:1000000");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_CANCELLED, "%s",
		     err.msg);
	cr_assert_eq(err.code, PYRT_E_CANCELLED);
	cr_assert_eq(rec.progress_calls, 3);
	cr_assert_eq(r.attempts, 1);
	/* Whatever arrived is kept; nothing arrived leaves no file. */
	cr_assert_neq(file_size(part), 0);
	cr_assert_lt(file_size(part), DATA_SIZE);
}

Test(fetch, cancel_flag_stops_before_the_request)
{
	atomic_int cancel = 1;
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	ev.cancel = &cancel;
	pyrt_fetch_opts o = opts_for("data.bin");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(1000);
	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_CANCELLED);
	cr_assert_eq(file_size(part), 1000);
	cr_assert_eq(log_count(&tls_srv, "GET "), 0);
}

/* A file of another size is not the pinned one: not a byte of it is kept. */
Test(fetch, expected_size_larger_than_served)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE + 1000;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(file_size(part), -1, "another file's bytes were kept");
}

/*
 * Finding 4: a captive portal (or proxy) answers 200 with a small page of
 * its own.  Kept as the partial, the next run would resume after it and
 * fail the digest.  It is refused, nothing of it is written, and a partial
 * file already there is left exactly as it was.
 */
Test(fetch, captive_portal_200_is_not_kept)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	pyrt_fetch_opts o = opts_for("data.bin?fault=portal");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 1, "a portal page is not worth a retry");
	cr_assert_eq(r.http_status, 200);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert(strstr(err.msg, "captive portal"), "%s", err.msg);
	cr_assert(strstr(err.msg, "200"), "%s", err.msg);
	cr_assert_eq(file_size(part), -1, "the portal page became the partial");

	/* The next run starts from zero and succeeds at once. */
	o = opts_for("data.bin");
	o.expected_size = DATA_SIZE;
	memset(&err, 0, sizeof err);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.resumes, 0);
}

Test(fetch, captive_portal_200_leaves_an_earlier_partial_alone)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=portal");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(1000000);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert_eq(log_count(&tls_srv, "range=bytes=1000000-"), 1);
	cr_assert_eq(file_size(part), 1000000);
	cr_assert_eq(pt_sh("cmp -s -n 1000000 '%s' '%s'", part, data_path), 0,
		     "the earlier partial was changed");
}

/* Without a pinned size there is nothing to compare: the digest judges. */
Test(fetch, captive_portal_200_without_a_pinned_size_is_complete)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=portal");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	cr_assert_str_neq(r.sha256, data_sha);
	cr_assert_gt(file_size(part), 0);
}

/* A 206 for our range, but of a file whose size is not the pinned one. */
Test(fetch, range_answer_of_another_size_is_not_kept)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE + 1000;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	prewrite(1000000);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "HTTP 206"), "%s", err.msg);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert_eq(file_size(part), 1000000);
}

/*
 * A 200 that does not state its length cannot be shown to be the archive
 * until it is complete: interrupted, its bytes are not kept when a size is
 * pinned (retries within the call still continue them).
 */
Test(fetch, unsized_200_interrupted_is_not_kept)
{
	pyrt_fetch_opts o =
		opts_for("data.bin?fault=nolength&fault=reset_after:500000");
	o.expected_size = DATA_SIZE;
	o.max_attempts = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK, "%s",
		     err.msg);
	cr_assert_eq(r.attempts, 2);
	/* A reset drops what sat unread in the socket: the second try
	 * continues from whatever had arrived. */
	cr_assert_eq(log_count(&tls_srv, "range=bytes="), 1);
	cr_assert_eq(file_size(part), -1, "an unproven body was kept");
}

Test(fetch, unsized_200_interrupted_without_a_pinned_size_is_kept)
{
	pyrt_fetch_opts o =
		opts_for("data.bin?fault=nolength&fault=reset_after:500000");
	o.max_attempts = 1;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK, "%s",
		     err.msg);
	cr_assert_gt(file_size(part), 0);
	cr_assert_eq(pt_sh("cmp -s -n %lld '%s' '%s'", file_size(part), part,
			   data_path), 0);
}

/* Complete but short: now it is known not to be the archive. */
Test(fetch, unsized_200_of_another_size_is_not_kept)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=nolength");
	o.expected_size = DATA_SIZE + 1000;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "not the archive"), "%s", err.msg);
	cr_assert_eq(r.attempts, 1);
	cr_assert_eq(file_size(part), -1);
}

Test(fetch, unsized_200_complete_is_accepted)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=nolength");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
}

/* resumes says whether the digest covers bytes of an earlier answer. */
Test(fetch, resumes_counts_continued_answers)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.resumes, 0);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.http_status, 416);
	cr_assert_eq(r.resumes, 1, "a complete partial is a resume");
	unlink(part);
	o = opts_for("data.bin?fault=once_reset_after:700000");
	o.expected_size = DATA_SIZE;
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.resumed_from, 0);
	cr_assert_eq(r.resumes, 1, "a resume within the call counts");
}

Test(fetch, redirect_to_plain_http_is_refused)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=redirect:http");
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(r.attempts, 1, "a refused redirect is not retried");
	cr_assert_eq(log_count(&tls_srv, "GET "), 1, "the redirect was followed");
	cr_assert_eq(file_size(part), -1);
	cr_assert(strstr(err.msg, "redirected to http://127.0.0.1:"), "%s",
		  err.msg);
	cr_assert(strstr(err.msg, "https only"), "%s", err.msg);

	/* The same redirect to https is followed: the refusal is the scheme. */
	o = opts_for("data.bin?fault=redirect:https");
	memset(&err, 0, sizeof err);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(log_count(&tls_srv, "GET /data.bin range"), 1);
}

/*
 * RLIMIT_FSIZE below the archive: with SIGXFSZ ignored (as pyrt's main()
 * does) the write fails with EFBIG, reported with the file and the fix; what
 * was written is a prefix and is kept for the next run.
 */
Test(fetch, file_size_limit_is_a_clean_io_error)
{
	struct rlimit lim = { 1000000, RLIM_INFINITY };
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_IO, "%s", err.msg);
	cr_assert(strstr(err.msg, part), "%s", err.msg);
	cr_assert(strstr(err.msg, "File too large"), "%s", err.msg);
	cr_assert(strstr(err.msg, "ulimit -f"), "%s", err.msg);
	cr_assert_eq(r.attempts, 1, "a disk error is not retried");
	cr_assert_eq(file_size(part), 1000000);

	lim.rlim_cur = RLIM_INFINITY;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	memset(&err, 0, sizeof err);
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.resumed_from, 1000000);
}

Test(fetch, stall_once_then_resumed)
{
	pyrt_fetch_opts o = opts_for("data.bin?fault=once_stall_after:1000");
	o.low_speed_limit = 1000;
	o.low_speed_time_s = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s", err.msg);
	assert_complete(&r);
	cr_assert_eq(r.attempts, 2);
	cr_assert_eq(log_count(&tls_srv, "range=bytes="), 1);
}

Test(fetch, expected_size_smaller_than_served)
{
	pyrt_fetch_opts o = opts_for("data.bin");
	o.expected_size = DATA_SIZE - 1000;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "exceeds the cap"), "%s", err.msg);
	cr_assert_eq(file_size(part), -1);
}

/* No Content-Length to warn libcurl: the write callback has to cut it. */
Test(fetch, expected_size_enforced_on_unsized_body)
{
	pyrt_fetch_opts o = opts_for("endless.bin?fault=endless");
	o.expected_size = 300000;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;

	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), PYRT_E_NETWORK);
	cr_assert(strstr(err.msg, "exceeds the cap of 300000 bytes"), "%s",
		  err.msg);
	cr_assert_eq(file_size(part), -1);
}

Test(fetch, via_mirror_url)
{
	char *url = NULL;
	char mirror_base[256];
	pyrt_error err = PYRT_ERROR_INIT;
	snprintf(mirror_base, sizeof mirror_base, "https://127.0.0.1:%d/mirror/",
		 tls_srv.port);
	cr_assert_eq(pyrt_fetch_mirror_url(
		"https://github.com/astral-sh/python-build-standalone/releases/"
		"download/20260814/cpython%2B1.tar.gz", mirror_base, &url, &err),
		0, "%s", err.msg);
	pyrt_fetch_opts o = opts_for("unused");
	o.url = url;
	pyrt_fetch_result r;
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s: %s", url, err.msg);
	assert_complete(&r);
	free(url);
}

/* Pure functions: no server needed, but the suite starts one anyway. */
Test(fetch, mirror_url_cases)
{
	static const struct { const char *url, *mirror, *want; } ok[] = {
		{ "https://github.com/a/b/releases/download/20260814/"
		  "cpython-3.12.14%2B20260814-x86_64.tar.gz",
		  "https://mirror.example/pbs",
		  "https://mirror.example/pbs/20260814/"
		  "cpython-3.12.14%2B20260814-x86_64.tar.gz" },
		{ "https://h/x/20260814/f.tar.gz", "https://m.example/p//",
		  "https://m.example/p/20260814/f.tar.gz" },
		{ "https://h/20260814/f.tar.gz?x=1#frag", "http://127.0.0.1:8/",
		  "http://127.0.0.1:8/20260814/f.tar.gz" },
		{ "https://h/a/b/", "https://m", "https://m/a/b" },
		/* The mirror's credentials and query survive, the query after
		 * the file; its fragment is dropped; escapes are kept as is. */
		{ "https://h/x/20260814/f%2B1.tar.gz",
		  "https://u:p@m.example/p?x=1",
		  "https://u:p@m.example/p/20260814/f%2B1.tar.gz?x=1" },
		{ "https://h/x/20260814/f.tar.gz",
		  "https://m.example/p/?x=1&y=%2B2#frag",
		  "https://m.example/p/20260814/f.tar.gz?x=1&y=%2B2" },
		{ "https://h/x/20260814/f.tar.gz", "https://m.example?token=abc",
		  "https://m.example/20260814/f.tar.gz?token=abc" },
		{ "https://h/x/20260814/f.tar.gz", "https://m.example/p%2Bq/",
		  "https://m.example/p%2Bq/20260814/f.tar.gz" },
	};
	static const struct { const char *url, *mirror; } bad[] = {
		{ "https://h/only-one.tar.gz", "https://m" },
		{ "https://h/", "https://m" },
		{ "https://h//f.tar.gz", "https://m" },
		{ "not a url", "https://m" },
		{ "https://h/a/b", "" },
		{ "https://h/a/b", "/" },
		{ "https://h/a/b", "no scheme" },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char *out = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_fetch_mirror_url(ok[i].url, ok[i].mirror,
						   &out, &err), 0, "%s", err.msg);
		cr_assert_str_eq(out, ok[i].want);
		free(out);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out = (char *)"sentinel";
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_fetch_mirror_url(bad[i].url, bad[i].mirror,
						   &out, &err), PYRT_E_USAGE,
			     "%s + %s", bad[i].url, bad[i].mirror);
		cr_assert_null(out);
		cr_assert_neq(err.msg[0], '\0');
	}
}

Test(fetch, mirror_url_errors_hide_credentials)
{
	static const struct { const char *url, *mirror; } bad[] = {
		{ "https://h/only-one.tar.gz",
		  "https://u:hunter2@m.example/p?token=SECRET" },
		{ "https://h/a/b", "no scheme alice:hunter2@m token=SECRET" },
		{ "https://u:hunter2@h/x?token=SECRET", "https://m" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out = NULL;
		pyrt_error err = PYRT_ERROR_INIT;
		cr_assert_eq(pyrt_fetch_mirror_url(bad[i].url, bad[i].mirror,
						   &out, &err), PYRT_E_USAGE);
		cr_assert_null(strstr(err.msg, "hunter2"), "%s", err.msg);
		cr_assert_null(strstr(err.msg, "SECRET"), "%s", err.msg);
	}
}

/* The mirror's query goes after the file: the server sees the file's path
 * and the query, and the download succeeds. */
Test(fetch, via_mirror_url_with_query)
{
	char *url = NULL;
	char mirror_base[256];
	pyrt_error err = PYRT_ERROR_INIT;
	snprintf(mirror_base, sizeof mirror_base,
		 "https://127.0.0.1:%d/mirror/?token=SECRET", tls_srv.port);
	cr_assert_eq(pyrt_fetch_mirror_url(
		"https://github.com/astral-sh/python-build-standalone/releases/"
		"download/20260814/cpython%2B1.tar.gz", mirror_base, &url, &err),
		0, "%s", err.msg);
	pyrt_fetch_opts o = opts_for("unused");
	o.url = url;
	pyrt_fetch_result r;
	cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s: %s", url, err.msg);
	assert_complete(&r);
	cr_assert_eq(log_count(&tls_srv, "GET /mirror/20260814/cpython%2B1.tar.gz"
			       "?token=SECRET "), 1);
	free(url);
}

/* Messages and log lines name the URL without userinfo or query values;
 * the request itself carries both. */
Test(fetch, messages_hide_url_credentials)
{
	pt_recorder rec = { 0 };
	pyrt_events ev = pt_recorder_events(&rec);
	char url[512];
	snprintf(url, sizeof url, "https://alice:hunter2@127.0.0.1:%d/data.bin"
		 "?fault=status:500&token=SECRET", tls_srv.port);
	pyrt_fetch_opts o = opts_for("unused");
	o.url = url;
	o.max_attempts = 2;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_fetch(&o, &ev, &r, &err), PYRT_E_NETWORK);
	cr_assert_eq(log_count(&tls_srv, "token=SECRET"), 2);
	char shown[128];
	snprintf(shown, sizeof shown, "https://127.0.0.1:%d/data.bin"
		 "?fault=***&token=***", tls_srv.port);
	cr_assert(strstr(err.msg, shown), "%s", err.msg);
	for (const char *s = "hunter2\0alice\0SECRET\0"; *s; s += strlen(s) + 1) {
		cr_assert_null(strstr(err.msg, s), "%s", err.msg);
		cr_assert_null(strstr(rec.log, s), "%s", rec.log);
	}

	const char *refused[] = {
		"http://alice:hunter2@example.invalid/x?token=SECRET",
		"ftp://alice:hunter2@127.0.0.1/x?token=SECRET",
	};
	for (size_t i = 0; i < 2; i++) {
		pyrt_error e2 = PYRT_ERROR_INIT;
		o.url = refused[i];
		cr_assert_eq(pyrt_fetch(&o, NULL, &r, &e2), PYRT_E_USAGE);
		cr_assert_null(strstr(e2.msg, "hunter2"), "%s", e2.msg);
		cr_assert_null(strstr(e2.msg, "SECRET"), "%s", e2.msg);
		cr_assert(strstr(e2.msg, "/x?token=***"), "%s", e2.msg);
	}
}

/* A listening socket nobody accepts on: a connection to it stays queued,
 * so poll() tells afterwards whether anyone ever came. */
static int listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Plain http is allowed to loopback because it stays on the machine: a
 * proxy from the environment must not carry it (or https) elsewhere. */
Test(fetch, loopback_never_goes_through_a_proxy)
{
	int pport = 0;
	int pfd = listener(&pport);
	char proxy[64];
	snprintf(proxy, sizeof proxy, "http://127.0.0.1:%d", pport);
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	setenv("http_proxy", proxy, 1);
	setenv("https_proxy", proxy, 1);
	setenv("HTTPS_PROXY", proxy, 1);
	setenv("ALL_PROXY", proxy, 1);
	mirror_start(&plain_srv, 1);

	char url[256];
	snprintf(url, sizeof url, "http://127.0.0.1:%d/data.bin", plain_srv.port);
	const char *urls[] = { url, NULL };
	pyrt_fetch_opts tls = opts_for("data.bin");
	urls[1] = tls.url;
	for (size_t i = 0; i < 2; i++) {
		pyrt_fetch_opts o = opts_for("data.bin");
		o.url = urls[i];
		o.max_attempts = 1;
		o.connect_timeout_s = 3;
		o.low_speed_time_s = 2;
		pyrt_fetch_result r;
		pyrt_error err = PYRT_ERROR_INIT;
		unlink(part);
		cr_assert_eq(pyrt_fetch(&o, NULL, &r, &err), 0, "%s: %s",
			     urls[i], err.msg);
		assert_complete(&r);
	}
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 0), 0, "the proxy was contacted");
	cr_assert_eq(log_count(&plain_srv, "GET /data.bin"), 1);
	cr_assert_eq(log_count(&tls_srv, "GET /data.bin"), 1);
	close(pfd);
}

/*
 * --cacert also verifies an HTTPS proxy: the proxy's certificate is from the
 * test CA, which the system CAs do not trust.  "localhost." is not one of
 * the loopback names pyrt bypasses proxies for, so it goes through.
 */
Test(fetch, cacert_also_verifies_an_https_proxy)
{
	mirror px = { 0 };
	proxy_start(&px);
	char proxy[64], url[256], connect[64];
	snprintf(proxy, sizeof proxy, "https://127.0.0.1:%d", px.port);
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	setenv("https_proxy", proxy, 1);
	snprintf(url, sizeof url, "https://localhost.:%d/data.bin", tls_srv.port);
	pyrt_fetch_opts o = opts_for("data.bin");
	o.url = url;
	o.max_attempts = 1;
	pyrt_fetch_result r;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_fetch(&o, NULL, &r, &err);
	char *plog = pt_read(px.log);
	cr_assert_eq(rc, 0, "%s\nproxy log:\n%s", err.msg, plog ? plog : "");
	assert_complete(&r);
	snprintf(connect, sizeof connect, "CONNECT localhost.:%d", tls_srv.port);
	cr_assert(plog && strstr(plog, connect), "%s", plog ? plog : "");
	free(plog);
	mirror_stop(&px);
}

Test(fetch, url_host_cases)
{
	char buf[64];
	pyrt_fetch_url_host("https://github.com/a/b", buf, sizeof buf);
	cr_assert_str_eq(buf, "github.com");
	pyrt_fetch_url_host("https://127.0.0.1:8443/x", buf, sizeof buf);
	cr_assert_str_eq(buf, "127.0.0.1");
	pyrt_fetch_url_host("https://user:pw@Mirror.Example/x", buf, sizeof buf);
	cr_assert_str_eq(buf, "Mirror.Example");
	pyrt_fetch_url_host("http://[::1]:80/", buf, sizeof buf);
	cr_assert_str_eq(buf, "[::1]");
	pyrt_fetch_url_host("nonsense", buf, sizeof buf);
	cr_assert_str_eq(buf, "");
	pyrt_fetch_url_host(NULL, buf, sizeof buf);
	cr_assert_str_eq(buf, "");
	/* A host cut to fit says it was cut: never another, shorter name. */
	char small[8];
	pyrt_fetch_url_host("https://github.com/", small, sizeof small);
	cr_assert_str_eq(small, "gith...");
}
