/* strata_stream's pieces, shared by its files (not part of the public API). The on-flash field
 * offsets are named here, once (docs/format-stream.md is the reference). */
#ifndef STRATA_STREAM_INTERNAL_H
#define STRATA_STREAM_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "strata/crc.h"
#include "strata/stream.h"
#include "strata_le.h"

#define NONE16 0xFFFFu
#define NONE32 0xFFFFFFFFu

/* ---- page tags (10 bytes: in the OOB from byte 1, or at the end of the main area) ------------ */

enum stream_page_type {
    PT_DATA = 0xD1,
    PT_TREE = 0xD2,
    PT_BLOOM = 0xD3,
    PT_HEADER = 0xD4,
    PT_ANCHOR = 0xD5,
    PT_MARK = 0xD6 /* a copy mount programmed again is complete (format 3): recover.c, rec_mark */
};

#define TAG_TYPE 0u  /* u8 page type */
#define TAG_SEQ 1u   /* u24 segment number (anchor: anchor number), modulo 2^24 */
#define TAG_AUX 4u   /* u16 data: number of the first reading; tree/Bloom: page index */
#define TAG_COUNT 6u /* u8 data: readings in the page; tree/Bloom/header: 0 or TAG_CARRY */
/* The close carries the segment's newest data page (after its data_pages) into the next segment
 * (recover.c, carry_in): set on every page of that copy. */
#define TAG_CARRY 1u
#define TAG_CHECK 7u /* u24 low bits of CRC-32 over the payload and tag bytes 0..6 */
#define SEQ_MASK 0xFFFFFFu
#define SEQ_EQ(tag_seq, seq) ((tag_seq) == ((seq)&SEQ_MASK))
/* In the OOB the tag starts at byte 1: byte 0 stays 0xFF. Workaround for a simulator defect:
 * src/sim reads the factory bad-block marker at spare byte 0 of pages 0 and 1 whatever the
 * geometry's bbm_offset (5 on tc58dvg02, where the NAND layer puts engine OOB byte 0 in spare
 * byte 0), so a tag there made every written block look bad at the next mount. */
#define TAG_OOB_AT 1u

struct stream_tag {
    uint8_t type, count;
    uint16_t aux;
    uint32_t seq;
};

/* ---- data pages: slots of 8 + record_size bytes ---------------------------------------------- */

#define SLOT_TS 0u
#define SLOT_KEY 4u
#define SLOT_REC 8u

/* ---- buckets (beta-tree nodes), on the index device and in tree pages ------------------------ */

#define BK_LO 0u     /* i32, exclusive lower bound */
#define BK_HI 4u     /* i32, inclusive upper bound */
#define BK_MID 8u    /* i32 split value (valid once a child exists) */
#define BK_LEFT 12u  /* u16 child id for (lo, mid], NONE16 */
#define BK_RIGHT 14u /* u16 child id for (mid, hi], NONE16 */
#define BK_HEAD 16u  /* entries follow */
#define ENT_KEY 0u   /* i32 */
#define ENT_ADDR 4u  /* u16 page position x readings per page + slot; NONE16 = empty */
#define ENT_CHECK 6u /* u16 CRC-16 of key and address */
#define ENT_SIZE 8u

/* ---- index slot (NOR segment or RAM stage) ---------------------------------------------------- */

#define SH_MAGIC 0u    /* u32 */
#define SH_SEQ 4u      /* u32 segment number */
#define SH_B0 8u       /* u32 its first block */
#define SH_CRC 12u     /* u32 CRC-32 of bytes 0..11 */
#define SH_CLOSING 16u /* u8 0xFF open, 0x00: copy to the data device started */
#define SH_COPY 18u    /* u16 position where the copy started */
#define SH_STATE 32u   /* 2 bits per data page position: 11 free, 10 begun, 00 done */
#define SLOT_MAGIC 0x314E5353u /* "SSN1" */

/* ---- header page payload ---------------------------------------------------------------------- */

#define HD_MAGIC 0u
#define HD_SEQ 4u
#define HD_B0 8u
#define HD_START 12u
#define HD_END 16u
#define HD_MINK 20u
#define HD_MAXK 24u
#define HD_RECORDS 28u
#define HD_DATA 32u    /* u16 data page positions */
#define HD_TREE 34u    /* u16 first tree page position */
#define HD_TREEN 36u   /* u16 tree pages */
#define HD_BUCKETS 38u /* u16 */
#define HD_BLOOM 40u   /* u16 first Bloom page position */
#define HD_BLOOMN 42u  /* u16 Bloom pages */
#define HD_FRAG 44u    /* u16 fragment bytes */
#define HD_SECT 46u    /* u16 sections */
#define HD_LEVEL 50u   /* u8 skip-list level of this segment */
#define HD_NODE 52u    /* STRATA_STREAM_MAX_LEVEL x (u32 first timestamp, u32 header page) */
#define HD_CRC (HD_NODE + 8u * STRATA_STREAM_MAX_LEVEL)
#define HD_SIZE (HD_CRC + 4u)
#define HEADER_MAGIC 0x31485353u /* "SSH1" */

/* ---- anchor page payload ---------------------------------------------------------------------- */

#define AN_MAGIC 0u
#define AN_VERSION 4u   /* u8 */
#define AN_SPLIT 5u     /* u8 */
#define AN_HASHES 6u    /* u8 */
#define AN_LEVEL 7u     /* u8 max_level */
#define AN_RECORD 8u    /* u16 */
#define AN_BUCKET 10u   /* u16 */
#define AN_BITS 12u     /* u16 */
#define AN_N 14u        /* u16 */
#define AN_MAXPG 16u    /* u16 */
#define AN_INDEX 18u    /* u8 1: NOR, 0: RAM stage */
#define AN_TAGOOB 19u   /* u8 */
#define AN_PAGE 20u     /* u32 page bytes */
#define AN_PPB 24u      /* u32 */
#define AN_BLOCKS 28u   /* u32 */
#define AN_SLOT 32u     /* u32 index slot bytes */
#define AN_DLO 36u      /* i32 */
#define AN_DHI 40u      /* i32 */
#define AN_OPEN 44u     /* u32 open segment number */
#define AN_OPENB0 48u   /* u32 its first block */
#define AN_NEWEST 52u   /* u32 header page of the newest closed segment, NONE32 */
#define AN_TAIL 56u     /* u32 first block of the oldest segment */
#define AN_MINTS 60u    /* u32 its first timestamp */
#define AN_SEGS 64u     /* u32 closed segments kept */
#define AN_READINGS 68u /* u32 readings in them */
#define AN_AGED 72u     /* u32 segments aged */
#define AN_NUMBER 76u   /* u32 anchor number (the highest valid one wins) */
#define AN_NANDVER 80u /* u8 STRATA_NAND_FORMAT_VERSION of the layer beneath (0: FTL device) */
#define AN_CARRY 84u   /* u32 a page to carry into the open segment (NONE32: none): recover.c, restart */
#define AN_CRC 88u
#define AN_SIZE 92u
#define ANCHOR_MAGIC 0x31415353u /* "SSA1" */

/* ---- what a page read found ------------------------------------------------------------------ */

enum stream_page_state {
    PG_VALID = 0,   /* tag and CRC check; `tag` filled */
    PG_BLANK = 1,   /* erased, foreign, or torn on an FTL device: no page of the store here */
    PG_LOST = 2,    /* the NAND layer could not correct it (also reported as PG_BLANK to scans) */
    PG_TORN = 3     /* NAND, not erased, its tag does not check: programmed, then torn or decayed
                     * (read as PG_BLANK but by recovery's scans: recover.c, run_on) */
};

/* dev.c: the data device ------------------------------------------------------------------------ */
int dev_geometry(struct strata_stream *s);
int dev_is_bad(struct strata_stream *s, uint32_t block);
/* Next good block after `block` in the data ring (anchors excluded). */
int dev_next_good(struct strata_stream *s, uint32_t block, uint32_t *out);
uint32_t dev_ring_dist(const struct strata_stream *s, uint32_t a, uint32_t b);
int dev_free(struct strata_stream *s, uint32_t from, uint32_t to, uint32_t need);
/* Physical block of block index `idx` of the segment starting at b0 (bad blocks skipped). */
int dev_block_of(struct strata_stream *s, uint32_t b0, uint32_t idx, uint32_t *out);
uint32_t dev_page(const struct strata_stream *s, uint32_t block, uint32_t index);
/* Read a page into buf: PG_VALID (with *tag), PG_BLANK, PG_LOST, or a negative error. */
int dev_read(struct strata_stream *s, uint32_t page, uint8_t *buf, struct stream_tag *tag);
/* Read position `pos` of the segment at b0 (expects `type` and `seq`): PG_* or an error. */
int dev_read_pos(struct strata_stream *s, uint32_t b0, uint32_t pos, uint8_t *buf,
                 struct stream_tag *tag);
/* Program a page with the tag (the payload in buf, usable bytes). */
int dev_prog(struct strata_stream *s, uint32_t page, uint8_t *buf, const struct stream_tag *tag);
int dev_erase(struct strata_stream *s, uint32_t block);

/* idx.c: the index device (NOR slot or RAM stage) --------------------------------------------- */
int idx_read(struct strata_stream *s, uint32_t off, void *buf, uint32_t len);
int idx_prog(struct strata_stream *s, uint32_t off, const void *buf, uint32_t len);
int idx_erase(struct strata_stream *s);
uint32_t idx_slot_of(const struct strata_stream *s, uint32_t seq);
int idx_set_state(struct strata_stream *s, uint32_t pos, int done);
int idx_mark_done_range(struct strata_stream *s, uint32_t from, uint32_t to);
int idx_write_head(struct strata_stream *s);
int idx_head_valid(struct strata_stream *s);
/* First position whose state is not done, and whether it is begun. */
int idx_progress(struct strata_stream *s, uint32_t *pos, int *begun);
uint32_t idx_section_off(const struct strata_stream *s, uint32_t j);
int idx_room(const struct strata_stream *s, uint32_t buckets, uint32_t sections);

/* btree.c: the beta-tree ------------------------------------------------------------------------ */
uint32_t bt_offset(const struct strata_stream *s, uint32_t id);
void bt_reset(struct strata_stream *s);
int bt_insert(struct strata_stream *s, int32_t key, uint16_t addr);
int bt_read_header(struct strata_stream *s, uint32_t id, uint8_t *h);
int bt_fill(struct strata_stream *s, uint32_t id, uint16_t *fill);
int32_t bt_split_point(const struct strata_stream *s, int32_t x, int32_t y);
int bt_entry_valid(const uint8_t *e);

/* bloom.c -------------------------------------------------------------------------------------- */
uint32_t stream_mix(uint32_t x);
void bloom_hashes(const struct strata_stream *s, int32_t key, uint32_t *h);
void bloom_set(struct strata_stream *s, int32_t key);
void bloom_add(struct strata_stream *s, int32_t key);
int bloom_flush(struct strata_stream *s);
uint32_t bloom_frag(const struct strata_stream *s, uint32_t sections);
uint32_t bloom_pages(const struct strata_stream *s, uint32_t sections);
void bloom_fill_page(struct strata_stream *s, uint32_t page_index, uint32_t sections,
                     uint8_t *buf, int *err);
int bloom_check(struct strata_stream *s, const struct strata_stream_seg *g, int32_t key);

/* ring (regression window) in btree.c */
void ring_push(struct strata_stream *s, int32_t key);

/* skip.c: the skip list ------------------------------------------------------------------------ */
uint8_t skip_level(const struct strata_stream *s, uint32_t seq);
void skip_insert(struct strata_stream *s, uint32_t start_ts, uint32_t page, uint8_t level);
void skip_add(struct strata_stream *s, uint32_t start_ts, uint32_t page, uint8_t level);
int skip_lane_build(struct strata_stream *s);
int skip_load_head(struct strata_stream *s, uint32_t page, uint32_t *end_ts);
int skip_search(struct strata_stream *s, uint32_t t, struct strata_stream_ptr *found,
                struct strata_stream_ptr *newer);
int ptr_live(const struct strata_stream *s, const struct strata_stream_ptr *p);

/* header.c: header pages ----------------------------------------------------------------------- */
int hdr_read(struct strata_stream *s, uint32_t page, uint32_t ts, uint8_t *buf);
int seg_load(struct strata_stream *s, uint32_t page, uint32_t ts, struct strata_stream_seg *g);
void seg_build_header(const struct strata_stream *s, uint8_t *buf,
                      const struct strata_stream_seg *g, uint8_t level);
void seg_of_open(const struct strata_stream *s, struct strata_stream_seg *g);

/* anchor.c ------------------------------------------------------------------------------------- */
int anchor_write(struct strata_stream *s);
/* What mount found about the newest anchor (anchor_load). */
enum anchor_found {
    ANCHOR_DOUBT = 0,  /* it may be the page a cut interrupted late (nothing after it vouches) */
    ANCHOR_WEAK = 1,   /* the newest no longer read: the one before it was taken */
    ANCHOR_VOUCHED = 2 /* the anchor before it in its block holds the same state */
};
int anchor_load(struct strata_stream *s);
/* Two anchors of the same state into a fresh block: the second vouches for the first. */
int anchor_renew(struct strata_stream *s);

/* write.c: the write path ---------------------------------------------------------------------- */
int wr_flush_page(struct strata_stream *s);
int wr_start_page(struct strata_stream *s);
int wr_prog(struct strata_stream *s, uint8_t *buf, const struct stream_tag *tag);
int wr_index_page(struct strata_stream *s, const uint8_t *page, uint32_t pos, uint32_t first,
                  uint32_t count);

/* segment.c: opening, closing and aging -------------------------------------------------------- */
void seg_reset(struct strata_stream *s);
int seg_open(struct strata_stream *s, uint32_t b0);
int seg_close(struct strata_stream *s);
int seg_copy(struct strata_stream *s);
int seg_age(struct strata_stream *s);
int seg_free_blocks(struct strata_stream *s, uint32_t from, uint32_t *free);

/* config.c, recover.c -------------------------------------------------------------------------- */
int mnt_check_config(struct strata_stream *s, const struct strata_stream_config *c);
int rec_open(struct strata_stream *s);
int rec_mark(struct strata_stream *s);

/* query.c -------------------------------------------------------------------------------------- */

/* field.c: the little-endian fields, out of line (called from some 150 places: a call is a
 * third of an inlined access on Cortex-M0) */
uint32_t s_get32(const uint8_t *p, uint32_t off);
int32_t s_geti(const uint8_t *p, uint32_t off);
uint16_t s_get16(const uint8_t *p, uint32_t off);
void s_put32(uint8_t *p, uint32_t off, uint32_t v);
void s_put16(uint8_t *p, uint32_t off, uint32_t v);
/* A field of an on-flash record and the struct member it is kept in (same width: 1, 2 or 4
 * bytes); tables of them serialise whole records. */
struct field {
    uint8_t at, width;
    uint16_t off;
};
#define FIELD(at, type, member) {(at), sizeof(((type *)0)->member), offsetof(type, member)}
void fields_put(uint8_t *buf, const struct field *f, uint32_t n, const void *obj);
void fields_get(const uint8_t *buf, const struct field *f, uint32_t n, void *obj);
void wbuf_clear(struct strata_stream *s);
void wbuf_take_read(struct strata_stream *s);

#endif
