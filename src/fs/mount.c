/*
 * format, mount (with repair), unmount, df and check.
 *
 * Mount and check share one scan. Pass 1 finds the highest sequence number and settles every
 * pointer: an uncommitted copy is obsoleted; a committed copy obsoletes the extent it
 * supersedes; a valid rename slot obsoletes the target it replaced. Pass 2 obsoletes every
 * micro log whose owner is gone or does not link to it. Each repair is one flag program and
 * the scan is idempotent, so a cut during mount is finished by the next mount. For check,
 * each such finding is a problem (mount would have repaired it), plus what no power cut can
 * produce: bad length slots or log links, log keys past the file, duplicate names, markers
 * that disagree with a live extent.
 */
#include <stdio.h>

#include "fs_internal.h"

enum { SCAN_MOUNT, SCAN_CHECK, SCAN_REPAIR };

struct scan {
    int mode;
    struct strata_fs_report *r;
};

/* A finding: mount repairs it quietly; check counts it and repairs on request. */
static int finding(struct strata_fs *fs, struct scan *sc, uint32_t page, const char *what)
{
    if (sc->mode != SCAN_MOUNT && sc->r->problems++ == 0)
        snprintf(sc->r->first, sizeof sc->r->first, "page %ld: %s",
                 page == FS_NONE ? -1L : (long)page, what);
    if (page == FS_NONE || sc->mode == SCAN_CHECK)
        return 0;
    if (sc->mode == SCAN_REPAIR)
        sc->r->repaired++;
    return fs_flag(fs, page, O_OBS(fs->cfg.name_max));
}

/* Obsolete the extent (page, seq) when it is still there and not obsolete. */
static int kill_target(struct strata_fs *fs, struct scan *sc, uint32_t page, uint32_t seq,
                       const char *what)
{
    uint8_t raw[FS_HDR_MAX];
    struct fs_hdr t;
    int rc;
    if (page == FS_NONE)
        return 0;
    rc = fs_hdr_read(fs, page, raw, &t);
    if (rc < 0)
        return rc;
    if (rc != HDR_VALID || t.seq != seq || t.obsolete || fs_opened(fs, page) != NULL)
        return 0;
    return finding(fs, sc, page, what);
}

static int pass_pointers(struct strata_fs *fs, struct scan *sc, struct fs_walk *w)
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
        return fs_opened(fs, h->page) ? 0 : finding(fs, sc, h->page, "uncommitted copy");
    if (h->lpage != FS_NONE)
        rc = kill_target(fs, sc, h->lpage, h->lseq, "superseded extent still live");
    if (rc == 0 && h->renamed == 1)
        rc = kill_target(fs, sc, h->rpage, h->rpseq, "rename target still live");
    return rc;
}

static int log_owned(struct strata_fs *fs, const struct fs_hdr *log)
{
    uint8_t raw[FS_HDR_MAX];
    struct fs_hdr o;
    int rc = fs_hdr_read(fs, log->lpage, raw, &o);
    if (rc < 0)
        return rc;
    return rc == HDR_VALID && o.type == FS_T_DATA && !o.obsolete && o.seq == log->lseq &&
           o.log == log->page && (fs_live(&o) || fs_opened(fs, o.page) != NULL);
}

/* Check-only: a live file's metadata, its log entries and name uniqueness. */
static int check_file(struct strata_fs *fs, struct scan *sc, struct fs_walk *w)
{
    struct strata_fs_file t;
    struct fs_walk o;
    uint32_t nlen = 0, j;
    int rc = fs_load(fs, &t, &w->h), ev;
    if (rc == STRATA_ECORRUPT)
        return finding(fs, sc, FS_NONE, "bad length slot or log link");
    for (j = 0; rc == 0 && j < t.kc; j++) {
        uint8_t e[FS_ENTRY];
        uint32_t key;
        if ((rc = fs_read(fs, fs_page_u(fs, t.log) + fs->hdr + FS_ENTRY * j, e, FS_ENTRY)) != 0)
            return rc;
        key = fs_get16(e);
        if (e[2] == fs_entry_check(key) && key * t.log_record >= t.cap)
            rc = finding(fs, sc, FS_NONE, "log entry past the end of the file");
    }
    while (nlen < fs->cfg.name_max && w->h.name[nlen] != 0)
        nlen++;
    fs_walk_at(fs, &o, w->page);
    while (rc == 0 && (ev = fs_step(fs, &o)) != EV_END) {
        if (ev < 0)
            return ev;
        if (ev == EV_EXTENT && fs_live(&o.h) &&
            fs_name_eq(fs, o.h.name, (const char *)w->h.name, nlen))
            rc = finding(fs, sc, o.h.seq < w->h.seq ? o.h.page : w->h.page, "duplicate name");
    }
    return rc;
}

static int pass_logs(struct strata_fs *fs, struct scan *sc, struct fs_walk *w)
{
    int rc;
    if (w->h.type == FS_T_DATA)
        return sc->mode != SCAN_MOUNT && fs_live(&w->h) ? check_file(fs, sc, w) : 0;
    if (w->h.obsolete)
        return 0;
    rc = log_owned(fs, &w->h);
    return rc != 0 ? (rc < 0 ? rc : 0) : finding(fs, sc, w->h.page, "orphan micro log");
}

/* Check-only: pages after a free page of a sector are never written; data there means a
 * damaged header hides an extent (bit rot, not a power cut). Samples each page's first bytes. */
static int check_free(struct strata_fs *fs, struct scan *sc, uint32_t at, uint32_t n)
{
    uint8_t b[16];
    uint32_t p;
    int rc;
    for (p = at + 1; p < at + n; p++) {
        if ((rc = fs_read(fs, fs_page_u(fs, p), b, sizeof b)) != 0)
            return rc;
        if (!fs_blank(b, sizeof b))
            return finding(fs, sc, FS_NONE, "data after a free page (damaged header?)");
    }
    return 0;
}

static int scan(struct strata_fs *fs, struct scan *sc)
{
    struct fs_walk w;
    uint32_t pass, carry_end = 0, carry_live = 0;
    int ev, rc;
    for (pass = 0; pass < 2; pass++) {
        fs_walk_at(fs, &w, 0);
        carry_end = 0;
        while ((ev = fs_step(fs, &w)) != EV_END) {
            if (ev < 0)
                return ev;
            rc = 0;
            if (ev == EV_EXTENT) {
                rc = pass ? pass_logs(fs, sc, &w) : pass_pointers(fs, sc, &w);
                if (w.h.pages > w.n) {
                    carry_end = w.at + w.h.pages;
                    carry_live = !w.h.obsolete;
                }
            } else if (ev == EV_FREE && pass && sc->mode != SCAN_MOUNT) {
                rc = check_free(fs, sc, w.at, w.n);
            } else if (ev == EV_COVER && pass && carry_live && carry_end > w.at &&
                       fs_min(carry_end - w.at, fs->pps) != w.n) {
                rc = finding(fs, sc, FS_NONE, "sector marker disagrees with a live extent");
            }
            if (sc->r != NULL && pass == 1) {
                sc->r->garbage_pages += ev == EV_GARBAGE;
                sc->r->dirty_sectors += ev == EV_DIRTY;
                sc->r->files += ev == EV_EXTENT && fs_live(&w.h);
                sc->r->logs += ev == EV_EXTENT && w.h.type == FS_T_LOG && !w.h.obsolete;
            }
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
    struct scan sc = {SCAN_MOUNT, NULL};
    int rc = fs_setup(fs, cfg);
    if (rc == 0 && (rc = scan(fs, &sc)) == 0) {
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

int strata_fs_check(struct strata_fs *fs, int repair, struct strata_fs_report *r)
{
    struct strata_fs_report local;
    struct scan sc;
    int rc;
    if (fs == NULL || !fs->mounted)
        return STRATA_EINVAL;
    sc.mode = repair ? SCAN_REPAIR : SCAN_CHECK;
    sc.r = r != NULL ? r : &local;
    memset(sc.r, 0, sizeof *sc.r);
    rc = scan(fs, &sc);
    return rc ? rc : (int)sc.r->problems;
}
