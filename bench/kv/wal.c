/*
 * WAL baseline (the paper's revised iNVMFS): every write of the quadtree goes to a redo log — the
 * store's log — and nothing reaches the partitions before the commit. Reads overlay the pending
 * entries on flash: a RAM table maps a node to its newest entry and a node's entries are chained,
 * so overlaying a node follows its chain; a node whose chain head was evicted from the table, and
 * any record, is overlaid by a walk of the pending entries. Commit writes the checkpoint, then
 * every entry back to its home address (idempotent: bytes already there are skipped) and
 * recycles the log. Mount writes back the entries before the last commit again (that write-back
 * may have been cut) and closes the uncommitted ones with an abort object.
 *
 * Compact entries (a careful engineer's redo log: the addresses a put needs and one CRC):
 *   'p' a put: part u8, record index u16, the record, node u16, slot u8 (the slot takes
 *       record index + 1), previous entry of the node u16, CRC       13 + record bytes (22)
 *   't' slots: part u8, node u16, slot u8, n u8, n x u16, previous u16, CRC      12 + 2n
 *   'g' a group header: part u8, node u16, kind u16, CRC                                10
 *   'a' abort: the entries since the last commit are discarded: 3 bytes 0, CRC          8
 * "previous" is a log position (segment x unit size + offset; 0xFFFF: none).
 */
#include <stdlib.h>

#include "baseline.h"

#define W_PUT 'p'
#define W_SLOTS 't'
#define W_GROUP 'g'
#define W_ABORT 'a'
#define W_NONE 0xFFFFu
#define W_MAX 48u /* longest entry */

unsigned wal_table = WAL_TABLE_DEFAULT;

struct store {
    struct kv_baseline b; /* first: the io callbacks get its kv */
    struct {
        uint16_t node1; /* node + 1 of the current partition, 0 = empty */
        uint16_t pos;   /* its newest entry */
    } tab[WAL_TABLE_MAX];
    uint8_t lost[STRATA_KV_MARK_BITS / 8]; /* pending nodes whose chain head was evicted */
    uint8_t pend[STRATA_KV_MARK_BITS / 8];
    uint8_t any;
    struct kv_cursor from; /* first entry after the last commit (or abort) */
    uint8_t rec[KV_MAX_REC], have_rec; /* the record of the put in progress */
    uint16_t rec_index;
    uint8_t cvalid, cpart;
    uint16_t cnode;
    uint8_t cache[STRATA_KV_MAX_NODE]; /* one node, overlaid */
};

static struct store *of(struct strata_kv *kv)
{
    return (struct store *)(void *)kv;
}

uint32_t kv_baseline_obj_size(const struct strata_kv *kv, const uint8_t *b, uint32_t n)
{
    switch (b[0]) {
    case W_PUT:
        return 13u + kv->rec_size;
    case W_SLOTS:
        return n > 5 && b[5] <= STRATA_KV_MAX_DIMS + 1u ? 12u + 2u * b[5] : 0u;
    case W_GROUP:
        return 10u;
    case W_ABORT:
        return KV_SHORT_LEN;
    default:
        return 0;
    }
}

static int bit(const uint8_t *set, uint32_t node)
{
    return node >= STRATA_KV_MARK_BITS || (set[node / 8] & (1u << (node % 8)));
}

static void set_bit(uint8_t *set, uint32_t node)
{
    if (node < STRATA_KV_MARK_BITS)
        set[node / 8] |= (uint8_t)(1u << (node % 8));
}

static uint32_t pos_of(const struct strata_kv *kv, unsigned seg, uint32_t off)
{
    return seg * kv->unit_size + off;
}

/* The (at most two) writes an entry stands for. */
struct wr {
    unsigned part;
    uint32_t off, len;
    const uint8_t *data;
};
static unsigned writes(const struct strata_kv *kv, const uint8_t *e, uint8_t *tmp, struct wr *w)
{
    unsigned rs = kv->rec_size;
    w[0].part = w[1].part = e[1];
    switch (e[0]) {
    case W_PUT: {
        uint32_t r = strata_get_le16(e + 2);
        w[0].off = kv_rec_off(kv, r);
        w[0].len = rs;
        w[0].data = e + 4;
        strata_put_le16(tmp, r + 1u);
        w[1].off = kv_node_off(kv, strata_get_le16(e + 4 + rs)) + 2u * e[6 + rs];
        w[1].len = 2;
        w[1].data = tmp;
        return 2;
    }
    case W_SLOTS:
        w[0].off = kv_node_off(kv, strata_get_le16(e + 2)) + 2u * e[4];
        w[0].len = 2u * e[5];
        w[0].data = e + 6;
        return 1;
    case W_GROUP:
        w[0].off = kv_node_off(kv, strata_get_le16(e + 2));
        w[0].len = 2;
        w[0].data = e + 4;
        return 1;
    default:
        return 0;
    }
}

static uint32_t prev_of(const struct strata_kv *kv, const uint8_t *e)
{
    return e[0] == W_PUT ? strata_get_le16(e + 7 + kv->rec_size)
                         : strata_get_le16(e + 6 + 2u * e[5]);
}

static int entry_read(const struct strata_kv *kv, unsigned seg, uint32_t off, uint8_t *e,
                      uint32_t len)
{
    return kv_fread(kv, kv_unit_addr(kv, seg) + off, e, len);
}

/* Copy into buf ([off, off+len) of part) what the entry writes there. */
static void overlay_one(const struct strata_kv *kv, const uint8_t *e, unsigned part, uint32_t off,
                        uint8_t *buf, uint32_t len)
{
    struct wr w[2];
    uint8_t tmp[2];
    unsigned k, n = writes(kv, e, tmp, w);
    uint32_t i;
    for (k = 0; k < n; k++)
        for (i = 0; i < w[k].len; i++)
            if (w[k].part == part && w[k].off + i >= off && w[k].off + i < off + len)
                buf[w[k].off + i - off] = w[k].data[i];
}

/* Apply every pending entry overlapping [off, off+len) of `part` to buf. */
static int overlay_all(struct strata_kv *kv, unsigned part, uint32_t off, uint8_t *buf,
                       uint32_t len)
{
    struct kv_cursor c = of(kv)->from;
    struct kv_obj o;
    uint8_t e[W_MAX];
    int rc;
    while ((rc = kv_log_walk(kv, &c, &o)) == 1) {
        if (o.b[0] != W_PUT && o.b[0] != W_SLOTS && o.b[0] != W_GROUP)
            continue; /* commits, seals, aborts */
        if ((rc = entry_read(kv, c.seg, o.off, e, o.len)) != 0)
            return rc;
        overlay_one(kv, e, part, off, buf, len);
    }
    return rc;
}

/* Follow the chain of a node's entries (newest first) and apply them to its image. */
static int overlay_chain(struct strata_kv *kv, uint32_t node, uint8_t *img)
{
    struct store *s = of(kv);
    uint32_t i = node % wal_table, pos = s->tab[i].node1 == node + 1u ? s->tab[i].pos : W_NONE;
    uint8_t e[W_MAX];
    unsigned guard;
    for (guard = 0; pos != W_NONE && guard < 4096; guard++) {
        int rc = entry_read(kv, pos / kv->unit_size, pos % kv->unit_size, e, W_MAX);
        if (rc != 0)
            return rc;
        /* a chain only links entries that rewrite the node: apply the node's part */
        overlay_one(kv, e, kv_cur(kv), kv_node_off(kv, node), img, kv->node_size);
        pos = prev_of(kv, e);
    }
    return 0;
}

static int wal_read(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    struct store *s = of(kv);
    uint32_t N = kv->node_size, node = off / N;
    int rc;
    if (!s->any || (part == kv_cur(kv) && off + len <= (uint32_t)kv->st.nodes * N &&
                    !bit(s->pend, node)))
        return kv_read_part(kv, part, off, buf, len);
    if (part == kv_cur(kv) && off + len <= (uint32_t)kv->st.nodes * N && (off % N) + len <= N) {
        if (!s->cvalid || s->cpart != part || s->cnode != node) {
            if ((rc = kv_read_part(kv, part, node * N, s->cache, N)) != 0 ||
                (rc = bit(s->lost, node) ? overlay_all(kv, part, node * N, s->cache, N)
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
    return overlay_all(kv, part, off, buf, len);
}

/* Append entry e (len bytes, CRC filled here) concerning `node` (KV_NONE-like 0xFFFF: none). */
static int append(struct strata_kv *kv, uint8_t *e, uint32_t len, uint32_t node, int chained)
{
    struct store *s = of(kv);
    uint32_t i = node % wal_table, prev = W_NONE;
    int rc;
    if ((rc = kv_log_reserve(kv, len, 1)) != 0)
        return rc;
    if (chained) {
        if (s->tab[i].node1 == node + 1u)
            prev = s->tab[i].pos;
        else if (s->tab[i].node1 != 0)
            set_bit(s->lost, s->tab[i].node1 - 1u); /* its chain head is gone */
        strata_put_le16(e + len - 6u, prev);
        s->tab[i].node1 = (uint16_t)(node + 1u);
        s->tab[i].pos = (uint16_t)pos_of(kv, kv->log_head, kv->log_off);
    }
    if ((rc = kv_log_append(kv, e, len, 1)) != 0)
        return rc;
    s->any = 1;
    set_bit(s->pend, node);
    if (s->cvalid && s->cpart == kv_cur(kv) && s->cnode == node)
        s->cvalid = 0;
    return 0;
}

static int wal_rec_append(struct strata_kv *kv, const uint8_t *rec)
{
    struct store *s = of(kv);
    /* held until the put writes its pointer: one entry for both */
    memcpy(s->rec, rec, kv->rec_size);
    s->have_rec = 1;
    s->rec_index = kv->st.cur.records++;
    return 0;
}

static int wal_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first)
{
    uint8_t e[10];
    int rc;
    e[0] = W_GROUP;
    e[1] = (uint8_t)kv_cur(kv);
    strata_put_le16(e + 2, kv->st.nodes);
    strata_put_le16(e + 4, kind);
    if ((rc = append(kv, e, sizeof e, kv->st.nodes, 0)) != 0)
        return rc;
    *first = kv->st.nodes;
    kv->st.nodes = (uint16_t)(kv->st.nodes + (kind == KV_HDR_QUAD ? kv->group : 1u));
    set_bit(of(kv)->pend, *first); /* the group's later nodes are blank: nothing to overlay */
    return 0;
}

static int wal_node_append(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                           unsigned slot, const uint16_t *vals, unsigned n)
{
    struct store *s = of(kv);
    uint16_t node = path[depth];
    uint8_t e[W_MAX];
    unsigned i, rs = kv->rec_size;
    if (slot == 0 || slot + n > kv->slots || n > STRATA_KV_MAX_DIMS + 1u)
        return STRATA_ECORRUPT;
    e[1] = (uint8_t)kv_cur(kv);
    if (s->have_rec && n == 1 && vals[0] == s->rec_index + 1u) {
        s->have_rec = 0;
        e[0] = W_PUT;
        strata_put_le16(e + 2, s->rec_index);
        memcpy(e + 4, s->rec, rs);
        strata_put_le16(e + 4 + rs, node);
        e[6 + rs] = (uint8_t)slot;
        return append(kv, e, 13u + rs, node, 1);
    }
    e[0] = W_SLOTS;
    strata_put_le16(e + 2, node);
    e[4] = (uint8_t)slot;
    e[5] = (uint8_t)n;
    for (i = 0; i < n; i++)
        strata_put_le16(e + 6 + 2 * i, vals[i]);
    return append(kv, e, 12u + 2u * n, node, 1);
}

static uint16_t wal_root(const struct strata_kv *kv, unsigned part)
{
    (void)kv;
    (void)part;
    return 0;
}

static void forget(struct store *s)
{
    memset(s->pend, 0, sizeof s->pend);
    memset(s->lost, 0, sizeof s->lost);
    memset(s->tab, 0, sizeof s->tab);
    s->cvalid = 0;
    s->any = 0;
}

static int wal_full(struct strata_kv *kv)
{
    struct store *s = of(kv);
    /* the old partition's pending entries stay in the log (found by full walks); the table only
     * knows nodes of the current partition */
    int any = s->any;
    forget(s);
    s->any = (uint8_t)any;
    return kv_switch(kv);
}

static const struct kv_io wal_io = {wal_read, wal_rec_append, wal_group_alloc, wal_node_append,
                                    wal_root, wal_full};

/* Write an entry to its home addresses; bytes already there are skipped (idempotent). */
static int write_home(struct strata_kv *kv, const uint8_t *e)
{
    struct wr w[2];
    uint8_t tmp[2], home[KV_MAX_REC];
    unsigned k, n = writes(kv, e, tmp, w);
    uint32_t i;
    for (k = 0; k < n; k++) {
        int rc;
        if (w[k].part >= kv->cfg->partitions || w[k].len > sizeof home)
            return STRATA_ECORRUPT;
        if ((rc = kv_read_part(kv, w[k].part, w[k].off, home, w[k].len)) != 0)
            return rc;
        if (memcmp(home, w[k].data, w[k].len) == 0)
            continue;
        for (i = 0; i < w[k].len; i++)
            if (w[k].data[i] & ~home[i])
                return STRATA_ECORRUPT; /* the home bytes hold something else */
        if ((rc = kv_prog_part(kv, w[k].part, w[k].off, w[k].data, w[k].len)) != 0)
            return rc;
    }
    return 0;
}

/* Write back the entries from c up to the object at (seg, off). */
static int write_back(struct strata_kv *kv, struct kv_cursor c, unsigned seg, uint32_t off)
{
    struct kv_obj o;
    uint8_t e[W_MAX];
    int rc;
    while ((rc = kv_log_walk(kv, &c, &o)) == 1) {
        if (c.seg == seg && o.off == off)
            return 0;
        if (o.b[0] != W_PUT && o.b[0] != W_SLOTS && o.b[0] != W_GROUP)
            continue; /* commits, seals, aborts */
        if ((rc = entry_read(kv, c.seg, o.off, e, o.len)) != 0)
            return rc;
        if ((rc = write_home(kv, e)) != 0)
            return rc;
    }
    return rc;
}

static void mark_from(struct store *s)
{
    s->from.seg = s->b.kv.log_head;
    s->from.seq = s->b.kv.log_seq;
    s->from.off = s->b.kv.log_off;
}

static int wal_commit(struct store *s)
{
    struct strata_kv *kv = &s->b.kv;
    unsigned seg;
    uint32_t off;
    int rc;
    kv->gen++;
    if ((rc = kv_ckpt_write(kv)) != 0)
        return rc;
    /* the entries before the commit object go home, then the log is recycled */
    seg = kv->log_win;
    off = kv->ck_off - (KV_COMMIT_EXTRA + kv->ctx_len);
    if ((rc = write_back(kv, s->from, seg, off)) != 0 || (rc = kv_after_commit(kv)) != 0)
        return rc;
    forget(s);
    mark_from(s);
    return 0;
}

/* At mount: write back the entries of every batch a commit closed (from the oldest live
 * segment on), forget those an abort closed. */
static int replay(struct strata_kv *kv)
{
    unsigned L = kv->cfg->log_units, back;
    uint32_t seq;
    struct kv_cursor c, batch;
    struct kv_obj o;
    int rc;
    for (back = 1; back < L; back++) {
        unsigned seg = (kv->log_head + L - back) % L;
        if (kv_log_header(kv, seg, &seq) != 1 || seq != kv->log_seq - back)
            break;
    }
    c.seg = (uint8_t)((kv->log_head + L - (back - 1u)) % L);
    c.seq = kv->log_seq - (back - 1u);
    c.off = KV_SEG_HDR;
    batch = c;
    while ((rc = kv_log_walk(kv, &c, &o)) == 1) {
        if (o.b[0] == KV_OBJ_COMMIT && (rc = write_back(kv, batch, c.seg, o.off)) != 0)
            return rc;
        if (o.b[0] == KV_OBJ_COMMIT || o.b[0] == W_ABORT)
            batch = c;
    }
    return rc;
}

static int wal_mount(struct store *s, const struct strata_kv_config *cfg)
{
    struct strata_kv *kv = &s->b.kv;
    struct kv_cursor commit;
    uint8_t a[KV_SHORT_LEN];
    int rc;
    if ((rc = kv_open(kv, cfg)) != 0 || (rc = kv_log_open(kv, &commit)) != 0 ||
        (rc = kv_ckpt_load(kv, &commit)) != 0)
        return rc;
    /* a torn tail: zero it (kv_restore's last step) */
    if (kv->torn_end != 0) {
        if ((rc = kv_scan_flash(kv, kv_unit_addr(kv, kv->log_head) + kv->log_off,
                                (uint32_t)kv->torn_end - kv->log_off, KV_SCAN_ZERO, NULL)) != 0)
            return rc;
        kv->log_off = kv->torn_end;
    }
    if ((rc = replay(kv)) != 0)
        return rc;
    /* whatever follows the last commit is discarded */
    kv_short_set(a, W_ABORT, 0, 0);
    if ((rc = kv_log_append(kv, a, KV_SHORT_LEN, 0)) != 0)
        return rc;
    kv->flags |= KV_F_OPEN;
    kv->gen++;
    forget(s);
    mark_from(s);
    return 0;
}

static struct store *wal_create(void)
{
    struct store *s = calloc(1, sizeof *s);
    if (s)
        bl_setup(&s->b, &wal_io);
    return s;
}

static int wal_format(struct store *s, const struct strata_kv_config *c)
{
    struct strata_kv *kv = &s->b.kv;
    int rc = kv_open(kv, c);
    if (rc == 0 && kv->cfg->log_units * (uint32_t)kv->unit_size > 0xFFFEu)
        rc = STRATA_EINVAL; /* log positions are 16-bit */
    if (rc == 0)
        rc = kv_format(kv);
    if (rc == 0) {
        /* the first root went through the redo log (before the first commit object): write it
         * home with a second commit */
        s->from.seg = 0;
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
    if (!(s->b.kv.flags & KV_F_OPEN))
        return STRATA_EINVAL;
    if (!kv_log_room(&s->b.kv, 4u * W_MAX, 1) && (rc = wal_commit(s)) != 0)
        return rc;
    s->b.kv.gen++;
    return kv_tree_put(&s->b.kv, r);
}

static int wal_commit_op(struct store *s)
{
    return wal_commit(s);
}

static struct strata_kv *wal_kv(struct store *s)
{
    return &s->b.kv;
}

static uint32_t wal_records(struct store *s)
{
    return bl_records(&s->b.kv);
}

static void wal_destroy(struct store *s)
{
    free(s);
}

const struct store_ops wal_ops = {"WAL",  wal_create,    wal_format, wal_mount,   wal_put,
                                  wal_commit_op, wal_kv, wal_records, NULL, wal_destroy};
