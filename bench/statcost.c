/*
 * What one stat of a folder costs on this machine, the way status's
 * observed-state memo makes it (fstatat relative to the site folder):
 * read relative paths from stdin, stat each of them `rounds` times and
 * print the mean per stat and per round.  bench/status-truth.sh feeds it the
 * folders one `pyrt status` stats, to give the floor a correct per-call
 * check cannot go below.
 *
 *   cc -O2 -o /tmp/statcost bench/statcost.c
 *   /tmp/statcost SITE_DIR [rounds] < paths
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_PATHS 4096

int main(int argc, char **argv)
{
	static char paths[MAX_PATHS][256];
	int n = 0;
	long rounds = argc > 2 ? atol(argv[2]) : 2000;
	int dir = argc > 1 ? open(argv[1], O_RDONLY | O_DIRECTORY) : -1;
	if (dir < 0 || rounds <= 0) {
		fprintf(stderr, "usage: statcost SITE_DIR [rounds] < paths\n");
		return 2;
	}
	while (n < MAX_PATHS && fgets(paths[n], sizeof paths[n], stdin)) {
		paths[n][strcspn(paths[n], "\n")] = '\0';
		n += paths[n][0] != '\0';
	}
	struct timespec a, b;
	struct stat sb;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			(void)fstatat(dir, paths[i], &sb, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e6 +
		     (double)(b.tv_nsec - a.tv_nsec) / 1e3) / (double)rounds;
	printf("%d stats: %.1f us a round, %.2f us a stat\n", n, us,
	       n ? us / n : 0.0);
	return 0;
}
