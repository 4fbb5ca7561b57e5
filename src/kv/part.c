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
    /* no records: an empty time range and key box (every record widens them), nondecreasing */
    static const struct strata_kv_summary empty = {
        0, 1, 0xFFFFFFFFu, 0, {INT16_MAX, INT16_MAX, INT16_MAX}, {INT16_MIN, INT16_MIN, INT16_MIN}};
    kv->st.cur = empty;
}

void kv_summary_add(struct strata_kv *kv, const struct strata_kv_record *r)
{
    struct strata_kv_summary *s = &kv->st.cur;
    unsigned j;
    if (r->ts < s->t_hi)
        s->mono = 0;
    if (r->ts < s->t_lo)
        s->t_lo = r->ts;
    if (r->ts > s->t_hi)
        s->t_hi = r->ts;
    for (j = 0; j < KV_DIMS(kv); j++) {
        if (r->v[j] < s->lo[j])
            s->lo[j] = r->v[j];
        if (r->v[j] > s->hi[j])
            s->hi[j] = r->v[j];
    }
}

#define F(field, w) (uint8_t)offsetof(struct strata_kv_summary, field), w
static const uint8_t summary_fields[] = {F(t_lo, 4), F(t_hi, 4), F(records, 2), F(mono, 1),
                                         F(lo, 2 | KV_ARR_DIMS), F(hi, 2 | KV_ARR_DIMS), 0, 0};
#undef F

unsigned kv_summary_codec(const struct strata_kv *kv, uint8_t *b, struct strata_kv_summary *s,
                          unsigned decode)
{
    kv_codec(b, s, summary_fields, (unsigned)kv->dims << 8 | decode);
    return kv->sum_len - 4u;
}

int kv_summary(const struct strata_kv *kv, unsigned i, struct strata_kv_summary *s)
{
    uint8_t b[KV_SUM_FIXED + 4 * STRATA_KV_MAX_DIMS];
    unsigned n = kv->sum_len - 4u;
    int rc;
    if (i + 1u == kv->st.live) {
        *s = kv->st.cur; /* the current partition's, from the state */
        return 0;
    }
    if ((rc = kv_read_part(kv, kv_live_part(kv, i + 1u), kv->rec_end, b, kv->sum_len)) != 0)
        return rc;
    if (!kv_crc_tail(b, n, 0, 1))
        return STRATA_ECORRUPT;
    kv_summary_codec(kv, b, s, KV_DECODE);
    return 0;
}

int kv_switch(struct strata_kv *kv)
{
    struct strata_kv_state *st = &kv->st;
    unsigned t = kv_live_part(kv, st->live); /* the ring slot after the current one */
    uint8_t b[KV_SUM_FIXED + 4 * STRATA_KV_MAX_DIMS];
    uint16_t root;
    unsigned n;
    int rc;
    if (t == kv->hold)
        return STRATA_ENOSPC;
    if (!(kv->flags & KV_F_SPARE) && (rc = kv_part_clean(kv, t)) != 0)
        return rc;
    kv->flags &= (uint8_t)~KV_F_SPARE;
    /* nothing in the new partition predates the checkpoint, so nothing of it needs a mark: a
     * restore to the checkpoint leaves it garbage, which the next switch cleans */
    n = kv_summary_codec(kv, b, &st->cur, 0);
    kv_crc_tail(b, n, 0, 0);
    if ((rc = kv_prog_part(kv, t, kv->rec_end, b, kv->sum_len)) != 0)
        return rc;
    st->live++;
    st->nodes = st->garbage_nodes = st->garbage_records = 0;
    st->nrec[t] = 0;
    kv_summary_reset(kv);
    kv->ck_nodes = kv->ck_records = 0;
    if ((rc = kv_io_group_alloc(kv, KV_HDR_ROOT, &root)) != 0)
        return rc;
    if (st->live == kv->partitions) {
        kv->hold = (uint8_t)kv_live_part(kv, 0);
        st->expired += st->nrec[kv->hold];
        st->nrec[kv->hold] = 0;
        st->first = (uint8_t)(st->first + 1u == kv->partitions ? 0u : st->first + 1u);
        st->live--;
    }
    return 0;
}
