#!/usr/bin/env bash
# Smoke run of every ysuite-bench benchmark (then of the network section, report net --smoke, of
# the cross-process section, report --include ipc, and of the AMQP row, report amqp --smoke): one fork, no warmup, one 100 ms iteration each,
# under -prof gc, with reduced message-size and batch-size parameter lists, in JVMs that compile
# with C1 only. It checks that every benchmark still runs (none can rot); the figures mean nothing. Exits non-zero if any benchmark
# fails (JMH fail-on-error). The terminal shows one progress line per benchmark and the headline tables; JMH's
# own output goes to jmh.log in the (temporary) results folder, printed here only if the run fails.
#
# The four sections run as two lanes side by side (the in-process and network sections in one, the
# cross-process and AMQP sections in the other): each benchmark still has its own fork(s), nothing
# is shared between the lanes but the CPUs (every benchmark binds port 0 and makes its files under
# a fresh temporary directory), and JMH's one-run-at-a-time lock is lifted for them
# (-Djmh.ignoreLock=true) since smoke figures are not measurements. Each line is prefixed with its
# section's name. SMOKE_LANES=1 runs the sections one after another.
#
# Usage (from the repository root): ysuite-bench/smoke.sh
# Builds the jar first unless SMOKE_NO_BUILD=1 and the jar exists.
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=ysuite-bench/target/ysuite-bench.jar
if [[ "${SMOKE_NO_BUILD:-0}" != 1 || ! -f "$JAR" ]]; then
  mvn -B -q -pl ysuite-bench -am package -DskipTests
fi
OUT=$(mktemp -d "${TMPDIR:-/tmp}/ysuite-bench-smoke.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
# C1 only and the serial collector: JMH gives its forks the options of this JVM (no benchmark sets
# jvmArgs, only jvmArgsAppend), so each of the ~108 forks starts and sets up with less compiling
# (measured: 14 forks of MessageSize and SenderBatch, 28 s against 40 s, mean of two alternated
# pairs on a loaded 2-core machine). Smoke figures are not measurements; every benchmark still runs.
JAVA=(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djmh.ignoreLock=true -jar "$JAR")

# Runs one section: section NAME TIMEOUT DIR ARGS...; prefixes its lines with NAME and prints the
# end of JMH's output if it fails.
section() {
  local name="$1" limit="$2" dir="$3"; shift 3
  if ! timeout "$limit" "${JAVA[@]}" "$@" --out "$dir" 2>&1 | sed -u "s/^/[$name] /"; then
    echo "ysuite-bench $name smoke: FAILED; the end of JMH's output follows" >&2
    tail -n 200 "$dir/jmh.log" >&2 || true
    return 1
  fi
}

# Every benchmark of the report (same benchmarks, forks and profiler as the report).
smoke_main() {
  section main 600 "$OUT" report --smoke &&
  test -s "$OUT/jmh-result.json" && test -s "$OUT/results.csv" && test -s "$OUT/jmh.log"
}
# The network section (seeds 003, 004, 002): one short iteration per peer, the client in this JVM
# (forks 0), each server in its own JVM, loopback only, seed 002 with 1000 messages.
smoke_net() {
  section net 300 "$OUT/net" report net --smoke &&
  test -s "$OUT/net/results.csv" && test -s "$OUT/net/report.md"
}
# The cross-process section (org.ysuite.bench.ipc): one short iteration per row, each with a child
# JVM (and the C futex floor, compiled with gcc, if gcc is there), 8-byte messages, 200 ms idle
# (AeronIdle: 200 ms periods at each rate).
smoke_ipc() {
  section ipc 600 "$OUT/ipc" report --smoke --include '^org\.ysuite\.bench\.ipc\.' &&
  test -s "$OUT/ipc/results.csv" && grep -q '## Across processes' "$OUT/ipc/report.md"
}
# Seed 003's AMQP row (org.ysuite.bench.amqp): one short iteration per way, on Broker-J in a JVM of
# its own, 8-byte messages, one thread.
smoke_amqp() {
  section amqp 300 "$OUT/amqp" report amqp --smoke &&
  grep -q '### Publishing with confirms' "$OUT/amqp/report.md"
}

if [[ "${SMOKE_LANES:-2}" == 1 ]]; then
  smoke_main && smoke_net && smoke_ipc && smoke_amqp || exit 1
else
  { smoke_main && smoke_net; } & lane1=$!
  { smoke_ipc && smoke_amqp; } & lane2=$!
  status=0
  wait "$lane1" || status=1
  wait "$lane2" || status=1
  (( status == 0 )) || { echo "ysuite-bench smoke: FAILED" >&2; exit 1; }
fi
echo "ysuite-bench smoke: OK"
