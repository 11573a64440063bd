/*
 * pyrt's entry point: parse the command line and dispatch to a command.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/parse.h"
#include "core/util/error.h"
#include "tui/tui.h"

/* One place maps a command to its implementation: the command table. */
static int dispatch(const app_request *opts)
{
	if ((unsigned)opts->command < APP_CMD__COUNT &&
	    cli_commands[opts->command].run)
		return cli_commands[opts->command].run(opts);
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
#ifdef PYRT_TEST_HOOKS
	/* e2e_gate_table walks the option table itself, not a copy. */
	if (getenv("PYRT_TEST_OPTION_TABLE")) {
		cli_opt_table_print(stdout);
		return 0;
	}
	/* e2e_command_table: every command and option the tables hold. */
	if (getenv("PYRT_TEST_COMMAND_TABLE")) {
		cli_command_table_print(stdout);
		return 0;
	}
#endif
	int rc = cli_args_parse(argc, argv, &opts, msg, sizeof msg);
	int status;
	if (rc < 0) {
		app_errorf("%s", msg[0] ? msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
		if (wants_json(argc, argv))
			cli_json_usage_result(typed_command(argc, argv),
					      msg[0] ? msg : pyrt_strerror(rc));
	} else if (opts.help) {
		if (opts.command != APP_CMD_NONE && opts.command != APP_CMD_HELP)
			cli_help_command(opts.command);
		else if (opts.help == 2)
			cli_help_short();
		else
			cli_help_manual();
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
