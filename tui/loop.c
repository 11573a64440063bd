/*
 * The TUI's main loop and its one job at a time.
 *
 * The UI thread polls three things together: the keyboard, the view
 * model's self-pipe (the worker recorded something) and a signal pipe.  It
 * draws at most once per TUI_FRAME_S (a key or a job's end at once) and
 * only when something changed or a spinner turns, and flushes once per
 * frame (wnoutrefresh + doupdate), so a download over a slow SSH link
 * costs a few hundred bytes a second.
 */
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/loop.h"
#include "app/common.h"
#include "app/exitcodes.h"
#include "app/install.h"
#include "app/text.h"
#include "core/util/clock.h"
#include "core/util/fmt.h"
#include "core/util/os.h"
#include "tui/format.h"
#include "tui/watch.h"

/* File-scope because a signal handler can reach nothing else. */
static volatile sig_atomic_t got_signal;
static int signal_pipe_wr = -1;

/* Only wake the loop: everything else happens in the UI thread. */
static void on_signal(int sig)
{
	int saved = errno;
	got_signal = sig;
	ssize_t w = write(signal_pipe_wr, "", 1);
	(void)w;
	errno = saved;
}

int tui_wanted(const app_request *opts)
{
	const char *term = getenv("TERM");
	return !opts->json && term && *term && strcmp(term, "dumb") != 0 &&
	       isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

void tui_app_notice(tui_app *a, tui_role role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->notice, sizeof a->notice, fmt, ap);
	va_end(ap);
	a->notice_role = role;
	a->full = 1;
}

/* Switch screens; the dashboard reads the state first when it has none
 * or an install changed it. */
void tui_app_show(tui_app *a, tui_screen screen)
{
	a->screen = screen;
	a->help = 0;
	a->ask = TUI_ASK_NONE;
	a->details = 0;
	a->full = 1;
	if (screen == TUI_SCR_DASHBOARD && !a->job_running &&
	    (!a->status || a->stale))
		tui_app_run(a, TUI_JOB_REFRESH, NULL);
}

int tui_app_animating(const tui_app *a)
{
	return a->job_running;
}

int tui_app_compact(void)
{
	return COLS < TUI_FULL_COLS || LINES < TUI_FULL_ROWS;
}

const char *tui_app_spinner(const tui_app *a)
{
	const tui_glyphs *g = a->paint.g;
	return g->spin[a->spin % g->nspin];
}

/* The busy line with its spinner and the job's latest output below. */
void tui_app_busy(tui_app *a, const char *what)
{
	tui_line lines[8];
	char line[256];
	snprintf(line, sizeof line, "%s %s%s", tui_app_spinner(a), what,
		 a->paint.g->ellipsis);
	tui_draw_fill(&a->paint, 2, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_text(&a->paint, 2, 2, COLS - 4, a->view.cancelling
		      ? TUI_ROLE_WARN : TUI_ROLE_ACCENT,
		      a->view.cancelling ? "cancelling" : line);
	size_t n = tui_model_lines(a->model, lines, 8, 1, PYRT_STEP__COUNT);
	for (size_t i = 0; i < 8; i++) {
		tui_draw_fill(&a->paint, 4 + (int)i, 0, COLS, TUI_ROLE_TEXT);
		if (i < n)
			tui_draw_text(&a->paint, 4 + (int)i, 4, COLS - 8,
				      TUI_ROLE_DIM, lines[i].text);
	}
}

/* What the progress screen says it runs. */
static void run_labels(tui_app *a, tui_job_kind kind, const char *plugin)
{
	const pyrt_pins *p = a->pins;
	const char *impl = app_impl_name(p);
	if (kind == TUI_JOB_INSTALL) {
		snprintf(a->run_title, sizeof a->run_title,
			 "Installing %s %s (build %s)", impl,
			 pyrt_pins_version(p), pyrt_pins_build(p));
		snprintf(a->run_noun, sizeof a->run_noun, "install");
	} else if (kind == TUI_JOB_BASELINE) {
		snprintf(a->run_title, sizeof a->run_title,
			 "Installing the doc-library baseline");
		snprintf(a->run_noun, sizeof a->run_noun, "baseline");
	} else {
		pyrt_fmt_text(a->run_title, sizeof a->run_title,
			      "Installing the requirements of %s", plugin);
		snprintf(a->run_noun, sizeof a->run_noun, "plugin install");
	}
}

/* One job at a time: a second one is refused with a notice rather than
 * queued, so a key press never starts work the user cannot see.  Only a
 * check the dashboard began by itself (the box watch) makes a key wait
 * instead, saying so: the key came a moment too late to see it start, and
 * refusing would drop it on a busy machine. */
int tui_app_run(tui_app *a, tui_job_kind kind, const char *plugin)
{
	char msg[256];
	if (a->job_running && a->job.kind == TUI_JOB_REFRESH &&
	    kind != TUI_JOB_REFRESH && a->queued == TUI_JOB_NONE) {
		tui_app_run_confirmed(a, kind, plugin);
		return 0;
	}
	if (a->job_running) {
		tui_app_notice(a, TUI_ROLE_WARN,
			       "busy: wait for the running check to finish");
		return -1;
	}
	tui_job *j = &a->job;
	tui_job_clear(j);
	j->kind = kind;
	j->opts = a->opts;
	j->pins = a->pins;
	j->platform_key = a->platform.key;
	j->model = a->model;
	j->iopts = a->iopts;
	j->plan = a->plan;
	j->bundle_doctor = a->doctor;
	/* A cut name or path would name another plugin or file. */
	pyrt_error ferr = PYRT_ERROR_INIT;
	int cut = pyrt_fmt_path(j->plugin, sizeof j->plugin, &ferr, "%s",
				kind != TUI_JOB_BUNDLE && plugin ? plugin : "") ||
		  pyrt_fmt_path(j->bundle_path, sizeof j->bundle_path, &ferr,
				"%s", kind == TUI_JOB_BUNDLE && plugin ? plugin : "");
	if (cut) {
		tui_app_notice(a, TUI_ROLE_ERROR, "%s", ferr.msg);
		return -1;
	}
	if (tui_job_start(j, msg, sizeof msg) != 0) {
		tui_app_notice(a, TUI_ROLE_ERROR, "%s", msg);
		return -1;
	}
	a->job_running = 1;
	a->asking = 0;
	switch (kind) {
	case TUI_JOB_INSTALL:
	case TUI_JOB_BASELINE:
	case TUI_JOB_PLUGIN:
		a->run_kind = kind;
		snprintf(a->run_plugin, sizeof a->run_plugin, "%s", j->plugin);
		run_labels(a, kind, plugin);
		tui_app_show(a, TUI_SCR_PROGRESS);
		break;
	case TUI_JOB_SMOKE:
		a->smoke_code = 1; /* running */
		tui_app_show(a, TUI_SCR_SMOKE);
		break;
	case TUI_JOB_DOCTOR:
		pyrt_doctor_free(a->doctor);
		a->doctor = NULL;
		a->doc_top = 0;
		a->doc_sel = 0;
		tui_app_show(a, TUI_SCR_DOCTOR);
		break;
	case TUI_JOB_REFRESH:
		a->refreshing = 1;
		a->watch_sig = tui_watch_sig(a->opts->box_root,
				pyrt_pins_layout_interpreter(a->pins));
		a->full = 1;
		break;
	case TUI_JOB_ROLLBACK:
	case TUI_JOB_UNINSTALL:
	case TUI_JOB_BUNDLE:
		snprintf(a->op_label, sizeof a->op_label, "%s",
			 tui_app_job_doing(kind));
		a->full = 1;
		break;
	case TUI_JOB_NONE:
		break;
	}
	return 0;
}

const char *tui_app_job_doing(tui_job_kind kind)
{
	switch (kind) {
	case TUI_JOB_ROLLBACK: return "rolling back";
	case TUI_JOB_UNINSTALL: return "uninstalling";
	case TUI_JOB_BUNDLE: return "writing the bundle";
	case TUI_JOB_PLUGIN: return "installing the plugin's requirements";
	case TUI_JOB_BASELINE: return "installing the baseline";
	case TUI_JOB_INSTALL: return "installing";
	case TUI_JOB_SMOKE: return "running the smoke test";
	case TUI_JOB_DOCTOR: return "running doctor";
	case TUI_JOB_REFRESH: return "checking";
	case TUI_JOB_NONE: break;
	}
	return "working";
}

/* A y is a decision already made: refusing it because the watcher began
 * a check a moment earlier would drop it.  One waits; a second is
 * refused, so nothing piles up unseen. */
void tui_app_run_confirmed(tui_app *a, tui_job_kind kind, const char *arg)
{
	if (!a->job_running) {
		tui_app_run(a, kind, arg);
		return;
	}
	if (a->queued != TUI_JOB_NONE) {
		tui_app_notice(a, TUI_ROLE_WARN,
			       "busy: %s waits already; try again when it has started",
			       tui_app_job_doing(a->queued));
		return;
	}
	a->queued = kind;
	snprintf(a->queued_arg, sizeof a->queued_arg, "%s", arg ? arg : "");
	tui_app_notice(a, TUI_ROLE_ACCENT, "queued: %s once %s has finished",
		       tui_app_job_doing(kind), tui_app_job_doing(a->job.kind));
}

/* The job before it ended: start what the operator said yes to. */
static void run_queued(tui_app *a)
{
	if (a->queued == TUI_JOB_NONE || a->job_running)
		return;
	tui_job_kind kind = a->queued;
	char arg[sizeof a->queued_arg];
	snprintf(arg, sizeof arg, "%s", a->queued_arg);
	a->queued = TUI_JOB_NONE;
	a->queued_arg[0] = '\0';
	tui_app_run(a, kind, arg[0] ? arg : NULL);
}

void tui_app_open_log(tui_app *a, const char *path)
{
	tui_log_load(a->log, a, path);
	if (a->screen != TUI_SCR_LOG)
		a->log_back = a->screen;
	tui_app_show(a, TUI_SCR_LOG);
}

/* Take the state the refresh (or plugin install) read. */
static void take_state(tui_app *a, tui_job *j)
{
	if (!j->status)
		return;
	free(a->status);
	pyrt_plugins_free(a->plugins);
	a->status = j->status;
	a->plugins = j->plugins;
	j->status = NULL;
	j->plugins = NULL;
	snprintf(a->state_error, sizeof a->state_error, "%s",
		 j->refresh_error);
	a->read_only = j->read_only;
	size_t n = a->plugins ? pyrt_plugins_count(a->plugins) : 0;
	if (a->sel >= (int)n)
		a->sel = n ? (int)n - 1 : 0;
}

/* Fill the plan the consent screen shows; 0, or a pyrt_code with the
 * reason in msg. */
static int make_plan(tui_app *a, char *msg, size_t msglen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	/* The command line's request, plus the dashboard's reinstall and the
	 * repair a broken runtime needs. */
	app_request req = *a->opts;
	req.cacert = app_cacert(a->opts);
	req.force = req.force || a->force_reinstall ||
		(a->status && a->status->state == PYRT_STATE_BROKEN);
	int rc = app_install_prepare(&req, a->pins, a->platform.key, &a->iopts,
				     &a->plan, &err);
	if (rc < 0)
		snprintf(msg, msglen, "%s", err.msg);
	return rc < 0 ? rc : 0;
}

void tui_app_wizard(tui_app *a)
{
	char msg[PYRT_ERROR_MSG_MAX];
	int rc = make_plan(a, msg, sizeof msg);
	if (rc && a->wizard_mode) {
		/* `pyrt install` refuses before starting, as headless does. */
		snprintf(a->farewell, sizeof a->farewell, "pyrt: %s", msg);
		a->exit_status = app_exit_code(rc);
		a->quit = 1;
		return;
	}
	if (rc) {
		tui_app_show(a, TUI_SCR_DASHBOARD);
		tui_app_notice(a, TUI_ROLE_ERROR, "cannot install: %s", msg);
		return;
	}
	a->consent_sel = 0;
	a->full_sha = 0;
	if (a->plan.already_current && !a->iopts.force)
		tui_app_run(a, TUI_JOB_INSTALL, NULL);
	else
		tui_app_show(a, TUI_SCR_CONSENT);
}

void tui_app_titlebar(tui_app *a, const char *title)
{
	char left[320];
	snprintf(left, sizeof left, "pyrt %s %s", a->paint.g->dot, title);
	tui_draw_titlebar(&a->paint, left, "pyrt " PYRT_VERSION);
}

/* The worker said done: join it, take its answer (the pointers move to
 * the app) and go to the screen that answer calls for. */
static void finish_job(tui_app *a)
{
	tui_job *j = &a->job;
	tui_job_join(j);
	a->job_running = 0;
	switch (j->kind) {
	case TUI_JOB_REFRESH:
		take_state(a, j);
		a->refreshing = 0;
		a->stale = 0;
		if (a->screen == TUI_SCR_LOADING) {
			if (a->status &&
			    a->status->state == PYRT_STATE_NOT_PROVISIONED)
				tui_app_wizard(a);
			else
				tui_app_show(a, TUI_SCR_DASHBOARD);
		}
		break;
	case TUI_JOB_INSTALL:
	case TUI_JOB_BASELINE:
	case TUI_JOB_PLUGIN:
		a->result = j->result;
		take_state(a, j);
		a->stale = 1; /* the dashboard reads the state again */
		a->have_outcome = 1;
		tui_wizard_finished(a);
		break;
	case TUI_JOB_SMOKE:
		a->smoke = j->smoke;
		a->smoke_code = j->result.code;
		snprintf(a->smoke_error, sizeof a->smoke_error, "%s",
			 j->result.error);
		break;
	case TUI_JOB_DOCTOR:
		a->doctor = j->doctor;
		j->doctor = NULL;
		if (!a->doctor)
			tui_app_notice(a, TUI_ROLE_ERROR, "doctor: %s",
				       j->result.error);
		else if (a->bundle_after_doctor)
			tui_doctor_ask_bundle(a);
		a->bundle_after_doctor = 0;
		break;
	case TUI_JOB_ROLLBACK:
	case TUI_JOB_UNINSTALL:
	case TUI_JOB_BUNDLE:
		a->op_label[0] = '\0';
		if (j->result.code)
			tui_app_notice(a, TUI_ROLE_ERROR, "%s%s%s", j->result.error,
				       j->result.unchanged[0] ? "; " : "",
				       j->result.unchanged);
		else
			tui_app_notice(a, TUI_ROLE_OK, "%s", j->result.summary);
		if (j->kind != TUI_JOB_BUNDLE) {
			a->stale = 1;
			if (a->screen == TUI_SCR_DASHBOARD)
				tui_app_run(a, TUI_JOB_REFRESH, NULL);
		}
		break;
	case TUI_JOB_NONE:
		break;
	}
	/* No tui_job_clear here: the switch may have started the next job in
	 * j (the dashboard's refresh); tui_app_run clears what is left. */
	a->full = 1;
	run_queued(a);
}

/* Leaving with a job running (q on a check, SIGTERM, a hung-up terminal)
 * cancels it through core and waits for its cleanup; an install's outcome
 * is still reported after the screen is gone. */
static void stop_job(tui_app *a)
{
	if (a->job_running) {
		tui_model_cancel(a->model);
		tui_job_join(&a->job);
		a->job_running = 0;
		tui_job_kind k = a->job.kind;
		if (k == TUI_JOB_INSTALL || k == TUI_JOB_BASELINE ||
		    k == TUI_JOB_PLUGIN) {
			a->result = a->job.result;
			a->have_outcome = 1;
			if (k == TUI_JOB_INSTALL && a->wizard_mode)
				a->exit_status = app_exit_code(a->result.code);
		}
	}
	if (a->signalled)
		a->exit_status = app_exit_code(PYRT_E_CANCELLED);
}

/* Load theme name (a name in the theme dirs, or a path); a missing or
 * broken one leaves the default and a one-line notice. */
static void load_theme(tui_app *a, const char *name, int quiet_missing)
{
	char msg[sizeof a->notice];
	if (tui_theme_select(&a->theme, &a->theme_dirs, name, quiet_missing,
			     msg, sizeof msg) != 0 && msg[0])
		tui_app_notice(a, TUI_ROLE_WARN, "%s", msg);
	tui_draw_apply_theme(&a->paint, &a->theme);
	a->full = 1;
}

void tui_app_cycle_theme(tui_app *a)
{
	char name[64];
	if (!a->paint.color) {
		tui_app_notice(a, TUI_ROLE_WARN,
			       "colours are off (--no-color or NO_COLOR): no themes to cycle");
		return;
	}
	if (tui_theme_next(&a->theme_dirs, a->theme.name, name,
			   sizeof name) != 0) {
		tui_app_notice(a, TUI_ROLE_WARN,
			       "no theme files found; using the built-in default");
		return;
	}
	a->notice[0] = '\0';
	load_theme(a, name, 0);
	if (!a->notice[0])
		tui_app_notice(a, TUI_ROLE_ACCENT, "theme: %s", a->theme.name);
}

/* --theme / PYRT_THEME, else the default theme file (silently the
 * built-in table when there is none); attributes only without colour. */
static void setup_theme(tui_app *a)
{
	tui_theme_dirs_init(&a->theme_dirs);
	if (!a->paint.color) {
		/* Attributes only: never a colour escape, whatever a theme
		 * file says. */
		tui_theme_monochrome(&a->theme);
		tui_draw_apply_theme(&a->paint, &a->theme);
		return;
	}
	const char *name = a->opts->theme;
	load_theme(a, name ? name : "default", name == NULL);
}

/* Below 60x16 nothing else is drawn; the job keeps running.  Read from
 * COLS and LINES each time: a key that comes in the same read as the
 * resize must be judged by the new size, not the last frame's. */
static int too_small_now(void)
{
	return COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS;
}

/* Two short lines (each fits in 40 columns), centred; cut, never
 * wrapped, on a terminal narrower still. */
static void draw_too_small(tui_app *a)
{
	const tui_glyphs *g = a->paint.g;
	char need[64], have[64];
	snprintf(need, sizeof need, "terminal too small %s need %d%s%d",
		 g->dash, TUI_MIN_COLS, g->times, TUI_MIN_ROWS);
	snprintf(have, sizeof have, "have %d%s%d; q quits", COLS, g->times,
		 LINES);
	erase();
	const char *lines[2] = { need, have };
	for (int i = 0; i < 2; i++) {
		int w = (int)tui_format_columns(lines[i]);
		int x = w < COLS ? (COLS - w) / 2 : 0;
		int y = LINES / 2 - 1 + i;
		tui_draw_text(&a->paint, y < 0 ? 0 : y, x, COLS,
			      i ? TUI_ROLE_DIM : TUI_ROLE_WARN, lines[i]);
	}
}

/* The notice sits above the footer until the next key. */
static void draw_notice(tui_app *a)
{
	if (!a->notice[0])
		return;
	tui_draw_fill(&a->paint, LINES - 2, 0, COLS, TUI_ROLE_TEXT);
	tui_draw_text(&a->paint, LINES - 2, 1, COLS - 2, a->notice_role,
		      a->notice);
}

/* One frame: the whole screen when full, else only what changed. */
static void frame(tui_app *a)
{
	a->spin = (int)(pyrt_now() / TUI_FRAME_S);
	a->too_small = too_small_now();
	if (a->too_small) {
		if (a->full)
			draw_too_small(a);
	} else {
		if (a->full)
			erase();
		switch (a->screen) {
		case TUI_SCR_LOADING: tui_loading_draw(a); break;
		case TUI_SCR_CONSENT: if (a->full) tui_consent_draw(a); break;
		case TUI_SCR_PROGRESS:
			tui_progress_draw(a, a->full ? ~0u : a->dirty);
			break;
		case TUI_SCR_RESULT: if (a->full) tui_result_draw(a); break;
		case TUI_SCR_DASHBOARD: tui_dash_draw(a); break;
		case TUI_SCR_DOCTOR: tui_doctor_draw(a); break;
		case TUI_SCR_SMOKE: tui_smoke_draw(a); break;
		case TUI_SCR_LOG: if (a->full) tui_log_draw(a); break;
		}
		if (a->full)
			draw_notice(a);
		if (a->help)
			tui_help_draw(a);
		else if (a->ask || a->details)
			tui_dialog_draw(a);
	}
	wnoutrefresh(stdscr);
	doupdate();
	a->full = 0;
	a->dirty = 0;
}

/* The too-small screen hides the one under it, so no key may act on
 * that one (Enter would consent to an install nobody can read): q and
 * Ctrl-C leave with nothing changed, every other key is dropped.  For
 * `pyrt install` at its consent that is the declined-consent exit; a
 * running job is cancelled on the way out, as on SIGTERM. */
static void too_small_key(tui_app *a, int ch)
{
	if (ch != 'q' && ch != 'Q' && ch != TUI_KEY_CTRL_C)
		return;
	if (a->screen == TUI_SCR_CONSENT && a->wizard_mode)
		tui_consent_key(a, TUI_KEY_ESC);
	a->quit = 1;
}

/* Keys every screen shares (resize, Ctrl-L, closing help and notices),
 * then the screen's own, if it is on the terminal at all. */
static void on_key(tui_app *a, int ch)
{
	if (ch == KEY_RESIZE) {
		a->full = 1;
		return;
	}
	if (ch == TUI_KEY_CTRL_L) {
		clearok(curscr, TRUE);
		a->full = 1;
		return;
	}
	/* htop's keys: F1 is help and F10 quit, as ? and q are here. */
	if (ch == KEY_F(1))
		ch = '?';
	else if (ch == KEY_F(10))
		ch = 'q';
	if (too_small_now()) {
		too_small_key(a, ch);
		return;
	}
	if (a->notice[0]) {
		a->notice[0] = '\0';
		a->full = 1;
	}
	if (a->help) {
		a->help = 0;
		a->full = 1;
		return;
	}
	if (a->ask || a->details) {
		tui_dialog_key(a, ch);
		return;
	}
	switch (a->screen) {
	case TUI_SCR_LOADING:
		if (ch == 'q' || ch == TUI_KEY_ESC || ch == TUI_KEY_CTRL_C)
			a->quit = 1;
		break;
	case TUI_SCR_CONSENT: tui_consent_key(a, ch); break;
	case TUI_SCR_PROGRESS: tui_progress_key(a, ch); break;
	case TUI_SCR_RESULT: tui_result_key(a, ch); break;
	case TUI_SCR_DASHBOARD: tui_dash_key(a, ch); break;
	case TUI_SCR_DOCTOR: tui_doctor_key(a, ch); break;
	case TUI_SCR_SMOKE: tui_smoke_key(a, ch); break;
	case TUI_SCR_LOG: tui_log_key(a, ch); break;
	}
}

/* SIGTERM or SIGHUP: stop the job through core and leave.  A SIGINT
 * (kill -INT; the terminal sends Ctrl-C as a key in raw mode) is
 * handled like the key. */
static void on_signal_event(tui_app *a)
{
	int sig = got_signal;
	got_signal = 0;
	if (sig == SIGINT) {
		on_key(a, TUI_KEY_CTRL_C);
		return;
	}
	if (sig) {
		tui_model_cancel(a->model);
		a->quit = 1;
		a->signalled = 1;
	}
}

/* The dashboard is on the screen with nothing running: it watches the
 * box, so another process's install, rollback or plugin change shows by
 * itself (the card never says "installing" after the install ended). */
static int watching(const tui_app *a)
{
	return a->screen == TUI_SCR_DASHBOARD && !a->job_running && a->status;
}

static void watch_tick(tui_app *a, double now)
{
	if (!watching(a)) {
		a->watch_next = now + TUI_WATCH_S;
		return;
	}
	if (now < a->watch_next)
		return;
	a->watch_next = now + TUI_WATCH_S;
	if (tui_watch_sig(a->opts->box_root,
			  pyrt_pins_layout_interpreter(a->pins)) != a->watch_sig)
		tui_app_run(a, TUI_JOB_REFRESH, NULL);
}

/* Wait for a key, an engine event or a signal; draw at most once per
 * frame, and not at all while nothing changes or turns. */
static void loop(tui_app *a, int sig_rd)
{
	double next_frame = 0;
	a->full = 1;
	while (!a->quit) {
		double now = pyrt_now();
		int want = a->full || a->dirty || tui_app_animating(a);
		int timeout = -1;
		if (want)
			timeout = next_frame > now
				? (int)tui_ceil_nonneg((next_frame - now) * 1000.0) : 0;
		if (watching(a)) {
			int w = a->watch_next > now
				? (int)tui_ceil_nonneg((a->watch_next - now) * 1000.0) : 0;
			timeout = timeout < 0 || w < timeout ? w : timeout;
		}
		struct pollfd fds[3] = {
			{ STDIN_FILENO, POLLIN, 0 },
			{ tui_model_fd(a->model), POLLIN, 0 },
			{ sig_rd, POLLIN, 0 },
		};
		int n = poll(fds, 3, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (fds[0].revents & (POLLHUP | POLLERR)))
			a->quit = 1; /* the terminal went away */
		if (n > 0 && (fds[2].revents & POLLIN)) {
			char buf[16];
			while (read(sig_rd, buf, sizeof buf) > 0)
				;
			on_signal_event(a);
		}
		if (n > 0 && (fds[1].revents & POLLIN))
			tui_model_drain(a->model);
		a->dirty |= tui_model_take(a->model, &a->view);
		int finished = 0;
		if (a->job_running && a->view.done) {
			finish_job(a);
			finished = 1;
		}
		watch_tick(a, pyrt_now());
		/* After EINTR too: a SIGWINCH surfaces as KEY_RESIZE here. */
		int ch, keyed = 0;
		while (!a->quit && (ch = getch()) != ERR) {
			on_key(a, ch);
			keyed = 1;
		}
		now = pyrt_now();
		/* A key is answered at once (keys come at human rate, so this
		 * cannot flood a slow link), and so is a job's end (one per
		 * job): the dashboard's first full frame follows the first
		 * refresh instead of the next tick.  Engine events wait for the
		 * tick. */
		if ((a->full || a->dirty || tui_app_animating(a)) &&
		    (keyed || finished || now >= next_frame)) {
			frame(a);
			next_frame = now + TUI_FRAME_S;
		}
	}
}

/* Handlers that only wake the loop; the previous ones come back after. */
static int signals_install(int wr, struct sigaction *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	signal_pipe_wr = wr;
	for (size_t i = 0; i < 3; i++)
		if (sigaction(sigs[i], &sa, &old[i]) != 0)
			return -1;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, &old[3]);
}

static void signals_restore(const struct sigaction *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	signal_pipe_wr = -1;
}

/* curses up: raw keys (Ctrl-C is a key), no echo, no cursor, quick Esc. */
static SCREEN *screen_open(tui_app *a)
{
	pyrt_error err = PYRT_ERROR_INIT;
	if (tui_lazy_curses(&err) != 0) {
		/* The caller goes on without the TUI: say why once. */
		app_text_printf(stderr, "pyrt: no terminal UI: %s\n", err.msg);
		return NULL;
	}
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return NULL;
	set_term(scr);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	a->paint.color = !a->opts->no_color && has_colors();
	if (a->paint.color) {
		start_color();
		use_default_colors();
	}
	return scr;
}

/* After the screen is gone, the run's answer stays in the scrollback;
 * cleaned like every other line the terminal gets. */
static void say_outcome(const tui_app *a)
{
	const tui_result *r = &a->result;
	if (!a->have_outcome || a->run_kind != TUI_JOB_INSTALL)
		return;
	if (r->code == 0) {
		app_text_printf(stderr, "%s\n", r->summary);
		return;
	}
	if (r->code == PYRT_E_CANCELLED)
		app_text_printf(stderr, "pyrt: %s cancelled\n", a->run_noun);
	else
		app_text_printf(stderr, "pyrt: %s failed: %s\n", a->run_noun,
				r->error);
	if (r->unchanged[0])
		app_text_printf(stderr, "pyrt: %s\n", r->unchanged);
}

/* Pins and platform, reported like the headless commands report them. */
static int prepare(tui_app *a, tui_start start)
{
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int rc = app_load_pins(a->opts, &a->pins, msg, sizeof msg);
	if (rc == 0)
		rc = app_detect_platform(&a->platform, msg, sizeof msg);
	if (rc == 0 && start == TUI_START_INSTALL &&
	    !pyrt_pins_find(a->pins, a->platform.key)) {
		char keys[1024];
		app_supported_keys(a->pins, keys, sizeof keys);
		snprintf(msg, sizeof msg,
			 "unsupported platform %s: no pinned runtime for it (supported: %s)",
			 a->platform.key, keys);
		rc = PYRT_E_UNSUPPORTED;
	}
	if (rc < 0) {
		app_errorf("%s", msg);
		return app_exit_code(rc);
	}
	return 0;
}

/* Everything tui_main allocated; safe on a half-built app. */
static void app_free(tui_app *a)
{
	stop_job(a);
	tui_job_clear(&a->job);
	free(a->status);
	pyrt_plugins_free(a->plugins);
	pyrt_doctor_free(a->doctor);
	tui_log_free(a->log);
	tui_model_free(a->model);
	pyrt_pins_free(a->pins);
	free(a);
}

/* The terminal's codeset decides the glyphs; LC_NUMERIC stays "C" so
 * numbers in logs and messages read the same in every locale. */
static int locale_utf8(void)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* Everything between newterm and endwin. */
static void run_screen(tui_app *a, tui_start start, int sig_rd)
{
	setup_theme(a);
	if (start == TUI_START_INSTALL) {
		a->wizard_mode = 1;
		a->run_kind = TUI_JOB_INSTALL;
		snprintf(a->run_noun, sizeof a->run_noun, "install");
		tui_app_wizard(a);
	} else {
		a->screen = TUI_SCR_LOADING;
		tui_app_run(a, TUI_JOB_REFRESH, NULL);
	}
	loop(a, sig_rd);
}

/* Set up (pins, locale, model, signals, curses), run, and put the
 * terminal back before the outcome is printed. */
int tui_main(const app_request *opts, tui_start start)
{
	tui_app *a = calloc(1, sizeof *a);
	int sp[2] = { -1, -1 };
	struct sigaction old[4];
	if (!a)
		return -1;
	a->opts = opts;
	int status = prepare(a, start);
	if (status) {
		pyrt_pins_free(a->pins);
		free(a);
		return status;
	}
	a->paint.utf8 = locale_utf8();
	a->paint.g = tui_draw_glyphs(a->paint.utf8);
	a->model = tui_model_new(opts->verbose);
	a->log = tui_log_new();
	if (!a->model || !a->log || pyrt_os_pipe(sp, PYRT_OS_NONBLOCK) != 0 ||
	    signals_install(sp[1], old) != 0) {
		app_free(a);
		return -1;
	}
	SCREEN *scr = screen_open(a);
	if (!scr) {
		signals_restore(old);
		close(sp[0]);
		close(sp[1]);
		app_free(a);
		return -1;
	}
	run_screen(a, start, sp[0]);
	stop_job(a);
	endwin();
	delscreen(scr);
	signals_restore(old);
	close(sp[0]);
	close(sp[1]);
	if (a->farewell[0])
		app_text_printf(stderr, "%s\n", a->farewell);
	say_outcome(a);
	status = a->exit_status;
	app_free(a);
	return status;
}
