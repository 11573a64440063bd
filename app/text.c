/*
 * The one cleaner for text from outside (see text.h for the rules).
 */
#include "app/text.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wchar.h>

/* The first of LC_ALL, LC_CTYPE, LANG that is set, or NULL. */
static const char *locale_name(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

int app_text_utf8_locale(void)
{
	const char *v = locale_name();
	return v && (strcasestr(v, "utf-8") || strcasestr(v, "utf8"));
}

int app_text_utf8_for(int fd)
{
	if (locale_name())
		return app_text_utf8_locale();
	return !isatty(fd);
}

/* wcwidth answers for the calling thread's locale; widths are asked in a
 * UTF-8 one (C.UTF-8, else en_US.UTF-8) made once, never by setlocale. */
static locale_t utf8_loc;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_loc_init(void)
{
	static const char *const names[] = { "C.UTF-8", "C.utf8", "en_US.UTF-8" };
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !utf8_loc; i++)
		utf8_loc = newlocale(LC_CTYPE_MASK, names[i], (locale_t)0);
}

/* Without any UTF-8 locale: the wide ranges of East Asian text and emoji,
 * the combining marks. */
static int fallback_width(unsigned cp)
{
	if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

int app_text_char_width(const char *s, size_t *len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	const unsigned char *u = (const unsigned char *)s;
	size_t n = pyrt_sanitize_utf8_len(s);
	*len = n ? n : 1;
	if (n <= 1)
		return 1;
	unsigned cp = u[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (u[i] & 0x3f);
	pthread_once(&utf8_once, utf8_loc_init);
	if (!utf8_loc)
		return fallback_width(cp);
	locale_t old = uselocale(utf8_loc);
	int w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : w;
}

size_t app_text_width(const char *s)
{
	size_t cols = 0, len;
	while (*s) {
		cols += (size_t)app_text_char_width(s, &len);
		s += len;
	}
	return cols;
}

void app_text_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char *raw = NULL;
	int n = vasprintf(&raw, fmt, ap);
	if (n < 0)
		return;
	int newline = n > 0 && raw[n - 1] == '\n';
	if (newline)
		raw[n - 1] = '\0';
	/* Cleaning never lengthens, so in place is safe (memmove). */
	pyrt_sanitize(raw, app_text_utf8_for(fileno(f)), raw, (size_t)n + 1);
	fputs(raw, f);
	if (newline)
		fputc('\n', f);
	free(raw);
}

void app_text_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_text_vprintf(f, fmt, ap);
	va_end(ap);
}

void app_text_puts(FILE *f, const char *text)
{
	const char *nl;
	while ((nl = strchr(text, '\n'))) {
		app_text_printf(f, "%.*s\n", (int)(nl - text), text);
		text = nl + 1;
	}
	if (*text)
		app_text_printf(f, "%s", text);
}

/* A copy of s with each malformed byte replaced by U+FFFD. */
static char *utf8_repaired(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len * 3 + 1), *o = out;
	if (!out)
		return NULL;
	while (*s) {
		size_t n = pyrt_sanitize_utf8_len(s);
		if (n) {
			memcpy(o, s, n);
			o += n;
			s += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
		}
	}
	*o = '\0';
	return out;
}

json_t *app_text_json(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *fixed = utf8_repaired(s);
	j = fixed ? json_string(fixed) : NULL;
	free(fixed);
	return j;
}
