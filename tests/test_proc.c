/* ctest: test_proc */
/* Tests for core/util/proc.c: exit status, lines, scrubbed env, stopping, capture cap. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/proc.h"
#include "support.h"

/* Lines seen by on_line, and an optional line after which to stop. */
typedef struct lines {
	char *v[64];
	size_t lens[64];
	int n;
	const char *stop_at;
	atomic_int *cancel_on_stop; /* set this flag instead of returning 1 */
} lines;

static int collect(const char *line, void *payload)
{
	lines *l = payload;
	if (l->n < 64) {
		l->lens[l->n] = strlen(line);
		l->v[l->n++] = strdup(line);
	}
	if (l->stop_at && strcmp(line, l->stop_at) == 0) {
		if (l->cancel_on_stop) {
			atomic_store(l->cancel_on_stop, 1);
			return 0;
		}
		return 1;
	}
	return 0;
}

static void lines_free(lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
}

/* Run `sh -c script` with the given timeout and grace. */
static int run_sh(const char *script, double timeout, double grace,
		  pyrt_proc_result *res, lines *l)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.envp = envp;
	o.timeout_s = timeout;
	o.grace_s = grace;
	if (l) {
		o.on_line = collect;
		o.payload = l;
	}
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_proc_run(&o, res, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	return rc;
}

Test(proc, exit_code_and_output)
{
	pyrt_proc_result res;
	run_sh("echo out; echo err >&2; exit 7", 30, 1, &res, NULL);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_code, 7);
	cr_assert_eq(res.term_signal, 0);
	cr_assert_eq(res.timed_out, 0);
	cr_assert_eq(res.cancelled, 0);
	cr_assert_eq(res.truncated, 0);
	cr_assert_str_eq(res.output, "out\nerr\n");
	cr_assert_eq(res.output_len, 8);
	pyrt_proc_result_clear(&res);
	cr_assert_null(res.output);
	pyrt_proc_result_clear(NULL);

	run_sh("exit 0", 30, 1, &res, NULL);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_code, 0);
	cr_assert_str_eq(res.output, "");
	pyrt_proc_result_clear(&res);
}

Test(proc, stdin_is_dev_null)
{
	pyrt_proc_result res;
	run_sh("cat; echo rc=$?", 30, 1, &res, NULL);
	cr_assert_str_eq(res.output, "rc=0\n");
	pyrt_proc_result_clear(&res);
}

Test(proc, lines_in_order)
{
	lines l = { 0 };
	pyrt_proc_result res;
	run_sh("i=1; while [ $i -le 20 ]; do echo line$i; i=$((i+1)); done; "
	       "echo to-stderr >&2; printf 'no newline'",
	       30, 1, &res, &l);
	cr_assert_eq(l.n, 22);
	for (int i = 0; i < 20; i++) {
		char want[16];
		snprintf(want, sizeof want, "line%d", i + 1);
		cr_assert_str_eq(l.v[i], want);
	}
	cr_assert_str_eq(l.v[20], "to-stderr");
	cr_assert_str_eq(l.v[21], "no newline");
	lines_free(&l);
	pyrt_proc_result_clear(&res);
}

Test(proc, long_lines_split_at_4k)
{
	lines l = { 0 };
	pyrt_proc_result res;
	run_sh("head -c 10000 /dev/zero | tr '\\0' a; echo; "
	       "head -c 4096 /dev/zero | tr '\\0' b; echo; echo end",
	       30, 1, &res, &l);
	cr_assert_eq(l.n, 5);
	cr_assert_eq(l.lens[0], 4096);
	cr_assert_eq(l.lens[1], 4096);
	cr_assert_eq(l.lens[2], 10000 - 8192);
	cr_assert_eq(l.v[2][0], 'a');
	/* Exactly one piece long: no empty line after it. */
	cr_assert_eq(l.lens[3], 4096);
	cr_assert_eq(l.v[3][0], 'b');
	cr_assert_str_eq(l.v[4], "end");
	lines_free(&l);
	pyrt_proc_result_clear(&res);
}

static const char *const net_vars[] = {
	"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY",
	"HTTPS_PROXY", "NO_PROXY", "PIP_INDEX_URL",
	"PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_CERT",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
	"CURL_CA_BUNDLE",
};

/* env(1) under env: no secret of ours, and exactly the array. */
static void run_env(char **env, pyrt_proc_result *res)
{
	const char *argv[] = { "/usr/bin/env", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.envp = (const char *const *)env;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, res, &err), 0, "%s", err.msg);
	cr_assert_eq(res->exit_code, 0);
	cr_assert_null(strstr(res->output, "SECRET_TOKEN"), "%s", res->output);
	cr_assert_null(strstr(res->output, "hunter2"), "%s", res->output);
	cr_assert_null(strstr(res->output, "AWS_SECRET"), "%s", res->output);
	cr_assert_null(strstr(res->output, "HTTP_PROXY"), "%s", res->output);
	size_t total = 0;
	for (char **p = env; *p; p++) {
		char *line = NULL;
		cr_assert(asprintf(&line, "%s\n", *p) > 0);
		cr_assert(strstr(res->output, line), "missing %s", *p);
		total += strlen(line);
		free(line);
	}
	cr_assert_eq(res->output_len, total, "%s", res->output);
	cr_assert(strstr(res->output, "PATH=/usr/bin:/bin\n"));
	cr_assert(strstr(res->output, "LANG=C.UTF-8\n"));
	cr_assert(strstr(res->output, "LC_ALL=C.UTF-8\n"));
	cr_assert(strstr(res->output, "HOME=/tmp/pyrt-home\n"));
}

/* Secrets and network settings in our own environment. */
static void set_secrets(void)
{
	for (size_t i = 0; i < sizeof net_vars / sizeof net_vars[0]; i++)
		unsetenv(net_vars[i]);
	setenv("SECRET_TOKEN", "hunter2", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "nope", 1);
	setenv("https_proxy", "http://127.0.0.1:3128", 1);
	setenv("PIP_INDEX_URL", "https://user:pw@127.0.0.1:8443/simple", 1);
	setenv("PIP_TRUSTED_HOST", "127.0.0.1", 1);
}

static size_t env_count(char **env)
{
	size_t n = 0;
	while (env[n])
		n++;
	return n;
}

/* Children that do not reach the network see no proxy and no index. */
Test(proc, scrubbed_env_is_minimal)
{
	set_secrets();
	char **env = pyrt_proc_scrubbed_env("/tmp/pyrt-home");
	cr_assert_not_null(env);
	pyrt_proc_result res;
	run_env(env, &res);
	cr_assert_eq(env_count(env), 4); /* PATH LANG LC_ALL HOME */
	cr_assert_null(strstr(res.output, "proxy"), "%s", res.output);
	cr_assert_null(strstr(res.output, "PIP_"), "%s", res.output);
	cr_assert_null(strstr(res.output, "user:pw"), "%s", res.output);
	pyrt_proc_result_clear(&res);
	pyrt_proc_env_free(env);
	pyrt_proc_env_free(NULL);
}

/* pip's: the minimal one plus proxies, index and CA settings. */
Test(proc, network_env_adds_pips_variables_only)
{
	set_secrets();
	char **env = pyrt_proc_network_env("/tmp/pyrt-home");
	cr_assert_not_null(env);
	pyrt_proc_result res;
	run_env(env, &res);
	/* + https_proxy PIP_INDEX_URL PIP_TRUSTED_HOST */
	cr_assert_eq(env_count(env), 7);
	cr_assert(strstr(res.output, "https_proxy=http://127.0.0.1:3128\n"),
		  "%s", res.output);
	cr_assert(strstr(res.output, "PIP_INDEX_URL=https://user:pw@"), "%s",
		  res.output);
	pyrt_proc_result_clear(&res);
	pyrt_proc_env_free(env);
}

/* The child's umask is 022 whatever ours is, and ours is left alone. */
Test(proc, child_umask_is_022)
{
	mode_t old = umask(0);
	const char *argv[] = { "/bin/sh", "-c", "umask", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_proc_run(&o, &res, &err);
	mode_t now = umask(old);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(now, 0, "the parent's umask was changed to %o", now);
	cr_assert_str_eq(res.output, "0022\n");
	pyrt_proc_result_clear(&res);
}

/* Nothing of ours but the output pipe reaches the child. */
Test(proc, child_gets_no_other_descriptors)
{
	int fd = open("/dev/null", O_RDONLY); /* not close-on-exec */
	cr_assert(fd > 2);
	const char *argv[] = { "/bin/ls", "/proc/self/fd", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	close(fd);
	/* 0 1 2, and 3: ls's own handle on the directory. */
	cr_assert_str_eq(res.output, "0\n1\n2\n3\n");
	pyrt_proc_result_clear(&res);
}

Test(proc, cwd_is_honoured)
{
	char *dir = pt_tmpdir("proc-cwd");
	char real[PATH_MAX];
	cr_assert_not_null(realpath(dir, real));
	const char *argv[] = { "/bin/pwd", "-P", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.cwd = dir;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	char want[PATH_MAX + 2];
	snprintf(want, sizeof want, "%s\n", real);
	cr_assert_str_eq(res.output, want);
	pyrt_proc_result_clear(&res);
	pt_rmtree(dir);
	free(dir);
}

Test(proc, missing_program_is_an_error)
{
	const char *argv[] = { "/nonexistent/python3", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), PYRT_E_IO);
	cr_assert(strstr(err.msg, "/nonexistent/python3"), "%s", err.msg);
	cr_assert_null(res.output);
	pyrt_proc_result_clear(&res);
}

/*
 * SIGCHLD ignored (inherited from whoever started pyrt) makes the kernel
 * reap the child: waitpid fails with ECHILD and the status is gone.  That
 * is a failure, never "exited 0", whatever the child did.
 */
Test(proc, lost_exit_status_is_a_failure)
{
	const char *argv[] = { "/bin/sh", "-c", "echo half; exit 3", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	cr_assert_eq(sigaction(SIGCHLD, &ign, &old), 0);
	int rc = pyrt_proc_run(&o, &res, &err);
	sigaction(SIGCHLD, &old, NULL);
	cr_assert_eq(rc, PYRT_E_INTERNAL, "rc %d, exited %d, exit code %d",
		     rc, res.exited, res.exit_code);
	cr_assert(strstr(err.msg, "/bin/sh") && strstr(err.msg, "SIGCHLD"),
		  "%s", err.msg);
	cr_assert_eq(res.exited, 0);
	cr_assert_null(res.output);
	pyrt_proc_result_clear(&res);
}

Test(proc, timeout_stops_with_sigint)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.timeout_s = 0.2;
	o.grace_s = 5;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.timed_out, 1);
	cr_assert_eq(res.cancelled, 0);
	cr_assert_eq(res.exited, 0);
	/* SIGINT was enough: the grace period never ran out. */
	cr_assert_eq(res.term_signal, SIGINT);
	pyrt_proc_result_clear(&res);
}

Test(proc, stubborn_child_gets_sigkill)
{
	pyrt_proc_result res;
	run_sh("trap '' INT TERM; echo armed; sleep 30", 0.3, 0.2, &res, NULL);
	cr_assert_eq(res.timed_out, 1);
	cr_assert_eq(res.term_signal, SIGKILL);
	cr_assert_str_eq(res.output, "armed\n");
	pyrt_proc_result_clear(&res);
}

/* Is pid still running (not merely an unreaped zombie of someone else)? */
static int running(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	char *stat = pt_read(path);
	if (!stat)
		return 0;
	char *close_paren = strrchr(stat, ')');
	int alive = close_paren && close_paren[1] == ' ' &&
		    close_paren[2] != 'Z' && close_paren[2] != 'X';
	free(stat);
	return alive;
}

Test(proc, grandchild_holding_pipe_does_not_hang, .timeout = 60)
{
	pyrt_proc_result res;
	/* Without the post-exit bound this would wait out `sleep 1000`. */
	run_sh("sleep 1000 & echo $!", 300, 1, &res, NULL);
	cr_assert_eq(res.exited, 1);
	cr_assert_eq(res.exit_code, 0);
	cr_assert_eq(res.timed_out, 0);
	long gpid = strtol(res.output, NULL, 10);
	cr_assert_gt(gpid, 1, "%s", res.output);
	/* The group was killed: the grandchild is gone once init reaps it. */
	int alive = 1;
	for (int i = 0; i < 500 && (alive = running((pid_t)gpid)); i++)
		usleep(10000);
	cr_assert_eq(alive, 0, "grandchild %ld still running", gpid);
	pyrt_proc_result_clear(&res);
}

Test(proc, capture_keeps_head_and_tail)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "printf HEAD; head -c 1000 /dev/zero | tr '\\0' x; "
			       "printf TAIL", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.capture_max = 100;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.truncated, 1);
	/* 1008 bytes: first 40 and last 60 kept, 908 dropped. */
	char want[256];
	snprintf(want, sizeof want, "HEAD%.*s\n[… 908 bytes truncated …]\n%.*sTAIL",
		 36, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		 56, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	cr_assert_str_eq(res.output, want);
	cr_assert_eq(res.output_len, strlen(want));
	pyrt_proc_result_clear(&res);

	/* Exactly at the cap: nothing dropped, no marker. */
	const char *argv2[] = { "/bin/sh", "-c",
				"head -c 100 /dev/zero | tr '\\0' y", NULL };
	o.argv = argv2;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.truncated, 0);
	cr_assert_eq(res.output_len, 100);
	cr_assert_eq(strspn(res.output, "y"), 100);
	pyrt_proc_result_clear(&res);
}

Test(proc, capture_tail_wraps_across_reads)
{
	/* Many small writes so the tail ring wraps many times. */
	const char *argv[] = { "/bin/sh", "-c",
			       "i=0; while [ $i -lt 300 ]; do printf '%03d,' $i; "
			       "i=$((i+1)); done", NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.capture_max = 50; /* head 20, tail 30 */
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.truncated, 1);
	cr_assert_str_eq(res.output,
			 "000,001,002,003,004,\n[… 1150 bytes truncated …]\n"
			 "2,293,294,295,296,297,298,299,");
	pyrt_proc_result_clear(&res);
}

Test(proc, cancel_flag_stops_child)
{
	atomic_int cancel = 0;
	lines l = { 0 };
	l.stop_at = "started";
	l.cancel_on_stop = &cancel;
	const char *argv[] = { "/bin/sh", "-c", "echo started; exec sleep 30",
			       NULL };
	pyrt_proc_opts o = PYRT_PROC_OPTS_INIT;
	o.argv = argv;
	o.timeout_s = 300;
	o.cancel = &cancel;
	o.on_line = collect;
	o.payload = &l;
	pyrt_proc_result res;
	pyrt_error err = PYRT_ERROR_INIT;
	cr_assert_eq(pyrt_proc_run(&o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.cancelled, 1);
	cr_assert_eq(res.timed_out, 0);
	cr_assert_eq(res.term_signal, SIGINT);
	cr_assert_str_eq(res.output, "started\n");
	lines_free(&l);
	pyrt_proc_result_clear(&res);
}

Test(proc, on_line_nonzero_stops_child)
{
	lines l = { 0 };
	l.stop_at = "stop here";
	pyrt_proc_result res;
	run_sh("echo one; echo 'stop here'; echo after; exec sleep 30", 300, 1,
	       &res, &l);
	cr_assert_eq(res.cancelled, 1);
	cr_assert_eq(res.timed_out, 0);
	cr_assert_eq(res.term_signal, SIGINT);
	/* No calls after the one that asked to stop. */
	cr_assert_eq(l.n, 2);
	cr_assert_str_eq(l.v[1], "stop here");
	lines_free(&l);
	pyrt_proc_result_clear(&res);
}
