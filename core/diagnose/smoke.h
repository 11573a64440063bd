/*
 * The ADR's acceptance test: the managed interpreter writes a real .docx
 * with python-docx in a private 0700 workspace (scrubbed env, timeout), and
 * pyrt opens it with libarchive and checks that word/document.xml holds the
 * known paragraph.
 */
#ifndef PYRT_SMOKE_H
#define PYRT_SMOKE_H

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "core/util/events.h"

typedef struct pyrt_smoke_result {
	char paragraph[128];   /**< the text written and found */
	char docx_path[4096];  /**< where the checked document was copied, "" */
	unsigned long long docx_bytes;
	double seconds;
} pyrt_smoke_result;

/**
 * Run the smoke test.  out_path: where to copy the .docx (NULL: not kept).
 * Returns 0, PYRT_E_NOT_READY (no runtime, or python-docx missing: the
 * message names the fix), PYRT_E_INTERPRETER (the script failed: its last
 * output line), PYRT_E_VERIFY (the document does not hold the paragraph),
 * PYRT_E_IO, PYRT_E_CANCELLED.  box is the caller's (app_smoke_run opens
 * it once).
 */
int pyrt_smoke_run(const pyrt_box *box, const pyrt_pins *pins,
		   const char *out_path, const pyrt_events *ev,
		   pyrt_smoke_result *result, pyrt_error *err);

#endif
