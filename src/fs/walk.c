/*
 * The quick-skip walk (Coffee's Algorithm 1, per sector), open-by-name and first-fit allocation.
 *
 * A sector is walked from the page its marker names (fp): a valid header jumps over its extent,
 * a garbage page (torn header) is skipped alone, a blank header means the rest of the sector is
 * free. The walk never jumps across a sector boundary: the next sector restarts at its own fp,
 * so an obsolete header whose extent covered a since-erased sector can hide nothing.
 */
#include "fs_internal.h"

void fs_walk_at(const struct strata_fs *fs, struct fs_walk *w, uint32_t page)
{
    w->page = page;
    /* resuming at a sector start means its marker is still to be read */
    w->mk = page % fs->pps ? page / fs->pps + 1 : 0;
    w->oks = w->others = 0;
}

int fs_step(const struct strata_fs *fs, struct fs_walk *w)
{
    uint32_t s = w->page / fs->pps, left = (s + 1) * fs->pps - w->page, fp, n = left;
    int ev = EV_FREE;
    if (w->page >= fs->pages)
        return EV_END;
    w->at = w->page;
    if (w->mk != s + 1) {
        w->mk = s + 1;
        if ((ev = fs_marker(fs, s, &fp)) < 0)
            return ev;
        w->others += ev == 2;
        w->oks += ev == 1;
        /* a sector is entered at its start: left is the whole sector */
        ev = ev != 1 ? EV_DIRTY : fp > 0 ? EV_COVER : EV_FREE;
        if (ev == EV_COVER)
            n = fp;
    }
    if (ev == EV_FREE) {
        if ((ev = fs_hdr_read(fs, w->page, &w->h)) < 0)
            return ev;
        ev = ev == HDR_BLANK ? EV_FREE : ev == HDR_GARBAGE ? EV_GARBAGE : EV_EXTENT;
        n = ev == EV_GARBAGE ? 1 : ev == EV_EXTENT ? fs_min(w->h.pages, left) : left;
    }
    w->n = n;
    w->page += n;
    return ev;
}

struct strata_fs_file *fs_opened(const struct strata_fs *fs, uint32_t page)
{
    struct strata_fs_file *f;
    for (f = fs->open; f != NULL; f = f->next)
        if (f->base == page || f->page == page)
            return f;
    return NULL;
}

/* The valid header h is the live data file of that name. */
static int named(const struct strata_fs *fs, const struct fs_hdr *h, const char *name, uint32_t n)
{
    return fs_live(h) && memcmp(h->name, name, n) == 0 &&
           (n == fs->cfg.name_max || h->name[n] == 0);
}

/* Find the live data file of that name; on success w->h describes its header. The cache
 * (16-bit name hash -> page) is only a hint: every hit is checked against its header. */
int fs_lookup(struct strata_fs *fs, const char *name, uint32_t nlen, struct fs_walk *w)
{
    uint16_t hash = (uint16_t)strata_crc32(0, name, nlen);
    uint32_t i;
    int ev;
    for (i = 0; i < STRATA_FS_CACHE; i++) {
        if (fs->cache[i].hash != hash)
            continue;
        if ((ev = fs_hdr_read(fs, fs->cache[i].page, &w->h)) < 0)
            return ev;
        if (ev == HDR_VALID && named(fs, &w->h, name, nlen))
            return 0;
    }
    fs_walk_at(fs, w, 0);
    while ((ev = fs_step(fs, w)) != EV_END) {
        if (ev < 0)
            return ev;
        if (ev == EV_EXTENT && named(fs, &w->h, name, nlen)) {
            fs->cache[fs->cache_next].hash = hash;
            fs->cache[fs->cache_next].page = w->h.page;
            fs->cache_next = (uint8_t)((fs->cache_next + 1) % STRATA_FS_CACHE);
            return 0;
        }
    }
    return STRATA_ENOENT;
}

/* The common start of calls by name: a mounted context, a valid name (its length in *nlen) and
 * its lookup (0 or STRATA_ENOENT). */
int fs_find(struct strata_fs *fs, const char *name, uint32_t *nlen, struct fs_walk *w)
{
    uint32_t n = 0;
    if (fs == NULL || !fs->mounted || name == NULL)
        return STRATA_EINVAL;
    while (n <= fs->cfg.name_max && name[n] != '\0')
        n++;
    if (n == 0)
        return STRATA_EINVAL;
    if (n > fs->cfg.name_max)
        return STRATA_ENAMETOOLONG;
    *nlen = n;
    return fs_lookup(fs, name, n, w);
}

/* First fit: the first run of `pages` free pages (a free sector tail continued by whole free
 * sectors), searched from the first page that may be free (a header boundary: no page before
 * it is free). That hint becomes the first free page seen, or the page after the run when it
 * starts there. */
int fs_find_run(struct strata_fs *fs, uint32_t pages, uint32_t *page)
{
    struct fs_walk w;
    uint32_t start = 0, len = 0, hint = fs->pages;
    int ev;
    fs_walk_at(fs, &w, fs->free_hint);
    while ((ev = fs_step(fs, &w)) != EV_END) {
        if (ev < 0)
            return ev;
        if (ev != EV_FREE) {
            len = 0;
            continue;
        }
        if (hint == fs->pages)
            hint = w.at;
        if (len == 0 || w.at != start + len) {
            start = w.at;
            len = 0;
        }
        len += w.n;
        if (len >= pages) {
            fs->free_hint = start == hint ? start + pages : hint;
            *page = start;
            return 0;
        }
    }
    fs->free_hint = hint;
    return STRATA_ENOSPC;
}

/* Allocate `pages` pages first-fit. When nothing fits: garbage collection, a few sectors at a
 * time, until the run fits or nothing is left to erase; then, once (not from inside a cleaning
 * pass), the cleaning pass and again. Finally claim the sectors the run extends into through
 * their markers' fp (before the header is written). */
int fs_alloc(struct strata_fs *fs, uint32_t pages, uint32_t *page)
{
    uint32_t s, end, cleaned = fs->cleaning;
    int rc;
    if (pages > fs->pages)
        return STRATA_ENOSPC;
    while ((rc = fs_find_run(fs, pages, page)) == STRATA_ENOSPC) {
        if ((rc = fs_gc(fs, pages)) > 0)
            continue;
        if (rc < 0 || cleaned)
            return rc < 0 ? rc : STRATA_ENOSPC;
        cleaned = fs->cleaning = 1;
        rc = fs_clean(fs);
        fs->cleaning = 0;
        if (rc < 0)
            return rc;
    }
    if (rc != 0)
        return rc;
    end = *page + pages;
    for (s = *page / fs->pps + 1; s * fs->pps < end; s++)
        if ((rc = fs_marker_fp(fs, s, fs_min(end - s * fs->pps, fs->pps))) != 0)
            return rc;
    return 0;
}
