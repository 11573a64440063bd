/*
 * Theme tables and their YAML files.  A theme file only overrides: every
 * role starts from the compiled-in default, so a file that names three
 * roles is a complete theme, and a broken file falls back to the default
 * whole (with the reason in one line) rather than to half a theme.
 */
#include "tui/theme.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <yaml.h>

#include "core/util/fmt.h"
#include "core/util/os.h"
#include "core/util/yamldoc.h"

#define THEME_FILE_MAX (64 * 1024)

static const char *const role_names[TUI_ROLE__COUNT] = {
	[TUI_ROLE_BACKGROUND] = "background",
	[TUI_ROLE_TEXT] = "text",
	[TUI_ROLE_DIM] = "dim",
	[TUI_ROLE_ACCENT] = "accent",
	[TUI_ROLE_OK] = "ok",
	[TUI_ROLE_WARN] = "warn",
	[TUI_ROLE_ERROR] = "error",
	[TUI_ROLE_PROGRESS] = "progress",
	[TUI_ROLE_SELECTION] = "selection",
	[TUI_ROLE_BORDER] = "border",
	[TUI_ROLE_TITLE] = "title",
};

#define D TUI_COLOR_DEFAULT
/* The compiled-in default: the terminal's own colours for text, the eight
 * basic colours for meaning (they exist everywhere). */
static const tui_style default_roles[TUI_ROLE__COUNT] = {
	[TUI_ROLE_BACKGROUND] = { D, D, 0 },
	[TUI_ROLE_TEXT] = { D, D, 0 },
	[TUI_ROLE_DIM] = { D, D, TUI_ATTR_DIM },
	[TUI_ROLE_ACCENT] = { 6, D, TUI_ATTR_BOLD },
	[TUI_ROLE_OK] = { 2, D, TUI_ATTR_BOLD },
	[TUI_ROLE_WARN] = { 3, D, TUI_ATTR_BOLD },
	[TUI_ROLE_ERROR] = { 1, D, TUI_ATTR_BOLD },
	[TUI_ROLE_PROGRESS] = { 6, D, 0 },
	[TUI_ROLE_SELECTION] = { 0, 6, 0 },
	[TUI_ROLE_BORDER] = { 4, D, 0 },
	[TUI_ROLE_TITLE] = { 7, 4, TUI_ATTR_BOLD },
};

/* Attributes carry all the meaning when there is no colour. */
static const tui_style mono_roles[TUI_ROLE__COUNT] = {
	[TUI_ROLE_BACKGROUND] = { D, D, 0 },
	[TUI_ROLE_TEXT] = { D, D, 0 },
	[TUI_ROLE_DIM] = { D, D, TUI_ATTR_DIM },
	[TUI_ROLE_ACCENT] = { D, D, TUI_ATTR_BOLD },
	[TUI_ROLE_OK] = { D, D, TUI_ATTR_BOLD },
	[TUI_ROLE_WARN] = { D, D, TUI_ATTR_BOLD },
	[TUI_ROLE_ERROR] = { D, D, TUI_ATTR_BOLD | TUI_ATTR_UNDERLINE },
	[TUI_ROLE_PROGRESS] = { D, D, TUI_ATTR_BOLD },
	[TUI_ROLE_SELECTION] = { D, D, TUI_ATTR_REVERSE },
	[TUI_ROLE_BORDER] = { D, D, 0 },
	[TUI_ROLE_TITLE] = { D, D, TUI_ATTR_REVERSE | TUI_ATTR_BOLD },
};
#undef D

static const char *const color_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct { const char *name; unsigned bit; } attr_names[] = {
	{ "bold", TUI_ATTR_BOLD },
	{ "reverse", TUI_ATTR_REVERSE },
	{ "underline", TUI_ATTR_UNDERLINE },
	{ "dim", TUI_ATTR_DIM },
};

const char *tui_theme_role_name(tui_role role)
{
	return (unsigned)role < TUI_ROLE__COUNT ? role_names[role] : "unknown";
}

void tui_theme_default(tui_theme *t)
{
	snprintf(t->name, sizeof t->name, "default");
	memcpy(t->roles, default_roles, sizeof t->roles);
}

void tui_theme_monochrome(tui_theme *t)
{
	snprintf(t->name, sizeof t->name, "monochrome");
	memcpy(t->roles, mono_roles, sizeof t->roles);
}

/* Names and numbers as a theme file writes them. */
int tui_theme_parse_color(const char *word)
{
	if (!word || !*word)
		return -2;
	if (strcasecmp(word, "default") == 0)
		return TUI_COLOR_DEFAULT;
	if (strcasecmp(word, "gray") == 0 || strcasecmp(word, "grey") == 0)
		return 8;
	char *end;
	errno = 0;
	long n = strtol(word, &end, 10);
	if (word[0] >= '0' && word[0] <= '9')
		return (*end || errno || n > 255) ? -2 : (int)n;
	int bright = 0;
	if (strncasecmp(word, "bright", 6) == 0) {
		bright = 8;
		word += 6;
		if (*word == '-' || *word == '_')
			word++;
	}
	for (int i = 0; i < 8; i++)
		if (strcasecmp(word, color_names[i]) == 0)
			return i + bright;
	return -2;
}

/* The xterm palette, for finding the nearest basic colour. */
static void xterm_rgb(int c, int rgb[3])
{
	static const int basic[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 },
		{ 229, 229, 229 }, { 127, 127, 127 }, { 255, 0, 0 },
		{ 0, 255, 0 }, { 255, 255, 0 }, { 92, 92, 255 },
		{ 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
	};
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	if (c < 16) {
		memcpy(rgb, basic[c], sizeof basic[c]);
	} else if (c < 232) {
		c -= 16;
		rgb[0] = level[c / 36];
		rgb[1] = level[(c / 6) % 6];
		rgb[2] = level[c % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
	}
}

/* The index among the first n palette entries closest to colour c. */
static int nearest(int c, int n)
{
	int want[3], best = 0;
	long best_d = -1;
	xterm_rgb(c, want);
	/* Among eight there is no grey, and a grey is as near cyan as white
	 * by distance: greys go to black or white by lightness instead. */
	if (n == 8 && want[0] == want[1] && want[1] == want[2])
		return want[0] < 64 ? 0 : 7;
	for (int i = 0; i < n; i++) {
		int rgb[3];
		xterm_rgb(i, rgb);
		long d = 0;
		for (int k = 0; k < 3; k++)
			d += (long)(rgb[k] - want[k]) * (rgb[k] - want[k]);
		if (best_d < 0 || d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

int tui_theme_fallback_color(int color, int ncolors, int *bold)
{
	*bold = 0;
	if (color < 0 || color < ncolors)
		return color;
	if (ncolors >= 16)
		return nearest(color, 16);
	if (ncolors < 8)
		return TUI_COLOR_DEFAULT;
	/* A named bright colour becomes its plain one in bold, which most
	 * 8-colour terminals show brighter anyway. */
	if (color >= 9 && color <= 15) {
		*bold = 1;
		return color - 8;
	}
	return nearest(color, 8);
}

/* One parse: the document, its name for messages, where the failure goes. */
typedef struct theme_parse {
	yaml_document_t *doc;
	const char *source;
	char *msg;
	size_t msglen;
	tui_theme *theme;
} theme_parse;

static int theme_fail(theme_parse *tp, const yaml_node_t *node,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "<source>:<line>: <what>" into the message; always returns -1. */
static int theme_fail(theme_parse *tp, const yaml_node_t *node,
		      const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(tp->msg, tp->msglen, "%s:%zu: %s", tp->source,
		 node ? node->start_mark.line + 1 : (size_t)1, what);
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
						: NULL;
}

static yaml_node_t *node_at(theme_parse *tp, int id)
{
	return yaml_document_get_node(tp->doc, id);
}

static int parse_attr_word(theme_parse *tp, const yaml_node_t *n,
			   const char *role, unsigned *attrs)
{
	const char *w = scalar(n);
	for (size_t i = 0; w && i < sizeof attr_names / sizeof attr_names[0];
	     i++)
		if (strcasecmp(w, attr_names[i].name) == 0) {
			*attrs |= attr_names[i].bit;
			return 0;
		}
	return theme_fail(tp, n, "%s.attrs: unknown attribute '%s' (expected bold, reverse, underline or dim)",
			  role, w ? w : "(not a word)");
}

/* attrs: [bold, reverse] or attrs: bold; [] and "none" clear them. */
static int parse_attrs(theme_parse *tp, const yaml_node_t *n,
		       const char *role, unsigned *attrs)
{
	*attrs = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			if (parse_attr_word(tp, node_at(tp, *it), role, attrs))
				return -1;
		return 0;
	}
	const char *w = scalar(n);
	if (w && (strcasecmp(w, "none") == 0 || !*w))
		return 0;
	return parse_attr_word(tp, n, role, attrs);
}

/* fg or bg of a role. */
static int parse_color(theme_parse *tp, const yaml_node_t *n,
		       const char *role, const char *key, short *out)
{
	int c = tui_theme_parse_color(scalar(n));
	if (c == -2)
		return theme_fail(tp, n, "%s.%s: unknown colour '%s' (expected default, a name such as red or bright-blue, or 0-255)",
				  role, key, scalar(n) ? scalar(n) : "(not a word)");
	*out = (short)c;
	return 0;
}

/* { fg: …, bg: …, attrs: … }; keys left out keep the default's value. */
static int parse_style(theme_parse *tp, const yaml_node_t *n,
		       const char *role, tui_style *style)
{
	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(tp, n, "role '%s': expected a mapping such as { fg: cyan, attrs: [bold] }",
				  role);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(tp, p->key), *v = node_at(tp, p->value);
		const char *key = scalar(k);
		int rc;
		if (key && strcmp(key, "fg") == 0)
			rc = parse_color(tp, v, role, key, &style->fg);
		else if (key && strcmp(key, "bg") == 0)
			rc = parse_color(tp, v, role, key, &style->bg);
		else if (key && strcmp(key, "attrs") == 0)
			rc = parse_attrs(tp, v, role, &style->attrs);
		else
			rc = theme_fail(tp, k, "role '%s': unknown key '%s' (expected fg, bg, attrs)",
					role, key ? key : "(not a word)");
		if (rc)
			return rc;
	}
	return 0;
}

static int role_index(const char *name)
{
	for (int i = 0; name && i < TUI_ROLE__COUNT; i++)
		if (strcmp(name, role_names[i]) == 0)
			return i;
	return -1;
}

/* roles: { <role>: <style>, ... }; an unknown role is an error, not a
 * silent no-op, so a typo shows. */
static int parse_roles(theme_parse *tp, const yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return theme_fail(tp, n, "roles: expected a mapping of role names to styles");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(tp, p->key);
		int r = role_index(scalar(k));
		if (r < 0)
			return theme_fail(tp, k, "unknown role '%s' (expected background, text, dim, accent, ok, warn, error, progress, selection, border, title)",
					  scalar(k) ? scalar(k) : "(not a word)");
		if (parse_style(tp, node_at(tp, p->value), role_names[r],
				&tp->theme->roles[r]))
			return -1;
	}
	return 0;
}

/* The document: name: and roles:, nothing else. */
static int parse_root(theme_parse *tp, const yaml_node_t *root)
{
	if (!root || root->type != YAML_MAPPING_NODE)
		return theme_fail(tp, root, "expected a mapping with name: and roles:");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(tp, p->key), *v = node_at(tp, p->value);
		const char *key = scalar(k);
		if (key && strcmp(key, "name") == 0) {
			if (!scalar(v))
				return theme_fail(tp, v, "name: expected a word");
			snprintf(tp->theme->name, sizeof tp->theme->name, "%s",
				 scalar(v));
		} else if (key && strcmp(key, "roles") == 0) {
			if (parse_roles(tp, v))
				return -1;
		} else
			return theme_fail(tp, k, "unknown key '%s' (expected name, roles)",
					  key ? key : "(not a word)");
	}
	return 0;
}

int tui_theme_parse(tui_theme *t, const char *data, size_t len,
		    const char *source, char *msg, size_t msglen)
{
	yaml_document_t doc;
	pyrt_yaml_problem pb;
	theme_parse tp = { &doc, source ? source : "theme", msg, msglen, t };
	int rc = -1;
	msg[0] = '\0';
	tui_theme_default(t);
	if (pyrt_yamldoc_load(&doc, data, len, 0, &pb) != 0) {
		snprintf(msg, msglen, "%s:%zu: %s", tp.source, pb.line,
			 pb.what);
		return -1;
	}
	rc = parse_root(&tp, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	if (rc)
		tui_theme_default(t);
	return rc;
}

/* The file name without directory and ".yaml", as the theme's name. */
static void name_from_path(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	snprintf(name, len, "%.*s", (int)n, base);
}

int tui_theme_load_file(tui_theme *t, const char *path, char *msg,
			size_t msglen)
{
	tui_theme_default(t);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *data = malloc(THEME_FILE_MAX + 1);
	size_t n = data ? fread(data, 1, THEME_FILE_MAX + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	int rc = -1;
	if (!data)
		snprintf(msg, msglen, "%s: out of memory", path);
	else if (bad)
		snprintf(msg, msglen, "%s: read error", path);
	else if (n > THEME_FILE_MAX)
		snprintf(msg, msglen, "%s: larger than %d bytes", path,
			 THEME_FILE_MAX);
	else {
		char name[64];
		name_from_path(path, name, sizeof name);
		rc = tui_theme_parse(t, data, n, path, msg, msglen);
		if (rc == 0 && strcmp(t->name, "default") == 0)
			snprintf(t->name, sizeof t->name, "%s", name);
	}
	free(data);
	return rc;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int tui_theme_find(const char *name, const char *const *dirs, size_t ndirs,
		   char *path, size_t pathlen)
{
	if (strchr(name, '/')) {
		snprintf(path, pathlen, "%s", name);
		return is_file(path) ? 0 : -1;
	}
	for (size_t i = 0; i < ndirs; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, pathlen, "%s/%s.yaml", dirs[i], name);
		if (is_file(path))
			return 0;
	}
	return -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Add name unless it is already listed; returns the new count. */
static size_t add_name(char (*names)[64], size_t n, size_t max,
		       const char *file)
{
	char name[64];
	name_from_path(file, name, sizeof name);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return n;
	if (n < max)
		snprintf(names[n++], 64, "%s", name);
	return n;
}

size_t tui_theme_list(const char *const *dirs, size_t ndirs,
		      char (*names)[64], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < ndirs; i++) {
		DIR *d = dirs[i] && *dirs[i] ? opendir(dirs[i]) : NULL;
		struct dirent *de;
		while (d && (de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (len > 5 && de->d_name[0] != '.' &&
			    strcmp(de->d_name + len - 5, ".yaml") == 0)
				n = add_name(names, n, max, de->d_name);
		}
		if (d)
			closedir(d);
	}
	qsort(names, n, sizeof names[0], name_cmp);
	return n;
}

#ifndef PYRT_THEME_SOURCE_DIR
#define PYRT_THEME_SOURCE_DIR ""
#endif
#ifndef PYRT_THEME_INSTALL_REL
#define PYRT_THEME_INSTALL_REL "../share/pyrt/themes"
#endif

/* The installed themes are looked for next to the binary, so a relocated
 * or DESTDIR install finds its own. */
void tui_theme_dirs_init(tui_theme_dirs *d)
{
	const char *env = getenv("PYRT_THEME_DIR");
	char exe[PATH_MAX];
	/* a cut path would name another folder: none */
	if (pyrt_fmt_path(d->buf[0], sizeof d->buf[0], NULL, "%s",
			  env ? env : ""))
		d->buf[0][0] = '\0';
	d->buf[1][0] = '\0';
	char *slash = pyrt_os_self_exe(exe, sizeof exe) == 0
		      ? strrchr(exe, '/') : NULL;
	if (slash) {
		*slash = '\0';
		if (pyrt_fmt_path(d->buf[1], sizeof d->buf[1], NULL,
				  "%s/" PYRT_THEME_INSTALL_REL, exe))
			d->buf[1][0] = '\0';
	}
	if (pyrt_fmt_path(d->buf[2], sizeof d->buf[2], NULL, "%s",
			  PYRT_THEME_SOURCE_DIR))
		d->buf[2][0] = '\0';
	for (int i = 0; i < TUI_THEME_DIRS; i++)
		d->dirs[i] = d->buf[i];
}

/* The notice for a theme file that did not load.  Its message starts with
 * the file's path, which can be longer than the row: the file's name and
 * line come first and the directory last, so what was wrong is not cut
 * off wherever the box or the themes live. */
static void load_notice(char *out, size_t len, const char *path,
			const char *msg)
{
	const char *slash = strrchr(path, '/');
	size_t plen = strlen(path);
	if (!slash || strncmp(msg, path, plen) != 0)
		pyrt_fmt_text(out, len, "using the default theme; %s", msg);
	else
		pyrt_fmt_text(out, len, "using the default theme; %s%s "
			      "(in %.*s)", slash + 1, msg + plen,
			      (int)(slash - path), path);
}

int tui_theme_select(tui_theme *t, const tui_theme_dirs *d, const char *name,
		     int quiet_missing, char *msg, size_t msglen)
{
	char path[PATH_MAX], why[768];
	tui_theme loaded;
	msg[0] = '\0';
	if (tui_theme_find(name, d->dirs, TUI_THEME_DIRS, path,
			   sizeof path) != 0) {
		tui_theme_default(t);
		if (!quiet_missing)
			pyrt_fmt_text(msg, msglen, "using the default theme; "
				      "theme '%s' not found (looked in "
				      "$PYRT_THEME_DIR, share/pyrt/themes, "
				      "the source tree)", name);
		return -1;
	}
	if (tui_theme_load_file(&loaded, path, why, sizeof why) != 0) {
		tui_theme_default(t);
		load_notice(msg, msglen, path, why);
		return -1;
	}
	*t = loaded;
	return 0;
}

int tui_theme_next(const tui_theme_dirs *d, const char *current, char *name,
		   size_t namelen)
{
	char (*names)[64] = calloc(TUI_THEMES_MAX, sizeof *names);
	size_t n = names ? tui_theme_list(d->dirs, TUI_THEME_DIRS, names,
					   TUI_THEMES_MAX) : 0;
	size_t next = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], current) == 0)
			next = (i + 1) % n;
	int rc = n ? pyrt_fmt_text(name, namelen, "%s", names[next]) : -1;
	free(names);
	return rc ? -1 : 0;
}
