/*
 * The strata_vm operation-sequence fuzzer's script encoding (fuzz_vm_ops.c reads it, the seed
 * generator writes it). Input: ftlg choice (ftl_glue.h; the mode and fault bytes are ignored:
 * always persistent, no chosen faults), a seed byte for the device, VMG_FIELDS bytes for the
 * vm, then commands (opfuzz.h): an operation byte (taken modulo VO_COUNT) and its arguments.
 * An offset is fz_below(window + 16) (the last 16 reach past the window's end: refused), a
 * length 1 + fz_below(max):
 *
 *   VO_WRITE, VO_COPY_IN   offset, length (max VO_MAX_LEN), pattern seed, which: bit 2 no LCB,
 *                          else LCB which % 4 (copy_in ignores it)
 *   VO_READ, VO_COPY_OUT   offset, length, which
 *   VO_TYPED               how (bits 0-1: 1/2/4/8 bytes, 2-3: LCB, 4: aligned, 5: write),
 *                          offset (fz_below(window + 8)), a pattern seed for a write
 *   VO_FILL                offset, length (max 2 x VO_MAX_LEN), byte
 *   VO_MOVE                destination offset, length, source offset
 *   VO_FLUSH, VO_DISCARD, VO_REMOUNT   (none)
 */
#ifndef STRATA_FUZZ_VM_OPS_H
#define STRATA_FUZZ_VM_OPS_H

/* The vm's configuration bytes: the window's first sector (% 4), block size, cache blocks,
 * scheme (bit 0; bit 1 base 0x20000000, bit 2 base = block size, else the default), window
 * sectors. */
enum vmg_field { VMG_FIRST, VMG_BLOCK, VMG_BLOCKS, VMG_SCHEME, VMG_WINDOW, VMG_FIELDS };

enum vo_op {
    VO_WRITE, VO_READ, VO_TYPED, VO_COPY_IN, VO_COPY_OUT, VO_FILL, VO_MOVE, VO_FLUSH,
    VO_DISCARD, VO_REMOUNT, VO_COUNT
};

#define VO_MAX_LEN 600u

#endif
