/*
 * hyperfine -N runs each command's runs back to back, so on a VM whose
 * speed drifts by tens of percent over seconds a ratio between two
 * commands says as much about when each ran as about the commands.  This
 * runs them round-robin instead: each round forks and execs every command
 * once (no shell, as hyperfine -N), times fork to reap, and the medians
 * come from the same minutes for all of them.
 *
 *   cc -O2 -o /tmp/interleave bench/interleave.c
 *   /tmp/interleave ROUNDS "true" "pyrt status --box-root B" ...
 * Commands are split on spaces (no quoting); stdout and stderr go to
 * /dev/null.  Prints each command's median and min in ms and its median's
 * ratio to the first command's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 8
#define MAX_ARGS 32

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double run(char **argv, int null)
{
	double start = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "interleave: %s failed\n", argv[0]);
		exit(1);
	}
	return now_ms() - start;
}

int main(int argc, char **argv)
{
	static char *args[MAX_CMDS][MAX_ARGS + 1];
	static char label[MAX_CMDS][72];
	static double *times[MAX_CMDS];
	int n = argc - 2;
	long rounds = argc > 1 ? atol(argv[1]) : 0;
	int null = open("/dev/null", O_WRONLY);
	if (n < 1 || n > MAX_CMDS || rounds < 1 || null < 0) {
		fprintf(stderr, "usage: interleave ROUNDS CMD [CMD...] (at most %d)\n",
			MAX_CMDS);
		return 2;
	}
	for (int c = 0; c < n; c++) {
		int k = 0;
		snprintf(label[c], sizeof label[c], "%s", argv[c + 2]);
		for (char *tok = strtok(argv[c + 2], " "); tok && k < MAX_ARGS;
		     tok = strtok(NULL, " "))
			args[c][k++] = tok;
		times[c] = calloc((size_t)rounds, sizeof(double));
		if (!k || !times[c])
			return 2;
		for (int w = 0; w < 10; w++) /* warm the page cache */
			run(args[c], null);
	}
	for (long r = 0; r < rounds; r++)
		for (int c = 0; c < n; c++)
			times[c][r] = run(args[c], null);
	double base = 0;
	for (int c = 0; c < n; c++) {
		qsort(times[c], (size_t)rounds, sizeof(double), cmp);
		double med = times[c][rounds / 2];
		if (c == 0)
			base = med;
		printf("%8.3f ms median %8.3f ms min %6.2fx  %s\n", med,
		       times[c][0], med / base, label[c]);
		free(times[c]);
	}
	return 0;
}
