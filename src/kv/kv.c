/* The public calls: format, mount (restore), put, commit, stat. */
#include "kv_internal.h"

int kv_open(struct strata_kv *kv, const struct strata_kv_config *cfg, const void *io)
{
    if (kv == NULL)
        return STRATA_EINVAL;
    memset(kv, 0, sizeof *kv);
    kv->cfg = cfg;
    kv->io = io;
    kv->hold = KV_NONE;
    return kv_check_config(kv, cfg);
}

int kv_format(struct strata_kv *kv)
{
    const struct strata_kv_config *cfg = kv->cfg;
    uint32_t u, n = cfg->log_units + 2u + (uint32_t)cfg->partitions * cfg->partition_units;
    uint16_t root;
    int rc;
    /* every unit, the log first: once it is blank no old checkpoint can be found */
    for (u = 0; u < n; u++)
        if ((rc = kv_unit_clean(kv, u)) != 0)
            return rc;
    for (u = 0; u < cfg->partitions; u++)
        kv->st.map[u] = (uint8_t)u;
    kv->st.live = 1;
    kv->log_clean = 0xFFFFFFFFu;
    kv->log_head = kv->log_win = (uint8_t)(cfg->log_units - 1u);
    kv->log_off = 0xFFFFu; /* no room: the first append opens segment 0 with sequence 1 */
    kv->flags = KV_F_NAREA | KV_F_RAREA | KV_F_SPARE; /* nothing to mark before the first
                                                          checkpoint; the rest is erased */
    if ((rc = kv_io(kv)->group_alloc(kv, KV_HDR_ROOT, &root)) != 0)
        return rc;
    return kv_commit(kv);
}

int strata_kv_format(struct strata_kv *kv, const struct strata_kv_config *cfg)
{
    int rc = kv_open(kv, cfg, &kv_rb_io);
    return rc != 0 ? rc : kv_format(kv);
}

int strata_kv_mount(struct strata_kv *kv, const struct strata_kv_config *cfg)
{
    struct kv_obj commit;
    int rc;
    if ((rc = kv_open(kv, cfg, &kv_rb_io)) != 0 || (rc = kv_log_open(kv, &commit)) != 0 ||
        (rc = kv_ckpt_load(kv, &commit)) != 0 || (rc = kv_restore(kv, &commit)) != 0)
        return rc;
    kv->flags |= KV_F_OPEN;
    kv->gen++;
    return 0;
}

int strata_kv_put(struct strata_kv *kv, const struct strata_kv_record *rec)
{
    int rc;
    if (kv == NULL || rec == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    /* a put writes at most three marks (record area, node area, one node): refuse it whole
     * rather than half-done when the log cannot take them */
    if (!kv_log_room(kv, 3u * KV_MARK_LEN, 1))
        return STRATA_ENOSPC;
    kv->gen++;
    rc = kv_tree_put(kv, rec);
    if (rc != 0 && rc != STRATA_EINVAL && rc != STRATA_ENOSPC)
        kv->flags = 0; /* state unknown: mount again */
    return rc;
}

int strata_kv_commit(struct strata_kv *kv)
{
    if (kv == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    return kv_commit(kv);
}

int strata_kv_stat(const struct strata_kv *kv, struct strata_kv_stat *st)
{
    const struct strata_kv_state *s;
    unsigned i;
    if (kv == NULL || st == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    s = &kv->st;
    memset(st, 0, sizeof *st);
    for (i = 0; i < s->live; i++)
        st->records += s->nrec[kv_live_part(kv, i)];
    st->commits = s->seq;
    st->partitions_live = s->live;
    st->current = (uint8_t)kv_cur(kv);
    st->nodes = s->pn;
    st->node_capacity = kv->maxn;
    st->part_bytes = kv->psize;
    st->part_bytes_used = (uint32_t)s->pn * kv->ns + (uint32_t)s->pr * kv->rs;
    st->garbage_bytes = (uint32_t)s->gn * kv->ns + (uint32_t)s->gr * kv->rs;
    st->log_bytes = kv_log_bytes(kv);
    st->ram_context = (uint32_t)sizeof *kv;
    return 0;
}
