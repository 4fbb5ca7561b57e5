#!/bin/sh
# Run every libFuzzer program of a fuzz build for a while, starting from the committed corpus.
set -eu
build=$1 seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
for f in $(find "$build/fuzz" -type f -name 'fuzz_*' -perm -u+x | sort); do
    name=$(basename "$f" | sed 's/^fuzz_//')
    work="$build/fuzz-corpus/$name"
    mkdir -p "$work"
    echo "== $name for ${seconds}s"
    "$f" -max_total_time="$seconds" "$work" "$root/fuzz/corpus/$name"
done
