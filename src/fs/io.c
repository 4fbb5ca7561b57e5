/*
 * Device access for strata_fs: usable addresses (the flash minus the 8-byte marker at the start
 * of every sector), reads and programs split at sector boundaries, and the sector markers.
 */
#include "fs_internal.h"

static const struct strata_flash *dev(const struct strata_fs *fs)
{
    return fs->cfg.flash;
}

static uint32_t esize(const struct strata_fs *fs)
{
    return dev(fs)->geo.erase_size;
}

static uint32_t sector_addr(const struct strata_fs *fs, uint32_t sector)
{
    return (fs->cfg.first_unit + sector) * esize(fs);
}

uint32_t fs_page_u(const struct strata_fs *fs, uint32_t page)
{
    uint32_t k = page % fs->pps;
    return page / fs->pps * fs->usable + (k ? k * dev(fs)->geo.page_size - FS_M : 0);
}

/* Pages an extent needs to hold `bytes` usable bytes wherever it starts: n pages contain at most
 * ceil(n / pps) sector starts, each costing a marker. */
uint32_t fs_pages_for(const struct strata_fs *fs, uint32_t bytes)
{
    uint32_t ps = dev(fs)->geo.page_size, n;
    if (bytes >= fs->pages * ps)
        return fs->pages + 1; /* more than the whole range */
    for (n = (bytes + ps - 1) / ps; n * ps - FS_M * ((n + fs->pps - 1) / fs->pps) < bytes;)
        n++;
    return n;
}

static const uint8_t zeros[8];

/* The one place the file system reaches the flash contract's checked wrappers. */
int fs_dev(const struct strata_fs *fs, int op, uint32_t addr, void *buf, uint32_t n)
{
    const struct strata_flash *f = dev(fs);
    if (op == DEV_READ)
        return strata_flash_read(f, addr, buf, n);
    if (op == DEV_PROG)
        return strata_flash_prog(f, addr, buf, n);
    return op == DEV_ERASE ? strata_flash_erase(f, addr) : strata_flash_sync(f);
}

/* Read or program n bytes at usable address u, one device call per sector touched. */
static int io(const struct strata_fs *fs, int op, uint32_t u, void *buf, uint32_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        uint32_t in = u % fs->usable, chunk = fs_min(n, fs->usable - in);
        int rc = fs_dev(fs, op, sector_addr(fs, u / fs->usable) + FS_M + in, p, chunk);
        if (rc != 0)
            return rc;
        u += chunk;
        p += chunk;
        n -= chunk;
    }
    return 0;
}

int fs_read(const struct strata_fs *fs, uint32_t u, void *buf, uint32_t n)
{
    return io(fs, DEV_READ, u, buf, n);
}

int fs_prog(const struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n)
{
    return io(fs, DEV_PROG, u, (void *)(uintptr_t)buf, n);
}

/* Program n (<= 8) zero bytes: always legal on NOR, the "set" value of every one-way field. */
int fs_zero(const struct strata_fs *fs, uint32_t u, uint32_t n)
{
    return fs_prog(fs, u, zeros, n);
}

int fs_blank(const uint8_t *p, uint32_t n)
{
    while (n > 0)
        if (p[--n] != 0xFF)
            return 0;
    return 1;
}

/* *used = 1 + offset of the last non-erased byte of [u, u+n), 0 if all erased. Reads backwards
 * through the scratch buffer. */
int fs_last_used(const struct strata_fs *fs, uint32_t u, uint32_t n, uint32_t *used)
{
    uint8_t *b = fs->cfg.buffer;
    *used = 0;
    while (n > 0) {
        uint32_t c = fs_min(n, fs->cfg.buffer_size);
        int rc = fs_read(fs, u + n - c, b, c);
        if (rc != 0)
            return rc;
        n -= c;
        while (c > 0)
            if (b[--c] != 0xFF) {
                *used = n + c + 1;
                return 0;
            }
    }
    return 0;
}

/* The ok word: "SF", the format version, the configuration tag (set up by fs_setup). */
static uint32_t ok_word(const struct strata_fs *fs)
{
    return 0x4653u | (uint32_t)FS_VERSION << 16 | (uint32_t)fs->tag << 24;
}

/* 1: ok (then *fp is the first header page, 0 when unset), 0: dirty, 2: a marker of another
 * version or configuration, <0: error. */
int fs_marker(const struct strata_fs *fs, uint32_t sector, uint32_t *fp)
{
    uint8_t m[FS_M];
    uint32_t v, c;
    int rc = fs_dev(fs, DEV_READ, sector_addr(fs, sector), m, FS_M);
    if (rc != 0)
        return rc;
    if (strata_get_le32(m) != ok_word(fs))
        return strata_get_le16(m) == 0x4653u ? 2 : 0;
    v = strata_get_le16(m + 4);
    c = strata_get_le16(m + 6);
    *fp = 0;
    if (v == 0xFFFF && c == 0xFFFF)
        return 1;
    if ((v ^ c) != 0xFFFF || v == 0 || v > fs->pps)
        return 0; /* torn: the allocation it served never finished */
    *fp = v;
    return 1;
}

int fs_marker_fp(const struct strata_fs *fs, uint32_t sector, uint32_t fp)
{
    uint8_t m[4];
    strata_put_le16(m, fp);
    strata_put_le16(m + 2, ~fp);
    return fs_dev(fs, DEV_PROG, sector_addr(fs, sector) + 4, m, 4);
}

/* Invalidate the ok word, erase, write it again: a cut anywhere leaves the sector dirty. */
int fs_erase(const struct strata_fs *fs, uint32_t sector)
{
    uint8_t w[4];
    uint32_t a = sector_addr(fs, sector);
    int rc = fs_dev(fs, DEV_PROG, a, (void *)(uintptr_t)zeros, 4);
    if (rc == 0)
        rc = fs_dev(fs, DEV_ERASE, fs->cfg.first_unit + sector, NULL, 0);
    strata_put_le32(w, ok_word(fs));
    return rc ? rc : fs_dev(fs, DEV_PROG, a, w, 4);
}

/* Validate the device and configuration; fill the context's geometry. */
int fs_setup(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    const struct strata_flash *f = cfg ? cfg->flash : NULL;
    struct strata_fs_config *c;
    uint8_t id[6];
    uint32_t ps, n;
    if (fs == NULL || f == NULL || strata_flash_validate(f) != 0)
        return STRATA_EINVAL;
    c = &fs->cfg;
    if (f->geo.read_size != 1 || f->geo.prog_size != 1 ||
        (f->caps & (STRATA_FLASH_CAP_BITWISE_PROGRAM | STRATA_FLASH_CAP_INORDER_PAGES |
                    STRATA_FLASH_CAP_NO_ERASE | STRATA_FLASH_CAP_BAD_BLOCKS)) !=
            STRATA_FLASH_CAP_BITWISE_PROGRAM)
        return STRATA_EDEVICE;
    memset(fs, 0, sizeof *fs);
    *c = *cfg;
    ps = f->geo.page_size;
    if (c->name_max == 0)
        c->name_max = 16;
    if (c->default_size == 0)
        c->default_size = 4096;
    if (c->log_record == 0)
        c->log_record = ps;
    if (c->log_size == 0)
        c->log_size = 4 * ps;
    if (c->unit_count == 0)
        c->unit_count = f->geo.erase_count - c->first_unit;
    fs->hdr = 55 + 2 * c->name_max;
    fs->pps = f->geo.erase_size / ps;
    fs->usable = f->geo.erase_size - FS_M;
    fs->pages = c->unit_count * fs->pps;
    strata_put_le16(id, c->name_max);
    strata_put_le32(id + 2, ps);
    fs->tag = (uint8_t)strata_crc32(0, id, sizeof id);
    n = c->log_size / c->log_record;
    if (c->first_unit >= f->geo.erase_count ||
        c->unit_count > f->geo.erase_count - c->first_unit || c->name_max > STRATA_FS_NAME_LIMIT ||
        c->buffer == NULL || c->buffer_size < 64 || ps < fs->hdr + FS_M + FS_SLOT ||
        c->log_record > 0xFFFF || n == 0 || n > 0xFFFF || fs->pages < 2)
        return STRATA_EINVAL;
    return 0;
}
