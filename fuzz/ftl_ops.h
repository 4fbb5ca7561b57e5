/*
 * The strata_ftl operation-sequence fuzzer's script encoding (fuzz_ftl_ops.c reads it, the seed
 * generator writes it). Input: ftlg choice (ftl_glue.h), a seed byte for the device's random
 * choices, then commands (opfuzz.h): an operation byte (taken modulo FT_COUNT) and its
 * arguments:
 *
 *   FT_WRITE   sector u16 (modulo sectors + 2: the last two are out of range, EINVAL)
 *   FT_BURST   count, mode, start u16: count % 64 + 1 writes; mode % 3: 0 sequential from start,
 *              1 a hot set of 4 sectors from start, 2 spread by a hash of start
 *   FT_READ    sector u16 (modulo sectors + 2)
 *   FT_SYNC, FT_REMOUNT, FT_STAT, FT_CHECK_ALL   (none)
 */
#ifndef STRATA_FUZZ_FTL_OPS_H
#define STRATA_FUZZ_FTL_OPS_H

enum ft_op { FT_WRITE, FT_BURST, FT_READ, FT_SYNC, FT_REMOUNT, FT_STAT, FT_CHECK_ALL, FT_COUNT };

#define FT_MAX_BURST 64u

#endif
