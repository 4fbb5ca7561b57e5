/*
 * Partitions, used first-in first-out, and their summaries.
 *
 * At most partitions - 1 hold data: when a switch takes the last free partition, the oldest
 * expires at once (it leaves every query) but stays untouched until a commit has recorded its
 * expiry, since a restore to an earlier checkpoint still needs it (kv->hold). The commit then
 * erases it ("cleaning"); if that is cut, the next switch finds it not blank and erases what is
 * left. A switch before such a commit gets STRATA_ENOSPC.
 *
 * Summaries. The current partition's summary (time range, key box, whether its timestamps never
 * decreased) lives in the checkpointed state. When it closes, the switch writes it into the last
 * bytes of the partition that takes over: that partition holds nothing from before the last
 * checkpoint, so if a restore undoes the switch it is garbage anyway, and the repeated switch
 * cleans it and writes the summary again.
 */
#include "kv_internal.h"

int kv_part_clean(const struct strata_kv *kv, unsigned part)
{
    uint32_t u;
    for (u = 0; u < kv->cfg->partition_units; u++) {
        int rc = kv_unit_clean(kv, kv_part_unit(kv, part) + u);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void kv_summary_reset(struct strata_kv *kv)
{
    unsigned j;
    kv->st.t_lo = 0xFFFFFFFFu;
    kv->st.t_hi = 0;
    kv->st.mono = 1;
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        kv->st.lo[j] = INT16_MAX;
        kv->st.hi[j] = INT16_MIN;
    }
}

void kv_summary_add(struct strata_kv *kv, const struct strata_kv_record *r)
{
    struct strata_kv_state *st = &kv->st;
    unsigned j;
    if (r->ts < st->t_hi)
        st->mono = 0;
    if (r->ts < st->t_lo)
        st->t_lo = r->ts;
    if (r->ts > st->t_hi)
        st->t_hi = r->ts;
    for (j = 0; j < KV_DIMS(kv); j++) {
        if (r->v[j] < st->lo[j])
            st->lo[j] = r->v[j];
        if (r->v[j] > st->hi[j])
            st->hi[j] = r->v[j];
    }
}

void kv_summary_encode(const struct strata_kv *kv, uint8_t *b)
{
    const struct strata_kv_state *st = &kv->st;
    unsigned j, d = KV_DIMS(kv), n = kv->sum_len - 4u;
    strata_put_le32(b + KV_SUM_TLO, st->t_lo);
    strata_put_le32(b + KV_SUM_THI, st->t_hi);
    strata_put_le16(b + KV_SUM_RECORDS, st->records);
    b[KV_SUM_MONO] = st->mono;
    b[KV_SUM_MONO + 1] = 0;
    for (j = 0; j < d; j++) {
        strata_put_le16(b + KV_SUM_BOX + 2u * j, (uint16_t)st->lo[j]);
        strata_put_le16(b + KV_SUM_BOX + 2u * (d + j), (uint16_t)st->hi[j]);
    }
    strata_put_le32(b + n, strata_crc32(0, b, n));
}

int kv_summary(const struct strata_kv *kv, unsigned i, struct kv_summary *s)
{
    uint8_t b[KV_SUM_FIXED + 4 * STRATA_KV_MAX_DIMS];
    unsigned j, d = KV_DIMS(kv), n = kv->sum_len - 4u;
    int rc;
    if (i + 1u == kv->st.live) {
        kv_summary_encode(kv, b); /* the current partition's, from the state */
    } else {
        if ((rc = kv_read_part(kv, kv_live_part(kv, i + 1u), kv->rec_end, b, kv->sum_len)) != 0)
            return rc;
        if (strata_get_le32(b + n) != strata_crc32(0, b, n))
            return STRATA_ECORRUPT;
    }
    s->t_lo = strata_get_le32(b + KV_SUM_TLO);
    s->t_hi = strata_get_le32(b + KV_SUM_THI);
    s->records = (uint16_t)strata_get_le16(b + KV_SUM_RECORDS);
    s->mono = b[KV_SUM_MONO];
    for (j = 0; j < d; j++) {
        s->box.lo[j] = (int16_t)strata_get_le16(b + KV_SUM_BOX + 2u * j);
        s->box.hi[j] = (int16_t)strata_get_le16(b + KV_SUM_BOX + 2u * (d + j));
    }
    return 0;
}

int kv_switch(struct strata_kv *kv)
{
    struct strata_kv_state *st = &kv->st;
    unsigned t = kv_live_part(kv, st->live); /* the ring slot after the current one */
    uint8_t b[KV_SUM_FIXED + 4 * STRATA_KV_MAX_DIMS];
    uint16_t root;
    int rc;
    if (t == kv->hold)
        return STRATA_ENOSPC;
    if (!(kv->flags & KV_F_SPARE) && (rc = kv_part_clean(kv, t)) != 0)
        return rc;
    kv->flags &= (uint8_t)~KV_F_SPARE;
    /* nothing in the new partition predates the checkpoint, so nothing of it needs a mark: a
     * restore to the checkpoint leaves it garbage, which the next switch cleans */
    kv_summary_encode(kv, b);
    if ((rc = kv_prog_part(kv, t, kv->rec_end, b, kv->sum_len)) != 0)
        return rc;
    st->live++;
    st->nodes = st->records = st->garbage_nodes = st->garbage_records = 0;
    st->nrec[t] = 0;
    kv_summary_reset(kv);
    kv->ck_nodes = kv->ck_records = 0;
    if ((rc = kv_io_group_alloc(kv, KV_HDR_ROOT, &root)) != 0)
        return rc;
    if (st->live == kv->cfg->partitions) {
        kv->hold = (uint8_t)kv_live_part(kv, 0);
        st->expired += st->nrec[kv->hold];
        st->nrec[kv->hold] = 0;
        st->first = (uint8_t)(st->first + 1u == kv->cfg->partitions ? 0u : st->first + 1u);
        st->live--;
    }
    return 0;
}
