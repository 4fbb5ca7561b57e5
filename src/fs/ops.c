/* Namespace operations on closed files: remove, rename, reserve, configure_log, stat, readdir. */
#include "fs_internal.h"

/* A closed file of that name: STRATA_EBUSY when it is open. */
static int find_closed(struct strata_fs *fs, const char *name, uint32_t *nlen, struct fs_walk *w)
{
    int rc = fs_find(fs, name, nlen, w);
    return rc == 0 && fs_opened(fs, w->h.page) != NULL ? STRATA_EBUSY : rc;
}

int strata_fs_remove(struct strata_fs *fs, const char *name)
{
    struct fs_walk w;
    uint32_t nlen;
    int rc = find_closed(fs, name, &nlen, &w);
    if (rc != 0)
        return rc;
    if ((rc = fs_obsolete(fs, w.h.page)) != 0)
        return rc;
    if (fs->cfg.clean_every != 0 && ++fs->removals % fs->cfg.clean_every == 0)
        return fs_clean(fs);
    return 0;
}

int strata_fs_rename(struct strata_fs *fs, const char *from, const char *to)
{
    struct fs_walk w;
    uint32_t nlen, tlen, tpage = FS_NONE, tseq = FS_NONE;
    int rc = find_closed(fs, to, &tlen, &w);
    if (rc == 0) {
        tpage = w.h.page;
        tseq = w.h.seq;
    } else if (rc != STRATA_ENOENT) {
        return rc;
    }
    if ((rc = find_closed(fs, from, &nlen, &w)) != 0)
        return rc;
    if (w.h.page == tpage)
        return 0; /* same name */
    if (w.h.renamed != 0) {
        /* the extent's rename slot is used: copy the file to a fresh extent first */
        if ((rc = fs_rewrite_closed(fs, &w.h, w.h.cfg)) != 0)
            return rc;
    }
    w.h.rpage = tpage;
    w.h.rpseq = tseq;
    if ((rc = fs_ren_write(fs, &w.h, to, tlen)) != 0)
        return rc;
    return tpage != FS_NONE ? fs_obsolete(fs, tpage) : 0;
}

int strata_fs_reserve(struct strata_fs *fs, const char *name, uint32_t size)
{
    struct fs_walk w;
    uint32_t nlen;
    int rc = fs_find(fs, name, &nlen, &w);
    if (rc == 0)
        return STRATA_EEXIST;
    if (rc != STRATA_ENOENT)
        return rc;
    return fs_create_file(fs, &w.h, name, nlen, size, 0);
}

int strata_fs_configure_log(struct strata_fs *fs, const char *name, uint32_t log_size,
                            uint32_t record_size)
{
    struct fs_walk w;
    uint32_t nlen, n = record_size ? log_size / record_size : 0;
    int rc;
    if (record_size == 0 || record_size > 0xFFFF || n == 0 || n > 0xFFFF)
        return STRATA_EINVAL;
    rc = find_closed(fs, name, &nlen, &w);
    if (rc == STRATA_ENOENT)
        return fs_create_file(fs, &w.h, name, nlen, fs->cfg.default_size, n | record_size << 16);
    if (rc != 0)
        return rc;
    return fs_rewrite_closed(fs, &w.h, n | record_size << 16);
}

/* Describe the live data extent h (through its open handle when there is one). */
static int describe(struct strata_fs *fs, struct fs_hdr *h, struct strata_fs_stat *st)
{
    struct strata_fs_file t;
    const struct strata_fs_file *f = fs_opened(fs, h->page);
    int rc = 0;
    memset(st, 0, sizeof *st);
    memcpy(st->name, h->name, fs->cfg.name_max); /* NUL-padded; before the scratch is reused */
    if (f == NULL) {
        rc = fs_load(fs, &t, h);
        f = &t;
    }
    st->size = f->len;
    st->capacity = fs_room(f);
    st->page = f->page;
    st->pages = f->pages;
    st->log_records = f->log_records;
    st->log_record = f->log_record;
    st->log_used = f->k; /* 0 without a usable log */
    return rc;
}

int strata_fs_stat(struct strata_fs *fs, const char *name, struct strata_fs_stat *st)
{
    struct fs_walk w;
    uint32_t nlen;
    int rc = st == NULL ? STRATA_EINVAL : fs_find(fs, name, &nlen, &w);
    return rc ? rc : describe(fs, &w.h, st);
}

int strata_fs_opendir(struct strata_fs *fs, struct strata_fs_dir *d)
{
    if (fs == NULL || d == NULL || !fs->mounted)
        return STRATA_EINVAL;
    d->page = 0;
    return 0;
}

int strata_fs_readdir(struct strata_fs *fs, struct strata_fs_dir *d, struct strata_fs_stat *st)
{
    struct fs_walk w;
    int ev;
    if (fs == NULL || d == NULL || st == NULL || !fs->mounted)
        return STRATA_EINVAL;
    fs_walk_at(fs, &w, d->page);
    while ((ev = fs_step(fs, &w)) != EV_END) {
        if (ev < 0)
            return ev;
        if (ev == EV_EXTENT && fs_live(&w.h)) {
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
