/*
 * strata-vmcc's host harness: the `main` of a virtualized program. It mounts strata_vm over a
 * backend, places the program's globals (vmcc_space_init), runs the program's own main
 * (vmcc_main) and reports the vm's and the device's counters. Configured by the environment, so
 * the program's arguments and output stay the original's:
 *
 *   VMCC_BACKEND  ram (default: a RAM sector device), lavish (strata_ftl, volatile, degree 8),
 *                 logftl (16 log blocks), superftl (N 4, M 4): the FTLs on the simulated
 *                 k9f1g08 NAND (2-KiB sectors; the settings of bench/ftl's headline)
 *   VMCC_SPACE    bytes of virtual space (default 8 MiB, the paper's)
 *   VMCC_CACHE    bytes of cache blocks (default 16384, the paper's Section 7.3)
 *   VMCC_BLOCK    cache block bytes (default 512, Section 7.5)
 *   VMCC_SCHEME   multi (default) or shrink (strata_ftl with 512-B shrunk sectors)
 *   VMCC_STATS    a file to write the counters to, as one JSON object
 *   VMCC_TRACE    a file to write the sector trace to (`R <sector>` / `W <sector>` per line,
 *                 bench/ftl's --trace format)
 *
 * The harness checks strata_vm_error() at the end: any failed access fails the run (exit 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../bench/ftl/baseline.h"
#include "strata/ftl.h"
#include "strata/sim.h"
#include "vmcc_rt.h"

struct harness {
    struct strata_sim *sim;
    struct strata_ftl ftl;
    struct strata_ftl_config fcfg;
    void *baseline;
    const struct bl_stats *bst;
    uint8_t *mem;           /* the RAM backend */
    struct strata_sector_dev dev, inner;
    FILE *trace;
    struct strata_vm vm;
    struct strata_vm_config cfg;
    void *ram, *fram;
    const char *backend;
};

static uint32_t env_u32(const char *name, uint32_t dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? (uint32_t)strtoul(v, NULL, 0) : dflt;
}

static const char *env_str(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : dflt;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "vmcc harness: %s failed (%d)\n", what, rc);
    exit(2);
}

static int ram_read(void *ctx, uint32_t s, void *buf)
{
    struct harness *h = ctx;
    memcpy(buf, h->mem + (size_t)s * h->dev.sector_size, h->dev.sector_size);
    return 0;
}

static int ram_write(void *ctx, uint32_t s, const void *buf)
{
    struct harness *h = ctx;
    memcpy(h->mem + (size_t)s * h->dev.sector_size, buf, h->dev.sector_size);
    return 0;
}

/* The trace shim: every sector the vm reads or writes, then the backend's call. */
static int tr_read(void *ctx, uint32_t s, void *buf)
{
    struct harness *h = ctx;
    fprintf(h->trace, "R %lu\n", (unsigned long)s);
    return h->inner.read(h->inner.ctx, s, buf);
}

static int tr_write(void *ctx, uint32_t s, const void *buf)
{
    struct harness *h = ctx;
    fprintf(h->trace, "W %lu\n", (unsigned long)s);
    return h->inner.write(h->inner.ctx, s, buf);
}

static int tr_sync(void *ctx)
{
    struct harness *h = ctx;
    return h->inner.sync != NULL ? h->inner.sync(h->inner.ctx) : 0;
}

#define REGION_BYTES (128u << 20) /* the NAND region the FTLs manage (bench/ftl's) */

static void open_ftl(struct harness *h, uint32_t space, int shrink)
{
    struct strata_sim_config sc;
    const struct strata_sim_profile *p = strata_sim_profile_find("k9f1g08");
    uint32_t blocks = REGION_BYTES / p->geo.erase_size, need = 0;
    uint32_t sectors = space / (shrink ? 512u : p->geo.page_size);
    int rc;
    memset(&sc, 0, sizeof sc);
    sc.profile = p;
    sc.erase_count = blocks;
    sc.seed = 7;
    if ((h->sim = strata_sim_new(&sc)) == NULL)
        die("simulator", STRATA_ENOMEM);
    if (strcmp(h->backend, "logftl") == 0) {
        h->baseline = logftl_new(strata_sim_flash(h->sim), blocks, sectors, 16, &h->dev);
        h->bst = h->baseline != NULL ? logftl_stats(h->baseline) : NULL;
    } else if (strcmp(h->backend, "superftl") == 0) {
        h->baseline = superftl_new(strata_sim_flash(h->sim), blocks, sectors, 4, 4, &h->dev);
        h->bst = h->baseline != NULL ? superftl_stats(h->baseline) : NULL;
    } else {
        h->fcfg.flash = strata_sim_flash(h->sim);
        h->fcfg.sectors = sectors;
        h->fcfg.mode = STRATA_FTL_VOLATILE;
        h->fcfg.degree = 8;
        h->fcfg.map_cache = 4;
        h->fcfg.shrink = (uint8_t)shrink;
        if ((rc = strata_ftl_ram_size(&h->fcfg, &need)) != 0)
            die("ftl ram size", rc);
        h->fram = calloc(1, need);
        h->fcfg.ram = h->fram;
        h->fcfg.ram_size = need;
        if ((rc = strata_ftl_mount(&h->ftl, &h->fcfg)) != 0)
            die("ftl mount", rc);
        strata_ftl_dev(&h->ftl, &h->dev);
        return;
    }
    if (h->baseline == NULL)
        die(h->backend, STRATA_EINVAL);
}

static void open_vm(struct harness *h)
{
    uint32_t space = env_u32("VMCC_SPACE", 8u << 20), need = 0;
    const char *scheme = env_str("VMCC_SCHEME", "multi");
    const char *trace = getenv("VMCC_TRACE");
    int shrink = strcmp(scheme, "shrink") == 0, rc;
    memset(h, 0, sizeof *h);
    h->backend = env_str("VMCC_BACKEND", "ram");
    if (strcmp(h->backend, "ram") == 0) {
        h->dev.sector_size = shrink ? 512u : 2048u;
        h->dev.sectors = space / h->dev.sector_size;
        if ((h->mem = calloc(1, space)) == NULL)
            die("ram backend", STRATA_ENOMEM);
        h->dev.read = ram_read;
        h->dev.write = ram_write;
        h->dev.ctx = h;
    } else if (strcmp(h->backend, "lavish") == 0 || strcmp(h->backend, "logftl") == 0 ||
               strcmp(h->backend, "superftl") == 0) {
        open_ftl(h, space, shrink);
    } else {
        die("VMCC_BACKEND (ram, lavish, logftl, superftl)", STRATA_EINVAL);
    }
    if (trace != NULL && *trace != '\0') {
        if ((h->trace = fopen(trace, "w")) == NULL)
            die("VMCC_TRACE", STRATA_EIO);
        h->inner = h->dev;
        h->dev.read = tr_read;
        h->dev.write = tr_write;
        h->dev.sync = tr_sync;
        h->dev.ctx = h;
    }
    h->cfg.dev = &h->dev;
    h->cfg.size = space;
    h->cfg.block_size = env_u32("VMCC_BLOCK", 512);
    h->cfg.blocks = env_u32("VMCC_CACHE", 16384) / h->cfg.block_size;
    h->cfg.scheme = (uint8_t)(shrink ? STRATA_VM_SECTOR_SHRINK : STRATA_VM_MULTI_CACHE);
    if ((rc = strata_vm_ram_size(&h->cfg, &need)) != 0)
        die("vm config", rc);
    h->ram = calloc(1, need);
    h->cfg.ram = h->ram;
    h->cfg.ram_size = need;
    if ((rc = strata_vm_mount(&h->vm, &h->cfg)) != 0)
        die("vm mount", rc);
    vmcc_vm = &h->vm;
}

static void write_stats(struct harness *h, int status)
{
    const char *path = getenv("VMCC_STATS");
    struct strata_vm_stats st;
    FILE *f;
    if (path == NULL || *path == '\0')
        return;
    if ((f = fopen(path, "w")) == NULL)
        die("VMCC_STATS", STRATA_EIO);
    strata_vm_stat(&h->vm, &st);
    fprintf(f, "{\"status\": %d, \"backend\": \"%s\", \"space_used\": %lu, \"cache\": %lu, "
               "\"block\": %lu, \"scheme\": %u,\n",
            status, h->backend, (unsigned long)vmcc_space_size(),
            (unsigned long)(h->cfg.blocks * h->cfg.block_size), (unsigned long)h->cfg.block_size,
            (unsigned)h->cfg.scheme);
    fprintf(f, " \"lcb_hits\": %lu, \"hits\": %lu, \"misses\": %lu, \"search_steps\": %lu, "
               "\"writebacks\": %lu, \"sector_reads\": %lu, \"rmw_reads\": %lu, "
               "\"sector_writes\": %lu, \"sbuf_hits\": %lu",
            (unsigned long)st.lcb_hits, (unsigned long)st.hits, (unsigned long)st.misses,
            (unsigned long)st.search_steps, (unsigned long)st.writebacks,
            (unsigned long)st.sector_reads, (unsigned long)st.rmw_reads,
            (unsigned long)st.sector_writes, (unsigned long)st.sbuf_hits);
    if (h->sim != NULL) {
        struct strata_sim_stats ss;
        uint32_t copies = h->bst != NULL ? h->bst->copies : h->ftl.stats.copies;
        strata_sim_stats(h->sim, &ss);
        fprintf(f, ",\n \"device_ms\": %.3f, \"energy_uj\": %.3f, \"erases\": %llu, "
                   "\"page_reads\": %llu, \"page_progs\": %llu, \"copies\": %lu",
                (double)ss.time_ps / 1e9, (double)ss.energy_pj / 1e6,
                (unsigned long long)ss.erases, (unsigned long long)ss.reads,
                (unsigned long long)ss.progs, (unsigned long)copies);
    }
    fprintf(f, "}\n");
    fclose(f);
}

static void close_vm(struct harness *h)
{
    if (h->trace != NULL)
        fclose(h->trace);
    if (h->baseline != NULL && strcmp(h->backend, "logftl") == 0)
        logftl_free(h->baseline);
    else if (h->baseline != NULL)
        superftl_free(h->baseline);
    if (h->sim != NULL)
        strata_sim_free(h->sim);
    free(h->fram);
    free(h->mem);
    free(h->ram);
}

int main(int argc, char **argv)
{
    static struct harness h;
    strata_vaddr at = 0;
    int status, err;
    open_vm(&h);
    if (vmcc_space_size() > h.cfg.size)
        die("VMCC_SPACE smaller than the program's globals", STRATA_EINVAL);
    /* The RAM device and a fresh volatile FTL read zeros: only the initial values go in. */
    vmcc_space_init(0);
    status = vmcc_main(argc, argv);
    fflush(stdout);
    if ((err = strata_vm_error(&h.vm, &at, 0)) != 0) {
        fprintf(stderr, "vmcc harness: a virtual memory access failed (%d) at 0x%lx\n", err,
                (unsigned long)at);
        status = 3;
    }
    write_stats(&h, status);
    close_vm(&h);
    return status;
}
