/*
 * Power-cut campaigns over scripted strata_fs workloads: the workload runs a script after a
 * prefix set up without cuts; recovery mounts, checks, compares the whole namespace with the
 * model's state before or after the interrupted operation, then proves the file system still
 * works (create, write, read back, remove a probe file) and checks again.
 */
#ifndef STRATA_TEST_FS_PC_H
#define STRATA_TEST_FS_PC_H

#include "fs_script.h"

struct fs_pc {
    const char *name, *profile;
    uint32_t units;
    const struct sc_op *prefix, *ops;
    uint32_t nprefix, nops;
    uint32_t samples, recovery_cuts;
    uint32_t clean_every, default_size;
    enum strata_sim_tear tear;
    enum strata_sim_tear_model tear_model; /* 0: the profile's realistic model */
};

/* Run the campaign (fails the cmocka test with a replay id on a violation of the guarantee).
 * Returns the number of cases. */
uint64_t fs_pc_run(const struct fs_pc *c);

#define OP_OPEN(h, a, fl) {SC_OPEN, h, a, 0, fl, 0, 0}
#define OP_OPENB(h, a, fl, hint) {SC_OPEN, h, a, 0, (fl) | SC_BUFFERED, hint, 0}
#define OP_WR(h, off, len, seed) {SC_WRITE, h, 0, 0, off, len, seed}
#define OP_AP(h, len, seed) {SC_WRITE, h, 0, 0, SC_AT_END, len, seed}
#define OP_RD(h) {SC_READ, h, 0, 0, 0, 0, 0}
#define OP_SYNC(h) {SC_SYNC, h, 0, 0, 0, 0, 0}
#define OP_CLOSE(h) {SC_CLOSE, h, 0, 0, 0, 0, 0}
#define OP_TRUNC(h, size) {SC_TRUNC, h, 0, 0, size, 0, 0}
#define OP_RM(a) {SC_REMOVE, 0, a, 0, 0, 0, 0}
#define OP_MV(a, b) {SC_RENAME, 0, a, b, 0, 0, 0}
#define OP_RES(a, size) {SC_RESERVE, 0, a, 0, size, 0, 0}
#define OP_CLOG(a, size, rs) {SC_CONFLOG, 0, a, 0, size, rs, 0}
#define OP_GC() {SC_GC, 0, 0, 0, 0, 0, 0}

#define RW (STRATA_FS_READ | STRATA_FS_WRITE)
#define RWC (STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE)
#define APC (STRATA_FS_APPEND | STRATA_FS_READ | STRATA_FS_CREATE)

enum { NA, NB, NC, NLOG, NCFG, NTMP, NROUTES, NQUEUE };

#define NOPS(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

#endif
