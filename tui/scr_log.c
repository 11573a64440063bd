/*
 * The log viewer: an install log, a pip log, or this session's lines, with
 * scrolling, `/` search (case-insensitive), `n`/`N` for the next and
 * previous match, and Tab to step through the logs under the box.  A long
 * line is never lost: `w` wraps every line whole over as many rows as it
 * needs, and without wrapping Left/Right scroll sideways.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/text.h"
#include "core/runtime/box.h"
#include "tui/loop.h"
#include "tui/format.h"

#define LOG_BYTES_MAX (8u << 20)
#define LOG_FILES_MAX 24
#define LINE_SHOWN_MAX 16384   /* of one line, cleaned, for the screen */
#define HSTEP 20               /* columns Left/Right move */

struct tui_logview {
	char **lines;
	size_t n;
	char source[4096];        /* the file, or "" for the session */
	size_t top;
	char query[128];
	char input[128];
	int typing;               /* the search prompt is open */
	long match;               /* line of the current match, -1 */
	char status[4096 + 64]; /* "cannot open PATH": the path whole */
	char files[LOG_FILES_MAX][4096];  /* under the box, newest first */
	size_t nfiles;
	int at;                   /* -1: session, else files[at] */
	int wrap;                 /* w: long lines over several rows */
	size_t hcol;              /* without wrap: first column shown */
	size_t last;              /* the last line the screen showed */
	int path_rows;            /* rows the file's path takes (1 or 2) */
};

tui_logview *tui_log_new(void)
{
	tui_logview *l = calloc(1, sizeof *l);
	if (l)
		l->match = -1;
	return l;
}

static void clear_lines(tui_logview *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->lines[i]);
	free(l->lines);
	l->lines = NULL;
	l->n = 0;
}

void tui_log_free(tui_logview *l)
{
	if (!l)
		return;
	clear_lines(l);
	free(l);
}

/* Keep one line (without its \r); a failed allocation drops it. */
static void add_line(tui_logview *l, const char *s, size_t len)
{
	char **grown = realloc(l->lines, (l->n + 1) * sizeof *l->lines);
	if (!grown)
		return;
	l->lines = grown;
	if (len && s[len - 1] == '\r')
		len--;
	l->lines[l->n] = strndup(s, len);
	if (l->lines[l->n])
		l->n++;
}

/* The file's lines (its last LOG_BYTES_MAX bytes when larger). */
static void load_file(tui_logview *l, const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f) {
		snprintf(l->status, sizeof l->status, "cannot open %s", path);
		return;
	}
	if (fstat(fileno(f), &st) == 0 && st.st_size > (off_t)LOG_BYTES_MAX)
		fseeko(f, st.st_size - (off_t)LOG_BYTES_MAX, SEEK_SET);
	char *buf = malloc(LOG_BYTES_MAX + 1);
	size_t n = buf ? fread(buf, 1, LOG_BYTES_MAX, f) : 0;
	fclose(f);
	size_t start = 0;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n') {
			add_line(l, buf + start, i - start);
			start = i + 1;
		}
	if (start < n)
		add_line(l, buf + start, n - start);
	free(buf);
}

/* What the engine logged in this session (the view model's ring). */
static void load_session(tui_logview *l, tui_app *a)
{
	tui_line *lines = NULL;
	size_t n = tui_model_all_lines(a->model, &lines);
	for (size_t i = 0; i < n; i++)
		add_line(l, lines[i].text, strlen(lines[i].text));
	free(lines);
	if (!n)
		snprintf(l->status, sizeof l->status,
			 "nothing logged in this session yet; Tab shows the logs under the box");
}

/* A log file and when it was last written. */
typedef struct log_file {
	char name[256];
	struct timespec mtime;
} log_file;

static int newest_first(const void *x, const void *y)
{
	const log_file *a = x, *b = y;
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? 1 : -1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The .log files under <box>/runtime/python/logs, newest first. */
static void list_files(tui_logview *l, const char *box_root)
{
	pyrt_box *box = NULL;
	l->nfiles = 0;
	if (pyrt_box_open(&box, box_root, 0, NULL) != 0)
		return;
	const char *dir = pyrt_box_logs_dir(box);
	DIR *d = opendir(dir);
	struct dirent *de;
	log_file *files = calloc(256, sizeof *files);
	size_t n = 0;
	while (d && files && n < 256 && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (len <= 4 || strcmp(de->d_name + len - 4, ".log") != 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		snprintf(files[n].name, sizeof files[n].name, "%s", de->d_name);
		files[n++].mtime = st.st_mtim;
	}
	if (d)
		closedir(d);
	if (files)
		qsort(files, n, sizeof *files, newest_first);
	for (size_t i = 0; i < n && l->nfiles < LOG_FILES_MAX; i++)
		snprintf(l->files[l->nfiles++], sizeof l->files[0], "%s/%s", dir,
			 files[i].name);
	free(files);
	pyrt_box_free(box);
}

static size_t max_top(const tui_logview *l, const tui_app *a);

/* The path shows whole over two rows when one is not enough. */
static void set_path_rows(tui_logview *l, const tui_app *a)
{
	int r = l->source[0] ? tui_draw_path_rows(&a->paint, COLS - 2, l->source)
			     : 1;
	l->path_rows = r > 2 ? 2 : r;
}

/* Show source at (-1: the session). */
static void load_at(tui_logview *l, tui_app *a, int at)
{
	clear_lines(l);
	l->top = 0;
	l->match = -1;
	l->status[0] = '\0';
	l->at = at;
	if (at < 0) {
		l->source[0] = '\0';
		load_session(l, a);
	} else {
		snprintf(l->source, sizeof l->source, "%s", l->files[at]);
		load_file(l, l->source);
	}
	/* Logs are read from the end: start where the story ends. */
	set_path_rows(l, a);
	l->top = max_top(l, a);
}

void tui_log_load(tui_logview *l, tui_app *a, const char *path)
{
	list_files(l, a->opts->box_root);
	l->typing = 0;
	if (path && !*path) {
		load_at(l, a, -1);
		return;
	}
	if (path) {
		int at = -1;
		for (size_t i = 0; i < l->nfiles; i++)
			if (strcmp(l->files[i], path) == 0)
				at = (int)i;
		if (at < 0 && l->nfiles < LOG_FILES_MAX) {
			snprintf(l->files[l->nfiles], sizeof l->files[0], "%s",
				 path);
			at = (int)l->nfiles++;
		}
		load_at(l, a, at);
		return;
	}
	load_at(l, a, l->nfiles ? 0 : -1);
}

static int view_height(const tui_logview *l)
{
	return LINES - 4 - (l->path_rows > 1 ? 2 : 1); /* title, path, status, footer, gap */
}

/* Line i cleaned for this terminal. */
static void clean_line(const tui_logview *l, const tui_app *a, size_t i,
		       char *out, size_t len)
{
	pyrt_sanitize(l->lines[i], a->paint.utf8, out, len);
}

/* Rows line i takes at width (1 unless wrapping). */
static int line_rows(const tui_logview *l, const tui_app *a, size_t i,
		     int width)
{
	static char clean[LINE_SHOWN_MAX];
	if (!l->wrap || width <= 0)
		return 1;
	clean_line(l, a, i, clean, sizeof clean);
	size_t n = tui_format_chunks(clean, (size_t)width, NULL, NULL, 0);
	return n ? (int)n : 1;
}

/* The highest top that still fills the view to the last line. */
static size_t max_top(const tui_logview *l, const tui_app *a)
{
	int h = view_height(l), rows = 0;
	size_t top = l->n;
	while (top > 0) {
		int r = line_rows(l, a, top - 1, COLS - 2);
		if (rows + r > h)
			break;
		rows += r;
		top--;
	}
	if (top == l->n && l->n) /* one line longer than the view */
		top = l->n - 1;
	return top;
}

static tui_role line_role(const tui_logview *l, size_t at)
{
	const char *s = l->lines[at];
	return (long)at == l->match ? TUI_ROLE_SELECTION
		: l->query[0] && strcasestr(s, l->query) ? TUI_ROLE_ACCENT
		: strstr(s, " warn ") || strstr(s, "ERROR") ? TUI_ROLE_WARN
		: TUI_ROLE_TEXT;
}

/* One line from row y: whole over several rows (wrap), or from column
 * hcol; returns the rows used. */
static int draw_line(tui_app *a, int y, int rows_left, size_t at)
{
	static char clean[LINE_SHOWN_MAX];
	tui_logview *l = a->log;
	int w = COLS - 2;
	tui_role role = line_role(l, at);
	clean_line(l, a, at, clean, sizeof clean);
	if (!l->wrap) {
		if (role == TUI_ROLE_SELECTION)
			tui_draw_fill(&a->paint, y, 1, w, role);
		tui_draw_text(&a->paint, y, 1, w, role,
			      clean + tui_format_skip(clean, l->hcol));
		return 1;
	}
	size_t start[64], len[64];
	size_t n = tui_format_chunks(clean, (size_t)w, start, len, 64);
	int rows = 0;
	for (size_t i = 0; i < n && i < 64 && rows < rows_left; i++, rows++) {
		char piece[LINE_SHOWN_MAX];
		snprintf(piece, sizeof piece, "%.*s", (int)len[i], clean + start[i]);
		if (role == TUI_ROLE_SELECTION)
			tui_draw_fill(&a->paint, y + rows, 1, w, role);
		tui_draw_text(&a->paint, y + rows, 1, w, role, piece);
	}
	return rows ? rows : 1;
}

/* The lines from top, matches highlighted, and the search prompt or
 * the position below them. */
void tui_log_draw(tui_app *a)
{
	static const char *const keys[] = {
		"Up/Down", "scroll", "w", "wrap", "Left/Right", "sideways",
		"/", "search", "n/N", "next/prev", "Tab", "next log",
		"Esc/q", "back", NULL,
	};
	tui_logview *l = a->log;
	char title[256], pos[96];
	const char *base = strrchr(l->source, '/');
	/* The title row shows the file's name; a longer one is cut there. */
	snprintf(title, sizeof title, "pyrt %s Log %s %.200s", a->paint.g->dot,
		 a->paint.g->dash, l->source[0] ? (base ? base + 1 : l->source)
						: "this session");
	tui_draw_titlebar(&a->paint, title, "pyrt " PYRT_VERSION);
	/* The file's path whole: over a second row when it needs one. */
	set_path_rows(l, a);
	tui_draw_path_wrap(&a->paint, 1, 1, COLS - 2, l->path_rows, TUI_ROLE_DIM,
			   l->source[0] ? l->source
					: "lines pyrt logged since it started");
	int h = view_height(l), y0 = 1 + l->path_rows, rows = 0;
	l->last = l->top;
	for (size_t at = l->top; at < l->n && rows < h; at++) {
		rows += draw_line(a, y0 + rows, h - rows, at);
		l->last = at;
	}
	int y = LINES - 2;
	tui_draw_fill(&a->paint, y, 0, COLS, TUI_ROLE_TEXT);
	if (l->typing) {
		char prompt[160];
		snprintf(prompt, sizeof prompt, "/%s_", l->input);
		tui_draw_text(&a->paint, y, 1, COLS - 2, TUI_ROLE_ACCENT, prompt);
	} else {
		char side[40] = "";
		if (l->wrap)
			snprintf(side, sizeof side, ", wrapped");
		else if (l->hcol)
			snprintf(side, sizeof side, ", from column %zu", l->hcol + 1);
		snprintf(pos, sizeof pos, "line %zu-%zu of %zu%s",
			 l->n ? l->top + 1 : 0, l->n ? l->last + 1 : 0, l->n, side);
		int pw = (int)strlen(pos);
		tui_draw_text(&a->paint, y, 1, COLS - pw - 4, TUI_ROLE_WARN,
			      l->status);
		tui_draw_text(&a->paint, y, COLS - pw - 1, pw, TUI_ROLE_DIM, pos);
	}
	tui_draw_footer(&a->paint, keys);
}

/* Scroll so line at is in view (a third from the top). */
static void show_line(tui_logview *l, size_t at)
{
	int h = view_height(l);
	if (at >= l->top && at < l->top + (size_t)h)
		return;
	l->top = at > (size_t)h / 3 ? at - (size_t)h / 3 : 0;
}

/* The next (dir 1) or previous (dir -1) line matching the query. */
static void find(tui_logview *l, int dir)
{
	if (!l->query[0]) {
		snprintf(l->status, sizeof l->status, "no search yet: press / to search");
		return;
	}
	if (!l->n) {
		snprintf(l->status, sizeof l->status, "not found: %s", l->query);
		return;
	}
	long from = l->match >= 0 ? l->match : (long)l->top - (dir > 0);
	for (size_t k = 1; k <= l->n; k++) {
		long i = ((from + dir * (long)k) % (long)l->n + (long)l->n) %
			 (long)l->n;
		if (strcasestr(l->lines[i], l->query)) {
			int wrapped = dir > 0 ? i <= from : i >= from;
			l->match = i;
			show_line(l, (size_t)i);
			snprintf(l->status, sizeof l->status, "/%s: line %ld%s",
				 l->query, i + 1,
				 wrapped && from >= 0 ? " (search wrapped)" : "");
			return;
		}
	}
	l->match = -1;
	snprintf(l->status, sizeof l->status, "not found: %s", l->query);
}

/* Keys while the search prompt is open. */
static void prompt_key(tui_logview *l, int ch)
{
	size_t len = strlen(l->input);
	if (ch == TUI_KEY_ESC) {
		l->typing = 0;
	} else if (ch == TUI_KEY_ENTER_LF || ch == TUI_KEY_ENTER_CR ||
		   ch == KEY_ENTER) {
		l->typing = 0;
		if (l->input[0]) {
			snprintf(l->query, sizeof l->query, "%s", l->input);
			l->match = -1;
			find(l, 1);
		}
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			l->input[len - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && len + 1 < sizeof l->input) {
		l->input[len] = (char)ch;
		l->input[len + 1] = '\0';
	}
}

/* Move the view, kept within the file. */
static void scroll_by(tui_logview *l, const tui_app *a, long delta)
{
	long max = (long)max_top(l, a);
	long top = (long)l->top + delta;
	l->top = (size_t)(top < 0 ? 0 : top > max ? max : top);
}

/* less-like keys; while the prompt is open every key goes to it. */
void tui_log_key(tui_app *a, int ch)
{
	tui_logview *l = a->log;
	a->full = 1;
	if (l->typing) {
		prompt_key(l, ch);
		return;
	}
	l->status[0] = '\0';
	switch (ch) {
	case KEY_UP: case 'k': scroll_by(l, a, -1); break;
	case KEY_DOWN: case 'j': scroll_by(l, a, 1); break;
	case KEY_PPAGE: case 'b': scroll_by(l, a, -view_height(l)); break;
	case KEY_NPAGE: case ' ': scroll_by(l, a, view_height(l)); break;
	case KEY_HOME: case 'g': l->top = 0; break;
	case KEY_END: case 'G': scroll_by(l, a, (long)l->n); break;
	case 'w': case 'W':
		l->wrap = !l->wrap;
		l->hcol = 0;
		/* The match found last stays in view, at the top. */
		if (l->match >= 0)
			l->top = (size_t)l->match;
		scroll_by(l, a, 0);
		break;
	case KEY_RIGHT: case '>':
		if (!l->wrap)
			l->hcol += HSTEP;
		break;
	case KEY_LEFT: case '<':
		l->hcol = l->hcol > HSTEP ? l->hcol - HSTEP : 0;
		break;
	case '/': l->typing = 1; l->input[0] = '\0'; break;
	case 'n': find(l, 1); break;
	case 'N': find(l, -1); break;
	case '\t':
		load_at(l, a, l->at + 1 < (int)l->nfiles ? l->at + 1 : -1);
		break;
	case TUI_KEY_ESC: case 'q': case 'Q': case TUI_KEY_CTRL_C:
		tui_app_show(a, a->log_back);
		break;
	}
}
