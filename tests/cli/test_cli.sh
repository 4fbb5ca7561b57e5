#!/bin/sh
# The strata CLI: exit 0 on success, 1 when an operation fails, 2 on a usage error; --help works.
strata=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

expect() { # expect CODE command...
    want=$1; shift
    "$@" >"$dir/out" 2>&1
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"; sed 's/^/    /' "$dir/out"
        failures=$((failures + 1))
    fi
}

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

# The demo runs end to end on the real series and verifies every device.
expect 0 "$strata" demo
grep -q "FAILED" "$dir/out" && { echo "FAIL: demo reported a failure"; failures=$((failures + 1)); }

[ "$failures" = 0 ] && echo "cli: all checks passed"
exit "$failures"
