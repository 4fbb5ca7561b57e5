/*
 * The baselines (WAL, COW) and RB with the classic regular split: the store's sources built a
 * second time with KV_BASELINE (bench/kv/CMakeLists.txt), which routes the quadtree's reads and
 * writes through a struct kv_io and renames every external name (kv_baseline_names.h), so that
 * this build and the library the RB store uses live side by side in one program.
 */
#ifndef BENCH_KV_BASELINE_H
#define BENCH_KV_BASELINE_H

#include "kv_internal.h" /* first: its renames must precede strata/kv.h */
#include "bench.h"

/* A baseline's context: its write path and an identity ring. */
void bl_setup(struct kv_baseline *b, const struct kv_io *io);
/* The library's own write path, through the table (RB-regular, and what WAL and COW reuse). */
extern const struct kv_io bl_rb_io;
/* Live records of a baseline store. */
uint32_t bl_records(const struct strata_kv *kv);

#endif
