/*
 * SD card (FTL) options: a volatile write cache that sync flushes (STRATA_SIM_OPT_SD_CACHE), and
 * a worst-case power cut that damages other recently written blocks (STRATA_SIM_OPT_SD_WORST_CUT).
 *
 * Cache: a write's blocks go to a cache of SIM_CACHE_BLOCKS blocks instead of the medium (reads
 * see them); when it is full the oldest entry is written back; sync writes back every entry. A
 * power loss writes back a random subset of the entries, in no particular order, and loses the
 * rest: what a card with a write-back cache may do. The block being transferred when the cut
 * came is not in the cache (the card takes a block only whole).
 *
 * Worst case: a card's FTL rewrites its mapping units behind the host's back, so a cut during a
 * write may also damage blocks written recently (the last SIM_RECENT_BLOCKS written back to the
 * medium): each holds garbage with probability 1/2, and at least one does. flash-profiles.md: "no
 * integrity guarantee on power loss during a write".
 */
#include <string.h>

#include "sim_internal.h"

static int cache_on(const struct strata_sim *sim)
{
    return (sim->cfg.options & STRATA_SIM_OPT_SD_CACHE) != 0;
}

/* Write one block back to the medium and remember it as recently written. */
static void write_back(struct strata_sim *sim, uint32_t addr, const uint8_t *block)
{
    uint32_t bs = sim->flash.geo.prog_size;
    memcpy(sim->data + addr, block, bs);
    sim->recent[sim->recent_next++ % SIM_RECENT_BLOCKS] = addr;
    if (sim->recent_count < SIM_RECENT_BLOCKS)
        sim->recent_count++;
}

static void drop_entry(struct strata_sim *sim, uint32_t i)
{
    uint32_t bs = sim->flash.geo.prog_size;
    memmove(sim->cache_addr + i, sim->cache_addr + i + 1,
            (sim->cache_count - i - 1) * sizeof *sim->cache_addr);
    memmove(sim->cache_data + (size_t)i * bs, sim->cache_data + (size_t)(i + 1) * bs,
            (size_t)(sim->cache_count - i - 1) * bs);
    sim->cache_count--;
}

/* Put one block into the cache (replacing a cached copy of it), writing back the oldest entry
 * if the cache is full. */
static void cache_put(struct strata_sim *sim, uint32_t addr, const uint8_t *block)
{
    uint32_t bs = sim->flash.geo.prog_size, i;
    for (i = 0; i < sim->cache_count; i++)
        if (sim->cache_addr[i] == addr) {
            drop_entry(sim, i);
            break;
        }
    if (sim->cache_count == SIM_CACHE_BLOCKS) {
        write_back(sim, sim->cache_addr[0], sim->cache_data);
        drop_entry(sim, 0);
    }
    sim->cache_addr[sim->cache_count] = addr;
    memcpy(sim->cache_data + (size_t)sim->cache_count * bs, block, bs);
    sim->cache_count++;
}

void sim_ftl_write(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                   struct sim_cut cut)
{
    uint32_t bs = sim->flash.geo.prog_size, done = cut.cut ? cut.pos : len, i;
    uint32_t whole = cut.cut ? done / bs * bs : len;
    if (cache_on(sim)) {
        for (i = 0; i < whole; i += bs) /* a torn block never reaches the cache */
            cache_put(sim, addr + i, src + i);
        return;
    }
    /* Blocks before the cut hold new data; the block being written holds garbage. */
    for (i = 0; i < whole; i += bs)
        write_back(sim, addr + i, src + i);
    if (cut.cut && (cut.partial || done > whole) && whole < len)
        for (i = whole; i < whole + bs && i < len; i++)
            sim->data[addr + i] = (uint8_t)sim_rand(sim);
}

void sim_ftl_read(const struct strata_sim *sim, uint32_t addr, uint8_t *buf, uint32_t len)
{
    uint32_t bs = sim->flash.geo.prog_size, i;
    for (i = 0; i < sim->cache_count; i++) {
        uint32_t a = sim->cache_addr[i];
        if (a + bs > addr && a < addr + len) {
            uint32_t from = a > addr ? a : addr, to = a + bs < addr + len ? a + bs : addr + len;
            memcpy(buf + (from - addr), sim->cache_data + (size_t)i * bs + (from - a), to - from);
        }
    }
}

void sim_ftl_sync(struct strata_sim *sim)
{
    uint32_t bs = sim->flash.geo.prog_size, i;
    for (i = 0; i < sim->cache_count; i++)
        write_back(sim, sim->cache_addr[i], sim->cache_data + (size_t)i * bs);
    sim->cache_count = 0;
}

/* Power is lost (`writing`: during a write). The cache keeps a random subset; in worst-case mode
 * a cut write damages recently written blocks. */
void sim_ftl_power_loss(struct strata_sim *sim, int writing)
{
    uint32_t bs = sim->flash.geo.prog_size, i, hit = 0;
    for (i = 0; i < sim->cache_count; i++)
        if (sim_rand(sim) & 1u)
            write_back(sim, sim->cache_addr[i], sim->cache_data + (size_t)i * bs);
    sim->cache_count = 0;
    if (!writing || !(sim->cfg.options & STRATA_SIM_OPT_SD_WORST_CUT) || sim->recent_count == 0)
        return;
    for (i = 0; i < sim->recent_count; i++)
        if (sim_rand(sim) & 1u) {
            uint32_t b;
            for (b = 0; b < bs; b++)
                sim->data[sim->recent[i] + b] = (uint8_t)sim_rand(sim);
            hit++;
        }
    if (hit == 0) {
        uint32_t b, victim = sim->recent[sim_rand_below(sim, sim->recent_count)];
        for (b = 0; b < bs; b++)
            sim->data[victim + b] = (uint8_t)sim_rand(sim);
    }
    sim->recent_count = 0;
}
