/*
 * Where the server listens: a Unix socket in the box by default (0600, made
 * so by umask at bind time, never chmod-ed, in a directory only its owner
 * may write: runtime/python, every user's to read in a shared box), loopback
 * TCP on request (anything else is refused before binding), or the socket
 * systemd passes (LISTEN_FDS).  The bearer token for TCP lives in a 0600
 * file made at first start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/util/os.h"
#include "core/util/trust.h"
#include "serve/internal.h"

#define LISTEN_BACKLOG SRV_CONN_LIMIT

static int fail(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return 0;
}

/* "127.0.0.1:8080" / "[::1]:8080" of a bound socket. */
static void describe(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[INET6_ADDRSTRLEN] = "?";
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (void *)&ss;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (void *)&ss;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else if (ss.ss_family == AF_UNIX) {
		struct sockaddr_un *un = (void *)&ss;
		snprintf(buf, len, "unix:%s", un->sun_path);
	}
}

/* "HOST:PORT" → a loopback sockaddr, or refused with the reason. */
static int parse_tcp(const char *spec, struct sockaddr_storage *ss,
		     socklen_t *sl, char *msg, size_t msglen)
{
	char host[256];
	const char *colon;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':')
			return fail(msg, msglen, "--listen %s: expected [::1]:PORT", spec);
		snprintf(host, sizeof host, "%.*s", (int)(close - spec - 1), spec + 1);
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return fail(msg, msglen, "--listen %s: expected unix:PATH, 127.0.0.1:PORT or [::1]:PORT", spec);
		snprintf(host, sizeof host, "%.*s", (int)(colon - spec), spec);
	}
	char *end;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port < 0 || port > 65535)
		return fail(msg, msglen, "--listen %s: the port must be a number from 0 to 65535", spec);
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*sl = sizeof *in;
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*sl = sizeof *in6;
	} else {
		return fail(msg, msglen, "--listen %s: '%s' is not an IP address; use 127.0.0.1:PORT or [::1]:PORT", spec, host);
	}
	if (!is_loopback((struct sockaddr *)ss))
		return fail(msg, msglen, "--listen %s: refusing a non-loopback address (the API controls installs as this user); use 127.0.0.1:%ld or [::1]:%ld, or the default Unix socket", spec, port, port);
	return 0;
}

static int open_tcp(const char *spec, srv_listener *l, char *msg, size_t msglen)
{
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	if (parse_tcp(spec, &ss, &sl, msg, msglen) != 0)
		return -1;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0)
		return fail(msg, msglen, "--listen %s: socket: %s", spec, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, sl) != 0 ||
	    listen(fd, LISTEN_BACKLOG) != 0) {
		int e = errno;
		close(fd);
		return fail(msg, msglen, "--listen %s: cannot listen: %s (is another server on that port? pick another port)",
			    spec, strerror(e));
	}
	l->fd = fd;
	l->is_tcp = 1;
	describe(fd, l->where, sizeof l->where);
	return 0;
}

/*
 * sun_path holds 107 bytes, and a box under a deep CI workspace or a long
 * home directory is past that.  The socket stays where clients look for it:
 * a longer path is reached through its directory's descriptor,
 * /proc/self/fd/N/NAME, which the kernel resolves like the path itself.
 * *dirfd is that descriptor (-1 when the path fits); close it after the
 * bind or connect.
 */
static int unix_addr(const char *path, struct sockaddr_un *un, int *dirfd,
		     char *msg, size_t msglen)
{
	memset(un, 0, sizeof *un);
	un->sun_family = AF_UNIX;
	*dirfd = -1;
	size_t len = strlen(path);
	if (len < sizeof un->sun_path) {
		memcpy(un->sun_path, path, len + 1);
		return 0;
	}
	const char *slash = strrchr(path, '/');
	char dir[4096];
	size_t dlen = (size_t)(slash - path);
	if (dlen >= sizeof dir)
		return fail(msg, msglen, "%s: the path is too long", path);
	memcpy(dir, path, dlen ? dlen : 1);
	dir[dlen ? dlen : 1] = '\0';
	*dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return fail(msg, msglen, "%s: %s", dir, strerror(errno));
	if (pyrt_os_fd_path(un->sun_path, sizeof un->sun_path, *dirfd, slash + 1) != 0) {
		close(*dirfd);
		*dirfd = -1;
		const char *xdg = getenv("XDG_RUNTIME_DIR");
		return fail(msg, msglen, "%s is longer than a Unix socket path can be (%zu bytes) and /proc is not mounted to reach it; pass a shorter one: --listen unix:%s%s/pyrt-api.sock",
			    path, sizeof un->sun_path - 1, xdg && xdg[0] == '/' ? xdg : "/run/user/",
			    xdg && xdg[0] == '/' ? "" : "UID");
	}
	return 0;
}

static void close_dirfd(int dirfd)
{
	if (dirfd >= 0)
		close(dirfd);
}

/* A socket file left by a server that died is replaced; a live one is
 * refused. */
static int clear_stale(const char *path, char *msg, size_t msglen)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return fail(msg, msglen, "%s exists and is not a socket; remove it or pick another --listen unix:PATH", path);
	struct sockaddr_un un;
	int dirfd;
	if (unix_addr(path, &un, &dirfd, msg, msglen) != 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int live = fd >= 0 && connect(fd, (struct sockaddr *)&un, sizeof un) == 0;
	if (fd >= 0)
		close(fd);
	close_dirfd(dirfd);
	if (live)
		return fail(msg, msglen, "another server is listening on %s; stop it first (or pick another --listen)", path);
	unlink(path);
	return 0;
}

/* The socket's directory must be ours and no one else's to write: nobody
 * else can bind or swap the path; connecting needs write on the 0600
 * socket itself, which Linux checks. */
static int check_dir(const char *path, char *msg, size_t msglen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	/* As typed: a link or folder on the way that someone else controls
	 * could lead clients to their socket (trust.h). */
	pyrt_error terr = PYRT_ERROR_INIT;
	if (pyrt_trust_path("the socket folder", dir, PYRT_TRUST_MISSING_OK |
			    PYRT_TRUST_NO_FINAL, NULL, 0, &terr) != 0)
		return fail(msg, msglen, "%s", terr.msg);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return fail(msg, msglen, "cannot create %s: %s", dir, strerror(errno));
	struct stat st;
	if (lstat(dir, &st) != 0)
		return fail(msg, msglen, "%s: %s", dir, strerror(errno));
	if (st.st_uid != geteuid() || (st.st_mode & 0022))
		return fail(msg, msglen, "%s must be a directory owned by you and writable by no one else (it is %o), so no one else can replace the socket; fix: chmod go-w %s, or pick another --listen unix:PATH",
			    dir, (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

static int open_unix(const char *path, srv_listener *l, char *msg,
		     size_t msglen)
{
	struct sockaddr_un un;
	int dirfd;
	if (path[0] != '/')
		return fail(msg, msglen, "--listen unix:%s: the path must be absolute", path);
	if (check_dir(path, msg, msglen) != 0 || clear_stale(path, msg, msglen) != 0 ||
	    unix_addr(path, &un, &dirfd, msg, msglen) != 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		close_dirfd(dirfd);
		return fail(msg, msglen, "socket: %s", strerror(errno));
	}
	/* The mode comes from the umask at bind: the socket is never
	 * reachable by others, not even for an instant. */
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&un, sizeof un);
	int e = errno;
	umask(old);
	l->long_path = dirfd >= 0;
	close_dirfd(dirfd);
	if (rc != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
		e = rc != 0 ? e : errno;
		close(fd);
		return fail(msg, msglen, "cannot listen on %s: %s", path, strerror(e));
	}
	l->fd = fd;
	snprintf(l->where, sizeof l->where, "unix:%s", path);
	snprintf(l->unlink_path, sizeof l->unlink_path, "%s", path);
	return 0;
}

/* sd_listen_fds(3) without libsystemd: one stream socket at fd 3. */
static int from_systemd(srv_listener *l, char *msg, size_t msglen)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	if (!pid || !fds || atol(pid) != (long)getpid())
		return 0;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (strcmp(fds, "1") != 0)
		return fail(msg, msglen, "systemd passed %s sockets; pyrt serve takes exactly one (ListenStream= once in the .socket unit)", fds);
	int fd = 3;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int type = 0;
	socklen_t tl = sizeof type;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    type != SOCK_STREAM)
		return fail(msg, msglen, "the socket systemd passed (fd 3) is not a stream socket");
	if (ss.ss_family != AF_UNIX && !is_loopback((struct sockaddr *)&ss))
		return fail(msg, msglen, "the socket systemd passed is not on a loopback address; refusing (ListenStream=127.0.0.1:PORT or a Unix socket)");
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	l->fd = fd;
	l->is_tcp = ss.ss_family != AF_UNIX;
	l->activated = 1;
	describe(fd, l->where, sizeof l->where);
	return 1;
}

int srv_listen_check(const app_request *opts, char *msg, size_t msglen)
{
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	if (!opts->listen || strncmp(opts->listen, "unix:", 5) == 0)
		return 0;
	return parse_tcp(opts->listen, &ss, &sl, msg, msglen);
}

int srv_listen_open(const app_request *opts, const char *runtime_dir,
		    srv_listener *l, char *msg, size_t msglen)
{
	memset(l, 0, sizeof *l);
	l->fd = -1;
	int rc = from_systemd(l, msg, msglen);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	const char *spec = opts->listen;
	if (spec && strncmp(spec, "unix:", 5) == 0)
		return open_unix(spec + 5, l, msg, msglen);
	if (spec)
		return open_tcp(spec, l, msg, msglen);
	char path[4096];
	snprintf(path, sizeof path, "%s/api.sock", runtime_dir);
	return open_unix(path, l, msg, msglen);
}

void srv_listen_close(srv_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->unlink_path[0])
		unlink(l->unlink_path);
}

static int token_read(int fd, const char *path, char token[SRV_TOKEN_HEX + 1],
		      char *msg, size_t msglen)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 0077))
		return fail(msg, msglen, "token file %s must be a regular file owned by you with mode 0600; fix: rm %s (a new one is made at start)",
			    path, path);
	char buf[SRV_TOKEN_HEX + 2];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n != SRV_TOKEN_HEX || strspn(buf, "0123456789abcdef") < SRV_TOKEN_HEX)
		return fail(msg, msglen, "token file %s does not hold a token of %d hex digits; fix: rm %s (a new one is made at start)",
			    path, SRV_TOKEN_HEX, path);
	memcpy(token, buf, SRV_TOKEN_HEX);
	token[SRV_TOKEN_HEX] = '\0';
	return 0;
}

static int token_make(const char *path, char token[SRV_TOKEN_HEX + 1],
		      char *msg, size_t msglen)
{
	unsigned char raw[SRV_TOKEN_HEX / 2];
	if (pyrt_os_random(raw, sizeof raw) != 0)
		return fail(msg, msglen, "cannot make a token: no randomness: %s", strerror(errno));
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(token + 2 * i, 3, "%02x", raw[i]);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(msg, msglen, "cannot create the token file %s: %s", path, strerror(errno));
	char line[SRV_TOKEN_HEX + 2];
	snprintf(line, sizeof line, "%s\n", token);
	int ok = write(fd, line, SRV_TOKEN_HEX + 1) == SRV_TOKEN_HEX + 1;
	ok = close(fd) == 0 && ok;
	if (!ok) {
		unlink(path);
		return fail(msg, msglen, "cannot write the token file %s", path);
	}
	return 0;
}

int srv_token_load(const char *path, char token[SRV_TOKEN_HEX + 1],
		   int *created, char *msg, size_t msglen)
{
	/* A fresh token at each start (issue 26, door 6): one captured
	 * while the server was down, or by whoever bound its port first,
	 * is worth nothing once it starts again.  The old file must be ours
	 * and private before it is replaced. */
	*created = 1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		char old[SRV_TOKEN_HEX + 1];
		int rc = token_read(fd, path, old, msg, msglen);
		close(fd);
		explicit_bzero(old, sizeof old);
		if (rc)
			return rc;
		*created = 0;
		if (unlink(path) != 0)
			return fail(msg, msglen, "cannot replace the token file %s: %s", path, strerror(errno));
	} else if (errno != ENOENT) {
		return fail(msg, msglen, "cannot open the token file %s: %s", path, strerror(errno));
	}
	return token_make(path, token, msg, msglen);
}
