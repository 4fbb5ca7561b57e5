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

/* Data bytes an extent holds: from its header region to its end. */
static uint32_t cap_of(const struct strata_fs *fs, const struct fs_hdr *h)
{
    return fs_page_u(fs, h->page + h->f[HF_PAGES]) - fs_data_u(fs, h->page);
}

static uint32_t slot_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t i)
{
    return fs_data_u(fs, f->tail) + f->tail_cap - FS_SLOT * (i + 1);
}

/* Slot i of the extent at page: length (3 bytes), committed log entries (2), the low 16 bits of
 * a CRC-32 over those and the slot's place (they change for every single-byte change of the
 * five), then the count of zero bits among those 7 bytes. A cut leaves bits at 1 that should be
 * 0: fewer zeros and a count that only grows, so no torn slot checks; one damaged byte fails the
 * CRC or the count. With make, build it from (len, used) first. Returns 1 when it checks. */
static int slot_codec(uint8_t *s, uint32_t page, uint32_t i, int make, uint32_t len,
                      uint32_t used)
{
    uint8_t id[8];
    uint32_t z = 0, n, b, crc;
    if (make) {
        strata_put_le32(s, len);
        strata_put_le16(s + 3, used);
    }
    strata_put_le32(id, page);
    strata_put_le32(id + 4, i);
    crc = strata_crc32(strata_crc32(0, s, 5), id, 8) & 0xFFFF;
    if (make)
        strata_put_le16(s + 5, crc);
    for (n = 0; n < 7; n++)
        for (b = s[n] | 0x100u; b != 1; b >>= 1)
            z += !(b & 1);
    if (make)
        s[7] = (uint8_t)z;
    return s[7] == z && strata_get_le16(s + 5) == crc;
}

int fs_slot_ok(const uint8_t *s, uint32_t page, uint32_t i)
{
    return slot_codec((uint8_t *)(uintptr_t)s, page, i, 0, 0, 0);
}

/* Bytes at the tail's end kept for slots: those written, the next two (a commit and close's
 * seal) and a quarter more erased places, which the slot search relies on. */
static uint32_t slot_area(const struct strata_fs_file *f)
{
    uint32_t s = f->slots;
    return FS_SLOT * (s + 3 + (s + 1) / 4);
}

/* Data bytes the tail may hold (from its base) beside its slot area. */
uint32_t fs_room(const struct strata_fs_file *f)
{
    uint32_t need = slot_area(f);
    return f->tail_cap > need ? f->tail_cap - need : 0;
}

/* Pages of an extent holding its header region and `size` data bytes with 16 slot places
 * (about a dozen commits; then the file continues in another extent). */
static uint32_t pages_for(const struct strata_fs *fs, uint32_t size)
{
    return fs_pages_for(fs, fs->header_size + 16 * FS_SLOT + fs_min(size, 0xF0000000u));
}

/* A new empty data file with room for `size` bytes and that log configuration (0: the default);
 * h (NULL: not wanted) gets its header. */
int fs_new_file(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t size,
                uint32_t cfg)
{
    struct fs_hdr local;
    uint8_t s[FS_SLOT];
    int rc;
    h = h != NULL ? h : &local;
    memset(h->f, 0xFF, sizeof h->f);
    h->type = FS_T_DATA;
    h->f[HF_PAGES] = pages_for(fs, size);
    h->f[HF_CFG] = cfg;
    /* Its first slot place must be erased: stray bytes there (damage) could read as a committed
     * state the file never had (fuzz finding FS-2). Stray bytes elsewhere in the extent refuse
     * the append or slot programmed onto them (checked programs); only a slot forged further on
     * (random bytes pass its check with about 2^-22) could still mislead a later slot search. */
    if ((rc = fs_create(fs, h, name)) == 0 &&
        (rc = fs_read(fs, fs_page_u(fs, h->page + h->f[HF_PAGES]) - FS_SLOT, s, FS_SLOT)) == 0 &&
        !fs_blank(s, FS_SLOT) && (rc = fs_set_state(fs, h->page, 0)) == 0)
        rc = STRATA_ECORRUPT;
    if (rc == 0) {
        cfg = fs_name_hash(fs, (const uint8_t *)name);
        fs_names(fs->names, cfg, 1);
        fs_cache_put(fs, FS_NONE, cfg, h->page);
    }
    return rc;
}

static void set_tail(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h,
                     uint32_t base, uint32_t slots)
{
    f->tail = h->page;
    f->tail_base = base;
    f->tail_cap = cap_of(fs, h);
    f->slots = (uint16_t)slots;
    f->cursor_end = FS_BAD; /* the cursor's extent may have grown a continuation */
}

/* The tail's committed state: the first blank slot (probes 0, 1, 2, 3, 4, 6, 8, 11, ...: each a
 * quarter further, then bisection), then the last valid slot before it. Bytes a truncation or a
 * cut left past the committed length can fill the erased places the probes rely on; the search
 * then stops later (at most at the end of the tail), still past every slot written, so the last
 * valid slot is still the committed state, and the next commit, finding no room, grows the
 * chain (FS-14). */
static int load_slots(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint8_t s[FS_SLOT];
    uint32_t lo = 0, hi = f->tail_cap / FS_SLOT, p = 0, gallop = 1;
    int rc = 0;
    while (rc == 0 && lo < hi) {
        if (!gallop || p >= hi)
            p = lo + (hi - lo) / 2, gallop = 0;
        if ((rc = fs_read(fs, slot_u(fs, f, p), s, FS_SLOT)) == 0 && fs_blank(s, FS_SLOT))
            hi = p, gallop = 0;
        else
            lo = p + 1, p += p / 4 + 1;
    }
    f->slots = (uint16_t)fs_min(lo, 0xFFFF);
    while (rc == 0 && lo-- > 0)
        if ((rc = fs_read(fs, slot_u(fs, f, lo), s, FS_SLOT)) == 0 && fs_slot_ok(s, f->tail, lo)) {
            f->committed_len = strata_get_le32(s) & 0xFFFFFF;
            f->log_committed = (uint16_t)strata_get_le16(s + 3);
            break;
        }
    return rc;
}

/* The child (log or continuation) its owner (page, seq) links at `off`, into h: 1 when there is
 * one (valid, of the type the link implies, not obsolete, naming that owner, in a whole sector
 * at or after the pages its marker gives away), 0 when the link is blank or torn (a growth or
 * log creation that never finished: mount obsoletes what it pointed to), STRATA_ECORRUPT for
 * anything else. A child the walk cannot see (its sector dirty on a damaged image) would be
 * counted dead and erased under the open file by the next collection (fuzz finding FS-4). */
static int child_of(struct strata_fs *fs, uint32_t page, uint32_t seq, uint32_t off,
                    struct fs_hdr *h)
{
    uint32_t at, first = 0;
    int rc = fs_link(fs, page, off, &at);
    if (rc != 0 || at >= FS_BAD)
        return rc;
    if ((rc = fs_hdr_read(fs, at, h)) != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    if ((rc = fs_marker(fs, at / fs->pages_per_sector, &first)) < 0)
        return rc;
    return (rc & 1) && at % fs->pages_per_sector >= first && h->state != HS_OBSOLETE &&
                   h->f[HF_OWNER] == page &&
                   h->f[HF_OWNER_SEQ] == seq &&
                   h->type == (off == O_LOG(fs->cfg.name_max) ? FS_T_LOG : FS_T_CONT)
               ? 1
               : STRATA_ECORRUPT;
}

/* Load a live data file's committed state into a handle: its log, its continuation chain to the
 * tail, the tail's slots. */
int fs_load(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_hdr *h)
{
    struct fs_hdr c;
    uint32_t N = fs->cfg.name_max, cfg = h->f[HF_CFG], seq = h->f[HF_SEQ];
    int rc;
    memset(f, 0, sizeof *f);
    f->name_hash = (uint16_t)fs_name_hash(fs, h->name);
    f->page = f->committed_page = f->cursor = h->page;
    f->seq = f->committed_seq = seq;
    f->last_key = 0xFFFF;
    f->log = FS_NONE;
    set_tail(fs, f, h, 0, 0);
    if ((rc = child_of(fs, h->page, seq, O_LOG(N), &c)) == 1) {
        f->log = c.page;
        cfg = c.f[HF_CFG]; /* the log's own header holds the configuration it was made with */
    }
    f->log_record = (uint16_t)(cfg >> 16 ? cfg >> 16 : fs->cfg.log_record);
    f->log_records = (uint16_t)(cfg & 0xFFFF ? cfg : fs->cfg.log_size / fs->cfg.log_record);
    while (rc >= 0 && (rc = child_of(fs, f->tail, seq, O_NEXT(N), &c)) == 1 &&
           c.f[HF_CFG] >= f->tail_base) {
        seq = c.f[HF_SEQ];
        set_tail(fs, f, &c, c.f[HF_CFG], 0);
    }
    if (rc == 1 || (rc == 0 && (rc = load_slots(fs, f)) == 0 &&
                    (f->committed_len > f->tail_base + f->tail_cap ||
                     f->log_committed > f->log_records || f->log_record == 0 ||
                     f->log_records > 0x7FFF || (f->log_committed > 0 && f->log == FS_NONE))))
        rc = STRATA_ECORRUPT;
    if (rc == 0 && f->log != FS_NONE)
        rc = fs_log_load(fs, f);
    f->len = f->committed_len;
    f->log_used = f->log_committed;
    f->data_end = FS_NONE;
    return rc;
}

/* Point the cursor at the extent holding file offset off: [cursor_base, cursor_end), where
 * FS_BAD is "not read yet" and FS_NONE "to the end of the file". */
static int seek_extent(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off)
{
    uint32_t next;
    uint8_t b[4];
    int rc = 0;
    if (off < f->cursor_base) {
        f->cursor = f->page;
        f->cursor_base = 0;
        f->cursor_end = FS_BAD;
    }
    while (rc == 0 && (f->cursor_end == FS_BAD || off >= f->cursor_end)) {
        next = FS_NONE;
        if (f->cursor != f->tail)
            rc = fs_link(fs, f->cursor, O_NEXT(fs->cfg.name_max), &next);
        if (f->cursor_end != FS_BAD) { /* off lies past this extent: step to the next */
            f->cursor = next;
            f->cursor_base = f->cursor_end;
            f->cursor_end = FS_BAD;
        } else {
            f->cursor_end = FS_NONE;
            if (rc == 0 && next < FS_BAD &&
                (rc = fs_read(fs, fs_page_u(fs, next) + O_FIELDS + 4 * HF_CFG, b, 4)) == 0)
                f->cursor_end = strata_get_le32(b);
        }
    }
    return rc;
}

/* Read [off, off+n) of the file's current content: the extents' bytes (nothing past the tail's
 * end: a copy reads only what is on flash), then every log record over the range, oldest
 * first, so the newest wins. Each extent holds its share of the file ([base, next base)): the
 * growth keeps it so (FS-17). */
int fs_pread(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off, uint8_t *buf,
             uint32_t n)
{
    uint32_t at, c, top, end = f->tail_base + f->tail_cap;
    int rc = 0;
    for (at = off; rc == 0 && at < off + n; at += c) {
        if ((rc = seek_extent(fs, f, at)) != 0 || (f->cursor == f->tail && at >= end))
            break;
        c = fs_min(fs_min(off + n, f->cursor_end), end) - at;
        rc = fs_read(fs, fs_data_u(fs, f->cursor) + at - f->cursor_base, buf + (at - off), c);
    }
    return rc == 0 && f->log_used > 0 ? fs_log_scan(fs, f, off, buf, n, &top) : rc;
}

/* Allocate and write the header of a child extent h (type, pages and cfg set) owned by
 * (owner, seq): a micro log or a continuation. */
int fs_child(struct strata_fs *fs, struct fs_hdr *h, uint32_t owner, uint32_t seq)
{
    h->f[HF_OWNER] = owner;
    h->f[HF_OWNER_SEQ] = seq;
    h->f[HF_REPLACES] = h->f[HF_REPLACES_SEQ] = FS_NONE;
    return fs_create(fs, h, NULL);
}

/* Continue the file in a new extent for `need` bytes at file offset `at` (at or past every
 * committed and programmed byte): as large as the file so far (so a chain stays short), at
 * least that, halving towards it when nothing so large is free. Its base (the file offset it
 * starts at) is `at`, but never past the tail's end: where the micro log raised the in-place
 * end beyond the tail (a record larger than the tail's room), the new extent holds the bytes
 * between too (left erased: the log's records hold them), so that every extent holds exactly
 * its share of the file, [base, next base), as reads assume (fuzz finding FS-17: they read the
 * share past the tail's pages, beyond the region's end when the tail was its last page). Its
 * first slot restates the committed state; the link from the tail is the commit point. */
int fs_grow(struct strata_fs *fs, struct strata_fs_file *f, uint32_t at, uint32_t need)
{
    struct fs_hdr h;
    uint8_t s[FS_SLOT];
    uint32_t base = fs_min(at, f->tail_base + f->tail_cap), seq;
    uint32_t min = pages_for(fs, need + at - base), pages = fs_max(min, pages_for(fs, base));
    int rc;
    if ((rc = fs_hdr_read(fs, f->tail, &h)) != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    seq = h.f[HF_SEQ];
    h.type = FS_T_CONT;
    h.f[HF_CFG] = base;
    for (;; pages = fs_max(min, pages / 2)) {
        h.f[HF_PAGES] = pages;
        if ((rc = fs_child(fs, &h, f->tail, seq)) != STRATA_ENOSPC || pages == min)
            break;
    }
    if (rc == 0) {
        slot_codec(s, h.page, 0, 1, f->committed_len, f->log_committed);
        if ((rc = fs_prog(fs, fs_data_u(fs, h.page) + cap_of(fs, &h) - FS_SLOT, s, FS_SLOT)) ==
                0 &&
            (rc = fs_link_write(fs, f->tail, O_NEXT(fs->cfg.name_max), h.page)) == 0)
            set_tail(fs, f, &h, base, 1);
        else if (rc == STRATA_ECORRUPT && (rc = fs_set_state(fs, h.page, 0)) == 0)
            rc = STRATA_ECORRUPT; /* never linked: gone now rather than at mount (a power cut
                                     there is STRATA_EPOWER, never lost: FS-16) */
    }
    return rc;
}

/* Program the tail's next `copies` length slots (len, used) in one program (two: a commit and
 * close's seal, identical so that either survives damage to the other). FS_COPY when the tail
 * has no room for them or their place is not erased. The slot area and the data must fit the
 * tail together: fs_room alone reads 0 both for a tail just full and for one whose slot area
 * is larger than the tail, where slots would be programmed before its data area, over its
 * header's links (fuzz finding FS-14: bytes a truncation or a cut left past the committed
 * length fill the erased places the search relies on, so it counts every place as a slot). */
int fs_put_slot(struct strata_fs *fs, struct strata_fs_file *f, uint32_t len, uint32_t used,
                uint32_t copies)
{
    uint8_t s[2 * FS_SLOT];
    uint32_t end = fs_max(f->data_end == FS_NONE ? f->committed_len : f->data_end, f->tail_base);
    int rc;
    if (f->slots >= 0xFFF0 || end - f->tail_base + slot_area(f) > f->tail_cap)
        return FS_COPY;
    slot_codec(s + FS_SLOT, f->tail, f->slots, 1, len, used);
    slot_codec(s, f->tail, f->slots + 1u, 1, len, used);
    if ((rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0)) == 0 &&
        (rc = fs_prog(fs, slot_u(fs, f, f->slots + copies - 1), s + FS_SLOT * (2 - copies),
                      FS_SLOT * copies)) == 0)
        f->slots = (uint16_t)(f->slots + copies);
    return rc == STRATA_ECORRUPT ? FS_COPY : rc;
}

/* Length slots, growing the chain when the tail cannot take them (FS_COPY for a copy not yet
 * committed, which never grows, or a tail that cannot link a continuation: copy instead). */
static int put_slot_grow(struct strata_fs *fs, struct strata_fs_file *f, uint32_t copies)
{
    uint32_t end = fs_max(f->data_end == FS_NONE ? f->committed_len : f->data_end, f->tail_base);
    int rc;
    while ((rc = fs_put_slot(fs, f, f->len, f->log_used, copies)) == FS_COPY &&
           f->page == f->committed_page)
        if ((rc = fs_grow(fs, f, end, 0)) != 0)
            return rc == STRATA_ECORRUPT ? FS_COPY : rc;
    return rc;
}

/* Commit; with seal (close), the last slot is written twice. Only log records changed (one
 * written by this handle last) and no seal: mark the last entry. Otherwise length slots (the
 * commit point); for a copy, its first slots, then the extents it supersedes become obsolete.
 * A sealed commit of nothing new writes the seal alone when this handle committed since it was
 * opened. */
int fs_commit(struct strata_fs *fs, struct strata_fs_file *f, int seal)
{
    uint32_t old = f->committed_page, copies = seal ? 2 : 1;
    int rc = fs_flush(fs, f), same = f->page == old && f->len == f->committed_len;
    if (rc == 0 && (!(f->state & FF_DIRTY) || (same && f->log_used == f->log_committed))) {
        f->state &= (uint8_t)~FF_DIRTY;
        if (!seal || !(f->state & FF_COMMITTED))
            return 0;
        copies = 1; /* the seal alone */
    }
    if (rc == 0 && same && !seal && f->last_key != 0xFFFF) {
        rc = fs_log_mark(fs, f);
    } else if (rc == 0) {
        if ((rc = put_slot_grow(fs, f, copies)) == FS_COPY &&
            (rc = fs_rewrite(fs, f, NULL, NULL)) == 0)
            rc = fs_put_slot(fs, f, f->len, f->log_used, copies);
        if (rc == 0 && f->page != old)
            rc = fs_commit_copy(fs, f, 0);
    }
    if (rc == 0) {
        f->committed_len = f->len;
        f->log_committed = f->log_used;
        f->state = (uint8_t)((f->state & ~(FF_DIRTY | FF_COMMITTED)) | (seal ? 0 : FF_COMMITTED));
    }
    return rc;
}

/* The commit of a copy: its first length slots (the commit point; none when copies is 0: the
 * caller wrote them), then the extents it supersedes become obsolete. Never grows a chain: a
 * fresh copy has room for its slots (FS_COPY reads as damage). */
int fs_commit_copy(struct strata_fs *fs, struct strata_fs_file *f, uint32_t copies)
{
    uint32_t old = f->committed_page;
    int rc = copies ? fs_put_slot(fs, f, f->len, f->log_used, copies) : 0;
    if (rc == FS_COPY)
        rc = STRATA_ECORRUPT;
    if (rc == 0 && (rc = fs_obsolete(fs, old)) == 0) {
        fs_cache_put(fs, old, f->name_hash, f->page);
        f->committed_page = f->page;
        f->committed_seq = f->seq;
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
    int rc = 0;
    for (a = from; rc == 0 && a < to; a = e) {
        e = fs_min(to, a + fs->cfg.buffer_size);
        hi = fs_min(e, f->len);
        memset(b, 0xFF, (size_t)(e - a));
        if (a < hi && (s->off > a || send < hi) && (rc = fs_pread(fs, f, a, b, hi - a)) != 0)
            break;
        if (s->off < e && send > a) {
            lo = fs_max(a, s->off);
            memcpy(b + (lo - a), s->p + (lo - s->off), (size_t)(fs_min(e, send) - lo));
        }
        rc = fs_prog(fs, dst + a, b, e - a);
    }
    return rc;
}

/* Copy the file's current content, with the span s (NULL: none) written over it, into a new
 * extent sized for its length: by what the file holds, never by the extent it leaves (a file
 * copied again and again keeps its size; a reservation it had not filled is given back, the
 * file continues in another extent if it grows again). The handle then describes the
 * (uncommitted) copy; nothing may be buffered. tpl (NULL: nothing changes): see struct fs_tpl. */
int fs_rewrite(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s,
               const struct fs_tpl *tpl)
{
    static const struct fs_span nothing = {NULL, 0, 0};
    static const struct fs_tpl same = {FS_NONE, FS_NONE, FS_NONE, NULL};
    struct fs_hdr h;
    uint32_t len;
    int rc;
    s = s != NULL ? s : &nothing;
    tpl = tpl != NULL ? tpl : &same;
    len = fs_max(f->len, s->n > 0 ? s->off + s->n : 0);
    h.type = FS_T_DATA;
    h.f[HF_PAGES] = pages_for(fs, len);
    h.f[HF_CFG] = tpl->cfg != FS_NONE ? tpl->cfg : f->log_records | (uint32_t)f->log_record << 16;
    h.f[HF_OWNER] = f->committed_page;
    h.f[HF_OWNER_SEQ] = f->committed_seq;
    h.f[HF_REPLACES] = tpl->replaces;
    h.f[HF_REPLACES_SEQ] = tpl->replaces_seq;
    if ((rc = fs_create(fs, &h, tpl->name)) != 0 ||
        (rc = fs_copy(fs, f, 0, len, fs_data_u(fs, h.page), s)) != 0 ||
        (f->page != f->committed_page && (rc = fs_obsolete(fs, f->page)) != 0))
        return rc; /* (an earlier uncommitted copy: nobody will commit it now) */
    if (tpl->name != NULL) /* a rename: the namespace gains the name */
        fs_names(fs->names,
                 f->name_hash = (uint16_t)fs_name_hash(fs, (const uint8_t *)tpl->name), 1);
    f->page = f->cursor = h.page;
    f->seq = h.f[HF_SEQ];
    set_tail(fs, f, &h, 0, 0);
    f->cursor_base = 0;
    f->log = FS_NONE;
    f->log_records = (uint16_t)h.f[HF_CFG];
    f->log_record = (uint16_t)(h.f[HF_CFG] >> 16);
    f->log_used = f->log_end = 0;
    f->len = f->data_end = len;
    f->state = (uint8_t)((f->state | FF_DIRTY) & ~FF_LOG_READY);
    return 0;
}

/* Load the closed file whose first extent is at page. (Not static: the header it reads lives in
 * a frame that is gone before the copy runs.) */
int fs_load_at(struct strata_fs *fs, struct strata_fs_file *f, uint32_t page)
{
    struct fs_hdr h;
    int rc = fs_hdr_read(fs, page, &h);
    return rc == HDR_VALID && fs_live(&h) ? fs_load(fs, f, &h) : rc < 0 ? rc : STRATA_ECORRUPT;
}

/* Copy a closed file (cleaning, reconfiguration, rename) and commit, sealed; tpl: see
 * fs_rewrite. */
int fs_rewrite_closed(struct strata_fs *fs, uint32_t page, const struct fs_tpl *tpl)
{
    struct strata_fs_file t;
    int rc = fs_load_at(fs, &t, page);
    if (rc == 0 && (rc = fs_rewrite(fs, &t, NULL, tpl)) == 0)
        rc = fs_commit_copy(fs, &t, 2); /* sealed: the copy is closed */
    return rc;
}
