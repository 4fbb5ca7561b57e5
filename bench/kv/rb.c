/* The store under test, RB: the library itself (rollback with write marks, discard undo). */
#include <stdlib.h>

#include "bench.h"

struct store {
    struct strata_kv kv;
};

static struct store *rb_create(void)
{
    return calloc(1, sizeof(struct store));
}
static int rb_format(struct store *s, const struct strata_kv_config *c)
{
    return strata_kv_format(&s->kv, c);
}
static int rb_mount(struct store *s, const struct strata_kv_config *c)
{
    return strata_kv_mount(&s->kv, c);
}
static int rb_put(struct store *s, const struct strata_kv_record *r)
{
    int rc = strata_kv_put(&s->kv, r);
    if (rc == STRATA_ENOSPC && (rc = strata_kv_commit(&s->kv)) == 0)
        rc = strata_kv_put(&s->kv, r);
    return rc;
}
static int rb_commit(struct store *s)
{
    return strata_kv_commit(&s->kv);
}
static struct strata_kv *rb_kv(struct store *s)
{
    return &s->kv;
}
static uint32_t rb_records(struct store *s)
{
    struct strata_kv_stat st;
    return strata_kv_stat(&s->kv, &st) == 0 ? st.records : 0;
}
static void rb_destroy(struct store *s)
{
    free(s);
}

const struct store_ops rb_ops = {"RB",   rb_create, rb_format,  rb_mount, rb_put, rb_commit,
                                 rb_kv, rb_records, NULL,       rb_destroy};
