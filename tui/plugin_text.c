/*
 * Plugin rows as text.  The words match `pyrt plugins` (verdict names; the
 * DEPS cell "2/4 ok" is app_plugin_deps itself), so what support staff
 * read on the dashboard and in a pasted terminal log is the same.
 */
#include "tui/plugin_text.h"

#include <stdio.h>
#include <string.h>

#include "app/common.h"
#include "app/plugin.h"

void tui_plugin_missing(const pyrt_plugin *pl, int runtime_ready, char *buf,
			size_t len)
{
	buf[0] = '\0';
	if (!app_plugin_checked(pl, runtime_ready))
		return;
	for (size_t i = 0; i < pl->require_count; i++) {
		const pyrt_requirement *q = &pl->requires[i];
		if (!q->installed)
			app_cat(buf, len, "%s%s", buf[0] ? ", " : "", q->name);
		else if (q->conflict)
			app_cat(buf, len, "%s%s %s (needs %s)", buf[0] ? ", " : "",
			    q->name, q->installed, q->spec);
	}
}

/* "python-docx, openpyxl" — every requirement as written. */
static void all_specs(const pyrt_plugin *pl, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < pl->require_count; i++)
		app_cat(buf, len, "%s%s", i ? ", " : "", pl->requires[i].spec);
}

void tui_plugin_explain(const pyrt_plugin *pl, int runtime_ready, char *buf,
			size_t len)
{
	char list[768];
	buf[0] = '\0';
	switch (pl->verdict) {
	case PYRT_VERDICT_READY:
		app_cat(buf, len, "%s: ready", pl->name);
		if (pl->require_count) {
			all_specs(pl, list, sizeof list);
			app_cat(buf, len, "; requires %s, all installed", list);
		}
		break;
	case PYRT_VERDICT_MISSING_DEPS:
		tui_plugin_missing(pl, runtime_ready, list, sizeof list);
		app_cat(buf, len, "%s: missing %s", pl->name, list[0] ? list : "requirements");
		break;
	case PYRT_VERDICT_NEEDS_RUNTIME:
		app_cat(buf, len, "%s: needs the managed runtime, which is not ready", pl->name);
		break;
	case PYRT_VERDICT_DISABLED:
		app_cat(buf, len, "%s: disabled in its plugin.yaml", pl->name);
		break;
	case PYRT_VERDICT_NO_RUNTIME_NEEDED:
		app_cat(buf, len, "%s: runs in the host process; needs no runtime", pl->name);
		break;
	case PYRT_VERDICT_INVALID:
		app_cat(buf, len, "%s: invalid plugin.yaml: %s", pl->name,
		    pl->error ? pl->error : "unreadable");
		break;
	}
	if (pl->fix)
		app_cat(buf, len, "; fix: %s", pl->fix);
}
