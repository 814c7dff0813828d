#!/usr/bin/env bash
# Smoke run of every ysuite-bench benchmark (then of the network section, report net --smoke, of
# the cross-process section, report --include ipc, and of the AMQP row, report amqp --smoke): one fork, no warmup, one 100 ms iteration each,
# under -prof gc, with reduced message-size and batch-size parameter lists. It checks that every
# benchmark still runs (none can rot); the figures mean nothing. Exits non-zero if any benchmark
# fails (JMH fail-on-error). The terminal shows one progress line per benchmark and the headline tables; JMH's
# own output goes to jmh.log in the (temporary) results folder, printed here only if the run fails.
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
# Same benchmarks, forks and profiler as the report; timeout guards a hung benchmark.
if ! timeout 600 java -jar "$JAR" report --smoke --out "$OUT"; then
  echo "ysuite-bench smoke: FAILED; the end of JMH's output follows" >&2
  tail -n 200 "$OUT/jmh.log" >&2 || true
  exit 1
fi
test -s "$OUT/jmh-result.json"
test -s "$OUT/results.csv"
test -s "$OUT/jmh.log"
# The network section (seeds 003, 004, 002): one short iteration per peer, the client in this JVM
# (forks 0), each server in its own JVM, loopback only, seed 002 with 1000 messages.
if ! timeout 300 java -jar "$JAR" report net --smoke --out "$OUT/net"; then
  echo "ysuite-bench network smoke: FAILED; the end of JMH's output follows" >&2
  tail -n 200 "$OUT/net/jmh.log" >&2 || true
  exit 1
fi
test -s "$OUT/net/results.csv"
test -s "$OUT/net/report.md"
# The cross-process section (org.ysuite.bench.ipc): one short iteration per row, each with a child
# JVM (and the C futex floor, compiled with gcc, if gcc is there), 8-byte messages, 200 ms idle
# (AeronIdle: 200 ms periods at each rate).
if ! timeout 600 java -jar "$JAR" report --smoke --include '^org\.ysuite\.bench\.ipc\.' --out "$OUT/ipc"; then
  echo "ysuite-bench cross-process smoke: FAILED; the end of JMH's output follows" >&2
  tail -n 200 "$OUT/ipc/jmh.log" >&2 || true
  exit 1
fi
test -s "$OUT/ipc/results.csv"
grep -q '## Across processes' "$OUT/ipc/report.md"
# Seed 003's AMQP row (org.ysuite.bench.amqp): one short iteration per way, on Broker-J in a JVM of
# its own, 8-byte messages, one thread.
if ! timeout 300 java -jar "$JAR" report amqp --smoke --out "$OUT/amqp"; then
  echo "ysuite-bench AMQP smoke: FAILED; the end of JMH's output follows" >&2
  tail -n 200 "$OUT/amqp/jmh.log" >&2 || true
  exit 1
fi
grep -q '### Publishing with confirms' "$OUT/amqp/report.md"
echo "ysuite-bench smoke: OK"
