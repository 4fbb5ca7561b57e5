/*
 * Per-sector page accounting, garbage collection (Coffee's Algorithm 2) and the wear-levelling
 * cleaning pass.
 *
 * A page is live when the extent covering it is not obsolete (uncommitted copies of open files
 * and micro logs included), dead when it belongs to an obsolete extent, a garbage page, an orphan
 * run claimed by a marker with no extent behind it, or a dirty sector. A sector with no live page
 * and at least one dead page is erasable; erasing it changes nothing any walk depends on.
 */
#include "fs_internal.h"

struct acct {
    uint32_t sector, live, dead, carry_end;
    int carry_live;
};

static int flush(struct strata_fs *fs, struct acct *a, fs_sector_fn fn, void *arg,
                 struct strata_fs_usage *u)
{
    if (u != NULL)
        u->erasable += a->live == 0 && a->dead > 0;
    return fn != NULL ? fn(fs, a->sector, a->live, a->dead, arg) : 0;
}

/* Walk every sector, call fn(sector, live pages, dead pages) after each, fill u if given.
 * fn returns <0 (error, returned), 0 (go on) or >0 (stop here, return 0). */
int fs_account(struct strata_fs *fs, struct strata_fs_usage *u, fs_sector_fn fn, void *arg)
{
    struct fs_walk w;
    struct acct a;
    int ev, rc;
    memset(&a, 0, sizeof a);
    fs_walk_at(fs, &w, 0);
    while ((ev = fs_step(fs, &w)) != EV_END) {
        uint32_t s0, live;
        if (ev < 0)
            return ev;
        if (w.at / fs->pps != a.sector) {
            if ((rc = flush(fs, &a, fn, arg, u)) != 0)
                return rc < 0 ? rc : 0;
            a.sector = w.at / fs->pps;
            a.live = a.dead = 0;
        }
        s0 = a.sector * fs->pps;
        /* pages carried in from the last extent that ran past its sector */
        live = a.carry_live && a.carry_end > s0;
        if (ev == EV_EXTENT) {
            live = !w.h.obsolete;
            if (w.h.pages > w.n) {
                a.carry_end = w.at + w.h.pages;
                a.carry_live = (int)live;
            }
            if (u != NULL && live) {
                u->files += fs_live(&w.h);
                u->logs += w.h.type == FS_T_LOG;
            }
        } else if (ev == EV_GARBAGE) {
            live = 0;
        } else if (ev == EV_FREE) {
            if (u != NULL)
                u->free += w.n;
            continue;
        } else if (ev == EV_DIRTY && live) {
            /* never erase under a live extent, even on an inconsistent image */
            a.live++;
            live = 0;
        }
        if (live)
            a.live += w.n;
        else
            a.dead += w.n;
        if (u != NULL) {
            u->active += live ? w.n : 0;
            u->obsolete += live ? 0 : w.n;
        }
    }
    rc = flush(fs, &a, fn, arg, u);
    return rc < 0 ? rc : 0;
}

struct gc_run {
    uint32_t need, erased, from, to;
};

static int gc_erase(struct strata_fs *fs, uint32_t sector, uint32_t live, uint32_t dead,
                    void *arg)
{
    struct gc_run *g = arg;
    int rc;
    if (live != 0 || dead == 0 || sector < g->from || sector >= g->to)
        return 0;
    if ((rc = fs_erase(fs, sector)) != 0)
        return rc;
    g->erased++;
    fs->gc_next = sector + 1;
    /* stop once the pages asked for are free: bounds the time one allocation can take */
    return g->need != 0 && g->erased * fs->pps >= g->need;
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
    g.from = need ? fs->gc_next % fs->sectors : 0;
    g.to = fs->sectors;
    rc = fs_account(fs, NULL, gc_erase, &g);
    if (rc == 0 && g.from > 0 && (need == 0 || g.erased * fs->pps < need)) {
        g.to = g.from;
        g.from = 0;
        rc = fs_account(fs, NULL, gc_erase, &g);
    }
    fs->free_hint = 0;
    return rc ? rc : (int)g.erased;
}

int strata_fs_gc(struct strata_fs *fs)
{
    if (fs == NULL || !fs->mounted)
        return STRATA_EINVAL;
    return fs_gc(fs, 0);
}

struct pick {
    uint32_t sector, dead;
};

static int pick_sector(struct strata_fs *fs, uint32_t sector, uint32_t live, uint32_t dead,
                       void *arg)
{
    struct pick *p = arg;
    (void)fs;
    if (live > 0 && dead >= live && dead > p->dead) {
        p->sector = sector;
        p->dead = dead;
    }
    return 0;
}

/* Move one live closed extent that starts in the sector; 1 if one moved, 0 if none left. */
static int move_one(struct strata_fs *fs, uint32_t sector)
{
    struct fs_walk w;
    struct fs_hdr owner;
    int ev;
    fs_walk_at(fs, &w, sector * fs->pps);
    while ((ev = fs_step(fs, &w)) != EV_END && w.at / fs->pps == sector) {
        struct fs_hdr *h = &w.h;
        if (ev < 0)
            return ev;
        if (ev != EV_EXTENT || h->obsolete)
            continue;
        if (h->type == FS_T_LOG) {
            ev = fs_hdr_read(fs, h->lpage, &owner, 0);
            if (ev < 0)
                return ev;
            if (ev != HDR_VALID || !fs_live(&owner))
                continue;
            h = &owner;
        }
        if (!fs_live(h) || fs_opened(fs, h->page) != NULL)
            continue;
        ev = fs_rewrite_closed(fs, h, h->logn, h->logrs);
        return ev != 0 ? ev : 1;
    }
    return ev < 0 ? ev : 0;
}

/* The cleaning pass: empty the sector whose pages are mostly obsolete, so that a later GC can
 * erase it and old files do not pin sectors forever. Out of space is not an error here. */
int fs_clean(struct strata_fs *fs)
{
    struct pick p = {0, 0};
    uint32_t i;
    int rc = fs_account(fs, NULL, pick_sector, &p);
    for (i = 0; rc == 0 && p.dead > 0 && i <= fs->pps; i++) {
        rc = move_one(fs, p.sector);
        if (rc == 1)
            rc = 0;
        else if (rc == 0)
            break;
    }
    return rc == STRATA_ENOSPC ? 0 : rc;
}
