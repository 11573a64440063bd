/*
 * What one page fault costs on this machine: touch N fresh anonymous pages
 * and time it.  bench/README.md quotes it to explain why pyrt's start-up
 * work is counted in pages touched (perf stat -e page-faults), not only in
 * instructions.
 *
 *   cc -O2 -o /tmp/pagefault bench/pagefault.c && /tmp/pagefault 1000
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	size_t page = 4096;
	struct timespec a, b;
	char *p = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n <= 0 || p == MAP_FAILED)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		p[(size_t)i * page] = 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = (double)(b.tv_sec - a.tv_sec) * 1e6 +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	printf("%ld pages: %.0f us, %.2f us per fault\n", n, us, us / (double)n);
	munmap(p, (size_t)n * page);
	return 0;
}
