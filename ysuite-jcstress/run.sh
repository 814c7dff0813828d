#!/usr/bin/env bash
# Runs the ysuite jcstress suite and fails on any FORBIDDEN outcome or test ERROR.
#
#   bash ysuite-jcstress/run.sh [quick|default|tough] [extra jcstress options...]
#
#   quick    CI mode: jcstress "-m quick" in one VM configuration (tiered, C2 randomizers on),
#            2 forks per test; about 3 min for the whole suite on JDK 18+ (50 of its 53 races on 2
#            cores, where the three three-actor races are skipped). On JDK 15-17 jcstress runs each
#            race twice more, with biased locking on and off (twice the time): .ci/run gives it the
#            newest JDK.
#   default  jcstress "-m default": every VM configuration, 5 x 1 s per fork, 1 + 5 forks; about
#            6 min per race on 2 cores (2-3 h for the suite).
#   tough    jcstress "-m tough": longer and more forks than default; many hours. Run it on a quiet machine
#            with >= 4 cores so the three-actor races are scheduled too.
#
# Extra arguments are passed to jcstress as they are (e.g. -v). Environment: JAVA (default: java on
# PATH), JCSTRESS_CPUS (default: all CPUs, at most 4 in quick), JCSTRESS_TESTS (a regexp selecting
# tests, e.g. JCSTRESS_TESTS=YPipe; default: all).
#
# Exit status: jcstress 0.16's Main returns 0 after a clean run and ends with an uncaught
# AssertionError ("TEST FAILURES"), i.e. exit status 1, when a test observed a forbidden outcome or
# failed with an error. We do not rely on that alone: the final "(Results: N planned; P passed,
# F failed, S soft errs, H hard errs)" line is parsed too, and the run fails unless F = 0, H = 0 and
# P = N > 0, and no "[FAILED]" or "[ERROR]" test line was printed.
set -euo pipefail

mode="${1:-quick}"
[[ $# -gt 0 ]] && shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
jar="$here/target/ysuite-jcstress.jar"
java_cmd="${JAVA:-java}"

if [[ ! -f "$jar" ]]; then
  echo "run.sh: building $jar"
  (cd "$root" && mvn -B -q -pl ysuite-jcstress -am package -DskipTests -Dmaven.javadoc.skip=true)
fi

ncpu="$(nproc)"
cpus="${JCSTRESS_CPUS:-$ncpu}"
args=()
case "$mode" in
  quick)
    # One VM configuration instead of quick's eight ({-Xint, C1, C2, C2 + stress} x biased
    # locking on/off, which is irrelevant here: ysuite has no monitors): tiered compilation, so
    # every actor runs interpreted, then C1, then C2 code during its 5 x 200 ms, with C2's
    # instruction scheduling and value numbering randomized (a fresh seed in each of the two
    # forks per test). -sc false: actors compiled together, one compilation mode.
    (( cpus > 4 )) && cpus=4
    args+=(-m quick -sc false)
    quick_vm="-XX:+UnlockDiagnosticVMOptions -XX:+StressLCM -XX:+StressGCM -XX:+StressIGVN -XX:+StressCCP"
    ;;
  default) args+=(-m default) ;;
  tough)   args+=(-m tough) ;;
  *) echo "usage: $0 [quick|default|tough] [jcstress options...]" >&2; exit 2 ;;
esac
args+=(-c "$cpus")

# Races with three actors (two writers and a reader, two signallers and an owner) cannot be
# scheduled on fewer than three CPUs: select them out rather than let jcstress skip them silently.
filter="${JCSTRESS_TESTS:-.*}"
skip=""
if (( cpus < 3 )); then
  skip="ThreeActors|"
  echo "run.sh: $cpus CPUs: the *ThreeActors races are skipped (they need >= 3 CPUs)"
fi

# JNR (YSocketPair) needs native access on JDK 24+; jcstress forks plain VMs, so pass it through.
native=""
jver="$("$java_cmd" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
if [[ "${jver%%.*}" -ge 24 ]]; then
  native="--enable-native-access=ALL-UNNAMED"
fi
jvm_prepend=()
if [[ -n "${quick_vm:-}" ]]; then
  jvm_prepend=(-jvmArgs "$quick_vm${native:+ $native}")   # also turns VM flag auto-detection off
elif [[ -n "$native" ]]; then
  jvm_prepend=(-jvmArgsPrepend "$native")
fi

out="$here/target/jcstress-$mode"
rm -rf "$out"
mkdir -p "$out"
cd "$out"

# Runs one jcstress pass and checks it; sets status=1 on any failure.
status=0
total_planned=0
run_pass() {
  local name="$1" selector="$2"; shift 2
  local dir="$out/$name" log="$out/$name/jcstress.log"
  mkdir -p "$dir"
  echo "run.sh: [$name] $java_cmd -jar $jar ${args[*]} -t '$selector' ${jvm_prepend[*]} $*  (log: $log)"
  set +e
  (cd "$dir" && "$java_cmd" -jar "$jar" "${args[@]}" -t "$selector" "${jvm_prepend[@]}" -r "$dir/report" "$@") 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  if grep -q 'FATAL: No matching tests' "$log"; then
    echo "run.sh: [$name] no matching tests"
    return
  fi
  local summary
  summary="$(grep -E '^\(Results: [0-9]+ planned' "$log" | tail -1 || true)"
  echo
  echo "run.sh: [$name] jcstress exit status $rc; $summary"
  if [[ ! "$summary" =~ \(Results:\ ([0-9]+)\ planned\;\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ soft\ errs,\ ([0-9]+)\ hard\ errs\) ]]; then
    echo "run.sh: [$name] FAIL: no jcstress results summary found" >&2
    status=1
    return
  fi
  local planned="${BASH_REMATCH[1]}" passed="${BASH_REMATCH[2]}" failed="${BASH_REMATCH[3]}"
  local soft="${BASH_REMATCH[4]}" hard="${BASH_REMATCH[5]}"
  local bad_lines
  bad_lines="$(grep -E '\[[A-Z ]*(FAILED|ERROR)\]' "$log" | sort -u || true)"
  total_planned=$(( total_planned + planned ))
  if (( rc != 0 )); then echo "run.sh: [$name] FAIL: jcstress exited with $rc" >&2; status=1; fi
  if (( failed > 0 )); then echo "run.sh: [$name] FAIL: $failed run(s) observed a FORBIDDEN outcome" >&2; status=1; fi
  if (( hard > 0 )); then echo "run.sh: [$name] FAIL: $hard run(s) ended in ERROR" >&2; status=1; fi
  if (( planned == 0 || passed != planned )); then
    echo "run.sh: [$name] FAIL: $passed of $planned planned runs passed ($soft soft errors)" >&2; status=1
  fi
  if [[ -n "$bad_lines" ]]; then echo "run.sh: [$name] FAIL:"$'\n'"$bad_lines" >&2; status=1; fi
  if (( status == 0 )); then
    echo "run.sh: [$name] PASS: $passed of $planned runs passed, no forbidden outcome, no error (report: $dir/report/index.html)"
  fi
}

# One pass over every race. The races over file descriptors (YSocketPair, NioSignaler, YMailbox
# over a YSocketPair) lease their signalers from a bounded pool (DescriptorPool.java): jcstress's
# own sizing of the epoch caps the states alive at once, so they need no stride options, and they
# run the same way under "java -jar ysuite-jcstress.jar -m <mode>".
run_pass main "^(?!.*(${skip}NoSuchTest)).*(?:$filter).*\$" "$@"

if (( total_planned == 0 )); then
  echo "run.sh: FAIL: no test ran" >&2
  status=1
fi
if (( status == 0 )); then
  echo "run.sh: PASS (all passes)"
else
  echo "run.sh: FAIL" >&2
fi
exit $status
