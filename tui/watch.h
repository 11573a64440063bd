/*
 * Watching the box for changes another process makes (an install, a
 * rollback, pip under the lock, a plugin added or edited), so the
 * dashboard is never stale: a cheap fingerprint of what the card and the
 * matrix are read from, compared every couple of seconds.
 */
#ifndef PYRT_TUI_WATCH_H
#define PYRT_TUI_WATCH_H

/* How often the dashboard looks again. */
#define TUI_WATCH_S 2.0

/*
 * A fingerprint of box_root's state: whether the installer lock is held
 * (and by whom), runtime/python, where current and previous point, the
 * active install's marker, its interpreter (interpreter: the pins' layout
 * path inside an install, "python/bin/python3"; NULL: none; the link and
 * the file it leads to, so a deleted or replaced interpreter turns the
 * card to broken), and each plugins/<name>/plugin.yaml.  Only stat,
 * readlink, readdir and a non-blocking lock probe: nothing is created or
 * written, and no interpreter is started.
 */
unsigned long long tui_watch_sig(const char *box_root,
				 const char *interpreter);

#endif
