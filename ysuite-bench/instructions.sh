#!/usr/bin/env bash
# Instructions per message of one thread's write-flush-read loop, counted by callgrind over the
# compiled loop alone (InstructionProfile): start-up, class loading, the interpreter and
# the JIT's own threads are not counted. Repeatable on a busy machine: callgrind counts
# instructions, not time.
#
#   ysuite-bench/instructions.sh JAR TRANSPORT N [JVM option...]
#   ysuite-bench/instructions.sh ysuite-bench/target/ysuite-bench.jar offheap 200000
#
# Prints "TRANSPORT N instructions-per-message": the counted thread's instructions for 2N
# messages less those for N, over N (what the gate's own printing costs cancels out).
set -euo pipefail
jar=$1 transport=$2 n=$3
shift 3
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# count M: writes total-M, the instructions of the thread that ran the M counted messages
count() {
  rm -f "$out"/cg.out*
  local m=$1
  shift
  coproc PROFILE {
    exec valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --vgdb=yes \
      --callgrind-out-file="$out/cg.out" \
      java -XX:+UseSerialGC -Xmx256m -Xbatch "$@" -cp "$jar" org.ysuite.bench.profile.InstructionProfile \
      "$transport" "$m" 2>"$out/stderr"
  }
  local pid=$PROFILE_PID in=${PROFILE[0]} to=${PROFILE[1]}
  expect() {
    local line
    while IFS= read -r -u "$in" line; do
      [ "$line" = "$1" ] && return 0
    done
    echo "instructions.sh: the program ended before it printed $1" >&2
    cat "$out/stderr" >&2
    exit 1
  }
  expect READY
  callgrind_control --instr=on "$pid" >/dev/null 2>&1
  callgrind_control --zero "$pid" >/dev/null 2>&1
  echo go >&"$to"
  expect DONE
  callgrind_control --dump=counted "$pid" >/dev/null 2>&1
  echo go >&"$to"
  wait "$pid" || true
  # One file per thread for the dump; the counted loop ran on the thread with the most instructions.
  local best=0 f total
  for f in "$out"/cg.out.*; do
    grep -q '^desc: Trigger: .*counted' "$f" 2>/dev/null || continue
    total=$(awk '/^(summary|totals):/ {print $2; exit}' "$f")
    [ -n "$total" ] && [ "$total" -gt "$best" ] && best=$total
  done
  [ "$best" -gt 0 ] || { echo "instructions.sh: no counted dump was written" >&2; ls "$out" >&2; exit 1; }
  echo "$best" >"$out/total-$m"
}

count "$n" "$@"
count $((2 * n)) "$@"
awk -v t="$transport" -v n="$n" -v a="$(cat "$out/total-$n")" -v b="$(cat "$out/total-$((2 * n))")" 'BEGIN { printf "%s %d %.2f\n", t, n, (b - a) / n }'
