#!/bin/sh
# Reproduces the figures of "Run H" in docs/benchmarks.md. Not run by CI.
# Usage: scripts/bench.sh [section...]; sections: startup scaling go (default: all).
# OIDKIT_BIN picks the binary to time (default: one built here, static); run
# the startup and scaling sections once with a binary built from the commit
# before a change for the "before" columns. ROUNDS (5) and SEED_BENCHTIME (2x)
# size the go section.
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

# scaling: seed at 10k, 100k, 1M users into a fresh embedded data dir, then
# verify db of it ("Peak RSS against size");
# wall, CPU and peak RSS from /usr/bin/time.
scaling() {
	for n in ${SCALING_N:-10000 100000 1000000}; do
		load
		d=$out/scale-$n
		/usr/bin/time -f "seed n=$n wall=%e s user=%U s sys=%S s maxrss=%M kB" \
			"$bin" seed -n "$n" --seed 1 --quiet --data-dir "$d" >/dev/null
		/usr/bin/time -f "verify db n=$n wall=%e s user=%U s sys=%S s maxrss=%M kB" \
			"$bin" verify db -n "$n" --seed 1 --quiet --data-dir "$d" >/dev/null
		rm -rf "$d"
	done
	load
}

# go: the side-by-side benchmarks. `go test -count 5` would run each
# sub-benchmark five times back to back, so a change of load would hit one
# side only: instead ROUNDS runs of the whole set, one after the other, with
# seed into the embedded server, into an `oidkit server` in another process,
# and fixtures in every round; then benchstat.
go_benchmarks() {
	go test -c -o "$out/seed.test" ./seed/
	go test -c -o "$out/fixtures.test" ./fixtures/
	"$bin" server --listen 127.0.0.1:27099 --data-dir "$out/served" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq "${ROUNDS:-5}"); do
		load
		(cd seed && "$out/seed.test" -test.run '^$' -test.bench 'SeedVsDriver' -test.benchtime "${SEED_BENCHTIME:-2x}" -test.benchmem) >>"$out/seed.txt"
		load
		# The driver waits for the server to accept connections.
		(cd seed && OIDKIT_BENCH_URI=mongodb://127.0.0.1:27099/ "$out/seed.test" -test.run '^$' \
			-test.bench 'SeedVsDriver' -test.benchtime "${SEED_BENCHTIME:-2x}" -test.benchmem) >>"$out/seed-served.txt"
		load
		(cd seed && "$out/seed.test" -test.run '^$' -test.bench 'Stream' -test.benchtime 20x -test.benchmem) >>"$out/stream.txt"
		load
		(cd fixtures && "$out/fixtures.test" -test.run '^$' -test.bench 'FixturesVsDriver' -test.benchtime 5000x -test.benchmem) >>"$out/fixtures.txt"
	done
	load
	kill "$pid"
	wait "$pid" || true
	for f in seed seed-served stream fixtures; do
		echo "== $f"
		go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$out/$f.txt"
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
