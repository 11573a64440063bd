/*
 * Redaction of secrets from text that is stored or shown: URL userinfo and
 * query values, key=value and key: value secrets, Authorization headers,
 * "--password x" options, and tokens recognisable by their prefix (GitHub,
 * GitLab, Slack, AWS access keys).  Pure functions, no state.
 */
#ifndef PYRT_REDACT_H
#define PYRT_REDACT_H

#include <stddef.h>

/**
 * A URL as pyrt stores and prints it: no userinfo, every query value
 * replaced by "***", no fragment; whatever the path holds that looks like a
 * token is redacted too.  Text that is not scheme://... is redacted as free
 * text (pyrt_redact).  out always ends in NUL; a URL longer than out is cut,
 * never a secret shown.
 */
void pyrt_redact_url(const char *url, char *out, size_t len);

/** Redact secrets in one line of free text, in place (it only shrinks). */
void pyrt_redact(char *text);

/** A malloc'd copy of len bytes of text, redacted line by line; its length
 * into *out_len.  NULL when out of memory. */
char *pyrt_redact_lines(const char *text, size_t len, size_t *out_len);

/**
 * A malloc'd copy of one line of text in which the path and query of each
 * known URL (an index or mirror URL pyrt was given: hosted indexes put a
 * token in the path) are hidden: wherever the URL's host is followed by its
 * path and query (with or without the scheme and userinfo, pip's
 * "user:****@" included, the path also percent-decoded, also cut short by
 * the end of the line) it becomes "scheme://host" and three stars after a
 * '/', and the path alone at the start of a word ("url: /TOKEN/simple/x/")
 * becomes a '/' and three stars.  A URL
 * without a path or query, or that is not scheme://..., hides nothing.
 * Userinfo is left to pyrt_redact.  NULL when out of memory.
 */
char *pyrt_redact_known_urls(const char *text, const char *const *urls,
			     size_t count);

#endif
