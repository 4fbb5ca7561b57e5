/*
 * Erase undo: rewrite one segment of a partition without its post-checkpoint bytes. The image to
 * write back is first saved in the DATA unit and announced by a checksummed entry in the HDR
 * unit; only then is the segment erased. A power cut anywhere leaves either no valid entry (the
 * segment is untouched) or a pending one, which the next restore completes before anything else.
 */
#include "kv_internal.h"

static uint32_t data_unit(const struct strata_kv *kv)
{
    return kv->log_units;
}

/* CRC of an entry's bytes but its done byte (programmed later) and its CRC. */
static uint32_t entry_crc(const uint8_t *e)
{
    return strata_crc32(strata_crc32(0, e, KV_UNDO_DONE), e + KV_UNDO_UNIT,
                        KV_UNDO_CRC - KV_UNDO_UNIT);
}

/* Program the image into `unit` (relative to first_unit), skipping its erased bytes (each stays
 * free for one write and one zeroing, all the MSP430's row time allows), and close the entry at
 * `entry`. */
static int write_back(struct strata_kv *kv, uint32_t unit, uint8_t *img, uint32_t entry)
{
    uint8_t done = 0;
    int rc;
    if ((rc = kv_ferase(kv, kv->cfg->first_unit + unit)) != 0 ||
        (rc = kv_prog_runs(kv, kv_unit_addr(kv, unit), img, kv->unit_size, 0xFF)) != 0)
        return rc;
    kv->restored.units_restored++;
    return kv_fprog(kv, entry + KV_UNDO_DONE, &done, 1);
}

/* Walk the HDR entries up to the first erased one. With `at` NULL, complete every pending one
 * (done byte still 0xFF); else set *at to where the next entry goes (a device address), erasing
 * HDR when it is full or holds a torn entry (no entry is pending then: restores complete them
 * first). */
int kv_undo_entries(struct strata_kv *kv, uint32_t *at)
{
    uint8_t e[KV_UNDO_LEN], *img = kv->buf;
    uint32_t a, first = kv_part_unit(kv, 0), unit;
    uint32_t hdr = kv_unit_addr(kv, kv->log_units + 1u); /* the HDR unit */
    int rc;
    for (a = hdr; a + KV_UNDO_LEN <= hdr + kv->unit_size; a += KV_UNDO_LEN) {
        if ((rc = kv_fread(kv, a, e, KV_UNDO_LEN)) != 0)
            return rc;
        if (kv_used(e, KV_UNDO_LEN) == 0) {
            if (at)
                *at = a;
            return 0;
        }
        if (e[KV_UNDO_TAG] != 'U' || strata_get_le32(e + KV_UNDO_CRC) != entry_crc(e)) {
            if (at)
                break;
            continue;
        }
        unit = strata_get_le16(e + KV_UNDO_UNIT);
        if (at || e[KV_UNDO_DONE] != 0xFF)
            continue;
        if (unit < first || unit >= first + (uint32_t)kv->partitions * kv->cfg->partition_units)
            return STRATA_ECORRUPT;
        if ((rc = kv_fread(kv, kv_unit_addr(kv, data_unit(kv)), img, kv->unit_size)) != 0)
            return rc;
        if (strata_crc32(0, img, kv->unit_size) != strata_get_le32(e + KV_UNDO_IMAGE))
            return STRATA_ECORRUPT;
        if ((rc = write_back(kv, unit, img, a)) != 0)
            return rc;
    }
    if (at == NULL)
        return 0;
    *at = hdr;
    return kv_ferase(kv, kv->cfg->first_unit + kv->log_units + 1u);
}

static int save_and_write(struct strata_kv *kv, uint32_t unit, uint8_t *img)
{
    uint32_t at;
    uint8_t e[KV_UNDO_LEN];
    int rc;
    if ((rc = kv_unit_clean(kv, data_unit(kv))) != 0 ||
        (rc = kv_fprog(kv, kv_unit_addr(kv, data_unit(kv)), img,
                       kv_used(img, kv->unit_size))) != 0 ||
        (rc = kv_undo_entries(kv, &at)) != 0)
        return rc;
    e[KV_UNDO_TAG] = 'U';
    e[KV_UNDO_DONE] = 0xFF;
    strata_put_le16(e + KV_UNDO_UNIT, unit);
    strata_put_le32(e + KV_UNDO_IMAGE, strata_crc32(0, img, kv->unit_size));
    strata_put_le32(e + KV_UNDO_CRC, entry_crc(e));
    if ((rc = kv_fprog(kv, at, e, KV_UNDO_LEN)) != 0)
        return rc;
    return write_back(kv, unit, img, at);
}

/* Erase [lo, hi) (partition offsets) in the image of the unit at `base`; 1 if that changed it. */
static int drop(const struct strata_kv *kv, uint8_t *img, uint32_t base, uint32_t lo, uint32_t hi)
{
    uint32_t i;
    int changed = 0;
    for (i = 0; i < kv->unit_size; i++)
        if (base + i >= lo && base + i < hi && img[i] != 0xFF) {
            img[i] = 0xFF;
            changed = 1;
        }
    return changed;
}

int kv_undo_unit(struct strata_kv *kv, unsigned part, uint32_t unit, uint32_t lo, uint32_t hi)
{
    uint8_t *img = kv->buf;
    uint32_t base = unit * kv->unit_size;
    struct kv_cursor c;
    struct kv_obj o;
    int changed, rc;
    if ((rc = kv_read_part(kv, part, base, img, kv->unit_size)) != 0)
        return rc;
    /* [lo, hi), then what every mark says was written after the checkpoint, so that one
     * rebuild serves all the unit's marked nodes (restore.c checked the marks) */
    kv_log_after(kv, &c);
    for (changed = 0;;) {
        changed |= drop(kv, img, base, lo, hi);
        if ((rc = kv_log_mark(kv, &c, &o)) != 1)
            break;
        lo = kv_node_off(kv, kv_mark_node(o.b));
        hi = lo + kv->node_size;
        lo += 2u * kv_mark_slot(o.b);
    }
    if (rc < 0)
        return rc;
    return changed ? save_and_write(kv, kv_part_unit(kv, part) + unit, img) : 0;
}
