/*
 * The ncurses front end, as the CLI sees it: whether to use it, and the
 * one call that runs it.  Everything else in tui/ is internal.
 */
#ifndef PYRT_TUI_H
#define PYRT_TUI_H

#include "app/args.h"

typedef enum tui_start {
	TUI_START_AUTO = 0,  /* `pyrt`: dashboard, or the wizard when nothing
				is provisioned */
	TUI_START_INSTALL    /* `pyrt install`: the wizard, then leave */
} tui_start;

/* stdin and stdout are terminals, TERM is set and not "dumb", no --json. */
int tui_wanted(const app_request *opts);

/*
 * Run the TUI until the user quits; returns the process exit status (for
 * `pyrt install`, the install's, as the headless command would).  Returns
 * -1 without having drawn anything when the terminal cannot be used, so
 * the caller can fall back to the headless command.
 */
int tui_main(const app_request *opts, tui_start start);

/** The curses library in use, e.g. "ncurses 6.4.20221231". */
const char *tui_curses_version(void);

#endif
