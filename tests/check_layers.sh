#!/bin/bash
# The layers, as the includes say them (every include names its folder):
# core/ sees only core/; app/ sees core/; each front end (cli/, tui/,
# serve/) sees core/ and app/ and never another front end, except that the
# CLI starts the other two through their one public header each.
# Inside core/, the floors, lowest first: util/ (no other floor), dist/,
# runtime/, pkgs/, diagnose/; a floor includes its own and those below it,
# never one above.  The compiler cannot enforce this (one include path, the
# source root), so this does.  Planting an upward include fails it
# (tests/e2e_layers_plant.sh).
set -u
root=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$root" || exit 2
floors="util dist runtime pkgs diagnose"
below() { # floor -> itself and the floors below it
	local out=""
	for f in $floors; do
		out+="core/$f "
		[[ $f == "$1" ]] && break
	done
	echo "$out"
}
allowed() { # layer -> the folders its includes may name
	case $1 in
	core/*) below "${1#core/}" ;;
	app) echo "core app" ;;
	cli) echo "core app cli" ;;
	tui) echo "core app tui" ;;
	serve) echo "core app serve" ;;
	esac
}
bad=0
stray=$(find core -maxdepth 1 -name '*.[ch]')
if [[ -n $stray ]]; then
	echo "core/ holds sources outside a floor (put each in one of: $floors):"
	echo "$stray"
	bad=1
fi
for layer in core/util core/dist core/runtime core/pkgs core/diagnose app cli tui serve; do
	ok=" $(allowed "$layer") "
	while IFS=: read -r file line text; do
		inc=${text#*\"}
		inc=${inc%%\"*}
		case $inc in
		core/*/*) folder=${inc%/*} ;;
		core/*)
			echo "$file:$line: #include \"$inc\" does not name its floor"
			bad=1
			continue
			;;
		*/*) folder=${inc%%/*} ;;
		*)
			echo "$file:$line: #include \"$inc\" does not name its folder"
			bad=1
			continue
			;;
		esac
		[[ $ok == *" $folder "* ]] && continue
		# core/ seen from above is one layer: any floor will do.
		[[ $layer != core/* && $folder == core/* && $ok == *" core "* ]] && continue
		[[ $layer == cli && ($inc == tui/tui.h || $inc == serve/serve.h) ]] && continue
		echo "$file:$line: $layer/ may not include $inc (allowed: $(allowed "$layer"))"
		bad=1
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$layer"/*.c "$layer"/*.h 2>/dev/null)
done
# One monotonic "now" (core/util/clock.h): a second reader of the clock is
# a second idea of elapsed time.
while IFS= read -r hit; do
	echo "$hit: read the monotonic clock through core/util/clock.h (pyrt_now, pyrt_monotonic_after)"
	bad=1
done < <(grep -n 'clock_gettime[[:space:]]*([[:space:]]*CLOCK_MONOTONIC' core/*/*.c app/*.c cli/*.c tui/*.c serve/*.c 2>/dev/null | grep -v '^core/util/clock\.c:')
# The command list and its table are the CLI's (cli/commands.h): app/
# and the other fronts speak of a command's word (app_request.command_word)
# or their own use cases, never the CLI's table index.
while IFS= read -r hit; do
	echo "$hit: the CLI's command table (cli/commands.h) is cli/'s; say the command's word"
	bad=1
done < <(grep -nE '\<(CLI_CMD_[A-Z_]+|APP_CMD_[A-Z_]+|cli_command|app_command)\>' core/*/*.[ch] app/*.[ch] tui/*.[ch] serve/*.[ch] 2>/dev/null)
if [[ $bad == 0 ]]; then
	echo "layers: every include names its folder and respects the layers and core's floors"
fi
exit $bad
