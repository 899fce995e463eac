#!/bin/sh
# Reproduces the figures of "Run H" in docs/benchmarks.md. Not run by CI.
# Usage: scripts/bench.sh [section...]; sections: startup scaling go (default: all).
# OIDKIT_BIN picks the binary to time (default: one built here, static).
# Every section prints the load average beside its figures.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
bin=${OIDKIT_BIN:-$out/oidkit}
[ -x "$bin" ] || CGO_ENABLED=0 go build -o "$bin" .
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }

# median_ms N cmd...: median wall time of N runs of cmd, in milliseconds.
median_ms() {
	n=$1; shift
	for _ in $(seq "$n"); do
		s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | sort -n | awk '{v[NR]=$1} END {printf "%.1f ms (min %.1f, max %.1f, %d runs)\n", v[int((NR+1)/2)]/1000, v[1]/1000, v[NR]/1000, NR}'
}

startup() {
	load
	id=$("$bin" gen -n 1)
	printf 'gen -n 1:        '; median_ms 21 "$bin" gen -n 1
	printf 'inspect ID:      '; median_ms 21 "$bin" inspect "$id"
	printf 'seed -n 1 fresh: '
	for k in $(seq 11); do
		d=$out/startup-$k
		s=$(date +%s%N); "$bin" seed -n 1 --seed 1 --quiet --data-dir "$d" >/dev/null; e=$(date +%s%N)
		rm -rf "$d"; echo $(((e - s) / 1000))
	done | sort -n | awk '{v[NR]=$1} END {printf "%.1f ms (min %.1f, max %.1f, %d runs)\n", v[int((NR+1)/2)]/1000, v[1]/1000, v[NR]/1000, NR}'
	load
}

# scaling: seed at 10k, 100k, 1M users into a fresh embedded data dir;
# wall, CPU and peak RSS from /usr/bin/time.
scaling() {
	for n in ${SCALING_N:-10000 100000 1000000}; do
		load
		d=$out/scale-$n
		/usr/bin/time -f "n=$n wall=%e s user=%U s sys=%S s maxrss=%M kB" \
			"$bin" seed -n "$n" --seed 1 --quiet --data-dir "$d" >/dev/null
		rm -rf "$d"
	done
	load
}

# go: the side-by-side benchmarks, 5 interleaved rounds, then benchstat.
go_benchmarks() {
	load
	go test -run '^$' -bench 'SeedVsDriver' -benchtime "${SEED_BENCHTIME:-2x}" -count 5 ./seed/ | tee "$out/seed.txt"
	load
	go test -run '^$' -bench 'FixturesVsDriver|Encode' -count 5 ./fixtures/ | tee "$out/fixtures.txt"
	load
	if [ -n "${OIDKIT_BENCH_SERVED:-1}" ]; then
		d=$out/served
		"$bin" server --listen 127.0.0.1:27099 --data-dir "$d" >/dev/null 2>&1 &
		pid=$!
		OIDKIT_BENCH_URI=mongodb://127.0.0.1:27099/ go test -run '^$' -bench 'SeedVsDriver' \
			-benchtime "${SEED_BENCHTIME:-2x}" -count 5 ./seed/ | tee "$out/seed-served.txt"
		kill "$pid"; wait "$pid" || true
		load
	fi
	for f in "$out"/seed.txt "$out"/seed-served.txt "$out"/fixtures.txt; do
		[ -f "$f" ] && go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$f"
	done
}

[ $# -gt 0 ] || set -- startup scaling go
for s in "$@"; do
	case $s in
	startup) startup ;;
	scaling) scaling ;;
	go) go_benchmarks ;;
	*) echo "unknown section $s" >&2; exit 2 ;;
	esac
done
echo "outputs in $out"
