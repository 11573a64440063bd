/* The harness helpers of fuzz.h: scratch space and failing loudly. */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[PATH_MAX];

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* A directory left without search permission: let it be read. */
	if (flag == FTW_DNR)
		chmod(path, 0700);
	if (flag == FTW_DP || flag == FTW_DNR)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void fuzz_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_remove(void)
{
	if (scratch[0])
		fuzz_rmtree(scratch);
}

const char *fuzz_scratch(void)
{
	if (scratch[0])
		return scratch;
	/* The tests' tmpfs when there is one (extraction writes a lot). */
	const char *tmp = getenv("PYRT_TEST_TMP");
	if (!tmp || !*tmp)
		tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/pyrt-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		fuzz_fail("cannot make a scratch directory in %s: %s",
			  tmp && *tmp ? tmp : "/tmp", strerror(errno));
	atexit(scratch_remove);
	return scratch;
}

void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
	if (fd < 0)
		fuzz_fail("cannot create %s: %s", path, strerror(errno));
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fuzz_fail("cannot write %s: %s", path, strerror(errno));
		off += (size_t)n;
	}
	close(fd);
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		fuzz_fail("out of memory");
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
