/*
 * The checkpoint: a context backup (the store's state and the application's registered regions)
 * followed, in the same log segment, by a commit record that points to it and carries its CRC.
 * A commit exists only once its record is whole; a torn backup or record leaves the previous
 * commit the last valid one.
 */
#include "kv_internal.h"

static unsigned state_encode(const struct strata_kv *kv, uint8_t *b, uint32_t seq)
{
    unsigned i;
    kv_put32(b, kv_signature(kv->cfg));
    kv_put32(b + 4, seq);
    kv_put16(b + 8, kv->st.pn);
    kv_put16(b + 10, kv->st.pr);
    kv_put16(b + 12, kv->st.gn);
    kv_put16(b + 14, kv->st.gr);
    b[16] = kv->st.first;
    b[17] = kv->st.live;
    for (i = 0; i < kv->cfg->partitions; i++) {
        b[KV_STATE_LEN + i] = kv->st.map[i];
        kv_put16(b + KV_STATE_LEN + kv->cfg->partitions + 2 * i, kv->st.nrec[i]);
    }
    return KV_STATE_LEN + 3u * kv->cfg->partitions;
}

int kv_ckpt_write(struct strata_kv *kv)
{
    uint8_t b[3 + KV_STATE_LEN + 3 * STRATA_KV_MAX_PARTITIONS], c[KV_COMMIT_LEN];
    unsigned len = kv_ctx_len(kv), n, i;
    uint32_t seq = kv->st.seq + 1u, crc, addr;
    uint16_t off;
    int rc = kv_log_reserve(kv, KV_VAR_LEN + len + KV_COMMIT_LEN, 0);
    if (rc != 0)
        return rc;
    off = kv->log_off;
    addr = kv_unit_addr(kv, kv->log_head) + off;
    b[0] = KV_OBJ_CTX;
    kv_put16(b + 1, len);
    n = 3u + state_encode(kv, b + 3, seq);
    crc = strata_crc32(0, b, n);
    if ((rc = kv_fprog(kv, addr, b, n)) != 0)
        return rc;
    addr += n;
    for (i = 0; i < kv->cfg->region_count; i++) {
        const struct strata_kv_region *r = &kv->cfg->regions[i];
        crc = strata_crc32(crc, r->addr, r->size);
        if ((rc = kv_fprog(kv, addr, r->addr, r->size)) != 0)
            return rc;
        addr += r->size;
    }
    kv_put32(c, crc);
    if ((rc = kv_fprog(kv, addr, c, 4)) != 0)
        return rc;
    kv->log_off = (uint16_t)(kv->log_off + KV_VAR_LEN + len);
    c[0] = KV_OBJ_COMMIT;
    kv_put32(c + 1, seq);
    kv_put16(c + 5, off);
    kv_put16(c + 7, len);
    kv_put32(c + 9, crc);
    if ((rc = kv_log_append(kv, c, KV_COMMIT_LEN, 0)) != 0)
        return rc;
    kv->st.seq = seq;
    kv->log_win = kv->log_head;
    return 0;
}

static int state_decode(struct strata_kv *kv, const uint8_t *b, uint32_t seq)
{
    struct strata_kv_state *st = &kv->st;
    uint32_t maxrec = kv_psize(kv) / kv_recsize(kv);
    unsigned i, P = kv->cfg->partitions, seen = 0;
    st->seq = kv_get32(b + 4);
    st->pn = kv_get16(b + 8);
    st->pr = kv_get16(b + 10);
    st->gn = kv_get16(b + 12);
    st->gr = kv_get16(b + 14);
    st->first = b[16];
    st->live = b[17];
    for (i = 0; i < P && i < STRATA_KV_MAX_PARTITIONS; i++) {
        st->map[i] = b[KV_STATE_LEN + i];
        if (st->map[i] >= P || (seen & (1u << st->map[i])))
            return STRATA_ECORRUPT; /* not a permutation */
        seen |= 1u << st->map[i];
        if ((st->nrec[i] = kv_get16(b + KV_STATE_LEN + P + 2 * i)) > maxrec)
            return STRATA_ECORRUPT;
    }
    if (st->seq != seq || st->first >= kv->cfg->partitions || st->live == 0 ||
        st->live >= kv->cfg->partitions || st->pn == 0 || st->gn > st->pn || st->gr > st->pr ||
        (uint32_t)(st->pn + 1u) * kv->cfg->node_size + (uint32_t)st->pr * kv_recsize(kv) >
            kv_psize(kv))
        return STRATA_ECORRUPT;
    kv->ck_pn = st->pn;
    kv->ck_pr = st->pr;
    return 0;
}

/* CRC of `len` bytes of flash, in chunks. */
static int flash_crc(struct strata_kv *kv, uint32_t addr, uint32_t len, uint32_t *crc)
{
    uint8_t b[32];
    *crc = 0;
    while (len > 0) {
        uint32_t n = len < sizeof b ? len : (uint32_t)sizeof b;
        int rc = kv_fread(kv, addr, b, n);
        if (rc != 0)
            return rc;
        *crc = strata_crc32(*crc, b, n);
        addr += n;
        len -= n;
    }
    return 0;
}

int kv_ckpt_load(struct strata_kv *kv, const struct kv_obj *commit)
{
    uint8_t b[3 + KV_STATE_LEN + 3 * STRATA_KV_MAX_PARTITIONS];
    uint32_t seq = kv_get32(commit->b + 1), want = kv_get32(commit->b + 9), crc, stored, addr;
    unsigned off = kv_get16(commit->b + 5), len = kv_get16(commit->b + 7), i;
    unsigned n = 3u + KV_STATE_LEN + 3u * kv->cfg->partitions;
    int rc;
    if (off < KV_SEG_HDR || off + KV_VAR_LEN + len > commit->off || len < n - 3u)
        return STRATA_ECORRUPT;
    addr = kv_unit_addr(kv, commit->seg) + off;
    if ((rc = kv_fread(kv, addr, b, n)) != 0)
        return rc;
    if (b[0] != KV_OBJ_CTX || kv_get16(b + 1) != len)
        return STRATA_ECORRUPT;
    if (kv_get32(b + 3) != kv_signature(kv->cfg) || len != kv_ctx_len(kv))
        return STRATA_EINVAL; /* formatted with another configuration */
    if ((rc = flash_crc(kv, addr, 3u + len, &crc)) != 0)
        return rc;
    {
        uint8_t s[4];
        if ((rc = kv_fread(kv, addr + 3u + len, s, 4)) != 0)
            return rc;
        stored = kv_get32(s);
    }
    if (crc != stored || crc != want)
        return STRATA_ECORRUPT;
    if ((rc = state_decode(kv, b + 3, seq)) != 0)
        return rc;
    addr += n;
    for (i = 0; i < kv->cfg->region_count; i++) {
        const struct strata_kv_region *r = &kv->cfg->regions[i];
        if ((rc = kv_fread(kv, addr, r->addr, r->size)) != 0)
            return rc;
        addr += r->size;
    }
    return 0;
}
