/*
 * The checkpoint: a context backup (the store's state and the application's registered regions)
 * followed, in the same log segment, by a commit record that points to it and carries its CRC.
 * A commit exists only once its record is whole; a torn backup or record leaves the previous
 * commit the last valid one.
 */
#include "kv_internal.h"

/* The state in the context backup, after the signature (docs/format-kv.md). */
#define F(field, w) (uint8_t)offsetof(struct strata_kv_state, field), w
static const uint8_t state_fields[] = {F(seq, 4),   F(pn, 2),   F(pr, 2),     F(gn, 2),
                                       F(gr, 2),    F(first, 1), F(live, 1), F(map, 0x81),
                                       F(nrec, 0x82)};
#undef F

/* Copy the registered regions into (save) or out of the context bytes at p. */
static void regions_copy(const struct strata_kv_config *cfg, uint8_t *p, int save)
{
    const struct strata_kv_region *r = cfg->regions;
    unsigned i;
    for (i = 0; i < cfg->region_count; i++, p += r[i - 1u].size)
        memcpy(save ? p : (uint8_t *)r[i].addr, save ? (const uint8_t *)r[i].addr : p,
               r[i].size);
}

int kv_ckpt_write(struct strata_kv *kv)
{
    const struct strata_kv_config *cfg = kv->cfg;
    uint8_t *b = cfg->buffer, *p = b + 3 + KV_STATE_LEN + 3u * cfg->partitions, c[KV_COMMIT_LEN];
    unsigned len = kv_ctx_len(kv);
    uint32_t seq = kv->st.seq + 1u;
    uint16_t off;
    int rc;
    /* the context backup, built in the buffer and written in one program */
    b[0] = KV_OBJ_CTX;
    strata_put_le16(b + 1, len);
    strata_put_le32(b + 3, kv_signature(cfg));
    kv->st.seq = seq;
    kv_codec(b + 7, &kv->st, state_fields, sizeof state_fields, cfg->partitions, 0);
    kv->st.seq = seq - 1u;
    regions_copy(cfg, p, 1);
    if ((rc = kv_log_reserve(kv, KV_VAR_LEN + len + KV_COMMIT_LEN, 0)) != 0)
        return rc;
    off = kv->log_off;
    if ((rc = kv_log_append(kv, b, KV_VAR_LEN + len, 0)) != 0)
        return rc;
    c[0] = KV_OBJ_COMMIT;
    strata_put_le32(c + 1, seq);
    strata_put_le16(c + 5, off);
    strata_put_le16(c + 7, len);
    memcpy(c + 9, b + 3 + len, 4); /* the backup's CRC */
    if ((rc = kv_log_append(kv, c, KV_COMMIT_LEN, 0)) != 0)
        return rc;
    kv->st.seq = seq;
    kv->log_win = kv->log_head;
    return 0;
}

int kv_ckpt_load(struct strata_kv *kv, const struct kv_obj *commit)
{
    const struct strata_kv_config *cfg = kv->cfg;
    struct strata_kv_state *st = &kv->st;
    unsigned off = strata_get_le16(commit->b + 5), len = strata_get_le16(commit->b + 7), P = cfg->partitions;
    uint8_t *b = cfg->buffer, *p = b + 3 + KV_STATE_LEN + 3u * P;
    unsigned i, seen = 0;
    int rc;
    if (off < KV_SEG_HDR || off + KV_VAR_LEN + len > commit->off)
        return STRATA_ECORRUPT;
    if ((rc = kv_fread(kv, kv_unit_addr(kv, commit->seg) + off, b, KV_VAR_LEN + len)) != 0)
        return rc;
    if (b[0] != KV_OBJ_CTX || strata_get_le16(b + 1) != len ||
        strata_get_le32(commit->b + 9) != strata_get_le32(b + 3 + len) ||
        strata_get_le32(b + 3 + len) != strata_crc32(0, b, 3 + len))
        return STRATA_ECORRUPT;
    if (strata_get_le32(b + 3) != kv_signature(cfg) || len != kv_ctx_len(kv))
        return STRATA_EINVAL; /* formatted with another configuration */
    kv_codec(b + 7, st, state_fields, sizeof state_fields, P, 1);
    kv->ck_pn = st->pn;
    kv->ck_pr = st->pr;
    for (i = 0; i < P; i++) {
        if (st->map[i] >= P || (seen & (1u << st->map[i])) ||
            (uint32_t)st->nrec[i] * kv->rs > kv->psize)
            return STRATA_ECORRUPT; /* not a permutation, or impossible counts */
        seen |= 1u << st->map[i];
    }
    if (st->seq != strata_get_le32(commit->b + 1) || st->first >= P || st->live == 0 ||
        st->live >= P || st->pn == 0 || st->gn > st->pn || st->gr > st->pr ||
        (uint32_t)(st->pn + 1u) * kv->ns + (uint32_t)st->pr * kv->rs > kv->psize)
        return STRATA_ECORRUPT;
    regions_copy(cfg, p, 0);
    return 0;
}

int kv_after_commit(struct strata_kv *kv)
{
    int rc;
    kv->ck_pn = kv->st.pn;
    kv->ck_pr = kv->st.pr;
    kv->flags = (uint8_t)((kv->flags & ~(KV_F_NAREA | KV_F_RAREA)) | KV_F_OPEN);
    memset(kv->marked, 0, sizeof kv->marked);
    if ((rc = kv_log_recycle(kv)) == 0 && kv->hold != KV_NONE) {
        /* the expiry is now part of the checkpoint: clean the partition */
        rc = kv_part_clean(kv, kv->hold);
        kv->hold = KV_NONE;
        kv->flags |= KV_F_SPARE;
    }
    if (rc != 0)
        kv->flags = 0; /* state unknown: mount again */
    kv->gen++;
    return rc;
}

int kv_commit(struct strata_kv *kv)
{
    int rc;
    kv->gen++;
    if ((rc = kv_ckpt_write(kv)) != 0) {
        kv->flags = 0;
        return rc;
    }
    return kv_after_commit(kv);
}
