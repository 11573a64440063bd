#!/usr/bin/env bash
# ctest e2e_install_target: `cmake --install` of the build into a DESTDIR
# with prefix /usr (the layout the .deb ships): exactly the files of the GNU
# layout with their modes; the installed binary runs; it finds its themes in
# <prefix>/share/pyrt/themes next to its bindir, before the source tree (a
# theme only there is found; a broken copy there is the one it reports);
# `man` finds the page through the prefix; the bash completion loads.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup install-target
. "$(dirname "$0")/lib/tui.sh"
bin=${PYRT_BINARY_DIR:?}

root=$work/root
install_to() { DESTDIR=$1 cmake --install "$bin" --prefix /usr >"$work/install.log" 2>&1; }
check "cmake --install into DESTDIR with prefix /usr" install_to "$root"
(cd "$root" && find . -type f -printf '%m %p\n' | sort) >"$work/files"
sort >"$work/files.want" <<'LIST'
755 ./usr/bin/pyrt
644 ./usr/share/pyrt/themes/default.yaml
644 ./usr/share/pyrt/themes/high-contrast.yaml
644 ./usr/share/pyrt/themes/monochrome.yaml
644 ./usr/share/pyrt/themes/solarized-dark.yaml
644 ./usr/share/man/man1/pyrt.1.gz
644 ./usr/share/bash-completion/completions/pyrt
644 ./usr/share/zsh/vendor-completions/_pyrt
644 ./usr/share/fish/vendor_completions.d/pyrt.fish
644 ./usr/share/doc/pyrt/README.md
644 ./usr/share/doc/pyrt/SECURITY.md
644 ./usr/share/doc/pyrt/RELIABILITY.md
644 ./usr/share/doc/pyrt/api.yaml
644 ./usr/share/doc/pyrt/copyright
644 ./usr/share/doc/pyrt/changelog.gz
LIST
# dist/systemd comes with `pyrt serve`: its units, when present, too.
if [ -d "$src/dist/systemd" ]; then
  # (.service.in: configured with the install prefix's bindir.)
  for f in "$src"/dist/systemd/*.service "$src"/dist/systemd/*.service.in \
           "$src"/dist/systemd/*.socket "$src"/dist/systemd/*.timer; do
    [ -f "$f" ] || continue
    f=${f##*/}
    echo "644 ./usr/lib/systemd/user/${f%.in}"
  done >>"$work/files.want"
  sort -o "$work/files.want" "$work/files.want"
fi
check "the installed files and modes are the GNU layout" \
  diff -u "$work/files.want" "$work/files"
check "the installed binary runs" "$root/usr/bin/pyrt" --version
check "changelog.gz is gzip -9n (no name, no time stamp)" \
  eval '[ "$(od -An -tx1 -j3 -N5 "$root/usr/share/doc/pyrt/changelog.gz" | tr -d " ")" = 0000000000 ]'
check "man finds pyrt(1) under the prefix" \
  eval '[ "$(MANPATH=$root/usr/share/man man -w pyrt)" = "$root/usr/share/man/man1/pyrt.1.gz" ]'
MANWIDTH=80 man -l "$root/usr/share/man/man1/pyrt.1.gz" >"$work/man.txt" 2>/dev/null
check "the man page renders with its sections" grep -q "^EXIT STATUS" "$work/man.txt"
check "the bash completion loads and binds pyrt" \
  eval '[ "$(bash -c ". \"\$1\" && complete -p pyrt" _ "$root/usr/share/bash-completion/completions/pyrt")" = "complete -F _pyrt pyrt" ]'

# --- themes: the installed directory next to the binary ----------------------
themes=$root/usr/share/pyrt/themes
theme_notice() { # name: the consent screen's theme notice in $work/notice.NAME;
  # fails when the consent screen never shows
  start "t$1" -- "$root/usr/bin/pyrt" --box-root "$work/tbox-$1" --theme "$1"
  wait_for "t$1" 15 'What will happen' || return 1
  grep -E 'default theme' "$work/screen" >"$work/notice.$1"
  T kill-session -t "t$1"
}
# start runs $pyrt: point it at the installed one for these cases, on a
# screen wide enough for the notice's path.
pyrt_build=$pyrt
pyrt=env size=240x30
check "a theme missing everywhere is reported (the check can fail)" \
  eval 'theme_notice pkgonly && grep -q "theme .pkgonly. not found" "$work/notice.pkgonly"'
cp "$themes/solarized-dark.yaml" "$themes/pkgonly.yaml"
check "a theme only in <prefix>/share/pyrt/themes is found" \
  eval 'theme_notice pkgonly && [ ! -s "$work/notice.pkgonly" ]'
printf 'name: broken\nroles:\n  text: { fg: no-such-colour }\n' >"$themes/solarized-dark.yaml"
# The source tree's solarized-dark.yaml is valid: a notice about a broken
# one means the installed copy was read first (the notice names the file
# and its line first, its directory last, so this holds at any path depth).
check "the installed themes come before the source tree's" \
  eval 'theme_notice solarized-dark && grep -qE "default theme; solarized-dark\.yaml:3: .*unknown colour" "$work/notice.solarized-dark"'
pyrt=$pyrt_build
check "no box was written by the theme runs" eval '! ls -d "$work"/tbox-* 2>/dev/null'

e2e_finish
