#!/bin/bash
# Every snprintf in core/ has its result looked at: a cut path names
# another file and a cut message hides what was wrong, so core formats
# through core/util/fmt.h (pyrt_fmt_path refuses a path that does not fit,
# pyrt_fmt_text marks a cut text with "...") or checks what snprintf
# returned.  A call whose result is dropped (a statement of its own, or
# cast to void) fails this check, naming file and line.
#
#   check_snprintf.sh SOURCE_DIR          check core/ under SOURCE_DIR
#   check_snprintf.sh --plant SOURCE_DIR  prove the check can fail: the
#                                         tree as it is passes, and a copy
#                                         with one dropped result planted
#                                         in each floor fails
set -u
unchecked() { # dir -> "file:line: text" per dropped result
	find "$1/core" -name '*.c' -print0 | sort -z | xargs -0 perl -0777 -ne '
		my $src = $_;
		# Blank out comments and strings, keeping the line breaks, so
		# neither hides nor fakes a call.
		$src =~ s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]/ /g; $c }gse;
		$src =~ s{"(?:\\.|[^"\\\n])*"}{ (my $c = $&) =~ s/[^\n]/ /g; $c }ge;
		$src =~ s{//[^\n]*}{ " " x length($&) }ge;
		while ($src =~ /\b(v?snprintf)\s*\(/g) {
			my $at = $-[0];
			my $before = substr($src, 0, $at);
			# What stands before the call decides whether its value
			# is used: the end of a statement or block, an if/else
			# or loop head, or a (void) cast means it is not.
			$before =~ s/\s+$//;
			my $dropped = $before =~ /(?:[;{}]|\belse|\bdo)$/;
			# a ")" that closes an if/while/for head, not a cast
			if ($before =~ /\)$/) {
				my $depth = 0; my $i = length($before) - 1;
				for (; $i >= 0; $i--) {
					my $ch = substr($before, $i, 1);
					$depth++ if $ch eq ")";
					$depth-- if $ch eq "(";
					last if $depth == 0;
				}
				my $head = substr($before, 0, $i);
				$dropped = $head =~ /\b(?:if|while|for|switch)\s*$/ ? 1 : 0;
				$dropped = 1 if substr($before, $i) =~ /^\(\s*void\s*\)$/;
			}
			# a label ("case X:", "default:"), not the ":" of a ?:
			if ($before =~ /:$/) {
				(my $stmt = $before) =~ s/^.*[;{}]//s;
				$dropped = $stmt !~ /\?/;
			}
			next unless $dropped;
			my $line = 1 + (substr($_, 0, $at) =~ tr/\n//);
			my ($text) = (split /\n/, $_)[$line - 1];
			$text =~ s/^\s+//;
			print "$ARGV:$line: $text\n";
		}
	'
}
check() { # dir -> 0 when no dropped result
	local out
	out=$(unchecked "$1")
	[[ -z $out ]] && return 0
	echo "snprintf results dropped in core/ (use pyrt_fmt_path or pyrt_fmt_text, core/util/fmt.h, or check the result):"
	echo "${out//$1\//}"
	return 1
}
if [[ ${1:-} == --plant ]]; then
	src=${2:?usage: check_snprintf.sh --plant SOURCE_DIR}
	work=$(mktemp -d /tmp/pyrt-snprintf.XXXX)
	trap 'rm -rf "$work"' EXIT
	check "$src" >/dev/null || { echo "FAIL: the tree as it is fails"; exit 1; }
	fails=0
	for plant in 'void planted(char *b) { snprintf(b, 4, "%s", "long"); }' \
		     'void planted(char *b) { if (b) (void)snprintf(b, 4, "x"); }' \
		     'void planted(char *b, int n) { while (n--) snprintf(b, 4, "%d", n); }'; do
		for floor in util dist runtime pkgs diagnose; do
			rm -rf "$work/t" && mkdir -p "$work/t" && cp -r "$src/core" "$work/t/"
			echo "$plant" >>"$(ls "$work/t/core/$floor"/*.c | head -1)"
			if check "$work/t" >/dev/null; then
				echo "FAIL: planted in core/$floor, not found: $plant"
				fails=$((fails + 1))
			fi
		done
	done
	# A checked call is not flagged.
	rm -rf "$work/t" && mkdir -p "$work/t" && cp -r "$src/core" "$work/t/"
	echo 'int planted(char *b) { int n = snprintf(b, 4, "x"); return n < 0 || snprintf(b, 4, "y") >= 4; }' >>"$work/t/core/util/fmt.c"
	check "$work/t" >/dev/null || { echo "FAIL: a checked call was flagged"; fails=$((fails + 1)); }
	[[ $fails == 0 ]] && echo "ok: every planted dropped result was found; checked calls pass"
	exit $((fails > 0))
fi
check "${1:?usage: check_snprintf.sh SOURCE_DIR}"
