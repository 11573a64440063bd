/*
 * doctor's options composed once for every front end (see doctor.h).
 */
#include "app/doctor.h"

#include <stdlib.h>
#include <string.h>

#include "app/common.h"
#include "app/fix.h"

/* A machine meant to be offline waits on no DNS and shows no network
 * failures it already knows about. */
static int network_wanted(void)
{
	const char *offline = getenv("PYRT_DOCTOR_OFFLINE");
	return !(offline && *offline && strcmp(offline, "0"));
}

/* Where the package source doctor checks came from, for its detail. */
static const char *source_from(const app_request *given,
			       const app_request *used)
{
	if (used != given)
		return "the box's declared source";
	const char *env = getenv("PYRT_WHEELHOUSE");
	if (used->wheelhouse)
		return env && !strcmp(env, used->wheelhouse)
			? "PYRT_WHEELHOUSE" : "--wheelhouse";
	return used->index_url_from;
}

/* The checks on the open box, with req's options. */
static int doctor_on(const app_request *req, const app_request *given,
		     const pyrt_box *box, const pyrt_pins *pins,
		     const char *platform_key, const pyrt_events *ev,
		     pyrt_doctor **out, pyrt_error *err)
{
	pyrt_doctor_opts dopts = PYRT_DOCTOR_OPTS_INIT;
	dopts.box = box;
	dopts.pins = pins;
	dopts.platform_key = platform_key;
	dopts.cacert = app_cacert(req);
	dopts.network = network_wanted();
	dopts.mirror = req->mirror;
	dopts.index_url = req->index_url;
	dopts.wheelhouse = req->wheelhouse;
	dopts.source_from = source_from(given, req);
	return pyrt_doctor_run(out, &dopts, ev, err);
}

int app_doctor_run(const app_request *given, const pyrt_pins *pins,
		   const char *platform_key, const pyrt_events *ev,
		   pyrt_doctor **out, pyrt_error *err)
{
	/* A box that remembers its source (declared.json) is checked
	 * against it: a wheelhouse box on disk, not against pip's default
	 * index it never reaches. */
	app_request copy;
	char buf[4096];
	const app_request *req = app_with_source(given, &copy, buf, sizeof buf);
	/* The box, opened once here (the trust gate); a root it refuses is
	 * doctor's one finding, not an error. */
	pyrt_error berr = PYRT_ERROR_INIT;
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, req->box_root, 0, &berr);
	if (rc == PYRT_E_UNTRUSTED)
		rc = pyrt_doctor_refused(out, req->box_root, &berr, err);
	else if (rc)
		return pyrt_error_set(err, rc, "%s", berr.msg);
	else
		rc = doctor_on(req, given, box, pins, platform_key, ev, out,
			       err);
	pyrt_box_free(box);
	if (rc == 0 && app_fix_doctor(given, *out)) {
		pyrt_doctor_free(*out);
		*out = NULL;
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	return rc;
}

int app_smoke_run(const app_request *req, const pyrt_pins *pins,
		  const char *out_path, const pyrt_events *ev,
		  pyrt_smoke_result *result, pyrt_error *err)
{
	memset(result, 0, sizeof *result);
	pyrt_box *box = NULL;
	int rc = pyrt_box_open(&box, req->box_root, 0, err);
	if (!rc)
		rc = pyrt_smoke_run(box, pins, out_path, ev, result, err);
	pyrt_box_free(box);
	return rc;
}
