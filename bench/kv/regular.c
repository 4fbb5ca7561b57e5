/* RB-regular: the library's store with the classic quadtree's migrating split (paper Fig. 18a),
 * from the benchmark's build of the sources. */
#include <stdlib.h>

#include "baseline.h"

static int bl_read(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    return kv_read_part(kv, part, off, buf, len);
}

static int bl_node_append(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                          unsigned slot, const uint16_t *vals, unsigned n)
{
    return kv_rb_node_append(kv, path[depth], slot, vals, n);
}

static uint16_t bl_root(const struct strata_kv *kv, unsigned part)
{
    (void)kv;
    (void)part;
    return 0;
}

const struct kv_io bl_rb_io = {bl_read,        kv_rb_rec_append, kv_rb_group_alloc,
                               bl_node_append, bl_root,          kv_switch};

void bl_setup(struct kv_baseline *b, const struct kv_io *io)
{
    unsigned i;
    b->io = io;
    for (i = 0; i < STRATA_KV_MAX_PARTITIONS; i++)
        b->map[i] = (uint8_t)i;
}

uint32_t bl_records(const struct strata_kv *kv)
{
    uint32_t n = 0;
    unsigned i;
    for (i = 0; i < kv->st.live; i++)
        n += kv->st.nrec[kv_live_part(kv, i)];
    return n;
}

struct store {
    struct kv_baseline b;
    struct strata_kv_config cfg; /* the run's, with the regular split */
};

static struct store *reg_create(void)
{
    struct store *s = calloc(1, sizeof *s);
    if (s)
        bl_setup(&s->b, &bl_rb_io);
    return s;
}

static const struct strata_kv_config *with_regular(struct store *s, const struct strata_kv_config *c)
{
    s->cfg = *c;
    s->cfg.flags |= KV_REGULAR_SPLIT;
    return &s->cfg;
}

static int reg_format(struct store *s, const struct strata_kv_config *c)
{
    return strata_kv_format(&s->b.kv, with_regular(s, c));
}
static int reg_mount(struct store *s, const struct strata_kv_config *c)
{
    return strata_kv_mount(&s->b.kv, with_regular(s, c));
}
static int reg_put(struct store *s, const struct strata_kv_record *r)
{
    int rc = strata_kv_put(&s->b.kv, r);
    if (rc == STRATA_ENOSPC && (rc = strata_kv_commit(&s->b.kv)) == 0)
        rc = strata_kv_put(&s->b.kv, r);
    return rc;
}
static int reg_commit(struct store *s)
{
    return strata_kv_commit(&s->b.kv);
}
static struct strata_kv *reg_kv(struct store *s)
{
    return &s->b.kv;
}
static uint32_t reg_records(struct store *s)
{
    return bl_records(&s->b.kv);
}
static void reg_destroy(struct store *s)
{
    free(s);
}

const struct store_ops regular_ops = {"RB-regular", reg_create, reg_format, reg_mount,
                                      reg_put,      reg_commit, reg_kv,     reg_records,
                                      NULL,         reg_destroy};
