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

/* The handle's current extent: page, size, sequence number and data area. */
static void set_extent(const struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h)
{
    f->page = h->page;
    f->pages = h->pages;
    f->seq = h->seq;
    f->cap = fs_page_u(fs, h->page + h->pages) - fs_data_u(fs, f);
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
    strata_put_le32(id, seq);
    strata_put_le32(id + 4, i);
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

/* Program the next length slot (len, k, intent) with an intent reaching about twice the growth
 * since the last commit past `to` (and never below what may already be programmed). 1 when the
 * extent has no room for `to` or for the slot: the caller copies the file first. Used to
 * restate the committed state before appending past the intent, and to commit. */
static int put_state(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t k,
                     uint32_t to)
{
    uint8_t s[FS_SLOT];
    uint32_t ps = page_size(fs), room = fs_room(f);
    uint32_t grow = to > f->clen && to - f->clen > ps ? to - f->clen : ps;
    uint32_t want = fs_min(to + grow, room), wd;
    int rc = fs_find_clean(fs, f);
    if (rc != 0)
        return rc;
    if (f->clean > want)
        want = f->clean;
    if ((to > f->clean ? to : f->clean) + 2 * FS_SLOT * ((uint32_t)f->slot + 1) > f->cap ||
        f->slot == 0xFFFF)
        return 1;
    wd = fs_min(want > len ? (want - len + ps - 1) / ps : 0, 0xFFFF);
    strata_put_le16(s, len);
    s[2] = (uint8_t)(len >> 16);
    strata_put_le16(s + 3, k);
    strata_put_le16(s + 5, wd);
    s[7] = slot_check(s, f->seq, f->slot);
    if ((rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0)) != 0 ||
        (rc = fs_prog(fs, slot_u(fs, f, f->slot), s, FS_SLOT)) != 0)
        return rc;
    f->slot++;
    f->intent = len + wd * ps;
    return 0;
}

/* Before programming data in place up to `end` past the durable intent: restate the committed
 * state with a larger intent (about doubling the uncommitted span). 1: copy needed first. */
int fs_intent(struct strata_fs *fs, struct strata_fs_file *f, uint32_t end)
{
    return put_state(fs, f, f->clen, f->kc, end);
}

/* Load a live data extent's committed state into a handle. The first blank slot is found by
 * galloping (slots 0, 1, 3, 7, ...) then bisecting; the committed state is the last valid slot
 * before it. */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, struct fs_hdr *h)
{
    uint8_t s[FS_SLOT];
    struct fs_hdr lh;
    uint32_t lo = 0, hi, p, gallop = 1, wd = 0, cfg = h->cfg;
    int rc;
    memset(f, 0, sizeof *f);
    set_extent(fs, f, h);
    f->base = h->page;
    f->base_seq = h->seq;
    if ((rc = fs_link_read(fs, h)) != 0)
        return rc;
    f->log = h->log;
    if (f->log < FS_BAD) {
        /* the log's own header holds the configuration it was made with */
        rc = fs_hdr_read(fs, f->log, &lh);
        if (rc < 0)
            return rc;
        cfg = lh.cfg;
        if (rc != HDR_VALID || lh.type != FS_T_LOG || lh.lpage != h->page ||
            lh.lseq != h->seq || lh.obsolete || (cfg & 0xFFFF) == 0 || cfg >> 16 == 0)
            return STRATA_ECORRUPT;
    }
    f->log_record = (uint16_t)(cfg >> 16 ? cfg >> 16 : fs->cfg.log_record);
    f->log_records = (uint16_t)(cfg & 0xFFFF ? cfg : fs->cfg.log_size / fs->cfg.log_record);
    /* slots below lo are written (valid or torn), slot hi is blank or the end */
    hi = fs_min(f->cap / FS_SLOT, 0xFFFF);
    while (lo < hi) {
        p = !gallop ? lo + (hi - lo) / 2 : lo ? 2 * lo - 1 : 0;
        if (p >= hi) {
            gallop = 0;
            continue;
        }
        if ((rc = slot_read(fs, f, p, s)) < 0)
            return rc;
        if (rc != 0) {
            lo = p + 1;
        } else {
            hi = p;
            gallop = 0;
        }
    }
    f->slot = (uint16_t)lo;
    while (lo-- > 0) {
        if ((rc = slot_read(fs, f, lo, s)) < 0)
            return rc;
        if (rc == 1) {
            f->clen = strata_get_le16(s) | (uint32_t)s[2] << 16;
            f->kc = (uint16_t)strata_get_le16(s + 3);
            wd = strata_get_le16(s + 5);
            break;
        }
    }
    if (f->clen > f->cap || f->kc > f->log_records || (f->kc > 0 && f->log >= FS_BAD))
        return STRATA_ECORRUPT;
    if (f->log < FS_BAD && (rc = fs_log_load(fs, f, f->kc)) != 0)
        return rc;
    f->len = f->clen;
    f->k = f->kc;
    f->intent = f->clen + wd * page_size(fs);
    f->clean = FS_NONE;
    return 0;
}

/* Allocate h->pages pages and write the header h describes there (type, pages, log
 * configuration, lpage/lseq); sets h->page and h->seq. Name: see fs_hdr_write. */
int fs_create(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen)
{
    int rc = fs_alloc(fs, h->pages, &h->page);
    return rc ? rc : fs_hdr_write(fs, h, name, nlen);
}

/* A new data file: header in h, room for `size` bytes, that log configuration (R | rs << 16;
 * 0: the default). */
int fs_create_file(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen,
                   uint32_t size, uint32_t cfg)
{
    memset(h, 0, sizeof *h);
    h->type = FS_T_DATA;
    h->pages = 1 + fs_pages_for(fs, fs_area_for(size));
    h->cfg = cfg;
    h->lpage = h->lseq = FS_NONE;
    return fs_create(fs, h, name, nlen);
}

const struct fs_span fs_nothing = {NULL, FS_NONE, 0};

/* Program bytes [from, to) of the file's current content, with the span s written over it, at
 * usable address base + offset. Bytes at or past the end of the file that s does not cover stay
 * erased. Per chunk: the extent's bytes around s (those under s are not read: a record-sized
 * write through a tuned log reads nothing), then one pass over the log index. */
int fs_copy(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t from, uint32_t to,
            uint32_t base, const struct fs_span *s)
{
    uint8_t *b = fs->cfg.buffer;
    uint32_t a, e, lo, hi, du = fs_data_u(fs, f), send = s->off + s->n;
    int rc;
    for (a = from; a < to; a = e) {
        e = fs_min(to, a + fs->cfg.buffer_size);
        hi = fs_min(e, f->len);
        lo = fs_min(s->off, hi);
        memset(b, 0xFF, e - a);
        if (a < lo || (send > a ? send : a) < hi) {
            if (a < lo && (rc = fs_read(fs, du + a, b, lo - a)) != 0)
                return rc;
            lo = a > send ? a : send;
            if (lo < hi && (rc = fs_read(fs, du + lo, b + (lo - a), hi - lo)) != 0)
                return rc;
            if (f->k > 0 && (rc = fs_log_overlay(fs, f, a, b, hi - a)) != 0)
                return rc;
        }
        if (s->off < e && send > a) {
            lo = a > s->off ? a : s->off;
            memcpy(b + (lo - a), s->p + (lo - s->off), fs_min(e, send) - lo);
        }
        if ((rc = fs_prog(fs, base + a, b, e - a)) != 0)
            return rc;
    }
    return 0;
}

/* Copy the file's current content, with the span s (NULL: none) written over it, into a new
 * extent with a data area of at least `area` bytes (and of fs_area_for its length); the handle
 * then describes the
 * (uncommitted) copy. cfg: the copy's log configuration as R | rs << 16 (0: default),
 * FS_NONE to keep the file's. */
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, uint32_t area,
               const struct fs_span *s, uint32_t cfg)
{
    struct fs_hdr h;
    uint32_t len = f->len;
    int rc;
    if (s == NULL)
        s = &fs_nothing;
    if (s->n > 0 && s->off + s->n > len)
        len = s->off + s->n;
    if (area < fs_area_for(len))
        area = fs_area_for(len);
    if (cfg == FS_NONE)
        cfg = f->log_records | (uint32_t)f->log_record << 16;
    h.type = FS_T_DATA;
    h.pages = 1 + fs_pages_for(fs, area);
    h.cfg = cfg;
    h.lpage = f->base;
    h.lseq = f->base_seq;
    if ((rc = fs_create(fs, &h, NULL, 0)) != 0 ||
        (rc = fs_copy(fs, f, 0, len, fs_page_u(fs, h.page + 1), s)) != 0)
        return rc;
    if (f->page != f->base && (rc = fs_obsolete(fs, f->page)) != 0)
        return rc; /* an earlier uncommitted copy: nobody will commit it now */
    set_extent(fs, f, &h);
    f->log = FS_NONE;
    f->log_records = (uint16_t)cfg;
    f->log_record = (uint16_t)(cfg >> 16);
    f->k = f->kend = f->slot = 0;
    f->len = f->clean = f->intent = len;
    f->state = (uint8_t)((f->state | ST_DIRTY) & ~ST_LOG_READY);
    return 0;
}

/* Commit. Only log records changed: mark the last entry (1 byte). Otherwise one length slot
 * (the commit point of an unmoved file); for a copy, its first slot, then its commit flag (the
 * commit point), then the original and its log become obsolete. */
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f)
{
    int rc = 0;
    if (!(f->state & ST_DIRTY))
        return 0;
    if (f->page == f->base && f->len == f->clen) {
        if (f->k > f->kc)
            rc = fs_log_mark(fs, f);
    } else {
        while ((rc = put_state(fs, f, f->len, f->k, f->len)) == 1)
            if ((rc = fs_rewrite(fs, f, f->cap, NULL, FS_NONE)) != 0)
                return rc;
        if (rc == 0 && f->page != f->base) {
            if ((rc = fs_flag(fs, f->page, O_COMMIT(fs->cfg.name_max))) != 0 ||
                (rc = fs_obsolete(fs, f->base)) != 0)
                return rc;
            f->base = f->page;
            f->base_seq = f->seq;
        }
    }
    if (rc == 0) {
        f->clen = f->len;
        f->kc = f->k;
        f->state &= (uint8_t)~ST_DIRTY;
    }
    return rc;
}

/* Copy a closed file (cleaning, reconfiguration, rename of a renamed extent) and commit; h
 * then gives the copy's page and sequence number (and no rename slot). */
int fs_rewrite_closed(struct strata_fs *fs, struct fs_hdr *h, uint32_t cfg)
{
    struct strata_fs_file t;
    int rc = fs_load(fs, &t, h);
    if (rc == 0)
        rc = fs_rewrite(fs, &t, t.cap, NULL, cfg);
    if (rc == 0)
        rc = fs_commit(fs, &t);
    h->page = t.page;
    h->seq = t.seq;
    h->renamed = 0;
    return rc;
}
