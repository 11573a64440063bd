/*
 * Running child programs (the staged interpreter, pip) without letting them
 * hang or flood us.  The child gets its own process group so a stop reaches
 * everything it started; output is read non-blocking, fed line by line to
 * the caller and kept within a byte cap; every wait is bounded, including
 * the one for grandchildren that keep the output pipe open.
 */
#include "core/util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util/clock.h"
#include "core/util/os.h"

#define LINE_CHUNK 4096          /* longer lines reach on_line in pieces */
#define MARKER_MAX 96            /* room for "\n[… N bytes truncated …]\n" */
#define TICK_MS 50               /* how often timers and cancel are looked at */
#define AFTER_EXIT_S 0.5         /* pipe drain allowed after the child is reaped */
#define READ_BUDGET (1024 * 1024) /* bytes per loop turn, so timers keep running */

/* Captured output: the first head_max bytes, then a ring of the last tail_max. */
typedef struct capture {
	char *out; /* head, later the assembled result */
	size_t head_max, head_len;
	char *ring;
	size_t tail_max, ring_len, ring_pos;
	size_t total;
} capture;

/* Splits the byte stream into lines for on_line. */
typedef struct liner {
	int (*on_line)(const char *line, void *payload);
	void *payload;
	char buf[LINE_CHUNK + 1];
	size_t len;
	int stop; /* on_line asked us to stop the child */
} liner;

/* Everything one pyrt_proc_run call tracks while the child runs. */
typedef struct run {
	const pyrt_proc_opts *o;
	pid_t pid;
	int rfd, pidfd;
	int eof, reaped, status;
	int lost; /* reaped by someone else: status unknown */
	int phase; /* 0 running, 1 SIGINT sent, 2 SIGTERM sent, 3 SIGKILL sent */
	double t_start, t_signal, t_reaped;
	int timed_out, cancelled;
	capture cap;
	liner ln;
} run;

/* All buffers are allocated before the spawn, so nothing can fail later. */
static int capture_init(capture *c, size_t max)
{
	memset(c, 0, sizeof *c);
	c->head_max = max / 5 * 2 + (max % 5) * 2 / 5;
	c->tail_max = max - c->head_max;
	c->out = malloc(c->head_max + MARKER_MAX + c->tail_max + 1);
	c->ring = malloc(c->tail_max ? c->tail_max : 1);
	return c->out && c->ring ? 0 : -1;
}

/* Fill the head first; after that only the newest tail_max bytes stay. */
static void capture_feed(capture *c, const char *p, size_t n)
{
	c->total += n;
	size_t h = c->head_max - c->head_len;
	if (h > n)
		h = n;
	memcpy(c->out + c->head_len, p, h);
	c->head_len += h;
	p += h;
	n -= h;
	if (n == 0 || c->tail_max == 0)
		return;
	if (n > c->tail_max) {
		p += n - c->tail_max;
		n = c->tail_max;
	}
	size_t first = c->tail_max - c->ring_pos;
	if (first > n)
		first = n;
	memcpy(c->ring + c->ring_pos, p, first);
	memcpy(c->ring, p + first, n - first);
	c->ring_pos = (c->ring_pos + n) % c->tail_max;
	c->ring_len = c->ring_len + n > c->tail_max ? c->tail_max
						    : c->ring_len + n;
}

/* Head, marker if anything was dropped, then the tail in order. */
static void capture_finish(capture *c, pyrt_proc_result *res)
{
	size_t pos = c->head_len;
	size_t dropped = c->total - c->head_len - c->ring_len;
	if (dropped > 0) {
		int k = snprintf(c->out + pos, MARKER_MAX,
				 "\n[… %zu bytes truncated …]\n", dropped);
		pos += k > 0 && k < MARKER_MAX ? (size_t)k : 0;
		res->truncated = 1;
	}
	size_t start = c->ring_len < c->tail_max ? 0 : c->ring_pos;
	size_t first = c->ring_len - start;
	memcpy(c->out + pos, c->ring + start, first);
	memcpy(c->out + pos + first, c->ring, c->ring_len - first);
	pos += c->ring_len;
	c->out[pos] = '\0';
	res->output = c->out;
	res->output_len = pos;
	c->out = NULL;
}

static void capture_free(capture *c)
{
	free(c->out);
	free(c->ring);
}

/* Deliver one line; a non-zero answer stops the child and further calls. */
static void liner_emit(liner *ln)
{
	ln->buf[ln->len] = '\0';
	ln->len = 0;
	if (!ln->stop && ln->on_line(ln->buf, ln->payload) != 0)
		ln->stop = 1;
}

/*
 * A full buffer is handed over only once more text of the same line
 * arrives, so a line of exactly LINE_CHUNK bytes is not followed by an
 * empty one.
 */
static void liner_feed(liner *ln, const char *p, size_t n)
{
	if (!ln->on_line)
		return;
	while (n > 0 && !ln->stop) {
		if (ln->len == LINE_CHUNK && p[0] != '\n') {
			liner_emit(ln);
			continue;
		}
		const char *nl = memchr(p, '\n', n);
		size_t seg = nl ? (size_t)(nl - p) : n;
		size_t take = LINE_CHUNK - ln->len;
		if (take > seg)
			take = seg;
		memcpy(ln->buf + ln->len, p, take);
		ln->len += take;
		p += take;
		n -= take;
		if (nl && take == seg) {
			p++;
			n--;
			liner_emit(ln);
		}
	}
}

/* Output that ends without a newline still is a line. */
static void liner_flush(liner *ln)
{
	if (ln->on_line && ln->len > 0)
		liner_emit(ln);
}

/* Read what the pipe has now, up to a budget; notes EOF. */
static void drain_pipe(run *r, size_t budget)
{
	char buf[16384];
	while (!r->eof && budget > 0) {
		ssize_t k = read(r->rfd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (k <= 0) {
			/* A read error ends the output just as EOF does. */
			r->eof = 1;
			return;
		}
		capture_feed(&r->cap, buf, (size_t)k);
		liner_feed(&r->ln, buf, (size_t)k);
		budget = (size_t)k > budget ? 0 : budget - (size_t)k;
	}
}

/*
 * Reap without blocking.  ECHILD means the child is gone but its status
 * went elsewhere (SIGCHLD ignored: the kernel reaps it): it ended, and how
 * is unknown, which must never read as exit 0.
 */
static void try_reap(run *r, double now)
{
	pid_t w = waitpid(r->pid, &r->status, WNOHANG);
	if (w == r->pid || (w < 0 && errno == ECHILD)) {
		r->reaped = 1;
		r->lost = w < 0;
		r->t_reaped = now;
	}
}

/* The whole group: the interpreter and anything it started. */
static void signal_group(run *r, int sig)
{
	kill(-r->pid, sig);
}

/*
 * Stop a child that ran out of time or was cancelled: SIGINT first (Python
 * unwinds and flushes), SIGTERM after a grace period, then SIGKILL.
 */
static void escalate(run *r, double now)
{
	const pyrt_proc_opts *o = r->o;
	double grace = o->grace_s > 0 ? o->grace_s : 0;
	if (r->phase == 0) {
		if (o->timeout_s > 0 && now - r->t_start >= o->timeout_s)
			r->timed_out = 1;
		else if ((o->cancel && atomic_load(o->cancel)) || r->ln.stop)
			r->cancelled = 1;
		else
			return;
		signal_group(r, SIGINT);
	} else if (r->phase < 3 && now - r->t_signal >= grace) {
		signal_group(r, r->phase == 1 ? SIGTERM : SIGKILL);
	} else {
		return;
	}
	r->phase++;
	r->t_signal = now;
}

/* How long poll may sleep before a timer or the cancel flag needs a look. */
static int wait_ms(const run *r, double now)
{
	double next = now + TICK_MS / 1000.0;
	const pyrt_proc_opts *o = r->o;
	if (r->reaped && r->t_reaped + AFTER_EXIT_S < next)
		next = r->t_reaped + AFTER_EXIT_S;
	else if (!r->reaped && r->phase == 0 && o->timeout_s > 0 &&
		 r->t_start + o->timeout_s < next)
		next = r->t_start + o->timeout_s;
	else if (!r->reaped && r->phase > 0 && r->phase < 3 &&
		 r->t_signal + o->grace_s < next)
		next = r->t_signal + o->grace_s;
	/* Without a pidfd, an exit after EOF is only seen by polling. */
	if (!r->reaped && r->eof && r->pidfd < 0 && now + 0.005 < next)
		next = now + 0.005;
	double ms = (next - now) * 1000.0;
	return ms < 1 ? 1 : (int)ms;
}

/* Sleep until output, the child's exit (via its pidfd) or the next timer. */
static void wait_events(run *r, int ms)
{
	struct pollfd fds[2];
	nfds_t n = 0;
	int pipe_slot = -1;
	if (!r->eof) {
		pipe_slot = (int)n;
		fds[n++] = (struct pollfd){ .fd = r->rfd, .events = POLLIN };
	}
	if (!r->reaped && r->pidfd >= 0)
		fds[n++] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
	int k = poll(fds, n, ms);
	if (k > 0 && pipe_slot >= 0 && fds[pipe_slot].revents)
		drain_pipe(r, READ_BUDGET);
}

/*
 * The main loop: read output, reap, enforce time.  Ends when the child is
 * reaped and its output reached EOF, or AFTER_EXIT_S after the reap when
 * something it left behind still holds the pipe (that group is killed).
 */
static void supervise(run *r)
{
	for (;;) {
		double now = pyrt_now();
		if (!r->reaped)
			try_reap(r, now);
		if (r->reaped) {
			if (r->eof)
				break;
			if (now - r->t_reaped >= AFTER_EXIT_S) {
				signal_group(r, SIGKILL);
				drain_pipe(r, READ_BUDGET);
				break;
			}
		} else {
			escalate(r, now);
		}
		wait_events(r, wait_ms(r, now));
	}
	liner_flush(&r->ln);
}

/* A pidfd makes the exit wake poll; without one we fall back to ticking. */
static int pidfd_for(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

/*
 * Keep pipe ends off 0-2: with a closed stdin in the parent they would land
 * there and be clobbered by the child's own redirections.
 */
static int lift_fd(int *fd)
{
	if (*fd > 2)
		return 0;
	int hi = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (hi < 0)
		return -1;
	close(*fd);
	*fd = hi;
	return 0;
}

/*
 * The child's side between fork and exec: async-signal-safe calls only (the
 * parent may run threads).  Own process group, default signal dispositions
 * and an empty mask, umask 022 (what pip writes into the runtime must never
 * be group- or world-writable, whatever the operator's umask), stdin from
 * /dev/null, stdout and stderr into wfd, nothing else open but errfd, which
 * exec closes.  A failure sends errno through errfd.
 */
static void child_exec(const pyrt_proc_opts *o, int wfd, int errfd,
		       char *const *envp, pid_t parent)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP: refused */
	sigset_t none;
	sigemptyset(&none);
	umask(022);
	int in = -1, keep = o->keep_fd;
	/* Dies with pyrt: a pip left running would write into a runtime
	 * nobody holds the lock for.  A parent gone before the prctl would
	 * never send it: checked after. */
	if (setpgid(0, 0) != 0 || pyrt_os_die_with_parent() != 0)
		goto fail;
	if (getppid() != parent)
		_exit(127);
	if ((in = open("/dev/null", O_RDONLY)) < 0 ||
	    dup2(in, 0) < 0 || dup2(wfd, 1) < 0 || dup2(wfd, 2) < 0)
		goto fail;
	/* The kept descriptor out of the way of 3 and 4 first. */
	if (keep >= 0 && keep <= 4 && (keep = fcntl(keep, F_DUPFD_CLOEXEC, 5)) < 0)
		goto fail;
	/* errfd to 3 (still close-on-exec), the kept one to 4 (inherited),
	 * then close everything above. */
	if (errfd != 3) {
		if (dup3(errfd, 3, O_CLOEXEC) < 0)
			goto fail;
		errfd = 3;
	}
	if (keep >= 0 && dup2(keep, 4) < 0)
		goto fail;
	closefrom(keep >= 0 ? 5 : 4);
	if (o->cwd && chdir(o->cwd) != 0)
		goto fail;
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(o->argv[0], (char *const *)o->argv, envp);
fail:;
	int e = errno;
	ssize_t w = write(errfd, &e, sizeof e);
	(void)w;
	_exit(127);
}

/* What the child reported before exec: 0 (it exec'd) or its errno. */
static int child_started(int errfd)
{
	int e = 0;
	ssize_t k;
	do
		k = read(errfd, &e, sizeof e);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)sizeof e ? (e ? e : EIO) : 0;
}

/*
 * Start the child with fork and exec rather than posix_spawn, which has no
 * way to set the child's umask: the parent's stays as it is.  Signals are
 * blocked around the fork so no handler of ours runs in the child before
 * it has reset them.
 */
static int spawn_child(const pyrt_proc_opts *o, int wfd, pid_t *pid,
		       pyrt_error *err)
{
	static char *const empty_env[] = { NULL };
	char *const *envp = o->envp ? (char *const *)o->envp : empty_env;
	int ep[2] = { -1, -1 };
	if (pyrt_os_pipe(ep, 0) != 0 || lift_fd(&ep[0]) != 0 ||
	    lift_fd(&ep[1]) != 0) {
		int e = errno;
		if (ep[0] >= 0)
			close(ep[0]);
		if (ep[1] >= 0)
			close(ep[1]);
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot prepare to run %s",
					    o->argv[0]);
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t parent = getpid();
	pid_t child = fork();
	if (child == 0) {
		close(ep[0]);
		child_exec(o, wfd, ep[1], envp, parent);
	}
	int fork_errno = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(ep[1]);
	int e = child < 0 ? fork_errno : child_started(ep[0]);
	close(ep[0]);
	if (child > 0 && e != 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	if (e != 0)
		return pyrt_error_set_errno(err, PYRT_E_IO, e,
					    "cannot run %s%s%s", o->argv[0],
					    o->cwd ? " in " : "",
					    o->cwd ? o->cwd : "");
	*pid = child;
	return 0;
}

static void fill_status(const run *r, pyrt_proc_result *res)
{
	if (WIFEXITED(r->status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(r->status);
	} else if (WIFSIGNALED(r->status)) {
		res->term_signal = WTERMSIG(r->status);
	}
	res->timed_out = r->timed_out;
	res->cancelled = r->cancelled;
}

/* Run the child to completion under the limits in opts. */
int pyrt_proc_run(const pyrt_proc_opts *opts, pyrt_proc_result *result,
		  pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	if (!opts || opts->version != PYRT_PROC_OPTS_VERSION || !opts->argv ||
	    !opts->argv[0])
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "proc_run called without a program");
	if (opts->capture_max > SIZE_MAX / 2)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "proc_run capture_max is absurd");
	run r = { .o = opts, .rfd = -1, .pidfd = -1 };
	r.ln.on_line = opts->on_line;
	r.ln.payload = opts->payload;
	int fds[2] = { -1, -1 };
	int rc = 0;
	if (capture_init(&r.cap, opts->capture_max) != 0) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	if (pyrt_os_pipe(fds, 0) != 0 || lift_fd(&fds[0]) != 0 ||
	    lift_fd(&fds[1]) != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot create a pipe for %s",
					  opts->argv[0]);
		goto cleanup;
	}
	r.rfd = fds[0];
	if ((rc = spawn_child(opts, fds[1], &r.pid, err)) != 0)
		goto cleanup;
	r.t_start = pyrt_now();
	close(fds[1]);
	fds[1] = -1;
	r.pidfd = pidfd_for(r.pid);
	supervise(&r);
	if (r.lost) {
		rc = pyrt_error_set(err, PYRT_E_INTERNAL, "cannot tell how %s "
				    "ended: its exit status was collected "
				    "elsewhere (SIGCHLD ignored?); run pyrt "
				    "with SIGCHLD at its default",
				    opts->argv[0]);
		goto cleanup;
	}
	fill_status(&r, result);
	capture_finish(&r.cap, result);
cleanup:
	if (r.pidfd >= 0)
		close(r.pidfd);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	capture_free(&r.cap);
	return rc;
}

void pyrt_proc_result_clear(pyrt_proc_result *result)
{
	if (!result)
		return;
	free(result->output);
	memset(result, 0, sizeof *result);
}

/* Append "name=value"; env has room for every entry we may add. */
static int env_add(char **env, size_t *n, const char *name, const char *value)
{
	if (asprintf(&env[*n], "%s=%s", name, value) < 0) {
		env[*n] = NULL;
		return -1;
	}
	(*n)++;
	return 0;
}

/* PATH, locale and HOME: what any interpreter start needs, nothing more. */
static char **env_base(const char *home, size_t extra, size_t *n)
{
	char **env = calloc(4 + extra + 1, sizeof *env);
	*n = 0;
	if (!env)
		return NULL;
	if (env_add(env, n, "PATH", "/usr/bin:/bin") != 0 ||
	    env_add(env, n, "LANG", "C.UTF-8") != 0 ||
	    env_add(env, n, "LC_ALL", "C.UTF-8") != 0 ||
	    (home && env_add(env, n, "HOME", home) != 0)) {
		pyrt_proc_env_free(env);
		return NULL;
	}
	return env;
}

char **pyrt_proc_scrubbed_env(const char *home)
{
	size_t n;
	return env_base(home, 0, &n);
}

/*
 * pip's alone: the index (which may carry credentials), its trusted hosts,
 * the proxies and the CA bundles.  No other child gets these.
 */
char **pyrt_proc_network_env(const char *home)
{
	static const char *const pass[] = {
		"http_proxy", "https_proxy", "no_proxy",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
		"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST",
		"PIP_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR",
		"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	};
	size_t n;
	char **env = env_base(home, sizeof pass / sizeof pass[0], &n);
	if (!env)
		return NULL;
	for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
		const char *v = getenv(pass[i]);
		if (v && env_add(env, &n, pass[i], v) != 0) {
			pyrt_proc_env_free(env);
			return NULL;
		}
	}
	return env;
}

void pyrt_proc_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **p = envp; *p; p++)
		free(*p);
	free(envp);
}
