/* Crash points (see testhook.h); empty unless built with PYRT_TEST_HOOKS. */
#include "testhook.h"

#ifdef PYRT_TEST_HOOKS
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void pyrt_testhook(const char *point)
{
	const char *want = getenv("PYRT_TEST_HOOK");
	size_t n = strlen(point);
	if (!want || strncmp(want, point, n) != 0 || want[n] != ':')
		return;
	if (strcmp(want + n + 1, "kill") == 0)
		raise(SIGKILL);
	const char *file = getenv("PYRT_TEST_HOOK_FILE");
	if (strcmp(want + n + 1, "pause") != 0 || !file)
		return;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "%ld\n", (long)getpid());
	close(fd);
	/* At most a minute, so a broken test cannot hang CI. */
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 3000 && access(file, F_OK) == 0; i++)
		nanosleep(&tick, NULL);
}
#else
typedef int pyrt_testhook_empty; /* ISO C: no empty translation unit */
#endif
