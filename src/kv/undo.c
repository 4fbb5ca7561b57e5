/*
 * Erase undo: rewrite one segment of a partition without its post-checkpoint bytes. The image to
 * write back is first saved in the DATA unit and announced by a checksummed entry in the HDR
 * unit; only then is the segment erased. A power cut anywhere leaves either no valid entry (the
 * segment is untouched) or a pending one, which the next restore completes before anything else.
 */
#include "kv_internal.h"

#define ENTRY 12u

static uint32_t data_unit(const struct strata_kv *kv)
{
    return kv->cfg->log_units;
}

static uint32_t hdr_addr(const struct strata_kv *kv)
{
    return kv_unit_addr(kv, kv->cfg->log_units + 1u);
}

static uint32_t entry_crc(const uint8_t *e)
{
    uint8_t t[7];
    t[0] = e[0];
    memcpy(t + 1, e + 2, 6);
    return strata_crc32(0, t, 7);
}

static int all_ff(const uint8_t *b, unsigned n)
{
    while (n > 0)
        if (b[--n] != 0xFF)
            return 0;
    return 1;
}

/* Program the image into `unit` (relative to first_unit) and close the entry at `entry`. */
static int write_back(struct strata_kv *kv, uint32_t unit, const uint8_t *img, uint32_t entry)
{
    uint32_t last = kv_es(kv);
    uint8_t done = 0;
    int rc;
    while (last > 0 && img[last - 1] == 0xFF)
        last--;
    if ((rc = kv_ferase(kv, kv->cfg->first_unit + unit)) != 0 ||
        (rc = kv_fprog(kv, kv_unit_addr(kv, unit), img, last)) != 0)
        return rc;
    kv->restored.units_restored++;
    return kv_fprog(kv, entry + 1u, &done, 1);
}

static int target_ok(const struct strata_kv *kv, uint32_t unit)
{
    uint32_t first = kv_part_unit(kv, 0);
    return unit >= first && unit < first + (uint32_t)kv->cfg->partitions * kv->cfg->partition_units;
}

int kv_undo_pending(struct strata_kv *kv)
{
    uint8_t e[ENTRY], *img = kv->cfg->buffer;
    uint32_t at, es = kv_es(kv);
    int rc;
    for (at = 0; at + ENTRY <= es; at += ENTRY) {
        uint32_t unit;
        if ((rc = kv_fread(kv, hdr_addr(kv) + at, e, ENTRY)) != 0)
            return rc;
        if (all_ff(e, ENTRY))
            return 0;
        if (e[0] != 'U' || kv_get32(e + 8) != entry_crc(e) || e[1] != 0xFF)
            continue;
        unit = kv_get16(e + 2);
        if (!target_ok(kv, unit))
            return STRATA_ECORRUPT;
        if ((rc = kv_fread(kv, kv_unit_addr(kv, data_unit(kv)), img, es)) != 0)
            return rc;
        if (strata_crc32(0, img, es) != kv_get32(e + 4))
            return STRATA_ECORRUPT;
        if ((rc = write_back(kv, unit, img, hdr_addr(kv) + at)) != 0)
            return rc;
    }
    return 0;
}

/* Where the next entry goes; erases HDR when it is full or holds a torn entry (no entry is
 * pending at this point: restores complete them first). */
static int entry_slot(struct strata_kv *kv, uint32_t *at)
{
    uint8_t e[ENTRY];
    uint32_t es = kv_es(kv);
    int rc;
    for (*at = 0; *at + ENTRY <= es; *at += ENTRY) {
        if ((rc = kv_fread(kv, hdr_addr(kv) + *at, e, ENTRY)) != 0)
            return rc;
        if (all_ff(e, ENTRY))
            return 0;
        if (e[0] != 'U' || kv_get32(e + 8) != entry_crc(e))
            break;
    }
    *at = 0;
    return kv_ferase(kv, kv->cfg->first_unit + kv->cfg->log_units + 1u);
}

static int save_and_write(struct strata_kv *kv, uint32_t unit, const uint8_t *img)
{
    uint32_t es = kv_es(kv), last = es, at;
    uint8_t e[ENTRY];
    int rc;
    while (last > 0 && img[last - 1] == 0xFF)
        last--;
    if ((rc = kv_unit_clean(kv, data_unit(kv))) != 0 ||
        (rc = kv_fprog(kv, kv_unit_addr(kv, data_unit(kv)), img, last)) != 0 ||
        (rc = entry_slot(kv, &at)) != 0)
        return rc;
    e[0] = 'U';
    e[1] = 0xFF;
    kv_put16(e + 2, unit);
    kv_put32(e + 4, strata_crc32(0, img, es));
    kv_put32(e + 8, entry_crc(e));
    if ((rc = kv_fprog(kv, hdr_addr(kv) + at, e, ENTRY)) != 0)
        return rc;
    return write_back(kv, unit, img, hdr_addr(kv) + at);
}

/* Set [lo, hi) of the image (partition offsets, the image starts at `base`) to 0xFF. */
static int drop(uint8_t *img, uint32_t base, uint32_t es, uint32_t lo, uint32_t hi)
{
    int changed = 0;
    if (lo < base)
        lo = base;
    if (hi > base + es)
        hi = base + es;
    for (; lo < hi; lo++) {
        changed |= img[lo - base] != 0xFF;
        img[lo - base] = 0xFF;
    }
    return changed;
}

int kv_undo_unit(struct strata_kv *kv, unsigned part, uint32_t unit, const struct kv_obj *commit,
                 int areas)
{
    uint8_t *img = kv->cfg->buffer;
    uint32_t es = kv_es(kv), base = unit * es, N = kv->cfg->node_size;
    struct kv_cursor c;
    struct kv_obj o;
    int changed, rc;
    if ((rc = kv_read_part(kv, part, base, img, es)) != 0)
        return rc;
    /* the gap between the two areas at the checkpoint (only when undoing the areas, far end
     * first, so that what remains of the garbage stays contiguous), and every node's post-mark
     * slots */
    changed = areas ? drop(img, base, es, kv->ck_pn * N,
                           kv_psize(kv) - (uint32_t)kv->ck_pr * kv_recsize(kv))
                    : 0;
    kv_log_after(kv, commit, &c);
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        uint32_t node = kv_get16(o.b + 2), slot = o.b[4];
        if (o.type != KV_OBJ_NODE || o.b[1] != part || node >= kv->ck_pn)
            continue;
        if (slot == 0 || slot >= kv_slots(kv))
            return STRATA_ECORRUPT;
        changed |= drop(img, base, es, node * N + 2u * slot, (node + 1u) * N);
    }
    if (rc < 0)
        return rc;
    return changed ? save_and_write(kv, kv_part_unit(kv, part) + unit, img) : 0;
}
