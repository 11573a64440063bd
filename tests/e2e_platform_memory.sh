#!/usr/bin/env bash
# ctest: e2e_platform_memory
# Naming the platform costs no system call on a glibc pyrt run as usual:
# its C library is read from memory (the mapped PT_INTERP and the loader's
# own DT_SONAME, core/dist/platform.c), not from /proc/self/exe and a
# realpath() of the loader (~15 calls on every --version and status).
# The answer is the same either way: the platform line equals the one from
# the file path, which a program started through its loader still takes
# (no loader mapped at AT_BASE).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup platform_memory
command -v strace >/dev/null || { echo "FAIL - strace is missing"; exit 1; }

strace -f -qq -o "$work/trace" "$pyrt" --version </dev/null >"$work/out" 2>&1
check "--version names the platform" grep -q '^  platform: *linux-' "$work/out"
check "  without reading /proc/self/exe" eval '! grep -q "/proc/self/exe" "$work/trace"'
check "  or resolving the loader (no readlink)" eval '! grep -q "readlink" "$work/trace"'

loader=$(readelf -l "$pyrt" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
check "pyrt names a loader ($loader)" test -x "$loader"
strace -f -qq -o "$work/trace2" "$loader" "$pyrt" --version </dev/null >"$work/out2" 2>&1
check "started through its loader, pyrt reads the file path" \
  grep -q "/proc/self/exe" "$work/trace2"
check "  and names the same platform" \
  eval '[ "$(grep "^  platform:" "$work/out")" = "$(grep "^  platform:" "$work/out2")" ]'

e2e_finish
