/*
 * The strata_kv operation-sequence fuzzer's script encoding (fuzz_kv_ops.c reads it, the seed
 * generator writes it). Input: kvg choice (kv_glue.h), a seed byte for the device's random
 * tears, then commands (opfuzz.h): an operation byte (taken modulo KO_COUNT) and its arguments:
 *
 *   KO_PUT     mode, a u16 per dimension                KO_COMMIT, KO_REMOUNT, KO_STAT  (none)
 *   KO_BURST   count, mode, seed: count+1 puts (at most KO_MAX_BURST) of generated values
 *   KO_GET     mode, a u16 per dimension
 *   KO_SCAN    lo u16, hi u16 per dimension, flags (bit 0 time window, bits 1-3 a limit,
 *              bit 4 newest first), t_lo u16, t_hi u16
 *
 * Values from (mode, raw) by the low two bits of mode: 0 anywhere in the domain, 1 its ends,
 * 2 the previous record's values, 3 just outside the domain (a put must be refused). A burst's
 * mode bit 0 keeps its values in a small corner of the domain (deep trees, chain nodes).
 */
#ifndef STRATA_FUZZ_KV_OPS_H
#define STRATA_FUZZ_KV_OPS_H

enum ko_op { KO_PUT, KO_BURST, KO_COMMIT, KO_GET, KO_SCAN, KO_REMOUNT, KO_STAT, KO_COUNT };

#define KO_MAX_BURST 64u

#endif
