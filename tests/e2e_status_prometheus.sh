#!/usr/bin/env bash
# ctest: e2e_status_prometheus
# `pyrt status --format prometheus` (issue 29.9): the state as Prometheus
# metrics in the text exposition format, for node_exporter's textfile
# collector: every line a HELP, a TYPE or a sample whose labels are
# escaped (a box path with a quote and a space); not_provisioned, then
# ready with the runtime's version and the baseline complete; the exit
# status as status's; a format other than prometheus, or with --json, is a
# usage error; `pyrt --format prometheus` without a terminal is status's.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup status_prometheus fixtures
box="$work/my \"box"
o=(--box-root "$box" --pins "$fx/pins.yaml")

# metrics PY: parse out as the exposition format into samples
# {(name, frozenset(labels)): value} and run the assertion PY over them.
metrics() {
  python3 - "$work/out" "$box" "$1" <<'EOF2'
import re, sys
text, box, test = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
name = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
sample = re.compile(r'(%s)(?:\{(%s(?:,%s)*)\})? (-?[0-9.]+)$' % (name, label, label))
types = {}
s = {}
for line in text.splitlines():
    if line.startswith('# HELP '):
        continue
    if line.startswith('# TYPE '):
        _, _, n, t = line.split(' ', 3)
        types[n] = t
        continue
    m = sample.match(line)
    assert m, 'not the exposition format: %r' % line
    assert m.group(1) in types, 'no TYPE before %s' % m.group(1)
    labels = dict((k, v.replace('\\"', '"').replace('\\\\', '\\'))
                  for k, v in re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ''))
    s[(m.group(1), frozenset(labels.items()))] = float(m.group(3))
def v(n, **labels):
    labels.setdefault('box', box)
    return s[(n, frozenset(labels.items()))]
exec(test)
EOF2
}

run status --format prometheus "${o[@]}"
check "empty box: exit 1, as status" rc_is 1
check "... every line is the exposition format, the box label escaped" \
  metrics 'assert v("pyrt_runtime_ready") == 0'
check "... state not_provisioned is 1, ready 0" \
  metrics 'assert v("pyrt_runtime_state", state="not_provisioned") == 1 and v("pyrt_runtime_state", state="ready") == 0'

run install --yes "${o[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse"
check "setup: installed with the baseline (rc $rc)" rc_is 0
run status --format prometheus "${o[@]}"
check "ready: exit 0" rc_is 0
check "... ready 1, the runtime's version and build, baseline complete" \
  metrics 'assert v("pyrt_runtime_ready") == 1 and v("pyrt_runtime_info", version="3.11.2", build="fixture", platform="linux-x86_64-gnu") == 1 and v("pyrt_baseline_complete") == 1 and v("pyrt_baseline_missing") == 0 and v("pyrt_update_available") == 0'
"$pyrt" --format prometheus "${o[@]}" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "pyrt --format prometheus (no command, no terminal) is status's (rc $rc)" \
  eval 'rc_is 0 && metrics "assert v(\"pyrt_runtime_ready\") == 1"'
run status --format json "${o[@]}"
check "--format json: usage error naming the one format" eval 'rc_is 2 && has "the one format is prometheus" err'
run status --format prometheus --json "${o[@]}"
check "--format with --json: usage error" rc_is 2
run doctor --format prometheus "${o[@]}"
check "--format on doctor: usage error" rc_is 2
e2e_finish
