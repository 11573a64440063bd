/*
 * The guard against clients that hold connections without ever sending a
 * request (slowloris).  libmicrohttpd's timeout is an idle one: a byte every
 * few seconds keeps a connection forever, and enough of them fill the
 * connection limit so that nobody else is accepted.  Here a connection is
 * "untrusted" from its accept until a request of it passes the gate (Host,
 * Origin, token).  Untrusted connections get:
 *   - an absolute deadline: SRV_HEADER_DEADLINE_S after the accept, a
 *     connection that has not sent a request that passed the gate is shut
 *     down, however steadily it trickles bytes;
 *   - a cap well below the connection limit: when SRV_UNTRUSTED_MAX are
 *     open, the next accept (or the watchdog) shuts the oldest one down.  A
 *     real client sends its request at once, so the oldest waiting is the
 *     likeliest attacker, and a new client is never turned away for them.
 *     "At once" still takes a moment: when 300 clients connect together,
 *     all 300 are accepted before the first request is read, and a cap
 *     applied at the accept shut 236 of them (issue 19).  So only a
 *     connection SRV_UNTRUSTED_GRACE_S old counts against the cap; younger
 *     ones are bounded by the connection limit alone until then.
 * The list is in accept order, so the watchdog only looks at its head.
 * shutdown(2) (never close) wakes the connection's worker, which reads the
 * end and closes it; an fd is only touched while its connection is in the
 * list, and libmicrohttpd reports the close (removing it) before it closes
 * the fd, so a reused fd number is never shut down by mistake.
 */
#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "core/util/clock.h"
#include "serve/internal.h"

/* The watchdog looks this often (ms). */
#define WATCH_MS 250

typedef struct guard_conn {
	int fd;
	double start;
	int listed;
	struct guard_conn *prev, *next;
} guard_conn;

struct srv_guard {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int running;
	int stopping;
	guard_conn *head, *tail;
	unsigned count;
	double deadline_s;
	unsigned max;
	double grace_s;
};

/* Called with mu held. */
static void unlink_conn(srv_guard *g, guard_conn *c)
{
	if (!c->listed)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	c->prev = c->next = NULL;
	__atomic_store_n(&c->listed, 0, __ATOMIC_RELAXED);
	g->count--;
}

/* Called with mu held. */
static void drop_head(srv_guard *g)
{
	guard_conn *c = g->head;
	shutdown(c->fd, SHUT_RDWR);
	unlink_conn(g, c);
}

/* Called with mu held: while more than `keep` are open, the oldest goes
 * if it has had its grace. */
static void enforce_cap(srv_guard *g, unsigned keep, double t)
{
	while (g->count > keep && g->head &&
	       t - g->head->start >= g->grace_s)
		drop_head(g);
}

static void *watch(void *arg)
{
	srv_guard *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stopping) {
		double t = pyrt_now();
		while (g->head && t - g->head->start >= g->deadline_s)
			drop_head(g);
		enforce_cap(g, g->max, t);
		struct timespec ts;
		pyrt_monotonic_after(WATCH_MS / 1000.0, &ts);
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

srv_guard *srv_guard_new(double deadline_s, unsigned max, double grace_s)
{
	srv_guard *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->deadline_s = deadline_s;
	g->max = max;
	g->grace_s = grace_s;
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&g->thread, NULL, watch, g) != 0) {
		srv_guard_free(g);
		return NULL;
	}
	g->running = 1;
	return g;
}

void srv_guard_free(srv_guard *g)
{
	if (!g)
		return;
	if (g->running) {
		pthread_mutex_lock(&g->mu);
		g->stopping = 1;
		pthread_cond_signal(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
	}
	/* The daemon is stopped first: every connection was reported closed
	 * and freed by then. */
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* Accept: listed at the tail, the oldest (past its grace) dropped when the
 * cap is full. */
static void conn_started(srv_guard *g, struct MHD_Connection *conn,
			 void **socket_context)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	guard_conn *c = info ? calloc(1, sizeof *c) : NULL;
	*socket_context = c;
	if (!c)
		return; /* unguarded: the idle timeout still applies */
	c->fd = info->connect_fd;
	c->start = pyrt_now();
	pthread_mutex_lock(&g->mu);
	enforce_cap(g, g->max ? g->max - 1 : 0, c->start);
	c->prev = g->tail;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
	__atomic_store_n(&c->listed, 1, __ATOMIC_RELAXED);
	g->count++;
	pthread_mutex_unlock(&g->mu);
}

void srv_guard_notify(void *cls, struct MHD_Connection *conn,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	srv_guard *g = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_started(g, conn, socket_context);
		return;
	}
	guard_conn *c = *socket_context;
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	unlink_conn(g, c);
	pthread_mutex_unlock(&g->mu);
	free(c);
	*socket_context = NULL;
}

void srv_guard_trust(srv_guard *g, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	guard_conn *c = info ? info->socket_context : NULL;
	/* Every request of a kept-alive connection passes here; once out
	 * of the list it never goes back, so a 0 read without the lock is
	 * final (a 1 may be stale: the lock decides). */
	if (!c || !__atomic_load_n(&c->listed, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&g->mu);
	unlink_conn(g, c);
	pthread_mutex_unlock(&g->mu);
}
