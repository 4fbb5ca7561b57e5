#!/bin/sh
# Run every libFuzzer target of a fuzz build for SECONDS each, starting from the committed
# corpus, then replay the final corpus in the coverage build and report, per target: the wall
# time and the CPU seconds the fuzzer got, the coverage counters libFuzzer loaded, executions,
# edges covered, and llvm-cov's line coverage of the engine's sources (the target's COVERS in
# fuzz/<engine>.cmake).
#
# usage: scripts/run-fuzzers.sh FUZZ_BUILD COVERAGE_BUILD SECONDS [TARGET...]
#   COVERAGE_BUILD  "-": no line coverage (CI)
#   FUZZ_FLAGS      more libFuzzer flags (e.g. FUZZ_FLAGS="-fork=1 -ignore_crashes=1" for a
#                   campaign that goes on after a finding; its edges are then the final
#                   corpus's, from a -runs=0 replay)
#   FUZZ_PARALLEL   targets run at the same time (default 1; 2 for a campaign on two cores)
# A target starts from the committed corpus plus what earlier runs left in
# FUZZ_BUILD/fuzz-corpus/<target>/ (delete that directory for a campaign from the seeds alone).
# A crash, leak, timeout or finding is saved under fuzz/crashes/<target>/ (each becomes a ctest
# in the next `make test`); the script then exits non-zero. Report: FUZZ_BUILD/fuzz-report.md.
set -eu
build=$(cd "$1" && pwd) cov=$2 seconds=$3
shift 3
[ "$cov" = - ] || cov=$(cd "$cov" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$build/fuzz/targets.tsv
report=$build/fuzz-report.md
logs=$build/fuzz-logs
mkdir -p "$logs"
[ "$cov" = - ] || mkdir -p "$cov/profiles"
tab=$(printf '\t')
status=0

# wanted NAME [TARGET...]: no targets named means all of them
wanted() {
    t=$1
    shift
    [ $# -eq 0 ] && return 0
    for w in "$@"; do [ "$w" = "$t" ] && return 0; done
    return 1
}

# The .c files a COVERS entry names (a directory: every .c file in it).
sources() {
    echo "$1" | tr ',' '\n' | while read -r c; do
        if [ -d "$c" ]; then ls "$c"/*.c; elif [ -n "$c" ]; then echo "$c"; fi
    done
}

# Line coverage of the target's sources on its final corpus: "covered/total (pct)".
line_coverage() {
    name=$1 covers=$2
    shift 2
    if [ "$cov" = - ]; then
        echo "not measured"
        return
    fi
    rm -f "$cov/profiles/$name"-*.profraw
    if ! LLVM_PROFILE_FILE="$cov/profiles/$name-%p.profraw" \
        "$cov/fuzz/fuzzcov_$name" "$@" </dev/null >"$logs/$name.replay.log" 2>&1; then
        echo "replay failed (see $logs/$name.replay.log)"
        return
    fi
    llvm-profdata merge -sparse "$cov/profiles/$name"-*.profraw -o "$cov/profiles/$name.profdata"
    # shellcheck disable=SC2046
    llvm-cov report "$cov/fuzz/fuzzcov_$name" -instr-profile="$cov/profiles/$name.profdata" \
        $(sources "$covers") >"$logs/$name.coverage.txt"
    awk '$1 == "TOTAL" { printf "%d/%d lines (%s)", $8 - $9, $8, $10 }' "$logs/$name.coverage.txt"
}

# Fuzz one target (NAME COVERS DICT), then measure its line coverage; the report row goes to
# $logs/NAME.row, a finding leaves $logs/NAME.found.
run_target() {
    name=$1 covers=$2 dict=$3
    work=$build/fuzz-corpus/$name
    crashes=$root/fuzz/crashes/$name
    mkdir -p "$work" "$crashes"
    rm -f "$logs/$name.row" "$logs/$name.found"
    # the saved findings before the run: fork mode (-fork=1 -ignore_crashes=1) names a crash
    # only by the file it leaves there
    ls "$crashes" >"$logs/$name.before"
    echo "== $name for ${seconds}s"
    # in its own directory: with -jobs=N libFuzzer writes the jobs' output to fuzz-<job>.log there
    jobs=$logs/$name.jobs
    rm -rf "$jobs"
    mkdir -p "$jobs"
    rc=0
    # /usr/bin/time: the wall time and the CPU seconds the fuzzer got (on a shared machine the
    # two differ widely, and the CPU seconds say how much fuzzing an execution count stands for)
    timer=
    [ -x /usr/bin/time ] && timer="/usr/bin/time -o $logs/$name.time -f %e_%U_%S"
    # shellcheck disable=SC2086
    (cd "$jobs" && exec $timer "$build/fuzz/fuzz_$name" -max_total_time="$seconds" \
        -print_final_stats=1 -timeout=25 -report_slow_units=600 -artifact_prefix="$crashes/" ${dict:+-dict="$dict"} \
        ${FUZZ_FLAGS:-} "$work" "$root/fuzz/corpus/$name" </dev/null >"$logs/$name.log" 2>&1) ||
        rc=$?
    cat "$jobs"/fuzz-*.log >>"$logs/$name.log" 2>/dev/null || true
    ls "$crashes" | comm -13 "$logs/$name.before" - >"$logs/$name.new"
    if [ $rc -ne 0 ] || [ -s "$logs/$name.new" ] || grep -q -E 'Test unit written to' "$logs/$name.log"; then
        touch "$logs/$name.found"
        what=$(grep -m1 -E 'FUZZ FINDING|ERROR: |SUMMARY: ' "$logs/$name.log" || true)
        echo "   $name FOUND a problem: $what"
        sed "s|^|   new: $crashes/|" "$logs/$name.new"
    fi
    counters=$(sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' "$logs/$name.log" | head -1)
    # fork mode (FUZZ_FLAGS=-fork=1 -ignore_crashes=1) prints no final stats: its last "#N:" line
    execs=$(awk '/stat::number_of_executed_units/ { n = $2 }
        /^#[0-9]+:/ { f = substr($1, 2, length($1) - 2) } END { print n != "" ? n : f }' "$logs/$name.log")
    edges=$(grep -E '^#[0-9]+' "$logs/$name.log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    case " ${FUZZ_FLAGS:-} " in
    *" -fork="*)
        # fork mode's "cov:" counts the merged features of its jobs, not edges: the edges are
        # those the final corpus covers, read from a replay that runs nothing new (-runs=0)
        edges=$("$build/fuzz/fuzz_$name" -runs=0 -timeout=25 "$work" "$root/fuzz/corpus/$name" \
            </dev/null 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' | tail -1)
        ;;
    esac
    lines=$(line_coverage "$name" "$covers" "$work" "$root/fuzz/corpus/$name")
    times=$(tail -1 "$logs/$name.time" 2>/dev/null |
        awk -F_ '{ printf "%.0f s / %.0f s", $1, $2 + $3 }')
    row="| $name | ${times:-?} | ${counters:-?} | ${execs:-?} | ${edges:-?} | $lines |"
    echo "   $row"
    echo "$row" >"$logs/$name.row"
}

# FUZZ_PARALLEL targets at a time (default 1), in batches; the report keeps the manifest order.
parallel=${FUZZ_PARALLEL:-1}
running=0
names=
while IFS="$tab" read -r name covers dict; do
    wanted "$name" "$@" || continue
    names="$names $name"
    if [ "$parallel" -le 1 ]; then
        run_target "$name" "$covers" "$dict"
        continue
    fi
    run_target "$name" "$covers" "$dict" &
    running=$((running + 1))
    if [ $running -ge "$parallel" ]; then
        wait
        running=0
    fi
done <"$manifest"
wait

{
    echo "| target | wall / CPU | counters | executions | edges | lines of the engine's sources reached |"
    echo "|---|---|---|---|---|---|"
} >"$report"
for name in $names; do
    [ -f "$logs/$name.found" ] && status=1
    cat "$logs/$name.row" >>"$report" 2>/dev/null || echo "| $name | failed |" >>"$report"
done

echo
cat "$report"
echo "(per-file line coverage: $logs/<target>.coverage.txt; libFuzzer logs: $logs/)"
exit $status
