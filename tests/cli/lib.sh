# Shared by the CLI test scripts (sourced, with the strata program as $1): a scratch directory,
# a failure count, and expect().
strata=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

# expect CODE command...: run it (stdout to $dir/out, stderr to $dir/err); count a failure and
# show both when it exits with another code.
expect() {
    want=$1; shift
    "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"; sed 's/^/    /' "$dir/out" "$dir/err"
        failures=$((failures + 1))
    fi
}
