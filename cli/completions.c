/*
 * `pyrt completions bash|zsh|fish`: the shell completion, its words read
 * off the command table (cli/commands.c) and the option table
 * (cli/parse.c), so a command or option added there is completed with no
 * second list to keep in step.  What a shell does with the words (plugin
 * names from the box, theme names, files after --pins) is shell code kept
 * in dist/completion/pyrt-body.*, embedded at build time (cli/completions.h).
 */
#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/exitcodes.h"
#include "cli/commands.h"
#include "cli/completions.h"
#include "cli/parse.h"
#include "core/util/error.h"

/* What an option's value is, for the shell: file, dir, theme or text;
 * "none" for a flag. */
static const char *value_kind(const cli_opt_row *r)
{
	if (!r->metavar)
		return "none";
	if (strcmp(r->name, "theme") == 0)
		return "theme";
	switch (r->path) {
	case CLI_PATH_GATED: case CLI_PATH_HASHED: case CLI_PATH_WRITTEN:
	case CLI_PATH_SECRET:
		return "file";
	case CLI_PATH_GATED_DIR: case CLI_PATH_BOX:
		return "dir";
	case CLI_PATH_UNDECLARED: case CLI_PATH_NONE: case CLI_PATH_SOCKET:
		break;
	}
	return "text";
}

/* Every command word, in the table's order, space separated. */
static void print_commands(FILE *f)
{
	for (int c = 1; c < CLI_CMD__COUNT; c++)
		fprintf(f, "%s%s", c > 1 ? " " : "", cli_commands[c].name);
}

/* The global options ("-y --yes"), space separated. */
static void print_global_opts(FILE *f)
{
	int first = 1;
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (!r.every_command)
			continue;
		if (r.short_name)
			fprintf(f, "%s-%c", first ? "" : " ", r.short_name);
		fprintf(f, "%s--%s", first && !r.short_name ? "" : " ", r.name);
		first = 0;
	}
}

/* cmd's own options, space separated. */
static void print_command_opts(FILE *f, cli_command cmd)
{
	int first = 1;
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (!cli_opt_for_command(i, cmd))
			continue;
		fprintf(f, "%s--%s", first ? "" : " ", r.name);
		first = 0;
	}
}

static void bash(FILE *f)
{
	fputs("# bash completion for pyrt(1), printed by `pyrt completions bash`\n"
	      "# from its command and option tables: do not edit, regenerate.\n",
	      f);
	fputs("_pyrt_commands=\"", f);
	print_commands(f);
	fputs("\"\n_pyrt_global_opts=\"", f);
	print_global_opts(f);
	fputs("\"\n\n# The options one command takes besides the global ones.\n"
	      "_pyrt_command_opts() {\n  case $1 in\n", f);
	for (int c = 0; c < CLI_CMD__COUNT; c++) {
		fprintf(f, "    %s) REPLY=\"", c ? cli_commands[c].name : "\"\"");
		print_command_opts(f, (cli_command)c);
		fputs("\" ;;\n", f);
	}
	fputs("    *) REPLY=\"\" ;;\n  esac\n}\n\n"
	      "# What kind of value an option takes: file, dir, theme, text; none for a flag.\n"
	      "_pyrt_value_kind() {\n  case $1 in\n", f);
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (r.metavar)
			fprintf(f, "    --%s) REPLY=%s ;;\n", r.name, value_kind(&r));
	}
	fputs("    *) REPLY=none ;;\n  esac\n}\n\n", f);
	fwrite(cli_completion_bash, 1, cli_completion_bash_size - 1, f);
}

static void zsh(FILE *f)
{
	fputs("#compdef pyrt\n"
	      "# zsh completion for pyrt(1), printed by `pyrt completions zsh`\n"
	      "# from its command and option tables: do not edit, regenerate.\n",
	      f);
	fputs("typeset -ga _pyrt_cmds _pyrt_global_opts\n_pyrt_cmds=(", f);
	print_commands(f);
	fputs(")\n_pyrt_global_opts=(", f);
	print_global_opts(f);
	fputs(")\n# The options one command takes besides the global ones;\n"
	      "# \"none\" is pyrt without a command (the wizard and dashboard).\n"
	      "typeset -gA _pyrt_command_opts _pyrt_value_kind _pyrt_value_help\n"
	      "_pyrt_command_opts=(\n", f);
	for (int c = 0; c < CLI_CMD__COUNT; c++) {
		fprintf(f, "  %s '", c ? cli_commands[c].name : "none");
		print_command_opts(f, (cli_command)c);
		fputs("'\n", f);
	}
	fputs(")\n_pyrt_value_kind=(\n", f);
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (r.metavar)
			fprintf(f, "  --%s %s\n", r.name, value_kind(&r));
	}
	fputs(")\n_pyrt_value_help=(\n", f);
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (r.metavar)
			fprintf(f, "  --%s %s\n", r.name, r.metavar);
	}
	fputs(")\ntypeset -g _pyrt_value_opts='", f);
	int first = 1;
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (!r.metavar)
			continue;
		fprintf(f, "%s--%s", first ? "" : "|", r.name);
		first = 0;
	}
	fputs("'\n\n", f);
	fwrite(cli_completion_zsh, 1, cli_completion_zsh_size - 1, f);
}

/* One fish `complete` line for option row r under condition cond. */
static void fish_opt(FILE *f, const cli_opt_row *r, const char *cond)
{
	const char *kind = value_kind(r);
	fprintf(f, "complete -c pyrt");
	if (cond)
		fprintf(f, " -n '%s'", cond);
	if (r->short_name)
		fprintf(f, " -s %c", r->short_name);
	fprintf(f, " -l %s", r->name);
	if (strcmp(kind, "file") == 0)
		fputs(" -r -F", f);
	else if (strcmp(kind, "dir") == 0)
		fputs(" -r -f -a '(__fish_complete_directories)'", f);
	else if (strcmp(kind, "theme") == 0)
		fputs(" -r -f -a '(__pyrt_themes)'", f);
	else if (r->metavar)
		fprintf(f, " -r -f -d %s", r->metavar);
	fputc('\n', f);
}

static void fish(FILE *f)
{
	fputs("# fish completion for pyrt(1), printed by `pyrt completions fish`\n"
	      "# from its command and option tables: do not edit, regenerate.\n"
	      "complete -c pyrt -f\n", f);
	fwrite(cli_completion_fish, 1, cli_completion_fish_size - 1, f);
	for (int c = 1; c < CLI_CMD__COUNT; c++)
		fprintf(f, "complete -c pyrt -n __fish_use_subcommand -a %s -d '%s'\n",
			cli_commands[c].name,
			cli_commands[c].summary ? cli_commands[c].summary : "");
	fputs("complete -c pyrt -n '__fish_seen_subcommand_from help' -a '", f);
	print_commands(f);
	fputs("'\n", f);
	for (size_t i = 0; i < cli_opt_count(); i++) {
		cli_opt_row r;
		cli_opt_at(i, &r);
		if (r.every_command) {
			fish_opt(f, &r, NULL);
			continue;
		}
		for (int c = 0; c < CLI_CMD__COUNT; c++) {
			char cond[160];
			if (!cli_opt_for_command(i, (cli_command)c))
				continue;
			if (c == 0)
				snprintf(cond, sizeof cond, "__fish_use_subcommand");
			else
				snprintf(cond, sizeof cond,
					 "__fish_seen_subcommand_from %s",
					 cli_commands[c].name);
			fish_opt(f, &r, cond);
		}
	}
}

int cli_cmd_completions(const cli_ctx *ctx)
{
	const app_request *opts = ctx->opts;
	const char *shell = opts->npositional ? opts->positional[0] : NULL;
	if (!shell) {
		app_errorf("pyrt completions: which shell? bash, zsh or fish (e.g. pyrt completions bash)");
		return APP_EXIT_USAGE;
	}
	if (strcmp(shell, "bash") == 0)
		bash(stdout);
	else if (strcmp(shell, "zsh") == 0)
		zsh(stdout);
	else if (strcmp(shell, "fish") == 0)
		fish(stdout);
	else {
		app_errorf("pyrt completions: unknown shell '%s'; bash, zsh or fish",
			   shell);
		return APP_EXIT_USAGE;
	}
	return 0;
}
