#!/bin/bash
# The layers, as the includes say them (every include names its folder):
# core/ sees only core/; app/ sees core/; each front end (cli/, tui/,
# serve/) sees core/ and app/ and never another front end, except that the
# CLI starts the other two through their one public header each.  The
# compiler can no longer enforce this (one include path, the source root),
# so this does.
set -u
root=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$root" || exit 2
allowed() { # layer -> the folders its includes may name
	case $1 in
	core) echo "core" ;;
	app) echo "core app" ;;
	cli) echo "core app cli" ;;
	tui) echo "core app tui" ;;
	serve) echo "core app serve" ;;
	esac
}
bad=0
for layer in core app cli tui serve; do
	ok=" $(allowed "$layer") "
	while IFS=: read -r file line text; do
		inc=${text#*\"}
		inc=${inc%%\"*}
		case $inc in
		*/*) folder=${inc%%/*} ;;
		*)
			echo "$file:$line: #include \"$inc\" does not name its folder"
			bad=1
			continue
			;;
		esac
		[[ $ok == *" $folder "* ]] && continue
		[[ $layer == cli && ($inc == tui/tui.h || $inc == serve/serve.h) ]] && continue
		echo "$file:$line: $layer/ may not include $inc (allowed: $(allowed "$layer"))"
		bad=1
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$layer"/*.c "$layer"/*.h)
done
if [[ $bad == 0 ]]; then
	echo "layers: every include names its folder and respects the layers"
fi
exit $bad
