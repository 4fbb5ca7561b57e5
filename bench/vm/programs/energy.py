#!/usr/bin/python3
"""FaTVM Section 7.6: the energy of one duty cycle, FaTVM node vs Intel Mote 2, and JPEG
processing on the node vs sending the JPEG one hop (python3 standard library only).

Input: the per-program decomposition bench_vm_programs measures (run_programs.py writes it as
vm_programs_energy_input.json beside its report):
  {"mhz": 72, "programs": [{"name", "alg_ir", "overhead_ir", "storage_ms", "storage_energy_uj",
                            "input_bytes"}, ...]}
alg_ir / overhead_ir are host x86-64 instructions (callgrind) of the native program and of the
virtualization overhead; they become seconds at `mhz` MHz and one instruction per cycle, the
same conversion run_programs.py uses for its decomposition: the paper's node is an STM32F103ZE
at 72 MHz, and no Cortex-M3 cycle count of these programs exists (host instructions stand in for
its cycles; a Cortex-M3 needs more instructions for 64-bit and floating-point work and fewer
for nothing here, so the times are a scale, not a prediction). storage_ms and
storage_energy_uj are the simulator's k9f1g08 NAND time and energy for the same run over
strata_ftl (src/sim/profiles.c, the device's own currents at 3.3 V).

SOURCES (every current and constant used below)
  Paper text, /work/shared/seeds/fatvm-virtual-memory.txt:
    line 28  Intel Mote 2 deep-sleep current "about 387 uA" (traditional nodes about 10 uA).
    line 34  STM32F103ZE deep-sleep current "about 20 uA".
    line 372 the Mote runs 104/72 times faster than the STM32F103ZE node; peripherals ignored;
             the algorithm runs once per duty cycle; NAND power-up/down neglected.
    line 377 equations (3) and (4): energy of the processing plus the deep sleep over the rest
             of the duty cycle; SST (NAND time) is part of the FaTVM node's run time TT.
             (The equations themselves are not in the text; they are written out below.)
    line 386 CC2420 one hop at the practical 40 kbps: 11.3 uJ per byte sent, 13.1 uJ per byte
             received (the text lost the micro sign; [12]'s 1.8/2.1 at 250 kbps scale to these).
    line 386 approach 1's energy is equation (4) without the sleep term.
  Datasheet found with the search tool:
    https://www.espruino.com/datasheets/STM32F103xC.pdf (STM32F103xC/xD/xE, DocID 14611 Rev 8),
    features page: 2.0 to 3.6 V application supply. The supply used here, 3.3 V, is inside it
    and is the simulator's NAND supply (src/sim/profiles.c), so the NAND energy and the MCU
    energy are at one voltage. The Mote is taken at the same 3.3 V (not sourced).
  NOT SOURCED (named inputs with a stated range; every result that depends on them is a table
  over the range, never one number):
    MCU_RUN_MA   STM32F103ZE run current at 72 MHz, code in flash. The datasheet's run-mode
                 IDD table (its section 5.3.5) could not be read through the search tool (only
                 its first page is indexed), and the paper's Table 9 is not in our text.
                 Range 20 ... 70 mA: from a Cortex-M3 at 72 MHz with its peripherals off to
                 all of them on.
    MOTE_RUN_MA  Intel Mote 2 (PXA271 at 104 MHz, 32 MB SDRAM) active current: no datasheet
                 or measurement was found. Range 30 ... 120 mA.
  Measurements seen but not used (a mode the paper does not use): STM32F103 Standby about
  3-3.5 uA (https://jeelabs.org/2018/low-power-l031/; Zephyr commit 4f69acc3, "stm32f1x: Add
  support for stop/standby modes", which measured Stop at ~206 uA on its board). Standby loses
  RAM, the paper's node uses its deep-sleep figure of 20 uA.

EQUATIONS (T: the duty cycle in s; V: supply; currents in A; times in s)
  AT  = alg_ir / (mhz * 1e6)        algorithm time on the node
  VO  = overhead_ir / (mhz * 1e6)   virtualization overhead
  SST = storage_ms / 1000           NAND time (the MCU waits, active)
  TT  = AT + VO + SST               FaTVM run time
  TM  = AT * 72 / 104               the Mote's run time (its program runs from SDRAM, no VM)
  (3) E_mote(T)  = V * (I_mote_run * TM + I_mote_sleep * (T - TM))
  (4) E_fatvm(T) = V * (I_mcu_run * TT + I_mcu_sleep * (T - TT)) + E_nand
  crossover T*: E_mote(T*) = E_fatvm(T*), linear in T:
      T* = (V (I_mcu_run - I_mcu_sleep) TT + E_nand - V (I_mote_run - I_mote_sleep) TM)
           / (V (I_mote_sleep - I_mcu_sleep))
  JPEG: process = V * I_mcu_run * TT + E_nand (decode, or decode + grayscale);
        transmit = bytes * 11.3 uJ (the node's Tx) and bytes * (11.3 + 13.1) uJ (the hop).
"""
import argparse
import json
import sys

V = 3.3                  # supply (V); see SOURCES
MCU_SLEEP_A = 20e-6      # paper line 34
MOTE_SLEEP_A = 387e-6    # paper line 28
MOTE_SPEEDUP = 104.0 / 72.0  # paper line 372
TX_J_PER_BYTE = 11.3e-6  # paper line 386
RX_J_PER_BYTE = 13.1e-6  # paper line 386
MCU_RUN_MA = (20, 35, 50, 70)       # NOT SOURCED: the range 20 ... 70 mA
MOTE_RUN_MA = (30, 60, 90, 120)     # NOT SOURCED: the range 30 ... 120 mA
# the plot's columns: the crossover's two extremes over the ranges
LOW_END = "crossover, STM32F103 %d mA, Mote %d mA (min)" % (MCU_RUN_MA[0], MOTE_RUN_MA[-1])
HIGH_END = "crossover, STM32F103 %d mA, Mote %d mA (min)" % (MCU_RUN_MA[-1], MOTE_RUN_MA[0])
CYCLES_MIN = (1, 2, 5, 10, 15, 20, 30, 60, 120, 360, 720, 1440)  # 1 min ... 24 h

PAPER = ("the paper (Section 7.6): crossover duty cycles approximately between 5 and 20 "
         "minutes; FaTVM about 3 times more energy-efficient than the Intel Mote 2 at 1-hour "
         "cycles; transmitting the JPEG one hop costs 2 times (big images) to more than 4 times "
         "(small images) the energy of processing it.")


def times(p, mhz):
    """A program's run times (s) and NAND energy (J) from its decomposition."""
    at = p["alg_ir"] / (mhz * 1e6)
    vo = p["overhead_ir"] / (mhz * 1e6)
    sst = p["storage_ms"] / 1000.0
    return {"at": at, "vo": vo, "sst": sst, "tt": at + vo + sst, "tm": at / MOTE_SPEEDUP,
            "e_nand": p["storage_energy_uj"] * 1e-6}


def e_mote(t, cycle, mote_run_a, v=V, mote_sleep_a=MOTE_SLEEP_A):
    """Equation (3): the Intel Mote 2's energy (J) over one duty cycle of `cycle` s."""
    return v * (mote_run_a * t["tm"] + mote_sleep_a * (cycle - t["tm"]))


def e_fatvm(t, cycle, mcu_run_a, v=V, mcu_sleep_a=MCU_SLEEP_A):
    """Equation (4): the FaTVM node's energy (J) over one duty cycle of `cycle` s."""
    return v * (mcu_run_a * t["tt"] + mcu_sleep_a * (cycle - t["tt"])) + t["e_nand"]


def crossover(t, mcu_run_a, mote_run_a, v=V, mcu_sleep_a=MCU_SLEEP_A,
              mote_sleep_a=MOTE_SLEEP_A):
    """The duty cycle (s) at which (3) equals (4); longer cycles favour FaTVM."""
    num = (v * (mcu_run_a - mcu_sleep_a) * t["tt"] + t["e_nand"]
           - v * (mote_run_a - mote_sleep_a) * t["tm"])
    return num / (v * (mote_sleep_a - mcu_sleep_a))


def e_process(t, mcu_run_a, v=V):
    """Approach 1 of the JPEG comparison: equation (4) without the sleep term (J)."""
    return v * mcu_run_a * t["tt"] + t["e_nand"]


def fmt_cycle(s):
    """A duration for the tables: s, min or h."""
    if s < 120:
        return "%.0f s" % s
    if s < 7200:
        return "%.1f min" % (s / 60.0)
    return "%.1f h" % (s / 3600.0)


def tables(data):
    """The section's notes and tables: a list of ("note", text) and
    ("table", title, columns, rows)."""
    mhz = data.get("mhz", 72.0)
    progs = [(p, times(p, mhz)) for p in data["programs"]]
    out = [("note", "Energy of one duty cycle (FaTVM Section 7.6, equations (3) and (4) as "
            "written out in bench/vm/programs/energy.py, with every source). Sourced: the "
            "deep-sleep currents (paper: STM32F103ZE 20 uA, Intel Mote 2 387 uA), the Mote's "
            "104/72 speed, the CC2420's 11.3 / 13.1 uJ per byte, the 3.3 V supply (inside the "
            "STM32F103's 2.0-3.6 V; the simulator's NAND supply). NOT sourced, so every result "
            "below is a table over a stated range: the STM32F103ZE run current at 72 MHz "
            "(%d ... %d mA) and the Intel Mote 2's active current (%d ... %d mA). Times are "
            "host instructions at %.0f MHz, one per cycle." % (
                MCU_RUN_MA[0], MCU_RUN_MA[-1], MOTE_RUN_MA[0], MOTE_RUN_MA[-1], mhz)),
           ("note", PAPER)]
    out.append(("table", "Energy inputs per program (32 KiB cache of 512-B blocks, k9f1g08 "
                "under strata_ftl)",
                ["program", "algorithm AT (s)", "virtualization VO (s)", "NAND SST (s)",
                 "FaTVM run TT (s)", "Mote run AT*72/104 (s)", "NAND energy (mJ)"],
                [[p["name"], round(t["at"], 3), round(t["vo"], 3), round(t["sst"], 3),
                  round(t["tt"], 3), round(t["tm"], 3), round(t["e_nand"] * 1e3, 1)]
                 for p, t in progs]))
    rows = []
    for p, t in progs:
        for mcu in MCU_RUN_MA:
            rows.append([p["name"], mcu] + [fmt_cycle(crossover(t, mcu * 1e-3, mote * 1e-3))
                                            for mote in MOTE_RUN_MA])
    out.append(("table", "Crossover duty cycle (FaTVM cheaper for longer cycles) by the "
                "unsourced run currents",
                ["program", "STM32F103 run (mA)"] +
                ["Mote run %d mA" % m for m in MOTE_RUN_MA], rows))
    rows = []
    for p, t in progs:
        row = [p["name"]]
        for c in CYCLES_MIN:
            cycle = c * 60.0
            if cycle < t["tt"]:
                row.append("- (run > cycle)")
                continue
            ratios = [e_mote(t, cycle, mote * 1e-3) / e_fatvm(t, cycle, mcu * 1e-3)
                      for mcu in MCU_RUN_MA for mote in MOTE_RUN_MA]
            row.append("%.2f-%.2f" % (min(ratios), max(ratios)))
        rows.append(row)
    out.append(("table", "Energy per duty cycle, Intel Mote 2 / FaTVM (> 1: FaTVM cheaper): "
                "min-max over the unsourced run currents",
                ["program"] + [fmt_cycle(c * 60.0) for c in CYCLES_MIN], rows))
    rows = []
    for p, t in progs:
        lo = [e_fatvm(t, c * 60.0, MCU_RUN_MA[0] * 1e-3) for c in (60, 1440)]
        hi = [e_fatvm(t, c * 60.0, MCU_RUN_MA[-1] * 1e-3) for c in (60, 1440)]
        mlo = [e_mote(t, c * 60.0, MOTE_RUN_MA[0] * 1e-3) for c in (60, 1440)]
        mhi = [e_mote(t, c * 60.0, MOTE_RUN_MA[-1] * 1e-3) for c in (60, 1440)]
        rows.append([p["name"], "%.2f-%.2f" % (lo[0], hi[0]), "%.2f-%.2f" % (mlo[0], mhi[0]),
                     "%.2f-%.2f" % (lo[1], hi[1]), "%.2f-%.2f" % (mlo[1], mhi[1])])
    out.append(("table", "Energy of one duty cycle (J), over the unsourced run currents",
                ["program", "FaTVM, 1 h", "Mote, 1 h", "FaTVM, 24 h", "Mote, 24 h"], rows))
    out.extend(jpeg_tables(progs))
    # cells as text, so a report's own float format does not round them again
    return [it if it[0] == "note" else it[:3] + ([[str(c) for c in row] for row in it[3]],)
            for it in out]


def plot(data):
    """The report's plot (strata_report format, docs/report.md): each program's crossover duty
    cycle at the two ends of the unsourced currents' ranges."""
    mhz = data.get("mhz", 72.0)
    rows = []
    for p in data["programs"]:
        t = times(p, mhz)
        rows.append([p["name"],
                     round(crossover(t, MCU_RUN_MA[0] * 1e-3, MOTE_RUN_MA[-1] * 1e-3) / 60, 2),
                     round(crossover(t, MCU_RUN_MA[-1] * 1e-3, MOTE_RUN_MA[0] * 1e-3) / 60, 2)])
    lo = min(r[1] for r in rows)
    hi = max(r[2] for r in rows)
    return {"plot": "bars", "key": "vmcc.energy",
            "title": "Duty cycle above which FaTVM spends less energy than the Intel Mote 2 "
                     "(Section 7.6), at both ends of the unsourced run currents",
            "caption": "The crossover lies between %.1f and %.1f minutes over the STM32F103's "
                       "%d-%d mA and the Mote's %d-%d mA." % (
                           lo, hi, MCU_RUN_MA[0], MCU_RUN_MA[-1], MOTE_RUN_MA[0],
                           MOTE_RUN_MA[-1]),
            "attrs": {"log": "all"},
            "series": [{"name": "strata-vmcc", "columns": [
                "program", LOW_END, HIGH_END],
                "rows": rows}]}


def jpeg_tables(progs):
    """The JPEG process-vs-transmit comparison, if the input has the JPEG decoder."""
    by = {p["name"]: (p, t) for p, t in progs}
    if "jpeg" not in by or not by["jpeg"][0].get("input_bytes"):
        return []
    jp, jt = by["jpeg"]
    size = jp["input_bytes"]
    tx = size * TX_J_PER_BYTE
    hop = size * (TX_J_PER_BYTE + RX_J_PER_BYTE)
    cases = [("decode to bitmap", [jt])]
    if "grayscale" in by:
        cases.append(("decode + grayscale (the paper's approach 1)", [jt, by["grayscale"][1]]))
    rows = []
    for label, ts in cases:
        for mcu in MCU_RUN_MA:
            e = sum(e_process(t, mcu * 1e-3) for t in ts)
            rows.append([label, mcu, "%.4g" % e, "%.4g" % tx, "%.2f" % (tx / e),
                         "%.4g" % hop, "%.2f" % (hop / e)])
    return [("table", "JPEG: process on the node (FaTVM) vs send it one hop over the CC2420 "
             "(%d bytes, the real size of the JPEG input)" % size,
             ["processing", "STM32F103 run (mA)", "process (J)", "send: node's Tx (J)",
              "Tx / process", "send: Tx + Rx of the hop (J)", "hop / process"], rows)]


def markdown(items):
    md = []
    for it in items:
        if it[0] == "note":
            md.extend([it[1], ""])
            continue
        _, title, cols, rows = it
        md.extend(["## " + title, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)])
        md.extend("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
        md.append("")
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="vm_programs_energy_input.json (run_programs.py writes it)")
    a = ap.parse_args()
    with open(a.input) as f:
        sys.stdout.write(markdown(tables(json.load(f))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
