/*
 * strata_kv on-flash format, version 3 (docs/format-kv.md): every field's offset is named once
 * here and read or written through these accessors, never hand-counted at the use site. All
 * integers are little-endian.
 */
#ifndef KV_FORMAT_H
#define KV_FORMAT_H

#include <stdint.h>

#include "strata_le.h"

/* ---- log segment header (12 bytes at the start of each log unit) ---------------------------- */
enum {
    KV_SEG_MAGIC = 0,   /* 'K', 'V' */
    KV_SEG_VERSION = 2, /* STRATA_KV_VERSION, then a 0 byte */
    KV_SEG_SEQ = 4,     /* u32 sequence number: the head has the highest */
    KV_SEG_CRC = 8,     /* u32 CRC of bytes 0..7 */
    KV_SEG_HDR = 12
};

/* ---- log objects ------------------------------------------------------------------------------
 * The first byte says what is at an object position; every object ends with the CRC of its
 * other bytes seeded with its segment's sequence number (so an object only validates in the
 * segment it was written to). */
#define KV_OBJ_PAD 0x00    /* a byte of a torn tail neutralised by a restore (an erased byte,
                              0xFF, ends the segment's objects) */
#define KV_OBJ_MARK 'N'    /* node write mark (short object) */
#define KV_OBJ_SEAL 'S'    /* follows each commit (short object) */
#define KV_OBJ_COMMIT 'C'  /* commit: the context backup */
enum {
    /* short objects: type, u16 argument, u8 argument, CRC */
    KV_SHORT_ARG = 1, /* mark: node index; seal: low 16 bits of the commit number */
    KV_SHORT_SLOT = 3, /* mark: first slot written after the checkpoint; seal: 0 */
    KV_SHORT_LEN = 8,
    /* commit: type, u16 context length, context, CRC */
    KV_COMMIT_CTXLEN = 1,
    KV_COMMIT_CTX = 3,
    KV_COMMIT_EXTRA = 7 /* bytes besides the context */
};
static inline uint32_t kv_mark_node(const uint8_t *o)
{
    return strata_get_le16(o + KV_SHORT_ARG);
}
static inline uint32_t kv_mark_slot(const uint8_t *o)
{
    return o[KV_SHORT_SLOT];
}
static inline void kv_short_set(uint8_t *o, uint8_t type, uint32_t arg, uint32_t slot)
{
    o[0] = type;
    strata_put_le16(o + KV_SHORT_ARG, arg);
    o[KV_SHORT_SLOT] = (uint8_t)slot;
}
static inline uint32_t kv_commit_ctxlen(const uint8_t *o)
{
    return strata_get_le16(o + KV_COMMIT_CTXLEN);
}

/* ---- context (the commit's payload) ------------------------------------------------------------
 * the signature, the current partition's summary (as below, without CRC), then the rest of the
 * store's state (struct strata_kv_state, field by field: ckpt.c), then the registered
 * application regions in order. */
enum {
    KV_CTX_SIG = 0,    /* u32 CRC of the format-relevant configuration (kv_signature) */
    KV_CTX_SUMMARY = 4,
    KV_CTX_FIXED = 31  /* context bytes = 31 + 2 x partitions + 4 x d + the regions' bytes */
};

/* ---- partition summary: the last bytes of each partition describe its ring predecessor --------
 * (written when the predecessor closes, into the partition that takes over): the fields of struct
 * strata_kv_summary in the order of part.c's field table (u32 t_lo, u32 t_hi, u16 records
 * allocated, u8 timestamps never decreased, i16 lo[d], i16 hi[d]), then the CRC of those. The
 * context's state fields likewise follow ckpt.c's table. */
enum { KV_SUM_FIXED = 15 /* summary bytes = 15 + 4 d */ };

/* ---- node slots ---------------------------------------------------------------------------- */
#define KV_FREE 0xFFFFu
#define KV_CHILD 0x8000u      /* child pointer: KV_CHILD | first node of the child group */
#define KV_HDR_ROOT 0x4701u   /* group headers (slot 0 of a group's first node) */
#define KV_HDR_QUAD 0x4702u
#define KV_HDR_CHAIN 0x4703u

/* ---- record: u32 timestamp, i16 values[d], payload, check byte ------------------------------ */
enum { KV_REC_TS = 0, KV_REC_VALUES = 4 };

/* ---- erase-undo save area: HDR unit entries -------------------------------------------------- */
enum {
    KV_UNDO_TAG = 0,    /* 'U' */
    KV_UNDO_DONE = 1,   /* 0xFF while the write-back is pending */
    KV_UNDO_UNIT = 2,   /* u16 target unit, relative to first_unit */
    KV_UNDO_IMAGE = 4,  /* u32 CRC of the DATA image (erase_size bytes) */
    KV_UNDO_CRC = 8,    /* u32 CRC of bytes 0 and 2..7 */
    KV_UNDO_LEN = 12
};

#endif
