/*
 * The smoke test's answer, run in the worker while a spinner turns: the
 * same words as `pyrt smoke`.
 */
#include <stdio.h>

#include "app/common.h"
#include "tui/loop.h"

/* A spinner while the smoke test runs, then its answer. */
void tui_smoke_draw(tui_app *a)
{
	static const char *const keys[] = {
		"s", "run again", "Esc/q", "back", NULL,
	};
	char line[1400], size[32];
	if (!a->full && !a->job_running)
		return;
	if (a->full) {
		tui_app_titlebar(a, "Smoke test");
		tui_draw_footer(&a->paint, keys);
	}
	if (a->job_running) {
		tui_app_busy(a, "Writing a .docx with the managed runtime and checking it");
		return;
	}
	if (a->smoke_code == 0) {
		tui_draw_text(&a->paint, 2, 2, 1, TUI_ROLE_OK, a->paint.g->ok);
		snprintf(line, sizeof line,
			 "smoke test passed: the managed runtime wrote a .docx holding \"%s\"",
			 a->smoke.paragraph);
		int n = tui_draw_wrap(&a->paint, 2, 4, COLS - 6, 3, TUI_ROLE_OK,
				      line);
		app_human_bytes(a->smoke.docx_bytes, size, sizeof size);
		snprintf(line, sizeof line,
			 "python-docx wrote it and pyrt found the paragraph in word/document.xml (%s, %.1fs)",
			 size, a->smoke.seconds);
		tui_draw_wrap(&a->paint, 3 + n, 4, COLS - 6, 2, TUI_ROLE_DIM, line);
		return;
	}
	tui_draw_text(&a->paint, 2, 2, 1, TUI_ROLE_ERROR, a->paint.g->fail);
	tui_draw_text(&a->paint, 2, 4, COLS - 6, TUI_ROLE_ERROR,
		      a->smoke_code == PYRT_E_CANCELLED ? "smoke test cancelled"
							: "smoke test failed");
	tui_draw_wrap(&a->paint, 4, 4, COLS - 6, 6, TUI_ROLE_TEXT,
		      a->smoke_error);
}

/* Rerun, or back (which cancels a running test first). */
void tui_smoke_key(tui_app *a, int ch)
{
	switch (ch) {
	case 's':
		tui_app_run(a, TUI_JOB_SMOKE, NULL);
		break;
	case TUI_KEY_ESC: case 'q': case 'Q': case TUI_KEY_CTRL_C:
		if (a->job_running)
			tui_model_cancel(a->model);
		else
			tui_app_show(a, TUI_SCR_DASHBOARD);
		break;
	}
}
