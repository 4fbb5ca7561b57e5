#!/usr/bin/python3
"""bench/vm/programs/energy.py (FaTVM Section 7.6) on a fixed input, against a case worked by
hand: its equations (3) and (4), the crossover, the JPEG comparison, and the command line.

Usage: energy_check.py <bench/vm/programs directory>
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import energy  # noqa: E402

FAILS = []


def near(what, got, want, tol=1e-6):
    if abs(got - want) > tol * max(1.0, abs(want)):
        FAILS.append("%s: %r, want %r" % (what, got, want))


# 72 M instructions of algorithm (1 s at 72 MHz), 144 M of overhead (2 s), 1 s of NAND using
# 0.1 J, a 1000-byte JPEG input.
PROG = {"name": "jpeg", "alg_ir": 72e6, "overhead_ir": 144e6, "storage_ms": 1000.0,
        "storage_energy_uj": 1e5, "input_bytes": 1000}
t = energy.times(PROG, 72.0)
near("AT", t["at"], 1.0)
near("VO", t["vo"], 2.0)
near("SST", t["sst"], 1.0)
near("TT", t["tt"], 4.0)
near("TM", t["tm"], 72.0 / 104.0)          # 0.6923077 s
near("E_nand", t["e_nand"], 0.1)

# By hand, a 1-hour cycle, node at 50 mA / 20 uA, Mote at 60 mA / 387 uA, 3.3 V:
#   (4) 3.3 * (0.050 * 4 + 20e-6 * 3596) + 0.1 = 3.3 * 0.27192 + 0.1 = 0.997336 J
#   (3) 3.3 * (0.060 * 0.6923077 + 387e-6 * 3599.3077) = 3.3 * 1.4344706 = 4.7337530 J
near("E_fatvm(1 h)", energy.e_fatvm(t, 3600.0, 0.050), 0.997336)
near("E_mote(1 h)", energy.e_mote(t, 3600.0, 0.060), 4.7337530)
# crossover: (3.3 * 0.04998 * 4 + 0.1 - 3.3 * 0.059613 * 0.6923077) / (3.3 * 367e-6)
#          = (0.659736 + 0.1 - 0.1361948) / 0.0012111 = 514.855 s
x = energy.crossover(t, 0.050, 0.060)
near("crossover", x, 514.855, 1e-5)
near("equal energies at the crossover", energy.e_fatvm(t, x, 0.050), energy.e_mote(t, x, 0.060))
# approach 1 without sleep: 3.3 * 0.050 * 4 + 0.1 = 0.76 J; one hop: 1000 B * 11.3 uJ = 11.3 mJ
near("E_process", energy.e_process(t, 0.050), 0.76)

items = energy.tables({"mhz": 72, "programs": [PROG]})
jpeg = [it for it in items if it[0] == "table" and it[1].startswith("JPEG")]
if len(jpeg) != 1:
    FAILS.append("no JPEG table")
else:
    row = [r for r in jpeg[0][3] if r[1] == "50"][0]
    near("JPEG table: process", float(row[2]), 0.76)
    near("JPEG table: Tx", float(row[3]), 0.0113)
    near("JPEG table: Tx+Rx", float(row[5]), 0.0244)
cross = [it for it in items if it[0] == "table" and it[1].startswith("Crossover")][0]
row = [r for r in cross[3] if r[1] == "50"][0]
want = energy.fmt_cycle(energy.crossover(t, 0.050, energy.MOTE_RUN_MA[0] * 1e-3))
if row[2] != want:
    FAILS.append("crossover table: %s, want %s" % (row[2], want))

# the command line on the same input
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "in.json")
    with open(path, "w") as f:
        json.dump({"mhz": 72, "programs": [PROG]}, f)
    out = subprocess.run([sys.executable, os.path.join(sys.argv[1], "energy.py"), path],
                         capture_output=True, text=True, check=True).stdout
    for s in ("## Crossover duty cycle", "| jpeg | 50 | ", "NOT sourced"):
        if s not in out:
            FAILS.append("command line output lacks %r" % s)

for f in FAILS:
    print("FAIL " + f)
print("energy_check: %d failures" % len(FAILS))
sys.exit(1 if FAILS else 0)
