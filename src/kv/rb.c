/*
 * The rollback write path (log-and-mark): before the first write after a checkpoint to a node
 * that existed at the checkpoint, append a write mark naming the node and the slot that write
 * starts at; then program in place. New nodes and records need no mark: the checkpoint records
 * where each area ended, and a restore undoes everything past that (the paper's area marks
 * would repeat it). The "already marked?" question is answered by a bit table over the first
 * STRATA_KV_MARK_BITS nodes (exact); a pre-checkpoint node beyond it is marked on every write,
 * which is harmless (a later mark for a node only repeats what the earliest one implies) but
 * costs log space.
 */
#include "kv_internal.h"

/* Program bytes of the current partition. */
static int prog(const struct strata_kv *kv, uint32_t off, const void *buf, uint32_t len)
{
    return kv_prog_part(kv, kv_cur(kv), off, buf, len);
}

int kv_rb_rec_append(struct strata_kv *kv, const uint8_t *rec)
{
    int rc = prog(kv, kv_rec_off(kv, kv->st.cur.records), rec, kv->rec_size);
    if (rc == 0)
        kv->st.cur.records++;
    return rc;
}

int kv_rb_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first)
{
    uint8_t h[2];
    int rc;
    strata_put_le16(h, kind);
    if ((rc = prog(kv, kv_node_off(kv, kv->st.nodes), h, 2)) != 0)
        return rc;
    *first = kv->st.nodes;
    kv->st.nodes = (uint16_t)(kv->st.nodes + (kind == KV_HDR_QUAD ? kv->group : 1u));
    return 0;
}

int kv_rb_node_append(struct strata_kv *kv, uint16_t node, unsigned slot, const uint16_t *vals,
                      unsigned n)
{
    uint8_t b[2 * (STRATA_KV_MAX_DIMS + 1)], *bit = &kv->marked[node / 8u % sizeof kv->marked];
    unsigned i;
    int rc;
    if (slot == 0 || slot + n > kv->slots || n > STRATA_KV_MAX_DIMS + 1u)
        return STRATA_ECORRUPT;
    if (node < kv->ck_nodes) {
        /* the table is exact for the first STRATA_KV_MARK_BITS nodes; beyond, mark every time */
        unsigned m = node < STRATA_KV_MARK_BITS ? 1u << (node % 8u) : 0u;
        if (!(*bit & m)) {
            kv_short_set(b, KV_OBJ_MARK, node, slot);
            if ((rc = kv_log_append(kv, b, KV_SHORT_LEN, 1)) != 0)
                return rc;
        }
        *bit = (uint8_t)(*bit | m);
    }
    for (i = 0; i < n; i++)
        strata_put_le16(b + 2u * i, vals[i]);
    return prog(kv, kv_node_off(kv, node) + 2u * slot, b, 2u * n);
}
