/*
 * Partitions, used first-in first-out. At most partitions - 1 hold data: when a switch takes the
 * last free partition, the oldest expires at once (it leaves every query) but stays untouched until
 * a commit has recorded its expiry, since a restore to an earlier checkpoint still needs it
 * (kv->hold). The commit then erases it ("cleaning"); if that is cut, the next switch finds it not
 * blank and erases what is left. A switch before such a commit gets STRATA_ENOSPC.
 */
#include "kv_internal.h"

int kv_part_clean(struct strata_kv *kv, unsigned part)
{
    uint32_t u;
    for (u = 0; u < kv->cfg->partition_units; u++) {
        int rc = kv_unit_clean(kv, kv_part_unit(kv, part) + u);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int kv_switch(struct strata_kv *kv)
{
    unsigned t = kv_live_part(kv, kv->st.live); /* the ring slot after the current one */
    uint16_t root;
    int rc;
    if (t == kv->hold)
        return STRATA_ENOSPC;
    if (!(kv->flags & KV_F_SPARE) && (rc = kv_part_clean(kv, t)) != 0)
        return rc;
    /* nothing in the new partition predates the checkpoint, so nothing of it needs a mark: a
     * restore to the checkpoint leaves it garbage, which the next switch cleans */
    kv->flags = (uint8_t)((kv->flags & ~KV_F_SPARE) | KV_F_NAREA | KV_F_RAREA);
    kv->st.live++;
    kv->st.pn = kv->st.pr = kv->st.gn = kv->st.gr = 0;
    kv->st.nrec[t] = 0;
    kv->ck_pn = kv->ck_pr = 0;
    if ((rc = kv_io(kv)->group_alloc(kv, KV_HDR_ROOT, &root)) != 0)
        return rc;
    if (kv->st.live == kv->cfg->partitions) {
        kv->hold = (uint8_t)kv_live_part(kv, 0);
        kv->st.nrec[kv->hold] = 0;
        kv->st.first = (uint8_t)((kv->st.first + 1u) % kv->cfg->partitions);
        kv->st.live--;
    }
    return 0;
}
