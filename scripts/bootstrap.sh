#!/bin/sh
# Install what Strata needs from Debian's packages. As root it installs what is missing;
# otherwise it prints the exact command and stops.
set -eu
packages="cmake make gcc libc6-dev libcmocka-dev pkg-config gcc-arm-none-eabi libnewlib-arm-none-eabi python3 clang libclang-rt-14-dev"
# make target-test: QEMU for Cortex-M (and qemu-i386 for -m32 where the kernel cannot run it),
# avr-gcc and simavr (its library for the cycle-counting runner), -m32 multilib, llvm-ar for msp430
packages="$packages qemu-system-arm qemu-user gcc-avr avr-libc binutils-avr simavr libsimavr-dev gcc-multilib llvm"
# the HTML report: plots (run with /usr/bin/python3) and the headless-browser check of the page
packages="$packages python3-matplotlib chromium"
# strata-vmcc (tools/vmcc): the C parser it rewrites with
packages="$packages python3-pycparser"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "bootstrap: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends $missing
else
    echo "bootstrap: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
