/*
 * What pyrt lets pip install: a PEP 508 requirement made of a name, optional
 * [extras], optional version specifiers and optional "; markers" — nothing
 * else.  Every requirement string (pins.yaml's baseline, --requirements
 * lines, a plugin's requires_pip) passes this check before pip sees it, so
 * none can be a pip option (--log=FILE, -r FILE, --index-url), a direct
 * reference ("name @ URL"), a URL, a path or a file name pip would install
 * from (x.whl, x.tar.gz).
 */
#ifndef PYRT_REQUIREMENT_H
#define PYRT_REQUIREMENT_H

#include <stddef.h>

/** Longest requirement accepted, in bytes. */
#define PYRT_REQUIREMENT_MAX 256

/** The rule, for messages that refuse a requirement. */
#define PYRT_REQUIREMENT_RULE \
	"a requirement is a PEP 508 name with optional [extras], version " \
	"specifiers and \"; markers\", never a pip option, a path, a URL or " \
	"\"name @ URL\""

/**
 * 0 when req is a PEP 508 requirement pyrt passes to pip; -1 otherwise,
 * with why filled as "\"<req, control bytes shown as ?>\" is <what>; <rule>"
 * (why may be NULL).
 */
int pyrt_requirement_check(const char *req, char *why, size_t whylen);

/**
 * A project name's normal form, the one every comparison of names uses:
 * ASCII letters lowercased, every run of '-', '_' and '.' one sep ('-':
 * PEP 503, as pip and an index compare; '_': as importlib names a
 * dist-info).  The n bytes of s go to out (room for n + 1), other bytes
 * as they are.  Returns 0, or -1 when s holds a byte above 0x7f (Python
 * would lowercase it: a caller that must agree with Python refuses it).
 */
int pyrt_name_normalize(const char *s, size_t n, char sep, char *out);

#endif
