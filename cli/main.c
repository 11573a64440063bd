/*
 * pyrt's entry point: parse the command line and dispatch to a command.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "error.h"
#include "exitcodes.h"
#include "fronts.h"
#include "parse.h"
#include "serve.h"
#include "tui.h"

/* `pyrt` alone: the dashboard (or the install wizard) on a terminal;
 * without one, or when curses cannot start, the same answer as status. */
static int run_default(const app_request *opts)
{
	if (tui_wanted(opts)) {
		int status = tui_main(opts, TUI_START_AUTO);
		if (status >= 0)
			return status;
	}
	return cli_cmd_status(opts);
}

/* `pyrt install` on a terminal without --yes is the TUI wizard (its
 * consent screen is the consent); --yes, --json or no terminal keep the
 * headless lines. */
static int run_install(const app_request *opts)
{
	if (!opts->yes && tui_wanted(opts)) {
		int status = tui_main(opts, TUI_START_INSTALL);
		if (status >= 0)
			return status;
	}
	return cli_cmd_install(opts);
}

/* `pyrt help [CMD]`. */
static int run_help(const app_request *opts)
{
	if (opts->npositional == 0) {
		cli_help_manual();
		return 0;
	}
	app_command cmd = cli_command_lookup(opts->positional[0]);
	if (cmd == APP_CMD__COUNT) {
		const char *near = cli_command_suggest(opts->positional[0]);
		if (near)
			app_errorf("unknown command '%s'; did you mean '%s'? (see pyrt --help)",
				   opts->positional[0], near);
		else
			app_errorf("unknown command '%s'; see pyrt --help",
				   opts->positional[0]);
		return APP_EXIT_USAGE;
	}
	cli_help_command(cmd);
	return 0;
}

/* One place maps a command to its implementation. */
static int dispatch(const app_request *opts)
{
	switch (opts->command) {
	case APP_CMD_NONE: return run_default(opts);
	case APP_CMD_INSTALL: return run_install(opts);
	case APP_CMD_STATUS: return cli_cmd_status(opts);
	case APP_CMD_ROLLBACK: return cli_cmd_rollback(opts);
	case APP_CMD_UNINSTALL: return cli_cmd_uninstall(opts);
	case APP_CMD_VERIFY: return cli_cmd_verify(opts);
	case APP_CMD_HELP: return run_help(opts);
	case APP_CMD_VERSION:
		return cli_help_version(opts, tui_curses_version());
	case APP_CMD_DOCTOR: return cli_cmd_doctor(opts);
	case APP_CMD_SMOKE: return cli_cmd_smoke(opts);
	case APP_CMD_PLUGINS: return cli_cmd_plugins(opts);
	case APP_CMD_BASELINE: return cli_cmd_baseline(opts);
	case APP_CMD_SERVE: return serve_main(opts);
	case APP_CMD_MIRROR: return cli_cmd_mirror(opts);
	case APP_CMD_LOCK: return cli_cmd_lock(opts);
	case APP_CMD__COUNT: break;
	}
	app_errorf("internal error: no handler for command %d", opts->command);
	return app_exit_code(PYRT_E_INTERNAL);
}

/*
 * SIGCHLD ignored is inherited across exec; the kernel then reaps our
 * children itself and their exit statuses are lost.  Every child we run
 * must report how it ended, so take the default back first thing.
 */
static void sigchld_default(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

/*
 * Past RLIMIT_FSIZE the kernel sends SIGXFSZ, whose default kills us
 * mid-write with a core and no word said.  Ignored, the write fails with
 * EFBIG instead, and the install reports the file and cleans up like on a
 * full disk.  Children get the default back (pyrt_proc).
 */
static void sigxfsz_ignore(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
}

/* --json given before any "--": the parse may have stopped before it. */
static int wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			return 1;
	return 0;
}

/* The first word that names a command, for the result line; "pyrt". */
static const char *typed_command(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		app_command c = argv[i][0] == '-' ? APP_CMD__COUNT
						  : cli_command_lookup(argv[i]);
		if (c != APP_CMD__COUNT)
			return cli_command_name(c);
	}
	return "pyrt";
}

int main(int argc, char **argv)
{
	app_request opts;
	char msg[1024];
	sigchld_default();
	sigxfsz_ignore();
	int rc = cli_args_parse(argc, argv, &opts, msg, sizeof msg);
	int status;
	if (rc < 0) {
		app_errorf("%s", msg[0] ? msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
		if (wants_json(argc, argv))
			cli_json_usage_result(typed_command(argc, argv),
					      msg[0] ? msg : pyrt_strerror(rc));
	} else if (opts.help) {
		if (opts.command == APP_CMD_NONE || opts.command == APP_CMD_HELP)
			cli_help_manual();
		else
			cli_help_command(opts.command);
		status = 0;
	} else if (opts.version) {
		status = cli_help_version(&opts, tui_curses_version());
	} else {
		status = dispatch(&opts);
	}
	cli_args_clear(&opts);
	if (fflush(stdout) != 0 && status == 0)
		status = app_exit_code(PYRT_E_IO);
	return status;
}
