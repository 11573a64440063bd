/*
 * The UI thread's state, shared by the screen files (internal to tui/):
 * which screen is up, what it shows, the job that runs, and the drawing
 * context.  Only the UI thread touches it; the worker's side is the view
 * model (model.h).
 */
#ifndef PYRT_TUI_APP_H
#define PYRT_TUI_APP_H

#include "args.h"
#include "draw.h"
#include "install.h"
#include "jobs.h"
#include "model.h"
#include "platform.h"
#include "theme.h"

#define TUI_MIN_COLS 80
#define TUI_MIN_ROWS 24
#define TUI_FRAME_S 0.1      /* at most ten frames a second */
#define TUI_THEMES_MAX 32

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

typedef struct tui_app {
	const cli_opts *opts;
	int wizard_mode;          /* `pyrt install`: leave after the wizard */
	pyrt_pins *pins;
	pyrt_platform platform;
	tui_model *model;
	tui_job job;
	int job_running;

	/* drawing */
	tui_paint paint;
	tui_theme theme;
	const char *theme_dirs[3];
	char theme_dir_buf[3][4096];
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
	int sel, top;

	/* doctor and smoke */
	pyrt_doctor *doctor;
	int doc_top;
	int smoke_code;
	char smoke_error[1024];
	pyrt_smoke_result smoke;

	tui_logview *log;
	int exit_status;
	char farewell[512];       /* printed after the screen is gone */
	int signalled;            /* SIGTERM or SIGHUP: leave, exit 130 */
	int quit;
} tui_app;

/* app.c: what the screens ask of the loop. */
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
/* Open the log viewer on path; "": this session's lines; NULL: the
 * newest log under the box (the session's when there is none). */
void tui_app_open_log(tui_app *a, const char *path);
void tui_app_cycle_theme(tui_app *a);
/* Whether a spinner is turning somewhere (frames keep coming). */
int tui_app_animating(const tui_app *a);
/* The spinner glyph for this frame. */
const char *tui_app_spinner(const tui_app *a);

/* scr_wizard.c */
void tui_consent_draw(tui_app *a);
void tui_consent_key(tui_app *a, int ch);
void tui_progress_draw(tui_app *a, unsigned dirty);
void tui_progress_key(tui_app *a, int ch);
void tui_result_draw(tui_app *a);
void tui_result_key(tui_app *a, int ch);
void tui_loading_draw(tui_app *a);
/* The job behind the progress screen ended: pick result or error. */
void tui_wizard_finished(tui_app *a);

/* scr_dash.c */
void tui_dash_draw(tui_app *a);
void tui_dash_key(tui_app *a, int ch);
void tui_help_draw(tui_app *a);

/* scr_doctor.c */
void tui_doctor_draw(tui_app *a);
void tui_doctor_key(tui_app *a, int ch);
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
