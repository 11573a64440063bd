#!/usr/bin/env bash
# bench/run's serve section alone, and A/B between pyrt builds (issue 28):
# `pyrt serve` (each binary given) and nginx-light serving a static file of
# the same bytes as the status answer, at each connection count, wrk -t1
# for SECS each, alternated (pyrt A, [pyrt B …], nginx) over ROUNDS rounds;
# every server on CPU 0, wrk on CPU 1 (as bench/run); the server's CPU per
# request from /proc and the 1-min load at each run's start.
#
#   bench/serve-nginx.sh BOX PYRT [PYRT2 …]
#   env: ROUNDS (3) SECS (5) CONNS ("1 50 300") OUT (raw tsv, default a tmp file)
#
# BOX is a box with a ready runtime (bench/run uses its query box: the
# fixture runtime with the baseline).  Prints one line per run and, per
# connection count, the medians and each pyrt's ratio to nginx.
set -euo pipefail
box=$1
shift
bins=("$@")
[ "${#bins[@]}" -ge 1 ] || { echo "usage: $0 BOX PYRT [PYRT2 …]" >&2; exit 2; }
rounds=${ROUNDS:-3} secs=${SECS:-5}
read -r -a conns <<<"${CONNS:-1 50 300}"
if [ ! -x /usr/sbin/nginx ] || ! command -v wrk >/dev/null; then echo "needs nginx-light and wrk" >&2; exit 1; fi
work=$(mktemp -d /tmp/pyrt-serve-nginx.XXXXXX)
chmod 0755 "$work"
out=${OUT:-$work/serve.tsv}
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
pin_s=(taskset -c 0) pin_c=(taskset -c 1)
ports=() toks=()
for i in "${!bins[@]}"; do
	"${pin_s[@]}" "${bins[$i]}" serve --box-root "$box" --listen 127.0.0.1:0 \
		--token-file "$work/tok$i" 2>"$work/serve$i.log" &
	pids+=($!)
	for _ in $(seq 100); do grep -q 'listening on' "$work/serve$i.log" && break; sleep 0.05; done
	ports[i]=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve$i.log")
	[ -n "${ports[i]}" ] || { echo "pyrt serve $i did not start" >&2; exit 1; }
	toks[i]=$(cat "$work/tok$i")
	curl -sS -H "Authorization: Bearer ${toks[i]}" -o "$work/body$i" \
		"http://127.0.0.1:${ports[i]}/api/runtime/python"
done
ng=$work/ng
mkdir -p "$ng/www/api/runtime" "$ng/tmp"
chmod 0755 "$ng" "$ng/www" "$ng/www/api" "$ng/www/api/runtime"
cp "$work/body0" "$ng/www/api/runtime/python"
chmod 0644 "$ng/www/api/runtime/python"
nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
{
	printf 'worker_processes 1;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\n' "$ng" "$ng"
	printf 'events { worker_connections 2048; }\n'
	printf 'http {\n\taccess_log off;\n\tclient_body_temp_path %s/tmp;\n' "$ng"
	printf '\tkeepalive_requests 100000000;\n\tkeepalive_timeout 60s;\n\tdefault_type application/json;\n'
	printf '\tserver {\n\t\tlisten 127.0.0.1:%s;\n\t\troot %s/www;\n\t}\n}\n' "$nport" "$ng"
} >"$ng/nginx.conf"
"${pin_s[@]}" /usr/sbin/nginx -c "$ng/nginx.conf" -p "$ng" 2>>"$work/nginx.err" &
npid=$!
pids+=("$npid")
nurl=http://127.0.0.1:$nport/api/runtime/python
for _ in $(seq 100); do curl -s -o /dev/null "$nurl" && break; sleep 0.05; done
echo "# $(date -u +%FT%TZ) body $(stat -c %s "$work/body0") bytes; load $(cut -d' ' -f1-3 /proc/loadavg)"
ticks_of() { local q; for q in "$@"; do awk '{print $14 + $15}' "/proc/$q/stat"; done | awk '{s += $1} END {print s + 0}'; }
: >"$out"
names=()
for i in "${!bins[@]}"; do names[i]=pyrt$i; done
for ((r = 1; r <= rounds; r++)); do
	for c in "${conns[@]}"; do
		for who in "${names[@]}" nginx; do
			if [ "$who" = nginx ]; then
				# shellcheck disable=SC2207
				wp=("$npid" $(ps -o pid= --ppid "$npid")) u=$nurl tok=x
			else
				i=${who#pyrt}
				wp=("${pids[$i]}") u=http://127.0.0.1:${ports[i]}/api/runtime/python tok=${toks[i]}
			fi
			load=$(cut -d' ' -f1 /proc/loadavg)
			t0=$(ticks_of "${wp[@]}")
			"${pin_c[@]}" wrk -t1 -c"$c" -d"${secs}s" --timeout 5s --latency \
				-H "Authorization: Bearer $tok" "$u" >"$work/wrk.out" 2>&1
			t1=$(ticks_of "${wp[@]}")
			rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/wrk.out")
			p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
			n=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$work/wrk.out")
			errs=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p;s/.*Socket errors: \(.*\)/\1/p' "$work/wrk.out" | tr '\n' ' ')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$who" "$c" "$r" "$rps" "$p99" "$n" \
				"$((t1 - t0))" "$load" "${errs:-0}" | tee -a "$out"
		done
	done
done
python3 - "$out" "$(getconf CLK_TCK)" <<'PY'
import sys, statistics as st
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
hz = float(sys.argv[2])
def ms(s):
    for suf, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if s.endswith(suf):
            return float(s[:-len(suf)]) * f
    return float(s)
conns = sorted({int(r[1]) for r in rows})
whos = list(dict.fromkeys(r[0] for r in rows))
print("conns  who     req/s(med)  p99 ms(med)  CPU us/req(med)  load   ratio req/s  ratio p99")
for c in conns:
    med = {}
    for w in whos:
        rs = [r for r in rows if r[0] == w and int(r[1]) == c]
        med[w] = (st.median(float(r[3]) for r in rs), st.median(ms(r[4]) for r in rs),
                  st.median(float(r[6]) / hz / int(r[5]) * 1e6 for r in rs),
                  "/".join(r[7] for r in rs))
    for w in whos:
        q, p, cpu, ld = med[w]
        extra = "" if w == "nginx" else f"  {q / med['nginx'][0]:.2f}x  {p / med['nginx'][1]:.2f}x"
        print(f"{c:5d}  {w:6s} {q:11.0f}  {p:10.3f}  {cpu:14.1f}  {ld}{extra}")
PY
