/* Sections of `strata demo`, one file each. */
#ifndef STRATA_DEMO_H
#define STRATA_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "report.h"

#define DEMO_DATASET "greensboro_nc_tmy3_hourly.csv"
#define DEMO_RECORD_SIZE 20u

/* One reading as 20 little-endian bytes: ts u32, temp, dewpoint (0.1 C, i16), rh (%), pressure
 * (mbar), wind direction (deg), wind speed (0.1 m/s), irradiance (W/m2), 0xFFFF pad. */
void demo_encode_reading(const struct strata_dataset *d, size_t row, uint8_t out[DEMO_RECORD_SIZE]);

/* Each section prints its story and adds its plots to `plots` (the demo's HTML report,
 * docs/report.md). */

/* Raw pages on every profile: write, read back, verify, tear one page. 0 or CLI_FAIL. */
int demo_raw(const struct strata_dataset *d, struct strata_report *plots);

/* strata_fs: the series as a log file plus a config file updated in place, a power cut during
 * an update, remount, check, proof the data survived. 0 or CLI_FAIL. */
int demo_fs(const struct strata_dataset *d, struct strata_report *plots);
/* strata_kv on an intermittently powered node (msp430f5529, 10 mF, 7 mA): the series stored
 * through its power failures, then checked against a run without failures. 0 or CLI_FAIL. */
int demo_kv(const struct strata_dataset *d, struct strata_report *plots);
/* strata_btree: the series indexed by temperature in VMTree on raw NAND (nand-pic24), a power
 * cut during a sync, range queries checked against the series. 0 or CLI_FAIL. */
int demo_btree(const struct strata_dataset *d, struct strata_report *plots);
/* strata_stream (HybridStore) on NAND + DataFlash: five years of readings, a power cut, the
 * paper's query kinds checked against a scan. 0 or CLI_FAIL. */
int demo_stream(const struct strata_dataset *d, struct strata_report *plots);

#endif
