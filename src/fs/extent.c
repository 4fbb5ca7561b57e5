/*
 * A data file's extent: creation, loading its committed state from the length slots, commits,
 * and copies into a new extent (merge, relocation, reconfiguration, rename by copy).
 *
 * Data grows up from the page after the header; 8-byte length slots grow down from the
 * extent's end. The file keeps at least as many erased bytes between the two as the slots
 * occupy, so a galloping search from the end always finds the first blank slot before it could
 * reach data. A copy's header names the committed extent it supersedes; it becomes the file only
 * when committed: for a closed file at once, for an open one at its next sync. Until then a cut
 * leaves the original (mount obsoletes the copy); after it, mount obsoletes the original.
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

/* Data bytes the extent may hold while keeping room for the next slot and its gap. */
uint32_t fs_room(const struct strata_fs_file *f)
{
    uint32_t need = 2 * FS_SLOT * ((uint32_t)f->slot + 1);
    return f->cap > need ? f->cap - need : 0;
}

/* Data area for `size` bytes: the size, 1/16 more and 8 slot pairs for commits. */
uint32_t fs_area_for(uint32_t size)
{
    return size > 0xF0000000u ? size : size + size / 16 + 16 * FS_SLOT;
}

static uint32_t slot_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t i)
{
    return fs_page_u(fs, f->page + f->pages) - FS_SLOT * (i + 1);
}

/* 7-bit check: bit 7 clear, so a slot cut before its last byte never checks, and a cut in the
 * last byte leaves a 1 that should be 0. Binds the slot to its extent and position. */
static uint8_t slot_check(const uint8_t *s, uint32_t seq, uint32_t i)
{
    uint8_t id[8];
    fs_put32(id, seq);
    fs_put32(id + 4, i);
    return (uint8_t)((strata_crc32(strata_crc32(0, s, 7), id, 8) ^ 0x4C) & 0x7F);
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
    return s[7] == slot_check(s, f->seq, i) ? 1 : 2;
}

/* Program the next slot (len, k, intent pages); 1 when the extent has no room for it (the
 * caller copies the file into a larger extent). */
static int slot_put(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t k,
                    uint32_t wd)
{
    uint8_t s[FS_SLOT];
    int rc = fs_find_clean(fs, f);
    if (rc != 0)
        return rc;
    if (f->clean + 2 * FS_SLOT * ((uint32_t)f->slot + 1) > f->cap || f->slot == 0xFFFF)
        return 1;
    fs_put16(s, len);
    s[2] = (uint8_t)(len >> 16);
    fs_put16(s + 3, k);
    fs_put16(s + 5, wd);
    s[7] = slot_check(s, f->seq, f->slot);
    if ((rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0)) != 0 ||
        (rc = fs_prog(fs, slot_u(fs, f, f->slot), s, FS_SLOT)) != 0)
        return rc;
    f->slot++;
    return 0;
}

/* D: the offset from which the data area is known erased and unlogged: past the last
 * programmed byte in [clen, intent) (a torn append may lie there after a cut) and past the
 * highest range with a log record (reads of a logged range never look at the extent). */
int fs_find_clean(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t top = fs_min(f->intent, f->cap - FS_SLOT * (uint32_t)f->slot), used = 0, logged;
    int rc = 0;
    if (f->clean != FS_NONE)
        return 0;
    if (top > f->clen)
        rc = fs_last_used(fs, fs_data_u(fs, f) + f->clen, top - f->clen, &used);
    if (rc == 0)
        rc = fs_log_top(fs, f, &logged);
    if (rc == 0)
        f->clean = f->clen + used > logged ? f->clen + used : logged;
    return rc;
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
    uint32_t grow = end - f->clen > page_size(fs) ? end - f->clen : page_size(fs);
    uint32_t wd = intent_pages(fs, f->clen, fs_min(fs_room(f), end + grow));
    int rc = end > fs_room(f) ? 1 : slot_put(fs, f, f->clen, f->kc, wd);
    if (rc == 0)
        f->intent = f->clen + wd * page_size(fs);
    return rc;
}

/* Number of written (non-blank) slots: gallop from the end, then bisect. The gap kept between
 * data and slots makes the first probe past the last slot land on an erased one. */
static int count_slots(const struct strata_fs *fs, struct strata_fs_file *f)
{
    uint8_t s[FS_SLOT];
    uint32_t max = fs_min(f->cap / FS_SLOT, 0xFFFF), lo = 0, hi = 1;
    int rc;
    f->slot = 0;
    if (max == 0)
        return 0;
    if ((rc = slot_read(fs, f, 0, s)) <= 0)
        return rc;
    while (hi < max && (rc = slot_read(fs, f, hi, s)) != 0) {
        if (rc < 0)
            return rc;
        lo = hi;
        hi = 2 * hi + 1;
    }
    hi = fs_min(hi, max);
    /* slot lo written, slot hi blank (or the end) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((rc = slot_read(fs, f, mid, s)) < 0)
            return rc;
        if (rc == 0)
            hi = mid;
        else
            lo = mid;
    }
    f->slot = (uint16_t)hi;
    return 0;
}

/* Load a live data extent's committed state into a handle. */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h)
{
    uint8_t s[FS_SLOT], raw[FS_HDR_MAX];
    struct fs_hdr lh;
    uint32_t i, wd = 0, kslot = 0;
    int rc;
    memset(f, 0, sizeof *f);
    f->page = f->base = h->page;
    f->pages = h->pages;
    f->seq = f->base_seq = h->seq;
    f->log_record = (uint16_t)(h->logrs ? h->logrs : fs->cfg.log_record);
    f->log_records = (uint16_t)(h->logn ? h->logn : fs->cfg.log_size / fs->cfg.log_record);
    f->cap = fs_page_u(fs, f->page + f->pages) - fs_data_u(fs, f);
    f->log = fs_link_read(fs, h->page, &rc);
    if (rc != 0)
        return rc;
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
    if ((rc = count_slots(fs, f)) != 0)
        return rc;
    for (i = f->slot; i-- > 0;) {
        if ((rc = slot_read(fs, f, i, s)) < 0)
            return rc;
        if (rc == 1) {
            f->clen = fs_get16(s) | (uint32_t)s[2] << 16;
            kslot = fs_get16(s + 3);
            wd = fs_get16(s + 5);
            break;
        }
    }
    if (f->clen > f->cap || kslot > f->log_records || (kslot > 0 && f->log >= FS_BAD))
        return STRATA_ECORRUPT;
    f->kc = (uint16_t)kslot;
    if (f->log < FS_BAD && (rc = fs_log_load(fs, f, kslot)) != 0)
        return rc;
    f->len = f->clen;
    f->k = f->kc;
    f->intent = f->clen + wd * page_size(fs);
    f->clean = FS_NONE;
    return 0;
}

/* Allocate and write the header of a new data extent with a data area of `area` bytes;
 * describe it in nf (page, pages, seq, cap). */
int fs_create(struct strata_fs *fs, const char *name, uint32_t nlen, uint32_t area,
              uint32_t logn, uint32_t logrs, uint32_t lpage, uint32_t lseq,
              struct strata_fs_file *nf)
{
    uint32_t d = fs_pages_for(fs, area);
    int rc;
    if (d >= fs->pages)
        return STRATA_ENOSPC;
    nf->pages = 1 + d;
    if ((rc = fs_alloc(fs, nf->pages, &nf->page)) != 0 ||
        (rc = fs_hdr_write(fs, nf->page, FS_T_DATA, nf->pages, logn, logrs, lpage, lseq, name,
                           nlen)) != 0)
        return rc;
    nf->seq = fs->seq;
    nf->cap = fs_page_u(fs, nf->page + nf->pages) - fs_page_u(fs, nf->page + 1);
    return 0;
}

/* Copy the file's current content, with ovl (may be NULL) written over it, into a new extent
 * with a data area of at least `area` bytes and that log configuration; the handle then
 * describes the (uncommitted) copy. */
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, uint32_t area, uint32_t logn,
               uint32_t logrs, const struct fs_span *ovl)
{
    uint8_t raw[FS_HDR_MAX], *b = fs->cfg.buffer;
    struct fs_hdr h;
    struct strata_fs_file nf;
    uint32_t nlen = 0, off, c, du, len = f->len;
    int rc = fs_hdr_read(fs, f->page, raw, &h);
    if (rc != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    while (nlen < fs->cfg.name_max && h.name[nlen] != 0)
        nlen++;
    if (ovl != NULL && ovl->off + ovl->n > len)
        len = ovl->off + ovl->n;
    if (area < len + 4 * FS_SLOT)
        area = fs_area_for(len);
    rc = fs_create(fs, (const char *)h.name, nlen, area, logn, logrs, f->base, f->base_seq, &nf);
    if (rc != 0)
        return rc;
    du = fs_page_u(fs, nf.page + 1);
    for (off = 0; off < len; off += c) {
        c = fs_min(len - off, fs->cfg.buffer_size);
        memset(b, 0xFF, c);
        if (off < f->len && (rc = fs_pread(fs, f, off, b, fs_min(c, f->len - off))) != 0)
            return rc;
        if (ovl != NULL && ovl->off < off + c && ovl->off + ovl->n > off) {
            uint32_t lo = ovl->off > off ? ovl->off : off;
            memcpy(b + (lo - off), ovl->p + (lo - ovl->off), fs_min(off + c, ovl->off + ovl->n) - lo);
        }
        if ((rc = fs_prog(fs, du + off, b, c)) != 0)
            return rc;
    }
    if (f->page != f->base && (rc = fs_obsolete(fs, f->page)) != 0)
        return rc; /* an earlier uncommitted copy: nobody will commit it now */
    f->page = nf.page;
    f->pages = nf.pages;
    f->seq = nf.seq;
    f->cap = nf.cap;
    f->log = FS_NONE;
    f->log_records = (uint16_t)logn;
    f->log_record = (uint16_t)logrs;
    f->k = f->kend = 0;
    f->slot = 0;
    f->len = len;
    f->clean = len;
    f->intent = len;
    f->state = (uint8_t)((f->state | ST_DIRTY) & ~ST_LOG_READY);
    return 0;
}

/* Commit. Only log records changed: mark the last entry (1 byte). Otherwise one length slot
 * (the commit point of an unmoved file); for a copy, its first slot, then its commit flag (the
 * commit point), then the original and its log become obsolete. */
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t ps = page_size(fs), grow, want, wd;
    int rc;
    if (!(f->state & ST_DIRTY))
        return 0;
    if (f->page == f->base && f->len == f->clen) {
        rc = f->k > f->kc ? fs_log_mark(fs, f) : 0;
        if (rc == 0) {
            f->kc = f->k;
            f->state &= (uint8_t)~ST_DIRTY;
        }
        return rc;
    }
    grow = f->len > f->clen && f->len - f->clen > ps ? f->len - f->clen : ps;
    want = fs_min(f->len + grow, fs_room(f));
    if (f->clean == FS_NONE ? f->intent > want : f->clean > want)
        want = f->clean == FS_NONE ? f->intent : f->clean;
    wd = intent_pages(fs, f->len, want);
    while ((rc = slot_put(fs, f, f->len, f->k, wd)) == 1)
        if ((rc = fs_rewrite(fs, f, f->cap > fs_area_for(f->len) ? f->cap : fs_area_for(f->len),
                             f->log_records, f->log_record, NULL)) != 0)
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
        rc = fs_rewrite(fs, &t, t.cap, logn, logrs, NULL);
    return rc ? rc : fs_commit(fs, &t);
}
