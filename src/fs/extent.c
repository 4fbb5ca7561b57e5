/*
 * A data file's extents: loading its committed state, length slots, the chain of continuations a
 * growing file links, commits, and copies into a new extent (merge, reconfiguration, rename,
 * cleaning).
 *
 * A file is its first extent (the header with the name) and the continuations linked from it,
 * each holding the file offsets from its base to the next one's. Data grows up from the header
 * region; 8-byte length slots grow down from the end of the chain's last extent (the tail). The
 * tail keeps a quarter more erased slot places than it has slots, so the first blank slot is
 * found by probing a quarter further each time, then bisecting. A copy's header names the first
 * extent it supersedes; it becomes the file when its first slot is written: for a closed file at
 * once, for an open one at its next sync. A copy never grows a chain before that.
 */
#include "fs_internal.h"

static const struct fs_span nothing = {NULL, 0, 0};

/* Data bytes an extent of that header holds: from its header region to its end. */
static uint32_t cap_of(const struct strata_fs *fs, const struct fs_hdr *h)
{
    return fs_page_u(fs, h->page + h->f[HF_PAGES]) - fs_data_u(fs, h->page);
}

static uint32_t slot_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t i)
{
    return fs_data_u(fs, f->tail) + f->tail_cap - FS_SLOT * (i + 1);
}

static uint32_t zeros(const uint8_t *p, uint32_t n)
{
    uint32_t z = 0, b;
    while (n-- > 0)
        for (b = p[n] | 0x100u; b != 1; b >>= 1)
            z += !(b & 1);
    return z;
}

/* The low 16 bits of a CRC-32 over the slot's length and count and its place (page, index):
 * they change for every single-byte change of those five bytes. */
static uint32_t slot_crc(const uint8_t *s, uint32_t page, uint32_t i)
{
    uint8_t id[8];
    strata_put_le32(id, page);
    strata_put_le32(id + 4, i);
    return strata_crc32(strata_crc32(0, s, 5), id, 8) & 0xFFFF;
}

/* A slot: length (3 bytes), committed log entries (2), CRC (2), zero bits of those 7 (1). A cut
 * leaves bits at 1 that should be 0: fewer zeros, a count that only grows, so no torn slot
 * checks; one damaged byte fails the CRC or the count. */
static void slot_make(uint8_t *s, uint32_t len, uint32_t used, uint32_t page, uint32_t i)
{
    strata_put_le32(s, len);
    strata_put_le16(s + 3, used);
    strata_put_le16(s + 5, slot_crc(s, page, i));
    s[7] = (uint8_t)zeros(s, 7);
}

int fs_slot_ok(const uint8_t *s, uint32_t page, uint32_t i)
{
    return s[7] == zeros(s, 7) && strata_get_le16(s + 5) == slot_crc(s, page, i);
}

/* Data bytes the tail may hold (from its base) while keeping the erased slot places the search
 * relies on: the next slot and a quarter more than the slots there will then be. */
uint32_t fs_room(const struct strata_fs_file *f)
{
    uint32_t s = f->slots, need = FS_SLOT * (s + 2 + s / 4);
    return f->tail_cap > need ? f->tail_cap - need : 0;
}

/* Pages of an extent holding `bytes` of data after its header region. */
static uint32_t pages_for_data(const struct strata_fs *fs, uint32_t bytes)
{
    return fs_pages_for(fs, fs->header_size + fs_min(bytes, 0xF0000000u));
}

/* Data area for `size` bytes: the size and 16 slot places (about 12 commits; then the file
 * continues in another extent). */
uint32_t fs_area_for(uint32_t size)
{
    return size > 0xF0000000u ? size : size + 16 * FS_SLOT;
}

/* A new empty data file with room for `size` bytes and that log configuration (0: the default);
 * h gets its header. */
int fs_new_file(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen,
                uint32_t size, uint32_t cfg)
{
    int rc;
    memset(h, 0, sizeof *h);
    h->type = FS_T_DATA;
    h->f[HF_PAGES] = pages_for_data(fs, fs_area_for(size));
    h->f[HF_CFG] = cfg;
    h->f[HF_OWNER] = h->f[HF_OWNER_SEQ] = h->f[HF_REPLACES] = h->f[HF_REPLACES_SEQ] = FS_NONE;
    if ((rc = fs_create(fs, h, name, nlen)) == 0)
        fs_cache_put(fs, FS_NONE, fs_name_hash((const uint8_t *)name, nlen), h->page);
    return rc;
}

/* The file offset where in-place data ends: nothing programmed in place lies past it. */
static uint32_t data_end(const struct strata_fs_file *f)
{
    return fs_max(f->data_end == FS_NONE ? f->committed_len : f->data_end, f->tail_base);
}

static void set_tail(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h,
                     uint32_t base)
{
    f->tail = h->page;
    f->tail_base = base;
    f->tail_cap = cap_of(fs, h);
    f->slots = 0;
    f->cursor_end = FS_BAD; /* the cursor's extent may have grown a continuation */
}

/* The tail's committed state: the first blank slot (probes 0, 1, 2, 3, 4, 6, 8, 11, ...: each a
 * quarter further, then bisection), then the last valid slot before it. */
static int load_slots(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint8_t s[FS_SLOT];
    uint32_t lo = 0, hi = f->tail_cap / FS_SLOT, p = 0, gallop = 1;
    int rc;
    while (lo < hi) {
        if (!gallop || p >= hi) {
            gallop = 0;
            p = lo + (hi - lo) / 2;
        }
        if ((rc = fs_read(fs, slot_u(fs, f, p), s, FS_SLOT)) != 0)
            return rc;
        if (fs_blank(s, FS_SLOT)) {
            hi = p;
            gallop = 0;
        } else {
            lo = p + 1;
            p += p / 4 + 1;
        }
    }
    f->slots = (uint16_t)fs_min(lo, 0xFFFF);
    while (lo-- > 0) {
        if ((rc = fs_read(fs, slot_u(fs, f, lo), s, FS_SLOT)) != 0)
            return rc;
        if (fs_slot_ok(s, f->tail, lo)) {
            f->committed_len = strata_get_le32(s) & 0xFFFFFF;
            f->log_committed = (uint16_t)strata_get_le16(s + 3);
            break;
        }
    }
    return 0;
}

/* Follow the file's continuation links to its tail (each continuation must name its owner and
 * start no earlier than it). A link that does not read (torn: the growth never finished) ends
 * the chain; mount obsoletes what it pointed to. */
static int load_chain(struct strata_fs *fs, struct strata_fs_file *f, uint32_t seq)
{
    struct fs_hdr h;
    uint32_t next;
    int rc;
    while ((rc = fs_link(fs, f->tail, O_NEXT(fs->cfg.name_max), &next)) == 0 && next < FS_BAD) {
        if ((rc = fs_hdr_read(fs, next, &h)) < 0)
            return rc;
        if (rc != HDR_VALID || h.type != FS_T_CONT || h.state == HS_OBSOLETE ||
            h.f[HF_OWNER] != f->tail || h.f[HF_OWNER_SEQ] != seq || h.f[HF_CFG] < f->tail_base)
            return STRATA_ECORRUPT;
        seq = h.f[HF_SEQ];
        set_tail(fs, f, &h, h.f[HF_CFG]);
    }
    return rc;
}

/* Load a live data file's committed state into a handle. */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h)
{
    struct fs_hdr lh;
    uint32_t N = fs->cfg.name_max, cfg = h->f[HF_CFG], seq = h->f[HF_SEQ];
    uint32_t hash = fs_name_hash(h->name, fs_name_len(fs, h->name));
    int rc;
    memset(f, 0, sizeof *f);
    f->name_hash = (uint16_t)hash;
    f->page = f->committed_page = f->cursor = h->page;
    f->seq = f->committed_seq = seq;
    set_tail(fs, f, h, 0);
    if ((rc = fs_link(fs, h->page, O_LOG(N), &f->log)) != 0)
        return rc;
    if (f->log < FS_BAD) {
        /* the log's own header holds the configuration it was made with */
        if ((rc = fs_hdr_read(fs, f->log, &lh)) < 0)
            return rc;
        cfg = lh.f[HF_CFG];
        if (rc != HDR_VALID || lh.type != FS_T_LOG || lh.f[HF_OWNER] != h->page ||
            lh.f[HF_OWNER_SEQ] != seq || lh.state == HS_OBSOLETE || (cfg & 0xFFFF) == 0 ||
            (cfg & 0xFFFF) > 0x7FFF || cfg >> 16 == 0)
            return STRATA_ECORRUPT;
    }
    f->log_record = (uint16_t)(cfg >> 16 ? cfg >> 16 : fs->cfg.log_record);
    f->log_records = (uint16_t)(cfg & 0xFFFF ? cfg : fs->cfg.log_size / fs->cfg.log_record);
    if ((rc = load_chain(fs, f, seq)) != 0 || (rc = load_slots(fs, f)) != 0)
        return rc;
    if (f->committed_len > f->tail_base + f->tail_cap || f->log_committed > f->log_records ||
        (f->log_committed > 0 && f->log >= FS_BAD))
        return STRATA_ECORRUPT;
    if (f->log < FS_BAD && (rc = fs_log_load(fs, f)) != 0)
        return rc;
    f->len = f->committed_len;
    f->log_used = f->log_committed;
    f->data_end = FS_NONE;
    f->cursor_end = FS_BAD;
    return 0;
}

/* Point the cursor at the extent holding file offset off: [cursor_base, cursor_end), where
 * FS_BAD is "not read yet" and FS_NONE "to the end of the file". */
static int seek_extent(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off)
{
    uint32_t next, N = fs->cfg.name_max;
    uint8_t b[4];
    int rc;
    if (off < f->cursor_base) {
        f->cursor = f->page;
        f->cursor_base = 0;
        f->cursor_end = FS_BAD;
    }
    while (f->cursor_end == FS_BAD || off >= f->cursor_end) {
        next = FS_NONE;
        if (f->cursor != f->tail && (rc = fs_link(fs, f->cursor, O_NEXT(N), &next)) != 0)
            return rc;
        if (f->cursor_end != FS_BAD) { /* off lies past this extent: step to the next */
            f->cursor = next;
            f->cursor_base = f->cursor_end;
            f->cursor_end = FS_BAD;
            continue;
        }
        f->cursor_end = FS_NONE;
        if (next < FS_BAD) {
            if ((rc = fs_read(fs, fs_page_u(fs, next) + O_FIELDS + 4 * HF_CFG, b, 4)) != 0)
                return rc;
            f->cursor_end = strata_get_le32(b);
        }
    }
    return 0;
}

/* Read [off, off+n) of the file's current content: the extents' bytes, then every log record
 * over the range, oldest first, so the newest wins. */
int fs_pread(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off, uint8_t *buf,
             uint32_t n)
{
    uint32_t at, c, top;
    int rc;
    for (at = 0; at < n; at += c) {
        if ((rc = seek_extent(fs, f, off + at)) != 0)
            return rc;
        c = fs_min(n - at, f->cursor_end - (off + at));
        if ((rc = fs_read(fs, fs_data_u(fs, f->cursor) + off + at - f->cursor_base, buf + at,
                          c)) != 0)
            return rc;
    }
    return f->log_used > 0 ? fs_log_scan(fs, f, off, buf, n, &top) : 0;
}

/* Continue the file in a new extent holding the file offsets from `base` (at or past every
 * committed and programmed byte): as large as the file so far (so a chain stays short), at
 * least `need` bytes, halving towards that when nothing so large is free. Its first slot
 * restates the committed state; the link from the tail is the commit point. */
int fs_grow(struct strata_fs *fs, struct strata_fs_file *f, uint32_t base, uint32_t need)
{
    struct fs_hdr h;
    uint8_t s[FS_SLOT];
    uint32_t min = pages_for_data(fs, fs_area_for(need)), pages = fs_max(min, pages_for_data(fs, base));
    int rc;
    if ((rc = fs_hdr_read(fs, f->tail, &h)) != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    h.type = FS_T_CONT;
    h.f[HF_CFG] = base;
    h.f[HF_OWNER] = f->tail;
    h.f[HF_OWNER_SEQ] = h.f[HF_SEQ];
    h.f[HF_REPLACES] = h.f[HF_REPLACES_SEQ] = FS_NONE;
    for (;;) {
        h.f[HF_PAGES] = pages;
        if ((rc = fs_create(fs, &h, NULL, 0)) != STRATA_ENOSPC || pages <= min)
            break;
        pages = fs_max(min, pages / 2);
    }
    if (rc != 0)
        return rc;
    slot_make(s, f->committed_len, f->log_committed, h.page, 0);
    rc = fs_prog(fs, fs_data_u(fs, h.page) + cap_of(fs, &h) - FS_SLOT, s, FS_SLOT);
    if (rc == 0)
        rc = fs_link_write(fs, f->tail, O_NEXT(fs->cfg.name_max), h.page);
    if (rc != 0)
        return rc == STRATA_ECORRUPT && fs_set_state(fs, h.page, 0) == 0 ? STRATA_ECORRUPT : rc;
    set_tail(fs, f, &h, base);
    f->slots = 1;
    return 0;
}

/* Program the tail's next length slot (len, used). When the tail has no room for it or its place
 * is not erased: grow the chain (FS_COPY for a copy not yet committed: copy it again instead). */
int fs_put_slot(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t used)
{
    uint8_t s[FS_SLOT];
    uint32_t end = data_end(f);
    int rc;
    for (;;) {
        if (f->slots < 0xFFFF && end - f->tail_base <= fs_room(f)) {
            slot_make(s, len, used, f->tail, f->slots);
            if ((rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0)) == 0)
                rc = fs_prog(fs, slot_u(fs, f, f->slots), s, FS_SLOT);
            if (rc == 0)
                f->slots++;
            if (rc != STRATA_ECORRUPT)
                return rc;
        }
        /* a copy not yet committed never grows; a tail that cannot link one is copied too */
        if (f->page != f->committed_page || (rc = fs_grow(fs, f, end, 0)) == STRATA_ECORRUPT)
            return FS_COPY;
        if (rc != 0)
            return rc;
    }
}

/* Commit. Only log records changed: mark the last entry. Otherwise one length slot (the commit
 * point); for a copy, its first slot, then the extents it supersedes become obsolete. */
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t old = f->committed_page;
    int rc = fs_flush(fs, f);
    if (rc != 0 || !(f->state & FF_DIRTY))
        return rc;
    if (f->page == old && f->len == f->committed_len) {
        if (f->log_used > f->log_committed)
            rc = fs_log_mark(fs, f);
    } else {
        if ((rc = fs_put_slot(fs, f, f->len, f->log_used)) == FS_COPY &&
            (rc = fs_rewrite(fs, f, 0, NULL, NULL, NULL, 0)) == 0)
            rc = fs_put_slot(fs, f, f->len, f->log_used);
        if (rc == FS_COPY)
            rc = STRATA_ECORRUPT;
        if (rc == 0 && f->page != old && (rc = fs_obsolete(fs, old)) == 0) {
            fs_cache_put(fs, old, f->name_hash, f->page);
            f->committed_page = f->page;
            f->committed_seq = f->seq;
        }
    }
    if (rc == 0) {
        f->committed_len = f->len;
        f->log_committed = f->log_used;
        f->state = (uint8_t)((f->state & ~FF_DIRTY) | FF_COMMITTED);
    }
    return rc;
}

/* Program bytes [from, to) of the file's current content, with the span s written over it, at
 * usable address dst + offset. Bytes at or past the end of the file that s does not cover stay
 * erased; a chunk s covers whole is not read (a record-sized write through a tuned log). */
int fs_copy(struct strata_fs *fs, struct strata_fs_file *f, uint32_t from, uint32_t to,
            uint32_t dst, const struct fs_span *s)
{
    uint8_t *b = fs->cfg.buffer;
    uint32_t a, e, hi, lo, send = s->off + s->n;
    int rc;
    for (a = from; a < to; a = e) {
        e = fs_min(to, a + fs->cfg.buffer_size);
        hi = fs_min(e, f->len);
        memset(b, 0xFF, e - a);
        if (a < hi && (s->off > a || send < hi) && (rc = fs_pread(fs, f, a, b, hi - a)) != 0)
            return rc;
        if (s->off < e && send > a) {
            lo = fs_max(a, s->off);
            memcpy(b + (lo - a), s->p + (lo - s->off), fs_min(e, send) - lo);
        }
        if ((rc = fs_prog(fs, dst + a, b, e - a)) != 0)
            return rc;
    }
    return 0;
}

/* Copy the file's current content, with the span s (NULL: none) written over it, into a new
 * extent with a data area of at least `area` bytes, fs_area_for its length and as many pages as
 * its committed first extent (a copy never grows a file that does not); the handle then
 * describes the (uncommitted) copy; nothing may be buffered. tpl (NULL: the file's) gives the copy's log configuration
 * (HF_CFG, FS_NONE: the file's) and the rename target it replaces; name (NULL: the file's). */
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, uint32_t area,
               const struct fs_span *s, const struct fs_hdr *tpl, const char *name, uint32_t nlen)
{
    struct fs_hdr h;
    uint32_t len = f->len, cfg = f->log_records | (uint32_t)f->log_record << 16;
    int rc;
    if (s == NULL)
        s = &nothing;
    if (s->n > 0 && s->off + s->n > len)
        len = s->off + s->n;
    if ((rc = fs_hdr_read(fs, f->committed_page, &h)) != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    h.f[HF_PAGES] = fs_max(h.f[HF_PAGES], pages_for_data(fs, fs_max(area, fs_area_for(len))));
    h.f[HF_CFG] = tpl != NULL && tpl->f[HF_CFG] != FS_NONE ? tpl->f[HF_CFG] : cfg;
    h.f[HF_OWNER] = f->committed_page;
    h.f[HF_OWNER_SEQ] = f->committed_seq;
    h.f[HF_REPLACES] = tpl != NULL ? tpl->f[HF_REPLACES] : FS_NONE;
    h.f[HF_REPLACES_SEQ] = tpl != NULL ? tpl->f[HF_REPLACES_SEQ] : FS_NONE;
    if ((rc = fs_create(fs, &h, name, nlen)) != 0 ||
        (rc = fs_copy(fs, f, 0, len, fs_data_u(fs, h.page), s)) != 0)
        return rc;
    if (f->page != f->committed_page && (rc = fs_obsolete(fs, f->page)) != 0)
        return rc; /* an earlier uncommitted copy: nobody will commit it now */
    if (name != NULL)
        f->name_hash = (uint16_t)fs_name_hash((const uint8_t *)name, nlen);
    f->page = f->cursor = h.page;
    f->seq = h.f[HF_SEQ];
    set_tail(fs, f, &h, 0);
    f->cursor_base = 0;
    f->log = FS_NONE;
    f->log_records = (uint16_t)h.f[HF_CFG];
    f->log_record = (uint16_t)(h.f[HF_CFG] >> 16);
    f->log_used = f->log_end = 0;
    f->len = f->data_end = len;
    f->state = (uint8_t)((f->state | FF_DIRTY) & ~FF_LOG_READY);
    return 0;
}

/* Copy a closed file (cleaning, reconfiguration, rename) and commit; tpl, name: see fs_rewrite.
 * h (the file's header) then gives the copy's page and sequence number. */
int fs_rewrite_closed(struct strata_fs *fs, struct fs_hdr *h, const struct fs_hdr *tpl,
                      const char *name, uint32_t nlen)
{
    struct strata_fs_file t;
    int rc = fs_load(fs, &t, h);
    if (rc == 0)
        rc = fs_rewrite(fs, &t, 0, NULL, tpl, name, nlen);
    if (rc == 0)
        rc = fs_commit(fs, &t);
    h->page = t.page;
    h->f[HF_SEQ] = t.seq;
    return rc;
}
