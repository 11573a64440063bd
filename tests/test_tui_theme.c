/* ctest: test_tui_theme */
/* tui/theme: colour words, the 8/16-colour fallback, theme files (partial,
 * broken, unknown roles), lookup and listing of the shipped themes. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tui/theme.h"

Test(tui_theme, colour_words)
{
	cr_assert_eq(tui_theme_parse_color("default"), TUI_COLOR_DEFAULT);
	cr_assert_eq(tui_theme_parse_color("black"), 0);
	cr_assert_eq(tui_theme_parse_color("white"), 7);
	cr_assert_eq(tui_theme_parse_color("Cyan"), 6);
	cr_assert_eq(tui_theme_parse_color("bright-red"), 9);
	cr_assert_eq(tui_theme_parse_color("brightblue"), 12);
	cr_assert_eq(tui_theme_parse_color("bright_white"), 15);
	cr_assert_eq(tui_theme_parse_color("grey"), 8);
	cr_assert_eq(tui_theme_parse_color("0"), 0);
	cr_assert_eq(tui_theme_parse_color("234"), 234);
	cr_assert_eq(tui_theme_parse_color("255"), 255);
	cr_assert_eq(tui_theme_parse_color("256"), -2);
	cr_assert_eq(tui_theme_parse_color("12x"), -2);
	cr_assert_eq(tui_theme_parse_color("purpel"), -2);
	cr_assert_eq(tui_theme_parse_color(""), -2);
	cr_assert_eq(tui_theme_parse_color(NULL), -2);
}

Test(tui_theme, fallback_keeps_what_the_terminal_has)
{
	int bold;
	cr_assert_eq(tui_theme_fallback_color(234, 256, &bold), 234);
	cr_assert_eq(bold, 0);
	cr_assert_eq(tui_theme_fallback_color(TUI_COLOR_DEFAULT, 8, &bold),
		     TUI_COLOR_DEFAULT);
	cr_assert_eq(tui_theme_fallback_color(3, 8, &bold), 3);
}

Test(tui_theme, fallback_to_eight_colours)
{
	int bold;
	/* Named bright colours: the plain one, bold. */
	cr_assert_eq(tui_theme_fallback_color(9, 8, &bold), 1);
	cr_assert_eq(bold, 1);
	/* 256-colour numbers: the nearest of the eight by the xterm palette. */
	cr_assert_eq(tui_theme_fallback_color(234, 8, &bold), 0); /* near black */
	cr_assert_eq(bold, 0);
	cr_assert_eq(tui_theme_fallback_color(160, 8, &bold), 1); /* red */
	cr_assert_eq(tui_theme_fallback_color(64, 8, &bold), 2);  /* green */
	cr_assert_eq(tui_theme_fallback_color(37, 8, &bold), 6);  /* cyan */
	cr_assert_eq(tui_theme_fallback_color(250, 8, &bold), 7); /* light grey */
	/* Grey is nearer white than black: text stays readable. */
	cr_assert_eq(tui_theme_fallback_color(8, 8, &bold), 7);
}

Test(tui_theme, fallback_to_sixteen_colours)
{
	int bold;
	cr_assert_eq(tui_theme_fallback_color(9, 16, &bold), 9);
	cr_assert_eq(tui_theme_fallback_color(196, 16, &bold), 9); /* bright red */
	cr_assert_eq(tui_theme_fallback_color(231, 16, &bold), 15); /* white */
	cr_assert_eq(bold, 0);
}

static int parse(tui_theme *t, const char *doc, char *msg, size_t len)
{
	return tui_theme_parse(t, doc, strlen(doc), "t.yaml", msg, len);
}

Test(tui_theme, a_file_overrides_only_the_roles_it_names)
{
	tui_theme t, d;
	char msg[512];
	tui_theme_default(&d);
	cr_assert_eq(parse(&t, "name: mine\nroles:\n  accent: { fg: 208, attrs: [bold, underline] }\n  text: { bg: blue }\n",
			   msg, sizeof msg), 0, "%s", msg);
	cr_assert_str_eq(t.name, "mine");
	cr_assert_eq(t.roles[TUI_ROLE_ACCENT].fg, 208);
	cr_assert_eq(t.roles[TUI_ROLE_ACCENT].attrs,
		     TUI_ATTR_BOLD | TUI_ATTR_UNDERLINE);
	cr_assert_eq(t.roles[TUI_ROLE_TEXT].bg, 4);
	cr_assert_eq(t.roles[TUI_ROLE_TEXT].fg, d.roles[TUI_ROLE_TEXT].fg);
	cr_assert_eq(memcmp(&t.roles[TUI_ROLE_ERROR], &d.roles[TUI_ROLE_ERROR],
			    sizeof t.roles[0]), 0);
}

Test(tui_theme, attrs_as_a_word_or_none)
{
	tui_theme t;
	char msg[512];
	cr_assert_eq(parse(&t, "roles:\n  ok: { attrs: reverse }\n  warn: { attrs: [] }\n  error: { attrs: none }\n",
			   msg, sizeof msg), 0, "%s", msg);
	cr_assert_eq(t.roles[TUI_ROLE_OK].attrs, TUI_ATTR_REVERSE);
	cr_assert_eq(t.roles[TUI_ROLE_WARN].attrs, 0);
	cr_assert_eq(t.roles[TUI_ROLE_ERROR].attrs, 0);
}

/* A broken theme: one line naming the file and line, and the default. */
static void assert_broken(const char *doc, const char *want_in_msg)
{
	tui_theme t, d;
	char msg[512];
	tui_theme_default(&d);
	cr_assert_eq(parse(&t, doc, msg, sizeof msg), -1);
	cr_assert_not_null(strstr(msg, want_in_msg), "message: %s", msg);
	cr_assert_eq(strncmp(msg, "t.yaml:", 7), 0, "message: %s", msg);
	cr_assert_null(strchr(msg, '\n'));
	cr_assert_eq(memcmp(t.roles, d.roles, sizeof t.roles), 0);
	cr_assert_str_eq(t.name, "default");
}

Test(tui_theme, unknown_colour_names_the_role_and_line)
{
	assert_broken("roles:\n  text: { fg: purpel }\n",
		      "t.yaml:2: text.fg: unknown colour 'purpel'");
}

Test(tui_theme, unknown_role_attr_and_key_are_refused)
{
	assert_broken("roles:\n  sparkle: { fg: red }\n", "unknown role 'sparkle'");
	assert_broken("roles:\n  ok: { attrs: [blink] }\n",
		      "ok.attrs: unknown attribute 'blink'");
	assert_broken("roles:\n  ok: { colour: red }\n", "unknown key 'colour'");
	assert_broken("colours: {}\n", "unknown key 'colours'");
	assert_broken("roles:\n  ok: red\n", "role 'ok': expected a mapping");
	assert_broken("- a\n- b\n", "expected a mapping");
}

Test(tui_theme, invalid_yaml_is_one_line)
{
	assert_broken("roles: { text: [\n", "invalid YAML");
}

Test(tui_theme, deep_nesting_and_aliases_are_refused)
{
	size_t depth = 30000;
	char *doc = malloc(32 + 2 * depth), *o = doc;
	cr_assert_not_null(doc);
	o = stpcpy(o, "name: x\nroles: ");
	memset(o, '[', depth);
	memset(o + depth, ']', depth);
	strcpy(o + 2 * depth, "\n");
	assert_broken(doc, "t.yaml:2: nesting deeper than 32 levels");
	free(doc);
	assert_broken("roles:\n  text: &s { fg: red }\n  accent: *s\n",
		      "t.yaml:3: alias *s: pyrt reads YAML without aliases");
	assert_broken("name: &a [l, l, l, l, l, l, l, l]\n"
		      "roles: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n",
		      "t.yaml:2: alias *a");
}

Test(tui_theme, a_partial_failure_leaves_no_half_theme)
{
	/* accent parses, then error fails: nothing of accent may stay. */
	assert_broken("roles:\n  accent: { fg: 1 }\n  error: { fg: nope }\n",
		      "error.fg");
}

Test(tui_theme, load_file_names_the_theme_after_the_file)
{
	char *dir = pt_tmpdir("theme");
	char *path = pt_join(dir, "ocean.yaml");
	char msg[512];
	tui_theme t;
	pt_write(path, "roles:\n  accent: { fg: blue }\n");
	cr_assert_eq(tui_theme_load_file(&t, path, msg, sizeof msg), 0, "%s", msg);
	cr_assert_str_eq(t.name, "ocean");
	cr_assert_eq(t.roles[TUI_ROLE_ACCENT].fg, 4);
	free(path);
	path = pt_join(dir, "missing.yaml");
	cr_assert_eq(tui_theme_load_file(&t, path, msg, sizeof msg), -1);
	cr_assert_not_null(strstr(msg, "missing.yaml"));
	free(path);
	pt_rmtree(dir);
	free(dir);
}

Test(tui_theme, find_and_list_in_directories_in_order)
{
	char *a = pt_tmpdir("themes-a"), *b = pt_tmpdir("themes-b");
	char path[4096], names[8][64];
	char *p1 = pt_join(a, "one.yaml"), *p2 = pt_join(b, "one.yaml");
	char *p3 = pt_join(b, "two.yaml"), *p4 = pt_join(b, "notes.txt");
	pt_write(p1, "name: one-a\n");
	pt_write(p2, "name: one-b\n");
	pt_write(p3, "name: two\n");
	pt_write(p4, "not a theme\n");
	const char *dirs[] = { "", a, b };
	cr_assert_eq(tui_theme_find("one", dirs, 3, path, sizeof path), 0);
	cr_assert_str_eq(path, p1); /* the first directory wins */
	cr_assert_eq(tui_theme_find("two", dirs, 3, path, sizeof path), 0);
	cr_assert_str_eq(path, p3);
	cr_assert_eq(tui_theme_find("three", dirs, 3, path, sizeof path), -1);
	cr_assert_eq(tui_theme_find(p3, dirs, 0, path, sizeof path), 0);
	cr_assert_str_eq(path, p3); /* a path is used as it is */
	cr_assert_eq(tui_theme_list(dirs, 3, names, 8), 2);
	cr_assert_str_eq(names[0], "one");
	cr_assert_str_eq(names[1], "two");
	free(p1); free(p2); free(p3); free(p4);
	pt_rmtree(a);
	pt_rmtree(b);
	free(a);
	free(b);
}

/* t is the default theme def: its name and every role.  Not one memcmp of
 * the whole struct: the bytes of name after its NUL are whatever the
 * buffer held before, and differ between two themes that are the same. */
static void assert_is_default(const tui_theme *t, const tui_theme *def)
{
	cr_assert_str_eq(t->name, def->name);
	cr_assert_eq(memcmp(t->roles, def->roles, sizeof t->roles), 0);
}

/* Theme folders with dir first and nothing else. */
static void only_dir(tui_theme_dirs *d, const char *dir)
{
	memset(d, 0, sizeof *d);
	d->dirs[0] = dir;
	d->dirs[1] = d->dirs[2] = "";
}

/* Selecting a theme: found and loaded, missing (quietly or with the
 * notice), or broken (the default, with the file's name and line first and
 * its folder last). */
Test(tui_theme, select_loads_or_says_why_it_is_the_default)
{
	char *dir = pt_tmpdir("themes-sel");
	char *good = pt_join(dir, "good.yaml"), *bad = pt_join(dir, "bad.yaml");
	pt_write(good, "roles:\n  accent: { fg: blue }\n");
	pt_write(bad, "roles:\n  accent: { fg: purpel }\n");
	tui_theme_dirs d;
	only_dir(&d, dir);
	tui_theme t, def;
	tui_theme_default(&def);
	char msg[512];
	cr_assert_eq(tui_theme_select(&t, &d, "good", 0, msg, sizeof msg), 0);
	cr_assert_str_eq(t.name, "good");
	cr_assert_eq(t.roles[TUI_ROLE_ACCENT].fg, 4);
	cr_assert_str_eq(msg, "");
	cr_assert_eq(tui_theme_select(&t, &d, "gone", 1, msg, sizeof msg), -1);
	cr_assert_str_eq(msg, "");
	assert_is_default(&t, &def);
	cr_assert_eq(tui_theme_select(&t, &d, "gone", 0, msg, sizeof msg), -1);
	cr_assert_not_null(strstr(msg, "using the default theme; theme 'gone' "
				  "not found"), "%s", msg);
	cr_assert_eq(tui_theme_select(&t, &d, "bad", 0, msg, sizeof msg), -1);
	assert_is_default(&t, &def);
	cr_assert_eq(strncmp(msg, "using the default theme; bad.yaml:2: ", 37),
		     0, "%s", msg);
	char *in = NULL;
	cr_assert_neq(asprintf(&in, "(in %s)", dir), -1);
	cr_assert_not_null(strstr(msg, in), "%s", msg);
	free(in);
	free(good); free(bad);
	pt_rmtree(dir);
	free(dir);
}

/* The `t` key's order: the listing's, round, from wherever it is. */
Test(tui_theme, next_cycles_the_listing)
{
	char *dir = pt_tmpdir("themes-next");
	char *p1 = pt_join(dir, "aa.yaml"), *p2 = pt_join(dir, "bb.yaml");
	tui_theme_dirs d;
	only_dir(&d, dir);
	char name[64];
	cr_assert_eq(tui_theme_next(&d, "aa", name, sizeof name), -1);
	pt_write(p1, "name: aa\n");
	pt_write(p2, "name: bb\n");
	cr_assert_eq(tui_theme_next(&d, "aa", name, sizeof name), 0);
	cr_assert_str_eq(name, "bb");
	cr_assert_eq(tui_theme_next(&d, "bb", name, sizeof name), 0);
	cr_assert_str_eq(name, "aa");
	cr_assert_eq(tui_theme_next(&d, "built-in", name, sizeof name), 0);
	cr_assert_str_eq(name, "aa");
	free(p1); free(p2);
	pt_rmtree(dir);
	free(dir);
}

/* $PYRT_THEME_DIR comes first, as it is. */
Test(tui_theme, dirs_start_with_the_environment)
{
	tui_theme_dirs d;
	setenv("PYRT_THEME_DIR", "/somewhere/themes", 1);
	tui_theme_dirs_init(&d);
	cr_assert_str_eq(d.dirs[0], "/somewhere/themes");
	cr_assert_not_null(strstr(d.dirs[1], "share/pyrt/themes"), "%s",
			   d.dirs[1]);
	unsetenv("PYRT_THEME_DIR");
	tui_theme_dirs_init(&d);
	cr_assert_str_eq(d.dirs[0], "");
}

/* Every theme shipped in themes/ parses, and the four the issue names
 * are there. */
Test(tui_theme, shipped_themes_parse)
{
	char *dir = pt_join(pt_source_dir(), "themes");
	const char *dirs[] = { dir };
	char names[32][64], path[4096], msg[512];
	size_t n = tui_theme_list(dirs, 1, names, 32);
	const char *want[] = { "default", "high-contrast", "monochrome",
			       "solarized-dark" };
	for (size_t w = 0; w < 4; w++) {
		int found = 0;
		for (size_t i = 0; i < n; i++)
			found |= strcmp(names[i], want[w]) == 0;
		cr_assert(found, "themes/%s.yaml is missing", want[w]);
	}
	for (size_t i = 0; i < n; i++) {
		tui_theme t;
		cr_assert_eq(tui_theme_find(names[i], dirs, 1, path, sizeof path), 0);
		cr_assert_eq(tui_theme_load_file(&t, path, msg, sizeof msg), 0,
			     "%s", msg);
		cr_assert_str_eq(t.name, names[i]);
	}
	free(dir);
}

Test(tui_theme, shipped_default_matches_the_compiled_in_table)
{
	char *path = pt_join(pt_source_dir(), "themes/default.yaml");
	char msg[512];
	tui_theme file, builtin;
	tui_theme_default(&builtin);
	cr_assert_eq(tui_theme_load_file(&file, path, msg, sizeof msg), 0, "%s", msg);
	for (int r = 0; r < TUI_ROLE__COUNT; r++)
		cr_assert_eq(memcmp(&file.roles[r], &builtin.roles[r],
				    sizeof file.roles[r]), 0,
			     "role %s differs", tui_theme_role_name((tui_role)r));
	free(path);
}

Test(tui_theme, monochrome_has_no_colours)
{
	tui_theme t;
	tui_theme_monochrome(&t);
	for (int r = 0; r < TUI_ROLE__COUNT; r++) {
		cr_assert_eq(t.roles[r].fg, TUI_COLOR_DEFAULT);
		cr_assert_eq(t.roles[r].bg, TUI_COLOR_DEFAULT);
	}
	cr_assert(t.roles[TUI_ROLE_SELECTION].attrs & TUI_ATTR_REVERSE);
}
