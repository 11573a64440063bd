/*
 * Asking before changing the machine: --yes, or a y/N question on the
 * terminal, or a refusal that tells the user how to consent.
 */
#ifndef PYRT_CLI_CONSENT_H
#define PYRT_CLI_CONSENT_H

#include <stddef.h>

#include "app/args.h"

/**
 * Returns 0 when consent is given (--yes, or "y"/"yes" typed), PYRT_E_CONSENT
 * when refused or when there is no terminal to ask on, PYRT_E_CANCELLED when
 * a signal interrupted the question.  block is printed to stderr before the
 * question.  msg receives the one-line reason on failure.
 */
int cli_consent(const app_request *opts, const char *block, const char *question,
		char *msg, size_t msglen);

#endif
