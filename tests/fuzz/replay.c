/*
 * main() for a fuzz target without libFuzzer: every regular file in the
 * directories (or files) named on the command line goes through
 * LLVMFuzzerTestOneInput once, in name order, from an exact-size heap copy
 * (so ASan builds see reads past the end).  Fails when an input crashes it
 * (the process dies) or when no input was found at all: an empty corpus
 * must not pass.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	unsigned char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: out of memory reading %s\n", path);
		return -1;
	}
	/* Exactly len bytes on the heap: one past the end is a red zone. */
	unsigned char *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Files of dir (not dot files, not subdirectories); the count, or -1. */
static long run_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name);
	if (n < 0) {
		/* crashes/ holds nothing until something is found */
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "replay: cannot read %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	long done = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (run_file(path) != 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;
		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			n = run_file(argv[i]) == 0 ? 1 : -1;
		else
			n = run_dir(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replay: %ld inputs, no crash\n", total);
	if (total == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	return 0;
}
