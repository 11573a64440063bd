/*
 * A printed fix is a command the user types as it stands: "pyrt install
 * --force" said to someone who ran `pyrt doctor --box-root /opt/agent
 * --pins P` must act on /opt/agent with P, not on ~/.local/share/pyrt with
 * the built-in pins.  So every fix line of every front (the CLI, the TUI,
 * doctor and its bundle, the API's "fix" fields, the exit-16 refusals) is
 * rendered here, once, repeating the box, pins and source options in
 * effect (as uv and cargo echo the flags given), each value quoted for a
 * POSIX shell.  core/ words a fix as the bare command ("pyrt baseline");
 * app/ knows the request it answers.
 */
#ifndef PYRT_APP_FIX_H
#define PYRT_APP_FIX_H

#include <stddef.h>

#include "app/args.h"

struct pyrt_doctor;
struct pyrt_plugins;
struct pyrt_status;

/**
 * The command cmd ("pyrt install --force", "pyrt plugins install cowork",
 * "sudo pyrt baseline") as the user should type it under req: cmd's own
 * words, then --box-root, --pins, --cacert and the source options of req
 * that cmd accepts (--mirror, --index-url, --wheelhouse, --requirements,
 * --from-file), each value shell-quoted.  A mirror or index URL is
 * repeated only when the command line gave it and it holds no userinfo or
 * query (one in PYRT_MIRROR_URL / PYRT_INDEX_URL stays in the
 * environment: it may carry credentials).  A sudo fix redoes req's own
 * command, so it keeps req's --force and --no-baseline too.  Text that
 * does not start with "pyrt " or "sudo pyrt " is copied as it is.
 */
void app_fix_render(const app_request *req, const char *cmd, char *buf,
		    size_t len);

/** msg with every command quoted in it ("run \"pyrt install\"") rendered
 * by app_fix_render; buf may not be msg. */
void app_fix_text(const app_request *req, const char *msg, char *buf,
		  size_t len);

/** app_fix_text on s itself, truncated to size. */
void app_fix_in_place(const app_request *req, char *s, size_t size);

/** A value quoted for a POSIX shell when it needs it ('it'\''s'). */
void app_fix_shell_quote(const char *value, char *buf, size_t len);

/** Render every check's fix and detail of d under req (doctor's every
 * surface, the bundle's doctor.json included, reads d). */
int app_fix_doctor(const app_request *req, struct pyrt_doctor *d);

/** Render every plugin's fix under req. */
int app_fix_plugins(const app_request *req, struct pyrt_plugins *p);

/** Render the commands in st's message and reasons under req. */
void app_fix_status(const app_request *req, struct pyrt_status *st);

#ifdef PYRT_TEST_HOOKS
#include <stdio.h>
/** e2e_command_table: "fix COMMAND OPTION 0|1", whether a fix for COMMAND
 *  repeats OPTION, for every pair; the parser must agree with each. */
void app_fix_table_print(FILE *out);
#endif

#endif
