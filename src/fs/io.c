/*
 * Device access for strata_fs: usable addresses (the flash minus the marker at the start of every
 * sector), the one funnel to the flash wrappers, reads and programs split at sector boundaries,
 * and the sector markers.
 *
 * Every program is checked first, else STRATA_ECORRUPT and nothing is programmed: a program
 * onto space meant to be erased changes only bytes that are erased (a byte may already hold its
 * new value); an update of a one-way field leaves no bit at 1 that is already 0. After a power
 * cut or on a damaged image, space the file system believes erased may hold stray bits; a real
 * chip would AND them silently into the new data, and programming them again costs an MCU
 * flash row time (fuzz finding FS-15).
 */
#include "fs_internal.h"

static uint32_t page_size(const struct strata_fs *fs)
{
    return fs->cfg.flash->geo.page_size;
}

static uint32_t sector_addr(const struct strata_fs *fs, uint32_t sector)
{
    return (fs->cfg.first_unit + sector) * fs->cfg.flash->geo.erase_size;
}

uint32_t fs_page_u(const struct strata_fs *fs, uint32_t page)
{
    uint32_t k = page % fs->pages_per_sector;
    return page / fs->pages_per_sector * fs->usable + (k ? k * page_size(fs) - FS_MARKER : 0);
}

/* Where an extent's data (or a log's index) starts: after the header region of its first page. */
uint32_t fs_data_u(const struct strata_fs *fs, uint32_t page)
{
    return fs_page_u(fs, page) + fs->header_size;
}

/* Bytes from usable address u to the end of its device page. */
uint32_t fs_page_left(const struct strata_fs *fs, uint32_t u)
{
    uint32_t ps = page_size(fs);
    return ps - (FS_MARKER + u % fs->usable) % ps;
}

/* Pages that hold `bytes` usable bytes wherever they start: n pages contain at most
 * ceil(n / pages per sector) sector starts, each costing a marker. */
uint32_t fs_pages_for(const struct strata_fs *fs, uint32_t bytes)
{
    uint32_t ps = page_size(fs), n, pps = fs->pages_per_sector;
    if (bytes >= fs->pages * ps)
        return fs->pages + 1; /* more than the whole range */
    for (n = (bytes + ps - 1) / ps; n * ps - FS_MARKER * ((n + pps - 1) / pps) < bytes;)
        n++;
    return n;
}

/* The one place the file system reaches the flash contract's checked wrappers. A power loss or a
 * device failure leaves the context stale: every call but mount is refused until remounted, and
 * nothing reaches the device before (whatever the call that saw the failure does next). A
 * program is checked first, 24 bytes at a time (see the top), ends after the last byte that
 * differs from what the flash holds and is not made when none does: programming a byte to the
 * value it holds is a no-op on NOR, but an MCU flash still counts the time against the row's
 * limit between erases (fuzz finding FS-13: a place an append a cut left uncommitted had
 * programmed with 0xFF still read erased, and was taken and programmed again and again). A
 * program into the range this context erased (DEV_PROG_ERASED) is made whole, once: the range
 * moves past it. A byte that differs must be erased, unless the program updates a one-way
 * field (DEV_PROG_OVER): a place a cut left programmed (an append, a log record the cut left
 * uncommitted) is never programmed over, even with bytes that only clear bits, so no byte is
 * programmed twice where it should have been once (fuzz finding FS-15: on an MCU flash, after
 * two cuts, a third program of such a place passed the row's time limit). (The flash pointer
 * is read from the context at each use: kept in a local, it cost a stack slot in the frame
 * every public call's deepest path ends in.) */
int fs_dev(struct strata_fs *fs, int op, uint32_t addr, void *buf, uint32_t n)
{
    uint8_t b[24], *p = buf; /* 24, not 32: the FS-15 check took 8 bytes of this frame */
    uint32_t i, j, c, hi = 0;
    int rc = fs->mounted == FS_STALE ? STRATA_EIO : 0;
    for (i = 0; op >= DEV_PROG && rc == 0 && i < n; i += c) {
        c = fs_min(n - i, sizeof b);
        rc = strata_flash_read(fs->cfg.flash, addr + i, b, c);
        for (j = 0; rc == 0 && j < c; j++)
            if (p[i + j] != b[j]) {
                if (((op == DEV_PROG ? 0xFFu : (unsigned)p[i + j]) & ~(unsigned)b[j] & 0xFFu) != 0u)
                    return STRATA_ECORRUPT;
                hi = i + j + 1;
            }
    }
    if (op >= DEV_PROG && rc == 0) {
        if (hi == 0)
            return 0; /* the flash holds it already */
        n = hi;
    }
    if (rc == 0)
        rc = op == DEV_READ    ? strata_flash_read(fs->cfg.flash, addr, p, n)
             : op == DEV_SYNC  ? strata_flash_sync(fs->cfg.flash)
             : op == DEV_ERASE ? strata_flash_erase(fs->cfg.flash, addr)
                               : strata_flash_prog(fs->cfg.flash, addr, p, n);
    if (rc == STRATA_EPOWER || rc == STRATA_EIO)
        fs->mounted = FS_STALE;
    return rc;
}

/* Read or program n bytes at usable address u, one device call per sector touched; a range
 * outside the region (an address computed from damaged metadata) is refused. A program
 * inside the range this context erased and has not programmed since skips the check (it cannot
 * meet stray bits: the bytes were erased by this context, with no cut since); the range then
 * keeps only what lies past the program. */
static int io(struct strata_fs *fs, int op, uint32_t u, uint8_t *p, uint32_t n)
{
    uint32_t end = fs->cfg.unit_count * fs->usable;
    int rc = 0;
    if (u > end || n > end - u)
        return STRATA_ECORRUPT; /* never outside the region it was given (FS-12) */
    if (op >= DEV_PROG && u >= fs->erased_lo && u + n <= fs->erased_hi)
        op = DEV_PROG_ERASED;
    if (op != DEV_READ && u < fs->erased_hi && u + n > fs->erased_lo)
        fs->erased_lo = u + n;
    while (rc == 0 && n > 0) {
        uint32_t in = u % fs->usable, c = fs_min(n, fs->usable - in);
        rc = fs_dev(fs, op, sector_addr(fs, u / fs->usable) + FS_MARKER + in, p, c);
        u += c;
        p += c;
        n -= c;
    }
    return rc;
}

int fs_read(struct strata_fs *fs, uint32_t u, void *buf, uint32_t n)
{
    return io(fs, DEV_READ, u, buf, n);
}

int fs_prog(struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n)
{
    return io(fs, DEV_PROG, u, (uint8_t *)(uintptr_t)buf, n);
}

int fs_prog_over(struct strata_fs *fs, uint32_t u, const void *buf, uint32_t n)
{
    return io(fs, DEV_PROG_OVER, u, (uint8_t *)(uintptr_t)buf, n);
}

int fs_blank(const uint8_t *p, uint32_t n)
{
    while (n > 0)
        if (p[--n] != 0xFF)
            return 0;
    return 1;
}

/* The ok word: "SF", the format version, the configuration tag (set up by fs_setup). */
static void ok_word(const struct strata_fs *fs, uint8_t *w)
{
    w[0] = 'S';
    w[1] = 'F';
    w[2] = FS_VERSION;
    w[3] = fs->tag;
}

/* 1: whole (then *first is the first header page, 0 when unclaimed), 0: dirty, 2: a marker of
 * another version or configuration, 3: whole but for one byte of its ok word (damage the walk
 * tolerates, or another configuration when no marker is whole), <0: error. A cut anywhere in an
 * erase leaves the ok word zeroed or partly erased, never three of its bytes right (but with a
 * chance of about 2^-24). */
int fs_marker(struct strata_fs *fs, uint32_t sector, uint32_t *first)
{
    uint8_t m[FS_MARKER], w[4];
    uint32_t i, same = 0, v;
    int rc = fs_dev(fs, DEV_READ, sector_addr(fs, sector), m, FS_MARKER);
    if (rc != 0)
        return rc;
    ok_word(fs, w);
    for (i = 0; i < 4; i++)
        same += m[i] == w[i];
    if (same < 3)
        return m[0] == 'S' && m[1] == 'F' ? 2 : 0;
    v = fs_dual_get(m + 4, 2);
    *first = v == FS_NONE ? 0 : v;
    if (v != FS_NONE && (v == FS_BAD || v == 0 || v > fs->pages_per_sector))
        return 0; /* torn: the allocation it served never finished */
    return same == 4 ? 1 : 3;
}

/* Claim the first pages of a sector for an extent that starts in an earlier one. */
int fs_marker_claim(struct strata_fs *fs, uint32_t sector, uint32_t first)
{
    uint8_t m[8];
    fs_dual_put(m, first, 2);
    return fs_dev(fs, DEV_PROG, sector_addr(fs, sector) + 4, m, 8);
}

/* Zero the ok word: the sector is dirty from now on (nothing live may be in it). */
int fs_marker_retire(struct strata_fs *fs, uint32_t sector)
{
    static const uint8_t zero[4];
    return fs_dev(fs, DEV_PROG_OVER, sector_addr(fs, sector), (void *)(uintptr_t)zero, 4);
}

/* Usable bytes [a, b) were just erased: joined to the known-erased range when they touch it, else
 * they replace it (allocation goes to the lowest free pages, often the ones just erased). */
static void erased(struct strata_fs *fs, uint32_t a, uint32_t b)
{
    if (fs->erased_lo < fs->erased_hi && a <= fs->erased_hi && b >= fs->erased_lo) {
        a = fs_min(a, fs->erased_lo);
        b = fs_max(b, fs->erased_hi);
    }
    fs->erased_lo = a;
    fs->erased_hi = b;
}

/* Retire, erase, write the ok word again: a cut anywhere leaves the sector dirty. */
int fs_erase(struct strata_fs *fs, uint32_t sector)
{
    uint8_t w[4];
    int rc = fs_marker_retire(fs, sector);
    if (rc == 0)
        rc = fs_dev(fs, DEV_ERASE, fs->cfg.first_unit + sector, NULL, 0);
    ok_word(fs, w);
    if (rc == 0 && (rc = fs_dev(fs, DEV_PROG, sector_addr(fs, sector), w, 4)) == 0)
        erased(fs, sector * fs->usable, (sector + 1) * fs->usable);
    return rc;
}

/* Validate the device and configuration; fill the context's geometry. */
int fs_setup(struct strata_fs *fs, const struct strata_fs_config *cfg)
{
    const struct strata_flash *f = cfg ? cfg->flash : NULL;
    struct strata_fs_config *c;
    uint8_t id[6];
    uint32_t ps;
    if (fs == NULL || f == NULL || strata_flash_validate(f) != 0)
        return STRATA_EINVAL;
    if (fs->mounted == FS_MOUNTED)
        return STRATA_EBUSY;
    if ((f->geo.read_size | f->geo.prog_size) != 1 ||
        (f->caps & (STRATA_FLASH_CAP_BITWISE_PROGRAM | STRATA_FLASH_CAP_INORDER_PAGES |
                    STRATA_FLASH_CAP_NO_ERASE | STRATA_FLASH_CAP_BAD_BLOCKS)) !=
            STRATA_FLASH_CAP_BITWISE_PROGRAM)
        return STRATA_EDEVICE;
    memset(fs, 0, sizeof *fs);
    c = &fs->cfg;
    *c = *cfg;
    ps = f->geo.page_size;
    c->name_max += c->name_max ? 0 : 16;
    c->default_size += c->default_size ? 0 : 4096;
    c->log_record += c->log_record ? 0 : ps;
    c->log_size += c->log_size ? 0 : 4 * ps;
    c->unit_count += c->unit_count ? 0 : f->geo.erase_count - c->first_unit;
    fs->header_size = HDR_SIZE(c->name_max);
    fs->pages_per_sector = f->geo.erase_size / ps;
    fs->usable = f->geo.erase_size - FS_MARKER;
    fs->pages = c->unit_count * fs->pages_per_sector;
    strata_put_le16(id, c->name_max);
    strata_put_le32(id + 2, ps);
    fs->tag = (uint8_t)strata_crc32(0, id, sizeof id);
    if (c->first_unit >= f->geo.erase_count || c->unit_count > f->geo.erase_count - c->first_unit ||
        c->name_max > STRATA_FS_NAME_LIMIT || c->buffer == NULL || c->buffer_size < 64 ||
        ps < fs->header_size + FS_MARKER + 2 * FS_SLOT || /* 100 + name_max <= page size */
        c->log_record > 0xFFFF ||
        c->log_size / c->log_record - 1 >= 0x7FFF || fs->pages < 2)
        return STRATA_EINVAL;
    return 0;
}
