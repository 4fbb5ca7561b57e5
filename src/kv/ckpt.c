/*
 * The checkpoint: one commit object holding the context (the configuration signature, the
 * store's state and the application's registered regions), written in one program, followed by
 * a seal. The commit exists once its object is whole; the seal only makes damage to the newest
 * commit object detectable (a valid object then follows it, which a torn one never has).
 */
#include "kv_internal.h"

/* The state in the context, after the signature and the current partition's summary
 * (docs/format-kv.md). */
#define F(field, w) (uint8_t)offsetof(struct strata_kv_state, field), w
static const uint8_t state_fields[] = {F(seq, 4),           F(expired, 4),
                                       F(nodes, 2),         F(garbage_nodes, 2),
                                       F(garbage_records, 2), F(first, 1),
                                       F(live, 1),          F(nrec, 2 | KV_ARR_PARTS), 0, 0};
#undef F

/* The state and the registered regions <-> the context's bytes after the signature (decode: 0
 * or KV_DECODE). Decoding refuses a CRC-valid state with values that would index past the tables
 * (damage too; other impossible values only make reads fail their bounds checks) before it
 * touches the regions. */
static int ctx_codec(struct strata_kv *kv, uint8_t *ctx, unsigned decode)
{
    const struct strata_kv_config *cfg = kv->cfg;
    const struct strata_kv_region *r = cfg->regions;
    struct strata_kv_state *st = &kv->st;
    uint8_t *p = ctx + KV_CTX_SUMMARY;
    unsigned i;
    p += kv_summary_codec(kv, p, &st->cur, decode);
    kv_codec(p, st, state_fields, kv->partitions | decode);
    if (decode && (st->first >= kv->partitions || st->live == 0 || st->live >= kv->partitions))
        return STRATA_ECORRUPT;
    p = ctx + KV_CTX_FIXED + 2u * kv->partitions + 4u * kv->dims;
    for (i = 0; i < cfg->region_count; p += r[i].size, i++)
        memcpy(decode ? (uint8_t *)r[i].addr : p, decode ? p : (const uint8_t *)r[i].addr,
               r[i].size);
    return 0;
}

int kv_ckpt_write(struct strata_kv *kv)
{
    uint8_t *b = kv->buf, *ctx = b + KV_COMMIT_CTX, seal[KV_SHORT_LEN];
    uint32_t len = kv->ctx_len;
    int rc;
    /* the commit object, built in the buffer and written in one program (if that fails, the
     * caller mounts again: the context, this count included, is stale then) */
    b[0] = KV_OBJ_COMMIT;
    strata_put_le16(b + KV_COMMIT_CTXLEN, len);
    strata_put_le32(ctx + KV_CTX_SIG, kv_signature(kv));
    kv->st.seq++;
    (void)ctx_codec(kv, ctx, 0);
    if ((rc = kv_log_reserve(kv, KV_COMMIT_EXTRA + len + KV_SHORT_LEN, 0)) != 0 ||
        (rc = kv_log_append(kv, b, KV_COMMIT_EXTRA + len, 0)) != 0)
        return rc;
    /* durable now: a restore from here on comes back to this commit */
    kv->log_win = kv->log_head;
    kv->ck_off = kv->log_off;
    kv_short_set(seal, KV_OBJ_SEAL, kv->st.seq, 0);
    return kv_log_append(kv, seal, KV_SHORT_LEN, 0);
}

int kv_ckpt_load(struct strata_kv *kv, const struct kv_cursor *c)
{
    uint8_t *b = kv->buf;
    int rc;
    /* kv_log_open checked its CRC; read it whole (the config check made the unit hold one of
     * this configuration's length, and the device goes on after the log: the save area) */
    if ((rc = kv_fread(kv, kv_unit_addr(kv, c->seg) + c->off, b,
                       KV_COMMIT_EXTRA + (uint32_t)kv->ctx_len)) != 0)
        return rc;
    if (kv_commit_ctxlen(b) != kv->ctx_len ||
        strata_get_le32(b + KV_COMMIT_CTX + KV_CTX_SIG) != kv_signature(kv))
        return STRATA_EINVAL; /* formatted with another configuration */
    kv->log_win = c->seg;
    kv->ck_off = (uint16_t)(c->off + KV_COMMIT_EXTRA + kv->ctx_len);
    if ((rc = ctx_codec(kv, b + KV_COMMIT_CTX, KV_DECODE)) == 0) {
        kv->ck_nodes = kv->st.nodes;
        kv->ck_records = kv->st.cur.records;
    }
    return rc;
}

int kv_after_commit(struct strata_kv *kv)
{
    int rc;
    kv->ck_nodes = kv->st.nodes;
    kv->ck_records = kv->st.cur.records;
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
