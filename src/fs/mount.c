/*
 * format, mount (with repair), unmount.
 *
 * Mount (and check, check.c) is one walk over every header. It finds the highest sequence
 * number and the first free page, and settles every pointer: an uncommitted copy is obsoleted;
 * a committed copy obsoletes the extent it supersedes; a valid rename slot obsoletes the target
 * it replaced; a micro log whose owner is gone, not live or not linking to it is obsoleted. An
 * extent is obsoleted with its linked log, so a log met before its owner is killed needs no
 * second look. Each repair is one or two flag programs and the scan is idempotent, so a cut
 * during mount is finished by the next mount. Check runs the same scan, counting each finding
 * as a problem (mount would have repaired it), then walks again for its own checks
 * (sc->check).
 */
#include "fs_internal.h"

/* A finding: mount repairs it quietly; check counts it and repairs on request. */
int fs_finding(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, const char *what)
{
#ifdef STRATA_FS_NO_CHECK
    (void)sc;
    (void)what;
    return page == FS_NONE ? 0 : fs_obsolete(fs, page);
#else
    if (sc->mode != SCAN_MOUNT && sc->r->problems++ == 0) {
        sc->r->first = what;
        sc->r->first_page = page;
    }
    if (page == FS_NONE || sc->mode == SCAN_CHECK)
        return 0;
    if (sc->mode == SCAN_REPAIR)
        sc->r->repaired++;
    return fs_obsolete(fs, page);
#endif
}

/* Obsolete the extent (page, seq) when it is still there, not obsolete and not open. */
static int kill(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, uint32_t seq,
                const char *what)
{
    struct fs_hdr t;
    int rc = fs_hdr_read(fs, page, &t);
    if (rc != HDR_VALID || t.seq != seq || t.obsolete || fs_opened(fs, page) != NULL)
        return rc < 0 ? rc : 0;
    return fs_finding(fs, sc, page, what);
}

/* The highest sequence number; the pointers of a data extent; the owner of a log. */
static int settle(struct strata_fs *fs, struct fs_scan *sc, const struct fs_hdr *h)
{
    struct fs_hdr o;
    int rc;
    if (h->seq > fs->seq)
        fs->seq = h->seq;
    if (h->renamed == 1 && h->rseq > fs->seq && h->rseq != FS_NONE)
        fs->seq = h->rseq;
    if (h->obsolete)
        return 0;
    if (h->type == FS_T_DATA) {
        if (h->lpage != FS_NONE && !h->commit)
            return kill(fs, sc, h->page, h->seq, "uncommitted copy");
        rc = kill(fs, sc, h->lpage, h->lseq, "superseded extent");
        return rc != 0 || h->renamed != 1
                   ? rc
                   : kill(fs, sc, h->rpage, h->rpseq, "rename target");
    }
    rc = fs_hdr_read(fs, h->lpage, &o);
    if (rc == HDR_VALID && o.type == FS_T_DATA && (rc = fs_link_read(fs, &o)) == 0)
        rc = HDR_VALID;
    if (rc < 0)
        return rc;
    if (rc == HDR_VALID && o.type == FS_T_DATA && !o.obsolete && o.seq == h->lseq &&
        o.log == h->page && (fs_live(&o) || fs_opened(fs, o.page) != NULL))
        return 0;
    return fs_finding(fs, sc, h->page, "orphan log");
}

/* Settle every header (pass 0), then for check its own checks (pass 1). */
int fs_scan(struct strata_fs *fs, struct fs_scan *sc)
{
    struct fs_walk w;
    int ev, rc, pass;
    for (pass = 0; pass < (sc->check != NULL ? 2 : 1); pass++) {
        fs_walk_at(fs, &w, 0);
        while ((ev = fs_step(fs, &w)) != EV_END) {
            if (ev < 0)
                return ev;
            if (ev == EV_FREE && w.at < fs->free_hint)
                fs->free_hint = w.at; /* the first free page: allocation searches from it */
            rc = pass ? sc->check(fs, sc, ev, &w) : ev == EV_EXTENT ? settle(fs, sc, &w.h) : 0;
            if (rc != 0)
                return rc;
        }
        if (w.oks == 0)
            return w.others ? STRATA_EVERSION : STRATA_EUNFORMATTED;
    }
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
    int rc = fs_setup(fs, cfg);
    memset(&sc, 0, sizeof sc);
    if (rc == 0)
        fs->free_hint = fs->pages;
    if (rc == 0 && (rc = fs_scan(fs, &sc)) == 0) {
        fs->mounted = 1;
        fs->gc_next = fs->seq % fs->cfg.unit_count; /* spread collection across reboots */
    }
    return rc;
}

int strata_fs_unmount(struct strata_fs *fs)
{
    int rc = 0, r;
    if (fs == NULL || !fs->mounted)
        return STRATA_EINVAL;
    while (fs->open != NULL)
        if ((r = strata_fs_close(fs, fs->open)) != 0 && rc == 0)
            rc = r;
    fs->mounted = 0;
    return rc;
}
