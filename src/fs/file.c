/*
 * Open files: open/close, the read path, writes (in place at the end, through the micro log
 * elsewhere), seek, sync, truncate.
 *
 * `clean` (D, see fs_find_clean) is the data offset from which the extent is known to be
 * erased and unlogged. Data is programmed in place only at offsets >= D; everything below goes
 * through the micro log.
 */
#include "fs_internal.h"

/* f is one of the context's open handles, opened with (at least) the flags `need`. */
static int handle_ok(const struct strata_fs *fs, const struct strata_fs_file *f, unsigned need)
{
    const struct strata_fs_file *o;
    if (fs == NULL || !fs->mounted)
        return 0;
    for (o = fs->open; o != NULL; o = o->next)
        if (o == f)
            return (f->flags & need) == need;
    return 0;
}

int strata_fs_open(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                   unsigned flags)
{
    struct fs_walk w;
    uint32_t nlen;
    int rc;
    if (flags & STRATA_FS_APPEND)
        flags |= STRATA_FS_WRITE;
    if (f == NULL || (flags & ~31u) != 0 || !(flags & (STRATA_FS_READ | STRATA_FS_WRITE)) ||
        handle_ok(fs, f, 0))
        return STRATA_EINVAL;
    rc = fs_find(fs, name, &nlen, &w);
    if (rc == 0 && (flags & STRATA_FS_CREATE) && (flags & STRATA_FS_EXCL))
        return STRATA_EEXIST;
    if (rc == 0 && fs_opened(fs, w.h.page) != NULL)
        return STRATA_EBUSY;
    if (rc == STRATA_ENOENT && (flags & STRATA_FS_CREATE))
        rc = fs_create_file(fs, &w.h, name, nlen, fs->cfg.default_size, 0);
    if (rc != 0)
        return rc;
    if ((rc = fs_load(fs, f, &w.h)) != 0)
        return rc;
    f->flags = (uint8_t)flags;
    f->next = fs->open;
    fs->open = f;
    return 0;
}

int strata_fs_close(struct strata_fs *fs, struct strata_fs_file *f)
{
    struct strata_fs_file **p;
    int rc;
    if (!handle_ok(fs, f, 0))
        return STRATA_EBADF;
    rc = fs_commit(fs, f);
    for (p = &fs->open; *p != f; p = &(*p)->next)
        ;
    *p = f->next;
    return rc;
}

/* Read [off, off+n) of the file's current content: the extent's bytes, then every log record
 * over the range, oldest first, so the newest wins. Bytes the extent holds as garbage (a torn
 * append) are always under a record: writes there go through the log. */
int fs_pread(struct strata_fs *fs, const struct strata_fs_file *f, uint32_t off, uint8_t *buf,
             uint32_t n)
{
    int rc = fs_read(fs, fs_data_u(fs, f) + off, buf, n);
    return rc == 0 && f->k > 0 ? fs_log_overlay(fs, f, off, buf, n) : rc;
}

int32_t strata_fs_read(struct strata_fs *fs, struct strata_fs_file *f, void *buf, uint32_t n)
{
    int rc;
    if (!handle_ok(fs, f, STRATA_FS_READ))
        return STRATA_EBADF;
    if (buf == NULL && n > 0)
        return STRATA_EINVAL;
    n = fs_min(n, f->len - f->pos); /* pos <= len < 2^24 */
    if ((rc = fs_pread(fs, f, f->pos, buf, n)) != 0)
        return rc;
    f->pos += n;
    return (int32_t)n;
}

/* Copy the file with the write s folded in: when it outgrew its extent (into one twice as
 * large, or just large enough), when the write would take more log records than the log has
 * free (one copy instead of a merge every few records), or when no length slot fits to extend
 * the intent of an append. */
static int copy_with(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s)
{
    uint32_t end = s->off + s->n, need = fs_area_for(end > f->len ? end : f->len);
    uint32_t area = f->cap > 0x7FFFFFFF ? 0 : end > fs_room(f) ? 2 * f->cap : f->cap;
    int rc;
    while ((rc = fs_rewrite(fs, f, area, s, FS_NONE)) == STRATA_ENOSPC && area > need)
        area = 0; /* just large enough */
    return rc;
}

/* Program [off, end) in place, first extending the durable intent if needed. 2: copy first. */
static int put_in_place(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off,
                        uint32_t end, const uint8_t *p)
{
    int rc;
    if (end > f->intent && f->page == f->base && (rc = fs_intent(fs, f, end)) != 0)
        return rc < 0 ? rc : 2;
    if ((rc = fs_prog(fs, fs_data_u(fs, f) + off, p, end - off)) != 0)
        return rc;
    f->clean = end;
    return 0;
}

/* Each step writes a piece: at or past D in place, below it one log record's worth through
 * the log, or by a copy with the piece folded in (a merge: the write is too big for the
 * extent, takes more records than the log has free, finds the log full, or no intent slot
 * fits). */
int32_t strata_fs_write(struct strata_fs *fs, struct strata_fs_file *f, const void *buf,
                        uint32_t n)
{
    struct fs_span s;
    uint32_t end, rs;
    int rc;
    if (!handle_ok(fs, f, STRATA_FS_WRITE))
        return STRATA_EBADF;
    s.p = buf;
    s.off = (f->flags & STRATA_FS_APPEND) ? f->len : f->pos;
    if ((s.p == NULL && n > 0) || n > 0x7FFFFFFF)
        return STRATA_EINVAL;
    end = s.off + n; /* off < 2^24: no overflow */
    if (end > 0xFFFFFF)
        return STRATA_ENOSPC; /* lengths are 24 bits */
    while (s.off < end) {
        s.n = end - s.off;
        rs = f->log_record;
        /* D >= clen: a write below the committed length needs no search for D */
        rc = end > fs_room(f) ? 2 : end <= f->clen ? 0 : fs_find_clean(fs, f);
        if (rc == 0 && s.off < f->clean) {
            /* log records the piece below D takes, against the free ones */
            uint32_t need = (fs_min(end, f->clean) - 1) / rs - s.off / rs + 1;
            if (need > 1 && need > f->log_records - (f->log < FS_BAD ? f->k : 0u)) {
                rc = 2;
            } else {
                s.n = fs_min(end, (s.off / rs + 1) * rs) - s.off;
                rc = fs_log_put(fs, f, &s);
            }
        } else if (rc == 0) {
            rc = put_in_place(fs, f, s.off, end, s.p);
        }
        if (rc == 2)
            rc = copy_with(fs, f, &s);
        if (rc < 0)
            return rc;
        f->state |= ST_DIRTY;
        s.p += s.n;
        s.off += s.n;
        if (s.off > f->len)
            f->len = s.off;
    }
    f->pos = end;
    return (int32_t)n;
}

int32_t strata_fs_seek(struct strata_fs *fs, struct strata_fs_file *f, int32_t off, int whence)
{
    uint32_t at;
    if (!handle_ok(fs, f, 0))
        return STRATA_EBADF;
    if ((unsigned)whence > STRATA_FS_SEEK_END)
        return STRATA_EINVAL;
    /* lengths are below 2^24: a negative offset past the start wraps far above the length */
    at = (whence == STRATA_FS_SEEK_SET ? 0 : whence == STRATA_FS_SEEK_CUR ? f->pos : f->len) +
         (uint32_t)off;
    if (at > f->len)
        return STRATA_EINVAL;
    f->pos = at;
    return (int32_t)at;
}

int strata_fs_sync(struct strata_fs *fs, struct strata_fs_file *f)
{
    return handle_ok(fs, f, 0) ? fs_commit(fs, f) : STRATA_EBADF;
}

int strata_fs_truncate(struct strata_fs *fs, struct strata_fs_file *f, uint32_t size)
{
    if (!handle_ok(fs, f, STRATA_FS_WRITE))
        return STRATA_EBADF;
    if (size > f->len)
        return STRATA_EINVAL;
    if (size < f->len) {
        f->len = size;
        f->state |= ST_DIRTY;
    }
    f->pos = fs_min(f->pos, size);
    return 0;
}
