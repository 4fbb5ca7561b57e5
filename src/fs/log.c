/*
 * Micro logs (paper §3.6). A log extent holds an index table of R 4-byte entries (key, check,
 * commit mark) and R records of rs bytes; record j belongs to entry j. A write programs the
 * record, then its entry, so a cut never leaves an entry pointing at unwritten data. A sync
 * that changed only log records commits by marking its last entry. Entries past the committed
 * ones are ignored after a cut and voided by the next writer, whose first slot is
 * blank-checked.
 */
#include "fs_internal.h"

static uint32_t page_size(const struct strata_fs *fs)
{
    return fs->cfg.flash->geo.page_size;
}

static uint32_t records_at(const struct strata_fs *fs, uint32_t n)
{
    uint32_t ps = page_size(fs);
    return (fs->hdr + FS_ENTRY * n + ps - 1) / ps * ps;
}

static uint32_t entry_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_page_u(fs, f->log) + fs->hdr + FS_ENTRY * j;
}

uint32_t fs_log_record_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_page_u(fs, f->log) + records_at(fs, f->log_records) + j * f->log_record;
}

/* Copy over buf (file bytes [off, off+n)) every record among entries [0, k) that overlaps it,
 * in entry order: the newest record of a range is applied last. */
int fs_log_overlay(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off,
                   uint8_t *buf, uint32_t n)
{
    uint8_t b[16 * FS_ENTRY];
    uint32_t rs = f->log_record, j, i;
    for (j = 0; j < f->k; j += 16) {
        uint32_t c = fs_min(f->k - j, 16);
        int rc = fs_read(fs, entry_u(fs, f, j), b, c * FS_ENTRY);
        if (rc != 0)
            return rc;
        for (i = 0; i < c; i++) {
            uint32_t key = fs_get16(b + i * FS_ENTRY), a = key * rs;
            uint32_t lo = a > off ? a : off, hi = fs_min(a + rs, off + n);
            if (b[i * FS_ENTRY + 2] != fs_entry_check(key) || lo >= hi)
                continue;
            rc = fs_read(fs, fs_log_record_u(fs, f, j + i) + (lo - a), buf + (lo - off), hi - lo);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* End of the highest file range with a log record among [0, k): data may be programmed in
 * place only above it, since a read of a logged range never looks at the extent. */
int fs_log_top(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t *top)
{
    uint8_t b[16 * FS_ENTRY];
    uint32_t j, i;
    *top = 0;
    for (j = 0; f->log < FS_BAD && j < f->k; j += 16) {
        uint32_t c = fs_min(f->k - j, 16);
        int rc = fs_read(fs, entry_u(fs, f, j), b, c * FS_ENTRY);
        if (rc != 0)
            return rc;
        for (i = 0; i < c; i++) {
            uint32_t key = fs_get16(b + i * FS_ENTRY);
            if (b[i * FS_ENTRY + 2] == fs_entry_check(key) && (key + 1) * f->log_record > *top)
                *top = (key + 1) * f->log_record;
        }
    }
    return 0;
}

static int entry_void(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_zero(fs, entry_u(fs, f, j), FS_ENTRY);
}

/* Allocate the log extent, then link it from the file's header (a cut between leaves an orphan
 * log that mount obsoletes). */
static int log_create(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t n = f->log_records, rs = f->log_record, page;
    uint32_t bytes = records_at(fs, n) + n * rs;
    int rc;
    if (n == 0 || rs == 0 || (f->cap + rs - 1) / rs > 0xFFFE)
        return STRATA_EINVAL;
    rc = fs_alloc(fs, fs_pages_for(fs, bytes), &page);
    if (rc == 0)
        rc = fs_hdr_write(fs, page, FS_T_LOG, fs_pages_for(fs, bytes), n, rs, f->page, f->seq,
                          NULL, 0);
    if (rc == 0)
        rc = fs_link_write(fs, f->page, page);
    if (rc != 0)
        return rc;
    f->log = page;
    f->k = f->kend = 0;
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
        if (e[2] == fs_entry_check(fs_get16(e)) && e[3] != 0xFF) {
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
    int rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0);
    return rc ? rc : fs_zero(fs, entry_u(fs, f, f->k - 1u) + 3, 1);
}

/* First write since the file was opened: void uncommitted entries, skip a slot whose record a
 * cut left half-written, and find the first free slot. */
static int log_prepare(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t lo = f->kend, used, j;
    int rc;
    for (j = f->kc; j < lo; j++)
        if ((rc = entry_void(fs, f, j)) != 0)
            return rc;
    for (; lo < f->log_records; lo++) {
        if ((rc = fs_last_used(fs, fs_log_record_u(fs, f, lo), f->log_record, &used)) != 0)
            return rc;
        if (used == 0)
            break;
        if ((rc = entry_void(fs, f, lo)) != 0)
            return rc;
    }
    f->k = (uint16_t)lo;
    f->state |= ST_LOG_READY;
    return 0;
}

/* Program record k for key `key` as the file's current content of that range with [off, off+n)
 * replaced; bytes past the end of the file (and of the new data) are not programmed. */
static int put_record(struct strata_fs *fs, struct strata_fs_file *f, uint32_t key,
                      uint32_t off, const uint8_t *buf, uint32_t n)
{
    uint8_t *b = fs->cfg.buffer;
    uint32_t rs = f->log_record, a = key * rs, end = off + n;
    uint32_t top = fs_min(a + rs, f->len > end ? f->len : end);
    uint32_t rec = fs_log_record_u(fs, f, f->k) - a;
    int rc;
    for (; a < top; a += fs->cfg.buffer_size) {
        uint32_t e = fs_min(top, a + fs->cfg.buffer_size);
        uint32_t e1 = fs_min(fs_min(off, f->len), e), s2 = a > end ? a : end;
        uint32_t e2 = fs_min(e, f->len);
        memset(b, 0xFF, e - a);
        if (a < e1 && (rc = fs_pread(fs, f, a, b, e1 - a)) != 0)
            return rc;
        if (s2 < e2 && (rc = fs_pread(fs, f, s2, b + (s2 - a), e2 - s2)) != 0)
            return rc;
        if (off < e && end > a) {
            uint32_t lo = a > off ? a : off;
            memcpy(b + (lo - a), buf + (lo - off), fs_min(e, end) - lo);
        }
        if ((rc = fs_prog(fs, rec + a, b, e - a)) != 0)
            return rc;
    }
    return 0;
}

/* Write [off, off+n) (inside one record) through the micro log. 0 done; 1 the file moved to a
 * new extent (merge), retry; <0 error. */
int fs_log_put(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off, const uint8_t *buf,
               uint32_t n)
{
    uint8_t e[FS_ENTRY - 1];
    uint32_t key = off / f->log_record;
    int rc;
    if (f->log == FS_BAD || (f->log != FS_NONE && f->k >= f->log_records &&
                             (f->state & ST_LOG_READY))) {
        /* unusable link or full log: merge into a fresh extent */
        rc = fs_rewrite(fs, f, f->cap, f->log_records, f->log_record, NULL);
        return rc ? rc : 1;
    }
    if (f->log == FS_NONE)
        rc = log_create(fs, f);
    else
        rc = (f->state & ST_LOG_READY) ? 0 : log_prepare(fs, f);
    if (rc != 0)
        return rc;
    if (f->k >= f->log_records)
        return fs_log_put(fs, f, off, buf, n); /* full after preparing: merges (depth 1) */
    if ((rc = put_record(fs, f, key, off, buf, n)) != 0)
        return rc;
    fs_put16(e, key);
    e[2] = (uint8_t)fs_entry_check(key);
    if ((rc = fs_prog(fs, entry_u(fs, f, f->k), e, FS_ENTRY - 1)) != 0)
        return rc;
    f->k++;
    if (f->clean < (key + 1) * f->log_record)
        f->clean = (key + 1) * f->log_record;
    return 0;
}
