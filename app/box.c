/*
 * rollback and uninstall → one outcome, for every front end.
 */
#include "app/box.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/common.h"
#include "app/fix.h"
#include "core/runtime/box.h"
#include "core/runtime/install.h"
#include "core/runtime/marker.h"
#include "core/util/error.h"

/* After a rollback: name what is active now, from its marker. */
static void rollback_summary(const pyrt_box *box, char *buf, size_t len)
{
	snprintf(buf, len, "rolled back: the previous runtime is active again");
	char *real = realpath(pyrt_box_current(box), NULL);
	char *marker_path = NULL;
	/* current → installs/<id>/python; the marker sits in installs/<id>. */
	char *slash = real ? strrchr(real, '/') : NULL;
	if (slash) {
		*slash = '\0';
		if (asprintf(&marker_path, "%s/marker.json", real) < 0)
			marker_path = NULL;
	}
	pyrt_marker m;
	if (marker_path && pyrt_marker_read(marker_path, &m, NULL) == 0)
		snprintf(buf, len, "rolled back to %s %s (build %s) at %s",
			 strcmp(m.implementation, "cpython") == 0
				 ? "CPython" : m.implementation,
			 m.version, m.build, pyrt_box_current(box));
	free(marker_path);
	free(real);
}

/* The box is opened once here and handed to core, which opens nothing. */
int app_rollback_execute(const app_request *req, const pyrt_pins *pins,
			 const char *platform_key, const app_front *front,
			 const atomic_int *cancel)
{
	pyrt_events ev = app_front_events(front, cancel);
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_install_opts io = PYRT_INSTALL_OPTS_INIT;
	io.pins = pins;
	io.platform_key = platform_key;
	io.no_wait = req->no_wait;
	io.force = req->force;
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, req->box_root, 0, &err);
	if (!rc)
		rc = pyrt_install_rollback(box, &io, &ev, &err);
	char summary[8192], fixed[PYRT_ERROR_MSG_MAX + 1024];
	app_outcome o = { .command = "rollback", .code = rc };
	if (rc == 0) {
		rollback_summary(box, summary, sizeof summary);
		o.summary = summary;
	} else {
		app_fix_text(req, err.msg[0] ? err.msg : pyrt_strerror(rc),
			     fixed, sizeof fixed);
		o.error = fixed;
		o.unchanged = "the active runtime was not changed";
	}
	pyrt_box_free(box);
	app_front_result(front, &o);
	return rc;
}

/* Whether the box holds an install: current, previous, or anything in
 * installs/ (a box with only a lock and logs has nothing to remove). */
static int has_install(const pyrt_box *box)
{
	struct stat st;
	if (lstat(pyrt_box_current(box), &st) == 0 ||
	    lstat(pyrt_box_previous(box), &st) == 0)
		return 1;
	DIR *d = opendir(pyrt_box_installs_dir(box));
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d)))
		found = strcmp(de->d_name, ".") != 0 &&
			strcmp(de->d_name, "..") != 0;
	closedir(d);
	return found;
}

/* The refusal of a change into msg (rendered under req) and, when it is
 * the shared box's, the whole sudo command into fix. */
static int refusal(const app_request *req, const char *command, int rc,
		   const pyrt_error *err, char *msg, size_t msglen, char *fix,
		   size_t fixlen)
{
	app_fix_text(req, err->msg[0] ? err->msg : pyrt_strerror(rc), msg,
		     msglen);
	if (rc == PYRT_E_READONLY) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "sudo pyrt %s", command);
		app_fix_render(req, cmd, fix, fixlen);
	}
	return rc;
}

/* The box opened for a change of it, or the refusal (app_may_change). */
static int open_for_change(const app_request *req, const char *command,
			   pyrt_box **box, char *msg, size_t msglen,
			   char *fix, size_t fixlen)
{
	pyrt_error err = PYRT_ERROR_INIT;
	msg[0] = fix[0] = '\0';
	*box = NULL;
	int rc = pyrt_box_open(box, req->box_root, 0, &err);
	if (!rc)
		rc = pyrt_box_check_change(*box, command, &err);
	if (!rc)
		return 0;
	pyrt_box_free(*box);
	*box = NULL;
	return refusal(req, command, rc, &err, msg, msglen, fix, fixlen);
}

int app_may_change(const app_request *req, const char *command, char *msg,
		   size_t msglen, char *fix, size_t fixlen)
{
	pyrt_box *box = NULL;
	int rc = open_for_change(req, command, &box, msg, msglen, fix, fixlen);
	pyrt_box_free(box);
	return rc;
}

int app_uninstall_consent(const app_request *req, app_box_consent *c)
{
	pyrt_box *box = NULL;
	memset(c, 0, sizeof *c);
	int rc = open_for_change(req, "uninstall", &box, c->msg,
				 sizeof c->msg, c->fix, sizeof c->fix);
	if (rc < 0)
		return rc;
	if (!has_install(box)) {
		snprintf(c->msg, sizeof c->msg,
			 "nothing to uninstall: no runtime is installed under %s",
			 pyrt_box_runtime_dir(box));
		pyrt_box_free(box);
		return 0;
	}
	snprintf(c->question, sizeof c->question,
		 "Uninstall the managed Python runtime?");
	snprintf(c->headline, sizeof c->headline,
		 "pyrt is about to remove the managed Python runtime:");
	c->label[0] = "remove";
	snprintf(c->value[0], sizeof c->value[0],
		 "%s/{current,previous,installs,staging,downloads}",
		 pyrt_box_runtime_dir(box));
	c->label[1] = "effect";
	app_fix_text(req, "tools that need the managed runtime stop working until \"pyrt install\"",
		     c->value[1], sizeof c->value[1]);
	pyrt_box_free(box);
	return 1;
}

int app_rollback_consent(const app_request *req, app_box_consent *c)
{
	pyrt_box *box = NULL;
	memset(c, 0, sizeof *c);
	int rc = open_for_change(req, "rollback", &box, c->msg,
				 sizeof c->msg, c->fix, sizeof c->fix);
	if (rc < 0)
		return rc;
	rc = pyrt_box_link_install(box, pyrt_box_previous(box), c->value[0],
				   sizeof c->value[0], NULL);
	if (rc == 0 && pyrt_box_link_install(box, pyrt_box_current(box),
					     c->value[1], sizeof c->value[1],
					     NULL) != 0)
		snprintf(c->value[1], sizeof c->value[1], "none");
	pyrt_box_free(box);
	if (rc != 0) {
		snprintf(c->msg, sizeof c->msg,
			 "nothing to roll back to: no previous runtime is kept");
		c->value[0][0] = '\0';
		return 0;
	}
	snprintf(c->question, sizeof c->question,
		 "Roll back to the previous runtime?");
	snprintf(c->headline, sizeof c->headline,
		 "pyrt is about to make the previous runtime active again:");
	c->label[0] = "active again";
	c->label[1] = "kept as the rollback target";
	return 1;
}

int app_uninstall_prepare(const app_request *req, const app_front *front,
			  char *consent, size_t len)
{
	app_box_consent *c = calloc(1, sizeof *c);
	if (!c) {
		app_outcome o = { .command = "uninstall", .code = PYRT_E_NOMEM,
				  .error = "out of memory", .before_start = 1 };
		app_front_result(front, &o);
		return PYRT_E_NOMEM;
	}
	int rc = app_uninstall_consent(req, c);
	app_outcome o = { .command = "uninstall", .code = rc < 0 ? rc : 0 };
	if (rc == 1) {
		size_t used = 0;
		consent[0] = '\0';
		for (int i = 0; i < APP_BOX_FACTS; i++) {
			int n = snprintf(consent + used, len - used,
					 "  %s:%*s%s\n", c->label[i],
					 13 - (int)strlen(c->label[i]), "",
					 c->value[i]);
			if (n < 0 || (size_t)n >= len - used)
				break;
			used += (size_t)n;
		}
		free(c);
		return 1;
	}
	if (rc < 0) {
		o.error = c->msg;
		o.before_start = 1;
	} else {
		o.summary = c->msg;
	}
	app_front_result(front, &o);
	free(c);
	return rc;
}

int app_uninstall_execute(const app_request *req, const app_front *front,
			  const atomic_int *cancel)
{
	pyrt_events ev = app_front_events(front, cancel);
	pyrt_error err = PYRT_ERROR_INIT;
	char msg[PYRT_ERROR_MSG_MAX + 512];
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, req->box_root, 0, &err);
	if (rc == 0) {
		snprintf(msg, sizeof msg, "uninstalled the managed runtime from %s",
			 pyrt_box_runtime_dir(box));
		rc = pyrt_install_uninstall(box, req->no_wait, &ev, &err);
	}
	pyrt_box_free(box);
	app_outcome o = { .command = "uninstall", .code = rc };
	char fixed[PYRT_ERROR_MSG_MAX + 1024];
	if (rc == 0) {
		o.summary = msg;
	} else {
		app_fix_text(req, err.msg[0] ? err.msg : pyrt_strerror(rc),
			     fixed, sizeof fixed);
		o.error = fixed;
	}
	app_front_result(front, &o);
	return rc;
}
