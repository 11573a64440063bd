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

int app_may_change(const app_request *req, const char *command, char *msg,
		   size_t msglen, char *fix, size_t fixlen)
{
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	int rc = pyrt_box_open(&box, req->box_root, 0, &err);
	if (!rc)
		rc = pyrt_box_check_change(box, command, &err);
	pyrt_box_free(box);
	msg[0] = fix[0] = '\0';
	if (!rc)
		return 0;
	app_fix_text(req, err.msg, msg, msglen);
	if (rc == PYRT_E_READONLY) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "sudo pyrt %s", command);
		app_fix_render(req, cmd, fix, fixlen);
	}
	return rc;
}

int app_uninstall_prepare(const app_request *req, const app_front *front,
			  char *consent, size_t len)
{
	pyrt_box *box = NULL;
	pyrt_error err = PYRT_ERROR_INIT;
	char msg[PYRT_ERROR_MSG_MAX + 512], fixed[PYRT_ERROR_MSG_MAX + 1024];
	int rc = pyrt_box_open(&box, req->box_root, 0, &err);
	/* Another user of root's box is told before being asked. */
	if (!rc)
		rc = pyrt_box_check_change(box, "uninstall", &err);
	app_outcome o = { .command = "uninstall", .code = rc };
	if (rc < 0) {
		app_fix_text(req, err.msg, fixed, sizeof fixed);
		o.error = fixed;
		o.before_start = 1;
	} else if (!has_install(box)) {
		snprintf(msg, sizeof msg,
			 "nothing to uninstall: no runtime is installed under %s",
			 pyrt_box_runtime_dir(box));
		o.summary = msg;
	} else {
		snprintf(consent, len,
			 "  remove:       %s/{current,previous,installs,staging,downloads}\n"
			 "  effect:       tools that need the managed runtime stop working until \"pyrt install\"\n",
			 pyrt_box_runtime_dir(box));
		pyrt_box_free(box);
		return 1;
	}
	app_front_result(front, &o);
	pyrt_box_free(box);
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
