#!/bin/sh
# strata stream: format, ingest, select and stats on images (hybrid and NAND-only), answers
# checked against the input, and the exit codes (0 ok, 1 failure, 2 usage).
. "$(dirname "$0")/../cli/lib.sh"

same() { # same WHAT FILE1 FILE2
    if ! cmp -s "$2" "$3"; then
        echo "FAIL: $1 differs"; diff "$2" "$3" | head -5
        failures=$((failures + 1))
    fi
}

i=1
while [ $i -le 2000 ]; do # a reading a minute, keys cycling over -50..249
    echo "$((1000 + i * 60)),$(( (i * 7) % 300 - 50 )),r$i"
    i=$((i + 1))
done > "$dir/in.csv"

expect 0 "$strata" stream --help
expect 2 "$strata" stream
expect 2 "$strata" stream nonsense "$dir/x.img"
expect 0 "$strata" image create "$dir/nand.img" --profile tc58dvg02 --units 64
expect 0 "$strata" image create "$dir/nor.img" --profile at45db041
expect 0 "$strata" image create "$dir/ram.img" --profile tc58dvg02 --units 64
expect 1 "$strata" stream stats "$dir/nand.img" --nor "$dir/nor.img" # not formatted
expect 0 "$strata" stream format "$dir/nand.img" --nor "$dir/nor.img"
expect 0 "$strata" stream format "$dir/ram.img"
for cfg in "--nor $dir/nor.img" ""; do
    img=$dir/ram.img
    [ -n "$cfg" ] && img=$dir/nand.img
    # shellcheck disable=SC2086
    expect 0 "$strata" stream ingest "$img" $cfg "$dir/in.csv"
    # every reading with key 42, in time order, and newest first with a limit
    # shellcheck disable=SC2086
    expect 0 "$strata" stream select "$img" $cfg 0 4294967295 42 42
    awk -F, '$2 == 42 { print $1 "," $2 "," $3 }' "$dir/in.csv" > "$dir/want"
    same "key 42 ($img)" "$dir/want" "$dir/out"
    # shellcheck disable=SC2086
    expect 0 "$strata" stream select "$img" $cfg 30000 60000 0 99 --newest --limit 3
    awk -F, '$1 >= 30000 && $1 <= 60000 && $2 >= 0 && $2 <= 99' "$dir/in.csv" | tail -3 |
        sort -t, -k1,1nr > "$dir/want"
    same "window x range ($img)" "$dir/want" "$dir/out"
    # shellcheck disable=SC2086
    expect 0 "$strata" stream stats "$img" $cfg
    grep -q "^readings 2000 " "$dir/out" || { echo "FAIL: stats of $img"; cat "$dir/out"; failures=$((failures + 1)); }
    # shellcheck disable=SC2086
    expect 2 "$strata" stream select "$img" $cfg 5
    echo "5,1,late" > "$dir/late.csv" # before the last reading: refused
    # shellcheck disable=SC2086
    expect 1 "$strata" stream ingest "$img" $cfg "$dir/late.csv"
    echo "x,1" > "$dir/bad.csv"
    # shellcheck disable=SC2086
    expect 2 "$strata" stream ingest "$img" $cfg "$dir/bad.csv"
done
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "stream CLI: all checks passed"
