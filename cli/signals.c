/*
 * Signal handling for the commands that change the box.  The first SIGINT,
 * SIGTERM or SIGHUP sets the cancel flag and core unwinds and cleans up; a second one
 * while that happens is ignored on purpose, so an impatient second Ctrl-C
 * cannot leave a half-removed staging directory behind.
 */
#include "cli/signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

/* File-scope because a signal handler can reach nothing else. */
static atomic_int cancel_flag;
static volatile sig_atomic_t announce_cancel;

static void on_signal(int sig)
{
	if (atomic_exchange(&cancel_flag, sig) != 0)
		return;
	if (announce_cancel) {
		static const char msg[] =
			"\npyrt: cancelling; cleaning up, please wait\n";
		ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)r;
	}
}

int cli_signals_install(int announce)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a consent prompt must wake up */
	announce_cancel = announce ? 1 : 0;
	/* A dropped SSH connection (SIGHUP) is a cancel like SIGTERM: clean
	 * up, report, and stop the children, rather than die mid-step. */
	if (sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		return -1;
	/* A reader that closes our pipe must not kill us mid-install;
	 * writes fail with EPIPE instead. */
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}

const atomic_int *cli_cancel_flag(void)
{
	return &cancel_flag;
}

int cli_cancelled(void)
{
	return atomic_load(&cancel_flag) != 0;
}
