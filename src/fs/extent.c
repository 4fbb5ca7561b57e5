/*
 * A data file's extent: creation, loading its committed state from the length slots, commits,
 * and copies into a new extent (merge, relocation, reconfiguration, rename by copy).
 *
 * A copy's header names the committed extent it supersedes. It becomes the file only when
 * committed: for a closed file at once, for an open one at its next sync. Until then a cut
 * leaves the original, and mount obsoletes the copy; after it, mount obsoletes the original.
 */
#include "fs_internal.h"

static uint32_t page_size(const struct strata_fs *fs)
{
    return fs->cfg.flash->geo.page_size;
}

uint32_t fs_data_u(const struct strata_fs *fs, const struct strata_fs_file *f)
{
    return fs_page_u(fs, f->page + 1);
}

static uint32_t head_slots(const struct strata_fs *fs, const struct strata_fs_file *f)
{
    return (fs_page_u(fs, f->page + 1) - fs_page_u(fs, f->page) - fs->hdr) / FS_SLOT;
}

static uint32_t slot_count(const struct strata_fs *fs, const struct strata_fs_file *f)
{
    uint32_t end = f->page + f->pages;
    return head_slots(fs, f) +
           (fs_page_u(fs, end) - fs_page_u(fs, end - f->meta)) / FS_SLOT;
}

static uint32_t slot_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t i)
{
    uint32_t h = head_slots(fs, f);
    if (i < h)
        return fs_page_u(fs, f->page) + fs->hdr + i * FS_SLOT;
    return fs_page_u(fs, f->page + f->pages - f->meta) + (i - h) * FS_SLOT;
}

static uint32_t slot_crc(const uint8_t *s, uint32_t seq, uint32_t i)
{
    uint8_t id[8];
    fs_put32(id, seq);
    fs_put32(id + 4, i);
    return strata_crc32(strata_crc32(0, s, 8), id, 8) ^ CRC_LEN;
}

/* Read slot i: 0 blank, 1 valid, 2 torn, <0 error. */
static int slot_read(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t i,
                     uint8_t *s)
{
    int rc = fs_read(fs, slot_u(fs, f, i), s, FS_SLOT);
    if (rc != 0)
        return rc;
    if (fs_blank(s, FS_SLOT))
        return 0;
    return fs_get32(s + 8) == slot_crc(s, f->seq, i) ? 1 : 2;
}

/* Program the next length slot; 1 when none is left (the caller copies the file). */
static int slot_put(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t k,
                    uint32_t wd)
{
    uint8_t s[FS_SLOT];
    int rc;
    if (f->slot >= slot_count(fs, f))
        return 1;
    fs_put32(s, len);
    fs_put16(s + 4, k);
    fs_put16(s + 6, wd);
    fs_put32(s + 8, slot_crc(s, f->seq, f->slot));
    if ((rc = strata_flash_sync(fs->cfg.flash)) != 0 ||
        (rc = fs_prog(fs, slot_u(fs, f, f->slot), s, FS_SLOT)) != 0)
        return rc;
    f->slot++;
    return 0;
}

/* Pages of intent to cover up to `want`, measured from `from`. */
static uint32_t intent_pages(const struct strata_fs *fs, uint32_t from, uint32_t want)
{
    uint32_t ps = page_size(fs), wd = want > from ? (want - from + ps - 1) / ps : 0;
    return fs_min(wd, 0xFFFF);
}

/* Before programming data in place up to `end` past the durable intent: restate the committed
 * state with a larger intent (about doubling the uncommitted span). 1: copy needed first. */
int fs_intent(struct strata_fs *fs, struct strata_fs_file *f, uint32_t end)
{
    uint32_t want = fs_min(f->cap, end + (end - f->clen > page_size(fs) ? end - f->clen
                                                                         : page_size(fs)));
    uint32_t wd = intent_pages(fs, f->clen, want);
    int rc = slot_put(fs, f, f->clen, f->kc, wd);
    if (rc == 0)
        f->intent = f->clen + wd * page_size(fs);
    return rc;
}

/* Load a live data extent's committed state into a handle. */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h)
{
    uint8_t s[FS_SLOT], raw[FS_HDR_MAX];
    struct fs_hdr lh;
    uint32_t lo = 0, hi, wd = 0;
    int rc;
    memset(f, 0, sizeof *f);
    f->page = f->base = h->page;
    f->pages = h->pages;
    f->seq = f->base_seq = h->seq;
    f->meta = h->meta;
    f->log = h->log;
    f->log_record = (uint16_t)(h->logrs ? h->logrs : fs->cfg.log_record);
    f->log_records = (uint16_t)(h->logn ? h->logn : fs->cfg.log_size / fs->cfg.log_record);
    if ((uint32_t)h->meta + 1 > h->pages)
        return STRATA_ECORRUPT;
    f->cap = fs_page_u(fs, f->page + f->pages - f->meta) - fs_data_u(fs, f);
    if (f->log < FS_BAD) {
        rc = fs_hdr_read(fs, f->log, raw, &lh);
        if (rc < 0)
            return rc;
        if (rc != HDR_VALID || lh.type != FS_T_LOG || lh.lpage != h->page ||
            lh.lseq != h->seq || lh.obsolete || lh.logn == 0 || lh.logrs == 0)
            return STRATA_ECORRUPT;
        f->log_records = lh.logn;
        f->log_record = lh.logrs;
    }
    /* slots are written in order: binary search for the first blank one */
    hi = slot_count(fs, f);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((rc = slot_read(fs, f, mid, s)) < 0)
            return rc;
        if (rc == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    f->slot = (uint16_t)lo;
    while (lo-- > 0) {
        if ((rc = slot_read(fs, f, lo, s)) < 0)
            return rc;
        if (rc == 1) {
            f->clen = fs_get32(s);
            f->kc = (uint16_t)fs_get16(s + 4);
            wd = fs_get16(s + 6);
            break;
        }
    }
    if (f->clen > f->cap || f->kc > f->log_records || (f->kc > 0 && f->log >= FS_BAD))
        return STRATA_ECORRUPT;
    f->len = f->clen;
    f->k = f->kc;
    f->intent = f->clen + wd * page_size(fs);
    f->clean = FS_NONE;
    return 0;
}

/* Allocate and write the header of a new data extent holding `size` bytes; describe it in nf
 * (page, pages, meta, seq, cap). */
int fs_create(struct strata_fs *fs, const char *name, uint32_t nlen, uint32_t size,
              uint32_t logn, uint32_t logrs, uint32_t lpage, uint32_t lseq,
              struct strata_fs_file *nf)
{
    uint32_t d = fs_pages_for(fs, size), m = 1 + d / 64;
    int rc;
    if (d > fs->pages)
        return STRATA_ENOSPC;
    nf->pages = 1 + d + m;
    nf->meta = (uint16_t)m;
    if ((rc = fs_alloc(fs, nf->pages, &nf->page)) != 0 ||
        (rc = fs_hdr_write(fs, nf->page, FS_T_DATA, nf->pages, m, logn, logrs, lpage, lseq,
                           name, nlen)) != 0)
        return rc;
    nf->seq = fs->seq;
    nf->cap = fs_page_u(fs, nf->page + nf->pages - m) - fs_page_u(fs, nf->page + 1);
    return 0;
}

/* Copy the file's current content into a new extent of capacity >= cap with that log
 * configuration; the handle then describes the (uncommitted) copy. */
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, uint32_t cap, uint32_t logn,
               uint32_t logrs)
{
    uint8_t raw[FS_HDR_MAX];
    struct fs_hdr h;
    struct strata_fs_file nf;
    uint32_t nlen = 0, off, c, du;
    int rc = fs_hdr_read(fs, f->page, raw, &h);
    if (rc != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    while (nlen < fs->cfg.name_max && h.name[nlen] != 0)
        nlen++;
    rc = fs_create(fs, (const char *)h.name, nlen, fs_min(cap > f->len ? cap : f->len, 0xFFFFFFF0u),
                   logn, logrs, f->base, f->base_seq, &nf);
    if (rc != 0)
        return rc;
    du = fs_page_u(fs, nf.page + 1);
    for (off = 0; off < f->len; off += c) {
        c = fs_min(f->len - off, fs->cfg.buffer_size);
        if ((rc = fs_pread(fs, f, off, fs->cfg.buffer, c)) != 0 ||
            (rc = fs_prog(fs, du + off, fs->cfg.buffer, c)) != 0)
            return rc;
    }
    if (f->page != f->base && (rc = fs_obsolete(fs, f->page)) != 0)
        return rc; /* an earlier uncommitted copy: nobody will commit it now */
    f->page = nf.page;
    f->pages = nf.pages;
    f->meta = nf.meta;
    f->seq = nf.seq;
    f->cap = nf.cap;
    f->log = FS_NONE;
    f->log_records = (uint16_t)logn;
    f->log_record = (uint16_t)logrs;
    f->k = 0;
    f->slot = 0;
    f->clean = f->len;
    f->state = (uint8_t)((f->state | ST_DIRTY) & ~ST_LOG_READY);
    return 0;
}

/* Commit: one length slot (the commit point for an unmoved file); for a copy, its first slot,
 * then its commit flag (the commit point), then the original and its log become obsolete. */
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t ps = page_size(fs), grow, want, wd;
    int rc;
    if (!(f->state & ST_DIRTY))
        return 0;
    grow = f->len - f->clen > ps && f->len > f->clen ? f->len - f->clen : ps;
    want = fs_min(f->cap, f->len + grow);
    if (f->clean == FS_NONE ? f->intent > want : f->clean > want)
        want = f->clean == FS_NONE ? f->intent : f->clean;
    wd = intent_pages(fs, f->len, want);
    while ((rc = slot_put(fs, f, f->len, f->k, wd)) == 1)
        if ((rc = fs_rewrite(fs, f, f->cap, f->log_records, f->log_record)) != 0)
            return rc;
    if (rc != 0)
        return rc;
    if (f->page != f->base) {
        if ((rc = fs_flag(fs, f->page, O_COMMIT(fs->cfg.name_max))) != 0 ||
            (rc = fs_obsolete(fs, f->base)) != 0)
            return rc;
        f->base = f->page;
        f->base_seq = f->seq;
    }
    f->clen = f->len;
    f->kc = f->k;
    f->intent = f->len + wd * ps;
    f->state &= (uint8_t)~ST_DIRTY;
    return 0;
}

/* Copy a closed file (cleaning, reconfiguration, rename of a renamed extent) and commit. */
int fs_rewrite_closed(struct strata_fs *fs, const struct fs_hdr *h, uint32_t logn,
                      uint32_t logrs)
{
    struct strata_fs_file t;
    int rc = fs_load(fs, &t, h);
    if (rc == 0)
        rc = fs_rewrite(fs, &t, t.cap, logn, logrs);
    return rc ? rc : fs_commit(fs, &t);
}
