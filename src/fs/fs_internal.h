/* strata_fs internals shared by its files. Layout constants follow docs/format-fs.md. */
#ifndef STRATA_FS_INTERNAL_H
#define STRATA_FS_INTERNAL_H

#include <string.h>

#include "strata/crc.h"
#include "strata_le.h"
#include "strata/fs.h"

#define FS_VERSION 1u
#define FS_M 8u      /* sector marker bytes */
#define FS_SLOT 8u   /* length slot bytes */
#define FS_ENTRY 4u  /* log index entry bytes: key, check, commit mark */
#define FS_NONE 0xFFFFFFFFu
#define FS_BAD 0xFFFFFFFEu /* a torn one-way field */
#define FS_T_DATA 0xD1u
#define FS_T_LOG 0x1Du
#define FS_HDR_MAX (55u + 2u * STRATA_FS_NAME_LIMIT)

/* header offsets; those after the name depend on name_max (N) */
#define O_TYPE 0u
#define O_ZERO 2u
#define O_SEQ 4u
#define O_PAGES 8u
#define O_LOGN 12u
#define O_LOGRS 14u
#define O_LPAGE 16u
#define O_LSEQ 20u
#define O_NAME 24u
#define O_CRC(N) (24u + (N))
#define O_OBS(N) (28u + (N))
#define O_COMMIT(N) (29u + (N))
#define O_RENAMED(N) (30u + (N))
#define O_LINK(N) (31u + (N))
#define O_REN(N) (39u + (N))
#define HDR_SHORT(N) (31u + (N)) /* what the walk reads: the CRC part and the three flags */

#define CRC_HDR 0x46534844u
#define CRC_REN 0x52454E4Du


/* strata_fs_file.state bits */
#define ST_DIRTY 1u     /* changes since the last commit */
#define ST_LOG_READY 2u /* k is the first free log slot (uncommitted entries voided) */

/* A decoded header. */
struct fs_hdr {
    uint32_t page;
    uint32_t seq, pages, cfg, lpage, lseq; /* header bytes 4..23: cfg = log records (R) | record
                                              size (rs) << 16; lpage/lseq: supersedes (data) or
                                              owner (log) */
    uint32_t rseq, rpage, rpseq;           /* rename slot: sequence, replaced page/sequence */
    uint32_t log;                          /* log link: page, FS_NONE or FS_BAD */
    uint8_t type, obsolete, commit, renamed; /* renamed: 0 no, 1 valid slot, 2 torn slot */
    const uint8_t *name; /* NUL-padded, name_max bytes, in the scratch buffer (see layout.c) */
};

enum { HDR_BLANK, HDR_GARBAGE, HDR_VALID };

/* Walk events, one sector at a time (see fs_step). */
enum { EV_END, EV_DIRTY, EV_COVER, EV_EXTENT, EV_GARBAGE, EV_FREE };

struct fs_walk {
    uint32_t page;  /* next page to examine */
    uint32_t mk;    /* sector whose marker was read, plus one */
    uint32_t at, n; /* the event's first page and page count (clipped to its sector) */
    uint32_t oks, others; /* markers seen ok / of another version or configuration */
    struct fs_hdr h;
};

static inline uint32_t fs_min(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* io.c: addresses, device access, sector markers */
enum { DEV_READ, DEV_PROG, DEV_ERASE, DEV_SYNC };
int fs_dev(const struct strata_fs *fs, int op, uint32_t addr, void *buf, uint32_t n);
uint32_t fs_page_u(const struct strata_fs *fs, uint32_t page);
uint32_t fs_pages_for(const struct strata_fs *fs, uint32_t bytes);
int fs_read(const struct strata_fs *fs, uint32_t u, void *buf, uint32_t n);
int fs_prog(const struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n);
int fs_zero(const struct strata_fs *fs, uint32_t u, uint32_t n);
int fs_blank(const uint8_t *p, uint32_t n);
int fs_last_used(const struct strata_fs *fs, uint32_t u, uint32_t n, uint32_t *used);
int fs_marker(const struct strata_fs *fs, uint32_t sector, uint32_t *fp);
int fs_marker_fp(const struct strata_fs *fs, uint32_t sector, uint32_t fp);
int fs_erase(const struct strata_fs *fs, uint32_t sector);
int fs_setup(struct strata_fs *fs, const struct strata_fs_config *cfg);

/* layout.c: headers and their fields */
int fs_hdr_read(const struct strata_fs *fs, uint32_t page, struct fs_hdr *h);
int fs_link_read(const struct strata_fs *fs, struct fs_hdr *h);
int fs_hdr_write(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen);
int fs_flag(const struct strata_fs *fs, uint32_t page, uint32_t off);
int fs_live(const struct fs_hdr *h);
uint32_t fs_entry_check(uint32_t key);
int fs_ren_write(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen);
int fs_link_write(const struct strata_fs *fs, uint32_t page, uint32_t log);
int fs_obsolete(struct strata_fs *fs, uint32_t page);

/* mount.c, check.c: the scan shared by mount repair and check */
enum { SCAN_MOUNT, SCAN_CHECK, SCAN_REPAIR };
struct fs_scan {
    int mode;
    struct strata_fs_report *r;
    /* check only: called for every event of the second pass */
    int (*check)(struct strata_fs *fs, struct fs_scan *sc, int ev, struct fs_walk *w);
    uint32_t carry_end, carry_live;
};
int fs_scan(struct strata_fs *fs, struct fs_scan *sc);
int fs_finding(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, const char *what);

/* walk.c: the quick-skip walk, search, allocation */
void fs_walk_at(const struct strata_fs *fs, struct fs_walk *w, uint32_t page);
int fs_step(const struct strata_fs *fs, struct fs_walk *w);
int fs_lookup(struct strata_fs *fs, const char *name, uint32_t nlen, struct fs_walk *w);
int fs_find_run(struct strata_fs *fs, uint32_t pages, uint32_t *page);
int fs_alloc(struct strata_fs *fs, uint32_t pages, uint32_t *page);
struct strata_fs_file *fs_opened(const struct strata_fs *fs, uint32_t page);
int fs_find(struct strata_fs *fs, const char *name, uint32_t *nlen, struct fs_walk *w);

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
int fs_clean(struct strata_fs *fs);

/* extent.c, file.c: extents, handles, the read path, commits, copies */
/* Bytes written over a file's content on the way (a write folded into a copy); n = 0: none. */
struct fs_span {
    const uint8_t *p;
    uint32_t off, n;
};
extern const struct fs_span fs_nothing; /* {NULL, FS_NONE, 0} */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, struct fs_hdr *h);
int fs_pread(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off, uint8_t *buf,
             uint32_t n);
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f);
int fs_intent(struct strata_fs *fs, struct strata_fs_file *f, uint32_t end);
int fs_find_clean(struct strata_fs *fs, struct strata_fs_file *f);
uint32_t fs_room(const struct strata_fs_file *f);
uint32_t fs_area_for(uint32_t size);
int fs_create(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen);
int fs_create_file(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen,
                   uint32_t size, uint32_t cfg);
int fs_copy(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t from, uint32_t to,
            uint32_t base, const struct fs_span *s);
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, uint32_t area,
               const struct fs_span *s, uint32_t cfg);
int fs_rewrite_closed(struct strata_fs *fs, struct fs_hdr *h, uint32_t cfg);
uint32_t fs_data_u(const struct strata_fs *fs, const struct strata_fs_file *f);

/* log.c: micro logs */
int fs_log_top(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t *top);
int fs_log_load(struct strata_fs *fs, struct strata_fs_file *f, uint32_t kslot);
int fs_log_mark(struct strata_fs *fs, struct strata_fs_file *f);
int fs_log_overlay(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off,
                   uint8_t *buf, uint32_t n);
int fs_log_put(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s);

#endif
