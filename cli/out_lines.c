/*
 * The plain-lines front end: human-readable progress on stderr.
 *
 * On a terminal, progress is one line rewritten in place with '\r' (cleared
 * before any other line is printed).  The one-line result of a success
 * goes to stdout (so `pyrt -q install --yes` prints exactly it); errors
 * and everything else to stderr.  A failure is printed once: the step's
 * fail line says which step and when, the result line says why.  Without a terminal (logs, CI, ssh
 * without -t) every step is one line and progress is at most one line every
 * five seconds, never with '\r', so captured logs stay readable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/common.h"
#include "app/text.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "core/util/clock.h"
#include "core/util/error.h"

#define TTY_PROGRESS_INTERVAL_S 0.1
#define LOG_PROGRESS_INTERVAL_S 5.0

typedef struct lines_state {
	FILE *out;
	int tty;
	int quiet;
	int verbose;
	double step_start[PYRT_STEP__COUNT];
	double last_progress;
	size_t live_len; /* width of the in-place progress line; 0: none */
	const char *plugin_step; /* "plugins install" names its pip step so */
	char *fail_detail;       /* the last step failure's reason, if any */
} lines_state;

/* Wipe the in-place progress line so the next line starts clean. */
static void clear_live(lines_state *s)
{
	if (!s->live_len)
		return;
	fprintf(s->out, "\r%*s\r", (int)s->live_len, "");
	s->live_len = 0;
}

static void print_line(lines_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void print_line(lines_state *s, const char *fmt, ...)
{
	clear_live(s);
	va_list ap;
	va_start(ap, fmt);
	app_text_vprintf(s->out, fmt, ap); /* details and lines are outside text */
	va_end(ap);
	fputc('\n', s->out);
	fflush(s->out);
}

/* One line per step change; the begin time is kept for "done in N s". */
static int lines_step(pyrt_step step, pyrt_step_state st, const char *detail,
		      void *state)
{
	lines_state *s = state;
	const char *name = step == PYRT_STEP_BASELINE && s->plugin_step
		? s->plugin_step : pyrt_step_name(step);
	double now = pyrt_now();
	int known = (unsigned)step < PYRT_STEP__COUNT;
	double took = known ? now - s->step_start[step] : 0.0;
	if (st == PYRT_STEP_BEGIN && known) {
		s->step_start[step] = now;
		s->last_progress = now;
	}
	if (s->quiet)
		return 0;
	const char *sep = detail && *detail ? " (" : "";
	const char *end = detail && *detail ? ")" : "";
	if (!detail)
		detail = "";
	switch (st) {
	case PYRT_STEP_BEGIN:
		print_line(s, "%s: begin%s%s%s", name, sep, detail, end);
		break;
	case PYRT_STEP_END:
		print_line(s, "%s: done in %.1f s%s%s%s", name, took, sep,
			   detail, end);
		break;
	case PYRT_STEP_FAIL:
		/* The reason comes once, in the result line. */
		free(s->fail_detail);
		s->fail_detail = *detail ? strdup(detail) : NULL;
		print_line(s, "%s: failed after %.1f s", name, took);
		break;
	case PYRT_STEP_SKIP:
		print_line(s, "%s: skipped%s%s%s", name, sep, detail, end);
		break;
	}
	return 0;
}

/* "download: 12.3 MiB of 35.0 MiB, 4.1 MiB/s" */
static void format_progress(pyrt_step step, const pyrt_progress *p,
			    char *buf, size_t len)
{
	char done[32], total[32], rate[32];
	app_human_bytes(p->done, done, sizeof done);
	app_human_bytes(p->total, total, sizeof total);
	app_human_bytes((uint64_t)(p->rate > 0 ? p->rate : 0), rate,
			sizeof rate);
	if (p->total)
		snprintf(buf, len, "%s: %s of %s (%d%%), %s/s",
			 pyrt_step_name(step), done, total,
			 (int)(p->done * 100 / p->total), rate);
	else
		snprintf(buf, len, "%s: %s, %s/s", pyrt_step_name(step), done,
			 rate);
}

/* Rate-limited: an in-place line on a terminal, a sparse log line otherwise. */
static int lines_progress(pyrt_step step, const pyrt_progress *p,
			  void *state)
{
	lines_state *s = state;
	if (s->quiet)
		return 0;
	double now = pyrt_now();
	double interval = s->tty ? TTY_PROGRESS_INTERVAL_S
				 : LOG_PROGRESS_INTERVAL_S;
	if (now - s->last_progress < interval)
		return 0;
	s->last_progress = now;
	char line[256];
	format_progress(step, p, line, sizeof line);
	if (!s->tty) {
		print_line(s, "%s", line);
		return 0;
	}
	size_t n = strlen(line);
	/* Pad over the previous, possibly longer, line instead of using a
	 * terminal escape: works on any terminal that knows '\r'. */
	fprintf(s->out, "\r%s%*s", line,
		(int)(s->live_len > n ? s->live_len - n : 0), "");
	fflush(s->out);
	s->live_len = n > s->live_len ? n : s->live_len;
	return 0;
}

/* Core's log lines; debug only with -v, nothing with -q. */
static int lines_log(pyrt_log_level level, const char *line, void *state)
{
	lines_state *s = state;
	if (s->quiet || (level == PYRT_LOG_DEBUG && !s->verbose))
		return 0;
	if (level == PYRT_LOG_WARN)
		print_line(s, "warning: %s", line);
	else if (level == PYRT_LOG_DEBUG)
		print_line(s, "debug: %s", line);
	else
		print_line(s, "%s", line);
	return 0;
}

/* The last word: the summary on success, the error and what survived it
 * on failure (errors are printed even with -q). */
static void lines_result(const app_outcome *o, void *state)
{
	lines_state *s = state;
	clear_live(s);
	if (o->code == 0) {
		if (o->summary) {
			fflush(s->out);
			app_text_printf(stdout, "%s\n", o->summary);
			fflush(stdout);
		}
		return;
	}
	const char *why = o->error ? o->error : pyrt_strerror(o->code);
	/* A step's reason that is not the result's would be lost. */
	if (s->fail_detail && !s->quiet && strcmp(s->fail_detail, why) != 0)
		print_line(s, "pyrt: %s", s->fail_detail);
	if (o->before_start || (o->failure && !*o->failure))
		app_errorf("%s", why);
	else if (o->code == PYRT_E_CANCELLED)
		print_line(s, "pyrt: %s cancelled", o->command);
	else if (o->failure)
		print_line(s, "pyrt: %s: %s", o->failure, why);
	else
		print_line(s, "pyrt: %s failed: %s", o->command, why);
	if (o->unchanged)
		print_line(s, "pyrt: %s", o->unchanged);
	if (o->fix)
		print_line(s, "fix: %s", o->fix);
}

static void lines_destroy(void *state)
{
	lines_state *s = state;
	if (s) {
		clear_live(s);
		free(s->fail_detail);
	}
	free(s);
}

static const app_front_ops lines_ops = {
	.on_step = lines_step,
	.on_progress = lines_progress,
	.on_log = lines_log,
	.on_result = lines_result,
	.destroy = lines_destroy,
};

app_front *cli_front_lines_new(const app_request *opts)
{
	lines_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->out = stderr;
	s->tty = app_is_terminal(STDERR_FILENO);
	s->quiet = opts->quiet;
	s->verbose = opts->verbose;
	if (cli_command_of(opts) == CLI_CMD_PLUGINS)
		s->plugin_step = "plugin install";
	s->last_progress = pyrt_now();
	return app_front_wrap(&lines_ops, s);
}
