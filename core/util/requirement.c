/*
 * A recursive-descent reader of PEP 508's grammar for name-based
 * requirements (url_req is the part left out on purpose):
 *
 *   requirement = name [extras] [versionspec] [';' marker]
 *   extras      = '[' [identifier (',' identifier)*] ']'
 *   versionspec = '(' version_many ')' | version_many
 *   version_one = ('<'|'<='|'!='|'=='|'>='|'>'|'~='|'===') version
 *   marker      = and_expr ('or' and_expr)*, and_expr = expr ('and' expr)*
 *   expr        = '(' marker ')' | var op var, var = env_var | quoted string
 *
 * Whitespace is the space only: PEP 508 also allows tabs, but pyrt refuses
 * every control byte in a requirement.  What the grammar refuses is then
 * named by what it looks like (option, direct reference, URL, path), so a
 * refusal says which rule was broken rather than "syntax error".  A string
 * the grammar accepts is still refused when its name ends like an archive
 * (x.whl, x.tar.gz): pip installs such a "name" from the file of that name.
 */
#include "core/util/requirement.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/util/fmt.h"
#include "core/util/redact.h"

#define MARKER_DEPTH_MAX 16 /* nested parentheses in a marker */

typedef struct reader {
	const char *s;
	size_t i;
	int depth;
} reader;

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static void skip_ws(reader *r)
{
	while (r->s[r->i] == ' ')
		r->i++;
}

/* identifier = letterOrDigit ( ('-'|'_'|'.')* letterOrDigit )* */
static int read_identifier(reader *r)
{
	size_t start = r->i;
	if (!is_alnum(r->s[r->i]))
		return -1;
	while (is_alnum(r->s[r->i]) ||
	       (r->s[r->i] && strchr("-_.", r->s[r->i])))
		r->i++;
	while (r->i > start && !is_alnum(r->s[r->i - 1]))
		r->i--;
	return 0;
}

/* Whether the text at the cursor is keyword kw, not the start of a name. */
static int at_keyword(const reader *r, const char *kw)
{
	size_t n = strlen(kw);
	if (strncmp(r->s + r->i, kw, n) != 0)
		return 0; /* only now is s[i + n] known to be inside s */
	char next = r->s[r->i + n];
	return !is_alnum(next) && next != '_' && next != '.';
}

static int read_extras(reader *r)
{
	r->i++; /* '[' */
	skip_ws(r);
	if (r->s[r->i] == ']') {
		r->i++;
		return 0;
	}
	for (;;) {
		if (read_identifier(r) != 0)
			return -1;
		skip_ws(r);
		if (r->s[r->i] == ']') {
			r->i++;
			return 0;
		}
		if (r->s[r->i] != ',')
			return -1;
		r->i++;
		skip_ws(r);
	}
}

/* The comparison operators; "===" before "==", two characters before one. */
static int read_cmp(reader *r)
{
	static const char *const ops[] = { "===", "<=", "!=", "==", ">=", "~=",
					   "<", ">" };
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		size_t n = strlen(ops[k]);
		if (strncmp(r->s + r->i, ops[k], n) == 0) {
			r->i += n;
			return 0;
		}
	}
	return -1;
}

/* version_one = cmp version, version = (letterOrDigit|-_.*+!)+ */
static int read_version_one(reader *r)
{
	skip_ws(r);
	if (read_cmp(r) != 0)
		return -1;
	skip_ws(r);
	size_t start = r->i;
	while (is_alnum(r->s[r->i]) || (r->s[r->i] &&
					strchr("-_.*+!", r->s[r->i])))
		r->i++;
	if (r->i == start)
		return -1;
	skip_ws(r);
	return 0;
}

static int read_versionspec(reader *r)
{
	int paren = r->s[r->i] == '(';
	if (paren)
		r->i++;
	for (;;) {
		if (read_version_one(r) != 0)
			return -1;
		if (r->s[r->i] != ',')
			break;
		r->i++;
	}
	if (paren) {
		if (r->s[r->i] != ')')
			return -1;
		r->i++;
	}
	return 0;
}

/* A quoted string: characters PEP 508's python_str_c allows, ASCII only. */
static int read_python_str(reader *r)
{
	char q = r->s[r->i++];
	for (; r->s[r->i] && r->s[r->i] != q; r->i++)
		if (r->s[r->i] == '\\')
			return -1;
	if (r->s[r->i] != q)
		return -1;
	r->i++;
	return 0;
}

static int read_marker_var(reader *r)
{
	static const char *const vars[] = {
		"python_version", "python_full_version", "os_name",
		"sys_platform", "platform_release", "platform_system",
		"platform_version", "platform_machine",
		"platform_python_implementation", "implementation_name",
		"implementation_version", "extra",
	};
	skip_ws(r);
	char c = r->s[r->i];
	if (c == '"' || c == '\'')
		return read_python_str(r);
	for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
		if (at_keyword(r, vars[k])) {
			r->i += strlen(vars[k]);
			return 0;
		}
	return -1;
}

static int read_marker_op(reader *r)
{
	skip_ws(r);
	if (read_cmp(r) == 0)
		return 0;
	if (at_keyword(r, "in")) {
		r->i += 2;
		return 0;
	}
	if (!at_keyword(r, "not"))
		return -1;
	r->i += 3;
	skip_ws(r);
	if (!at_keyword(r, "in"))
		return -1;
	r->i += 2;
	return 0;
}

static int read_marker(reader *r);

static int read_marker_expr(reader *r)
{
	skip_ws(r);
	if (r->s[r->i] == '(') {
		if (++r->depth > MARKER_DEPTH_MAX)
			return -1;
		r->i++;
		if (read_marker(r) != 0)
			return -1;
		skip_ws(r);
		if (r->s[r->i] != ')')
			return -1;
		r->i++;
		r->depth--;
		return 0;
	}
	if (read_marker_var(r) != 0 || read_marker_op(r) != 0)
		return -1;
	return read_marker_var(r);
}

/* A chain of expressions joined by the keyword kw, each read by next. */
static int read_chain(reader *r, const char *kw, int (*next)(reader *))
{
	if (next(r) != 0)
		return -1;
	for (;;) {
		size_t save = r->i;
		skip_ws(r);
		if (!at_keyword(r, kw)) {
			r->i = save;
			return 0;
		}
		r->i += strlen(kw);
		if (next(r) != 0)
			return -1;
	}
}

static int read_marker_and(reader *r)
{
	return read_chain(r, "and", read_marker_expr);
}

static int read_marker(reader *r)
{
	return read_chain(r, "or", read_marker_and);
}

/* The whole grammar; *name_end is where the name stopped (0 if none). */
static int read_requirement(reader *r, size_t *name_end)
{
	skip_ws(r);
	if (read_identifier(r) != 0)
		return -1;
	*name_end = r->i;
	skip_ws(r);
	if (r->s[r->i] == '[' && read_extras(r) != 0)
		return -1;
	skip_ws(r);
	if (r->s[r->i] && strchr("<>=!~(", r->s[r->i]) &&
	    read_versionspec(r) != 0)
		return -1;
	skip_ws(r);
	if (r->s[r->i] == ';') {
		r->i++;
		if (read_marker(r) != 0)
			return -1;
	}
	skip_ws(r);
	return r->s[r->i] ? -1 : 0;
}

/* What pip takes for a file: its archive suffixes (pip's
 * ARCHIVE_EXTENSIONS), compared without case. */
static const char *archive_suffix(const char *name, size_t n)
{
	static const char *const sfx[] = {
		".whl", ".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz",
		".tar.xz", ".txz", ".tlz", ".tar.lz", ".tar.lzma",
	};
	for (size_t k = 0; k < sizeof sfx / sizeof *sfx; k++) {
		size_t m = strlen(sfx[k]);
		if (n > m && strncasecmp(name + n - m, sfx[k], m) == 0)
			return sfx[k];
	}
	return NULL;
}

/* A URL scheme at the start ("https:", "git+ssh:", "file:"). */
static int has_scheme(const char *s)
{
	size_t n = 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (is_alnum(s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
		n++;
	return s[n] == ':';
}

/* Whether a name (and maybe extras) is followed by '@': "name @ URL". */
static int is_direct_reference(const char *s)
{
	reader r = { s, 0, 0 };
	skip_ws(&r);
	if (read_identifier(&r) != 0)
		return 0;
	skip_ws(&r);
	if (s[r.i] == '[' && read_extras(&r) != 0)
		return 0;
	skip_ws(&r);
	return s[r.i] == '@';
}

/* Why a string the grammar refused is not a requirement, by its look. */
static const char *refusal(const char *s, size_t at)
{
	const char *t = s + strspn(s, " ");
	if (t[0] == '-')
		return "a pip option, which pyrt never passes to pip";
	if (is_direct_reference(s))
		return "a direct reference (\"name @ URL\"): name the package "
		       "and install it from the index or --wheelhouse DIR";
	if (strstr(s, "://") || has_scheme(t))
		return "a URL: name the package and install it from the "
		       "index or --wheelhouse DIR";
	size_t head = strcspn(s, ";"); /* a marker's strings may hold '/' */
	if (t[0] == '/' || t[0] == '.' || t[0] == '~' ||
	    memchr(s, '/', head) || memchr(s, '\\', head))
		return "a path: name the package and install it from the "
		       "index or --wheelhouse DIR";
	return at == 0 ? "not a PEP 508 requirement (it does not start with "
			 "a package name)"
		       : "not a PEP 508 requirement";
}

/* "\"text\"", control bytes and non-ASCII as '?', cut at 80 bytes. */
static void quote(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap < 8)
		return;
	buf[o++] = '"';
	for (; *s && o + 5 < cap && o < 81; s++)
		buf[o++] = ((unsigned char)*s < 0x20 ||
			    (unsigned char)*s >= 0x7f) ? '?' : *s;
	if (*s) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

static int refuse(char *why, size_t whylen, const char *req,
		  const char *what, const char *detail)
{
	char q[96], shown[512];
	if (!why || whylen == 0)
		return -1;
	/* "pkg @ https://u:TOKEN@host/x.whl": the refusal is printed, logged
	 * and answered by the API, so what it quotes is redacted first. */
	pyrt_fmt_text(shown, sizeof shown, "%s", req ? req : "");
	pyrt_redact(shown);
	quote(q, sizeof q, shown);
	pyrt_fmt_text(why, whylen, "%s is %s%s; " PYRT_REQUIREMENT_RULE, q, what,
		      detail ? detail : "");
	return -1;
}

/* The bytes no requirement holds: control bytes and anything not ASCII. */
static const char *bad_byte(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			return "a string with a control character";
		if (c >= 0x80)
			return "a string with a non-ASCII character";
	}
	return NULL;
}

int pyrt_requirement_check(const char *req, char *why, size_t whylen)
{
	if (!req || req[strspn(req, " ")] == '\0')
		return refuse(why, whylen, req, "empty", NULL);
	if (strlen(req) > PYRT_REQUIREMENT_MAX) {
		char d[64];
		pyrt_fmt_text(d, sizeof d, " (more than %d characters)",
			      PYRT_REQUIREMENT_MAX);
		return refuse(why, whylen, req, "too long", d);
	}
	const char *bad = bad_byte(req);
	if (bad)
		return refuse(why, whylen, req, bad, NULL);
	reader r = { req, 0, 0 };
	size_t name_end = 0;
	if (read_requirement(&r, &name_end) != 0)
		return refuse(why, whylen, req, refusal(req, name_end), NULL);
	size_t start = strspn(req, " ");
	const char *sfx = archive_suffix(req + start, name_end - start);
	if (sfx) {
		char d[96];
		pyrt_fmt_text(d, sizeof d, " (its name ends in %s, so pip would "
			      "install that file)", sfx);
		return refuse(why, whylen, req, "a file name", d);
	}
	return 0;
}

int pyrt_name_normalize(const char *s, size_t n, char sep, char *out)
{
	size_t o = 0;
	int ascii = 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '-' || c == '_' || c == '.') {
			if (!o || out[o - 1] != sep)
				out[o++] = sep;
			continue;
		}
		ascii &= c < 0x80;
		out[o++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	out[o] = '\0';
	return ascii ? 0 : -1;
}
