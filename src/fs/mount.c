/*
 * format, mount (with repair), unmount, df.
 *
 * Mount (and check, check.c) is a scan of every header in two passes. Pass 1 finds the highest
 * sequence number and settles every pointer: an uncommitted copy is obsoleted; a committed
 * copy obsoletes the extent it supersedes; a valid rename slot obsoletes the target it
 * replaced. Pass 2 obsoletes every micro log whose owner is gone or does not link to it. Each
 * repair is one flag program and the scan is idempotent, so a cut during mount is finished by
 * the next mount. Check runs the same scan, counting each finding as a problem (mount would
 * have repaired it) and adding its own checks through sc->check.
 */
#include "fs_internal.h"

/* A finding: mount repairs it quietly; check counts it and repairs on request. */
int fs_finding(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, const char *what)
{
    if (sc->mode != SCAN_MOUNT && sc->r->problems++ == 0) {
        sc->r->first = what;
        sc->r->first_page = page;
    }
    if (page == FS_NONE || sc->mode == SCAN_CHECK)
        return 0;
    if (sc->mode == SCAN_REPAIR)
        sc->r->repaired++;
    return fs_flag(fs, page, O_OBS(fs->cfg.name_max));
}

/* Obsolete the extent (page, seq) when it is still there and not obsolete. */
static int kill_target(struct strata_fs *fs, struct fs_scan *sc, uint32_t page, uint32_t seq,
                       const char *what)
{
    struct fs_hdr t;
    int rc;
    if (page == FS_NONE)
        return 0;
    rc = fs_hdr_read(fs, page, &t, 0);
    if (rc < 0)
        return rc;
    if (rc != HDR_VALID || t.seq != seq || t.obsolete || fs_opened(fs, page) != NULL)
        return 0;
    return fs_finding(fs, sc, page, what);
}

static int pass_pointers(struct strata_fs *fs, struct fs_scan *sc, struct fs_walk *w)
{
    struct fs_hdr *h = &w->h;
    int rc = 0;
    if (h->seq > fs->seq)
        fs->seq = h->seq;
    if (h->renamed == 1 && h->rseq > fs->seq && h->rseq != FS_NONE)
        fs->seq = h->rseq;
    if (h->type != FS_T_DATA || h->obsolete)
        return 0;
    if (h->lpage != FS_NONE && !h->commit)
        return fs_opened(fs, h->page) ? 0 : fs_finding(fs, sc, h->page, "uncommitted copy");
    if (h->lpage != FS_NONE)
        rc = kill_target(fs, sc, h->lpage, h->lseq, "superseded extent still live");
    if (rc == 0 && h->renamed == 1)
        rc = kill_target(fs, sc, h->rpage, h->rpseq, "rename target still live");
    return rc;
}

static int log_owned(struct strata_fs *fs, const struct fs_hdr *log)
{
    struct fs_hdr o;
    int rc = fs_hdr_read(fs, log->lpage, &o, 1);
    if (rc < 0)
        return rc;
    return rc == HDR_VALID && o.type == FS_T_DATA && !o.obsolete && o.seq == log->lseq &&
           o.log == log->page && (fs_live(&o) || fs_opened(fs, o.page) != NULL);
}

static int pass_logs(struct strata_fs *fs, struct fs_scan *sc, struct fs_walk *w)
{
    int rc;
    if (w->h.type == FS_T_DATA || w->h.obsolete)
        return 0;
    rc = log_owned(fs, &w->h);
    return rc != 0 ? (rc < 0 ? rc : 0) : fs_finding(fs, sc, w->h.page, "orphan micro log");
}

int fs_scan(struct strata_fs *fs, struct fs_scan *sc)
{
    struct fs_walk w;
    uint32_t pass;
    int ev, rc;
    for (pass = 0; pass < 2; pass++) {
        fs_walk_at(fs, &w, 0);
        while ((ev = fs_step(fs, &w)) != EV_END) {
            if (ev < 0)
                return ev;
            rc = ev != EV_EXTENT ? 0 : pass ? pass_logs(fs, sc, &w) : pass_pointers(fs, sc, &w);
            if (rc == 0 && pass == 1 && sc->check != NULL)
                rc = sc->check(fs, sc, ev, &w);
            if (rc != 0)
                return rc;
        }
        if (pass == 0 && w.oks == 0)
            return w.others ? STRATA_EVERSION : STRATA_EUNFORMATTED;
    }
    return 0;
}

int strata_fs_format(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    uint32_t s;
    int rc = fs_setup(fs, cfg);
    for (s = 0; rc == 0 && s < fs->sectors; s++)
        rc = fs_erase(fs, s);
    return rc;
}

int strata_fs_mount(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    struct fs_scan sc;
    int rc = fs_setup(fs, cfg);
    memset(&sc, 0, sizeof sc);
    if (rc == 0 && (rc = fs_scan(fs, &sc)) == 0) {
        fs->mounted = 1;
        fs->gc_next = fs->seq % fs->sectors; /* spread collection across reboots */
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

int strata_fs_df(struct strata_fs *fs, struct strata_fs_usage *u)
{
    if (fs == NULL || u == NULL || !fs->mounted)
        return STRATA_EINVAL;
    memset(u, 0, sizeof *u);
    u->pages = fs->pages;
    u->sectors = fs->sectors;
    return fs_account(fs, u, NULL, NULL);
}
