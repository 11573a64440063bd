/*
 * The use cases that change which runtime the box has, as every front end
 * runs them: rollback (swap current and previous) and uninstall (remove the
 * managed runtime), each reported as one outcome whose words are the same
 * in the CLI, the TUI and any later front end.
 */
#ifndef PYRT_APP_BOX_H
#define PYRT_APP_BOX_H

#include <stdatomic.h>
#include <stddef.h>

#include "app/args.h"
#include "app/front.h"
#include "core/dist/pins.h"
#include "core/util/error.h"

/**
 * `pyrt rollback` (req: box root, --no-wait, --force; the pins and the
 * platform for the target's quick checks), then the outcome naming what is
 * active now.  Returns the pyrt_code.
 */
int app_rollback_execute(const app_request *req, const pyrt_pins *pins,
			 const char *platform_key, const app_front *front,
			 const atomic_int *cancel);

/**
 * The consent to a change of the box (rollback, uninstall), worded once
 * here as install's facts are (app/install.h): a front lays the rows out
 * as it can but never rewords them.  When there is nothing to ask, msg
 * says why (nothing to do, or the refusal) and, for a refusal, fix holds
 * the whole command to type instead (app_may_change).
 */
#define APP_BOX_FACTS 2
typedef struct app_box_consent {
	char question[128];   /* "Uninstall the managed Python runtime?" */
	char headline[128];   /* "pyrt is about to remove ...:" (the CLI) */
	const char *label[APP_BOX_FACTS];
	char value[APP_BOX_FACTS][4400];
	char msg[PYRT_ERROR_MSG_MAX + 1024];
	char fix[2048];
} app_box_consent;

/**
 * What a front asks before a rollback or an uninstall, asked in the order
 * apt asks it: may this user change the box (else a negative pyrt_code,
 * PYRT_E_READONLY for another user on root's shared box, with the refusal
 * and the fix), is there anything to do (else 0, why in msg), and only
 * then the question and its facts (1).
 */
int app_rollback_consent(const app_request *req, app_box_consent *c);
int app_uninstall_consent(const app_request *req, app_box_consent *c);

/**
 * Before an uninstall's consent: 1 when the box holds an install (what
 * will be removed, as consent lines, into consent), 0 when there is
 * nothing to remove (that outcome is reported), or a negative pyrt_code
 * (refusal reported).
 */
int app_uninstall_prepare(const app_request *req, const app_front *front,
			  char *consent, size_t len);

/**
 * "May this user change this box?", asked before any front asks its own
 * question: 0 when so; else the pyrt_code (PYRT_E_READONLY for another
 * user on root's shared box) with the refusal in msg and, in fix, the
 * whole command to type instead ("sudo pyrt install --box-root …"), both
 * rendered under req (app/fix.h).  command names the change as the CLI
 * spells it ("install", "baseline", "plugins install NAME").
 */
int app_may_change(const app_request *req, const char *command, char *msg,
		   size_t msglen, char *fix, size_t fixlen);

/** `pyrt uninstall` after the consent; one outcome; the pyrt_code. */
int app_uninstall_execute(const app_request *req, const app_front *front,
			  const atomic_int *cancel);

#endif
