#!/usr/bin/env bash
# Smoke run of every ysuite-bench benchmark: one fork, no warmup, one 100 ms iteration each,
# under -prof gc, with reduced message-size and batch-size parameter lists. It checks that every
# benchmark still runs (none can rot); the figures mean nothing. Exits non-zero if any benchmark
# fails (JMH fail-on-error). Takes well under a minute on an idle 2-core machine.
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
timeout 600 java -jar "$JAR" report --smoke --out "$OUT"
test -s "$OUT/jmh-result.json"
test -s "$OUT/results.csv"
echo "ysuite-bench smoke: OK"
