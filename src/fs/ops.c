/* Namespace operations on closed files: remove, rename, reserve, configure_log, stat, readdir. */
#include "fs_internal.h"

/* The first page and sequence number of the closed file of that name: STRATA_EBUSY when it is
 * open. (Not static: the header it reads lives in a frame that is gone before a copy runs.) */
int fs_closed(struct strata_fs *fs, const char *name, uint32_t *page, uint32_t *seq)
{
    struct fs_hdr h;
    int rc = fs_find(fs, name, &h);
    if (rc == 0) {
        *page = h.page;
        *seq = h.f[HF_SEQ];
    }
    return rc == 0 && fs_opened(fs, h.page) != NULL ? STRATA_EBUSY : rc;
}

int strata_fs_remove(struct strata_fs *fs, const char *name)
{
    uint32_t page, seq;
    int rc = fs_closed(fs, name, &page, &seq);
    if (rc == 0 && (rc = fs_obsolete(fs, page)) == 0) /* the commit point */
        fs_cache_put(fs, page, 0, FS_NONE);
    if (rc == 0 && fs->cfg.clean_every != 0 && ++fs->removals % fs->cfg.clean_every == 0)
        rc = fs_clean(fs);
    return rc;
}

/* Rename by copy: the copy carries the new name and replaces the target; its commit obsoletes
 * the original, then the target goes (mount finishes either if a cut stops it). */
int strata_fs_rename(struct strata_fs *fs, const char *from, const char *to)
{
    struct fs_tpl t = {FS_NONE, FS_NONE, FS_NONE, NULL};
    uint32_t page, seq;
    int rc = fs_closed(fs, to, &t.replaces, &t.replaces_seq);
    if (rc == STRATA_ENOENT)
        t.replaces = t.replaces_seq = FS_NONE;
    else if (rc != 0)
        return rc;
    t.name = to;
    if ((rc = fs_closed(fs, from, &page, &seq)) != 0 || page == t.replaces)
        return rc; /* (the same file: nothing to do) */
    if ((rc = fs_rewrite_closed(fs, page, &t)) != 0 || t.replaces == FS_NONE)
        return rc;
    fs_cache_put(fs, t.replaces, 0, FS_NONE);
    return fs_obsolete(fs, t.replaces);
}

int strata_fs_reserve(struct strata_fs *fs, const char *name, uint32_t size)
{
    uint32_t page, seq;
    int rc = fs_closed(fs, name, &page, &seq);
    if (rc == 0 || rc == STRATA_EBUSY)
        return STRATA_EEXIST;
    return rc != STRATA_ENOENT ? rc : fs_new_file(fs, NULL, name, size, 0);
}

int strata_fs_configure_log(struct strata_fs *fs, const char *name, uint32_t log_size,
                            uint32_t record_size)
{
    struct fs_tpl t = {FS_NONE, FS_NONE, FS_NONE, NULL};
    uint32_t n = record_size ? log_size / record_size : 0, page, seq;
    int rc;
    if (record_size == 0 || record_size > 0xFFFF || n == 0 || n > 0x7FFF)
        return STRATA_EINVAL;
    t.cfg = n | record_size << 16;
    rc = fs_closed(fs, name, &page, &seq);
    if (rc == STRATA_ENOENT)
        return fs_new_file(fs, NULL, name, fs->cfg.default_size, t.cfg);
    return rc != 0 ? rc : fs_rewrite_closed(fs, page, &t);
}

/* Describe the visible data file h (through its open handle when there is one). */
static int describe(struct strata_fs *fs, const struct fs_hdr *h, struct strata_fs_stat *st)
{
    struct strata_fs_file t;
    const struct strata_fs_file *f = fs_opened(fs, h->page);
    int rc = 0;
    memset(st, 0, sizeof *st);
    /* NUL-padded; copied before the scratch is reused */
    memcpy(st->name, h->name, (size_t)fs->cfg.name_max);
    if (f == NULL) {
        rc = fs_load(fs, &t, h);
        f = &t;
    }
    st->size = f->len;
    st->capacity = f->tail_base + fs_room(f);
    st->page = f->page;
    st->pages = h->f[HF_PAGES];
    st->log_records = f->log_records;
    st->log_record = f->log_record;
    st->log_used = f->log_used; /* 0 without a usable log */
    return rc;
}

int strata_fs_stat(struct strata_fs *fs, const char *name, struct strata_fs_stat *st)
{
    struct fs_hdr h;
    int rc = st == NULL ? STRATA_EINVAL : fs_find(fs, name, &h);
    return rc ? rc : describe(fs, &h, st);
}

int strata_fs_opendir(struct strata_fs *fs, struct strata_fs_dir *d)
{
    if (fs == NULL || d == NULL || fs->mounted != FS_MOUNTED)
        return STRATA_EINVAL;
    d->page = 0;
    return 0;
}

int strata_fs_readdir(struct strata_fs *fs, struct strata_fs_dir *d, struct strata_fs_stat *st)
{
    struct fs_walk w;
    int ev;
    if (fs == NULL || d == NULL || st == NULL || fs->mounted != FS_MOUNTED)
        return STRATA_EINVAL;
    fs_walk_at(fs, &w, d->page);
    while ((ev = fs_step(fs, &w)) != EV_END) {
        if (ev < 0)
            return ev;
        if (ev == EV_EXTENT && fs_visible(fs, &w.h)) {
            d->page = w.page;
            ev = describe(fs, &w.h, st);
            return ev ? ev : 1;
        }
    }
    d->page = fs->pages;
    return 0;
}

int strata_fs_closedir(struct strata_fs *fs, struct strata_fs_dir *d)
{
    return fs == NULL || d == NULL ? STRATA_EINVAL : 0;
}
