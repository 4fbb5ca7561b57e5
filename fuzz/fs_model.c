#include "fs_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"

/* Lengths 1, 1, 3, 7, 16 and 21: which are valid depends on the configuration's name_max. */
const char *const fm_names[FM_NAMES] = {"a", "b", "log", "cfg.tmp", "sensor-data-2024",
                                        "a-name-longer-than-16"};

const struct fm_blob *fm_blob(struct fm_arena *a, const uint8_t *data, uint32_t len)
{
    struct fm_blob *b = malloc(sizeof *b + len);
    if (b == NULL)
        fz_fail("out of memory");
    b->len = len;
    if (len > 0)
        memcpy(b->data, data, len);
    b->next = a->head;
    a->head = b;
    return b;
}

void fm_arena_free(struct fm_arena *a)
{
    while (a->head != NULL) {
        struct fm_blob *b = a->head;
        a->head = b->next;
        free(b);
    }
}

void fm_set(struct fm_file *f, const struct fm_blob *b)
{
    f->exists = 1;
    f->nc = 1;
    f->c[0] = b;
}

void fm_either(struct fm_file *f, const struct fm_blob *b)
{
    if (f->nc == 0 || fm_may_hold(f, b->data, b->len))
        return;
    if (f->nc < FM_CANDIDATES)
        f->c[f->nc++] = b;
    else
        f->nc = 0; /* too many possibilities: stop checking the content until it is read */
}

int fm_may_hold(const struct fm_file *f, const uint8_t *data, uint32_t len)
{
    unsigned i;
    if (f->nc == 0)
        return 1;
    for (i = 0; i < f->nc; i++)
        if (f->c[i]->len == len && (len == 0 || memcmp(f->c[i]->data, data, len) == 0))
            return 1;
    return 0;
}

static int name_index(const char *name)
{
    unsigned i;
    for (i = 0; i < FM_NAMES; i++)
        if (strcmp(name, fm_names[i]) == 0)
            return (int)i;
    return -1;
}

static int read_all(struct strata_fs *fs, const char *name, uint32_t size, struct fm_arena *a,
                    const struct fm_blob **out)
{
    struct strata_fs_file f;
    uint8_t *buf = malloc((size_t)size + 1u);
    int32_t n;
    int rc;
    if (buf == NULL)
        fz_fail("out of memory");
    if ((rc = strata_fs_open(fs, &f, name, STRATA_FS_READ)) != 0) {
        free(buf);
        return rc;
    }
    n = strata_fs_read(fs, &f, buf, size + 1u);
    rc = strata_fs_close(fs, &f);
    if (n >= 0 && (uint32_t)n != size)
        fz_fail("fs: '%s' is listed with %u bytes but reads %d", name, (unsigned)size, (int)n);
    if (n >= 0 && rc == 0)
        *out = fm_blob(a, buf, (uint32_t)n);
    free(buf);
    return n < 0 ? (int)n : rc;
}

int fm_observe(struct strata_fs *fs, struct fm_arena *a, struct fm_ns *obs)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int rc, i;
    memset(obs, 0, sizeof *obs);
    if ((rc = strata_fs_opendir(fs, &d)) != 0)
        return rc;
    while ((rc = strata_fs_readdir(fs, &d, &st)) == 1) {
        if ((i = name_index(st.name)) < 0)
            fz_fail("fs: a file the script never made: '%.32s'", st.name);
        if (obs->f[i].exists)
            fz_fail("fs: '%s' is listed twice", st.name);
        obs->f[i].exists = 1;
        obs->f[i].nc = 1;
        if ((rc = read_all(fs, st.name, st.size, a, &obs->f[i].c[0])) != 0)
            return rc;
    }
    strata_fs_closedir(fs, &d);
    return rc;
}

int fm_matches(const struct fm_ns *want, const struct fm_ns *obs, char *why, size_t n)
{
    unsigned i;
    for (i = 0; i < FM_NAMES; i++) {
        const struct fm_file *w = &want->f[i], *o = &obs->f[i];
        if (w->exists != o->exists) {
            snprintf(why, n, "'%s' %s", fm_names[i], o->exists ? "exists" : "is missing");
            return 0;
        }
        if (o->exists && !fm_may_hold(w, o->c[0]->data, o->c[0]->len)) {
            snprintf(why, n, "'%s' holds %u bytes that are none of its %u possible contents "
                             "(first: %u bytes)",
                     fm_names[i], (unsigned)o->c[0]->len, (unsigned)w->nc,
                     (unsigned)w->c[0]->len);
            return 0;
        }
    }
    return 1;
}
