/*
 * Erase undo: rewrite one segment of a partition without its post-checkpoint bytes. The image to
 * write back is first saved in the DATA unit and announced by a checksummed entry in the HDR
 * unit; only then is the segment erased. A power cut anywhere leaves either no valid entry (the
 * segment is untouched) or a pending one, which the next restore completes before anything else.
 */
#include "kv_internal.h"

#define ENTRY 12u

static uint32_t hdr_addr(const struct strata_kv *kv)
{
    return kv_unit_addr(kv, kv->cfg->log_units + 1u);
}

/* CRC of an entry's bytes but its done byte (programmed later) and its CRC. */
static uint32_t entry_crc(const uint8_t *e)
{
    uint8_t t[7];
    t[0] = e[0];
    memcpy(t + 1, e + 2, 6);
    return strata_crc32(0, t, 7);
}

/* Bytes of the image up to its last programmed one. */
static uint32_t used(const struct strata_kv *kv, const uint8_t *img)
{
    uint32_t n = kv->es;
    while (n > 0 && img[n - 1] == 0xFF)
        n--;
    return n;
}

/* Program the image into `unit` (relative to first_unit) and close the entry at `entry`. */
static int write_back(struct strata_kv *kv, uint32_t unit, const uint8_t *img, uint32_t entry)
{
    uint8_t done = 0;
    int rc;
    if ((rc = kv_ferase(kv, kv->cfg->first_unit + unit)) != 0 ||
        (rc = kv_fprog(kv, kv_unit_addr(kv, unit), img, used(kv, img))) != 0)
        return rc;
    kv->restored.units_restored++;
    return kv_fprog(kv, entry + 1u, &done, 1);
}

/* Walk the HDR entries up to the first erased one. With `at` NULL, complete every pending one
 * (done byte still 0xFF); else set *at to where the next entry goes, erasing HDR when it is full
 * or holds a torn entry (no entry is pending then: restores complete them first). */
static int entries(struct strata_kv *kv, uint32_t *at)
{
    uint8_t e[ENTRY], *img = kv->cfg->buffer;
    uint32_t a, first = kv_part_unit(kv, 0), unit, i, ff;
    int rc;
    for (a = 0; a + ENTRY <= kv->es; a += ENTRY) {
        if ((rc = kv_fread(kv, hdr_addr(kv) + a, e, ENTRY)) != 0)
            return rc;
        for (i = 0, ff = 0xFF; i < ENTRY; i++)
            ff &= e[i];
        if (ff == 0xFF) {
            if (at)
                *at = a;
            return 0;
        }
        if (e[0] != 'U' || strata_get_le32(e + 8) != entry_crc(e)) {
            if (at)
                break;
            continue;
        }
        unit = strata_get_le16(e + 2);
        if (at || e[1] != 0xFF)
            continue;
        if (unit < first || unit >= first + (uint32_t)kv->cfg->partitions * kv->cfg->partition_units)
            return STRATA_ECORRUPT;
        if ((rc = kv_fread(kv, kv_unit_addr(kv, kv->cfg->log_units), img, kv->es)) != 0)
            return rc;
        if (strata_crc32(0, img, kv->es) != strata_get_le32(e + 4))
            return STRATA_ECORRUPT;
        if ((rc = write_back(kv, unit, img, hdr_addr(kv) + a)) != 0)
            return rc;
    }
    if (at == NULL)
        return 0;
    *at = 0;
    return kv_ferase(kv, kv->cfg->first_unit + kv->cfg->log_units + 1u);
}

int kv_undo_pending(struct strata_kv *kv)
{
    return entries(kv, NULL);
}

static int save_and_write(struct strata_kv *kv, uint32_t unit, const uint8_t *img)
{
    uint32_t at;
    uint8_t e[ENTRY];
    int rc;
    if ((rc = kv_unit_clean(kv, kv->cfg->log_units)) != 0 ||
        (rc = kv_fprog(kv, kv_unit_addr(kv, kv->cfg->log_units), img, used(kv, img))) != 0 ||
        (rc = entries(kv, &at)) != 0)
        return rc;
    e[0] = 'U';
    e[1] = 0xFF;
    strata_put_le16(e + 2, unit);
    strata_put_le32(e + 4, strata_crc32(0, img, kv->es));
    strata_put_le32(e + 8, entry_crc(e));
    if ((rc = kv_fprog(kv, hdr_addr(kv) + at, e, ENTRY)) != 0)
        return rc;
    return write_back(kv, unit, img, hdr_addr(kv) + at);
}

/* Set [lo, hi) of the image (partition offsets, the image starts at `base`) to 0xFF; 1 if that
 * changed anything. */
static int drop(const struct strata_kv *kv, uint8_t *img, uint32_t base, uint32_t lo,
                uint32_t hi)
{
    int changed = 0;
    if (lo < base)
        lo = base;
    if (hi > base + kv->es)
        hi = base + kv->es;
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
    uint32_t base = unit * kv->es, N = kv->ns;
    struct kv_cursor c;
    struct kv_obj o;
    int changed = 0, rc;
    if ((rc = kv_read_part(kv, part, base, img, kv->es)) != 0)
        return rc;
    /* the gap between the two areas at the checkpoint (only when undoing the areas, far end
     * first, so that what remains of the garbage stays contiguous), and every node's post-mark
     * slots */
    if (areas)
        changed = drop(kv, img, base, kv->ck_pn * N, kv->psize - (uint32_t)kv->ck_pr * kv->rs);
    kv_log_after(kv, commit, &c);
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        uint32_t node = strata_get_le16(o.b + 1), slot = o.b[3];
        if (o.type != KV_OBJ_NODE || node >= kv->ck_pn)
            continue;
        if (slot == 0 || slot >= kv->slots)
            return STRATA_ECORRUPT;
        changed |= drop(kv, img, base, node * N + 2u * slot, (node + 1u) * N);
    }
    if (rc < 0)
        return rc;
    return changed ? save_and_write(kv, kv_part_unit(kv, part) + unit, img) : 0;
}
