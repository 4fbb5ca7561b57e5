/*
 * Micro logs (paper §3.6). A log extent holds an index table of R 4-byte entries (key, check,
 * commit mark) and R records of rs bytes; record j belongs to entry j. A write programs the
 * record, then its entry, so a cut never leaves an entry pointing at unwritten data. A sync
 * that changed only log records commits by marking its last entry. Entries past the committed
 * ones are ignored after a cut and voided by the next writer, whose first slot is
 * blank-checked.
 */
#include "fs_internal.h"

static uint32_t records_at(const struct strata_fs *fs, uint32_t n)
{
    uint32_t ps = fs->cfg.flash->geo.page_size;
    return (fs->hdr + FS_ENTRY * n + ps - 1) / ps * ps;
}

static uint32_t entry_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_page_u(fs, f->log) + fs->hdr + FS_ENTRY * j;
}

static uint32_t record_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_page_u(fs, f->log) + records_at(fs, f->log_records) + j * f->log_record;
}

/* Scan the valid entries among [0, k) in order: raise *top to the end of each one's range and,
 * with buf (file bytes [off, off+n)), copy the part of its record that overlaps it, so that the
 * newest record of a range is applied last. */
static int scan(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off,
                uint8_t *buf, uint32_t n, uint32_t *top)
{
    uint8_t b[16 * FS_ENTRY];
    uint32_t rs = f->log_record, j, i;
    *top = 0;
    for (j = 0; f->log < FS_BAD && j < f->k; j += 16) {
        uint32_t c = fs_min(f->k - j, 16);
        int rc = fs_read(fs, entry_u(fs, f, j), b, c * FS_ENTRY);
        for (i = 0; rc == 0 && i < c; i++) {
            uint32_t key = strata_get_le16(b + i * FS_ENTRY), a = key * rs;
            uint32_t lo = a > off ? a : off, hi = fs_min(a + rs, off + n);
            if (b[i * FS_ENTRY + 2] != fs_entry_check(key))
                continue;
            if (a + rs > *top)
                *top = a + rs;
            if (buf != NULL && lo < hi)
                rc = fs_read(fs, record_u(fs, f, j + i) + (lo - a), buf + (lo - off), hi - lo);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Copy over buf (file bytes [off, off+n)) every record that overlaps it, newest last. */
int fs_log_overlay(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off,
                   uint8_t *buf, uint32_t n)
{
    uint32_t top;
    return scan(fs, f, off, buf, n, &top);
}

/* End of the highest file range with a log record among [0, k): data may be programmed in
 * place only above it, since a read of a logged range never looks at the extent. */
int fs_log_top(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t *top)
{
    return scan(fs, f, 0, NULL, 0, top);
}

static int entry_void(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_zero(fs, entry_u(fs, f, j), FS_ENTRY);
}

/* Allocate the log extent, then link it from the file's header (a cut between leaves an orphan
 * log that mount obsoletes). R and rs are never 0 (headers say 0 for the defaults); the keys
 * of the extent's records must fit 16 bits. A file without a log has k = 0. */
static int log_create(struct strata_fs *fs, struct strata_fs_file *f)
{
    struct fs_hdr h;
    uint32_t n = f->log_records, rs = f->log_record;
    int rc;
    if ((f->cap + rs - 1) / rs > 0xFFFE)
        return STRATA_EINVAL;
    h.type = FS_T_LOG;
    h.pages = fs_pages_for(fs, records_at(fs, n) + n * rs);
    h.cfg = n | rs << 16;
    h.lpage = f->page;
    h.lseq = f->seq;
    if ((rc = fs_create(fs, &h, NULL, 0)) != 0 || (rc = fs_link_write(fs, f->page, h.page)) != 0)
        return rc;
    f->log = h.page;
    f->state |= ST_LOG_READY;
    return 0;
}

/* At open: the committed entries (past the length slot's count, up to the last valid marked
 * one) and the first blank entry (binary search: entries are written in order). */
int fs_log_load(struct strata_fs *fs, struct strata_fs_file *f, uint32_t kslot)
{
    uint8_t e[FS_ENTRY];
    uint32_t lo = kslot, hi = f->log_records, j;
    int rc;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((rc = fs_read(fs, entry_u(fs, f, mid), e, FS_ENTRY)) != 0)
            return rc;
        if (fs_blank(e, FS_ENTRY))
            hi = mid;
        else
            lo = mid + 1;
    }
    f->kend = (uint16_t)lo;
    for (j = lo; j-- > kslot;) {
        if ((rc = fs_read(fs, entry_u(fs, f, j), e, FS_ENTRY)) != 0)
            return rc;
        if (e[2] == fs_entry_check(strata_get_le16(e)) && e[3] != 0xFF) {
            f->kc = (uint16_t)(j + 1);
            break;
        }
    }
    return 0;
}

/* Commit the log records of this sync: mark the last entry (any torn state reads as marked,
 * and everything it commits was complete before). */
int fs_log_mark(struct strata_fs *fs, struct strata_fs_file *f)
{
    int rc = fs_dev(fs, DEV_SYNC, 0, NULL, FS_NONE);
    return rc ? rc : fs_zero(fs, entry_u(fs, f, f->k - 1u) + 3, 1);
}

/* First write since the file was opened: void the uncommitted entries, and those past them
 * whose record slot a cut left half-written, up to the first free slot. */
static int log_prepare(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t j, used;
    int rc;
    for (j = f->kc; j < f->log_records; j++) {
        if (j >= f->kend) {
            if ((rc = fs_last_used(fs, record_u(fs, f, j), f->log_record, &used)) != 0)
                return rc;
            if (used == 0)
                break;
        }
        if ((rc = entry_void(fs, f, j)) != 0)
            return rc;
    }
    f->k = (uint16_t)j;
    f->state |= ST_LOG_READY;
    return 0;
}

/* Write s (inside one record) through the micro log: the record is the file's current content
 * of its range with s written over it (bytes past the end of the file and of s are not
 * programmed), then its entry. 0 done; 2 the caller must merge instead. */
int fs_log_put(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s)
{
    uint8_t e[FS_ENTRY - 1];
    uint32_t rs = f->log_record, key = s->off / rs, a = key * rs, end = s->off + s->n;
    int rc = 0;
    if (f->log == FS_NONE)
        rc = log_create(fs, f);
    else if (f->log != FS_BAD && !(f->state & ST_LOG_READY))
        rc = log_prepare(fs, f);
    if (rc != 0)
        return rc;
    if (f->log == FS_BAD || f->k >= f->log_records)
        return 2; /* unusable link or full log: merge (a copy with this write folded in) */
    rc = fs_copy(fs, f, a, fs_min(a + rs, f->len > end ? f->len : end),
                 record_u(fs, f, f->k) - a, s);
    if (rc != 0)
        return rc;
    strata_put_le16(e, key);
    e[2] = (uint8_t)fs_entry_check(key);
    if ((rc = fs_prog(fs, entry_u(fs, f, f->k), e, FS_ENTRY - 1)) != 0)
        return rc;
    f->k++;
    if (f->clean < a + rs)
        f->clean = a + rs;
    return 0;
}
