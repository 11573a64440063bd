/*
 * What a front end asks a use case for (app_request): the command's word and
 * every option with where its value came from (flag, environment or
 * default).  The CLI fills it from the command line (the parsing is
 * cli/parse.h's) and the TUI runs with it; serve builds one per job from
 * the fields the server chose, never copying its own command line.
 */
#ifndef PYRT_APP_ARGS_H
#define PYRT_APP_ARGS_H

#include <stddef.h>

#define APP_MAX_POSITIONAL 8
#define APP_OWNED_MAX 14
#define APP_MAX_PLATFORMS 16

typedef struct app_request {
	/* The use case, as the CLI spells the command that asks for it
	 * ("install", "plugins"); NULL: none named (the dashboard, status).
	 * app/ words fixes and plans with it; which commands exist and their
	 * table are the CLI's (cli/commands.h). */
	const char *command_word;
	const char *positional[APP_MAX_POSITIONAL];
	size_t npositional;

	/* global */
	char *box_root;             /* absolute; malloc'd */
	const char *box_root_from;  /* "--box-root", "PYRT_BOX_ROOT", "default" */
	const char *pins_path;      /* NULL: builtin */
	const char *pins_from;
	const char *cacert;         /* NULL: system CAs */
	const char *cacert_from;
	int json;
	int yes;
	int no_color;
	const char *theme;
	int verbose;
	int quiet;
	int help;                   /* 1: --help (the manual), 2: -h (short) */
	int version;

	/* install */
	const char *wheelhouse;
	const char *requirements;
	const char *from_file;
	const char *mirror;         /* --mirror / PYRT_MIRROR_URL */
	const char *mirror_from;
	const char *index_url;      /* --index-url / PYRT_INDEX_URL: pip's index */
	const char *index_url_from;
	int no_baseline;
	int no_wait;
	int force;
	int dry_run;                /* --dry-run: say what, change nothing */

	/* status */
	int deep;
	const char *format;         /* --format prometheus: metrics text */

	/* smoke, lock */
	const char *out;            /* --out FILE: the .docx; the locked pins */

	/* mirror: DIR is positional[0] */
	const char *platforms[APP_MAX_PLATFORMS]; /* --platform KEY, repeatable */
	size_t nplatforms;
	const char *wheelhouse_from; /* --wheelhouse-from DIR */
	int mirror_verify;          /* --verify */

	/* doctor */
	const char *bundle;         /* --bundle FILE: support bundle; "-": stdout */

	/* serve */
	const char *listen;         /* --listen unix:PATH | HOST:PORT */
	const char *token_file;     /* --token-file FILE */

	/* the normalised copies of path options the fields above point at */
	char *owned[APP_OWNED_MAX];
	size_t nowned;
	/* What the CLI's walk of pins_path lstat()ed of its folders (or
	 * NULL; core/util/fs.h): the pins loader judges those instead of
	 * walking the same path a second time.  Taken when the command line
	 * is parsed, so only for the load every front makes right after
	 * (cli, tui and serve start-up); owned by the CLI. */
	struct pyrt_fs_seen *pins_seen;
	/* The same for box_root: pyrt status opens the box judging it. */
	struct pyrt_fs_seen *box_seen;
} app_request;

#endif
