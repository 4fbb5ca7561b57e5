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

# output_is EXPECTED-FILE WHAT: the last command printed exactly that file on stdout
output_is() {
    if ! cmp -s "$1" "$dir/out"; then
        echo "FAIL: $2: output differs"; diff "$1" "$dir/out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

# output_has REGEX WHAT: a line the last command printed (stdout or stderr) matches
output_has() {
    grep -q -- "$1" "$dir/out" "$dir/err" ||
        { echo "FAIL: $2"; sed 's/^/    /' "$dir/out" "$dir/err"; failures=$((failures + 1)); }
}
