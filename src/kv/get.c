/*
 * get: the record with exactly these values and the latest timestamp. A scan of the key's point
 * box, partitions newest first (a point lies on one path of each tree, so the scan descends that
 * path alone). Once a match is found, the scan's time window starts at its timestamp: older
 * partitions whose summary ends before it are skipped without a read, and so is every record
 * that could not beat it. Ties go to the record put last: along a path later records lie
 * deeper, and a newer partition's record wins over an older one's.
 */
#include "kv_internal.h"

int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    uint16_t ptr = 0;
    unsigned slot = 0;
    int rc;
    if (values == NULL || out == NULL)
        return STRATA_EINVAL;
    memset(&q, 0, sizeof q);
    q.newest_first = 2;
    q.t_hi = 0xFFFFFFFFu; /* the window opens at the first match */
    if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
        return rc;
    if (!kv_meets(kv, kv->cfg->lo, kv->cfg->hi, values, values))
        return STRATA_EINVAL;
    memcpy(it.q.lo, values, KV_DIMS(kv) * sizeof *values);
    memcpy(it.q.hi, values, KV_DIMS(kv) * sizeof *values);
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1)
        if (ptr == 0 || r.ts > it.q.t_lo || slot == it.part) {
            ptr = it.ptr;
            slot = it.part; /* (newest first: the live slot being walked) */
            it.q.has_time = 1;
            it.q.t_lo = r.ts;
        }
    if (rc != 0)
        return rc;
    if (ptr == 0)
        return STRATA_ENOENT;
    rc = kv_rec_read(kv, kv_live_part(kv, slot), ptr, out);
    return rc == 1 ? STRATA_ECORRUPT : rc;
}
