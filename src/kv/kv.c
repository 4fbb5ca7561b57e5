/* The public calls: format, mount (restore), put, commit, stat. */
#include "kv_internal.h"

#ifndef KV_BASELINE
static
#endif
int kv_open(struct strata_kv *kv, const struct strata_kv_config *cfg)
{
    enum strata_kv_limit why;
    if (kv == NULL)
        return STRATA_EINVAL;
    memset(kv, 0, sizeof *kv);
    kv->cfg = cfg;
    kv->hold = KV_NONE;
    why = kv_limits(kv, cfg);
    return why == STRATA_KV_LIMIT_OK ? 0 : why == STRATA_KV_LIMIT_DEVICE ? STRATA_EDEVICE
                                                                         : STRATA_EINVAL;
}

/* Every unit erased (the log first: once it is blank no old checkpoint can be found), the first
 * partition's root, the first commit; the first segment's header last, so that a format cut
 * before it completes leaves a log that still reads as never formatted (logopen.c). */
int kv_format(struct strata_kv *kv)
{
    const struct strata_kv_config *cfg = kv->cfg;
    uint32_t u, n = kv->log_units + 2u + (uint32_t)kv->partitions * cfg->partition_units;
    uint16_t root;
    int rc;
    for (u = 0; u < n; u++)
        if ((rc = kv_unit_clean(kv, u)) != 0)
            return rc;
    kv->st.live = 1;
    kv_summary_reset(kv);
    kv->log_clean = 0xFFFFFFFEu; /* every segment but the first is erased */
    kv->log_seq = 1;
    kv->log_off = KV_SEG_HDR;
    kv->flags = KV_F_SPARE;
    if ((rc = kv_io_group_alloc(kv, KV_HDR_ROOT, &root)) != 0 ||
        (rc = kv_ckpt_write(kv)) != 0 || (rc = kv_log_start(kv, 0, 1)) != 0)
        return rc;
    kv->flags |= KV_F_OPEN;
    return kv_after_commit(kv);
}

int strata_kv_format(struct strata_kv *kv, const struct strata_kv_config *cfg)
{
    int rc = kv_open(kv, cfg);
    return rc != 0 ? rc : kv_format(kv);
}

int strata_kv_mount(struct strata_kv *kv, const struct strata_kv_config *cfg)
{
    struct kv_cursor commit;
    int rc;
    if ((rc = kv_open(kv, cfg)) != 0 || (rc = kv_log_open(kv, &commit)) != 0 ||
        (rc = kv_ckpt_load(kv, &commit)) != 0 || (rc = kv_restore(kv)) != 0)
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
    /* a put writes at most one mark (to the one node that existed at the checkpoint it
     * writes): refuse it whole rather than half-done when the log cannot take it */
    if (!kv_log_room(kv, KV_SHORT_LEN, 1))
        return STRATA_ENOSPC;
    kv->gen++;
    rc = kv_tree_put(kv, rec);
    if (rc != 0 && rc != STRATA_EINVAL && rc != STRATA_ENOSPC)
        kv->flags = 0; /* state unknown: mount again */
    return rc;
}

int strata_kv_commit(struct strata_kv *kv)
{
    int rc;
    if (kv == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    kv->gen++;
    if ((rc = kv_ckpt_write(kv)) != 0) {
        kv->flags = 0; /* state unknown: mount again */
        return rc;
    }
    return kv_after_commit(kv);
}

int strata_kv_stat(const struct strata_kv *kv, struct strata_kv_stat *st)
{
    const struct strata_kv_state *s;
    struct strata_kv_summary sum;
    unsigned i;
    int rc;
    if (kv == NULL || st == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    s = &kv->st;
    st->records = st->oldest_ts = 0;
    for (i = 0; i < s->live; i++) {
        unsigned n = s->nrec[kv_live_part(kv, i)];
        /* the oldest partition holding records gives the oldest time */
        if (n != 0 && st->records == 0) {
            if ((rc = kv_summary(kv, i, &sum)) != 0)
                return rc;
            st->oldest_ts = sum.t_lo;
        }
        st->records += n;
    }
    st->records_expired = s->expired;
    st->commits = s->seq;
    st->partitions_live = s->live;
    st->current = (uint8_t)kv_cur(kv);
    st->nodes = s->nodes;
    st->node_capacity = kv->max_nodes;
    st->part_bytes = kv->part_size;
    st->part_bytes_used =
        (uint32_t)s->nodes * kv->node_size + (uint32_t)s->cur.records * kv->rec_size;
    st->garbage_bytes =
        (uint32_t)s->garbage_nodes * kv->node_size + (uint32_t)s->garbage_records * kv->rec_size;
    /* segments wholly behind the head since the last commit's, in 32 bits: n x (unit - 12)
     * exceeds 16 bits with large segments */
    st->log_bytes =
        kv_log_span(kv) * ((uint32_t)kv->unit_size - KV_SEG_HDR) + kv->log_off - kv->ck_off;
    st->ram_context = (uint32_t)sizeof *kv;
    return 0;
}
