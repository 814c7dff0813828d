#!/usr/bin/env bash
# Where the CPU goes per message while amqp.AmqpPublish.publish runs one way: the CPU time of each
# thread of the benchmark's JVM and of the broker's process over the measurement iterations (from
# /proc/PID/task/*/stat), divided by the messages those iterations published. On a machine whose
# cores the client and the broker share, their sum per message bounds the rate.
#
#   ysuite-bench/amqp-cpu.sh JAR WAY SIZE BROKER [THREADS]
#   ysuite-bench/amqp-cpu.sh ysuite-bench/target/ysuite-bench.jar ysuite_channels4 8 rabbitmq 4
#
# BROKER is embedded (Broker-J, in a JVM of its own) or rabbitmq (YSUITE_RABBITMQ_URI names the
# node, which runs on this machine). Prints one line per busy thread group (digits in thread
# names folded), "client" and "broker" totals, and the mean rate; exits 1 if JMH failed.
set -euo pipefail
jar=$1 way=$2 size=$3 broker=$4 threads=${5:-4}
warmups=3 iterations=4 seconds=3
out=$(mktemp -d)
trap 'rm -rf "$out"; [ -n "${jmh:-}" ] && kill "$jmh" 2>/dev/null; true' EXIT

java -jar "$jar" 'amqp.AmqpPublish.publish$' -p broker="$broker" -p size="$size" -p way="$way" \
  -t "$threads" -f 1 -wi "$warmups" -w 2 -i "$iterations" -r "$seconds" > "$out/jmh.log" 2>&1 &
jmh=$!

# waits for a line of JMH's output (the end of an iteration), or fails if JMH ended first
await() {
  until grep -q "$1" "$out/jmh.log"; do
    kill -0 "$jmh" 2>/dev/null || { cat "$out/jmh.log" >&2; echo "amqp-cpu.sh: JMH ended early" >&2; exit 1; }
    sleep 0.05
  done
}
# thread name|utime+stime|stime (clock ticks) of every thread of process $1, first the whole
# process as "=process" (its time includes that of threads that ended: the totals come from it); a
# thread that ends while it is read is left out of the breakdown
snapshot() {
  local t stat comm s
  read -ra s <<< "$(sed 's/.*) //' /proc/"$1"/stat)"
  echo "=process|$(( s[11] + s[12] ))|${s[12]}"
  for t in /proc/"$1"/task/*; do
    stat=$(cat "$t/stat" 2>/dev/null) && comm=$(cat "$t/comm" 2>/dev/null) || continue
    read -ra s <<< "${stat##*) }"
    echo "$comm|$(( s[11] + s[12] ))|${s[12]}"
  done
}

await "^# Warmup Iteration *$warmups:" # the last warm-up is over: the measurement starts
fork=$(pgrep -f 'org.openjdk.jmh.runner.ForkedMain' | head -1)
if [ "$broker" = rabbitmq ]; then
  bpid=$(pgrep -f beam.smp | head -1)
else
  bpid=$(pgrep -f 'EmbeddedBroker [0-9]' | head -1)
fi
snapshot "$fork" > "$out/c0"; snapshot "$bpid" > "$out/b0"
await "^Iteration *$iterations:"
snapshot "$fork" > "$out/c1"; snapshot "$bpid" > "$out/b1"
wait "$jmh"; jmh=
rate=$(awk '/^Iteration/ {s += $3; n++} END {print s / n}' "$out/jmh.log")

python3 - "$rate" "$(( iterations * seconds ))" "$(getconf CLK_TCK)" "$out" <<'PY'
import collections, re, sys
rate, secs, tck, out = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
messages = rate * secs
def load(name):
    total, sys_ = collections.Counter(), collections.Counter()
    for line in open(f"{out}/{name}"):
        thread, t, s = line.rstrip("\n").rsplit("|", 2)
        thread = re.sub(r"\d+", "N", thread)
        total[thread] += int(t)
        sys_[thread] += int(s)
    return total, sys_
def us(ticks):
    return ticks / tck * 1e6 / messages
for side in ("client", "broker"):
    t0, s0 = load(side[0] + "0")
    t1, s1 = load(side[0] + "1")
    print(f"{side}: {us(t1.pop('=process') - t0.pop('=process')):.2f} us/msg")
    for thread in sorted(t1, key=lambda k: t0[k] - t1[k]):
        d = t1[thread] - t0[thread]
        if d > 0:
            print(f"  {thread:28s} {us(d):6.2f} us/msg (system {us(s1[thread] - s0[thread]):5.2f})")
print(f"rate: {rate:,.0f} msgs/s over {secs} s")
PY
