#!/usr/bin/env bash
# ctest: e2e_same_words
# The front ends say the same words for the same outcome (issue 20): a
# fresh install, a plugin install, the baseline and a rollback, each run
# through the CLI (its stdout is the sentence), the API (the job's
# result.summary; the API has no rollback) and the TUI at 80x23 (the result
# screen's sentence; a rollback's is the dashboard's one-line notice, cut at
# the screen's edge), on a fresh box at the same path each time.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup same_words fixtures
. "$(dirname "$0")/lib/tui.sh"
e2e_mirror
sed "s#url: .*#url: $mirror/fixture/runtime.tar.gz#" "$fx/pins.yaml" >"$work/pins.yaml"
box=$short/b
base=(--box-root "$box" --pins "$work/pins.yaml" --cacert "$fx/ca.pem")
wh=(--wheelhouse "$fx/wheelhouse")

# An empty box at $box with one plugin whose one requirement (reportlab)
# is in the wheelhouse; $box is under this test's own mktemp directory.
fresh() {
  rm -rf "${short:?}/b"
  mkdir -p "$box/plugins/pdfs"
  printf 'name: pdfs\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - reportlab\n' \
    >"$box/plugins/pdfs/plugin.yaml"
}
# A second install, so that a rollback has a runtime to go back to.
reinstall() {
  "$pyrt" install --force --yes --no-baseline "${base[@]}" </dev/null >"$work/re.out" 2>&1
}

# --- the CLI: the sentence is its stdout ---------------------------------------
cli() {
  local what=$1; shift
  "$pyrt" "$@" </dev/null >"$work/cli.$what" 2>"$work/cli.$what.err"
  check "CLI: $what succeeds" [ $? -eq 0 ]
}
fresh
cli install install --yes --no-baseline "${base[@]}"
cli plugin plugins install pdfs "${base[@]}" "${wh[@]}"
cli baseline baseline "${base[@]}" "${wh[@]}"
reinstall
cli rollback rollback "${base[@]}"

# --- the API: the job's result ------------------------------------------------
fresh
asock=$short/api.sock
"$pyrt" serve "${base[@]}" "${wh[@]}" --listen "unix:$asock" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$asock" "$spid" "$work/serve.log"
# api WHAT PATH BODY: POST the job, wait for its end, keep its summary.
api() {
  local loc
  curl -s -D "$work/h" -o "$work/job.json" --unix-socket "$asock" \
    -H 'Content-Type: application/json' -d "$3" "http://localhost$2"
  loc=$(sed -n 's/^Location: \([^\r]*\).*/\1/p' "$work/h")
  for _ in $(seq 1200); do
    curl -s --unix-socket "$asock" "http://localhost$loc" >"$work/job.json"
    grep -qE '"state": "(queued|running)"' "$work/job.json" || break
    sleep 0.1
  done
  check "API: $1 succeeds" grep -q '"state": "succeeded"' "$work/job.json"
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["result"] or {}
print(r.get("summary") or "(no summary in the result: %s)" % json.dumps(r))
' "$work/job.json" >"$work/api.$1"
}
api install /api/runtime/python/install '{"consent": true, "no_baseline": true}'
api plugin /api/plugins/pdfs/install '{}'
api baseline /api/runtime/python/baseline '{}'
kill -TERM "$spid"; wait "$spid"

# --- the TUI at 80x23 ---------------------------------------------------------
# tui_result WHAT: the sentence under the result screen's ✓ (wrapped over
# up to three rows from column 4) into $work/tui.WHAT.
tui_result() {
  python3 - "$work/screen" >"$work/tui.$1" <<'EOF'
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = next(i for i, r in enumerate(rows) if r[2:3] == "✓")
out = []
for r in rows[start:]:
    if not r[4:].strip():
        break
    out.append(r[4:].strip())
print(" ".join(out))
EOF
}
# The dashboard's notice row (LINES-2), from column 1.
tui_notice() {
  sed -n '22p' "$work/screen" | cut -c2- | sed 's/ *$//' >"$work/tui.$1"
}
idle() { screen tui >"$work/screen"; ! grep -q 'checking…' "$work/screen"; }
fresh
size=80x23 start tui -- "${base[@]}" "${wh[@]}" --no-baseline
wait_for tui 20 'What will happen' >/dev/null
T send-keys -t tui y
check "TUI: install succeeds" wait_for tui 120 'Install complete'
tui_result install
T send-keys -t tui Enter
wait_for tui 15 '│ pdfs .*missing_deps' >/dev/null
T send-keys -t tui i
wait_for tui 10 'Install the requirements of pdfs' >/dev/null
T send-keys -t tui y
check "TUI: plugin install succeeds" wait_for tui 120 'Plugin install complete'
tui_result plugin
T send-keys -t tui Enter
wait_for tui 15 '│ pdfs .*ready' >/dev/null
for _ in $(seq 100); do idle && break; sleep 0.1; done
T send-keys -t tui b
wait_for tui 10 'Install the doc-library baseline again' >/dev/null
T send-keys -t tui y
check "TUI: baseline succeeds" wait_for tui 120 'Baseline complete'
tui_result baseline
T send-keys -t tui Enter
wait_for tui 15 'PLUGIN +ENABLED' >/dev/null
reinstall
for _ in $(seq 100); do idle && break; sleep 0.1; done
T send-keys -t tui R
wait_for tui 10 'Roll back to the previous runtime' >/dev/null
T send-keys -t tui y
check "TUI: rollback succeeds" wait_for tui 60 'rolled back to'
tui_notice rollback
T send-keys -t tui q

# --- one sentence each --------------------------------------------------------
# same WHAT FRONT...: FRONT's words are the CLI's.  Wrapping is set aside
# (the TUI breaks a path anywhere), and a TUI line cut at the screen's edge
# ("…") must be the start of the CLI's sentence.
same() {
  local what=$1; shift
  python3 - "$work" "$what" "$@" <<'EOF'
import sys
work, what, fronts = sys.argv[1], sys.argv[2], sys.argv[3:]
bare = lambda s: "".join(s.split())
cli = open(f"{work}/cli.{what}").read().strip()
print(f"# {what}: {cli}")
ok = bool(cli)
for f in fronts:
    got = open(f"{work}/{f}.{what}").read().strip()
    cut = f == "tui" and got.endswith("…")
    same = bare(cli).startswith(bare(got[:-1])) if cut else bare(got) == bare(cli)
    if not same:
        print(f"# {what}: the CLI says:  {cli}\n# {what}: the {f.upper()} says: {got}", file=sys.stderr)
    ok = ok and same
sys.exit(0 if ok else 1)
EOF
}
check "install: the CLI, the API and the TUI say the same sentence" same install api tui
check "plugin install: the CLI, the API and the TUI say the same sentence" same plugin api tui
check "baseline: the CLI, the API and the TUI say the same sentence" same baseline api tui
check "rollback: the CLI and the TUI say the same sentence" same rollback tui
e2e_finish
