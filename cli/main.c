/*
 * pyrt's entry point: parse the command line, prepare what the command's
 * row needs (cli_run) and run it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "app/fix.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/parse.h"
#include "cli/signals.h"
#include "core/util/error.h"
#include "tui/tui.h"

/* A failure to prepare, reported on stderr as the handlers always did. */
static int refuse_plain(const cli_ctx *c, int code, const char *msg)
{
	(void)c;
	app_errorf("%s", msg);
	return app_exit_code(code);
}

int cli_refuse_named(const cli_ctx *c, int code, const char *msg)
{
	app_errorf("%s: %s", c->name, msg);
	return app_exit_code(code);
}

int cli_refuse_front(const cli_ctx *c, int code, const char *msg)
{
	char fixed[PYRT_ERROR_MSG_MAX + 1024];
	app_fix_text(c->opts, msg, fixed, sizeof fixed);
	return app_exit_code(app_front_refuse(c->front, c->name, code, fixed));
}

/* What the row needs, into c: the front and the signals first (a failure
 * to load the pins is reported through the front), then the pins and the
 * platform.  0 or the exit status, already reported. */
static int prepare(const cli_command_entry *e, cli_ctx *c)
{
	const app_request *opts = c->opts;
	if (e->needs & CLI_NEEDS_FRONT)
		c->front = cli_front_for(opts);
	else if ((e->needs & CLI_NEEDS_LINES) && !opts->json)
		c->front = cli_front_lines_new(opts);
	int want_front = (e->needs & CLI_NEEDS_FRONT) ||
			 ((e->needs & CLI_NEEDS_LINES) && !opts->json);
	if ((want_front && !c->front) ||
	    ((e->needs & CLI_NEEDS_SIGNALS) &&
	     cli_signals_install(!opts->quiet) != 0)) {
		app_errorf("cannot start: out of memory or no signal handlers");
		return app_exit_code(PYRT_E_INTERNAL);
	}
	char msg[PYRT_ERROR_MSG_MAX + 512];
	int rc = 0;
	if (e->needs & CLI_NEEDS_PINS)
		rc = app_load_pins(opts, &c->pins, msg, sizeof msg);
	if (rc == 0 && (e->needs & CLI_NEEDS_PLATFORM))
		rc = app_detect_platform(&c->platform, msg, sizeof msg);
	if (rc < 0)
		return (e->refuse ? e->refuse : refuse_plain)(c, rc, msg);
	return 0;
}

int cli_run(cli_command cmd, const app_request *opts)
{
	if ((unsigned)cmd >= CLI_CMD__COUNT || !cli_commands[cmd].run) {
		app_errorf("internal error: no handler for command %d", cmd);
		return app_exit_code(PYRT_E_INTERNAL);
	}
	const cli_command_entry *e = &cli_commands[cmd];
	int status;
	if (e->tui && (status = e->tui(opts)) >= 0)
		return status;
	if (e->check && (status = e->check(opts)) != 0)
		return status;
	/* plugins without install NAME lists, which changes nothing. */
	if ((e->needs & CLI_DRY_RUN) && opts->dry_run &&
	    (cmd != CLI_CMD_PLUGINS || opts->npositional > 0))
		e = &cli_dry_run_entry;
	cli_ctx c = { .opts = opts, .cmd = cmd,
		      .name = e->name ? e->name : "pyrt" };
	if (e == &cli_dry_run_entry)
		c.name = opts->command_word;
	status = prepare(e, &c);
	if (status == 0)
		status = e->run(&c);
	app_front_free(c.front);
	pyrt_pins_free(c.pins);
	return status;
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
		cli_command c = argv[i][0] == '-' ? CLI_CMD__COUNT
						  : cli_command_lookup(argv[i]);
		if (c != CLI_CMD__COUNT)
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
		app_fix_table_print(stdout);
		return 0;
	}
#endif
	int rc = cli_args_parse(argc, argv, &opts, msg, sizeof msg);
	int status;
#ifdef PYRT_TEST_HOOKS
	/* e2e_command_table: what the parser says of a command line, with
	 * nothing run. */
	if (getenv("PYRT_TEST_PARSE_ONLY")) {
		printf("%s\n", rc < 0 ? msg : "ok");
		cli_args_clear(&opts);
		return rc < 0 ? app_exit_code(rc) : 0;
	}
#endif
	if (rc < 0) {
		app_errorf("%s", msg[0] ? msg : pyrt_strerror(rc));
		status = app_exit_code(rc);
		if (wants_json(argc, argv))
			cli_json_usage_result(typed_command(argc, argv),
					      msg[0] ? msg : pyrt_strerror(rc));
	} else if (opts.help) {
		cli_command cmd = cli_command_of(&opts);
		if (cmd != CLI_CMD_NONE && cmd != CLI_CMD_HELP)
			cli_help_command(cmd);
		else if (opts.help == 2)
			cli_help_short();
		else
			cli_help_manual();
		status = 0;
	} else if (opts.version) {
		status = cli_help_version(&opts, tui_curses_version());
	} else {
		status = cli_run(cli_command_of(&opts), &opts);
	}
	cli_args_clear(&opts);
	if (fflush(stdout) != 0 && status == 0)
		status = app_exit_code(PYRT_E_IO);
	return status;
}
