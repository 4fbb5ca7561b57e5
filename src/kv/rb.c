/*
 * The rollback write path (log-and-mark): before the first write after a checkpoint to the
 * record area, the node area, or a node that existed at the checkpoint, append a write mark that
 * records where that write starts; then program in place. Nodes allocated since the checkpoint
 * need no mark (the node-area mark covers them). The "already marked?" question is answered by a
 * bit table over the first STRATA_KV_MARK_BITS nodes (exact); a pre-checkpoint node beyond it is
 * marked on every write, which is harmless (a later mark for a node only repeats what the earliest
 * one implies) but costs log space.
 */
#include "kv_internal.h"

/* Append a mark of `type` at `pos` (slot: node marks) unless kv->flags has `flag` already. */
static int mark(struct strata_kv *kv, unsigned flag, uint8_t type, uint32_t pos, unsigned slot)
{
    uint8_t b[KV_MARK_LEN];
    int rc;
    if (kv->flags & flag)
        return 0;
    b[0] = type;
    strata_put_le16(b + 1, pos);
    b[3] = (uint8_t)slot;
    if ((rc = kv_log_append(kv, b, KV_MARK_LEN, 1)) == 0)
        kv->flags |= (uint8_t)flag;
    return rc;
}

static int rb_rec_append(struct strata_kv *kv, const uint8_t *rec)
{
    int rc;
    if ((rc = mark(kv, KV_F_RAREA, KV_OBJ_RAREA, kv->st.pr, 0)) != 0 ||
        (rc = kv_prog_part(kv, kv_cur(kv), kv_rec_off(kv, kv->st.pr), rec, kv->rs)) != 0)
        return rc;
    kv->st.pr++;
    return 0;
}

static int rb_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first)
{
    uint8_t h[2];
    int rc;
    strata_put_le16(h, kind);
    if ((rc = mark(kv, KV_F_NAREA, KV_OBJ_NAREA, kv->st.pn, 0)) != 0 ||
        (rc = kv_prog_part(kv, kv_cur(kv), kv_node_off(kv, kv->st.pn), h, 2)) != 0)
        return rc;
    *first = kv->st.pn;
    kv->st.pn = (uint16_t)(kv->st.pn + (kind == KV_HDR_QUAD ? kv->grp : 1u));
    return 0;
}

static int rb_node_append(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                          unsigned slot, const uint16_t *vals, unsigned n)
{
    uint16_t node = path[depth];
    uint8_t b[2 * (STRATA_KV_MAX_DIMS + 1)], *bit = &kv->marked[node / 8u % sizeof kv->marked];
    unsigned i;
    int rc;
    if (slot == 0 || slot + n > kv->slots || n > STRATA_KV_MAX_DIMS + 1u)
        return STRATA_ECORRUPT;
    if (node < kv->ck_pn) {
        /* the table is exact for the first STRATA_KV_MARK_BITS nodes; beyond, mark every time */
        unsigned m = node < STRATA_KV_MARK_BITS ? 1u << (node % 8u) : 0u;
        if (!(*bit & m) && (rc = mark(kv, 0, KV_OBJ_NODE, node, slot)) != 0)
            return rc;
        *bit |= (uint8_t)m;
    }
    for (i = 0; i < n; i++)
        strata_put_le16(b + 2 * i, vals[i]);
    return kv_prog_part(kv, kv_cur(kv), kv_node_off(kv, node) + 2u * slot, b, 2u * n);
}

static int rb_read(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    return kv_read_part(kv, part, off, buf, len);
}

static uint16_t rb_root(const struct strata_kv *kv, unsigned part)
{
    (void)kv;
    (void)part;
    return 0;
}

const struct kv_io kv_rb_io = {rb_read,        rb_rec_append, rb_group_alloc,
                               rb_node_append, rb_root,       kv_switch};
