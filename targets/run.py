#!/usr/bin/env python3
"""make target-test: every engine's target workload on every target we ship for, same digests.

Builds (CMake, one build directory each under BUILD/targets/):
  host64     the build machine, 64-bit
  host32     the build machine, -m32 (run natively, or under qemu-i386 when the kernel cannot)
  cortex-m0  arm-none-eabi-gcc -mcpu=cortex-m0, run on qemu-system-arm -M microbit (ARMv6-M:
             unaligned accesses fault; 16 KiB RAM)
  cortex-m4  -mcpu=cortex-m4, run on qemu-system-arm -M mps2-an386
  avr        avr-gcc -mmcu=atmega1284 (16-bit int, 16 KiB RAM), run in simavr (targets/avr/simrun)
  msp430     clang --target=msp430, the library only: compile check of every engine (16-bit int
             and pointers), no run
then runs strata-target-<engine> everywhere and requires identical "digest" lines and a PASS on
every target. Measured on the way (docs/targets.md): the stack high-water mark of every public call
(stack painting) on Cortex-M0/M4 and AVR, its instructions on Cortex-M0/M4 (the QEMU plugin
targets/qemu/insn_probe.c) and its cycles on the AVR (simavr). Everything goes to
BUILD/targets/report.json and a table in BUILD/targets/README.md; scripts/size.py --measured puts
the Cortex-M figures beside its static stack bound. Also counted, for the module owners: the
-Wconversion warnings of every module with gcc (host) and clang --target=msp430.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = os.path.join(ROOT, "targets")

ARM = {"platform": "arm", "toolchain": "cmake/arm-none-eabi.cmake", "type": "MinSizeRel"}
BUILDS = {
    "host64": {"platform": "host", "type": "Release", "flags": "-m64"},
    "host32": {"platform": "host", "type": "Release", "flags": "-m32"},
    "cortex-m0": dict(ARM, cpu="cortex-m0", machine="microbit"),
    "cortex-m4": dict(ARM, cpu="cortex-m4", machine="mps2-an386"),
    "avr": {"platform": "avr", "toolchain": "cmake/avr-gcc.cmake", "type": "MinSizeRel"},
    "msp430": {"platform": None, "toolchain": "cmake/msp430-clang.cmake", "type": "MinSizeRel"},
}
RUN_TIMEOUT = 600
# The engines (ARCHITECTURE.md); each gets targets/workloads/<module>.c when it lands.
ENGINES = ["fs", "kv", "stream", "btree", "ftl", "vm"]
# Workloads of tools rather than library modules: tools/<name> holds them.
TOOLS = ["vmcc"]
# Workloads that cannot exist on a target, with the reason (not built there, reported as n/a).
NOT_ON = {("avr", "vmcc"): "strata-vmcc's generated code needs pointers of 32 bits or more"}
# Known failures on one target, each an open defect named in docs/status.md: reported as OPEN
# DEFECT (not a pass), left out of the digest comparison, and a PROBLEM once it passes (remove
# the entry with the fix), so an entry can neither hide a new failure nor outlive its defect.
OPEN_DEFECTS = {}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def configure_and_build(name, spec, out, jobs):
    d = os.path.join(out, name)
    cmd = ["cmake", "-S", ROOT, "-B", d, "-DSTRATA_HOST=OFF", "-DCMAKE_BUILD_TYPE=" + spec["type"]]
    if spec["platform"] is not None:
        cmd += ["-DSTRATA_TARGETS=ON", "-DSTRATA_TARGET_PLATFORM=" + spec["platform"]]
    if "toolchain" in spec:
        cmd.append("-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(ROOT, spec["toolchain"]))
    if "cpu" in spec:
        cmd.append("-DSTRATA_CPU=" + spec["cpu"])
    if "flags" in spec:
        cmd.append("-DCMAKE_C_FLAGS=" + spec["flags"])
    sh(cmd)
    r = subprocess.run(["cmake", "--build", d, "-j%d" % jobs], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-4000:] + r.stderr[-4000:])
        raise SystemExit("target-test: the %s build failed" % name)
    return d


def tools(out):
    """The host-side tools: the simavr runner and the QEMU plugin."""
    d = os.path.join(out, "tools")
    os.makedirs(d, exist_ok=True)
    simrun = os.path.join(d, "simrun")
    plugin = os.path.join(d, "insn_probe.so")
    sh(["cc", "-std=gnu99", "-O2", "-Wall", "-Wextra", "-Werror",
        os.path.join(TARGETS, "avr", "simrun.c"), "-lsimavr", "-o", simrun])
    sh(["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
        "-fvisibility=hidden", os.path.join(TARGETS, "qemu", "insn_probe.c"), "-o", plugin])
    return simrun, plugin


def symbols(nm, elf):
    """{name: (address, size)} of the ELF's symbols (Thumb bit cleared)."""
    syms = {}
    for line in sh([nm, "-S", elf]).splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16) & ~1, int(f[1], 16))
        elif len(f) == 3:
            syms.setdefault(f[2], (int(f[0], 16) & ~1, 0))
    return syms


def division_ranges(syms):
    """Address ranges of libgcc's software division helpers."""
    return sorted((a, a + s) for n, (a, s) in syms.items()
                  if s and re.search(r"div", n) and "div0" not in n)


def host32_runner():
    """How to run an -m32 program here: natively when the kernel can, else qemu-i386."""
    probe = os.path.join(os.environ.get("TMPDIR", "/tmp"), "strata-m32-probe")
    try:
        sh(["cc", "-m32", "-x", "c", "-", "-o", probe], input="int main(void){return 0;}")
        subprocess.run([probe], check=True, capture_output=True)
        return []
    except (subprocess.CalledProcessError, OSError):
        if shutil.which("qemu-i386") is None:
            raise SystemExit("target-test: this kernel cannot run -m32 programs and qemu-i386 "
                             "(Debian qemu-user) is missing")
        return ["qemu-i386", "-L", "/"]
    finally:
        if os.path.exists(probe):
            os.remove(probe)


def parse_calls(path):
    calls = {}
    if not os.path.exists(path):
        return calls
    for line in open(path):
        f = line.split()
        if f[0].isdigit():
            calls[int(f[0])] = {"n": int(f[1]), "total": int(f[2]), "min": int(f[3]),
                                "max": int(f[4]), "div": int(f[5])}
    return calls


def run_one(target, build, engine, simrun, plugin, runner32, out):
    spec = BUILDS[target]
    exe = os.path.join(build, "targets", "strata-target-" + engine)
    counts = os.path.join(out, "%s-%s.calls" % (target, engine))
    if os.path.exists(counts):
        os.remove(counts)
    if spec["platform"] == "host":
        cmd = (runner32 if target == "host32" else []) + [exe]
    elif spec["platform"] == "arm":
        exe += ".elf"
        syms = symbols("arm-none-eabi-nm", exe)
        args = ["enter=%#x" % syms["tgt_probe_enter"][0], "leave=%#x" % syms["tgt_probe_leave"][0],
                "sink=%#x" % syms["tgt_sink"][0], "out=" + counts]
        args += ["div=%#x:%#x" % r for r in division_ranges(syms)]
        cmd = ["qemu-system-arm", "-M", spec["machine"], "-nographic", "-monitor", "none",
               "-serial", "none", "-semihosting-config", "enable=on,target=native",
               "-kernel", exe, "-plugin", plugin + "," + ",".join(args)]
    else:
        exe += ".elf"
        cmd = [simrun, "-c", counts]
        for lo, hi in division_ranges(symbols("avr-nm", exe)):
            cmd += ["-d", "%#x:%#x" % (lo, hi)]
        cmd.append(exe)
    t0 = time.time()
    # (QEMU writes semihosting output to stderr: one stream for all)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=RUN_TIMEOUT)
    with open(os.path.join(out, "%s-%s.out" % (target, engine)), "w") as fh:
        fh.write(r.stdout)
    res = {"status": r.returncode, "seconds": round(time.time() - t0, 2), "digests": [],
           "calls": {}, "pass": "result PASS" in r.stdout}
    names = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f and f[0] == "digest":
            res["digests"].append(line)
        elif f and f[0] == "call":
            names[int(f[1])] = f[2]
            res["calls"][f[2]] = {"n": int(f[3]), "stack": int(f[4])}
        elif f and f[0] == "FAIL" or f and f[0] == "FAULT":
            res["failure"] = line
    measured = parse_calls(counts)
    if measured:
        base = measured.get(0, {"min": 0})["min"]  # the empty bracket's own instructions/cycles
        unit = "cycles" if spec["platform"] == "avr" else "instructions"
        for i, m in measured.items():
            if i == 0 or i not in names:
                continue
            c = res["calls"][names[i]]
            c[unit] = {"mean": round((m["total"] - base * m["n"]) / m["n"], 1),
                       "min": m["min"] - base, "max": m["max"] - base, "total": m["total"] - base * m["n"],
                       "division": m["div"]}
        res["unit"] = unit
    if spec["platform"] == "host":
        for c in res["calls"].values():
            del c["stack"]  # not measured on the host
    return res


def conversion_warnings():
    """-Wconversion warnings per module (distinct places) with host gcc and clang for msp430."""
    compilers = {
        "gcc (host)": ["cc"],
        "clang --target=msp430": ["clang", "--target=msp430", "-ffreestanding", "-nostdlibinc",
                                  "-isystem", os.path.join(TARGETS, "msp430", "include")],
    }
    result = {}
    for label, cc in compilers.items():
        result[label] = {}
        for m in sorted(os.listdir(os.path.join(ROOT, "src"))):
            d = os.path.join(ROOT, "src", m)
            if not os.path.exists(os.path.join(d, "CMakeLists.txt")) or not re.search(
                    r"strata_module\(", open(os.path.join(d, "CMakeLists.txt")).read()):
                continue
            places = set()
            for f in sorted(os.listdir(d)):
                if not f.endswith(".c"):
                    continue
                r = subprocess.run(cc + ["-std=c99", "-fsyntax-only", "-Wall", "-Wextra",
                                         "-pedantic", "-Wconversion", "-I" + os.path.join(ROOT, "include"),
                                         "-I" + os.path.join(ROOT, "src", "util"), "-I" + d,
                                         os.path.join(d, f)], capture_output=True, text=True)
                places |= {l.split(": warning:")[0] for l in r.stderr.splitlines()
                           if ": warning:" in l}
            result[label][m] = len(places)
    return result


def markdown(report):
    lines = ["# Target workloads (make target-test)", ""]
    lines.append("Digests identical on every target: **%s**." % ("yes" if report["match"] else "NO"))
    lines.append("")
    for engine in report["engines"]:
        lines += ["## %s" % engine, "",
                  "| call | calls | stack M0 | stack M4 | stack AVR | instr. M0 mean / max | "
                  "instr. M4 mean / max | cycles AVR mean / max |", "|---|---|---|---|---|---|---|---|"]
        runs = {t: report["runs"].get(t, {}).get(engine, {}) for t in ("cortex-m0", "cortex-m4", "avr")}
        for call, c in sorted(runs["cortex-m0"].get("calls", {}).items()):
            row = ["`%s`" % call, str(c["n"])]
            for t in ("cortex-m0", "cortex-m4", "avr"):
                row.append(str(runs[t].get("calls", {}).get(call, {}).get("stack", "-")))
            for t, unit in (("cortex-m0", "instructions"), ("cortex-m4", "instructions"),
                            ("avr", "cycles")):
                m = runs[t].get("calls", {}).get(call, {}).get(unit)
                row.append("%.0f / %d" % (m["mean"], m["max"]) if m else "-")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if report.get("not_applicable"):
        lines += ["Not applicable: " + "; ".join(report["not_applicable"]) + ".", ""]
    lines += ["## -Wconversion warnings (distinct places) per module", "",
              "| compiler | " + " | ".join(sorted(next(iter(report["wconversion"].values())))) + " |",
              "|---|" + "---|" * len(next(iter(report["wconversion"].values())))]
    for label, mods in report["wconversion"].items():
        lines.append("| %s | %s |" % (label, " | ".join(str(mods[m]) for m in sorted(mods))))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--targets", default=",".join(BUILDS), help="comma-separated subset")
    args = ap.parse_args()
    out = os.path.join(os.path.abspath(args.build), "targets")
    os.makedirs(out, exist_ok=True)
    chosen = [t for t in BUILDS if t in args.targets.split(",")]
    simrun, plugin = tools(out)
    runner32 = host32_runner() if "host32" in chosen else []
    builds = {}
    for t in chosen:
        t0 = time.time()
        builds[t] = configure_and_build(t, BUILDS[t], out, args.jobs)
        print("target-test: built %-10s (%.0f s)" % (t, time.time() - t0), flush=True)
    engines = sorted(m[:-2] for m in os.listdir(os.path.join(TARGETS, "workloads")) if m.endswith(".c")
                     and os.path.isdir(os.path.join(ROOT, "tools" if m[:-2] in TOOLS else "src", m[:-2])))
    missing = sorted(set(ENGINES) - set(engines))
    missing = [m for m in missing if os.path.isdir(os.path.join(ROOT, "src", m))]
    if missing:
        print("target-test: NOTE: engines without a target workload (docs/targets.md): "
              + ", ".join(missing))
    report = {"engines": engines, "runs": {}, "match": True, "problems": []}
    for t in chosen:
        if BUILDS[t]["platform"] is None:
            continue
        report["runs"][t] = {}
        for e in engines:
            if (t, e) in NOT_ON:
                report.setdefault("not_applicable", []).append("%s on %s: %s" % (e, t, NOT_ON[(t, e)]))
                print("target-test: %-10s %-4s n/a (%s)" % (t, e, NOT_ON[(t, e)]), flush=True)
                continue
            res = run_one(t, builds[t], e, simrun, plugin, runner32, out)
            ok = res["pass"] and res["status"] == 0
            known = OPEN_DEFECTS.get((t, e))
            if known is None:
                report["runs"][t][e] = res
            else:
                report.setdefault("open_defects", []).append("%s on %s: %s" % (e, t, known))
            print("target-test: %-10s %-4s %s in %5.1f s%s" % (
                t, e, ("PASS" if ok else "FAIL") if known is None else "OPEN DEFECT",
                res["seconds"], "  (" + res["failure"] + ")" if "failure" in res else ""),
                flush=True)
            if known is not None and ok:
                report["problems"].append("%s on %s passes: remove its OPEN_DEFECTS entry" % (e, t))
            elif known is None and not ok:
                report["problems"].append("%s on %s failed: %s" % (e, t, res.get("failure", "exit %d" % res["status"])))
    ref = "host64" if "host64" in report["runs"] else next(iter(report["runs"]), None)
    for e in engines:
        for t, runs in report["runs"].items():
            if ref is None or t == ref or e not in runs:
                continue
            a, b = runs[e]["digests"], report["runs"][ref][e]["digests"]
            if a != b:
                report["match"] = False
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                report["problems"].append("%s digests on %s differ from %s from line %d: %s vs %s" % (
                    e, t, ref, first + 1, a[first] if first < len(a) else "(end)",
                    b[first] if first < len(b) else "(end)"))
    report["wconversion"] = conversion_warnings()
    with open(os.path.join(out, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    with open(os.path.join(out, "README.md"), "w") as fh:
        fh.write(markdown(report))
    print("target-test: digests %s across %s" % (
        "identical" if report["match"] else "DIFFER", ", ".join(report["runs"])))
    for label, mods in report["wconversion"].items():
        print("target-test: -Wconversion warnings, %s: %s" % (
            label, ", ".join("%s %d" % kv for kv in sorted(mods.items()))))
    for p in report["problems"]:
        print("target-test: PROBLEM: " + p)
    print("target-test: written to %s/report.json and README.md" % out)
    sys.exit(1 if report["problems"] else 0)


if __name__ == "__main__":
    main()
