/* strata_vm: the configuration check, RAM layout, mount, statistics and the recorded error. */
#include <string.h>

#include "vm_internal.h"

/* log2 of a power of two, or -1 when v is not one. */
static int log2_exact(uint32_t v)
{
    int k = 0;
    if (v == 0 || (v & (v - 1u)) != 0)
        return -1;
    while ((1ul << k) != v)
        k++;
    return k;
}

/* The geometry a config describes, checked. */
struct vm_geometry {
    strata_vaddr base;
    uint32_t size, fixed; /* fixed: RAM besides the blocks (the sector buffer) */
    uint8_t block_shift, sector_shift;
};

static uint32_t window_bytes(const struct strata_sector_dev *dev, uint32_t first,
                             uint8_t sector_shift)
{
    uint32_t sectors = dev->sectors - first;
    return sectors > (0xFFFFFFFFu >> sector_shift) ? 0xFFFFFFFFu : sectors << sector_shift;
}

static int check_geometry(const struct strata_vm_config *cfg, struct vm_geometry *g)
{
    const struct strata_sector_dev *dev = cfg->dev;
    int bs = log2_exact(cfg->block_size), ss;
    uint32_t avail, room;
    if (dev == NULL || dev->read == NULL || dev->write == NULL || dev->sectors <= cfg->first_sector)
        return STRATA_EINVAL;
    ss = log2_exact(dev->sector_size);
    if (bs < 0 || ss < 0 || cfg->block_size < STRATA_VM_MIN_BLOCK ||
        cfg->block_size > STRATA_VM_MAX_BLOCK || cfg->scheme > STRATA_VM_SECTOR_SHRINK)
        return STRATA_EINVAL;
    g->block_shift = (uint8_t)bs;
    g->sector_shift = (uint8_t)ss;
    g->base = cfg->base != 0 ? cfg->base : STRATA_VM_DEFAULT_BASE;
    if ((g->base & (cfg->block_size - 1u)) != 0)
        return STRATA_EINVAL;
    room = 0u - g->base; /* 2^32 - base: the window may not wrap */
    avail = window_bytes(dev, cfg->first_sector, g->sector_shift);
    if (avail > room)
        avail = room;
    g->size = cfg->size != 0 ? cfg->size : avail & ~(cfg->block_size - 1u);
    if (g->size == 0 || g->size > avail || (g->size & (cfg->block_size - 1u)) != 0)
        return STRATA_EINVAL;
    g->fixed = cfg->block_size < dev->sector_size ? dev->sector_size : 0;
    return 0;
}

/* RAM for n blocks, or 0 when it does not fit 32 bits. */
static uint32_t ram_for(const struct strata_vm_config *cfg, const struct vm_geometry *g,
                        uint32_t n)
{
    uint32_t per = STRATA_VM_BLOCK_RAM(cfg->block_size);
    if (n > (0xFFFFFFFFu - g->fixed) / per)
        return 0;
    return n * per + g->fixed;
}

int strata_vm_ram_size(const struct strata_vm_config *cfg, uint32_t *bytes)
{
    struct vm_geometry g;
    int rc;
    if (cfg == NULL || bytes == NULL || cfg->blocks == 0 || cfg->blocks > STRATA_VM_MAX_BLOCKS)
        return STRATA_EINVAL;
    if ((rc = check_geometry(cfg, &g)) != 0)
        return rc;
    *bytes = ram_for(cfg, &g, cfg->blocks);
    return *bytes == 0 ? STRATA_EINVAL : 0;
}

/* The caller's RAM: block bytes, control words (32-bit aligned: data is a whole number of
 * 32-byte blocks), the sector buffer, then four arrays of 16-bit block numbers (LRU links both
 * ways, hash chains, hash buckets). Then an empty cache. */
static void layout(struct strata_vm *vm, const struct strata_vm_config *cfg, uint32_t blocks)
{
    uint8_t *ram = cfg->ram;
    uint32_t data = blocks << vm->block_shift, ctl = blocks * 4u;
    uint16_t *links;
    vm->data = ram;
    vm->ctl = (uint32_t *)(void *)(ram + data);
    vm->sbuf = cfg->block_size < vm->dev.sector_size ? ram + data + ctl : NULL;
    links = (uint16_t *)(void *)(ram + data + ctl + (vm->sbuf != NULL ? vm->dev.sector_size : 0));
    vm->blocks = (uint16_t)blocks;
    vm->next = links;
    vm->prev = links + blocks;
    vm->chain = links + 2u * blocks;
    vm->bucket = links + 3u * blocks;
    vm_cache_reset(vm);
}

int strata_vm_mount(struct strata_vm *vm, const struct strata_vm_config *cfg)
{
    struct vm_geometry g;
    uint32_t blocks, need;
    int rc;
    if (vm == NULL || cfg == NULL || cfg->ram == NULL ||
        ((uintptr_t)cfg->ram & (STRATA_VM_RAM_ALIGN - 1u)) != 0 ||
        cfg->blocks > STRATA_VM_MAX_BLOCKS)
        return STRATA_EINVAL;
    if ((rc = check_geometry(cfg, &g)) != 0)
        return rc;
    blocks = cfg->blocks;
    if (blocks == 0) { /* as many as the RAM holds */
        blocks = cfg->ram_size > g.fixed
                     ? (cfg->ram_size - g.fixed) / STRATA_VM_BLOCK_RAM(cfg->block_size)
                     : 0;
        if (blocks > STRATA_VM_MAX_BLOCKS)
            blocks = STRATA_VM_MAX_BLOCKS;
    }
    need = ram_for(cfg, &g, blocks);
    if (blocks == 0 || need == 0 || need > cfg->ram_size)
        return STRATA_ENOMEM; /* not even one block, or fewer than asked for */
    memset(vm, 0, sizeof *vm);
    vm->dev = *cfg->dev;
    vm->tag_mask = ~(cfg->block_size - 1u);
    vm->block_size = cfg->block_size;
    vm->base = g.base;
    vm->size = g.size;
    vm->first_sector = cfg->first_sector;
    vm->block_shift = g.block_shift;
    vm->sector_shift = g.sector_shift;
    vm->scheme = cfg->scheme;
    vm->sbuf_sector = VM_NO_SECTOR;
    layout(vm, cfg, blocks);
    vm->mounted = 1;
    return 0;
}

int strata_vm_stat(const struct strata_vm *vm, struct strata_vm_stats *st)
{
    if (vm == NULL || st == NULL)
        return STRATA_EINVAL;
    *st = vm->stats;
    return 0;
}

void strata_vm_stat_reset(struct strata_vm *vm)
{
    if (vm != NULL)
        memset(&vm->stats, 0, sizeof vm->stats);
}

int strata_vm_error(struct strata_vm *vm, strata_vaddr *where, int clear)
{
    int err;
    if (vm == NULL)
        return STRATA_EINVAL;
    err = vm->err;
    if (where != NULL)
        *where = vm->err_addr;
    if (clear) {
        vm->err = 0;
        vm->err_addr = 0;
    }
    return err;
}

int vm_fail(struct strata_vm *vm, int err, strata_vaddr a)
{
    if (vm->err == 0) {
        vm->err = err;
        vm->err_addr = a;
    }
    return err;
}

int vm_check(struct strata_vm *vm, strata_vaddr a, uint32_t n)
{
    uint32_t o = a - vm->base;
    if (!vm->mounted || o >= vm->size || n > vm->size - o)
        return vm_fail(vm, STRATA_EINVAL, a);
    return 0;
}
