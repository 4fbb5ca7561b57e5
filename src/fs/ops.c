/* Namespace operations on closed files: remove, rename, reserve, configure_log, stat, readdir. */
#include "fs_internal.h"

/* A closed file of that name: STRATA_EBUSY when it is open. */
static int find_closed(struct strata_fs *fs, const char *name, struct fs_hdr *h)
{
    int rc = fs_find(fs, name, h);
    return rc == 0 && fs_opened(fs, h->page) != NULL ? STRATA_EBUSY : rc;
}

int strata_fs_remove(struct strata_fs *fs, const char *name)
{
    struct fs_hdr h;
    int rc = find_closed(fs, name, &h);
    if (rc != 0 || (rc = fs_obsolete(fs, h.page)) != 0)
        return rc;
    fs_cache_put(fs, h.page, 0, FS_NONE);
    if (fs->cfg.clean_every != 0 && ++fs->removals % fs->cfg.clean_every == 0)
        return fs_clean(fs);
    return 0;
}

/* Rename by copy: the copy carries the new name and replaces the target; its commit obsoletes
 * the original, then the target goes (mount finishes either if a cut stops it). */
int strata_fs_rename(struct strata_fs *fs, const char *from, const char *to)
{
    struct fs_hdr h, t;
    int rc = find_closed(fs, to, &h);
    if (rc != 0 && rc != STRATA_ENOENT)
        return rc;
    memset(t.f, 0xFF, sizeof t.f);
    t.f[HF_REPLACES] = rc == 0 ? h.page : FS_NONE;
    t.f[HF_REPLACES_SEQ] = rc == 0 ? h.f[HF_SEQ] : FS_NONE;
    t.name = (const uint8_t *)to;
    if ((rc = find_closed(fs, from, &h)) != 0)
        return rc;
    if (h.page == t.f[HF_REPLACES])
        return 0; /* same name */
    if ((rc = fs_rewrite_closed(fs, &h, &t)) != 0 || t.f[HF_REPLACES] == FS_NONE)
        return rc;
    fs_cache_put(fs, t.f[HF_REPLACES], 0, FS_NONE);
    return fs_obsolete(fs, t.f[HF_REPLACES]);
}

int strata_fs_reserve(struct strata_fs *fs, const char *name, uint32_t size)
{
    struct fs_hdr h;
    int rc = fs_find(fs, name, &h);
    if (rc == 0)
        return STRATA_EEXIST;
    return rc != STRATA_ENOENT ? rc : fs_new_file(fs, &h, name, size, 0);
}

int strata_fs_configure_log(struct strata_fs *fs, const char *name, uint32_t log_size,
                            uint32_t record_size)
{
    struct fs_hdr h, t;
    uint32_t n = record_size ? log_size / record_size : 0;
    int rc;
    if (record_size == 0 || record_size > 0xFFFF || n == 0 || n > 0x7FFF)
        return STRATA_EINVAL;
    memset(&t, 0, sizeof t);
    memset(t.f, 0xFF, sizeof t.f);
    t.f[HF_CFG] = n | record_size << 16;
    rc = find_closed(fs, name, &h);
    if (rc == STRATA_ENOENT)
        return fs_new_file(fs, &h, name, fs->cfg.default_size, t.f[HF_CFG]);
    return rc != 0 ? rc : fs_rewrite_closed(fs, &h, &t);
}

/* Describe the visible data file h (through its open handle when there is one). */
static int describe(struct strata_fs *fs, const struct fs_hdr *h, struct strata_fs_stat *st)
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
