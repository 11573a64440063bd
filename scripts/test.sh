#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build with -Werror, and
# run every test (ctest), a bounded run of every fuzz target, then the unit
# tests again under ASan + UBSan.  Every stage runs even when one before it
# failed; the end lists the failed ones and the exit status is 1 (a failed
# build stops at once: nothing after it could run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/stages.sh
# --arch arm64: also the cross build, qemu and the arm64 libraries of e2e_cross.
bash scripts/deps.sh --arch arm64
jobs=$(nproc 2>/dev/null || echo 2)

# Extraction-heavy tests write to a fresh tmpfs: the root ext4 here has no
# journal and slows sharply where many files were just deleted.
tmp=$(pwd)/build/test-tmp
mkdir -p "$tmp"
if [ "$(id -u)" -eq 0 ] && ! mountpoint -q "$tmp"; then
  mount -t tmpfs -o size=6g,mode=1777 tmpfs "$tmp" && trap 'umount "$tmp"' EXIT
fi
export PYRT_TEST_TMP=$tmp

cmake -S . -B build -DPYRT_WERROR=ON -DPYRT_TEST_HOOKS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
# -LE package leaves out package and package_cross (an arm64 root under
# qemu: README, Platforms).
stage "ctest (every test but the package ones)" \
  bash -c 'cd build && ctest --output-on-failure -j"$1" -LE package' _ "$jobs"
# The .deb installed, run and removed in a clean Debian 12 root
# (debootstrap from deb.debian.org, cached in build/package).
stage "ctest -L package" bash -c "cd build && ctest --output-on-failure -L '^package\$'"

# Smoke of the benchmark so it cannot rot: one round at 1x, no targets; it
# fails only when a contender or a measurement errors, never on timings.
stage "bench smoke" bash bench/run --quick --pyrt build/pyrt --build build

# The fuzz targets (tests/fuzz) with clang and libFuzzer, 20 s each: one
# line per target with its executions; a crash fails the run.  (Their
# corpus and past crashes also replay in every build as test_fuzz_*.)
stage "fuzz (20 s a target)" bash scripts/fuzz.sh 20

# PYRT_LAZY=OFF: the libraries linked, so the sanitizers see their calls.
asan() {
  cmake -S . -B build-asan -DPYRT_WERROR=ON -DPYRT_SANITIZE=ON -DPYRT_LAZY=OFF \
        -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
  cmake --build build-asan -j"$jobs" &&
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
     ctest --output-on-failure -j"$jobs" -R '^test_') &&
  (cd build && PYRT_STATE_BIN=$(pwd)/../build-asan/pyrt ctest --output-on-failure -R '^e2e_state$')
}
stage "ASan + UBSan (unit tests, e2e_state)" asan

stages_end
