/* strata_ftl's pieces, shared by its files (not part of the public API). Terms as in
 * docs/ftl.md: spb sectors per physical block, P = D x spb positions per lavish block (LAB),
 * pair positions 0..P-1 in the DLB and P..2P-1 in the LLB. */
#ifndef STRATA_FTL_INTERNAL_H
#define STRATA_FTL_INTERNAL_H

#include "strata/ftl.h"

#define FTL_NONE 0xFFFFu
/* Fresh lavish blocks tried when programs keep failing their status (a target, a relocation,
 * a header): each failure kills one, so a few in a row end in STRATA_EIO, not a loop. */
#define FTL_TRIES 4u
#define FTL_NO_SEQ 0xFFFFFFFFu

/* labinfo[lab]: a LAB in use holds its valid-sector count (with FTL_LAB_DEAD besides when a
 * program failed in it and it could not be relocated yet: no more programs); a free one
 * FTL_LAB_FREE plus the number of its leading blocks that may hold data (erased before use); a
 * dead one (a bad block inside) FTL_LAB_DEAD. */
#define FTL_LAB_FREE 0x8000u
#define FTL_LAB_DEAD 0x4000u
#define FTL_LAB_COUNT 0x3FFFu

/* OOB tag: kind, SI, previous SI (docs/format-ftl.md). */
#define FTL_TAG_SIZE 5u
enum ftl_kind {
    FTL_K_DATA = 0x44,  /* 'D' written by the user */
    FTL_K_COPY = 0x43,  /* 'C' a copy */
    FTL_K_LOST = 0x4C,  /* 'L' a copy whose source was uncorrectable: reads give EECC */
    FTL_K_MAP = 0x4D,   /* 'M' a map record */
    FTL_K_SUPER = 0x53  /* 'S' a superblock record */
};

/* Map record flags. */
#define FTL_F_BLOCK 0x01u   /* first position of a physical block */
#define FTL_F_HEADER 0x02u  /* position 0 of the LAB */
#define FTL_F_TARGET 0x04u  /* a copy run follows this header */
#define FTL_F_COMMIT 0x08u  /* ends a copy run */
#define FTL_F_NOSNAP 0x10u  /* pair and ILBM not meaningful */
#define FTL_F_UNSEAL 0x20u  /* first record after a mount's seal */
#define FTL_F_CARRY 0x40u   /* UNSEAL: the next position holds the sealed frontier's copy */

/* Map record layout (offsets; docs/format-ftl.md). */
#define FTL_R_MAGIC 0u
#define FTL_R_VERSION 4u
#define FTL_R_TYPE 5u
#define FTL_R_FLAGS 6u
#define FTL_R_BLOCK 7u
#define FTL_R_LBN 8u
#define FTL_R_LAB 10u
#define FTL_R_SEQ 12u
#define FTL_R_DLB 16u
#define FTL_R_LLB 18u
#define FTL_R_PDLB 20u
#define FTL_R_PLLB 22u
#define FTL_R_CURSOR 24u
#define FTL_R_BITS 26u
#define FTL_R_DEGREE 27u
#define FTL_R_SPB 28u
#define FTL_R_LBNS 30u
#define FTL_R_MAP 32u
#define FTL_R_FIXED 36u /* bytes besides the entries: header + CRC */

/* Cache entry: lbn, cursor, prev (SI at cursor - 1 if a D/C sector), flags, then the ILBM. */
#define FTL_E_LBN 0u
#define FTL_E_CURSOR 2u
#define FTL_E_PREV 4u
#define FTL_E_FLAGS 6u
#define FTL_E_MAP 8u
#define FTL_E_DIRTY 0x01u

/* A pair as records name it (LAB numbers; FTL_NONE for none). */
struct ftl_pair {
    uint16_t dlb, llb;
};

/* A map record decoded (its ILBM stays in the sector buffer or goes to a cache entry). */
struct ftl_rec {
    uint8_t flags, block;
    uint16_t lbn, lab, cursor;
    uint32_t seq;
    struct ftl_pair pair, prev;
};

/* A cache entry, by index. */
struct ftl_ent {
    uint8_t *p;
    uint32_t index;
};

/* ---- geometry (config.c) ------------------------------------------------------------------- */

int ftl_setup(struct strata_ftl *ftl, const struct strata_ftl_config *cfg);
static inline uint32_t ftl_persistent(const struct strata_ftl *ftl)
{
    return ftl->mode == STRATA_FTL_PERSISTENT;
}
/* The LAB a pair position lies in, and its position inside that LAB. */
static inline uint32_t ftl_pair_lab(const struct strata_ftl *ftl, uint32_t lbn, uint32_t pos)
{
    return pos < ftl->ppl ? ftl->dlb[lbn] : ftl->llb[lbn];
}
static inline uint32_t ftl_lpos(const struct strata_ftl *ftl, uint32_t pos)
{
    return pos < ftl->ppl ? pos : pos - ftl->ppl;
}
/* Where n more items placed from pair position `pos` leave the cursor (persistent mode puts a
 * map record first at every physical block start). */
uint32_t ftl_advance(const struct strata_ftl *ftl, uint32_t pos, uint32_t n);

/* ---- sector I/O through the NAND layer (io.c): the sector-shrink adapter ----------------- */

/* Read position lpos of LAB lab: data (sector_size bytes) and, if wanted, the OOB into
 * ftl->oob. Returns a strata_nand_status or an error. */
int ftl_read_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos, void *data, int oob);
/* A sector by page and region (the superblock's, or a LAB position's). */
int ftl_read_sector(struct strata_ftl *ftl, uint32_t page, uint32_t region, void *data, void *oob);
int ftl_prog_sector(struct strata_ftl *ftl, uint32_t page, uint32_t region, const void *data,
                    const void *oob);
/* Program position lpos with a tag. STRATA_EBADBLOCK: the block is failing. */
int ftl_prog_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos, const void *data,
                 enum ftl_kind kind, uint32_t si, uint32_t prev);
/* Erase block `b` of LAB lab (counted). STRATA_EBADBLOCK: the layer retired it. */
int ftl_erase_block(struct strata_ftl *ftl, uint32_t lab, uint32_t b);
/* Retire block of lab holding position lpos (after a failed program). */
int ftl_retire_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos);
/* 1 if some block of the LAB is bad. */
int ftl_lab_has_bad(struct strata_ftl *ftl, uint32_t lab);
/* The tag read into ftl->oob. */
uint32_t ftl_tag_kind(const struct strata_ftl *ftl);
uint32_t ftl_tag_si(const struct strata_ftl *ftl);
uint32_t ftl_tag_prev(const struct strata_ftl *ftl);

/* ---- records (record.c) ------------------------------------------------------------------- */

uint32_t ftl_map_get(const struct strata_ftl *ftl, const uint8_t *map, uint32_t si);
void ftl_map_set(const struct strata_ftl *ftl, uint8_t *map, uint32_t si, uint32_t value);
uint32_t ftl_map_bytes(uint32_t spb, uint32_t bits);
/* Build a map record in ftl->buf. */
void ftl_rec_build(struct strata_ftl *ftl, const struct ftl_rec *r, const uint8_t *map);
/* Decode ftl->buf as a map record: 1 if it is one of this FTL's geometry, 0 if not. The ILBM
 * is copied to map (if not NULL). */
int ftl_rec_parse(const struct strata_ftl *ftl, const uint8_t *buf, struct ftl_rec *r,
                  uint8_t *map);
void ftl_super_build(struct strata_ftl *ftl);
/* 0 if ftl->buf is this FTL's superblock, else an error (EUNFORMATTED, EVERSION, EINVAL). */
int ftl_super_check(const struct strata_ftl *ftl);

/* ---- ILBM cache (cache.c) ----------------------------------------------------------------- */

uint32_t ftl_ent_lbn(const struct ftl_ent *e);
uint32_t ftl_ent_cursor(const struct ftl_ent *e);
void ftl_ent_set_cursor(struct ftl_ent *e, uint32_t cursor);
uint32_t ftl_ent_prev(const struct ftl_ent *e);
void ftl_ent_set_prev(struct ftl_ent *e, uint32_t prev);
uint8_t *ftl_ent_map(const struct ftl_ent *e);
void ftl_ent_dirty(struct ftl_ent *e);
/* The cached ILBM of lbn (loaded, evicting the least recently used unpinned entry). */
int ftl_cache_get(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e);
/* Keep entry e from eviction until ftl_cache_unpin_all(). */
void ftl_cache_pin(struct strata_ftl *ftl, const struct ftl_ent *e);
void ftl_cache_unpin_all(struct strata_ftl *ftl);
/* Write e's map record at its cursor (evictions; persistent confirmations). */
int ftl_write_record(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t flags);
void ftl_cache_reset(struct strata_ftl *ftl);

/* ---- lavish blocks (lab.c) ---------------------------------------------------------------- */

/* A free LAB, its dirty blocks erased, marked in use with no valid sector. */
int ftl_lab_alloc(struct strata_ftl *ftl, uint32_t *lab);
/* Free a LAB whose first `used` positions may hold data (dead if it holds a bad block). */
void ftl_lab_release(struct strata_ftl *ftl, uint32_t lab, uint32_t used);
void ftl_lab_kill(struct strata_ftl *ftl, uint32_t lab);
/* A LAB in use takes no program from now on (FTL_LAB_DEAD besides its count); counted dead. */
void ftl_lab_condemn(struct strata_ftl *ftl, uint32_t lab);
void ftl_valid_add(struct strata_ftl *ftl, uint32_t lab, int delta);
uint32_t ftl_valid(const struct strata_ftl *ftl, uint32_t lab);

/* ---- writing (rw.c, merge.c) -------------------------------------------------------------- */

/* Persistent mode: if e's cursor is at a physical block start, write the block's map record
 * there (callers copying through ftl->buf do this before reading into it). */
int ftl_open_slot(struct strata_ftl *ftl, struct ftl_ent *e);
/* Program one D/C/L sector for e's SI at its cursor, updating map and counts. */
int ftl_put(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t si, const void *data,
            enum ftl_kind kind);
/* Make room for n items (plus the map-record reserve) in e's pair: new DLB/LLB or a switch. */
int ftl_room(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t n);
int ftl_room_fits(const struct strata_ftl *ftl, const struct ftl_ent *e, uint32_t n);
/* Free LABs up to the reserve by merges; e (may be NULL) is the LBN being written. */
int ftl_reclaim(struct strata_ftl *ftl);
int ftl_switch(struct strata_ftl *ftl, struct ftl_ent *e);
void ftl_merge1(struct strata_ftl *ftl, struct ftl_ent *e);
/* Merge III (also used to compact a lone DLB, and to relocate after a failed program: `bad`
 * is then the failing LAB, released as dead). */
int ftl_merge3(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t bad);
/* A program at e's cursor failed (STRATA_EBADBLOCK): move the LBN to a fresh LAB, leave the
 * failing one dead and retire its block. */
int ftl_relocate(struct strata_ftl *ftl, struct ftl_ent *e);
/* Read the newest version of e's SI into buf (the suspect fallback of a sealed LBN included);
 * STRATA_EECC if lost. Returns the NAND status (>= 0) otherwise. */
int ftl_read_si(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t si, void *buf);
/* First program into a sealed LBN after a mount (persistent). */
int ftl_unseal(struct strata_ftl *ftl, struct ftl_ent *e);
/* Everything a write path does before programming: load, pin, unseal, reclaim, room. */
int ftl_prepare(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e, uint32_t n);

static inline int ftl_sealed(const struct strata_ftl *ftl, uint32_t lbn)
{
    return (int)(((uint32_t)ftl->sealed[lbn >> 3] >> (lbn & 7u)) & 1u);
}
static inline void ftl_set_sealed(struct strata_ftl *ftl, uint32_t lbn, int on)
{
    uint32_t bit = 1u << (lbn & 7u), v = ftl->sealed[lbn >> 3];
    ftl->sealed[lbn >> 3] = (uint8_t)(on ? v | bit : v & (0xFFu ^ bit));
}

/* ---- recovery (recover.c) ----------------------------------------------------------------- */

int ftl_recover(struct strata_ftl *ftl);
/* Rebuild e's ILBM, cursor and prev by replaying lbn's newest LAB from its map index
 * (persistent mode, sealed LBNs). */
int ftl_replay(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e);
/* The position of the version of si that precedes position `pos` (a sealed LBN's suspect that
 * became unreadable), or FTL_NONE. */
int ftl_prev_version(struct strata_ftl *ftl, uint32_t lbn, uint32_t si, uint32_t pos,
                     uint32_t *out);

#endif
