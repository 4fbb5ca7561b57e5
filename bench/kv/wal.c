/*
 * WAL baseline (the paper's revised iNVMFS): every write of the quadtree (records, group headers,
 * pointer slots) goes to a redo log — the store's log, as 'W' entries holding the partition, the
 * offset and the bytes — and nothing reaches the partitions before the commit. Reads overlay the
 * pending entries on flash (a bit table in RAM says which nodes have pending entries, one node is
 * kept overlaid in RAM). Commit writes the checkpoint, then writes every entry back to its home
 * address (idempotent: bytes already there are skipped) and recycles the log. Restore writes back
 * the entries before the last commit again (in case that was cut) and neutralises the entries
 * after it. Shares the quadtree, the partitions and the log with the library.
 */
#include <stdlib.h>

#include "bench.h"

#define W_HDR 11u /* type, u16 length, part, u32 offset, previous entry of the node (seg, u16 off) */
#define W_TAB 64u /* RAM hash: node -> its newest entry (the entries of a node are chained) */
#define W_NONE 0xFFu

struct store {
    struct strata_kv kv; /* first: the io callbacks get it */
    struct {
        uint16_t node1; /* node + 1, 0 = empty */
        uint8_t seg;
        uint16_t off;
    } tab[W_TAB];
    uint8_t lost[STRATA_KV_MARK_BITS / 8]; /* pending nodes whose chain head was evicted */
    uint8_t pend[STRATA_KV_MARK_BITS / 8];
    uint8_t any, other;
    struct kv_cursor from; /* first object after the last commit record */
    uint8_t cvalid, cpart;
    uint16_t cnode;
    uint8_t cache[STRATA_KV_MAX_NODE];
};

static struct store *of(struct strata_kv *kv)
{
    return (struct store *)kv;
}

static void set_pend(struct store *s, uint32_t node)
{
    if (node < STRATA_KV_MARK_BITS)
        s->pend[node / 8] |= (uint8_t)(1u << (node % 8));
}

static int is_pend(const struct store *s, uint32_t node)
{
    return node >= STRATA_KV_MARK_BITS || (s->pend[node / 8] & (1u << (node % 8)));
}

static int is_lost(const struct store *s, uint32_t node)
{
    return node >= STRATA_KV_MARK_BITS || (s->lost[node / 8] & (1u << (node % 8)));
}

/* Follow the chain of a node's entries (newest first) and apply them to its image. */
static int overlay_chain(struct strata_kv *kv, uint32_t node, uint8_t *img)
{
    struct store *s = of(kv);
    uint32_t N = kv->cfg->node_size, i = node % W_TAB;
    uint8_t seg, h[W_HDR + 8];
    uint16_t off;
    int rc;
    if (s->tab[i].node1 != node + 1u)
        return 0; /* no entry yet (a group's later nodes) */
    seg = s->tab[i].seg;
    off = s->tab[i].off;
    while (seg != W_NONE) {
        uint32_t eoff, n;
        if ((rc = strata_flash_read(kv_flash(kv), kv_unit_addr(kv, seg) + off, h, sizeof h)) != 0)
            return rc;
        eoff = strata_get_le32(h + 4);
        n = strata_get_le16(h + 1) - 8u;
        if (n > 8 || eoff < node * N || eoff + n > (node + 1u) * N)
            return STRATA_ECORRUPT;
        memcpy(img + eoff - node * N, h + W_HDR, n);
        seg = h[8];
        off = strata_get_le16(h + 9);
    }
    return 0;
}

/* Entry data: from the object's first bytes, or from flash when longer. */
static int entry_data(struct strata_kv *kv, const struct kv_obj *o, uint8_t *data, unsigned n)
{
    if (W_HDR + n <= sizeof o->b) {
        memcpy(data, o->b + W_HDR, n);
        return 0;
    }
    return strata_flash_read(kv_flash(kv), kv_unit_addr(kv, o->seg) + o->off + W_HDR, data, n);
}

/* Apply every pending entry overlapping [off, off+len) of `part` to buf. */
static int overlay(struct strata_kv *kv, unsigned part, uint32_t off, uint8_t *buf, uint32_t len)
{
    struct store *s = of(kv);
    struct kv_cursor c = s->from;
    struct kv_obj o;
    int rc;
    c.stop = kv->log_head;
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        uint8_t data[64];
        uint32_t eoff, n, i;
        if (o.type != KV_OBJ_REDO || o.b[3] != part)
            continue;
        eoff = strata_get_le32(o.b + 4);
        n = strata_get_le16(o.b + 1) - 8u;
        if (n > sizeof data || eoff >= off + len || eoff + n <= off)
            continue;
        if ((rc = entry_data(kv, &o, data, n)) != 0)
            return rc;
        for (i = 0; i < n; i++)
            if (eoff + i >= off && eoff + i < off + len)
                buf[eoff + i - off] = data[i];
    }
    return rc;
}

static int wal_read(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    struct store *s = of(kv);
    uint32_t N = kv->cfg->node_size, node = off / N;
    int rc;
    if (!s->any || (part == kv_cur(kv) && off + len <= (uint32_t)kv->st.pn * N && !is_pend(s, node)))
        return kv_read_part(kv, part, off, buf, len);
    if (part == kv_cur(kv) && off + len <= (uint32_t)kv->st.pn * N && (off % N) + len <= N) {
        if (!s->cvalid || s->cpart != part || s->cnode != node) {
            if ((rc = kv_read_part(kv, part, node * N, s->cache, N)) != 0 ||
                (rc = is_lost(s, node) ? overlay(kv, part, node * N, s->cache, N)
                                       : overlay_chain(kv, node, s->cache)) != 0)
                return rc;
            s->cvalid = 1;
            s->cpart = (uint8_t)part;
            s->cnode = (uint16_t)node;
        }
        memcpy(buf, s->cache + off % N, len);
        return 0;
    }
    if ((rc = kv_read_part(kv, part, off, buf, len)) != 0)
        return rc;
    return overlay(kv, part, off, buf, len);
}

static int append(struct strata_kv *kv, uint32_t off, const uint8_t *data, unsigned n)
{
    struct store *s = of(kv);
    uint8_t b[W_HDR + 32 + 4];
    unsigned part = kv_cur(kv), N = kv->cfg->node_size;
    uint32_t node = off / N, i = node % W_TAB;
    int is_node = off < (uint32_t)kv->st.pn * N || off == kv_node_off(kv, kv->st.pn), rc;
    if (n > 32)
        return STRATA_EINVAL;
    if ((rc = kv_log_reserve(kv, W_HDR + n + 4u, 1)) != 0)
        return rc;
    b[0] = KV_OBJ_REDO;
    strata_put_le16(b + 1, 8u + n);
    b[3] = (uint8_t)part;
    strata_put_le32(b + 4, off);
    b[8] = W_NONE;
    strata_put_le16(b + 9, 0xFFFF);
    if (is_node && s->tab[i].node1 == node + 1u) {
        b[8] = s->tab[i].seg;
        strata_put_le16(b + 9, s->tab[i].off);
    }
    memcpy(b + W_HDR, data, n);
    if (is_node) {
        if (s->tab[i].node1 != 0 && s->tab[i].node1 != node + 1u && s->tab[i].node1 - 1u < STRATA_KV_MARK_BITS)
            s->lost[(s->tab[i].node1 - 1u) / 8] |= (uint8_t)(1u << ((s->tab[i].node1 - 1u) % 8));
        s->tab[i].node1 = (uint16_t)(node + 1u);
        s->tab[i].seg = kv->log_head;
        s->tab[i].off = kv->log_off;
    }
    if ((rc = kv_log_append(kv, b, W_HDR + n + 4u, 1)) != 0)
        return rc;
    s->any = 1;
    if (s->cvalid && s->cpart == part && node == s->cnode)
        memcpy(s->cache + off % N, data, n);
    return 0;
}

static int wal_rec_append(struct strata_kv *kv, const uint8_t *rec)
{
    int rc = append(kv, kv_rec_off(kv, kv->st.pr), rec, kv_recsize(kv));
    if (rc == 0)
        kv->st.pr++;
    return rc;
}

static int wal_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first)
{
    unsigned size = kind == KV_HDR_QUAD ? kv_group(kv) : 1u, i;
    uint8_t h[2];
    int rc;
    strata_put_le16(h, kind);
    if ((rc = append(kv, kv_node_off(kv, kv->st.pn), h, 2)) != 0)
        return rc;
    for (i = 0; i < size; i++)
        set_pend(of(kv), kv->st.pn + i);
    *first = kv->st.pn;
    kv->st.pn = (uint16_t)(kv->st.pn + size);
    return 0;
}

static int wal_node_append(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                           unsigned slot, const uint16_t *vals, unsigned n)
{
    uint8_t b[2 * (STRATA_KV_MAX_DIMS + 1)];
    unsigned i;
    if (slot == 0 || slot + n > kv_slots(kv) || n > STRATA_KV_MAX_DIMS + 1u)
        return STRATA_ECORRUPT;
    for (i = 0; i < n; i++)
        strata_put_le16(b + 2 * i, vals[i]);
    set_pend(of(kv), path[depth]);
    return append(kv, kv_node_off(kv, path[depth]) + 2u * slot, b, 2u * n);
}

static uint16_t wal_root(const struct strata_kv *kv, unsigned part)
{
    (void)kv;
    (void)part;
    return 0;
}

static int wal_full(struct strata_kv *kv)
{
    struct store *s = of(kv);
    s->other |= s->any;
    memset(s->pend, 0, sizeof s->pend);
    memset(s->lost, 0, sizeof s->lost);
    memset(s->tab, 0, sizeof s->tab);
    s->cvalid = 0;
    return kv_switch(kv);
}

static const struct kv_io wal_io = {wal_read, wal_rec_append, wal_group_alloc, wal_node_append,
                                    wal_root, wal_full};

/* Write an entry to its home address; bytes already there are skipped (idempotent). */
static int write_home(struct strata_kv *kv, const struct kv_obj *o)
{
    uint8_t data[64], home[64];
    uint32_t off = strata_get_le32(o->b + 4), n = strata_get_le16(o->b + 1) - 8u, i;
    unsigned part = o->b[3];
    int rc;
    if (n > sizeof data || part >= kv->cfg->partitions)
        return STRATA_ECORRUPT;
    if ((rc = entry_data(kv, o, data, n)) != 0 || (rc = kv_read_part(kv, part, off, home, n)) != 0)
        return rc;
    for (i = 0; i < n && home[i] == data[i]; i++)
        ;
    if (i == n)
        return 0;
    for (i = 0; i < n; i++)
        if (data[i] & ~home[i])
            return STRATA_ECORRUPT; /* the home bytes hold something else */
    return kv_prog_part(kv, part, off, data, n);
}

/* Write back every entry from cursor c up to the first commit record (or the end). */
static int write_back(struct strata_kv *kv, struct kv_cursor c, const struct kv_obj *until)
{
    struct kv_obj o;
    int rc;
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        if (until ? (o.seg == until->seg && o.off == until->off) : o.type == KV_OBJ_COMMIT)
            return 0;
        if (o.type == KV_OBJ_REDO && (rc = write_home(kv, &o)) != 0)
            return rc;
    }
    return rc;
}

static void after_commit(struct store *s)
{
    memset(s->pend, 0, sizeof s->pend);
    memset(s->lost, 0, sizeof s->lost);
    memset(s->tab, 0, sizeof s->tab);
    s->any = s->other = 0;
    s->cvalid = 0;
    memset(&s->from, 0, sizeof s->from);
    s->from.seg = s->from.stop = s->kv.log_head;
    s->from.seq = s->kv.log_seq;
    s->from.off = s->kv.log_off;
}

static int wal_commit(struct store *s)
{
    struct strata_kv *kv = &s->kv;
    struct kv_cursor c = s->from;
    int rc;
    kv->gen++;
    if ((rc = kv_ckpt_write(kv)) != 0)
        return rc;
    c.stop = kv->log_head;
    if ((rc = write_back(kv, c, NULL)) != 0 || (rc = kv_after_commit(kv)) != 0)
        return rc;
    after_commit(s);
    return 0;
}

static int wal_mount(struct store *s, const struct strata_kv_config *cfg)
{
    struct strata_kv *kv = &s->kv;
    struct kv_obj commit;
    struct kv_cursor c;
    unsigned L = cfg->log_units, back, seg;
    uint32_t seq, cseq;
    int rc;
    if ((rc = kv_open(kv, cfg, &wal_io)) != 0 || (rc = kv_log_open(kv, &commit)) != 0 ||
        (rc = kv_ckpt_load(kv, &commit)) != 0)
        return rc;
    /* the oldest live segment, then write back everything before the commit again */
    cseq = kv->log_seq - (kv->log_head + L - commit.seg) % L;
    for (back = 1; back < L; back++) {
        seg = (commit.seg + L - back) % L;
        if (kv_log_header(kv, seg, &seq) != 1 || seq != cseq - back)
            break;
    }
    memset(&c, 0, sizeof c);
    c.seg = (uint8_t)((commit.seg + L - (back - 1u)) % L);
    c.seq = cseq - (back - 1u);
    c.off = KV_SEG_HDR;
    c.stop = commit.seg;
    if ((rc = write_back(kv, c, &commit)) != 0)
        return rc;
    /* discard what followed the commit: later segments erased, the rest of its own zeroed */
    for (seg = (commit.seg + 1u) % L; seg != (kv->log_head + 1u) % L && commit.seg != kv->log_head;
         seg = (seg + 1u) % L)
        if ((rc = kv_unit_clean(kv, seg)) != 0)
            return rc;
    kv->log_head = commit.seg;
    kv->log_seq = cseq;
    if ((rc = kv_log_seal(kv, (uint16_t)(commit.off + commit.len))) != 0)
        return rc;
    kv->flags |= KV_F_OPEN;
    kv->gen++;
    after_commit(s);
    return 0;
}

static struct store *wal_create(void)
{
    return calloc(1, sizeof(struct store));
}

static int wal_format(struct store *s, const struct strata_kv_config *c)
{
    int rc = kv_open(&s->kv, c, &wal_io);
    if (rc == 0)
        rc = kv_format(&s->kv);
    if (rc == 0) {
        /* the first root went through the redo log (right after the first segment's header):
         * write it home with a second commit */
        memset(&s->from, 0, sizeof s->from);
        s->from.seq = 1;
        s->from.off = KV_SEG_HDR;
        s->any = 1;
        rc = wal_commit(s);
    }
    return rc;
}

static int wal_put(struct store *s, const struct strata_kv_record *r)
{
    int rc;
    if (!(s->kv.flags & KV_F_OPEN))
        return STRATA_EINVAL;
    if (!kv_log_room(&s->kv, 96, 1) && (rc = wal_commit(s)) != 0)
        return rc;
    s->kv.gen++;
    return kv_tree_put(&s->kv, r);
}

static struct strata_kv *wal_kv(struct store *s)
{
    return &s->kv;
}

static void wal_destroy(struct store *s)
{
    free(s);
}

const struct store_ops wal_ops = {"WAL", wal_create, wal_format, wal_mount, wal_put, wal_commit,
                                  wal_kv, NULL, wal_destroy};
