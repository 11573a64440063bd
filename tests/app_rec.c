/* The recording front of the app/ tests (app_rec.h). */
#include "app_rec.h"

#include <stdio.h>
#include <string.h>

#include "core/pkgs/plugins.h"

static const char *const state_names[] = { "begin", "end", "fail", "skip" };

static int rec_step(pyrt_step step, pyrt_step_state st, const char *detail,
		    void *state)
{
	app_rec *r = state;
	(void)detail;
	size_t n = strlen(r->steps);
	snprintf(r->steps + n, sizeof r->steps - n, "%s:%s ",
		 pyrt_step_name(step), state_names[st]);
	if (r->cancel && (int)step == r->cancel_step && st == r->cancel_state)
		atomic_store(r->cancel, 1);
	return 0;
}

static int rec_log(pyrt_log_level level, const char *line, void *state)
{
	app_rec *r = state;
	(void)level;
	size_t n = strlen(r->logs);
	snprintf(r->logs + n, sizeof r->logs - n, "%s\n", line);
	return 0;
}

static void rec_result(const app_outcome *o, void *state)
{
	app_rec *r = state;
	r->results++;
	r->code = o->code;
	r->before_start = o->before_start;
	snprintf(r->command, sizeof r->command, "%s", o->command);
	snprintf(r->summary, sizeof r->summary, "%s", o->summary ? o->summary : "");
	snprintf(r->error, sizeof r->error, "%s", o->error ? o->error : "");
	snprintf(r->unchanged, sizeof r->unchanged, "%s",
		 o->unchanged ? o->unchanged : "");
	snprintf(r->pip_log, sizeof r->pip_log, "%s", o->pip_log ? o->pip_log : "");
	if (o->plugin)
		snprintf(r->row, sizeof r->row, "%s %s", o->plugin->name,
			 pyrt_verdict_name(o->plugin->verdict));
}

static void rec_destroy(void *state)
{
	(void)state; /* the test owns it */
}

static const app_front_ops rec_ops = {
	.on_step = rec_step, .on_log = rec_log, .on_result = rec_result,
	.destroy = rec_destroy,
};

app_front *app_rec_front(app_rec *r)
{
	return app_front_wrap(&rec_ops, r);
}
