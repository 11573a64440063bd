/*
 * The consent gate.  The question goes to stderr and the answer comes from
 * stdin, so both must be terminals: a script piping input must say --yes
 * explicitly rather than consent by accident.
 */
#include "cli/consent.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "app/text.h"
#include "cli/parse.h"
#include "cli/signals.h"
#include "core/util/error.h"

/* Only an explicit yes counts; empty, EOF and anything else is a no. */
static int is_yes(char *answer)
{
	char *p = answer;
	while (isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		p[--n] = '\0';
	return strcasecmp(p, "y") == 0 || strcasecmp(p, "yes") == 0;
}

int cli_consent(const app_request *opts, const char *block, const char *question,
		char *msg, size_t msglen)
{
	const char *cmd = cli_command_name(cli_command_of(opts));
	if (opts->yes)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		snprintf(msg, msglen,
			 "pyrt %s needs consent: run it on a terminal, or pass --yes to consent non-interactively",
			 cmd ? cmd : "");
		return PYRT_E_CONSENT;
	}
	app_text_puts(stderr, block); /* paths and URLs from the pins */
	app_text_printf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	char answer[64];
	char *got = fgets(answer, sizeof answer, stdin);
	if (cli_cancelled()) {
		snprintf(msg, msglen, "cancelled; nothing was changed");
		return PYRT_E_CANCELLED;
	}
	if (!got)
		fputc('\n', stderr);
	if (!got || !is_yes(answer)) {
		snprintf(msg, msglen, "consent refused; nothing was changed");
		return PYRT_E_CONSENT;
	}
	return 0;
}
