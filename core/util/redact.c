/*
 * Secrets out of text that is stored or shown.
 *
 * pyrt_redact works in place on one line, and the text only ever shrinks:
 * a secret of any length becomes at most three stars, so the output index
 * never passes the input index and one buffer serves as both.  It reads the
 * text once, left to right, with a little state (inside a URL query or not)
 * and looks back only at what it already wrote.
 *
 * It errs on the side of hiding: a support bundle with one value too many
 * starred is still useful, one with a token in it is an incident.
 */
#include "core/util/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/fmt.h"

/* Overwrite a secret of len bytes at o with at most three stars. */
static size_t put_stars(char *text, size_t o, size_t len)
{
	size_t n = len < 3 ? len : 3;
	memset(text + o, '*', n);
	return o + n;
}

static int key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int token_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* What ends a word of free text: a URL, an option's value, a bare token. */
static int word_end(char c)
{
	return c == '\0' || isspace((unsigned char)c) || c == '"' ||
	       c == '\'' || c == '<' || c == '>' || c == '`';
}

/* What ends a URL query. */
static int query_end(char c)
{
	return word_end(c) || c == '#';
}

/* The word just before a separator (looking through one closing quote, as
 * in JSON's "password": ...), lowercased into key. */
static void key_before(const char *text, size_t end, char *key, size_t len)
{
	if (end > 0 && (text[end - 1] == '"' || text[end - 1] == '\''))
		end--;
	size_t start = end;
	while (start > 0 && key_char(text[start - 1]))
		start--;
	size_t n = end - start < len - 1 ? end - start : len - 1;
	/* Keep the tail: "MY_LONG_PREFIX_TOKEN" ends in what matters. */
	for (size_t k = 0; k < n; k++)
		key[k] = (char)tolower((unsigned char)text[end - n + k]);
	key[n] = '\0';
}

/* key is w, or ends in w after '_', '-' or '.' ("GITHUB_PAT", "x-auth"). */
static int word_is(const char *key, const char *w)
{
	size_t k = strlen(key), n = strlen(w);
	if (k < n || strcmp(key + k - n, w) != 0)
		return 0;
	return k == n || strchr("_-.", key[k - n - 1]) != NULL;
}

enum { REDACT_NONE = 0, REDACT_VALUE, REDACT_LINE, REDACT_ENV };

/* Whether the value after key<sep> is a secret.  After '=' (env, query
 * strings, --opt=) any name holding KEY counts, and the short words
 * (sig, pass, pwd, auth, pat) as whole words; after ':' only the
 * unmistakable words do, so "platform key: linux-x86_64-gnu" survives. */
static int key_sensitive(const char *key, char sep)
{
	static const char *const words[] = {
		"token", "secret", "password", "passwd", "passphrase",
		"credential", "apikey", "api_key", "api-key", "signature",
	};
	static const char *const short_words[] = {
		"sig", "pass", "pwd", "auth", "pat",
	};
	while (*key == '-')
		key++;
	if (!key[0])
		return REDACT_NONE;
	/* A header's value runs to the end of its line ("Cookie: a=1; b=2",
	 * "Authorization: Basic x"). */
	if (strstr(key, "authorization") || strstr(key, "cookie"))
		return sep == ':' ? REDACT_LINE : REDACT_VALUE;
	/* "password: two words" (YAML, a header): its whole value, to the
	 * end of the line or its closing quote. */
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(key, words[i]))
			return sep == ':' ? REDACT_LINE : REDACT_VALUE;
	if (sep != '=')
		return REDACT_NONE;
	for (size_t i = 0; i < sizeof short_words / sizeof short_words[0]; i++)
		if (word_is(key, short_words[i]))
			return REDACT_VALUE;
	return strstr(key, "key") ? REDACT_VALUE : REDACT_NONE;
}

static int value_end_char(char c, int line)
{
	if (c == '\0' || c == '\n' || c == '"' || c == '\'')
		return 1;
	if (line)
		return 0;
	return isspace((unsigned char)c) || c == '&' || c == ';' || c == ',' ||
	       c == '<' || c == '>' || c == ')';
}

/* Where an environment value with spaces ends: at the next "NAME=" or
 * option ("A=x y B=z", "DB_PASS=x --pwd=y"). */
static int next_is_pair(const char *s)
{
	if (*s == '-')
		return 1;
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n > 0 && s[n] == '=';
}

/* Redact the value starting at text[*i] (after the separator), keeping
 * leading blanks and an opening quote; REDACT_ENV runs over spaces up to
 * the next pair. */
static void redact_value(char *text, size_t *i, size_t *o, int mode)
{
	while (text[*i] == ' ' || text[*i] == '\t')
		text[(*o)++] = text[(*i)++];
	char quote = 0;
	if (text[*i] == '"' || text[*i] == '\'') {
		quote = text[*i];
		text[(*o)++] = text[(*i)++];
	}
	size_t start = *i;
	while (text[*i] && (quote ? text[*i] != quote && text[*i] != '\n'
				  : !value_end_char(text[*i], mode != REDACT_VALUE))) {
		int blank = isspace((unsigned char)text[*i]);
		(*i)++;
		if (mode == REDACT_ENV && !quote && blank &&
		    next_is_pair(text + *i))
			break;
	}
	if (mode == REDACT_ENV && !quote)
		while (*i > start && isspace((unsigned char)text[*i - 1]))
			(*i)--;
	*o = put_stars(text, *o, *i - start);
}

/*
 * Where the userinfo of the URL whose authority starts at s ends: the
 * offset of its '@', or -1 when there is none.  n bounds the URL (the end of
 * its word).  A password may hold an unencoded '/', '?' or '#' (and '@'):
 * then the authority as RFC 3986 parses it ends inside the password, and
 * the '@' comes after it.  So when the authority holds a ':' or an '@' (a
 * port or the start of credentials), the userinfo runs to the LAST '@' of
 * the whole URL; only a bare host ("https://h/x@y") is taken as it is.
 * That hides too much now and then ("https://h:8443/p@1", a path with an
 * '@' behind a port), never too little.
 */
static long userinfo_end(const char *s, size_t n)
{
	size_t auth = 0;
	while (auth < n && !strchr("/?#", s[auth]))
		auth++;
	if (!memchr(s, ':', auth) && !memchr(s, '@', auth))
		return -1;
	for (size_t k = n; k > 0; k--)
		if (s[k - 1] == '@')
			return (long)(k - 1);
	return -1;
}

/* "://user:pass@host": the userinfo, up to the '@' userinfo_end finds. */
static void redact_userinfo(char *text, size_t *i, size_t *o)
{
	size_t end = *i;
	while (!word_end(text[end]))
		end++;
	long at = userinfo_end(text + *i, end - *i);
	if (at < 0)
		return;
	*o = put_stars(text, *o, (size_t)at);
	*i += (size_t)at;
}

/* "user:pass@host" without a scheme, at the '@' in text[*i]: the word
 * written before it holds a ':' (not first) and no '/', and a host follows.
 * The password may hold '@' too, so the host starts after the last one. */
static int bare_userinfo(char *text, size_t *i, size_t *o)
{
	size_t start = *o;
	while (start > 0 && !word_end(text[start - 1]) &&
	       !strchr("(=,[", text[start - 1]))
		start--;
	const char *colon = memchr(text + start, ':', *o - start);
	char h = text[*i + 1];
	if (!colon || colon == text + start ||
	    memchr(text + start, '/', *o - start) ||
	    !(isalnum((unsigned char)h) || h == '['))
		return 0;
	size_t at = *i;
	for (size_t k = *i + 1; !word_end(text[k]) && text[k] != '/'; k++)
		if (text[k] == '@')
			at = k;
	*o = put_stars(text, start, *o - start + (at - *i));
	*i = at;
	return 1;
}

/* In a query, at the start of a component: one without '=' is a value of
 * its own ("?SECRET"), starred whole. */
static void query_component(char *text, size_t *i, size_t *o)
{
	size_t end = *i;
	while (!query_end(text[end]) && text[end] != '&' && text[end] != '=')
		end++;
	if (text[end] == '=' || end == *i)
		return;
	*o = put_stars(text, *o, end - *i);
	*i = end;
}

/* In a query, after '=': every value, whatever its name. */
static void query_value(char *text, size_t *i, size_t *o)
{
	size_t start = *i;
	while (!query_end(text[*i]) && text[*i] != '&')
		(*i)++;
	*o = put_stars(text, *o, *i - start);
}

/* "--password hunter2": is the word just written an option whose next
 * word is a secret?  Options naming a file, path or directory are not. */
static int secret_option_before(const char *text, size_t o)
{
	size_t start = o;
	while (start > 0 && key_char(text[start - 1]))
		start--;
	if (o - start < 3 || text[start] != '-' || text[start + 1] != '-')
		return 0;
	if (start > 0 && !isspace((unsigned char)text[start - 1]) &&
	    text[start - 1] != '"' && text[start - 1] != '\'')
		return 0;
	char key[64];
	key_before(text, o, key, sizeof key);
	if (word_is(key, "file") || word_is(key, "path") || word_is(key, "dir"))
		return 0;
	return key_sensitive(key, '=') != REDACT_NONE;
}

/* netrc's "machine h login u password X" (and "passwd X"): is the word
 * just written one of those, whole, so the next word is the secret? */
static int netrc_password_before(const char *text, size_t o)
{
	size_t start = o;
	while (start > 0 && key_char(text[start - 1]))
		start--;
	if (start > 0 && !isspace((unsigned char)text[start - 1]))
		return 0;
	return (o - start == 8 && strncasecmp(text + start, "password", 8) == 0)
	       || (o - start == 6 && strncasecmp(text + start, "passwd", 6) == 0);
}

/* Tokens that say what they are: the length of their prefix, or 0. */
static size_t token_prefix(const char *s)
{
	static const char *const prefixes[] = {
		"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
		"glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(s, prefixes[i], n) == 0 && token_char(s[n]))
			return n;
	}
	/* AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16
	 * upper-case letters or digits; 12 is enough to be sure. */
	if (strncmp(s, "AKIA", 4) == 0 || strncmp(s, "ASIA", 4) == 0) {
		size_t n = 4;
		while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]))
			n++;
		return n - 4 >= 12 ? 4 : 0;
	}
	return 0;
}

/* "Bearer <token>" / "Basic <token>" wherever it appears. */
static int scheme_word_at(const char *text, size_t i, size_t o)
{
	if (o > 0 && isalnum((unsigned char)text[o - 1]))
		return 0;
	if (strncasecmp(text + i, "bearer ", 7) == 0)
		return 7;
	if (strncasecmp(text + i, "basic ", 6) == 0)
		return 6;
	return 0;
}

static void copy_n(char *text, size_t *i, size_t *o, size_t n)
{
	for (size_t k = 0; k < n; k++)
		text[(*o)++] = text[(*i)++];
}

/* The word before a ':' at end is the last name of a path ("refusing
 * /etc/passwd: it is not a directory"): a file named like a secret is not
 * a "key: value" pair.  Only a '/' right before the name counts, so
 * "password: x" and "db.password: x" stay hidden. */
static int path_name_before(const char *text, size_t end)
{
	size_t start = end;
	while (start > 0 && key_char(text[start - 1]))
		start--;
	return start > 0 && start < end && text[start - 1] == '/';
}

/* text[0..end) is one environment variable's name, upper case as the
 * convention has it ("secret=s apikey=k" is a list of pairs): the line
 * starts with it. */
static int env_name_line(const char *text, size_t end)
{
	if (end == 0 || isdigit((unsigned char)text[0]))
		return 0;
	for (size_t k = 0; k < end; k++)
		if (!isupper((unsigned char)text[k]) &&
		    !isdigit((unsigned char)text[k]) && text[k] != '_')
			return 0;
	return 1;
}

/* The key=value / key: value rule at a separator in text[*i]. */
static void redact_pair(char *text, size_t *i, size_t *o)
{
	char key[64];
	char sep = text[*i];
	key_before(text, *o, key, sizeof key);
	int path = sep == ':' && path_name_before(text, *o);
	copy_n(text, i, o, 1);
	int mode = path ? REDACT_NONE : key_sensitive(key, sep);
	/* An environment line ("PYRT_TOKEN=two words", as doctor and the
	 * bundle list variables): the value is the rest of the line. */
	if (mode == REDACT_VALUE && sep == '=' && env_name_line(text, *o - 1))
		mode = REDACT_ENV;
	if (mode)
		redact_value(text, i, o, mode);
}

/* A token with a known prefix at a word boundary: keep the prefix (it says
 * what leaked), star the rest.  Returns 0 when there is none. */
static int redact_prefixed(char *text, size_t *i, size_t *o)
{
	if (*o > 0 && token_char(text[*o - 1]))
		return 0;
	size_t n = token_prefix(text + *i);
	if (!n)
		return 0;
	copy_n(text, i, o, n);
	size_t start = *i;
	while (token_char(text[*i]))
		(*i)++;
	*o = put_stars(text, *o, *i - start);
	return 1;
}

static int token_segment(const char *seg, size_t n);
static int redact_prefixed(char *text, size_t *i, size_t *o);

/* After "scheme://" and its userinfo: the host and path of a URL in free
 * text, each path segment that reads like a token starred (as
 * pyrt_redact_url does), up to its query, fragment or end. */
static void redact_url_path(char *text, size_t *i, size_t *o)
{
	while (!word_end(text[*i]) && text[*i] != '?' && text[*i] != '#') {
		if (text[*i] != '/') {
			copy_n(text, i, o, 1);
			continue;
		}
		copy_n(text, i, o, 1);
		size_t n = 0;
		while (!word_end(text[*i + n]) && !strchr("/?#", text[*i + n]))
			n++;
		if (token_segment(text + *i, n)) {
			*o = put_stars(text, *o, n);
			*i += n;
		} else {
			redact_prefixed(text, i, o);
		}
	}
}

void pyrt_redact(char *text)
{
	if (!text)
		return;
	size_t i = 0, o = 0;
	int in_query = 0;
	while (text[i]) {
		char c = text[i];
		if (c == ':' && text[i + 1] == '/' && text[i + 2] == '/') {
			copy_n(text, &i, &o, 3);
			redact_userinfo(text, &i, &o);
			redact_url_path(text, &i, &o);
			continue;
		}
		if (c == '?' && o > 0 && !word_end(text[o - 1])) {
			in_query = 1;
			copy_n(text, &i, &o, 1);
			query_component(text, &i, &o);
			continue;
		}
		if (in_query && c == '&') {
			copy_n(text, &i, &o, 1);
			query_component(text, &i, &o);
			continue;
		}
		if (in_query && c == '=') {
			copy_n(text, &i, &o, 1);
			query_value(text, &i, &o);
			continue;
		}
		if (in_query && query_end(c))
			in_query = 0;
		if (c == '=' || c == ':') {
			redact_pair(text, &i, &o);
			continue;
		}
		if (c == '@' && bare_userinfo(text, &i, &o)) {
			copy_n(text, &i, &o, 1);
			continue;
		}
		if ((c == ' ' || c == '\t') && (secret_option_before(text, o) ||
						netrc_password_before(text, o))) {
			redact_value(text, &i, &o, REDACT_VALUE);
			continue;
		}
		if (redact_prefixed(text, &i, &o))
			continue;
		int w = scheme_word_at(text, i, o);
		if (w) {
			copy_n(text, &i, &o, (size_t)w);
			redact_value(text, &i, &o, REDACT_VALUE);
			continue;
		}
		copy_n(text, &i, &o, 1);
	}
	text[o] = '\0';
}

char *pyrt_redact_lines(const char *text, size_t len, size_t *out_len)
{
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	size_t p = 0, i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		memcpy(out + p, text + i, n);
		out[p + n] = '\0';
		pyrt_redact(out + p);
		p += strlen(out + p);
		i += n;
		if (nl) {
			out[p++] = '\n';
			i++;
		}
	}
	out[p] = '\0';
	if (out_len)
		*out_len = p;
	return out;
}

/* ---- URLs --------------------------------------------------------------- */

/* A bounded appender: what does not fit is dropped, out stays terminated. */
typedef struct sbuf {
	char *p;
	size_t len, used;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
	size_t room = b->len - 1 - b->used;
	if (n > room)
		n = room;
	memcpy(b->p + b->used, s, n);
	b->used += n;
	b->p[b->used] = '\0';
}

/* The length of "scheme" when url starts with "scheme://", else 0. */
static size_t scheme_len(const char *url)
{
	size_t n = 0;
	if (!isalpha((unsigned char)url[0]))
		return 0;
	while (isalnum((unsigned char)url[n]) || url[n] == '+' ||
	       url[n] == '-' || url[n] == '.')
		n++;
	return strncmp(url + n, "://", 3) == 0 ? n : 0;
}

/* "a=1&b&c=2" as "a=***&***&c=***". */
static void put_query(sbuf *b, const char *q, size_t len)
{
	size_t k = 0;
	while (k <= len) {
		size_t n = 0;
		while (k + n < len && q[k + n] != '&')
			n++;
		const char *eq = memchr(q + k, '=', n);
		if (eq)
			put(b, q + k, (size_t)(eq - (q + k)) + 1);
		if (n)
			put(b, "***", 3);
		k += n + 1;
		if (k <= len)
			put(b, "&", 1);
	}
}

/* A path segment that reads like a credential rather than a name: long,
 * letters and digits mixed, no '.' (a file name or version has one). */
static int token_segment(const char *seg, size_t n)
{
	if (n < 16)
		return 0;
	int alpha = 0, digit = 0;
	for (size_t k = 0; k < n; k++) {
		if (!token_char(seg[k]))
			return 0;
		alpha |= isalpha((unsigned char)seg[k]) != 0;
		digit |= isdigit((unsigned char)seg[k]) != 0;
	}
	return alpha && digit;
}

/* The path of a URL, with every segment that reads like a token starred:
 * hosted indexes and mirrors put one there ("/t/0a1B2c3D4e5F6g7H/simple"),
 * in no form the prefixes of token_prefix know. */
static void put_path(sbuf *b, const char *p, size_t len)
{
	size_t k = 0;
	while (k < len) {
		size_t n = 0;
		while (k + n < len && p[k + n] != '/')
			n++;
		if (token_segment(p + k, n))
			put(b, "***", 3);
		else
			put(b, p + k, n);
		k += n;
		if (k < len) {
			put(b, "/", 1);
			k++;
		}
	}
}

void pyrt_redact_url(const char *url, char *out, size_t len)
{
	if (!out || len == 0)
		return;
	out[0] = '\0';
	if (!url)
		return;
	size_t s = scheme_len(url);
	if (!s) {
		pyrt_fmt_text(out, len, "%s", url);
		pyrt_redact(out);
		return;
	}
	sbuf b = { out, len, 0 };
	const char *auth = url + s + 3;
	size_t wlen = 0;
	while (!word_end(auth[wlen]))
		wlen++;
	long at = userinfo_end(auth, wlen);
	const char *host = at < 0 ? auth : auth + at + 1;
	size_t hlen = strcspn(host, "/?#");
	put(&b, url, s + 3);
	put(&b, host, hlen);
	const char *rest = host + hlen;
	size_t plen = strcspn(rest, "?#");
	put_path(&b, rest, plen);
	if (rest[plen] == '?') {
		const char *q = rest + plen + 1;
		put(&b, "?", 1);
		put_query(&b, q, strcspn(q, "#"));
	}
	/* The path can hold a token too ("/ghp_…/simple"). */
	pyrt_redact(out);
}

/* ---- known URLs in free text ------------------------------------------- */

/* A growing output; on out of memory it marks itself failed. */
typedef struct gbuf {
	char *p;
	size_t used, cap;
	int failed;
} gbuf;

static void gput(gbuf *g, const char *s, size_t n)
{
	if (g->failed)
		return;
	if (g->used + n + 1 > g->cap) {
		size_t cap = (g->used + n + 1) * 2;
		char *p = realloc(g->p, cap);
		if (!p) {
			g->failed = 1;
			return;
		}
		g->p = p;
		g->cap = cap;
	}
	memcpy(g->p + g->used, s, n);
	g->used += n;
	g->p[g->used] = '\0';
}

/* The parts of one known URL that find it in text. */
#define KNOWN_FORMS 4
typedef struct known {
	const char *scheme;
	size_t slen;
	const char *host;       /* host[:port] */
	size_t hlen;
	/* what follows the host: path and query as given, then
	 * percent-decoded, then the path alone, as given and decoded; each
	 * without a trailing '/', longest first; len 0 when absent */
	char form[KNOWN_FORMS][1024];
	size_t flen[KNOWN_FORMS];
} known;

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Into out: s[0..n), percent-decoded if decode, without trailing '/'. */
static size_t form_set(char *out, size_t cap, const char *s, size_t n,
		       int decode)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		int hi, lo;
		if (decode && s[i] == '%' && i + 2 < n &&
		    (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
			continue;
		}
		out[o++] = s[i];
	}
	while (o > 0 && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	return o;
}

/* 0: url is not scheme://host with a path or query worth hiding. */
static int known_parse(const char *url, known *k)
{
	memset(k, 0, sizeof *k);
	size_t s = url ? scheme_len(url) : 0;
	if (!s)
		return 0;
	const char *auth = url + s + 3;
	size_t wlen = 0;
	while (!word_end(auth[wlen]))
		wlen++;
	long at = userinfo_end(auth, wlen);
	k->scheme = url;
	k->slen = s;
	k->host = at < 0 ? auth : auth + at + 1;
	k->hlen = strcspn(k->host, "/?# \t\n");
	const char *tail = k->host + k->hlen;
	size_t tlen = strcspn(tail, "# \t\n");
	size_t plen = strcspn(tail, "?# \t\n");
	for (int f = 0; f < KNOWN_FORMS; f++)
		k->flen[f] = form_set(k->form[f], sizeof k->form[f], tail,
				      f < 2 ? tlen : plen, f % 2);
	return k->hlen > 0 && k->flen[0] > 0;
}

/* How much of text at p is one of k's forms: the whole of it, or the rest
 * of a line cut short inside it; 0 when none is there. */
static size_t tail_at(const char *p, const known *k)
{
	for (int f = 0; f < KNOWN_FORMS; f++) {
		size_t len = k->flen[f], n = 0;
		if (!len)
			continue;
		while (n < len && p[n] == k->form[f][n])
			n++;
		if (n == len || (p[n] == '\0' && n > 1))
			return n;
	}
	return 0;
}

/* The start of the URL whose host begins at text[j]: its scheme when
 * "scheme://" or "scheme://userinfo@" comes before it in the same word,
 * else j itself.  *with_scheme says which. */
static size_t url_start(const char *text, size_t j, int *with_scheme)
{
	*with_scheme = 0;
	if (j == 0 || (text[j - 1] != '/' && text[j - 1] != '@'))
		return j;
	if (text[j - 1] == '/' && (j < 3 || strncmp(text + j - 3, "://", 3)))
		return j;
	size_t w = j;
	while (w > 0 && !word_end(text[w - 1]))
		w--;
	for (size_t k = j; k >= w + 3; k--) {
		if (strncmp(text + k - 3, "://", 3) != 0)
			continue;
		size_t s = k - 3;
		while (s > w && (isalnum((unsigned char)text[s - 1]) ||
				 strchr("+-.", text[s - 1])))
			s--;
		*with_scheme = 1;
		return s;
	}
	return text[j - 1] == '@' ? w : j;
}

static int host_boundary(const char *text, size_t j)
{
	return j == 0 || !(isalnum((unsigned char)text[j - 1]) ||
			   text[j - 1] == '.' || text[j - 1] == '-');
}

/* A path alone ("url: /simple/TOKEN/x"), at the start of a word and
 * ending where a path segment may end. */
static size_t bare_tail_at(const char *text, size_t j, const known *k)
{
	if (k->form[0][0] != '/' || (j > 0 && !word_end(text[j - 1]) &&
				  !strchr("(=,:[", text[j - 1])))
		return 0;
	size_t n = tail_at(text + j, k);
	char c = text[j + n];
	if (!n || !(word_end(c) || strchr("/?#),:;]", c)))
		return 0;
	return n;
}

/* One known URL out of text into g: the host (and scheme, if it had one)
 * and three stars after a '/' where the host and its tail were; the stars
 * after a '/' alone where the tail stood alone. */
static void hide_known(const char *text, const known *k, gbuf *g)
{
	size_t from = 0, j = 0;
	while (text[j]) {
		size_t n = 0, start = j;
		int with_scheme = 0, with_host = 0;
		if (host_boundary(text, j) &&
		    strncasecmp(text + j, k->host, k->hlen) == 0 &&
		    (n = tail_at(text + j + k->hlen, k)) > 0) {
			start = url_start(text, j, &with_scheme);
			n += k->hlen;
			with_host = 1;
		} else if ((n = bare_tail_at(text, j, k)) == 0) {
			j++;
			continue;
		}
		gput(g, text + from, start - from);
		if (with_scheme) {
			gput(g, k->scheme, k->slen);
			gput(g, "://", 3);
		}
		if (with_host)
			gput(g, k->host, k->hlen);
		gput(g, "/***", 4);
		j += n;
		from = j;
	}
	gput(g, text + from, j - from);
}

char *pyrt_redact_known_urls(const char *text, const char *const *urls,
			     size_t count)
{
	gbuf g = { NULL, 0, 0, 0 };
	gput(&g, text ? text : "", text ? strlen(text) : 0);
	for (size_t i = 0; i < count && !g.failed; i++) {
		known k;
		if (!known_parse(urls[i], &k))
			continue;
		gbuf next = { NULL, 0, 0, 0 };
		gput(&next, "", 0);
		hide_known(g.p, &k, &next);
		free(g.p);
		g = next;
	}
	if (g.failed) {
		free(g.p);
		return NULL;
	}
	return g.p;
}
