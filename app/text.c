/*
 * The one cleaner for text from outside (see text.h for the rules).
 */
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int app_text_utf8_locale(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return 0;
}

int app_text_utf8_for(int fd)
{
	return !isatty(fd) || app_text_utf8_locale();
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
