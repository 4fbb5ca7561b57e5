/*
 * The quick-skip walk (Coffee's Algorithm 1, per sector), lookup by name and first-fit
 * allocation.
 *
 * A sector is walked from the page its marker names (the pages before it belong to an extent
 * that started in an earlier sector): a valid header jumps over its extent, a garbage page (torn
 * header) is skipped alone, a blank header means the rest of the sector is free. The walk never
 * jumps across a sector boundary, so an obsolete header whose extent covered a since-erased
 * sector hides nothing.
 *
 * The name cache (hash -> first page) is only a hint, checked against the header on every hit.
 * While it holds every live file ("complete", known after a walk that saw them all), a name it
 * does not hold does not exist: creating a file or renaming onto a new name reads no header.
 */
#include "fs_internal.h"

void fs_walk_at(const struct strata_fs *fs, struct fs_walk *w, uint32_t page)
{
    w->page = page;
    /* resuming at a sector start means its marker is still to be read */
    w->sector = page % fs->pages_per_sector ? page / fs->pages_per_sector + 1 : 0;
    w->oks = w->others = 0;
}

int fs_step(struct strata_fs *fs, struct fs_walk *w)
{
    uint32_t pps = fs->pages_per_sector, s = w->page / pps, n = (s + 1) * pps - w->page;
    uint32_t first = 0;
    int ev = EV_FREE;
    if (w->page >= fs->pages)
        return EV_END;
    w->at = w->page;
    if (w->sector != s + 1) { /* entering a sector: n is the whole sector */
        w->sector = s + 1;
        if ((ev = fs_marker(fs, s, &first)) < 0)
            return ev;
        w->others += ev >= 2; /* another version or configuration, or one damaged byte */
        w->oks += ev == 1;
        ev = ev == 0 || ev == 2 ? EV_DIRTY : first > 0 ? EV_COVER : EV_FREE;
        n = ev == EV_COVER ? first : n;
    }
    if (ev == EV_FREE) {
        if ((ev = fs_hdr_read(fs, w->page, &w->h)) < 0)
            return ev;
        ev = ev == HDR_BLANK ? EV_FREE : ev == HDR_GARBAGE ? EV_GARBAGE : EV_EXTENT;
        n = ev == EV_GARBAGE ? 1 : ev == EV_EXTENT ? fs_min(w->h.f[HF_PAGES], n) : n;
    }
    w->n = n;
    w->page += n;
    return ev;
}

struct strata_fs_file *fs_opened(const struct strata_fs *fs, uint32_t page)
{
    struct strata_fs_file *f;
    for (f = fs->open; f != NULL && f->committed_page != page && f->page != page; f = f->next)
        ;
    return f;
}

/* A live data file that the namespace shows: not a copy an open file has not committed yet. */
int fs_visible(const struct strata_fs *fs, const struct fs_hdr *h)
{
    const struct strata_fs_file *f = fs_opened(fs, h->page);
    return fs_live(h) && (f == NULL || f->committed_page == h->page);
}

uint32_t fs_name_len(const struct strata_fs *fs, const uint8_t *name)
{
    uint32_t n = 0;
    while (n < fs->cfg.name_max && name[n] != 0)
        n++;
    return n;
}

uint32_t fs_name_hash(const struct strata_fs *fs, const uint8_t *name)
{
    return strata_crc32(0, name, (size_t)fs_name_len(fs, name)) & 0xFFFF;
}

/* Point the cache entry of page `old` (or a free one; FS_NONE: a free one) at (hash, page);
 * page FS_NONE forgets `old`. With no entry to take, the round-robin victim is forgotten and the
 * cache no longer holds every live file. */
void fs_cache_put(struct strata_fs *fs, uint32_t old, uint32_t hash, uint32_t page)
{
    uint32_t i, at = STRATA_FS_CACHE;
    for (i = STRATA_FS_CACHE; i-- > 0;)
        if (fs->cache[i].page == old || (at == STRATA_FS_CACHE && fs->cache[i].page == FS_NONE))
            at = i;
    if (at == STRATA_FS_CACHE) {
        if (page == FS_NONE)
            return;
        at = fs->cache_next;
        fs->cache_next = (uint8_t)((at + 1) % STRATA_FS_CACHE);
        fs->cache_complete = 0;
    }
    fs->cache[at].page = page;
    fs->cache[at].hash = (uint16_t)hash;
}

/* Set (names != NULL) or test the two filter bits of a name hash. */
int fs_names(uint8_t *names, uint32_t hash, int set)
{
    uint32_t a = hash & 127, b = hash >> 7 & 127;
    if (set) {
        names[a / 8] = (uint8_t)(names[a / 8] | 1u << (a % 8));
        names[b / 8] = (uint8_t)(names[b / 8] | 1u << (b % 8));
    }
    return names[a / 8] >> (a % 8) & names[b / 8] >> (b % 8) & 1;
}

/* The valid header h is the visible data file of that name. */
static int named(const struct strata_fs *fs, const struct fs_hdr *h, const char *name)
{
    return fs_visible(fs, h) && strncmp((const char *)h->name, name, (size_t)fs->cfg.name_max) == 0;
}

/* Find the visible data file of that name; on success h describes its header. A name neither
 * cache nor filter may hold is absent without a read. A walk puts every live file it passes into
 * the cache, and one that saw them all (no hit) may find the cache complete again and rebuilds
 * the filter. */
int fs_lookup(struct strata_fs *fs, const char *name, struct fs_hdr *h)
{
    uint32_t hash = fs_name_hash(fs, (const uint8_t *)name), i, files = 0;
    uint8_t names[sizeof fs->names];
    struct fs_walk w;
    int ev;
    for (i = 0; i < STRATA_FS_CACHE; i++)
        if (fs->cache[i].hash == hash && fs->cache[i].page != FS_NONE &&
            ((ev = fs_hdr_read(fs, fs->cache[i].page, h)) < 0 ||
             (ev == HDR_VALID && named(fs, h, name))))
            return ev < 0 ? ev : 0;
    if (fs->cache_complete || !fs_names(fs->names, hash, 0))
        return STRATA_ENOENT;
    memset(names, 0, sizeof names);
    fs_walk_at(fs, &w, 0);
    while ((ev = fs_step(fs, &w)) != EV_END) {
        if (ev < 0 || (ev == EV_EXTENT && fs_visible(fs, &w.h))) {
            if (ev < 0)
                return ev;
            files++;
            i = fs_name_hash(fs, w.h.name);
            fs_names(names, i, 1);
            fs_cache_put(fs, w.h.page, i, w.h.page);
            if (named(fs, &w.h, name)) {
                *h = w.h;
                return 0;
            }
        }
    }
    fs->cache_complete = files <= STRATA_FS_CACHE;
    memcpy(fs->names, names, sizeof names);
    return STRATA_ENOENT;
}

/* The common start of calls by name: a mounted context, a valid name and its lookup (0 or
 * STRATA_ENOENT). */
int fs_find(struct strata_fs *fs, const char *name, struct fs_hdr *h)
{
    uint32_t n = 0;
    if (fs == NULL || fs->mounted != FS_MOUNTED || name == NULL)
        return STRATA_EINVAL;
    while (n <= fs->cfg.name_max && name[n] != '\0')
        n++;
    if (n == 0)
        return STRATA_EINVAL;
    return n > fs->cfg.name_max ? STRATA_ENAMETOOLONG : fs_lookup(fs, name, h);
}

/* First fit: the first run of `pages` free pages (a free sector tail continued by whole free
 * sectors), searched from the first page that may be free (a header boundary: no page before
 * it is free). That hint becomes the first free page seen, or the page after the run when it
 * starts there. (Not static: its walk stays out of its caller's frame, which stays live while
 * garbage collection walks.) */
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
        hint = fs_min(hint, w.at);
        if (len == 0 || w.at != start + len) {
            start = w.at;
            len = 0;
        }
        if ((len += w.n) >= pages) {
            fs->free_hint = start == hint ? start + pages : hint;
            *page = start;
            return 0;
        }
    }
    fs->free_hint = hint;
    return STRATA_ENOSPC;
}

/* Allocate h->f[HF_PAGES] pages first-fit, collecting garbage (a few sectors at a time) while
 * nothing fits and something is left to erase, claim the sectors the run extends into through
 * their markers, then write the header h describes there (name: see fs_hdr_write). A claim
 * that does not program (the free sector's field holds stray bits from a cut) retires that
 * sector (its ok word zeroed: dirty, erased by a later collection) and allocates again, the
 * search starting before it (so that it reads the retired marker). */
int fs_create(struct strata_fs *fs, struct fs_hdr *h, const char *name)
{
    uint32_t pps = fs->pages_per_sector, pages = h->f[HF_PAGES], s, end;
    int rc = STRATA_ENOSPC;
    while (rc != 0 && pages <= fs->pages) {
        while ((rc = fs_find_run(fs, pages, &h->page)) == STRATA_ENOSPC)
            if ((rc = fs_gc(fs, pages)) <= 0)
                return rc < 0 ? rc : STRATA_ENOSPC;
        end = h->page + pages;
        for (s = h->page / pps + 1; rc == 0 && s * pps < end; s++)
            if ((rc = fs_marker_claim(fs, s, fs_min(end - s * pps, pps))) == STRATA_ECORRUPT &&
                (rc = fs_marker_retire(fs, s)) == 0) {
                fs->free_hint = h->page; /* a walk resuming inside sector s would not read its
                                            marker again, and allocate in the retired sector */
                rc = STRATA_ENOSPC;
            }
        if (rc < 0 && rc != STRATA_ENOSPC)
            return rc;
    }
    return rc ? rc : fs_hdr_write(fs, h, name);
}
