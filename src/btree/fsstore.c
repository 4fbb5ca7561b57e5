/*
 * A page store over a strata_fs file (public fs.h API only): node n at offset n x page size;
 * the store's commit is strata_fs_sync, which strata_fs makes atomic. Reads past the end of the
 * file see erased bytes (a node never written).
 */
#include <string.h>

#include "bt_internal.h"
#include "strata/fs.h"

#if BT_HAS_INPLACE /* the page store serves INPLACE only */

static int at(struct strata_btree_fs_store *s, uint32_t page)
{
    int32_t pos = strata_fs_seek(s->fs, s->file, 0, STRATA_FS_SEEK_END);
    uint32_t off = page * s->store.page_size;
    if (pos < 0)
        return (int)pos;
    if ((uint32_t)pos < off)
        return 1; /* beyond the end */
    pos = strata_fs_seek(s->fs, s->file, (int32_t)off, STRATA_FS_SEEK_SET);
    return pos < 0 ? (int)pos : 0;
}

static int btfs_read(void *ctx, uint32_t page, void *buf)
{
    struct strata_btree_fs_store *s = ctx;
    int32_t n = 0;
    int rc = at(s, page);
    if (rc < 0)
        return rc;
    if (rc == 0 && (n = strata_fs_read(s->fs, s->file, buf, s->store.page_size)) < 0)
        return (int)n;
    memset((uint8_t *)buf + n, 0xFF, (size_t)(s->store.page_size - (uint32_t)n));
    return 0;
}

static int btfs_write(void *ctx, uint32_t page, const void *buf)
{
    static const uint8_t erased[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    struct strata_btree_fs_store *s = ctx;
    uint32_t off = page * s->store.page_size;
    int32_t pos = strata_fs_seek(s->fs, s->file, 0, STRATA_FS_SEEK_END), n;
    /* a node past the end: fill the gap so that the offset exists */
    while (pos >= 0 && (uint32_t)pos < off) {
        n = strata_fs_write(s->fs, s->file, erased,
                            off - (uint32_t)pos < sizeof erased ? off - (uint32_t)pos : sizeof erased);
        pos = n < 0 ? n : pos + n;
    }
    if (pos < 0 || (pos = strata_fs_seek(s->fs, s->file, (int32_t)off, STRATA_FS_SEEK_SET)) < 0)
        return (int)pos;
    n = strata_fs_write(s->fs, s->file, buf, s->store.page_size);
    return n < 0 ? (int)n : 0;
}

static int btfs_commit(void *ctx)
{
    struct strata_btree_fs_store *s = ctx;
    return strata_fs_sync(s->fs, s->file);
}

void strata_btree_fs_store(struct strata_btree_fs_store *s, struct strata_fs *fs,
                           struct strata_fs_file *file, uint32_t pages, uint32_t page_size)
{
    s->store.read = btfs_read;
    s->store.write = btfs_write;
    s->store.commit = btfs_commit;
    s->store.ctx = s;
    s->store.pages = pages;
    s->store.page_size = page_size;
    s->fs = fs;
    s->file = file;
}
#else
typedef int bt_no_fs_store; /* ISO C: a translation unit is never empty */
#endif
