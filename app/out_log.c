/*
 * A front end that writes every event, with a timestamp, to an install log
 * in <box>/runtime/python/logs and forwards it to another front end: support
 * staff get the whole story of the last installs even when the operator's
 * terminal scrolled away or --json went to a pipe.  Every record is one
 * cleaned line (app/text.h): a value cannot forge a record or carry an
 * escape to whoever reads the log in a terminal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/front.h"
#include "app/text.h"
#include "core/util/clock.h"
#include "core/util/redact.h"

#define LOGS_KEPT 10

typedef struct log_state {
	app_front *inner;
	FILE *file;
	double start; /* pyrt_now() */
} log_state;

static double log_elapsed(const log_state *s)
{
	return pyrt_now() - s->start;
}

/*
 * One timestamped entry.  The log outlives the run and goes into support
 * bundles, so whatever core or pip said is redacted on its way in.
 */
static void log_write(log_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void log_write(log_state *s, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return; /* out of memory: a line lost, never a secret kept */
	size_t len = 0;
	char *red = pyrt_redact_lines(text, (size_t)n, &len);
	free(text);
	if (!red)
		return;
	app_text_printf(s->file, "[%8.3f] %s\n", log_elapsed(s), red);
	fflush(s->file);
	free(red);
}

static int log_step(pyrt_step step, pyrt_step_state st, const char *detail,
		    void *state)
{
	log_state *s = state;
	static const char *const names[] = { "begin", "end", "fail", "skip" };
	log_write(s, "step %s %s%s%s", pyrt_step_name(step), names[st & 3],
		  detail ? ": " : "", detail ? detail : "");
	const app_front_ops *ops = s->inner->ops;
	return ops->on_step ? ops->on_step(step, st, detail, s->inner->state) : 0;
}

/* Progress is forwarded but not logged: it would only bloat the file. */
static int log_progress(pyrt_step step, const pyrt_progress *p, void *state)
{
	log_state *s = state;
	const app_front_ops *ops = s->inner->ops;
	return ops->on_progress ? ops->on_progress(step, p, s->inner->state) : 0;
}

static int log_line(pyrt_log_level level, const char *line, void *state)
{
	log_state *s = state;
	static const char *const names[] = { "debug", "info", "warn" };
	log_write(s, "%s %s", names[level % 3], line);
	const app_front_ops *ops = s->inner->ops;
	return ops->on_log ? ops->on_log(level, line, s->inner->state) : 0;
}

static void log_result(const app_outcome *o, void *state)
{
	log_state *s = state;
	if (o->code == 0)
		log_write(s, "result ok: %s", o->summary ? o->summary : "");
	else
		log_write(s, "result failed: %s; %s", o->error ? o->error : "",
			  o->unchanged ? o->unchanged : "");
	app_front_result(s->inner, o);
}

static void log_destroy(void *state)
{
	log_state *s = state;
	if (s->file)
		fclose(s->file);
	app_front_free(s->inner);
	free(s);
}

static const app_front_ops log_ops = {
	log_step, log_progress, log_line, log_result, log_destroy,
};

static int log_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keep the newest logs only; names sort by their timestamp. */
static void log_prune(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 256)
		if (strncmp(de->d_name, "install-", 8) == 0)
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof *names, log_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (names[i] && i + LOGS_KEPT < n) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			unlink(path);
		}
		free(names[i]);
	}
}

app_front *app_front_with_log(app_front *inner, const char *logs_dir,
			      const char *command, char *path, size_t path_len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(path, path_len, "%s/%s-%s-%ld.log", logs_dir, command, stamp,
		 (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!file) {
		if (fd >= 0)
			close(fd);
		path[0] = '\0';
		return inner; /* a log is a help, never a reason to fail */
	}
	log_state *s = calloc(1, sizeof *s);
	if (!s) {
		fclose(file);
		path[0] = '\0';
		return inner;
	}
	s->inner = inner;
	s->file = file;
	s->start = pyrt_now();
	fprintf(file, "pyrt %s %s, pid %ld\n", PYRT_VERSION, command,
		(long)getpid());
	log_prune(logs_dir);
	return app_front_wrap(&log_ops, s);
}
