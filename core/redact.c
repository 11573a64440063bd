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
#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

enum { REDACT_NONE = 0, REDACT_VALUE, REDACT_LINE };

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
	if (strstr(key, "authorization"))
		return sep == ':' ? REDACT_LINE : REDACT_VALUE;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(key, words[i]))
			return REDACT_VALUE;
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

/* Redact the value starting at text[*i] (after the separator), keeping
 * leading blanks and an opening quote. */
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
				  : !value_end_char(text[*i], mode == REDACT_LINE)))
		(*i)++;
	*o = put_stars(text, *o, *i - start);
}

/* "://user:pass@host": the userinfo, up to the last '@' of the authority. */
static void redact_userinfo(char *text, size_t *i, size_t *o)
{
	size_t end = *i, at = 0;
	int found = 0;
	while (text[end] && !strchr("/?#\"'<> \t\n", text[end])) {
		if (text[end] == '@') {
			at = end;
			found = 1;
		}
		end++;
	}
	if (!found)
		return;
	*o = put_stars(text, *o, at - *i);
	*i = at;
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

/* The key=value / key: value rule at a separator in text[*i]. */
static void redact_pair(char *text, size_t *i, size_t *o)
{
	char key[64];
	char sep = text[*i];
	key_before(text, *o, key, sizeof key);
	copy_n(text, i, o, 1);
	int mode = key_sensitive(key, sep);
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
		if ((c == ' ' || c == '\t') && secret_option_before(text, o)) {
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

void pyrt_redact_url(const char *url, char *out, size_t len)
{
	if (!out || len == 0)
		return;
	out[0] = '\0';
	if (!url)
		return;
	size_t s = scheme_len(url);
	if (!s) {
		snprintf(out, len, "%s", url);
		pyrt_redact(out);
		return;
	}
	sbuf b = { out, len, 0 };
	const char *auth = url + s + 3;
	size_t alen = strcspn(auth, "/?#");
	const char *host = auth;
	for (size_t k = 0; k < alen; k++)
		if (auth[k] == '@')
			host = auth + k + 1;
	put(&b, url, s + 3);
	put(&b, host, alen - (size_t)(host - auth));
	const char *rest = auth + alen;
	size_t plen = strcspn(rest, "?#");
	put(&b, rest, plen);
	if (rest[plen] == '?') {
		const char *q = rest + plen + 1;
		put(&b, "?", 1);
		put_query(&b, q, strcspn(q, "#"));
	}
	/* The path can hold a token too ("/ghp_…/simple"). */
	pyrt_redact(out);
}
