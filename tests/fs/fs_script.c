#include "fs_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sc_names[SC_NAMES] = {"a", "b", "c", "log", "cfg", "cfg.tmp", "routes",
                                        "queue"};

uint8_t sc_byte(uint32_t seed, uint32_t at)
{
    if (seed % 5 == 0)
        return 0xFF; /* erased-looking data must survive as data */
    if (seed % 7 == 0)
        return 0x00;
    return (uint8_t)(seed * 131 + at * 7 + (at >> 5));
}

void sc_model_init(struct sc_model *m)
{
    memset(m, 0, sizeof *m);
}

void sc_model_free(struct sc_model *m)
{
    size_t i;
    int h;
    for (i = 0; i < m->nblobs; i++)
        free(m->blobs[i]);
    free(m->blobs);
    for (h = 0; h < SC_HANDLES; h++)
        free(m->h[h].data);
    memset(m, 0, sizeof *m);
}

static const uint8_t *blob(struct sc_model *m, const uint8_t *data, uint32_t len)
{
    uint8_t *b = malloc(len ? len : 1);
    assert_non_null(b);
    if (len > 0)
        memcpy(b, data, len);
    if (m->nblobs == m->cblobs) {
        m->cblobs = m->cblobs ? 2 * m->cblobs : 64;
        m->blobs = realloc(m->blobs, m->cblobs * sizeof *m->blobs);
        assert_non_null(m->blobs);
    }
    m->blobs[m->nblobs++] = b;
    return b;
}

static void set_file(struct sc_model *m, int name, const uint8_t *data, uint32_t len)
{
    m->ns.f[name].exists = 1;
    m->ns.f[name].len = len;
    m->ns.f[name].data = blob(m, data, len);
}

static int open_on(const struct sc_model *m, int name)
{
    int h;
    for (h = 0; h < SC_HANDLES; h++)
        if (m->h[h].open && m->h[h].name == name)
            return 1;
    return 0;
}

static void reserve_h(struct sc_handle *h, uint32_t len)
{
    if (len > h->cap) {
        h->cap = len + 1024;
        h->data = realloc(h->data, h->cap);
        assert_non_null(h->data);
    }
}

static void commit(struct sc_model *m, struct sc_handle *h)
{
    set_file(m, h->name, h->data, h->len);
}

void sc_model_drop_handles(struct sc_model *m)
{
    int h;
    for (h = 0; h < SC_HANDLES; h++)
        m->h[h].open = 0;
}

int sc_model_apply(struct sc_model *m, const struct sc_op *op)
{
    struct sc_handle *h = &m->h[op->h % SC_HANDLES];
    struct sc_file *a = &m->ns.f[op->a % SC_NAMES], *b = &m->ns.f[op->b % SC_NAMES];
    uint32_t i, at, end;
    switch (op->kind) {
    case SC_OPEN:
        if (h->open)
            return STRATA_EINVAL; /* scripts never do this */
        if (a->exists && (op->off & STRATA_FS_CREATE) && (op->off & STRATA_FS_EXCL))
            return STRATA_EEXIST;
        if (open_on(m, op->a))
            return STRATA_EBUSY;
        if (!a->exists) {
            if (!(op->off & STRATA_FS_CREATE))
                return STRATA_ENOENT;
            set_file(m, op->a, NULL, 0);
        } else if ((op->off & STRATA_FS_CREATE) && (op->off & STRATA_FS_EXCL)) {
            return STRATA_EEXIST;
        }
        h->open = 1;
        h->name = op->a;
        h->flags = (op->off & 31u) | ((op->off & STRATA_FS_APPEND) ? STRATA_FS_WRITE : 0);
        reserve_h(h, a->len);
        if (a->len > 0)
            memcpy(h->data, a->data, a->len);
        h->len = a->len;
        h->pos = 0;
        return 0;
    case SC_WRITE:
        at = (h->flags & STRATA_FS_APPEND) ? h->len : op->off == SC_AT_END ? h->pos : op->off;
        if (!h->open || !(h->flags & STRATA_FS_WRITE))
            return STRATA_EBADF;
        if (at > h->len)
            return STRATA_EINVAL;
        end = at + op->len;
        reserve_h(h, end);
        for (i = at; i < end; i++)
            h->data[i] = sc_byte(op->seed, i);
        if (end > h->len)
            h->len = end;
        h->pos = end;
        return 0;
    case SC_READ:
        return h->open && (h->flags & STRATA_FS_READ) ? 0 : STRATA_EBADF;
    case SC_SYNC:
    case SC_CLOSE:
        if (!h->open)
            return STRATA_EBADF;
        commit(m, h);
        h->open = op->kind == SC_SYNC;
        return 0;
    case SC_TRUNC:
        if (!h->open || !(h->flags & STRATA_FS_WRITE))
            return STRATA_EBADF;
        if (op->off > h->len)
            return STRATA_EINVAL;
        h->len = op->off;
        if (h->pos > h->len)
            h->pos = h->len;
        return 0;
    case SC_REMOVE:
        if (!a->exists)
            return STRATA_ENOENT;
        if (open_on(m, op->a))
            return STRATA_EBUSY;
        a->exists = 0;
        return 0;
    case SC_RENAME:
        if (b->exists && open_on(m, op->b))
            return STRATA_EBUSY;
        if (!a->exists)
            return STRATA_ENOENT;
        if (open_on(m, op->a))
            return STRATA_EBUSY;
        if (op->a != op->b) {
            *b = *a;
            a->exists = 0;
        }
        return 0;
    case SC_RESERVE:
        if (a->exists)
            return STRATA_EEXIST;
        set_file(m, op->a, NULL, 0);
        return 0;
    case SC_CONFLOG:
        if (a->exists && open_on(m, op->a))
            return STRATA_EBUSY;
        if (!a->exists)
            set_file(m, op->a, NULL, 0);
        return 0;
    default:
        return 0;
    }
}

static int read_check(struct strata_fs *fs, struct strata_fs_file *f, const struct sc_handle *h)
{
    uint8_t b[256];
    uint32_t at = 0;
    int32_t n;
    int32_t pos = strata_fs_seek(fs, f, 0, STRATA_FS_SEEK_CUR);
    if (pos < 0)
        return pos;
    if ((n = strata_fs_seek(fs, f, 0, STRATA_FS_SEEK_SET)) < 0)
        return n;
    while ((n = strata_fs_read(fs, f, b, sizeof b)) > 0) {
        if (h != NULL && (at + (uint32_t)n > h->len || memcmp(b, h->data + at, (size_t)n) != 0)) {
            uint32_t k = 0;
            while (k + 1 < (uint32_t)n && at + k < h->len && b[k] == h->data[at + k])
                k++;
            fprintf(stderr, "read mismatch in %s at offset %u of %u (read %u)\n",
                    sc_names[h->name], (unsigned)(at + k), (unsigned)h->len, (unsigned)n);
            return STRATA_ECORRUPT;
        }
        at += (uint32_t)n;
    }
    if (n < 0)
        return n;
    if (h != NULL && at != h->len) {
        fprintf(stderr, "read %u bytes of %s, model has %u\n", (unsigned)at, sc_names[h->name],
                (unsigned)h->len);
        return STRATA_ECORRUPT;
    }
    n = strata_fs_seek(fs, f, pos, STRATA_FS_SEEK_SET);
    return n < 0 ? n : 0;
}

int sc_run(struct strata_fs *fs, struct strata_fs_file *fh, const struct sc_op *op,
           const struct sc_model *m)
{
    struct strata_fs_file *f = &fh[op->h % SC_HANDLES];
    const char *a = sc_names[op->a % SC_NAMES], *b = sc_names[op->b % SC_NAMES];
    uint8_t buf[512];
    uint32_t i, done;
    int32_t n;
    static uint8_t buffers[SC_HANDLES][256];
    struct strata_fs_file_config fc;
    switch (op->kind) {
    case SC_OPEN:
        memset(&fc, 0, sizeof fc);
        fc.size = op->len;
        if (op->off & SC_BUFFERED) {
            fc.buffer = buffers[op->h % SC_HANDLES];
            fc.buffer_size = 64 + op->h * 64; /* 64 to 256 bytes: flushes at buffer and page ends */
        }
        return strata_fs_opencfg(fs, f, a, op->off & 31u, &fc);
    case SC_WRITE:
        if (op->off != SC_AT_END && (n = strata_fs_seek(fs, f, (int32_t)op->off,
                                                        STRATA_FS_SEEK_SET)) < 0)
            return n;
        n = strata_fs_seek(fs, f, 0, STRATA_FS_SEEK_CUR);
        if (n < 0)
            return n;
        if (f->flags & STRATA_FS_APPEND)
            n = (int32_t)f->len;
        for (done = 0; done < op->len; done += (uint32_t)n) {
            uint32_t c = op->len - done < sizeof buf ? op->len - done : sizeof buf;
            uint32_t at = (f->flags & STRATA_FS_APPEND) ? f->len : f->pos;
            for (i = 0; i < c; i++)
                buf[i] = sc_byte(op->seed, at + i);
            /* one write() call per op when it fits: the unit the model reasons about */
            if ((n = strata_fs_write(fs, f, buf, c)) < 0)
                return n;
        }
        return 0;
    case SC_READ:
        return read_check(fs, f, m != NULL ? &m->h[op->h % SC_HANDLES] : NULL);
    case SC_SYNC:
        return strata_fs_sync(fs, f);
    case SC_CLOSE:
        return strata_fs_close(fs, f);
    case SC_TRUNC:
        return strata_fs_truncate(fs, f, op->off);
    case SC_REMOVE:
        return strata_fs_remove(fs, a);
    case SC_RENAME:
        return strata_fs_rename(fs, a, b);
    case SC_RESERVE:
        return strata_fs_reserve(fs, a, op->off);
    case SC_CONFLOG:
        return strata_fs_configure_log(fs, a, op->off, op->len);
    case SC_GC:
        n = strata_fs_gc(fs);
        return n < 0 ? n : 0;
    default:
        return STRATA_EINVAL;
    }
}

static int name_index(const char *name)
{
    int i;
    for (i = 0; i < SC_NAMES; i++)
        if (strcmp(name, sc_names[i]) == 0)
            return i;
    return -1;
}

int sc_compare(struct strata_fs *fs, const struct sc_ns *ns, char *why, size_t wn)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int seen[SC_NAMES] = {0}, i, rc;
    uint8_t *buf = NULL;
    if ((rc = strata_fs_opendir(fs, &d)) != 0)
        return rc;
    while ((rc = strata_fs_readdir(fs, &d, &st)) == 1) {
        struct strata_fs_file f;
        const struct sc_file *mf;
        int32_t n;
        i = name_index(st.name);
        if (st.name[0] == '~')
            continue;
        rc = STRATA_ECORRUPT;
        if (i < 0 || seen[i]++ || !ns->f[i].exists) {
            snprintf(why, wn, "file '%s' should not exist%s", st.name,
                     i >= 0 && seen[i] > 1 ? " (duplicate)" : "");
            break;
        }
        mf = &ns->f[i];
        if (st.size != mf->len) {
            snprintf(why, wn, "'%s' has %u bytes, expected %u", st.name, (unsigned)st.size,
                     (unsigned)mf->len);
            break;
        }
        buf = realloc(buf, st.size + 1);
        assert_non_null(buf);
        if ((rc = strata_fs_open(fs, &f, st.name, STRATA_FS_READ)) != 0)
            break;
        n = strata_fs_read(fs, &f, buf, st.size + 1);
        rc = strata_fs_close(fs, &f);
        if (n < 0 || rc != 0) {
            rc = n < 0 ? (int)n : rc;
            break;
        }
        if ((uint32_t)n != mf->len || memcmp(buf, mf->data, mf->len) != 0) {
            snprintf(why, wn, "'%s' content differs", st.name);
            rc = STRATA_ECORRUPT;
            break;
        }
    }
    free(buf);
    if (rc != 0)
        return rc;
    for (i = 0; i < SC_NAMES; i++)
        if (ns->f[i].exists && !seen[i]) {
            snprintf(why, wn, "file '%s' is missing", sc_names[i]);
            return STRATA_ECORRUPT;
        }
    return 0;
}

static int free_handle(const struct sc_model *m)
{
    int h;
    for (h = 0; h < SC_HANDLES; h++)
        if (!m->h[h].open)
            return h;
    return -1;
}

static int open_handle(const struct sc_model *m, struct ts_rng *r)
{
    int h, k = (int)ts_rng_below(r, SC_HANDLES);
    for (h = 0; h < SC_HANDLES; h++)
        if (m->h[(h + k) % SC_HANDLES].open)
            return (h + k) % SC_HANDLES;
    return -1;
}

void sc_random_op(struct sc_model *m, struct ts_rng *r, uint32_t max_file, struct sc_op *op)
{
    int h = open_handle(m, r), fh = free_handle(m);
    uint32_t pick = ts_rng_below(r, 100);
    memset(op, 0, sizeof *op);
    op->a = (uint8_t)ts_rng_below(r, SC_NAMES);
    op->b = (uint8_t)ts_rng_below(r, SC_NAMES);
    op->seed = (uint32_t)ts_rng_next(r);
    if (h >= 0 && pick < 45) {
        const struct sc_handle *mh = &m->h[h];
        op->h = (uint8_t)h;
        if (!(mh->flags & STRATA_FS_WRITE) || pick < 6) {
            op->kind = SC_READ;
        } else if (pick < 30) {
            uint32_t room = max_file > mh->len ? max_file - mh->len : 0;
            op->kind = SC_WRITE;
            op->len = 1 + ts_rng_below(r, ts_rng_below(r, 4) == 0 ? 700 : 40);
            op->off = mh->len == 0 || ts_rng_below(r, 3) == 0 ? mh->len
                                                                : ts_rng_below(r, mh->len);
            if (op->off + op->len > mh->len + room)
                op->len = mh->len + room > op->off ? mh->len + room - op->off : 0;
            if (op->len == 0)
                op->kind = SC_READ;
        } else if (pick < 34) {
            op->kind = SC_TRUNC;
            op->off = mh->len ? ts_rng_below(r, mh->len + 1) : 0;
        } else if (pick < 40) {
            op->kind = SC_SYNC;
        } else {
            op->kind = SC_CLOSE;
        }
        return;
    }
    if (fh >= 0 && pick < 70) {
        static const unsigned flags[] = {
            STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE, STRATA_FS_READ,
            STRATA_FS_APPEND | STRATA_FS_CREATE, STRATA_FS_WRITE | STRATA_FS_READ,
            STRATA_FS_WRITE | STRATA_FS_CREATE | STRATA_FS_EXCL};
        op->kind = SC_OPEN;
        op->h = (uint8_t)fh;
        op->off = flags[ts_rng_below(r, 5)] | (ts_rng_below(r, 2) ? SC_BUFFERED : 0);
        op->len = ts_rng_below(r, 3) == 0 ? ts_rng_below(r, max_file) : 0;
        return;
    }
    if (pick < 78) {
        op->kind = SC_REMOVE;
    } else if (pick < 86) {
        op->kind = SC_RENAME;
    } else if (pick < 91) {
        op->kind = SC_RESERVE;
        op->off = ts_rng_below(r, max_file);
    } else if (pick < 97) {
        static const uint32_t rs[] = {1, 10, 16, 64, 256};
        op->kind = SC_CONFLOG;
        op->len = rs[ts_rng_below(r, 5)];
        op->off = op->len * (2 + ts_rng_below(r, 40));
        if (op->len == 1)
            op->off = 4; /* 1-byte records: keep the file small enough for 16-bit keys */
    } else {
        op->kind = SC_GC;
    }
}
