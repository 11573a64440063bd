/*
 * Colour themes: an enum of semantic roles and, per role, a style (fg, bg,
 * attributes).  A compiled-in default table always exists; themes/NAME.yaml
 * override it role by role:
 *
 *   name: solarized-dark
 *   roles:
 *     text:   { fg: 244, bg: 234 }
 *     accent: { fg: cyan, attrs: [bold] }
 *
 * Colours are names (default, black, red, green, yellow, blue, magenta,
 * cyan, white, bright-black … bright-white) or 0-255.  Pure: no curses
 * here (the screens apply a theme), so parsing and the colour fallback for
 * 8-colour terminals are unit-tested.
 */
#ifndef PYRT_TUI_THEME_H
#define PYRT_TUI_THEME_H

#include <stddef.h>

typedef enum tui_role {
	TUI_ROLE_BACKGROUND = 0,
	TUI_ROLE_TEXT,
	TUI_ROLE_DIM,
	TUI_ROLE_ACCENT,
	TUI_ROLE_OK,
	TUI_ROLE_WARN,
	TUI_ROLE_ERROR,
	TUI_ROLE_PROGRESS,
	TUI_ROLE_SELECTION,
	TUI_ROLE_BORDER,
	TUI_ROLE_TITLE,
	TUI_ROLE__COUNT
} tui_role;

#define TUI_COLOR_DEFAULT (-1)

enum {
	TUI_ATTR_BOLD = 1u << 0,
	TUI_ATTR_REVERSE = 1u << 1,
	TUI_ATTR_UNDERLINE = 1u << 2,
	TUI_ATTR_DIM = 1u << 3,
};

typedef struct tui_style {
	short fg;        /* TUI_COLOR_DEFAULT or 0-255 */
	short bg;
	unsigned attrs;  /* TUI_ATTR_* */
} tui_style;

typedef struct tui_theme {
	char name[64];
	tui_style roles[TUI_ROLE__COUNT];
} tui_theme;

/* The role's name in theme files: "background", "text", ... */
const char *tui_theme_role_name(tui_role role);

/* The compiled-in default theme. */
void tui_theme_default(tui_theme *t);

/* Attributes only, for --no-color and NO_COLOR. */
void tui_theme_monochrome(tui_theme *t);

/*
 * Parse a theme document over the default table (roles not named keep
 * the default's style).  On failure t is the default theme and msg holds
 * one line: "<source>:<line>: <what is wrong>".  Returns 0 or -1.
 */
int tui_theme_parse(tui_theme *t, const char *data, size_t len,
		    const char *source, char *msg, size_t msglen);

/* Read and parse a file; its name (without .yaml) names the theme unless
 * the file says `name:`. */
int tui_theme_load_file(tui_theme *t, const char *path, char *msg,
			size_t msglen);

/* A colour word ("red", "bright-blue", "default", "208") or -2 when it is
 * none of them. */
int tui_theme_parse_color(const char *word);

/*
 * The colour to use on a terminal with ncolors colours: unchanged when it
 * fits, else the nearest of the 8 (or 16) basic colours by the xterm
 * palette.  A bright colour shown as its plain one sets *bold so it stays
 * brighter.
 */
int tui_theme_fallback_color(int color, int ncolors, int *bold);

/*
 * Find NAME.yaml in the first of dirs that has it; a name with a '/' is a
 * path used as is.  Returns 0 with path filled, or -1.
 */
int tui_theme_find(const char *name, const char *const *dirs, size_t ndirs,
		   char *path, size_t pathlen);

/*
 * The theme names (file names without .yaml) found in dirs, sorted and
 * without duplicates, into names (at most max).  Returns how many.
 */
size_t tui_theme_list(const char *const *dirs, size_t ndirs,
		      char (*names)[64], size_t max);

/* Where theme files are looked for, in order: $PYRT_THEME_DIR, the
 * installed share/pyrt/themes next to the binary, the source tree's
 * themes/ (empty in a package build).  An empty entry is skipped. */
#define TUI_THEME_DIRS 3
#define TUI_THEMES_MAX 32 /* theme files the `t` key cycles through */
typedef struct tui_theme_dirs {
	const char *dirs[TUI_THEME_DIRS];
	char buf[TUI_THEME_DIRS][4096];
} tui_theme_dirs;

void tui_theme_dirs_init(tui_theme_dirs *d);

/*
 * Load theme name (a name in d, or a path) into t.  Returns 0, or -1 with
 * t the default theme and msg the one-line notice that says so and why
 * ("using the default theme; ..."), empty when the theme is missing and
 * quiet_missing is set.
 */
int tui_theme_select(tui_theme *t, const tui_theme_dirs *d, const char *name,
		     int quiet_missing, char *msg, size_t msglen);

/* The name of the theme after current in d's listing (the first when
 * current is not listed).  Returns 0, or -1 when there are no theme files. */
int tui_theme_next(const tui_theme_dirs *d, const char *current, char *name,
		   size_t namelen);

#endif
