/*
 * check (fsck): the mount scan in counting mode, plus what no power cut can produce, so that
 * every damaged metadata byte that changes a file is reported: a header that is sealed but does
 * not check (the file it described is gone), a file whose length slots, links, log header or
 * committed log entries do not check, and duplicate names. File data is not checked (as in
 * littlefs): a damaged data byte reads back damaged. A separate file, so that a program that
 * never calls check does not link it.
 */
#include "fs_internal.h"

#ifndef STRATA_FS_NO_CHECK

/* A visible file's metadata (loading it and scanning its log entries) and name uniqueness (the
 * lookup of its name must find this extent, or the other live file of that name: then the
 * older one is reported). h is the walk's header: the lookup reuses it. (Not static: its frame
 * stays out of the scan's.) */
int fs_check_file(struct strata_fs *fs, struct fs_scan *sc, struct fs_hdr *h)
{
    struct strata_fs_file t;
    char name[STRATA_FS_NAME_LIMIT + 1];
    uint32_t top, page = h->page, seq = h->f[HF_SEQ];
    int rc;
    memset(name, 0, sizeof name);
    memcpy(name, h->name, (size_t)fs->cfg.name_max); /* before the scratch buffer is used again */
    if ((rc = fs_load(fs, &t, h)) == 0)
        rc = fs_log_scan(fs, &t, 0, NULL, 0, &top);
    if (rc == STRATA_ECORRUPT)
        return fs_finding(fs, sc, FS_NONE, "damaged length slot, link or log");
    if (rc == 0 && (rc = fs_lookup(fs, name, h)) == 0 && h->page != page)
        rc = fs_finding(fs, sc, h->f[HF_SEQ] < seq ? h->page : page, "duplicate name");
    return rc;
}

static int check_event(struct strata_fs *fs, struct fs_scan *sc, int ev, struct fs_walk *w)
{
    struct strata_fs_report *r = sc->r;
    r->garbage_pages += ev == EV_GARBAGE;
    r->dirty_sectors += ev == EV_DIRTY;
    if (ev == EV_GARBAGE && w->h.state != HS_NEW) /* a torn header is never sealed */
        return fs_finding(fs, sc, FS_NONE, "damaged header");
    if (ev != EV_EXTENT)
        return 0;
    r->logs += w->h.type == FS_T_LOG && w->h.state != HS_OBSOLETE;
    if (!fs_visible(fs, &w->h))
        return 0;
    r->files++;
    return fs_check_file(fs, sc, &w->h);
}

int strata_fs_check(struct strata_fs *fs, int repair, struct strata_fs_report *r)
{
    struct strata_fs_report local;
    struct fs_scan sc;
    int rc;
    if (fs == NULL || fs->mounted != FS_MOUNTED)
        return STRATA_EINVAL;
    memset(&sc, 0, sizeof sc);
    sc.mode = repair ? SCAN_REPAIR : SCAN_CHECK;
    sc.r = r != NULL ? r : &local;
    sc.check = check_event;
    memset(sc.r, 0, sizeof *sc.r);
    sc.r->first_page = FS_NONE;
    rc = fs_scan(fs, &sc);
    return rc ? rc : (int)sc.r->problems;
}

#endif /* STRATA_FS_NO_CHECK */
