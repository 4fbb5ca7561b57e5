/* strata_fs internals shared by its files. Layout constants follow docs/format-fs.md (v2). */
#ifndef STRATA_FS_INTERNAL_H
#define STRATA_FS_INTERNAL_H

#include <string.h>

#include "strata/crc.h"
#include "strata_le.h"
#include "strata/fs.h"

#define FS_VERSION 2u
#define FS_MARKER 12u /* sector marker: ok word, then the first-page field twice (dual) */
#define FS_SLOT 8u    /* length slot */
#define FS_ENTRY 4u   /* micro log index entry */
#define FS_NONE 0xFFFFFFFFu
#define FS_BAD 0xFFFFFFFEu /* a one-way value torn or damaged beyond repair */
#define FS_MOUNTED 0x6D6E7466u
#define FS_STALE 0x5354414Cu /* mounted until a device failure or power loss */
#define FS_FORMATTED 0x46524D54u /* formatted by this context, not mounted since */

/* extent types (header byte 0) */
#define FS_T_DATA 0xD1u
#define FS_T_LOG 0x1Du
#define FS_T_CONT 0xC7u

/* Header fields after the type word, little-endian u32 each, in this order on flash. */
enum { HF_SEQ, HF_PAGES, HF_CFG, HF_OWNER, HF_OWNER_SEQ, HF_REPLACES, HF_REPLACES_SEQ, HF_COUNT };
/* HF_CFG: data and log extents: log records | record size << 16 (0 = default); continuation:
 * the file offset its data starts at. HF_OWNER: data: the extent a copy supersedes (FS_NONE for
 * an original); log and continuation: the extent that links to it. HF_REPLACES: the rename
 * target a copy replaces. */

/* header offsets; those from the name on depend on name_max (N) */
#define O_FIELDS 4u
#define O_NAME 32u
#define O_CRC(N) (32u + (N))
#define O_STATE(N) (36u + (N))
#define O_LOG(N) (40u + (N))  /* log link (dual u32) */
#define O_NEXT(N) (56u + (N)) /* continuation link (dual u32) */
#define HDR_WALKED(N) (40u + (N)) /* what a walk reads: the CRC part and the state */
#define HDR_SIZE(N) (72u + (N))   /* data (or a log's index) starts here in the first page */
#define CRC_HDR 0x46534832u       /* "FSH2" */

/* extent states (the 4-byte state field; see fs_state_of) */
enum { HS_NEW, HS_SEALED, HS_OBSOLETE };
#define FS_SEAL_BYTE 0x0Fu

/* struct strata_fs_file.state bits */
#define FF_DIRTY 1u     /* changes since the last commit */
#define FF_LOG_READY 2u /* log_used is the first free entry (uncommitted ones voided) */
#define FF_COMMITTED 4u /* committed since open: close seals the last length slot */

/* Named results of the write steps (never mixed with error codes, which are negative). */
enum fs_step { FS_DONE = 0, FS_COPY = 1 };

/* A decoded header. */
struct fs_hdr {
    uint32_t page;
    uint32_t f[HF_COUNT];
    const uint8_t *name; /* NUL-padded, name_max bytes, in the scratch buffer (see layout.c) */
    uint8_t type, state;
};

enum { HDR_BLANK, HDR_GARBAGE, HDR_VALID };

/* Walk events, one sector at a time (see fs_step). */
enum { EV_END, EV_DIRTY, EV_COVER, EV_EXTENT, EV_GARBAGE, EV_FREE };

struct fs_walk {
    uint32_t page;   /* next page to examine */
    uint32_t sector; /* sector whose marker was read, plus one */
    uint32_t at, n;  /* the event's first page and page count (clipped to its sector) */
    uint32_t oks, others; /* markers seen whole / of another version or configuration */
    struct fs_hdr h;
};

static inline uint32_t fs_min(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static inline uint32_t fs_max(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* io.c: addresses, the device funnel, sector markers */
/* Programs from DEV_PROG on are checked (see fs_dev): DEV_PROG lands on bytes meant to be
 * erased; DEV_PROG_OVER updates a one-way field in place (a state, a log entry's mark or void, a
 * retired marker), clearing further bits of what is there. (This order compiles smallest.) */
enum {
    DEV_SYNC, DEV_ERASE, DEV_PROG_ERASED /* unchecked: known erased */, DEV_READ, DEV_PROG,
    DEV_PROG_OVER
};
int fs_dev(struct strata_fs *fs, int op, uint32_t addr, void *buf, uint32_t n);
uint32_t fs_page_u(const struct strata_fs *fs, uint32_t page);
uint32_t fs_data_u(const struct strata_fs *fs, uint32_t page);
uint32_t fs_pages_for(const struct strata_fs *fs, uint32_t bytes);
uint32_t fs_page_left(const struct strata_fs *fs, uint32_t u);
int fs_read(struct strata_fs *fs, uint32_t u, void *buf, uint32_t n);
int fs_prog(struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n);
int fs_prog_over(struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n);
int fs_blank(const uint8_t *p, uint32_t n);
int fs_marker(struct strata_fs *fs, uint32_t sector, uint32_t *first);
int fs_marker_claim(struct strata_fs *fs, uint32_t sector, uint32_t first);
int fs_marker_retire(struct strata_fs *fs, uint32_t sector);
int fs_erase(struct strata_fs *fs, uint32_t sector);
int fs_setup(struct strata_fs *fs, const struct strata_fs_config *cfg);

/* layout.c: headers, one-way fields */
int fs_hdr_read(struct strata_fs *fs, uint32_t page, struct fs_hdr *h);
int fs_hdr_write(struct strata_fs *fs, struct fs_hdr *h, const char *name);
int fs_state_of(const uint8_t *s);
int fs_set_state(struct strata_fs *fs, uint32_t page, uint32_t byte);
uint32_t fs_dual_get(const uint8_t *p, uint32_t width);
void fs_dual_put(uint8_t *p, uint32_t v, uint32_t width);
int fs_link(struct strata_fs *fs, uint32_t page, uint32_t off, uint32_t *to);
int fs_link_write(struct strata_fs *fs, uint32_t page, uint32_t off, uint32_t target);
int fs_obsolete(struct strata_fs *fs, uint32_t page);
int fs_live(const struct fs_hdr *h);

/* walk.c: the quick-skip walk, lookup and its cache, allocation */
void fs_walk_at(const struct strata_fs *fs, struct fs_walk *w, uint32_t page);
int fs_step(struct strata_fs *fs, struct fs_walk *w);
struct strata_fs_file *fs_opened(const struct strata_fs *fs, uint32_t page);
int fs_visible(const struct strata_fs *fs, const struct fs_hdr *h);
uint32_t fs_name_hash(const struct strata_fs *fs, const uint8_t *name);
uint32_t fs_name_len(const struct strata_fs *fs, const uint8_t *name);
void fs_cache_put(struct strata_fs *fs, uint32_t old, uint32_t hash, uint32_t page);
int fs_names(uint8_t *names, uint32_t hash, int set);
int fs_lookup(struct strata_fs *fs, const char *name, struct fs_hdr *h);
int fs_find(struct strata_fs *fs, const char *name, struct fs_hdr *h);
int fs_find_run(struct strata_fs *fs, uint32_t pages, uint32_t *page);
int fs_create(struct strata_fs *fs, struct fs_hdr *h, const char *name);

int fs_closed(struct strata_fs *fs, const char *name, uint32_t *page, uint32_t *seq);

/* gc.c: per-sector accounting, garbage collection, cleaning */
struct fs_acct {
    uint32_t sector, live, dead, free; /* the sector's pages */
    uint32_t files, logs;              /* live ones so far */
    uint32_t carry_end;                /* end of the last extent that ran past its sector */
    int carry_live;
};
typedef int (*fs_sector_fn)(struct strata_fs *fs, const struct fs_acct *a, void *arg);
int fs_account(struct strata_fs *fs, fs_sector_fn fn, void *arg);
int fs_gc(struct strata_fs *fs, uint32_t need);
int fs_victim(struct strata_fs *fs, uint32_t sector, uint32_t *page);
int fs_clean(struct strata_fs *fs);

/* extent.c: loading a file, length slots, chains, commits, copies */
/* Bytes written over a file's content on the way (a write folded into a copy); n = 0: none. */
struct fs_span {
    const uint8_t *p;
    uint32_t off, n;
};
int fs_new_file(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t size,
                uint32_t cfg);
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h);
int fs_load_at(struct strata_fs *fs, struct strata_fs_file *f, uint32_t page);
int fs_slot_ok(const uint8_t *s, uint32_t page, uint32_t i);
uint32_t fs_room(const struct strata_fs_file *f);
int fs_pread(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off, uint8_t *buf,
             uint32_t n);
int fs_grow(struct strata_fs *fs, struct strata_fs_file *f, uint32_t at, uint32_t need);
int fs_put_slot(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t used,
                uint32_t copies);
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f, int seal);
int fs_commit_copy(struct strata_fs *fs, struct strata_fs_file *f, uint32_t copies);
int fs_child(struct strata_fs *fs, struct fs_hdr *h, uint32_t owner, uint32_t seq);
int fs_copy(struct strata_fs *fs, struct strata_fs_file *f, uint32_t from, uint32_t to,
            uint32_t dst, const struct fs_span *s);
/* What a copy changes: its log configuration (FS_NONE: the file's), the rename target it
 * replaces (page, seq; FS_NONE: none) and its name (NUL-terminated; NULL: the file's). */
struct fs_tpl {
    uint32_t cfg, replaces, replaces_seq;
    const char *name;
};
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s,
               const struct fs_tpl *tpl);
int fs_rewrite_closed(struct strata_fs *fs, uint32_t page, const struct fs_tpl *tpl);

/* file.c: the write-back buffer */
int fs_flush(struct strata_fs *fs, struct strata_fs_file *f);

/* log.c: micro logs */
int fs_log_scan(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off, uint8_t *buf,
                uint32_t n, uint32_t *top);
int fs_log_load(struct strata_fs *fs, struct strata_fs_file *f);
int fs_log_mark(struct strata_fs *fs, struct strata_fs_file *f);
int fs_log_put(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s);
uint32_t fs_entry_key(const uint8_t *e);

/* mount.c, check.c: the scan shared by mount repair and check */
enum { SCAN_MOUNT, SCAN_CHECK, SCAN_REPAIR };
struct fs_scan {
    int mode;
    struct strata_fs_report *r;
    uint32_t files;
    /* check only: called for every event of the second pass */
    int (*check)(struct strata_fs *fs, struct fs_scan *sc, int ev, struct fs_walk *w);
};
int fs_scan(struct strata_fs *fs, struct fs_scan *sc);
int fs_settle(struct strata_fs *fs, struct fs_scan *sc, struct fs_hdr *h);
int fs_finding(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, const char *what);
int fs_check_file(struct strata_fs *fs, struct fs_scan *sc, struct fs_hdr *h);

#endif
