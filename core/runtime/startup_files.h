/*
 * Start-up files nobody vouches for.  sitecustomize, usercustomize and
 * every *.pth in a site folder run at each interpreter start, as whoever
 * starts it (root, for pip and doctor): one added behind pyrt's back is
 * code run on every use of the runtime.  The archive's manifest vouches
 * for what the archive shipped and a distribution's RECORD for what pip
 * installed; anything else of those names is a finding.
 */
#ifndef PYRT_STARTUP_FILES_H
#define PYRT_STARTUP_FILES_H

#include "core/dist/manifest.h"
#include "core/runtime/marker.h"
#include "core/util/error.h"

/**
 * Look in the folders of the install's search path (marker's search_path,
 * as its interpreter reported it; without one, python/lib/python3.* with
 * its lib-dynload and site-packages) for sitecustomize / usercustomize
 * (module or package) and, in site folders (*-packages), *.pth files that
 * neither m nor a RECORD of a *.dist-info in that folder lists.  Calls
 * on_problem once per such file (path relative to install_dir); returns
 * how many, or a negative pyrt_code when the look could not run.
 */
int pyrt_startup_files_check(pyrt_manifest *m, const pyrt_marker *marker,
			     const char *install_dir,
			     void (*on_problem)(const char *path,
						const char *what,
						void *payload),
			     void *payload, pyrt_error *err);

#endif
