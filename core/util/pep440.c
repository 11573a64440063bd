/*
 * A PEP 440 subset decided in C (see pep440.h).  Whatever it does not
 * recognise it answers -1, so the caller asks pip's packaging instead: the
 * cost of a refusal is one interpreter start, the cost of a wrong "yes" is
 * a plugin shown ready that is not.
 */
#include "core/util/pep440.h"

#include <string.h>

#define RELEASE_MAX 32      /* components compared */
#define COMPONENT_DIGITS 9  /* fits an unsigned 32-bit value */

typedef struct release {
	unsigned long part[RELEASE_MAX];
	size_t n;
} release;

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* Digits and dots at *s into r; *s moves past them.  0, or -1 when they
 * are not a release this module compares (empty component, leading zero,
 * too long, too many). */
static int parse_release(const char **s, release *r)
{
	const char *p = *s;
	r->n = 0;
	for (;;) {
		size_t d = 0;
		unsigned long v = 0;
		while (is_digit(p[d])) {
			if (d == COMPONENT_DIGITS)
				return -1;
			v = v * 10 + (unsigned long)(p[d] - '0');
			d++;
		}
		/* Leading zeros normalise differently across packaging
		 * versions: not decided here. */
		if (!d || (d > 1 && p[0] == '0') || r->n == RELEASE_MAX)
			return -1;
		r->part[r->n++] = v;
		p += d;
		if (*p != '.')
			break;
		p++;
	}
	*s = p;
	return 0;
}

int pyrt_pep440_is_release(const char *version)
{
	release r;
	const char *p = version;
	return parse_release(&p, &r) == 0 && *p == '\0';
}

/* Compare with trailing zeros ignored: -1, 0, 1. */
static int release_cmp(const release *a, const release *b)
{
	size_t n = a->n > b->n ? a->n : b->n;
	for (size_t i = 0; i < n; i++) {
		unsigned long x = i < a->n ? a->part[i] : 0;
		unsigned long y = i < b->n ? b->part[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* ~=: at least spec, and the same release up to spec's last component. */
static int compatible(const release *have, const release *spec)
{
	if (release_cmp(have, spec) < 0)
		return 0;
	for (size_t i = 0; i + 1 < spec->n; i++)
		if ((i < have->n ? have->part[i] : 0) != spec->part[i])
			return 0;
	return 1;
}

typedef enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_COMPAT } op;

/* The operator at *s; *s moves past it.  -1 for none or "===". */
static int parse_op(const char **s, op *o)
{
	static const struct {
		const char *text;
		op o;
	} ops[] = {
		{ "~=", OP_COMPAT }, { "==", OP_EQ }, { "!=", OP_NE },
		{ "<=", OP_LE },     { ">=", OP_GE }, { "<", OP_LT },
		{ ">", OP_GT },
	};
	if (strncmp(*s, "===", 3) == 0)
		return -1;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);
		if (strncmp(*s, ops[i].text, n) == 0) {
			*o = ops[i].o;
			*s += n;
			return 0;
		}
	}
	return -1;
}

static int holds(op o, const release *have, const release *want)
{
	int c = release_cmp(have, want);
	switch (o) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	case OP_COMPAT: return compatible(have, want);
	}
	return 0;
}

int pyrt_pep440_satisfies(const char *spec, const char *version)
{
	release have, want;
	const char *v = version;
	if (parse_release(&v, &have) != 0 || *v)
		return -1;
	int all = 1;
	const char *p = skip_spaces(spec);
	for (;;) {
		op o;
		if (parse_op(&p, &o) != 0)
			return -1;
		p = skip_spaces(p);
		if (parse_release(&p, &want) != 0)
			return -1;
		if (o == OP_COMPAT && want.n < 2)
			return -1;
		p = skip_spaces(p);
		if (*p != ',' && *p != '\0')
			return -1;
		/* Every clause is parsed before answering: a later one that
		 * is not ours makes the whole list Python's. */
		all = all && holds(o, &have, &want);
		if (!*p)
			return all;
		p = skip_spaces(p + 1);
	}
}

pyrt_pep440_form pyrt_pep440_split(const char *req, char *name, size_t len,
				   const char **spec)
{
	const char *p = skip_spaces(req);
	size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789._-");
	if (!n || !is_alnum(p[0]) || !is_alnum(p[n - 1]) || n >= len)
		return PYRT_PEP440_OTHER;
	memcpy(name, p, n);
	name[n] = '\0';
	const char *rest = skip_spaces(p + n);
	if (!*rest)
		return PYRT_PEP440_BARE;
	if (!strchr("<>=!~", *rest))
		return PYRT_PEP440_OTHER;
	*spec = rest;
	return PYRT_PEP440_SPEC;
}
