#!/bin/sh
# Reproduces the figures of "Measured here" in docs/scale.md. Not run by CI.
# Usage: scripts/bench-parts.sh [N...]: seeds COUNT (200000) users split into
# N parts (default: 1 2 4), the N parts as concurrent `oidkit seed --part I/N`
# processes into one `oidkit server` (a fresh data directory each time), and
# prints docs/s per part and in total, with the load average.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
bin=${OIDKIT_BIN:-$out/oidkit}
count=${COUNT:-200000}
port=${PORT:-27391}
[ -x "$bin" ] || CGO_ENABLED=0 go build -o "$bin" .
load() { cut -d' ' -f1-3 /proc/loadavg; }

for n in ${*:-1 2 4}; do
	rm -rf "$out/data"
	"$bin" server --listen 127.0.0.1:$port --data-dir "$out/data" >"$out/server.log" 2>&1 &
	server=$!
	uri=mongodb://127.0.0.1:$port/
	until "$bin" verify db --uri "$uri" --db ping --seed 1 -n 0 --quiet >/dev/null 2>&1; do sleep 0.1; done
	before=$(load)
	s=$(date +%s%N)
	i=0 pids=
	while [ $i -lt "$n" ]; do
		"$bin" seed --uri "$uri" --quiet -n "$count" --seed 7 --part $i/"$n" >"$out/part$i.log" 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait "$p"; done
	e=$(date +%s%N)
	after=$(load)
	ms=$(((e - s) / 1000000))
	echo "$n parts: $count documents in ${ms} ms, $((count * 1000 / ms)) docs/s total, $((count * 1000 / ms / n)) docs/s per part (load average before: $before; after: $after)"
	grep -h "docs/s" "$out"/part*.log | sed 's/^/  /'
	rm -f "$out"/part*.log
	kill "$server"
	wait "$server" 2>/dev/null || true
done
