/*
 * Open files: open/close, the read path, writes (appended in place at the end, through the micro
 * log elsewhere), the write-back buffer, seek, sync, truncate.
 *
 * `data_end` (D) is the file offset from which nothing has been programmed in place and no log
 * record lies: at open, past the committed length, the highest logged range and the tail's base.
 * Data is programmed in place only at D (an append); everything below goes through the micro log.
 * With a buffer (strata_fs_opencfg), appends collect there and are programmed a device page at a
 * time; anything else the handle does programs them first.
 */
#include "fs_internal.h"

/* f is one of the context's open handles, opened with (at least) the flags `need`. */
static int handle_ok(const struct strata_fs *fs, const struct strata_fs_file *f, unsigned need)
{
    const struct strata_fs_file *o;
    if (fs == NULL || fs->mounted != FS_MOUNTED)
        return 0;
    for (o = fs->open; o != NULL; o = o->next)
        if (o == f)
            return (f->flags & need) == need;
    return 0;
}

int strata_fs_opencfg(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                      unsigned flags, const struct strata_fs_file_config *fc)
{
    struct fs_hdr h;
    int rc;
    if (flags & STRATA_FS_APPEND)
        flags |= STRATA_FS_WRITE;
    if (f == NULL || (flags & ~31u) != 0 || !(flags & (STRATA_FS_READ | STRATA_FS_WRITE)) ||
        handle_ok(fs, f, 0))
        return STRATA_EINVAL;
    rc = fs_find(fs, name, &h);
    if (rc == 0 && (flags & STRATA_FS_CREATE) && (flags & STRATA_FS_EXCL))
        return STRATA_EEXIST;
    if (rc == 0 && fs_opened(fs, h.page) != NULL)
        return STRATA_EBUSY;
    if (rc == STRATA_ENOENT && (flags & STRATA_FS_CREATE))
        rc = fs_new_file(fs, &h, name,
                         fc != NULL && fc->size != 0 ? fc->size : fs->cfg.default_size, 0);
    if (rc != 0 || (rc = fs_load(fs, f, &h)) != 0)
        return rc;
    f->flags = (uint8_t)flags;
    if (fc != NULL && fc->buffer != NULL && fc->buffer_size > 0) {
        f->buffer = fc->buffer;
        f->buffer_size = (uint16_t)fs_min(fc->buffer_size, 0xFFFF);
    }
    f->next = fs->open;
    fs->open = f;
    return 0;
}

int strata_fs_open(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                   unsigned flags)
{
    return strata_fs_opencfg(fs, f, name, flags, NULL);
}

/* Commit, sealed: the last slot is written twice, so that a closed file's committed state
 * survives one damaged byte of either copy. */
int strata_fs_close(struct strata_fs *fs, struct strata_fs_file *f)
{
    struct strata_fs_file **p;
    int rc, r;
    if (!handle_ok(fs, f, 0))
        return STRATA_EBADF;
    rc = fs_commit(fs, f, 1);
    /* A copy this handle made and could not commit (its first slot unwritten) must not outlive
     * the handle beside the file it copies (fuzz finding FS-6). */
    if (rc < 0 && f->page != f->committed_page && f->slots == 0 && fs->mounted == FS_MOUNTED &&
        (r = fs_obsolete(fs, f->page)) != 0)
        rc = r; /* a power cut there is STRATA_EPOWER (FS-16) */
    for (p = &fs->open; *p != f; p = &(*p)->next)
        ;
    *p = f->next;
    return rc;
}

int32_t strata_fs_read(struct strata_fs *fs, struct strata_fs_file *f, void *buf, uint32_t n)
{
    int rc;
    if (!handle_ok(fs, f, STRATA_FS_READ))
        return STRATA_EBADF;
    if (buf == NULL && n > 0)
        return STRATA_EINVAL;
    n = fs_min(n, f->len - f->pos); /* pos <= len < 2^24 */
    if ((rc = fs_flush(fs, f)) != 0 || (rc = fs_pread(fs, f, f->pos, buf, n)) != 0)
        return rc;
    f->pos += n;
    return (int32_t)n;
}

/* Program [off, off + n) in place, off being where in-place data ends. A tail without room or
 * whose bytes there are not erased (a cut, damage) continues in a new extent. FS_COPY: a copy
 * not yet committed (it never grows), or a tail that cannot link a continuation. */
static int put_data(struct strata_fs *fs, struct strata_fs_file *f, uint32_t off,
                    const uint8_t *p, uint32_t n)
{
    int rc;
    for (;;) {
        if (off + n - f->tail_base <= fs_room(f)) {
            rc = fs_prog(fs, fs_data_u(fs, f->tail) + off - f->tail_base, p, n);
            if (rc != STRATA_ECORRUPT)
                return rc;
        }
        if (f->page != f->committed_page || (rc = fs_grow(fs, f, off, n)) == STRATA_ECORRUPT)
            return FS_COPY;
        if (rc != 0)
            return rc;
    }
}

/* Program the buffered bytes (they end at D); a copy takes them when they cannot be. */
int fs_flush(struct strata_fs *fs, struct strata_fs_file *f)
{
    struct fs_span s;
    int rc;
    if (f->buffered == 0)
        return 0;
    s.p = f->buffer;
    s.off = f->buffered_at;
    s.n = f->buffered;
    f->buffered = 0;
    rc = put_data(fs, f, s.off, s.p, s.n);
    if (rc == FS_COPY)
        rc = fs_rewrite(fs, f, &s, NULL);
    if (rc < 0) /* nothing was programmed: the bytes stay buffered, under the length */
        f->buffered = (uint16_t)s.n;
    return rc;
}

/* Append s at D, a device page at a time: programmed at once without a buffer; with one,
 * collected and programmed when a device page (or the buffer) fills. */
static int append(struct strata_fs *fs, struct strata_fs_file *f, const struct fs_span *s)
{
    uint32_t done, c, at;
    int rc = 0;
    for (done = 0; rc == 0 && done < s->n; done += c) {
        uint32_t left;
        at = s->off + done;
        left = fs_page_left(fs, fs_data_u(fs, f->tail) + (at - f->tail_base));
        c = fs_min(s->n - done, left);
        if (f->buffer == NULL) {
            /* the length covers a piece only once it is programmed (fuzz finding FS-5) */
            if ((rc = put_data(fs, f, at, s->p + done, c)) != 0)
                break;
        } else {
            f->buffered_at = f->buffered ? f->buffered_at : at;
            c = fs_min(c, (uint32_t)f->buffer_size - f->buffered);
            memcpy(f->buffer + f->buffered, s->p + done, (size_t)c);
            f->buffered = (uint16_t)(f->buffered + c);
        }
        f->data_end = at + c;
        f->len = fs_max(f->len, at + c); /* a copy forced by a flush takes it all */
        if (f->buffer != NULL && (f->buffered == f->buffer_size || c == left))
            rc = fs_flush(fs, f);
    }
    return rc;
}

/* Each step writes a piece: at D in place, below it one log record's worth through the log, or
 * the rest of the write by a copy with it folded in (a merge: the log is full or unusable, or a
 * copy not yet committed has no room). */
int32_t strata_fs_write(struct strata_fs *fs, struct strata_fs_file *f, const void *buf,
                        uint32_t n)
{
    struct fs_span s;
    uint32_t end, rs, top;
    int rc = 0;
    if (!handle_ok(fs, f, STRATA_FS_WRITE))
        return STRATA_EBADF;
    s.p = buf;
    s.off = (f->flags & STRATA_FS_APPEND) ? f->len : f->pos;
    if ((s.p == NULL && n > 0) || n > 0x7FFFFFFF)
        return STRATA_EINVAL;
    end = s.off + n; /* off < 2^24: no overflow */
    if (end > 0xFFFFFF)
        return STRATA_ENOSPC; /* lengths are 24 bits */
    if (f->data_end == FS_NONE) {
        if ((rc = fs_log_scan(fs, f, 0, NULL, 0, &top)) != 0)
            return rc;
        f->data_end = fs_max(fs_max(f->committed_len, top), f->tail_base);
    }
    while (s.off < end) {
        /* dirty before the step: a step failing part way may have changed the content (a
         * prefix of an append programmed), which the next commit must then write (FS-8) */
        f->state |= FF_DIRTY;
        s.n = end - s.off;
        if (s.off < f->data_end) {
            rs = f->log_record;
            s.n = fs_min(end, (s.off / rs + 1) * rs) - s.off;
            if ((rc = fs_flush(fs, f)) == 0)
                rc = fs_log_put(fs, f, &s);
        } else {
            rc = append(fs, f, &s);
        }
        if (rc == FS_COPY) {
            s.n = end - s.off;
            rc = fs_rewrite(fs, f, &s, NULL);
        }
        if (rc < 0)
            return rc;
        s.p += s.n;
        s.off += s.n;
        f->len = fs_max(f->len, s.off);
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
    return handle_ok(fs, f, 0) ? fs_commit(fs, f, 0) : STRATA_EBADF;
}

int strata_fs_truncate(struct strata_fs *fs, struct strata_fs_file *f, uint32_t size)
{
    int rc;
    if (!handle_ok(fs, f, STRATA_FS_WRITE))
        return STRATA_EBADF;
    if (size > f->len)
        return STRATA_EINVAL;
    if ((rc = fs_flush(fs, f)) != 0)
        return rc;
    if (size < f->len) {
        f->len = size;
        f->state |= FF_DIRTY;
    }
    f->pos = fs_min(f->pos, size);
    return 0;
}
