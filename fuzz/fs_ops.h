/*
 * The strata_fs operation-sequence fuzzer's script encoding (fuzz_fs_ops.c reads it, the seed
 * generator writes it). Input: fsg choice (fs_glue.h), a seed byte for the device's random
 * tears, then commands (opfuzz.h): an operation byte (taken modulo FO_COUNT) and its arguments:
 *
 *   FO_OPEN     h, name, flags (index into fo_flags)     FO_SYNC, FO_CLOSE   h
 *   FO_WRITE    h, offset u16, length u16, data seed     FO_TRUNC   h, size u16
 *   FO_APPEND   h, length u16, data seed                 FO_REMOVE, FO_STAT  name
 *   FO_READ     h, offset u16, length u16                FO_RENAME  name, other name
 *   FO_RESERVE  name, size u16                           FO_CONFLOG name, log (index)
 *   FO_GC, FO_LIST, FO_REMOUNT  (none)
 *
 * h is taken modulo FO_HANDLES, names modulo FM_NAMES; offsets and sizes modulo what is valid
 * for the model's file (so scripts stay meaningful under mutation).
 */
#ifndef STRATA_FUZZ_FS_OPS_H
#define STRATA_FUZZ_FS_OPS_H

enum fo_op {
    FO_OPEN, FO_WRITE, FO_APPEND, FO_READ, FO_SYNC, FO_CLOSE, FO_TRUNC, FO_REMOVE, FO_RENAME,
    FO_RESERVE, FO_CONFLOG, FO_GC, FO_STAT, FO_LIST, FO_REMOUNT, FO_COUNT
};

#define FO_HANDLES 3u
#define FO_MAX_WRITE 1536u /* bytes per write */
#define FO_MAX_READ 2048u

/* open flags by index: R, W, RW, RW|CREATE, RW|CREATE|EXCL, APPEND|CREATE, APPEND|R|CREATE,
 * W|CREATE */
#define FO_FLAGS 8u
/* configure_log settings by index: (log bytes, record bytes) */
#define FO_LOGS 6u

#endif
