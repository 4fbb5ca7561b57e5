/* Power loss under strata_vm (include/strata/vm.h, POWER LOSS): random writes, reads and flushes
 * through a small cache over a persistent backend, power cut at every flash operation (or a
 * sample), then a reboot: a new vm on the recovered backend must read, in every sector, either
 * the bytes the last flush that returned left there or the bytes of a sector write the vm issued
 * after it (an eviction's or a flush's). The record of what each sector may hold is kept by a
 * shim that sees every sector write before the backend does. */
#include <stdio.h>
#include <stdlib.h>

#include "strata/crc.h"
#include "vmtest.h"

#define MAY_HOLD 96u /* contents one sector may hold: the workloads stay below it */

struct pc_case {
    const char *name;
    enum vt_kind kind;
    uint32_t bytes, block, blocks, ops;
    uint8_t scheme;
};

struct pc {
    struct pc_case c;
    struct vt_backend b;
    struct vt_shim shim;
    struct strata_vm vm;
    struct strata_vm_config cfg;
    uint32_t *ram;
    uint8_t *model; /* what the vm must read now */
    uint8_t *sector;
    uint32_t sector_size, sectors;
    uint32_t *may;  /* sectors x MAY_HOLD CRCs of what each sector may hold after a cut */
    uint32_t *nmay;
    int overflow;
};

static uint32_t crc(const void *p, uint32_t n)
{
    return strata_crc32(0, p, n);
}

static void may_add(struct pc *s, uint32_t sector, uint32_t c)
{
    uint32_t *m = s->may + sector * MAY_HOLD, i;
    for (i = 0; i < s->nmay[sector]; i++)
        if (m[i] == c)
            return;
    if (s->nmay[sector] == MAY_HOLD) {
        s->overflow = 1;
        return;
    }
    m[s->nmay[sector]++] = c;
}

/* After a flush that returned (or at the start): each sector holds exactly the model's bytes. */
static void may_reset(struct pc *s)
{
    uint32_t i, n;
    for (i = 0; i < s->sectors; i++) {
        n = s->c.bytes - i * s->sector_size;
        s->nmay[i] = 0;
        memset(s->sector, 0, s->sector_size);
        memcpy(s->sector, s->model + i * s->sector_size, n < s->sector_size ? n : s->sector_size);
        may_add(s, i, crc(s->sector, s->sector_size));
    }
}

static void on_write(void *arg, uint32_t sector, const void *buf)
{
    struct pc *s = arg;
    if (sector < s->sectors)
        may_add(s, sector, crc(buf, s->sector_size));
    else
        s->overflow = 1; /* outside the window: never allowed */
}

static int pc_setup(struct strata_sim *sim, void *arg)
{
    struct pc *s = arg;
    uint32_t i;
    int rc = vt_backend_attach(&s->b, s->c.kind, s->c.bytes, sim, 1);
    if (rc == 0 && s->c.kind == VT_FILE)
        rc = strata_fs_close(&s->b.fs, &s->b.file);
    if (s->c.kind == VT_SD) { /* a card holds whatever it held: start from zeros */
        memset(s->sector, 0, s->sector_size);
        for (i = 0; i < s->sectors && rc == 0; i++)
            rc = s->b.dev.write(s->b.dev.ctx, i, s->sector);
    }
    return rc;
}

static void pc_reset(void *arg)
{
    struct pc *s = arg;
    memset(s->model, 0, s->c.bytes); /* formatted backends read zeros where never written */
    s->overflow = 0;
    may_reset(s);
}

static int mount_vm(struct pc *s, const struct strata_sector_dev *dev)
{
    memset(&s->cfg, 0, sizeof s->cfg);
    s->cfg.dev = dev;
    s->cfg.size = s->c.bytes;
    s->cfg.block_size = s->c.block;
    s->cfg.blocks = s->c.blocks;
    s->cfg.scheme = s->c.scheme;
    s->cfg.ram = s->ram;
    s->cfg.ram_size = (s->c.blocks * STRATA_VM_BLOCK_RAM(s->c.block) + 4096u + 3u) & ~3u;
    return strata_vm_mount(&s->vm, &s->cfg);
}

/* One operation of the workload; STRATA_EPOWER once power failed. */
static int step(struct pc *s, struct ts_rng *r, struct strata_vm_lcb *lcb, uint32_t *cursor)
{
    uint32_t roll = ts_rng_below(r, 100), n, at, i;
    uint8_t buf[96];
    int rc;
    if (roll < 5)
        *cursor = ts_rng_below(r, s->c.bytes);
    n = roll < 80 ? 1u + ts_rng_below(r, 8) : 1u + ts_rng_below(r, sizeof buf);
    at = (*cursor + ts_rng_below(r, 2u * s->c.block)) % s->c.bytes;
    if (at + n > s->c.bytes)
        at = s->c.bytes - n;
    *cursor = at;
    if (roll < 60) {
        for (i = 0; i < n; i++)
            buf[i] = (uint8_t)ts_rng_next(r);
        rc = roll < 50 ? strata_vm_write(&s->vm, lcb, s->vm.base + at, buf, n)
                       : strata_vm_copy_in(&s->vm, s->vm.base + at, buf, n);
        if (rc == 0)
            memcpy(s->model + at, buf, n);
        return rc;
    }
    if (roll < 94) {
        if ((rc = strata_vm_read(&s->vm, lcb, s->vm.base + at, buf, n)) != 0)
            return rc;
        if (memcmp(buf, s->model + at, n) != 0) {
            fprintf(stderr, "read at %u differs from the model before any cut\n", (unsigned)at);
            return STRATA_ECORRUPT;
        }
        return 0;
    }
    if ((rc = strata_vm_flush(&s->vm)) == 0)
        may_reset(s);
    return rc;
}

static int pc_workload(struct strata_sim *sim, void *arg)
{
    struct pc *s = arg;
    struct strata_vm_lcb lcb[3] = {STRATA_VM_LCB_INIT, STRATA_VM_LCB_INIT, STRATA_VM_LCB_INIT};
    struct ts_rng r;
    uint32_t op, cursor = 0;
    int rc;
    if ((rc = vt_backend_attach(&s->b, s->c.kind, s->c.bytes, sim, 0)) != 0)
        return rc;
    vt_shim_init(&s->shim, &s->b.dev);
    s->shim.on_write = on_write;
    s->shim.arg = s;
    if ((rc = mount_vm(s, &s->shim.dev)) != 0)
        return rc;
    ts_rng_seed(&r, 77);
    for (op = 0; op < s->c.ops; op++)
        if ((rc = step(s, &r, &lcb[op % 3u], &cursor)) != 0)
            return rc;
    if ((rc = strata_vm_flush(&s->vm)) == 0)
        may_reset(s);
    return rc;
}

static int pc_recover(struct strata_sim *sim, void *arg)
{
    struct pc *s = arg;
    uint32_t i;
    int rc;
    if (s->overflow) {
        fprintf(stderr, "%s: the record of sector contents overflowed\n", s->c.name);
        return STRATA_ENOMEM;
    }
    if ((rc = vt_backend_attach(&s->b, s->c.kind, s->c.bytes, sim, 0)) != 0)
        return rc;
    if ((rc = mount_vm(s, &s->b.dev)) != 0)
        return rc;
    for (i = 0; i < s->sectors; i++) {
        uint32_t n = s->c.bytes - i * s->sector_size, c, k;
        n = n < s->sector_size ? n : s->sector_size;
        memset(s->sector, 0, s->sector_size);
        if ((rc = strata_vm_copy_out(&s->vm, s->sector, s->vm.base + i * s->sector_size, n)) != 0)
            return rc;
        c = crc(s->sector, s->sector_size);
        for (k = 0; k < s->nmay[i] && s->may[i * MAY_HOLD + k] != c; k++)
            ;
        if (k == s->nmay[i]) {
            fprintf(stderr, "%s: sector %u holds bytes neither flushed nor written after the "
                            "last flush\n", s->c.name, (unsigned)i);
            return STRATA_ECORRUPT;
        }
    }
    return 0;
}

static void campaign(const struct pc_case *c, enum strata_sim_tear tear, uint32_t samples)
{
    struct strata_powercut_test t;
    struct pc *s = calloc(1, sizeof *s);
    uint32_t units = 0;
    const char *profile = vt_sim_profile(c->kind, c->bytes, &units);
    assert_non_null(s);
    s->c = *c;
    memset(&t, 0, sizeof t);
    t.name = s->c.name;
    t.sim = ts_config(profile, units, 5);
    t.arg = s;
    t.setup = pc_setup;
    t.reset = pc_reset;
    t.workload = pc_workload;
    t.recover = pc_recover;
    t.samples = samples;
    t.recovery_cuts = s->c.kind == VT_SD ? 0u : 1u; /* the card has no recovery */
    t.tear = tear;
    t.seed = 9;
    s->sector_size = s->c.kind == VT_FILE ? 256u : s->c.kind == VT_SD ? 512u : 2048u;
    s->sectors = (s->c.bytes + s->sector_size - 1u) / s->sector_size;
    s->ram = calloc(s->c.blocks * STRATA_VM_BLOCK_RAM(s->c.block) + 4096u + 4u, 1);
    s->model = calloc(s->c.bytes, 1);
    s->sector = calloc(s->sector_size, 1);
    s->may = calloc(s->sectors * MAY_HOLD, sizeof *s->may);
    s->nmay = calloc(s->sectors, sizeof *s->nmay);
    assert_true(s->ram && s->model && s->sector && s->may && s->nmay);
    ts_powercut(&t);
    free(s->ram);
    free(s->model);
    free(s->sector);
    free(s->may);
    free(s->nmay);
    free(s->b.ftl_ram);
    free(s);
}

/* Persistent strata_ftl (old or new bytes in a cut sector), both schemes, blocks a quarter of a
 * sector: every write-back path (gathered, read-modify-write) is cut. */
static void ftl_persistent(void **state)
{
    static const struct pc_case multi = {"vm-ftl-multi", VT_FTL_PERSISTENT, 16384, 512, 3, 300,
                              STRATA_VM_MULTI_CACHE};
    static const struct pc_case shrink = {"vm-ftl-shrink", VT_FTL_PERSISTENT, 16384, 512, 3, 300,
                               STRATA_VM_SECTOR_SHRINK};
    (void)state;
    campaign(&multi, STRATA_SIM_TEAR_RANDOM, (uint32_t)ts_scale(150, 0));
    campaign(&shrink, STRATA_SIM_TEAR_RANDOM, (uint32_t)ts_scale(150, 0));
}

/* A strata_fs file: after a cut the file holds its last commit (a flush's sync) or a later one. */
static void fs_file(void **state)
{
    static const struct pc_case file = {"vm-fs-file", VT_FILE, 4096, 64, 6, 80, STRATA_VM_MULTI_CACHE};
    (void)state;
    campaign(&file, STRATA_SIM_TEAR_RANDOM, (uint32_t)ts_scale(150, 0));
}

/* An SD card promises nothing for a sector whose write is torn: cut only between operations. */
static void sd_card(void **state)
{
    static const struct pc_case sd = {"vm-sd", VT_SD, 8192, 256, 4, 80, STRATA_VM_MULTI_CACHE};
    (void)state;
    campaign(&sd, STRATA_SIM_TEAR_BEFORE, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ftl_persistent),
        cmocka_unit_test(fs_file),
        cmocka_unit_test(sd_card),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
