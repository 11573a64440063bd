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

int app_doctor_run(const app_request *req, const pyrt_pins *pins,
		   const char *platform_key, const pyrt_events *ev,
		   pyrt_doctor **out, pyrt_error *err)
{
	pyrt_doctor_opts dopts = PYRT_DOCTOR_OPTS_INIT;
	dopts.box_root = req->box_root;
	dopts.pins = pins;
	dopts.platform_key = platform_key;
	dopts.cacert = app_cacert(req);
	dopts.network = network_wanted();
	dopts.mirror = req->mirror;
	dopts.index_url = req->index_url;
	int rc = pyrt_doctor_run(out, &dopts, ev, err);
	if (rc == 0 && app_fix_doctor(req, *out)) {
		pyrt_doctor_free(*out);
		*out = NULL;
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	return rc;
}
