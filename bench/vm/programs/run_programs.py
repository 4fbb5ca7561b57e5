#!/usr/bin/python3
"""bench_vm_programs: FaTVM's evaluation (Section 7) on the programs strata-vmcc virtualizes.

For each program (bench/vm/programs/*.c, on the project's real weather data) it measures:
  - the decomposition of Figure 12: host instructions (callgrind) of the program as written
    (algorithm), of the virtualized build over a RAM sector device minus the RAM device's own
    instructions (virtualization overhead = that minus algorithm), and the simulated NAND time of
    the same run over strata_ftl (secondary storage);
  - the LCB hit rate (Table 5) and the LCB savings in virtualization overhead (Figure 13: the
    build without LCBs measured the same way);
  - per-FTL erases, sector copies and device time (Tables 6 and 7);
  - multi-cache vs sector-shrink device time by cache RAM (Figure 11);
and checks every virtualized run's output against the native run's, byte for byte.
Writes <out>/vm_programs.md and .json (the strata_report format, docs/report.md) and each
program's sector trace for bench_ftl --trace.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import energy  # Section 7.6, beside this file

PROGRAMS = [  # name, input ({shared}: the shared folder, {bin}: this build's folder), the paper's name
    ("fft", "{shared}/data/greensboro_nc_tmy3_hourly.csv", "FFT transformation"),
    ("huffman", "{shared}/data/greensboro_nc_tmy3_hourly.csv", "Huffman compressing"),
    # heatmap.py's rendering of the same series (730 x 480, 24-bit BMP, made by the build)
    ("grayscale", "{bin}/heatmap.bmp", "BITMAP grayscaling"),
    ("redblock", "{bin}/heatmap.bmp", "Red-block searching"),
    ("jpeg", "{bin}/heatmap.jpg", "JPEG to BITMAP"),  # the same picture, baseline JPEG 4:2:0
]
# The paper's Section 7.5 setting: 32 KB of cache in 512-B blocks (its 16 MB of virtual memory
# becomes 8 MiB: strata_ftl at degree 8 on the 128 MiB region holds 16 MiB at most).
DECOMP = {"VMCC_CACHE": "32768", "VMCC_BLOCK": "512", "VMCC_SPACE": str(8 << 20)}
MHZ = 72.0  # the paper's STM32F103 clock, for instructions as milliseconds (1 per cycle)


def run(cmd, env_extra, stdout_path=None):
    env = dict(os.environ)
    env.update(env_extra)
    with open(stdout_path or os.devnull, "wb") as out:
        r = subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode,
                                                 r.stderr.decode(errors="replace")[-500:]))


def stats_run(prog, args, env, tmp, want):
    """Run a virtualized program; its counters, after checking its output against `want`."""
    st = os.path.join(tmp, "stats.json")
    out = os.path.join(tmp, "out.txt")
    e = dict(env)
    e["VMCC_STATS"] = st
    run([prog] + args, e, out)
    with open(out, "rb") as f:
        if f.read() != want:
            raise RuntimeError("%s %s: output differs from the native run" % (prog, env))
    with open(st) as f:
        return json.load(f)


def callgrind(prog, args, env, tmp, funcs=()):
    """Total host instructions of a run, and the inclusive instructions of `funcs`."""
    cg = os.path.join(tmp, "cg.out")
    run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] + [prog] + args, env)
    total = None
    with open(cg) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    inc = 0
    if funcs:
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg],
                             capture_output=True, text=True).stdout
        for line in ann.splitlines():
            m = re.match(r"\s*([\d,]+)\s.*?[: ](\w+)(?: \[.*\])?\s*$", line)
            if m and m.group(2) in funcs:
                inc += int(m.group(1).replace(",", ""))
    os.unlink(cg)
    return total, inc


def baseline_failure(message):
    """Why a baseline FTL's run failed, for the table: bench/ftl's Log-FTL and Superblock-FTL
    retire a block whose erase fails but not one whose page program fails (strata_nand reports
    it as STRATA_EBADBLOCK and leaves the data to be moved), so the access fails."""
    m = re.search(r"access failed \((-?\d+)\)", message)
    if m and int(m.group(1)) == -16:
        return "a page program failed (STRATA_EBADBLOCK); the baseline does not relocate"
    return message.strip().splitlines()[-1]


def lcb_rate(s):
    searched = s["hits"] + s["misses"]
    return 100.0 * s["lcb_hits"] / max(1, s["lcb_hits"] + searched)


def measure(binary_dir, shared, name, data, tmp, out_dir):
    native = os.path.join(binary_dir, "vmprog_" + name)
    vm = native + "_vm"
    nolcb = native + "_vm_nolcb"
    args = [data.format(shared=shared, bin=binary_dir)]
    want_path = os.path.join(tmp, "want.txt")
    run([native] + args, {}, want_path)
    with open(want_path, "rb") as f:
        want = f.read()
    r = {"name": name}
    # the decomposition (RAM backend: the vm alone; its backend's instructions taken out)
    r["alg_ir"], _ = callgrind(native, args, {}, tmp)
    env = dict(DECOMP, VMCC_BACKEND="ram")
    r["vm_ir"], r["ram_ir"] = callgrind(vm, args, env, tmp, ("ram_read", "ram_write"))
    r["nolcb_ir"], r["nolcb_ram_ir"] = callgrind(nolcb, args, env, tmp, ("ram_read", "ram_write"))
    r["overhead_ir"] = r["vm_ir"] - r["ram_ir"] - r["alg_ir"]
    r["nolcb_overhead_ir"] = r["nolcb_ir"] - r["nolcb_ram_ir"] - r["alg_ir"]
    # the same without vmcc's synchronisation analysis (one vm access per use, docs/vmcc.md 3)
    nosync_ir, nosync_ram_ir = callgrind(native + "_vm_nosync", args, env, tmp,
                                         ("ram_read", "ram_write"))
    r["nosync_overhead_ir"] = nosync_ir - nosync_ram_ir - r["alg_ir"]
    r["nosync_stats"] = stats_run(native + "_vm_nosync", args, env, tmp, want)
    s = stats_run(vm, args, env, tmp, want)
    r["lcb_rate"] = lcb_rate(s)
    r["stats"] = s
    trace = os.path.join(out_dir, "vm_programs_%s.trace" % name)
    lav = stats_run(vm, args, dict(DECOMP, VMCC_BACKEND="lavish", VMCC_TRACE=trace), tmp, want)
    r["storage_ms"] = lav["device_ms"]
    r["storage"] = lav
    r["input_bytes"] = os.path.getsize(args[0])
    # Tables 6 and 7: block = sector (no adaptation), 16 KiB and 48 KiB of cache, 8 MiB space
    r["ftl"] = {}
    for table, cache in (("6", 16384), ("7", 49152)):
        for ftl in ("lavish", "logftl", "superftl"):
            e = {"VMCC_BACKEND": ftl, "VMCC_CACHE": str(cache), "VMCC_BLOCK": "2048",
                 "VMCC_SPACE": str(8 << 20)}
            try:
                r["ftl"][(table, ftl)] = stats_run(vm, args, e, tmp, want)
            except RuntimeError as err:  # a baseline meeting a NAND fault it does not handle
                if ftl == "lavish":
                    raise
                r["ftl"][(table, ftl)] = {"failed": baseline_failure(str(err))}
                print("vm_programs: %s on %s (table %s) failed: %s" % (
                    name, ftl, table, r["ftl"][(table, ftl)]["failed"]), flush=True)
    # Figure 11: 256-B blocks, multi-cache over 2-KiB sectors vs sector-shrink over 512-B ones
    r["adapt"] = {}
    for kib in (4, 8, 16, 32, 64):
        for scheme in ("multi", "shrink"):
            e = {"VMCC_BACKEND": "lavish", "VMCC_CACHE": str(kib * 1024), "VMCC_BLOCK": "256",
                 "VMCC_SCHEME": scheme, "VMCC_SPACE": str(8 << 20)}
            r["adapt"][(kib, scheme)] = stats_run(vm, args, e, tmp, want)
    return r


def ms(ir):
    return ir / (MHZ * 1e3)


def report(results, out_dir):
    items = []
    md = ["# strata-vmcc: FaTVM's programs virtualized (Section 7)", ""]

    def note(text):
        items.append({"note": text})
        md.extend([text, ""])

    def table(title, cols, rows):
        items.append({"table": title, "columns": cols, "rows": rows})
        md.extend(["## " + title, "", "| " + " | ".join(cols) + " |",
                   "|" + "---|" * len(cols)])
        for row in rows:
            md.append("| " + " | ".join(c if isinstance(c, str) else
                                        ("%.1f" % c if isinstance(c, float) else str(c))
                                        for c in row) + " |")
        md.append("")

    note("Each program is ordinary C (bench/vm/programs), run as written and as strata-vmcc "
         "rewrote it; every virtualized run's output was compared with the native run's, byte "
         "for byte. Input: the Greensboro TMY3 hourly weather CSV (/work/shared/data, 336 KB) for "
         "fft and huffman; for grayscale and redblock a day x hour heat map of its temperatures "
         "(730 x 480 24-bit BMP, 1 MB), rendered from it at build time by heatmap.py; for jpeg "
         "the same picture as a baseline JPEG (quality 75, 4:2:0, 61 KB), decoded to a BMP. "
         "Instructions are host x86-64 instructions counted by callgrind (gcc -O2), shown also "
         "as ms at %.0f MHz and one instruction per cycle for scale; secondary storage is the "
         "simulator's k9f1g08 NAND time under strata_ftl (Lavish, volatile, degree 8)." % MHZ)
    rows = []
    for r in results:
        ov_ratio = r["overhead_ir"] / r["alg_ir"]
        rows.append([r["name"], r["alg_ir"], r["overhead_ir"], round(ov_ratio, 3),
                     round(ms(r["alg_ir"]), 1), round(ms(r["overhead_ir"]), 1),
                     round(r["storage_ms"], 1), round(r["lcb_rate"], 1),
                     r["stats"]["misses"], r["stats"]["sector_reads"], r["stats"]["sector_writes"]])
    table("Decomposition (Figure 12): 32 KiB cache of 512-B blocks, 8 MiB space, LCBs on",
          ["program", "algorithm (instructions)", "virtualization overhead (instructions)",
           "overhead / algorithm", "algorithm (ms at 72 MHz)", "overhead (ms at 72 MHz)",
           "secondary storage (ms, k9f1g08)", "LCB hit rate (%)", "cache misses",
           "sector reads", "sector writes"], rows)
    rows = []
    for r in results:
        save = 100.0 * (1 - r["overhead_ir"] / r["nolcb_overhead_ir"])
        rows.append([r["name"], r["nolcb_overhead_ir"], r["overhead_ir"], round(save, 1)])
    table("LCB savings in virtualization overhead (Figure 13; the paper: up to 40 %)",
          ["program", "overhead without LCBs (instructions)", "overhead with LCBs (instructions)",
           "saved (%)"], rows)
    rows = []
    for r in results:
        a0 = sum(r["nosync_stats"][c] for c in ("hits", "misses", "lcb_hits"))
        a1 = sum(r["stats"][c] for c in ("hits", "misses", "lcb_hits"))
        rows.append([r["name"], a0, a1, round(r["nosync_overhead_ir"] / r["alg_ir"], 3),
                     round(r["overhead_ir"] / r["alg_ir"], 3),
                     round(100.0 * (1 - r["overhead_ir"] / r["nosync_overhead_ir"]), 1),
                     round(lcb_rate(r["nosync_stats"]), 1), round(r["lcb_rate"], 1)])
    table("Synchronisation analysis (Section 5.2; docs/vmcc.md section 3): without it (one vm "
          "access per use) and with it, same setting as the decomposition",
          ["program", "vm accesses without", "vm accesses with", "overhead / algorithm without",
           "overhead / algorithm with", "overhead saved (%)", "LCB hit rate without (%)",
           "LCB hit rate with (%)"], rows)
    for t, cache in (("6", "16 KiB"), ("7", "48 KiB")):
        rows = []
        for r in results:
            for ftl in ("lavish", "logftl", "superftl"):
                s = r["ftl"][(t, ftl)]
                label = {"lavish": "Lavish-FTL (strata_ftl)", "logftl": "Log-FTL",
                         "superftl": "Superblock-FTL"}[ftl]
                if "failed" in s:
                    rows.append([r["name"], label, "failed: " + s["failed"], "-", "-", "-", "-"])
                    continue
                rows.append([r["name"], label, s["erases"], s["copies"],
                             round(s["device_ms"], 1), s["sector_reads"], s["sector_writes"]])
        table("Table %s: per-FTL erases and copies, %s of cache in 2-KiB blocks (= sectors), "
              "8 MiB space, k9f1g08" % (t, cache),
              ["program", "FTL", "erases", "sector copies", "device time (ms)", "sector reads",
               "sector writes"], rows)
    rows = []
    for r in results:
        for kib in (4, 8, 16, 32, 64):
            m, s = r["adapt"][(kib, "multi")], r["adapt"][(kib, "shrink")]
            rows.append([r["name"], kib, round(m["device_ms"], 1), round(s["device_ms"], 1),
                         "multi-cache" if m["device_ms"] < s["device_ms"] else "sector-shrink"])
    table("Figure 11: multi-cache (2-KiB sectors) vs sector-shrink (512-B shrunk sectors), "
          "256-B blocks, strata_ftl on the k9f1g08 (the paper: multi-cache wins from 16 KB)",
          ["program", "cache (KiB)", "multi-cache (ms)", "sector-shrink (ms)", "faster"], rows)
    items.append({"plot": "bars", "key": "vmcc.rates", "title":
                  "LCB hit rate and LCB savings of the virtualized programs (32 KiB cache)",
                  "caption": "LCB hit rates %s; LCBs save %s of the virtualization overhead." % (
                      ", ".join("%s %.1f %%" % (r["name"], r["lcb_rate"]) for r in results),
                      ", ".join("%s %.0f %%" % (r["name"], 100.0 * (1 - r["overhead_ir"] /
                                                                  r["nolcb_overhead_ir"]))
                                for r in results)),
                  "attrs": {},
                  "series": [{"name": "strata-vmcc", "columns": ["program", "LCB hit rate (%)",
                                                                 "LCB savings (%)"],
                              "rows": [[r["name"], round(r["lcb_rate"], 2),
                                        round(100.0 * (1 - r["overhead_ir"] /
                                                       r["nolcb_overhead_ir"]), 2)]
                                       for r in results]}]})
    items.append({"plot": "bars", "key": "vmcc.decomposition", "title":
                  "Where the virtualized programs' time goes (host instructions at 72 MHz; "
                  "k9f1g08 NAND time)",
                  "caption": "Virtualization overhead is %s times the algorithm's instructions."
                  % ", ".join("%s %.1f" % (r["name"], r["overhead_ir"] / r["alg_ir"])
                              for r in results),
                  "attrs": {"log": "all"},
                  "series": [{"name": "strata-vmcc", "columns": [
                      "program", "algorithm (ms)", "virtualization overhead (ms)",
                      "secondary storage (ms)"],
                      "rows": [[r["name"], round(ms(r["alg_ir"]), 2), round(ms(r["overhead_ir"]), 2),
                                round(r["storage_ms"], 2)] for r in results]}]})
    items.append(energy_section(results, out_dir, note, table))
    note("Sector traces of the decomposition runs (2-KiB sectors, one `R <sector>` / "
         "`W <sector>` per line) are written beside this file as vm_programs_<program>.trace "
         "for bench_ftl --trace.")
    with open(os.path.join(out_dir, "vm_programs.json"), "w") as f:
        json.dump({"name": "vm_programs", "title": "strata-vmcc: FaTVM's programs virtualized "
                   "(Section 7)", "items": items}, f, indent=1)
    with open(os.path.join(out_dir, "vm_programs.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def energy_section(results, out_dir, note, table):
    """Section 7.6 (energy.py) from this run's decomposition; its input is kept beside the
    report so energy.py can be run again on it alone."""
    data = {"mhz": MHZ, "programs": [
        {"name": r["name"], "alg_ir": r["alg_ir"], "overhead_ir": r["overhead_ir"],
         "storage_ms": r["storage_ms"], "storage_energy_uj": r["storage"]["energy_uj"],
         "input_bytes": r["input_bytes"]} for r in results]}
    with open(os.path.join(out_dir, "vm_programs_energy_input.json"), "w") as f:
        json.dump(data, f, indent=1)
    for item in energy.tables(data):
        if item[0] == "note":
            note(item[1])
        else:
            table(*item[1:])
    return energy.plot(data)


def demo(a):
    """make demo: FFT of a year of hourly temperatures, its 196 KB of data in 4 KiB of cache
    (strata_vm over strata_ftl on the simulated k9f1g08), beside the native run."""
    native = os.path.join(a.bin, "vmprog_fft")
    data = os.path.join(a.shared, "data/greensboro_nc_tmy3_hourly.csv")
    with tempfile.TemporaryDirectory() as tmp:
        want = os.path.join(tmp, "want")
        run([native, data], {}, want)
        with open(want, "rb") as f:
            out = f.read()
        s = stats_run(native + "_vm", [data], {"VMCC_BACKEND": "lavish", "VMCC_CACHE": "4096",
                                               "VMCC_BLOCK": "512", "VMCC_SPACE": str(8 << 20)},
                      tmp, out)
    lines = out.decode().splitlines()
    items = [{"note": "A virtualized program on a node with less RAM than its data: strata-vmcc "
                      "rewrote bench/vm/programs/fft.c (ordinary C, a 16,384-point FFT of the "
                      "Greensboro hourly temperatures) so that its %d bytes of globals live in "
                      "strata_vm over strata_ftl on the simulated k9f1g08 NAND, served by a 4 KiB "
                      "cache (8 blocks of 512 B). Its output is byte for byte the native run's: "
                      "%s" % (s["space_used"], " / ".join(l.strip() for l in lines[1:4]))},
             {"table": "FFT in 4 KiB of cache (k9f1g08, strata_ftl Lavish)",
              "columns": ["data (bytes)", "cache (bytes)", "LCB hit rate (%)", "cache misses",
                          "sector reads", "sector writes", "NAND time (ms)", "NAND energy (mJ)",
                          "erases"],
              "rows": [[s["space_used"], s["cache"], round(lcb_rate(s), 1), s["misses"],
                        s["sector_reads"], s["sector_writes"], round(s["device_ms"], 1),
                        round(s["energy_uj"] / 1000.0, 1), s["erases"]]]}]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "vmcc.json"), "w") as f:
        json.dump({"name": "vmcc", "title": "Virtual memory: a program larger than the node's "
                   "RAM (strata-vmcc)", "items": items}, f, indent=1)
    print("vmcc demo: FFT of %d bytes in a 4 KiB cache, LCB hit rate %.1f %%, NAND %.1f s; "
          "output identical to the native run" % (s["space_used"], lcb_rate(s),
                                                   s["device_ms"] / 1000.0))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--demo", action="store_true", help="the make demo section only")
    a = ap.parse_args()
    if a.demo:
        return demo(a)
    os.makedirs(a.out, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, _ in PROGRAMS:
            if a.only and name not in a.only.split(","):
                continue
            print("vm_programs: %s" % name, flush=True)
            results.append(measure(a.bin, a.shared, name, data, tmp, a.out))
    report(results, a.out)
    print("vm_programs: written to %s" % os.path.join(a.out, "vm_programs.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
