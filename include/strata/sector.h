/*
 * A sector device: fixed-size sectors read and written whole, by number. The one small interface
 * that engines needing a block device take (strata_vm's backing store, the B-tree's in-place
 * variant), whatever is behind it: strata_ftl on raw NAND (strata_ftl_dev()), an SD card or
 * other managed flash (strata_ftl_managed_dev()), or a file of strata_fs (the user's adapter:
 * read/write at sector x sector_size, sync = strata_fs_sync).
 *
 * The struct is plain data: function pointers and their context. A backend fills it; a user calls
 * the pointers with `ctx` as first argument. All three calls return 0 or a negative STRATA_E...
 * code (strata/error.h):
 *
 *   read(ctx, s, buf)   copy sector s (0 <= s < sectors) into buf (sector_size bytes).
 *                       STRATA_EINVAL when s is out of range or buf is NULL; STRATA_EECC when
 *                       the medium lost the data (never stale or made-up bytes instead). What a
 *                       never-written sector reads as is the backend's: zeros for strata_ftl, the
 *                       card's content for managed flash.
 *   write(ctx, s, buf)  replace sector s with sector_size bytes from buf. Once it returns, reads
 *                       of s return the new bytes.
 *   sync(ctx)           make every write that returned durable (survive power loss).
 *
 * Power loss: what a cut leaves is the backend's guarantee, stated in its header. strata_ftl in
 * persistent mode: a write that returned before a sync that returned survives; a write cut by
 * power loss leaves the sector with its old or its new bytes; no other sector changes. Volatile
 * strata_ftl keeps nothing across a reboot. An SD card gives no guarantee for the block being
 * written (docs/simulator.md).
 *
 * Same shape as strata_btree_store (read, write, commit, ctx, pages, page_size): a B-tree may
 * take a sector device as its page store field for field.
 */
#ifndef STRATA_SECTOR_H
#define STRATA_SECTOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strata_sector_dev {
    int (*read)(void *ctx, uint32_t sector, void *buf);
    int (*write)(void *ctx, uint32_t sector, const void *buf);
    int (*sync)(void *ctx);
    void *ctx;
    uint32_t sectors;     /* sectors 0 .. sectors - 1 */
    uint32_t sector_size; /* bytes per sector */
};

#ifdef __cplusplus
}
#endif

#endif /* STRATA_SECTOR_H */
