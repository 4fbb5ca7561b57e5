/*
 * Per-sector page accounting, garbage collection (Coffee's Algorithm 2) and the wear-levelling
 * cleaning pass.
 *
 * A page is live when the extent covering it is not obsolete (uncommitted copies of open files,
 * micro logs and continuations included), dead when it belongs to an obsolete extent, a garbage
 * page, an orphan run claimed by a marker with no extent behind it, or a dirty sector. A sector
 * with no live page and at least one dead page is erasable; erasing it changes nothing any walk
 * depends on.
 */
#include "fs_internal.h"

/* Walk every sector and call fn after each with its page counts (a->sector, live, dead, free)
 * and the running totals of live files and logs. fn returns <0 (error, returned), 0 (go on)
 * or >0 (stop here, return 0). */
int fs_account(struct strata_fs *fs, fs_sector_fn fn, void *arg)
{
    struct fs_walk w;
    struct fs_acct a;
    uint32_t pps = fs->pages_per_sector;
    int ev, rc, live;
    memset(&a, 0, sizeof a);
    fs_walk_at(fs, &w, 0);
    for (;;) {
        if ((ev = fs_step(fs, &w)) < 0)
            return ev;
        if (ev == EV_END || w.at / pps != a.sector) {
            if ((rc = fn(fs, &a, arg)) != 0 || ev == EV_END)
                return rc < 0 ? rc : 0;
            a.sector = w.at / pps;
            a.live = a.dead = a.free = 0;
        }
        /* pages carried in from the last extent that ran past its sector (never erase under a
         * live extent, even on an inconsistent image where its sector reads dirty) */
        live = a.carry_live && a.carry_end > a.sector * pps;
        if (ev == EV_EXTENT) {
            live = w.h.state != HS_OBSOLETE;
            if (w.h.f[HF_PAGES] > w.n) {
                a.carry_end = w.at + w.h.f[HF_PAGES];
                a.carry_live = live;
            }
            a.files += live && fs_visible(fs, &w.h);
            a.logs += live && w.h.type == FS_T_LOG;
        }
        if (ev == EV_FREE)
            a.free += w.n;
        else if (live && ev != EV_GARBAGE)
            a.live += w.n;
        else
            a.dead += w.n;
    }
}

struct gc_run {
    uint32_t need, erased, from, to;
};

static int gc_erase(struct strata_fs *fs, const struct fs_acct *a, void *arg)
{
    struct gc_run *g = arg;
    uint32_t first = a->sector * fs->pages_per_sector;
    int rc;
    if (a->live != 0 || a->dead == 0 || a->sector < g->from || a->sector >= g->to)
        return 0;
    if ((rc = fs_erase(fs, a->sector)) != 0)
        return rc;
    g->erased++;
    fs->gc_next = a->sector + 1;
    fs->free_hint = fs_min(fs->free_hint, first); /* all free now */
    /* stop once the pages asked for are free: bounds the time one allocation can take */
    return g->need != 0 && g->erased * fs->pages_per_sector >= g->need;
}

/* Garbage collection (Coffee's Algorithm 2): erase sectors with no live page and at least one
 * dead page until `need` pages have been freed (0: all of them). Returns the number of sectors
 * erased. Incremental collection resumes where the previous one stopped (round robin), so the
 * erases rotate over the device as Coffee's collect-everything-when-full did, without its
 * pause of one erase per sector. */
int fs_gc(struct strata_fs *fs, uint32_t need)
{
    struct gc_run g;
    int rc;
    g.need = need;
    g.erased = 0;
    g.from = need ? fs->gc_next % fs->cfg.unit_count : 0;
    g.to = fs->cfg.unit_count;
    while ((rc = fs_account(fs, gc_erase, &g)) == 0 && g.from > 0 &&
           (need == 0 || g.erased * fs->pages_per_sector < need)) {
        g.to = g.from; /* then the sectors before where it started */
        g.from = 0;
    }
    return rc ? rc : (int)g.erased;
}

/* The cleaning pass (when configured), then collection everywhere: what to call after
 * STRATA_ENOSPC on a device whose free space is scattered among live files. */
int strata_fs_gc(struct strata_fs *fs)
{
    int rc = fs == NULL || fs->mounted != FS_MOUNTED ? STRATA_EINVAL : 0;
    if (rc == 0 && fs->cfg.clean_every != 0)
        rc = fs_clean(fs);
    return rc != 0 ? rc : fs_gc(fs, 0);
}

static int usage(struct strata_fs *fs, const struct fs_acct *a, void *arg)
{
    struct strata_fs_usage *u = arg;
    (void)fs;
    u->free += a->free;
    u->active += a->live;
    u->obsolete += a->dead;
    u->erasable += a->live == 0 && a->dead > 0;
    u->files = a->files;
    u->logs = a->logs;
    return 0;
}

int strata_fs_df(struct strata_fs *fs, struct strata_fs_usage *u)
{
    if (fs == NULL || u == NULL || fs->mounted != FS_MOUNTED)
        return STRATA_EINVAL;
    memset(u, 0, sizeof *u);
    u->pages = fs->pages;
    u->sectors = fs->cfg.unit_count;
    return fs_account(fs, usage, u);
}

struct pick {
    uint32_t sector, dead;
};

static int pick_sector(struct strata_fs *fs, const struct fs_acct *a, void *arg)
{
    struct pick *p = arg;
    (void)fs;
    if (a->live > 0 && a->dead >= a->live && a->dead > p->dead) {
        p->sector = a->sector;
        p->dead = a->dead;
    }
    return 0;
}

/* The first page of a live closed single-extent file starting in the sector, or of the owner
 * of a log starting there (a log moves with its file), into *page: 1, or 0 when none is left.
 * (Not static: its walk stays out of the cleaning pass's frame, live while the file is
 * copied.) */
int fs_victim(struct strata_fs *fs, uint32_t sector, uint32_t *page)
{
    struct fs_walk w;
    uint32_t next;
    int ev;
    fs_walk_at(fs, &w, sector * fs->pages_per_sector);
    while ((ev = fs_step(fs, &w)) != EV_END && w.at / fs->pages_per_sector == sector) {
        if (ev == EV_EXTENT && w.h.state != HS_OBSOLETE && w.h.type == FS_T_LOG &&
            (ev = fs_hdr_read(fs, w.h.f[HF_OWNER], &w.h)) >= 0)
            ev = ev == HDR_VALID ? EV_EXTENT : EV_FREE;
        if (ev == EV_EXTENT && fs_live(&w.h) && fs_opened(fs, w.h.page) == NULL &&
            (ev = fs_link(fs, w.h.page, O_NEXT(fs->cfg.name_max), &next)) == 0 &&
            next == FS_NONE) {
            *page = w.h.page;
            return 1;
        }
        if (ev < 0)
            return ev;
    }
    return ev < 0 ? ev : 0;
}

/* The cleaning pass: empty the sector whose pages are mostly obsolete, so that a later GC can
 * erase it and old files do not pin sectors forever. It cannot nest: the copies it makes
 * allocate, and allocation only collects garbage. Out of space is not an error here. */
int fs_clean(struct strata_fs *fs)
{
    struct pick p = {0, 0};
    uint32_t i, page;
    int rc = fs_account(fs, pick_sector, &p);
    for (i = 0; rc == 0 && p.dead > 0 && i <= fs->pages_per_sector; i++)
        if ((rc = fs_victim(fs, p.sector, &page)) == 1)
            rc = fs_rewrite_closed(fs, page, NULL);
        else
            break;
    return rc == STRATA_ENOSPC ? 0 : rc;
}
