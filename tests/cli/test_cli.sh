#!/bin/sh
# The strata CLI: exit 0 on success, 1 when an operation fails, 2 on a usage error; --help works.
strata=$1
. "$(dirname "$0")/expect.sh"

expect 2 "$strata"
expect 2 "$strata" no-such-command
expect 0 "$strata" --help
expect 0 "$strata" help
expect 0 "$strata" demo --help
expect 2 "$strata" demo --no-such-option
expect 0 "$strata" profiles
expect 0 "$strata" profiles -v
expect 2 "$strata" profiles extra
expect 2 "$strata" image
expect 2 "$strata" image create "$dir/x.img"
expect 2 "$strata" image create "$dir/x.img" --profile no-such-part
expect 2 "$strata" image create "$dir/x.img" --profile w25q128 --units zero
expect 0 "$strata" image create "$dir/x.img" --profile w25q128 --units 4
expect 0 "$strata" image info "$dir/x.img"
expect 1 "$strata" image info "$dir/missing.img"
head -c 100 "$dir/x.img" > "$dir/truncated.img"
expect 1 "$strata" image info "$dir/truncated.img"
grep -q "corrupt storage" "$dir/out" || { echo "FAIL: truncated image not reported as corrupt"; failures=$((failures + 1)); }

# strata fs: a file round trip through an image, errors for missing files, NAND refused.
expect 0 "$strata" image create "$dir/fs.img" --profile w25q128 --units 16
expect 0 "$strata" fs format "$dir/fs.img"
printf 'hello, flash\n' > "$dir/host.txt"
expect 0 "$strata" fs put "$dir/fs.img" greeting.txt "$dir/host.txt"
expect 0 "$strata" fs ls "$dir/fs.img"
grep -q "greeting.txt" "$dir/out" || { echo "FAIL: ls does not list the file"; failures=$((failures + 1)); }
expect 0 "$strata" fs get "$dir/fs.img" greeting.txt "$dir/back.txt"
cmp -s "$dir/host.txt" "$dir/back.txt" || { echo "FAIL: fs get returned other bytes"; failures=$((failures + 1)); }
expect 0 "$strata" fs check "$dir/fs.img"
expect 0 "$strata" fs df "$dir/fs.img"
expect 0 "$strata" fs rm "$dir/fs.img" greeting.txt
expect 1 "$strata" fs cat "$dir/fs.img" greeting.txt
expect 2 "$strata" fs no-such-subcommand "$dir/fs.img"
expect 2 "$strata" fs put "$dir/fs.img"
expect 0 "$strata" image create "$dir/nand.img" --profile k9f1g08 --units 4
expect 1 "$strata" fs format "$dir/nand.img"

# strata ftl: a sector round trip on a NAND image, a trace replay, a mismatched option refused.
expect 0 "$strata" image create "$dir/ftl.img" --profile k9f1g08 --units 48
expect 0 "$strata" ftl format "$dir/ftl.img" --sectors 128
expect 0 "$strata" ftl write "$dir/ftl.img" 7 "sector seven" --sectors 128
expect 0 "$strata" ftl read "$dir/ftl.img" 7 --sectors 128
grep -q "^sector seven$" "$dir/out" || { echo "FAIL: ftl read returned other bytes"; failures=$((failures + 1)); }
printf 'W 3\nW 4\nR 3\nW 3\nR 3\nR 7\n' > "$dir/trace.txt"
expect 0 "$strata" ftl replay "$dir/ftl.img" "$dir/trace.txt" --sectors 128
grep -q "^6 operations" "$dir/out" || { echo "FAIL: ftl replay did not report its operations"; failures=$((failures + 1)); }
expect 0 "$strata" ftl read "$dir/ftl.img" 7 --sectors 128
grep -q "^sector seven$" "$dir/out" || { echo "FAIL: ftl replay changed another sector"; failures=$((failures + 1)); }
expect 0 "$strata" ftl stats "$dir/ftl.img" --sectors 128
printf 'W 999\n' > "$dir/bad-trace.txt"
expect 1 "$strata" ftl replay "$dir/ftl.img" "$dir/bad-trace.txt" --sectors 128
expect 1 "$strata" ftl read "$dir/ftl.img" 7 --degree 8 --sectors 128
expect 2 "$strata" ftl read "$dir/ftl.img" --sectors 128
expect 2 "$strata" ftl no-such-subcommand "$dir/ftl.img"
expect 1 "$strata" ftl format "$dir/x.img"

# The demo runs end to end on the real series and verifies every device.
expect 0 "$strata" demo
grep -q "FAILED" "$dir/out" && { echo "FAIL: demo reported a failure"; failures=$((failures + 1)); }

[ "$failures" = 0 ] && echo "cli: all checks passed"
exit "$failures"
