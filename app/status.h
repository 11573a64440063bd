/*
 * The status use case as every front end asks it: open the box the
 * request names, read its status with core, close it.  A box root the
 * trust gate refuses is an answer (state "untrusted"), not a failure, so
 * `pyrt status`, the API and the TUI say the same about it.
 */
#ifndef PYRT_APP_STATUS_H
#define PYRT_APP_STATUS_H

#include "core/dist/pins.h"
#include "core/runtime/status.h"
#include "core/util/error.h"

/** pyrt_status_read on the box at box_root (cache NULL: no memo; a
 *  long-running reader passes its own).  Returns 0 when a status was
 *  computed, whatever the state. */
int app_status_read(const char *box_root, const pyrt_pins *pins,
		    const char *platform_key, int deep,
		    pyrt_status_cache *cache, pyrt_status *out,
		    pyrt_error *err);

/** app_status_read with the box's own memo for one read (pyrt status,
 *  pyrt plugins, the TUI's refresh). */
int app_status_read_memo(const char *box_root, const pyrt_pins *pins,
			 const char *platform_key, int deep,
			 pyrt_status *out, pyrt_error *err);

struct pyrt_fs_seen;
/** app_status_read_memo for a one-shot command whose front end just
 *  walked box_root: that walk's record (app_request.box_seen) stands in
 *  for the box's own walk (pyrt_box_open_seen). */
int app_status_read_memo_seen(const char *box_root,
			      const struct pyrt_fs_seen *walked,
			      const pyrt_pins *pins, const char *platform_key,
			      int deep, pyrt_status *out, pyrt_error *err);

#endif
