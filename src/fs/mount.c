/*
 * format, mount (with repair), unmount.
 *
 * Mount (and check, check.c) is one walk over every header. It finds the highest sequence
 * number, the first free page and (when there are few) every live file for the name cache, and
 * settles every pointer: a header a cut left unsealed is sealed; a copy whose original is still
 * live is committed when its first length slot is, and then obsoletes that original, else is
 * obsoleted itself; a committed copy obsoletes the rename target it replaces; a micro log or a
 * continuation whose owner is gone, obsolete or not linking to it is obsoleted. An extent is
 * obsoleted with what it links, so what a killed extent owned needs no second look. Each repair
 * is a program of a one-way field and the scan is idempotent, so a cut during mount is finished
 * by the next mount. Check runs the same scan, counting each finding as a problem (mount would
 * have repaired it), then walks again for its own checks (sc->check).
 */
#include "fs_internal.h"

/* A finding: mount repairs it quietly; check counts it and repairs on request. The repair is to
 * obsolete the extent at page (FS_NONE: nothing to repair), or to seal it (seal != 0). */
int fs_finding(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, const char *what)
{
#ifndef STRATA_FS_NO_CHECK
    if (sc->mode != SCAN_MOUNT && sc->r->problems++ == 0) {
        sc->r->first = what;
        sc->r->first_page = page;
    }
    if (page == FS_NONE || sc->mode == SCAN_CHECK)
        return 0;
    if (sc->mode == SCAN_REPAIR)
        sc->r->repaired++;
#else
    (void)sc;
    (void)what;
    if (page == FS_NONE)
        return 0;
#endif
    fs_cache_put(fs, page, 0, FS_NONE);
    return fs_obsolete(fs, page);
}

/* The extent (page, seq) is still there and not obsolete (1, its header in *t), or not (0). */
static int alive(struct strata_fs *fs, uint32_t page, uint32_t seq, struct fs_hdr *t)
{
    int rc = fs_hdr_read(fs, page, t);
    return rc < 0 ? rc : rc == HDR_VALID && t->f[HF_SEQ] == seq && t->state != HS_OBSOLETE;
}

/* Obsolete the extent (page, seq) when it is still there, not obsolete and not open. */
static int kill(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, uint32_t seq,
                const char *what)
{
    struct fs_hdr t;
    int rc = alive(fs, page, seq, &t);
    return rc <= 0 || fs_opened(fs, page) != NULL ? (rc < 0 ? rc : 0)
                                                  : fs_finding(fs, sc, page, what);
}

/* Settle one valid extent (see the top); h->state becomes obsolete when it is killed. (Not
 * static: its frame stays out of the scan's, which check's pass keeps live.) */
int fs_settle(struct strata_fs *fs, struct fs_scan *sc, struct fs_hdr *h)
{
    struct fs_hdr o;
    uint8_t s[FS_SLOT];
    uint32_t N = fs->cfg.name_max, link = FS_NONE;
    int rc = 0;
    fs->seq = fs_max(fs->seq, h->f[HF_SEQ]);
    if (h->state == HS_OBSOLETE)
        return 0;
    if (h->state == HS_NEW && fs_finding(fs, sc, FS_NONE, "unsealed header") == 0 &&
        sc->mode != SCAN_CHECK) /* a cut between the header and its seal: the header is whole */
        rc = fs_set_state(fs, h->page, FS_SEAL_BYTE);
    if (rc == 0 && (rc = alive(fs, h->f[HF_OWNER], h->f[HF_OWNER_SEQ], &o)) == 1) {
        /* a child: its owner links to it; a copy: the original is still live, so the copy counts
         * only with its first slot written */
        if (h->type != FS_T_DATA)
            rc = fs_link(fs, o.page, h->type == FS_T_LOG ? O_LOG(N) : O_NEXT(N), &link);
        else if ((rc = fs_read(fs, fs_page_u(fs, h->page + h->f[HF_PAGES]) - FS_SLOT, s,
                               FS_SLOT)) == 0 && !fs_slot_ok(s, h->page, 0))
            link = FS_BAD;
        else if (rc == 0)
            rc = kill(fs, sc, o.page, o.f[HF_SEQ], "superseded extent");
    }
    if (rc < 0)
        return rc;
    if (h->type != FS_T_DATA ? link != h->page : link == FS_BAD) {
        h->state = HS_OBSOLETE;
        return fs_finding(fs, sc, h->page, h->type != FS_T_DATA ? "orphan" : "uncommitted copy");
    }
    return h->f[HF_REPLACES] == FS_NONE
               ? 0
               : kill(fs, sc, h->f[HF_REPLACES], h->f[HF_REPLACES_SEQ], "replaced extent");
}

/* Settle every header and fill the name cache (pass 0), then for check its own checks (pass 1). */
int fs_scan(struct strata_fs *fs, struct fs_scan *sc)
{
    struct fs_walk w;
    uint32_t hash;
    int ev, rc, pass;
    for (pass = 0; pass < (sc->check != NULL ? 2 : 1); pass++) {
        fs_walk_at(fs, &w, 0);
        while ((ev = fs_step(fs, &w)) != EV_END) {
            if (ev < 0)
                return ev;
            if (ev == EV_FREE && w.at < fs->free_hint)
                fs->free_hint = w.at; /* the first free page: allocation searches from it */
            if (pass) {
                rc = sc->check(fs, sc, ev, &w);
            } else if (ev == EV_EXTENT) {
                hash = fs_name_hash(fs, w.h.name);
                if ((rc = fs_settle(fs, sc, &w.h)) == 0 && fs_visible(fs, &w.h)) {
                    sc->files++;
                    fs_names(fs->names, hash, 1);
                    fs_cache_put(fs, w.h.page, hash, w.h.page);
                }
            } else {
                rc = 0;
            }
            if (rc != 0)
                return rc;
        }
        if (w.oks == 0)
            return w.others ? STRATA_EVERSION : STRATA_EUNFORMATTED;
    }
    fs->cache_complete = sc->files <= STRATA_FS_CACHE;
    return 0;
}

int strata_fs_format(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    uint32_t s;
    int rc = fs_setup(fs, cfg);
    for (s = 0; rc == 0 && s < fs->cfg.unit_count; s++)
        rc = fs_erase(fs, s);
    return rc;
}

int strata_fs_mount(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    struct fs_scan sc;
    uint32_t i;
    int rc = fs_setup(fs, cfg);
    if (rc != 0)
        return rc;
    memset(&sc, 0, sizeof sc);
    fs->free_hint = fs->pages;
    for (i = 0; i < STRATA_FS_CACHE; i++)
        fs->cache[i].page = FS_NONE;
    if ((rc = fs_scan(fs, &sc)) == 0) {
        fs->mounted = FS_MOUNTED;
        fs->gc_next = fs->seq % fs->cfg.unit_count; /* spread collection across reboots */
    }
    return rc;
}

int strata_fs_unmount(struct strata_fs *fs)
{
    int rc = 0, r;
    if (fs == NULL || fs->mounted != FS_MOUNTED)
        return STRATA_EINVAL;
    while (fs->open != NULL)
        if ((r = strata_fs_close(fs, fs->open)) != 0 && rc == 0)
            rc = r;
    fs->mounted = 0;
    return rc;
}
