/* Crash points (see testhook.h); empty unless built with PYRT_TEST_HOOKS. */
#include "core/util/testhook.h"

#ifdef PYRT_TEST_HOOKS
#include "core/util/proc.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The action listed for point in "p1:a1,p2:a2,…" into buf; 0 when found. */
static int hook_action(const char *list, const char *point, char *buf,
		       size_t len)
{
	size_t n = strlen(point);
	for (const char *s = list; s && *s;) {
		const char *end = strchr(s, ',');
		size_t k = end ? (size_t)(end - s) : strlen(s);
		if (k > n && strncmp(s, point, n) == 0 && s[n] == ':' &&
		    k - n - 1 < len) {
			memcpy(buf, s + n + 1, k - n - 1);
			buf[k - n - 1] = '\0';
			return 0;
		}
		s = end ? end + 1 : NULL;
	}
	return -1;
}

/* Announce the pause in the hook file and wait until the test removes it. */
static void hook_pause(const char *point)
{
	const char *file = getenv("PYRT_TEST_HOOK_FILE");
	if (!file)
		return;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "%ld %s\n", (long)getpid(), point);
	close(fd);
	/* At most a minute, so a broken test cannot hang CI. */
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 3000 && access(file, F_OK) == 0; i++)
		nanosleep(&tick, NULL);
}

/* Only when the test armed it by creating the file: say where in it and
 * wait the same way.  A point passed many times (a TUI's refresh) then
 * stops just once, when the test asks. */
static void hook_hold(const char *point)
{
	const char *file = getenv("PYRT_TEST_HOOK_FILE");
	if (!file || access(file, F_OK) != 0)
		return;
	hook_pause(point);
}

void pyrt_testhook(const char *point)
{
	char action[16];
	if (hook_action(getenv("PYRT_TEST_HOOK"), point, action,
			sizeof action) != 0)
		return;
	if (strcmp(action, "kill") == 0)
		raise(SIGKILL);
	else if (strcmp(action, "pause") == 0)
		hook_pause(point);
	else if (strcmp(action, "hold") == 0)
		hook_hold(point);
}

char **pyrt_testhook_env(char **env)
{
	static const char *const pass[] = {
		"PYRT_TEST_HOOK", "PYRT_TEST_HOOK_FILE", "PYRT_TEST_HOOK_TRACE",
	};
	size_t n = 0;
	while (env && env[n])
		n++;
	for (size_t i = 0; env && i < sizeof pass / sizeof pass[0]; i++) {
		const char *v = getenv(pass[i]);
		if (!v)
			continue;
		char **grown = realloc(env, (n + 2) * sizeof *env);
		if (!grown) {
			pyrt_proc_env_free(env);
			return NULL;
		}
		env = grown;
		env[n + 1] = NULL;
		if (asprintf(&env[n], "%s=%s", pass[i], v) < 0) {
			env[n] = NULL;
			pyrt_proc_env_free(env);
			return NULL;
		}
		n++;
	}
	return env;
}
#else
typedef int pyrt_testhook_empty; /* ISO C: no empty translation unit */
#endif
