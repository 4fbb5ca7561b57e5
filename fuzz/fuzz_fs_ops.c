/*
 * Operation-sequence fuzzer for strata_fs (the harness: opfuzz.h; the script: fs_ops.h).
 *
 * Checked, as include/strata/fs.h writes them:
 *  - every call's result against the model: success where the API must succeed (STRATA_ENOSPC
 *    excepted where the call allocates), an error where it must refuse (missing file without
 *    CREATE, EXCL on an existing one, a second handle, a name longer than name_max, ...);
 *  - reads through a handle return the handle's content (writes and truncates applied);
 *  - after a power cut at any flash operation, and after further cuts during the recovery:
 *    mount succeeds, strata_fs_check() reports no problem, and the whole namespace is the
 *    durable state before the interrupted call or the one that call was making durable (every
 *    file at its last commit, renames atomic, nothing lost or duplicated); every later call
 *    works (the script goes on);
 *  - the device never saw a rule violation and nothing was written outside the region.
 * A failed commit (STRATA_ENOSPC from sync/close) leaves the old or the new content; a failed
 * write leaves the old content with a prefix of the write applied.
 *
 * Known defects (docs/fuzzing.md) tolerated outside strict mode: FS-13, a call that fails with
 * STRATA_EVIOLATION from the row-time rule only (msp430f5529), ends the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_glue.h"
#include "fs_model.h"
#include "fs_ops.h"
#include "opfuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define R STRATA_FS_READ
#define W STRATA_FS_WRITE
#define C STRATA_FS_CREATE
static const unsigned fo_flags[FO_FLAGS] = {
    R, W, R | W, R | W | C, R | W | C | STRATA_FS_EXCL, STRATA_FS_APPEND | C,
    STRATA_FS_APPEND | R | C, W | C};
static const uint32_t fo_logs[FO_LOGS][2] = {{64, 16}, {256, 64}, {512, 256},
                                             {32, 1},  {600, 200}, {128, 128}};

/* The model of one handle: its volatile content (unknown after a failed write it cannot read
 * back through a write-only handle). */
struct mh {
    uint8_t open, name, unknown;
    unsigned flags;
    uint8_t *data;
    uint32_t len, pos, cap;
};

struct fo {
    struct fsg g;
    struct strata_fs fs;
    struct strata_fs_file fh[FO_HANDLES];
    struct mh h[FO_HANDLES];
    struct fm_arena arena;
    struct fm_ns ns;            /* durable state now */
    struct fm_ns before, after; /* around the call in progress: what a cut may leave */
    uint8_t *io;                /* FO_MAX_READ bytes */
    int strict;                 /* no known defect tolerated */
    int known;                  /* a tolerated known defect showed: the input ends */
};

static uint8_t data_byte(uint8_t seed, uint32_t at)
{
    switch (seed & 7u) {
    case 0: return 0xFF; /* erased-looking data is data too */
    case 1: return 0x00;
    default: return (uint8_t)((at * 29u) ^ (seed * 0x9Du) ^ (at >> 7));
    }
}

static int name_ok(const struct fo *s, unsigned n)
{
    return strlen(fm_names[n]) <= s->g.name_max;
}

static int open_on(const struct fo *s, unsigned n)
{
    unsigned i;
    for (i = 0; i < FO_HANDLES; i++)
        if (s->h[i].open && s->h[i].name == n)
            return 1;
    return 0;
}

static void h_room(struct mh *h, uint32_t len)
{
    if (len <= h->cap && h->data != NULL)
        return;
    h->cap = len + 256u;
    if ((h->data = realloc(h->data, h->cap)) == NULL)
        fz_fail("out of memory");
}

/* A call is about to run: a cut during it may leave `before` or `after`. */
static void about(struct fo *s, const struct fm_ns *after)
{
    s->before = s->ns;
    s->after = after != NULL ? *after : s->ns;
}

/* Compare a call's result with the model's expectation. Returns 1 when the call took effect,
 * 0 when it did not (an expected refusal, or ENOSPC where allowed), STRATA_EPOWER. */
static int settle(struct fo *s, int rc, int ok, int nospc, const char *what)
{
    struct strata_sim_stats st;
    if (rc == STRATA_EPOWER)
        return STRATA_EPOWER;
    if (rc == STRATA_EVIOLATION && !s->strict) {
        strata_sim_stats(s->g.dev.sim, &st);
        if (st.violations == st.violation[STRATA_SIM_V_ROW_TIME]) {
            s->known = 1; /* FS-13: treated as a refusal; fo_step ends the input */
            return 0;
        }
    }
    if (ok && rc >= 0)
        return 1;
    if (!ok && rc < 0)
        return 0;
    if (ok && nospc && rc == STRATA_ENOSPC)
        return 0;
    fz_fail("fs: %s returned %d (%s); the model expected %s", what, rc, strata_strerror(rc),
            ok ? "success" : "an error");
}

static const struct fm_blob *h_blob(struct fo *s, const struct mh *h)
{
    return fm_blob(&s->arena, h->data, h->len);
}

/* Read the handle's whole content back (position kept). 0, or an error. */
static int h_read_back(struct fo *s, unsigned i, uint8_t **out, uint32_t *len)
{
    struct strata_fs_file *f = &s->fh[i];
    int32_t pos = strata_fs_seek(&s->fs, f, 0, STRATA_FS_SEEK_CUR), n;
    uint8_t *buf = NULL;
    uint32_t got = 0, cap = 0;
    if (pos < 0 || (n = strata_fs_seek(&s->fs, f, 0, STRATA_FS_SEEK_SET)) < 0)
        return pos < 0 ? (int)pos : STRATA_EIO;
    do {
        if (got + FO_MAX_READ > cap && (buf = realloc(buf, cap = 2 * cap + FO_MAX_READ)) == NULL)
            fz_fail("out of memory");
        n = strata_fs_read(&s->fs, f, buf + got, FO_MAX_READ);
        got += n > 0 ? (uint32_t)n : 0u;
    } while (n > 0);
    if (n < 0 || (n = strata_fs_seek(&s->fs, f, pos, STRATA_FS_SEEK_SET)) < 0) {
        free(buf);
        return (int)n;
    }
    *out = buf;
    *len = got;
    return 0;
}

/* A file just opened with several possible contents: read it and settle which. */
static void settle_content(struct fo *s, unsigned i)
{
    struct mh *h = &s->h[i];
    struct fm_file *f = &s->ns.f[h->name];
    uint8_t *buf;
    uint32_t len;
    int rc;
    if (f->nc == 1)
        return;
    if (!(h->flags & R) || (rc = h_read_back(s, i, &buf, &len)) != 0) {
        h->unknown = 1;
        return;
    }
    if (!fm_may_hold(f, buf, len))
        fz_fail("fs: '%s' opened with content none of the possible ones", fm_names[h->name]);
    fm_set(f, fm_blob(&s->arena, buf, len));
    h_room(h, len);
    memcpy(h->data, buf, len);
    h->len = len;
    h->unknown = 0;
    free(buf);
}

static int op_open(struct fo *s, struct fz_in *in)
{
    unsigned i = fz_u8(in) % FO_HANDLES, n = fz_u8(in) % FM_NAMES;
    unsigned fl = fo_flags[fz_u8(in) % FO_FLAGS];
    struct mh *h = &s->h[i];
    struct fm_ns after = s->ns;
    const struct fm_file *f = &s->ns.f[n];
    int ok, rc;
    if (h->open)
        return 0; /* reopening an open handle: not a call scripts make */
    ok = name_ok(s, n) && (f->exists ? !((fl & C) && (fl & STRATA_FS_EXCL)) && !open_on(s, n)
                                     : (fl & C) != 0);
    if (ok && !f->exists)
        fm_set(&after.f[n], fm_blob(&s->arena, NULL, 0));
    about(s, &after);
    rc = settle(s, strata_fs_open(&s->fs, &s->fh[i], fm_names[n], fl), ok, !f->exists, "open");
    if (rc != 1)
        return rc;
    s->ns = after;
    h->open = 1;
    h->name = (uint8_t)n;
    h->flags = fl & STRATA_FS_APPEND ? fl | W : fl;
    h->unknown = s->ns.f[n].nc == 0;
    h->len = h->pos = 0;
    if (s->ns.f[n].nc > 0) {
        h->len = s->ns.f[n].c[0]->len;
        h_room(h, h->len);
        memcpy(h->data, s->ns.f[n].c[0]->data, h->len);
    }
    settle_content(s, i);
    return 0;
}

/* A write that failed part way: the handle holds the old content with a prefix w[0, k) of the
 * write applied, for some k (pieces land one by one). Learn which, if the handle can be read. */
static int after_failed_write(struct fo *s, unsigned i, uint32_t at, const uint8_t *w,
                              uint32_t n)
{
    struct mh *h = &s->h[i];
    uint8_t *buf;
    uint32_t len, k, j;
    int32_t pos;
    if (h->unknown || !(h->flags & R) || h_read_back(s, i, &buf, &len) != 0) {
        h->unknown = 1;
        return 0;
    }
    for (k = 0; k < n && at + k < len && buf[at + k] == w[k]; k++)
        ; /* the longest prefix of the write that shows */
    for (j = h->len; j > at && j <= len && buf[j - 1] == h->data[j - 1]; j--)
        ; /* old bytes show from j to the old end */
    if (len < h->len || memcmp(buf, h->data, at) != 0 ||
        (len > h->len ? len - at > k : j > at + k)) {
        free(buf);
        fz_fail("fs: a failed write of %u bytes at %u left a content that is not the old one "
                "(%u bytes) with a prefix of the write (%u bytes now)",
                (unsigned)n, (unsigned)at, (unsigned)h->len, (unsigned)len);
    }
    h_room(h, len);
    memcpy(h->data, buf, len);
    h->len = len;
    free(buf);
    pos = strata_fs_seek(&s->fs, &s->fh[i], 0, STRATA_FS_SEEK_CUR);
    h->pos = pos >= 0 ? (uint32_t)pos : h->pos;
    return 0;
}

static int do_write(struct fo *s, unsigned i, uint32_t off, uint32_t n, uint8_t seed)
{
    struct mh *h = &s->h[i];
    uint8_t *w = s->io;
    uint32_t at, k;
    int32_t rc;
    int ok = h->open && (h->flags & W);
    if (ok && !(h->flags & STRATA_FS_APPEND)) {
        off = off == 0xFFFFFFFFu ? h->len : off % (h->len + 1u);
        if (strata_fs_seek(&s->fs, &s->fh[i], (int32_t)off, STRATA_FS_SEEK_SET) != (int32_t)off)
            fz_fail("fs: seek to %u of %u failed", (unsigned)off, (unsigned)h->len);
        h->pos = off;
    }
    at = ok && (h->flags & STRATA_FS_APPEND) ? h->len : h->pos;
    for (k = 0; k < n; k++)
        w[k] = data_byte(seed, at + k);
    about(s, NULL);
    rc = strata_fs_write(&s->fs, &s->fh[i], w, n);
    if (ok && rc >= 0 && rc != (int32_t)n)
        fz_fail("fs: write of %u returned %d", (unsigned)n, (int)rc);
    if ((rc = settle(s, rc < 0 ? rc : 0, ok, 1, "write")) != 1) {
        if (rc == 0 && ok && !s->known)
            return after_failed_write(s, i, at, w, n);
        return rc;
    }
    h_room(h, at + n);
    memcpy(h->data + at, w, n);
    h->len = at + n > h->len ? at + n : h->len;
    h->pos = at + n;
    return 0;
}

static int op_write(struct fo *s, struct fz_in *in, int append)
{
    unsigned i = fz_u8(in) % FO_HANDLES;
    uint32_t off = append ? 0xFFFFFFFFu : fz_u16(in);
    uint32_t n = 1u + fz_u16(in) % FO_MAX_WRITE;
    return do_write(s, i, off, n, fz_u8(in));
}

static int op_read(struct fo *s, struct fz_in *in)
{
    unsigned i = fz_u8(in) % FO_HANDLES;
    struct mh *h = &s->h[i];
    uint32_t off = fz_u16(in), n = fz_u16(in) % (FO_MAX_READ + 1u), want;
    int ok = h->open && (h->flags & R);
    int32_t rc;
    if (ok) {
        off %= h->len + 1u;
        if (strata_fs_seek(&s->fs, &s->fh[i], (int32_t)off, STRATA_FS_SEEK_SET) != (int32_t)off)
            fz_fail("fs: seek to %u of %u failed", (unsigned)off, (unsigned)h->len);
        h->pos = off;
    }
    about(s, NULL);
    rc = strata_fs_read(&s->fs, &s->fh[i], s->io, n);
    if (settle(s, rc < 0 ? rc : 0, ok, 0, "read") != 1)
        return 0;
    want = h->len - h->pos < n ? h->len - h->pos : n;
    if (!h->unknown && ((uint32_t)rc != want || memcmp(s->io, h->data + h->pos, want) != 0))
        fz_fail("fs: read of %u at %u in '%s' (%u bytes) returned %d bytes%s", (unsigned)n,
                (unsigned)h->pos, fm_names[h->name], (unsigned)h->len, (int)rc,
                (uint32_t)rc == want ? " that differ" : "");
    h->pos += (uint32_t)rc;
    return 0;
}

/* sync (close = 0) or close (close = 1) */
static int op_commit(struct fo *s, unsigned i, int close)
{
    struct mh *h = &s->h[i];
    struct fm_ns after = s->ns;
    const struct fm_blob *b = NULL;
    int rc;
    if (h->open) {
        b = h_blob(s, h);
        if (h->unknown)
            after.f[h->name].nc = 0;
        else
            fm_set(&after.f[h->name], b);
    }
    about(s, &after);
    rc = close ? strata_fs_close(&s->fs, &s->fh[i]) : strata_fs_sync(&s->fs, &s->fh[i]);
    if ((rc = settle(s, rc, h->open, 1, close ? "close" : "sync")) == STRATA_EPOWER)
        return rc;
    if (rc == 1)
        s->ns = after;
    else if (h->open && !h->unknown)
        fm_either(&s->ns.f[h->name], b); /* failed commit: old or new */
    else if (h->open)
        s->ns.f[h->name].nc = 0;
    if (close)
        h->open = 0;
    return 0;
}

static int op_trunc(struct fo *s, struct fz_in *in)
{
    unsigned i = fz_u8(in) % FO_HANDLES;
    struct mh *h = &s->h[i];
    uint32_t size = fz_u16(in);
    int ok = h->open && (h->flags & W);
    if (ok)
        size %= h->len + 1u;
    about(s, NULL);
    if (settle(s, strata_fs_truncate(&s->fs, &s->fh[i], size), ok, 0, "truncate") != 1)
        return 0;
    h->len = size;
    h->pos = h->pos < size ? h->pos : size;
    return 0;
}

static int op_remove(struct fo *s, unsigned n)
{
    struct fm_ns after = s->ns;
    int ok = name_ok(s, n) && s->ns.f[n].exists && !open_on(s, n), rc;
    after.f[n].exists = 0;
    about(s, ok ? &after : NULL);
    rc = settle(s, strata_fs_remove(&s->fs, fm_names[n]), ok, 0, "remove");
    if (rc == 1)
        s->ns = after;
    return rc == STRATA_EPOWER ? rc : 0;
}

static int op_rename(struct fo *s, unsigned a, unsigned b)
{
    struct fm_ns after = s->ns;
    int ok = name_ok(s, a) && name_ok(s, b) && s->ns.f[a].exists && !open_on(s, a) &&
             !open_on(s, b),
        rc;
    after.f[b] = after.f[a];
    after.f[a].exists = 0;
    about(s, ok ? &after : NULL);
    rc = strata_fs_rename(&s->fs, fm_names[a], fm_names[b]);
    rc = settle(s, rc, ok, 1, "rename");
    if (rc == 1)
        s->ns = after;
    return rc == STRATA_EPOWER ? rc : 0;
}

/* reserve (log = NULL) or configure_log: both create a missing file, empty. */
static int op_create(struct fo *s, unsigned n, uint32_t size, const uint32_t *log)
{
    struct fm_ns after = s->ns;
    int exists = s->ns.f[n].exists, ok, rc;
    if (log != NULL && exists && open_on(s, n))
        return 0; /* configure_log of an open file: the API leaves it unspecified */
    ok = name_ok(s, n) && (log != NULL || !exists);
    if (!exists)
        fm_set(&after.f[n], fm_blob(&s->arena, NULL, 0));
    about(s, ok ? &after : NULL);
    rc = log != NULL ? strata_fs_configure_log(&s->fs, fm_names[n], log[0], log[1])
                     : strata_fs_reserve(&s->fs, fm_names[n], size);
    rc = settle(s, rc, ok, 1, log != NULL ? "configure_log" : "reserve");
    if (rc == 1)
        s->ns = after;
    return rc == STRATA_EPOWER ? rc : 0;
}

static void check_size(const struct fo *s, unsigned n, uint32_t size)
{
    unsigned i;
    for (i = 0; i < FO_HANDLES; i++)
        if (s->h[i].open && s->h[i].name == n) {
            if (!s->h[i].unknown && size != s->h[i].len)
                fz_fail("fs: stat of open '%s' says %u bytes, the handle has %u", fm_names[n],
                        (unsigned)size, (unsigned)s->h[i].len);
            return;
        }
    for (i = 0; i < s->ns.f[n].nc; i++)
        if (s->ns.f[n].c[i]->len == size)
            return;
    if (s->ns.f[n].nc > 0)
        fz_fail("fs: stat of '%s' says %u bytes, the model %u", fm_names[n], (unsigned)size,
                (unsigned)s->ns.f[n].c[0]->len);
}

static int op_stat(struct fo *s, unsigned n)
{
    struct strata_fs_stat st;
    int ok = name_ok(s, n) && s->ns.f[n].exists;
    about(s, NULL);
    if (settle(s, strata_fs_stat(&s->fs, fm_names[n], &st), ok, 0, "stat") == 1)
        check_size(s, n, st.size);
    return 0;
}

static int op_list(struct fo *s)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int seen[FM_NAMES] = {0}, rc;
    unsigned n;
    about(s, NULL);
    if ((rc = strata_fs_opendir(&s->fs, &d)) != 0)
        fz_fail("fs: opendir: %d", rc);
    while ((rc = strata_fs_readdir(&s->fs, &d, &st)) == 1) {
        for (n = 0; n < FM_NAMES && strcmp(st.name, fm_names[n]) != 0; n++)
            ;
        if (n == FM_NAMES || seen[n]++ || !s->ns.f[n].exists)
            fz_fail("fs: readdir lists '%.32s', which %s", st.name,
                    n == FM_NAMES ? "the script never made"
                    : seen[n] > 1 ? "it listed already" : "does not exist");
        check_size(s, n, st.size);
    }
    if (rc != 0)
        fz_fail("fs: readdir: %d", rc);
    for (n = 0; n < FM_NAMES; n++)
        if (s->ns.f[n].exists && !seen[n])
            fz_fail("fs: readdir misses '%s'", fm_names[n]);
    return 0;
}

static void check_fsck(struct fo *s, const char *when)
{
    struct strata_fs_report r;
    int rc = strata_fs_check(&s->fs, 0, &r);
    if (rc != 0)
        fz_fail("fs: check %s: %d (%u problems; first: %s at page %u)", when, rc,
                (unsigned)r.problems, r.first ? r.first : "-", (unsigned)r.first_page);
}

/* Read the namespace and require it to be one of the allowed states; adopt what was read. */
static void compare(struct fo *s, const struct fm_ns *a, const struct fm_ns *b, const char *when)
{
    struct fm_ns obs;
    char why[200], why2[200];
    int rc = fm_observe(&s->fs, &s->arena, &obs);
    if (rc != 0)
        fz_fail("fs: reading the namespace %s: %d", when, rc);
    if (fm_matches(a, &obs, why, sizeof why) ||
        (b != NULL && fm_matches(b, &obs, why2, sizeof why2))) {
        s->ns = obs;
        return;
    }
    fz_fail("fs: %s: the namespace is neither the state before the call (%s) nor after it (%s)",
            when, why, b != NULL ? why2 : "-");
}

static int op_remount(struct fo *s)
{
    unsigned i;
    int rc;
    for (i = 0; i < FO_HANDLES; i++)
        if (s->h[i].open && (rc = op_commit(s, i, 1)) != 0)
            return rc;
    about(s, NULL);
    if ((rc = strata_fs_unmount(&s->fs)) != 0)
        fz_fail("fs: unmount: %d", rc);
    if ((rc = strata_fs_mount(&s->fs, &s->g.cfg)) == STRATA_EPOWER)
        return rc;
    if (rc != 0)
        fz_fail("fs: mount after unmount: %d", rc);
    check_fsck(s, "after a clean remount");
    compare(s, &s->ns, NULL, "after a clean remount");
    return 0;
}

static int fo_op(struct fo *s, uint8_t op, struct fz_in *in)
{
    unsigned a;
    switch (op % FO_COUNT) {
    case FO_OPEN: return op_open(s, in);
    case FO_WRITE: return op_write(s, in, 0);
    case FO_APPEND: return op_write(s, in, 1);
    case FO_READ: return op_read(s, in);
    case FO_SYNC: return op_commit(s, fz_u8(in) % FO_HANDLES, 0);
    case FO_CLOSE: return op_commit(s, fz_u8(in) % FO_HANDLES, 1);
    case FO_TRUNC: return op_trunc(s, in);
    case FO_REMOVE: return op_remove(s, fz_u8(in) % FM_NAMES);
    case FO_RENAME:
        a = fz_u8(in) % FM_NAMES;
        return op_rename(s, a, (a + 1u + fz_u8(in) % (FM_NAMES - 1u)) % FM_NAMES);
    case FO_RESERVE:
        a = fz_u8(in) % FM_NAMES;
        return op_create(s, a, fz_u16(in), NULL);
    case FO_CONFLOG:
        a = fz_u8(in) % FM_NAMES;
        return op_create(s, a, 0, fo_logs[fz_u8(in) % FO_LOGS]);
    case FO_GC:
        about(s, NULL);
        return settle(s, strata_fs_gc(&s->fs), 1, 0, "gc") == STRATA_EPOWER ? STRATA_EPOWER : 0;
    case FO_STAT: return op_stat(s, fz_u8(in) % FM_NAMES);
    case FO_LIST: return op_list(s);
    default: return op_remount(s);
    }
}

static int fo_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct fo *s = arg;
    int rc = fo_op(s, op, in);
    return s->known && rc != STRATA_EPOWER ? OF_STOP : rc;
}

static void fo_lost(void *arg)
{
    struct fo *s = arg;
    unsigned i;
    memset(&s->fs, 0xA5, sizeof s->fs); /* RAM is gone */
    memset(s->fh, 0xA5, sizeof s->fh);
    for (i = 0; i < FO_HANDLES; i++)
        s->h[i].open = 0;
}

static int fo_recover(void *arg)
{
    struct fo *s = arg;
    /* a reboot: the program's start-up zeroes its context, as fs.h asks before a first mount */
    memset(&s->fs, 0, sizeof s->fs);
    return strata_fs_mount(&s->fs, &s->g.cfg);
}

static void fo_check(void *arg)
{
    struct fo *s = arg;
    check_fsck(s, "after recovery");
    compare(s, &s->before, &s->after, "after a power cut");
    s->before = s->after = s->ns; /* a cut during a later recovery-free mount changes nothing */
}

static int fo_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    struct fo *s = arg;
    struct fsg_choice c;
    uint32_t ps;
    int valid, rc;
    fz_take(in, c.f, FSG_FIELDS);
    s->strict = getenv("STRATA_FUZZ_STRICT") != NULL;
    if (fsg_make(&s->g, &c, fz_u8(in)) != 0)
        return -1;
    *dev = s->g.dev;
    if (getenv("STRATA_FUZZ_TRACE") != NULL)
        fprintf(stderr, "fs on %s: %u sectors, name_max %u, default size %u, log %u x %u, "
                "clean_every %u\n", fsg_profile(&c), (unsigned)s->g.cfg.unit_count,
                (unsigned)s->g.name_max, (unsigned)s->g.cfg.default_size,
                (unsigned)s->g.cfg.log_size, (unsigned)s->g.cfg.log_record,
                (unsigned)s->g.cfg.clean_every);
    if ((s->io = malloc(FO_MAX_READ > FO_MAX_WRITE ? FO_MAX_READ : FO_MAX_WRITE)) == NULL)
        fz_fail("out of memory");
    ps = s->g.cfg.flash->geo.page_size;
    /* docs/format-fs.md: H + M + 16 <= P with H = 72 + N, M = 12 (fs.h's "88 + name_max" leaves
     * out the sector marker; the code follows format-fs.md) */
    valid = s->g.name_max <= STRATA_FS_NAME_LIMIT && 100u + s->g.name_max <= ps;
    rc = strata_fs_format(&s->fs, &s->g.cfg);
    if (!valid && rc == 0)
        fz_fail("fs: format took name_max %u on %u-byte pages", (unsigned)s->g.name_max,
                (unsigned)ps);
    if (!valid)
        return -1;
    if (rc != 0 || (rc = strata_fs_mount(&s->fs, &s->g.cfg)) != 0)
        fz_fail("fs: format + mount of a valid configuration: %d", rc);
    about(s, NULL);
    return 0;
}

static void fo_stop(void *arg)
{
    struct fo *s = arg;
    unsigned i;
    for (i = 0; i < FO_HANDLES; i++)
        free(s->h[i].data);
    free(s->io);
    fm_arena_free(&s->arena);
}

static const char *const fo_names[FO_COUNT] = {
    "open", "write", "append", "read", "sync", "close", "truncate", "remove",
    "rename", "reserve", "configure_log", "gc", "stat", "list", "remount"};

static const struct of_engine fs_engine = {"fs",      sizeof(struct fo), fo_start, fo_step,
                                           fo_lost,   fo_recover,        fo_check, fo_stop,
                                           fo_names,  FO_COUNT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&fs_engine, data, size);
}
