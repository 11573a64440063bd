/*
 * The UI thread's state, shared by the screen files (internal to tui/):
 * which screen is up, what it shows, the job that runs, and the drawing
 * context.  Only the UI thread touches it; the worker's side is the view
 * model (model.h).
 */
#ifndef PYRT_TUI_LOOP_H
#define PYRT_TUI_LOOP_H

#include "app/args.h"
#include "core/dist/platform.h"
#include "core/runtime/install.h"
#include "tui/draw.h"
#include "tui/jobs.h"
#include "tui/model.h"
#include "tui/theme.h"

/* Below this nothing but "terminal too small" (and no key but q and
 * Ctrl-C); from it up to TUI_FULL_* the screens use their compact layout. */
#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 16
/* Every screen's full layout fits 80x23: 80x24 less a tmux or screen
 * status line. */
#define TUI_FULL_COLS 80
#define TUI_FULL_ROWS 23
#define TUI_FRAME_S 0.1      /* at most ten frames a second */

typedef enum tui_screen {
	TUI_SCR_LOADING = 0,  /* reading the runtime's state */
	TUI_SCR_CONSENT,
	TUI_SCR_PROGRESS,     /* install, baseline, plugin install */
	TUI_SCR_RESULT,       /* success or error of the above */
	TUI_SCR_DASHBOARD,
	TUI_SCR_DOCTOR,
	TUI_SCR_SMOKE,
	TUI_SCR_LOG
} tui_screen;

typedef struct tui_logview tui_logview;

/* What a yes/no question over the screen will do on y. */
typedef enum tui_ask {
	TUI_ASK_NONE = 0,
	TUI_ASK_PLUGIN,     /* pip install a plugin's requirements */
	TUI_ASK_BASELINE,   /* pip install the doc-library baseline */
	TUI_ASK_ROLLBACK,
	TUI_ASK_UNINSTALL,
	TUI_ASK_BUNDLE      /* write a support bundle */
} tui_ask;

#define TUI_DIALOG_TEXT 16384 /* two paths, a pip source and a list, whole */

typedef struct tui_app {
	const app_request *opts;
	int wizard_mode;          /* `pyrt install`: leave after the wizard */
	pyrt_pins *pins;
	pyrt_platform platform;
	tui_model *model;
	tui_job job;
	int job_running;

	/* drawing */
	tui_paint paint;
	tui_theme theme;
	tui_theme_dirs theme_dirs;
	int too_small;
	int full;                 /* redraw the whole screen next frame */
	unsigned dirty;           /* model changes not drawn yet */
	int spin;                 /* spinner frame */
	char notice[512];         /* one line above the footer until a key */
	tui_role notice_role;
	tui_view view;            /* the model's last snapshot */

	tui_screen screen;
	tui_screen log_back;      /* where the log viewer returns to */
	int help;                 /* help overlay shown */
	int asking;               /* "cancel the ...? [y/N]" shown */

	/* A question (y/N) or the whole text of a row, over the screen:
	 * paragraphs separated by '\n', wrapped to the dialog's width. */
	tui_ask ask;
	int details;              /* the details dialog is shown */
	char dlg_title[128];
	char dlg_text[TUI_DIALOG_TEXT];
	char ask_arg[4096];       /* the plugin, or the bundle's path */
	int dlg_top;              /* first wrapped line shown */
	int dlg_lines;            /* wrapped lines, from the last draw */
	char op_label[64];        /* "rolling back": the card's busy word */
	/* A question answered y while a job ran: it starts when that job
	 * ends (the watcher's refresh can begin between the question and y). */
	tui_job_kind queued;
	char queued_arg[4096];
	int bundle_after_doctor;  /* B before doctor ran: ask when it ends */
	int force_reinstall;      /* I on a ready runtime: consent to reinstall */

	/* watching the box: the state read last, and when to look again */
	unsigned long long watch_sig;
	double watch_next;

	/* wizard: consent, progress, result */
	pyrt_install_opts iopts;
	pyrt_install_plan plan;
	int consent_sel;          /* 0 Install, 1 Cancel */
	int full_sha;
	tui_job_kind run_kind;    /* what the progress screen runs */
	char run_title[256];
	char run_noun[64];        /* "install", "baseline", "plugin install" */
	char run_plugin[256];     /* plugin install: which plugin */
	tui_result result;
	char failed_step[32];
	int result_sel;
	int have_outcome;         /* a run ended: say it after leaving */

	/* dashboard */
	pyrt_status *status;
	pyrt_plugins *plugins;
	char state_error[1024];
	int refreshing;           /* a refresh job runs */
	int stale;                /* an install changed what the card shows */
	int read_only;            /* root's shared box, another user: no changes */
	int sel, top;

	/* doctor and smoke */
	pyrt_doctor *doctor;
	int doc_top;
	int doc_sel;              /* the focused check */
	int smoke_code;
	char smoke_error[1024];
	pyrt_smoke_result smoke;

	tui_logview *log;
	int exit_status;
	char farewell[PYRT_ERROR_MSG_MAX + 16]; /* printed after the screen is gone */
	int signalled;            /* SIGTERM or SIGHUP: leave, exit 130 */
	int quit;
} tui_app;

/* loop.c: what the screens ask of the loop. */
void tui_app_notice(tui_app *a, tui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tui_app_show(tui_app *a, tui_screen screen);
/* The title bar: "pyrt · <title>" and the version. */
void tui_app_titlebar(tui_app *a, const char *title);
/* The install wizard: consent (or straight to work when the pin is
 * already active). */
void tui_app_wizard(tui_app *a);
/* Start a job of kind (plugin: the plugin's name); 0 or -1 (noticed). */
int tui_app_run(tui_app *a, tui_job_kind kind, const char *plugin);
/* What the operator said yes to: run now, or after the running job. */
void tui_app_run_confirmed(tui_app *a, tui_job_kind kind, const char *arg);
/* The card's busy words for an operation ("rolling back"). */
const char *tui_app_job_doing(tui_job_kind kind);
/* Open the log viewer on path; "": this session's lines; NULL: the
 * newest log under the box (the session's when there is none). */
void tui_app_open_log(tui_app *a, const char *path);
void tui_app_cycle_theme(tui_app *a);
/* Whether a spinner is turning somewhere (frames keep coming). */
int tui_app_animating(const tui_app *a);
/* The spinner glyph for this frame. */
const char *tui_app_spinner(const tui_app *a);
/* "<spinner> what…" (or "cancelling") with the job's newest lines below:
 * the doctor and smoke screens while their job runs. */
void tui_app_busy(tui_app *a, const char *what);
/* The terminal is below 80x23: screens use their compact layout. */
int tui_app_compact(void);

/* scr_loading.c */
void tui_loading_draw(tui_app *a);

/* scr_consent.c */
void tui_consent_draw(tui_app *a);
void tui_consent_key(tui_app *a, int ch);

/* scr_progress.c */
void tui_progress_draw(tui_app *a, unsigned dirty);
void tui_progress_key(tui_app *a, int ch);
/* A step's name on the checklist ("pip install" for a plugin's). */
const char *tui_step_label(const tui_app *a, pyrt_step s);

/* scr_result.c */
void tui_result_draw(tui_app *a);
void tui_result_key(tui_app *a, int ch);
/* The job behind the progress screen ended: pick result or error. */
void tui_wizard_finished(tui_app *a);

/* scr_dialog.c: the question and details dialogs. */
void tui_dialog_open(tui_app *a, tui_ask ask, const char *title,
		     const char *text);
void tui_dialog_draw(tui_app *a);
/* A key while a dialog is open (every key goes to it). */
void tui_dialog_key(tui_app *a, int ch);
/* Start what the question asked about (after y). */
void tui_ask_yes(tui_app *a, tui_ask ask);

/* scr_dash.c */
void tui_dash_draw(tui_app *a);
void tui_dash_key(tui_app *a, int ch);

/* scr_help.c: the dashboard's keys (?). */
void tui_help_draw(tui_app *a);

/* scr_doctor.c */
void tui_doctor_draw(tui_app *a);
void tui_doctor_key(tui_app *a, int ch);
/* Ask where to write the support bundle (doctor's answer is there). */
void tui_doctor_ask_bundle(tui_app *a);

/* scr_smoke.c */
void tui_smoke_draw(tui_app *a);
void tui_smoke_key(tui_app *a, int ch);

/* scr_log.c */
tui_logview *tui_log_new(void);
void tui_log_free(tui_logview *l);
/* Load path into the viewer (as tui_app_open_log). */
void tui_log_load(tui_logview *l, tui_app *a, const char *path);
void tui_log_draw(tui_app *a);
void tui_log_key(tui_app *a, int ch);

/* Keys shared by every screen. */
#define TUI_KEY_ESC 27
#define TUI_KEY_CTRL_C 3
#define TUI_KEY_CTRL_L 12
#define TUI_KEY_ENTER_LF 10
#define TUI_KEY_ENTER_CR 13

#endif
