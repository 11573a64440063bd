#!/bin/bash
# The layer check is not a test that cannot fail: planted into a copy of
# the tree, an upward include between core's floors, a stray module at
# core/'s top, and an include that names no floor each make it fail, and
# the untouched copy passes.
set -euo pipefail
src=${PYRT_SOURCE_DIR:?}
check=$src/tests/check_layers.sh
work=$(mktemp -d /tmp/pyrt-layers.XXXX)
trap 'rm -rf "$work"' EXIT
fresh() {
	rm -rf "$work/t"
	mkdir -p "$work/t"
	cp -r "$src/core" "$src/app" "$src/cli" "$src/tui" "$src/serve" "$work/t/"
}
fails=0
expect() { # want(0|1) label
	local rc=0 out
	out=$(bash "$check" "$work/t" 2>&1) || rc=$?
	if [[ $1 == 0 && $rc != 0 ]] || [[ $1 == 1 && $rc == 0 ]]; then
		echo "FAIL: $2: check exited $rc"
		echo "$out"
		fails=$((fails + 1))
	else
		echo "ok: $2 (exit $rc)${out:+: ${out%%$'\n'*}}"
	fi
}
fresh
expect 0 "the tree as it is"

fresh
sed -i '0,/^#include "core\/util\/fs.h"/s//&\n#include "core\/runtime\/install.h"/' "$work/t/core/util/fs.c"
grep -q 'core/runtime/install.h' "$work/t/core/util/fs.c"
expect 1 "util/fs.c includes runtime/install.h"

fresh
sed -i '0,/^#include "core\/runtime\/box.h"/s//&\n#include "core\/pkgs\/plugins_memo.h"/' "$work/t/core/runtime/install.c"
grep -q 'core/pkgs/plugins_memo.h' "$work/t/core/runtime/install.c"
expect 1 "runtime/install.c includes pkgs/plugins_memo.h"

fresh
sed -i '0,/^#include "core\/dist\/pins.h"/s//&\n#include "core\/diagnose\/doctor.h"/' "$work/t/core/dist/pins.c"
expect 1 "dist/pins.c includes diagnose/doctor.h"

fresh
printf '#include "core/util/fs.h"\n' > "$work/t/core/stray.c"
expect 1 "a module at core/'s top, in no floor"

fresh
printf '#include "core/fs.h"\n' >> "$work/t/core/pkgs/pip.c"
expect 1 "an include that names no floor"

fresh
printf '#include "app/front.h"\n' >> "$work/t/core/diagnose/smoke.c"
expect 1 "core/ includes app/"

fresh
printf '#include "cli/commands.h"\n' >> "$work/t/app/fix.c"
expect 1 "app/ includes cli/"

fresh
printf 'static int f(void) { return APP_CMD_INSTALL; }\n' >> "$work/t/app/fix.c"
expect 1 "app/ names the CLI's command table"

fresh
printf 'static void f(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); }\n' >> "$work/t/serve/guard.c"
expect 1 "a second reader of the monotonic clock"

echo "layers_plant: $((8 - fails)) passed, $fails failed"
[[ $fails == 0 ]]
