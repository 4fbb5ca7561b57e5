/*
 * Micro logs (paper §3.6). A log extent holds an index table of R 4-byte entries and R records of
 * rs bytes; record j belongs to entry j. An entry is key, ~key (keys below 2^15): a cut or one
 * damaged byte leaves it invalid, never another key. Bit 15 of the complement is the commit mark
 * (cleared by a sync that changed only log records). A write programs the record, then its
 * entry, so an entry never points at unwritten data. Entries past the committed ones are ignored
 * after a cut and voided (00 00 00 00) by the next writer; a record place a cut left programmed
 * fails the program check and is voided too.
 */
#include "fs_internal.h"

#define KEY_LIMIT 0x7FFFu
#define NO_KEY 0xFFFFu

/* Pages of a log's header region and index: its records start on the page after them. */
static uint32_t index_pages(const struct strata_fs *fs, uint32_t records)
{
    return fs_pages_for(fs, fs->header_size + FS_ENTRY * records);
}

static uint32_t entry_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_data_u(fs, f->log) + FS_ENTRY * j;
}

static uint32_t record_u(const struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    return fs_page_u(fs, f->log + index_pages(fs, f->log_records)) + j * f->log_record;
}

/* An entry's key, or FS_NONE when it does not check. */
uint32_t fs_entry_key(const uint8_t *e)
{
    uint32_t key = strata_get_le16(e), comp = strata_get_le16(e + 2);
    return key <= KEY_LIMIT && ((key ^ comp) & KEY_LIMIT) == KEY_LIMIT ? key : FS_NONE;
}

/* Scan the entries among [0, log_used) in order: raise *top to the end of each one's range and,
 * with buf (file bytes [off, off+n)), copy the part of its record that overlaps it, so that the
 * newest record of a range is applied last. These entries are whole or voided (00 00 00 00): a
 * cut never leaves one torn there, so any other is damage (STRATA_ECORRUPT). */
int fs_log_scan(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off, uint8_t *buf,
                uint32_t n, uint32_t *top)
{
    uint8_t b[8 * FS_ENTRY];
    uint32_t rs = f->log_record, j, i, c;
    int rc = 0;
    *top = 0;
    for (j = 0; f->log < FS_BAD && j < f->log_used; j += c) {
        c = fs_min(f->log_used - j, 8);
        rc = fs_read(fs, entry_u(fs, f, j), b, c * FS_ENTRY);
        for (i = 0; rc == 0 && i < c; i++) {
            uint32_t key = fs_entry_key(b + i * FS_ENTRY), a = key * rs;
            uint32_t lo = fs_max(a, off), hi = fs_min(a + rs, off + n);
            if (key == FS_NONE) {
                rc = strata_get_le32(b + i * FS_ENTRY) != 0 ? STRATA_ECORRUPT : 0;
                continue;
            }
            *top = fs_max(*top, a + rs);
            if (buf != NULL && lo < hi)
                rc = fs_read(fs, record_u(fs, f, j + i) + (lo - a), buf + (lo - off), hi - lo);
        }
        if (rc != 0)
            break;
    }
    return rc;
}

static int entry_void(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t j)
{
    static const uint8_t zero[FS_ENTRY];
    return fs_prog_over(fs, entry_u(fs, f, j), zero, FS_ENTRY);
}

/* Allocate the log extent, then link it from the file's header (a cut between leaves an orphan
 * log that mount obsoletes). A file without a log has log_used = 0. */
static int log_create(struct strata_fs *fs, struct strata_fs_file *f)
{
    struct fs_hdr h;
    uint32_t n = f->log_records, rs = f->log_record;
    int rc;
    h.type = FS_T_LOG;
    h.f[HF_PAGES] = index_pages(fs, n) + fs_pages_for(fs, n * rs);
    h.f[HF_CFG] = n | rs << 16;
    if ((rc = fs_child(fs, &h, f->page, f->seq)) != 0)
        return rc;
    /* a link field a cut or damage left programmed: the log goes, the caller copies instead
     * (unless that program fails too: a power cut there is STRATA_EPOWER, FS-16) */
    if ((rc = fs_link_write(fs, f->page, O_LOG(fs->cfg.name_max), h.page)) != 0)
        return rc != STRATA_ECORRUPT || (rc = fs_set_state(fs, h.page, 0)) != 0 ? rc : FS_COPY;
    f->log = h.page;
    f->state |= FF_LOG_READY;
    return 0;
}

/* At open: the first blank entry (binary search: entries are written in order) and the committed
 * entries: past the length slot's count, up to the last valid marked one. */
int fs_log_load(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint8_t e[FS_ENTRY];
    uint32_t lo = f->log_committed, hi = f->log_records, j;
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
    f->log_end = (uint16_t)lo;
    f->last_key = NO_KEY;
    for (j = lo; j-- > f->log_committed;) {
        if ((rc = fs_read(fs, entry_u(fs, f, j), e, FS_ENTRY)) != 0)
            return rc;
        if (fs_entry_key(e) != FS_NONE && !(e[3] & 0x80)) {
            f->log_committed = (uint16_t)(j + 1);
            break;
        }
    }
    return 0;
}

/* Commit the log records of this sync: mark the last entry, which this handle wrote (a torn mark
 * reads either way, and everything it commits was complete before). */
int fs_log_mark(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint8_t m = (uint8_t)(~(uint32_t)f->last_key >> 8 & 0x7F);
    int rc = fs_dev(fs, DEV_SYNC, 0, NULL, 0);
    return rc ? rc : fs_prog_over(fs, entry_u(fs, f, f->log_used - 1u) + 3, &m, 1);
}

/* First write since the file was opened: void the uncommitted entries a cut left. */
static int log_prepare(struct strata_fs *fs, struct strata_fs_file *f)
{
    uint32_t j;
    int rc;
    for (j = f->log_committed; j < f->log_end; j++)
        if ((rc = entry_void(fs, f, j)) != 0)
            return rc;
    f->log_used = f->log_end;
    f->last_key = NO_KEY; /* the last entry is a void */
    f->state |= FF_LOG_READY;
    return 0;
}

/* Write s (inside one record) through the micro log: the record is the file's current content
 * of its range with s written over it (bytes past the end of the file and of s are not
 * programmed), then its entry. FS_COPY: the log is full or unusable, the caller merges. */
int fs_log_put(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s)
{
    uint8_t e[FS_ENTRY];
    uint32_t rs = f->log_record, key = s->off / rs, a = key * rs, end = s->off + s->n;
    int rc = 0;
    if (f->log == FS_NONE) {
        if ((rc = log_create(fs, f)) == FS_COPY)
            f->log = FS_BAD;
    } else if (f->log != FS_BAD && !(f->state & FF_LOG_READY)) {
        rc = log_prepare(fs, f);
    }
    while (rc == 0) {
        if (f->log >= FS_BAD || f->log_used >= f->log_records || key > KEY_LIMIT)
            return FS_COPY;
        rc = fs_copy(fs, f, a, fs_min(a + rs, fs_max(f->len, end)),
                     record_u(fs, f, f->log_used) - a, s);
        strata_put_le16(e, key);
        strata_put_le16(e + 2, ~key);
        if (rc == 0)
            rc = fs_prog(fs, entry_u(fs, f, f->log_used), e, FS_ENTRY);
        if (rc != STRATA_ECORRUPT)
            break;
        /* the place was not erased (a cut before its entry, or damage): void it, take the next */
        if ((rc = entry_void(fs, f, f->log_used)) == 0)
            f->log_used++;
    }
    if (rc != 0)
        return rc;
    f->last_key = (uint16_t)key;
    f->log_used++;
    f->data_end = fs_max(f->data_end, a + rs);
    return 0;
}
