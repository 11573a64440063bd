/*
 * Everything the command line names, checked before anything is touched:
 * paths normalised (~ expanded, absolute, symlinks resolved as far as they
 * exist) and tested for what the command will do with them, URLs checked,
 * conflicting options refused.  A usage error found here has written
 * nothing: no box, no lock, no log.
 */
#ifndef PYRT_CLI_VALIDATE_H
#define PYRT_CLI_VALIDATE_H

#include <stddef.h>

#include "app/args.h"
#include "core/util/fs.h"

/**
 * given as pyrt shows and uses it: "~" and "~/..." expanded from HOME
 * ("~user" refused), made absolute, resolved (pyrt_fs_resolve).  *out is
 * malloc'd.  Returns 0 or PYRT_E_USAGE / PYRT_E_NOMEM with msg naming opt.
 */
int cli_path_normalise(const char *given, const char *opt, char **out,
		       char *msg, size_t msglen);

/**
 * cli_path_normalise for a path that decides what runs: walked as typed
 * by pyrt_trust_path (trust.h), so a link or folder someone else controls
 * is refused (PYRT_E_UNTRUSTED, msg naming it, its owner and the fix).
 */
int cli_path_normalise_trusted(const char *given, const char *opt,
			       char **out, char *msg, size_t msglen);

/** cli_path_normalise_trusted keeping its walk's record in *seen (for a
 *  second walk of *out to judge, core/util/trust.h). */
int cli_path_normalise_trusted_seen(const char *given, const char *opt,
				    pyrt_fs_seen *seen, char **out,
				    char *msg, size_t msglen);

/** Normalise every path option and check every path, URL and
 * combination for opts->command.  0 or PYRT_E_USAGE with msg. */
int cli_args_validate(app_request *opts, char *msg, size_t msglen);

/**
 * The candidate closest to word (edit distance at most 2, and less than
 * its length), or NULL: for "did you mean".  candidates ends with NULL.
 */
const char *cli_suggest(const char *word, size_t len,
			const char *const *candidates);

#endif
