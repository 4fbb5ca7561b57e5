#!/bin/sh
# The deterministic fuzz step of CI (docs/fuzzing.md, "CI"): the same commit gives the same
# executions, the same inputs and the same verdict on every run, so CI turns red only when a
# change breaks something, never because a random run got lucky. Per target, one process at a
# time:
#   1. every saved finding in fuzz/crashes/<target>/ whose defect is fixed (no <file>.defect)
#      replayed through the instrumented target in strict mode (STRATA_FUZZ_STRICT=1);
#   2. libFuzzer from the committed corpus with a fixed seed and a fixed number of runs
#      (-seed, -runs): the corpus is replayed first, then the seeded mutations run.
# What makes libFuzzer repeatable (measured: without either, two runs of kv or fs_ops from the
# same seed part after 150-200 executions): the seed inputs are named in sorted order
# (-seed_inputs; a directory is read in the file system's order), the output corpus is a fresh
# directory that is never re-read (-reload=0; by default libFuzzer re-reads it every second,
# which depends on timing), and address-space randomisation is off (setarch -R), since the
# comparison operands libFuzzer records include pointers.
#
# usage: scripts/ci-fuzz.sh FUZZ_BUILD [TARGET...]     (make fuzz-ci)
# A finding is saved under fuzz/crashes/<target>/ and the script exits non-zero; the line it
# prints reproduces it.
set -eu
build=$(cd "$1" && pwd)
shift
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$build/fuzz/targets.tsv
work=$build/ci-fuzz
tab=$(printf '\t')

# target seed runs: the runs include the corpus replay. Runs are sized for about 10 s per target
# on an idle core. A target with an open defect runs from a seed known to pass (checked when the
# defect was filed), or not at all (runs 0) when no seed passes for long; its line says which
# defects. `make test` still replays its corpus (fuzzreg_<target>). Change a seed or a count only on purpose: the
# step's result is a function of them.
plan() {
    cat <<'EOF'
fs          1 1500
fs_ops      1 1500
kv          1 2500
kv_ops      1 400
nand        1 500
sim_image   1 800
btree       1 1500
btree_ops   1 120   (its 52 seeds are long scripts: about 15 s on an idle core)
ftl_ops     1 100   (its 48 seeds replay in about 5 s of CPU: NAND devices with BCH)
vm_ops      1 300
stream_ops  1 150   (NAND with BCH and default faults: about 25 s on an idle core)
EOF
}

norandom=
if setarch -R true 2>/dev/null; then
    norandom="setarch -R"
else
    echo "ci-fuzz: setarch -R unavailable: address randomisation stays on, runs may differ" >&2
fi

mkdir -p "$work"
status=0
total_start=$(date +%s)
while IFS="$tab" read -r name covers dict; do
    line=$(plan | awk -v n="$name" '$1 == n')
    if [ -z "$line" ]; then
        echo "ci-fuzz: target $name has no line in the plan (scripts/ci-fuzz.sh)" >&2
        status=1
        continue
    fi
    if [ $# -gt 0 ] && ! echo " $* " | grep -q " $name "; then
        continue
    fi
    seed=$(echo "$line" | awk '{ print $2 }')
    runs=$(echo "$line" | awk '{ print $3 }')
    bin=$build/fuzz/fuzz_$name
    crashes=$root/fuzz/crashes/$name
    start=$(date +%s)

    # 1. saved findings whose defect is fixed, strict
    fixed=
    for f in "$crashes"/*; do
        [ -f "$f" ] || continue
        case $f in *.defect | *.md) continue ;; esac
        [ -f "$f.defect" ] && continue
        fixed="$fixed $f"
    done
    if [ -n "$fixed" ]; then
        # shellcheck disable=SC2086
        if ! STRATA_FUZZ_STRICT=1 $norandom "$bin" -runs=1 $fixed >"$work/$name.replay.log" 2>&1; then
            echo "ci-fuzz: $name: a saved finding fails again (see $work/$name.replay.log)"
            grep -m1 -E 'FUZZ FINDING|ERROR: |SUMMARY: ' "$work/$name.replay.log" || true
            status=1
        fi
    fi

    # 2. the seeded run from the committed corpus, in sorted order (runs 0: none, open defects)
    if [ "$runs" -eq 0 ]; then
        echo "ci-fuzz: $name: saved findings replayed; no seeded run (open defects: see the plan)"
        continue
    fi
    find "$root/fuzz/corpus/$name" -type f | LC_ALL=C sort | paste -sd, >"$work/$name.seeds"
    rm -rf "$work/$name.corpus"
    mkdir -p "$work/$name.corpus" "$crashes"
    rc=0
    # shellcheck disable=SC2086
    $norandom "$bin" -seed="$seed" -runs="$runs" -reload=0 -timeout=60 -report_slow_units=600 \
        -print_final_stats=1 -artifact_prefix="$crashes/" ${dict:+-dict="$dict"} \
        -seed_inputs=@"$work/$name.seeds" "$work/$name.corpus" \
        </dev/null >"$work/$name.log" 2>&1 || rc=$?
    edges=$(grep -E '^#[0-9]+' "$work/$name.log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    execs=$(awk '/stat::number_of_executed_units/ { n = $2 } END { print n }' "$work/$name.log")
    echo "ci-fuzz: $name seed $seed: ${execs:-?} runs, ${edges:-?} edges, $(( $(date +%s) - start )) s"
    if [ $rc -ne 0 ]; then
        grep -m1 -E 'FUZZ FINDING|ERROR: |SUMMARY: ' "$work/$name.log" || true
        grep -E 'Test unit written to' "$work/$name.log" | sed 's/^/  /' || true
        echo "  reproduce: make fuzz-ci FUZZ_TARGETS=$name (log: $work/$name.log)"
        status=1
    fi
done <"$manifest"
echo "ci-fuzz: $(( $(date +%s) - total_start )) s in all"
exit $status
