/* strata_vm: a strata_fs file as a sector device (sector s = the bytes at s x sector_size). Bytes
 * past the end of the file read as zeros; a write past the end first extends the file with
 * zeros, so the file never has a hole fs would refuse to seek into. */
#include <string.h>

#include "strata/fs.h"
#include "vm_internal.h"

#define ZERO_CHUNK 32u

/* The file's length, or a negative error. */
static int32_t file_length(struct strata_vm_file *fd)
{
    return strata_fs_seek(fd->fs, fd->file, 0, STRATA_FS_SEEK_END);
}

static int file_read(void *ctx, uint32_t sector, void *buf)
{
    struct strata_vm_file *fd = ctx;
    uint32_t at = sector * fd->sector_size, got = 0;
    int32_t len, n;
    if (sector >= fd->sectors || buf == NULL)
        return STRATA_EINVAL;
    if ((len = file_length(fd)) < 0)
        return (int)len;
    if (at < (uint32_t)len) {
        if ((n = strata_fs_seek(fd->fs, fd->file, (int32_t)at, STRATA_FS_SEEK_SET)) < 0)
            return (int)n;
        if ((n = strata_fs_read(fd->fs, fd->file, buf, fd->sector_size)) < 0)
            return (int)n;
        got = (uint32_t)n;
    }
    memset((uint8_t *)buf + got, 0, (size_t)(fd->sector_size - got));
    return 0;
}

static int file_write(void *ctx, uint32_t sector, const void *buf)
{
    static const uint8_t zeros[ZERO_CHUNK];
    struct strata_vm_file *fd = ctx;
    uint32_t at = sector * fd->sector_size;
    int32_t len, n;
    if (sector >= fd->sectors || buf == NULL)
        return STRATA_EINVAL;
    if ((len = file_length(fd)) < 0)
        return (int)len;
    while ((uint32_t)len < at) { /* the file's position is at its end */
        uint32_t k = at - (uint32_t)len < ZERO_CHUNK ? at - (uint32_t)len : ZERO_CHUNK;
        if ((n = strata_fs_write(fd->fs, fd->file, zeros, k)) < 0)
            return (int)n;
        len += (int32_t)k;
    }
    if ((n = strata_fs_seek(fd->fs, fd->file, (int32_t)at, STRATA_FS_SEEK_SET)) < 0)
        return (int)n;
    n = strata_fs_write(fd->fs, fd->file, buf, fd->sector_size);
    return n < 0 ? (int)n : 0;
}

static int file_sync(void *ctx)
{
    struct strata_vm_file *fd = ctx;
    return strata_fs_sync(fd->fs, fd->file);
}

int strata_vm_file_dev(struct strata_vm_file *fd, struct strata_sector_dev *dev,
                       struct strata_fs *fs, struct strata_fs_file *file, uint32_t sector_size,
                       uint32_t sectors)
{
    if (fd == NULL || dev == NULL || fs == NULL || file == NULL || sector_size == 0 ||
        sectors == 0 || sectors > 0x7FFFFFFFu / sector_size)
        return STRATA_EINVAL; /* offsets must fit fs's signed 32-bit positions */
    fd->fs = fs;
    fd->file = file;
    fd->sector_size = sector_size;
    fd->sectors = sectors;
    dev->read = file_read;
    dev->write = file_write;
    dev->sync = file_sync;
    dev->ctx = fd;
    dev->sectors = sectors;
    dev->sector_size = sector_size;
    return 0;
}
