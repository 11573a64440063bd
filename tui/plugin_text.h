/*
 * How a plugin row reads on screen: the sentence the dashboard shows for
 * the selected row (what is missing and the fix).  The DEPS cell ("2/4
 * ok") is the CLI's own app_plugin_deps (app/plugin.h).
 */
#ifndef PYRT_TUI_PLUGIN_TEXT_H
#define PYRT_TUI_PLUGIN_TEXT_H

#include <stddef.h>

#include "core/pkgs/plugins.h"

/* "python-pptx, reportlab" (missing ones), "" when none; conflicts as
 * "name 1.0 (needs >=2)". */
void tui_plugin_missing(const pyrt_plugin *pl, int runtime_ready, char *buf,
			size_t len);

/* The one-line explanation of the row's verdict. */
void tui_plugin_explain(const pyrt_plugin *pl, int runtime_ready, char *buf,
			size_t len);

#endif
