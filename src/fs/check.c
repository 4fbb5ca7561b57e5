/*
 * check (fsck): the mount scan in counting mode, plus what no power cut can produce, so that
 * every damaged metadata byte that changes a file is reported: a header that is sealed but does
 * not check, a length slot, link or log header that does not check, a committed log entry that
 * does not, log keys past the end of the file, duplicate names, sector markers that disagree
 * with a live extent, data hidden behind a damaged header. File data is not checked (as in
 * littlefs): a damaged data byte reads back damaged. A separate file, so that a program that
 * never calls check does not link it.
 */
#include "fs_internal.h"

#ifndef STRATA_FS_NO_CHECK

/* A visible file's metadata, its committed log entries and name uniqueness (the lookup of its
 * name must find this extent, or the other live file of that name: then the older one is
 * reported). */
static int check_file(struct strata_fs *fs, struct fs_scan *sc, struct fs_walk *w)
{
    struct strata_fs_file t;
    struct fs_hdr o;
    char name[STRATA_FS_NAME_LIMIT];
    uint8_t e[FS_ENTRY];
    uint32_t nlen = fs_name_len(fs, w->h.name), top, j;
    int rc;
    memcpy(name, w->h.name, nlen); /* before the scratch buffer is used again */
    rc = fs_load(fs, &t, &w->h);
    if (rc == STRATA_ECORRUPT)
        return fs_finding(fs, sc, FS_NONE, "bad length slot, link or log");
    if (rc == 0 && (rc = fs_log_scan(fs, &t, 0, NULL, 0, &top)) == 0 &&
        top >= t.tail_base + t.tail_cap + t.log_record)
        rc = fs_finding(fs, sc, FS_NONE, "log entry past end");
    /* committed entries are whole or voided (00 00 00 00): a cut never leaves one torn */
    for (j = 0; rc == 0 && j < t.log_committed; j++)
        if ((rc = fs_read(fs, fs_data_u(fs, t.log) + FS_ENTRY * j, e, FS_ENTRY)) == 0 &&
            fs_entry_key(e) == FS_NONE && strata_get_le32(e) != 0)
            rc = fs_finding(fs, sc, FS_NONE, "damaged log entry");
    if (rc == 0 && (rc = fs_lookup(fs, name, nlen, &o)) == 0 && o.page != w->h.page)
        rc = fs_finding(fs, sc, o.f[HF_SEQ] < w->h.f[HF_SEQ] ? o.page : w->h.page,
                        "duplicate name");
    return rc;
}

/* Pages after a free page of a sector are never written; data there means a damaged header
 * hides an extent (damage, not a power cut). Each page must read as a blank header. */
static int check_free(struct strata_fs *fs, struct fs_scan *sc, uint32_t at, uint32_t n)
{
    struct fs_hdr h;
    uint32_t p;
    int rc;
    for (p = at + 1; p < at + n; p++)
        if ((rc = fs_hdr_read(fs, p, &h)) != HDR_BLANK)
            return rc < 0 ? rc : fs_finding(fs, sc, FS_NONE, "data after a free page");
    return 0;
}

static int check_event(struct strata_fs *fs, struct fs_scan *sc, int ev, struct fs_walk *w)
{
    struct strata_fs_report *r = sc->r;
    r->garbage_pages += ev == EV_GARBAGE;
    r->dirty_sectors += ev == EV_DIRTY;
    if (ev == EV_GARBAGE && w->h.state != HS_NEW) /* a torn header is never sealed */
        return fs_finding(fs, sc, FS_NONE, "damaged header");
    if (ev == EV_FREE)
        return check_free(fs, sc, w->at, w->n);
    if (ev == EV_COVER && sc->carry_live && sc->carry_end > w->at &&
        fs_min(sc->carry_end - w->at, fs->pages_per_sector) != w->n)
        return fs_finding(fs, sc, FS_NONE, "bad sector marker");
    if (ev != EV_EXTENT)
        return 0;
    if (w->h.f[HF_PAGES] > w->n) {
        sc->carry_end = w->at + w->h.f[HF_PAGES];
        sc->carry_live = w->h.state != HS_OBSOLETE;
    }
    r->logs += w->h.type == FS_T_LOG && w->h.state != HS_OBSOLETE;
    if (!fs_visible(fs, &w->h))
        return 0;
    r->files++;
    return check_file(fs, sc, w);
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
