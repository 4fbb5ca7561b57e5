/*
 * strata-vmcc target workload: an unmodified C program (vmcc/program.c) run twice on the target,
 * as written and virtualized by strata-vmcc (docs/vmcc.md), whose globals then live in a
 * strata_vm space on the RAM NOR port (16 units of 256 B: sector = unit, ramsector.c) behind a
 * cache of eight 64-B blocks, smaller than the program's data, so misses, write-backs and both
 * LCB paths run. Its input is the real Greensboro series (the first 512 hours, generated into
 * series.h at build time by vmcc/series.py), read through a "sensor" call. The two runs must
 * report the same results (checked here, on the target); the results and result codes go into
 * the digest, so every target also agrees with the 64-bit host (the vm's statistics are printed
 * beside: they depend on the pointer width, which sets the program's struct layout).
 * The instruction counts of the two runs (call ids 1 and 2) are the virtualization's cost on
 * each core. Not on the AVR: generated code needs pointers of 32 bits or more (docs/vmcc.md).
 * RAM: the program's 2.9 KiB as written, the 4 KiB image of its virtual copy, the vm's cache.
 */
#include <string.h>

#include "ramflash.h"
#include "ramsector.h"
#include "series.h"
#include "strata/vm.h"
#include "target.h"
#include "vmcc_rt.h"

enum { C_NATIVE = 1, C_VIRTUAL, C_MOUNT, C_FLUSH, C_STAT };

const char tgt_workload_name[] = "vmcc";
const char *const tgt_call_names[TGT_MAX_CALLS] = {0, "program_native", "program_virtualized",
                                                   "vm_mount", "vm_flush", "vm_stat"};

int native_main(void); /* program.c as written (main renamed at compile time) */

#define UNIT 256u
#define UNITS 16u
#define BLOCK 64u
#define BLOCKS 8u
#define MAX_RESULTS 128u

static uint8_t image[UNIT * UNITS];
static uint32_t vram[(BLOCKS * STRATA_VM_BLOCK_RAM(BLOCK) + UNIT) / 4u + 16u];
static struct ramflash rf;
static struct strata_sector_dev dev;
static struct strata_vm vm;
static struct strata_vm_config cfg;
static struct tgt_digest answers;
static uint32_t native_results[MAX_RESULTS];
static uint32_t results, checking; /* results reported so far in this run; 1 in the virtual run */

int16_t prog_sample(uint32_t i)
{
    return i < SERIES_HOURS ? series_tenths[i] : 0;
}

void prog_report(uint32_t id, uint32_t v)
{
    if (results >= MAX_RESULTS)
        tgt_fail("the program reported more results than", (int32_t)MAX_RESULTS);
    if (!checking)
        native_results[results] = v;
    else if (native_results[results] != v)
        tgt_fail("virtualized result differs from the native one, number", (int32_t)results);
    results++;
    tgt_digest_u32(&answers, id);
    tgt_digest_u32(&answers, v);
}

static void answer(unsigned id, int rc)
{
    tgt_digest_rc(&answers, id, rc);
    if (rc != 0)
        tgt_fail(tgt_call_names[id], rc);
}

int tgt_workload(void)
{
    struct strata_vm_stats st;
    uint32_t need, native_count;
    int rc;
    tgt_enter();
    rc = native_main();
    tgt_leave(C_NATIVE);
    answer(C_NATIVE, rc);
    native_count = results;

    ramflash_init(&rf, image, UNIT, UNITS);
    ramsector_init(&dev, &rf);
    cfg.dev = &dev;
    cfg.block_size = BLOCK;
    cfg.blocks = BLOCKS;
    cfg.scheme = STRATA_VM_MULTI_CACHE;
    cfg.ram = vram;
    cfg.ram_size = sizeof vram;
    if ((rc = strata_vm_ram_size(&cfg, &need)) != 0 || need > sizeof vram)
        tgt_fail("the vm needs more RAM than the workload gives it", (int32_t)need);
    if (vmcc_space_size() > sizeof image)
        tgt_fail("the program's globals exceed the virtual space", (int32_t)vmcc_space_size());
    tgt_enter();
    rc = strata_vm_mount(&vm, &cfg);
    tgt_leave(C_MOUNT);
    answer(C_MOUNT, rc);
    vmcc_vm = &vm;
    vmcc_space_init(1); /* the erased NOR reads 0xFF: zero what has no initial value */

    results = 0;
    checking = 1;
    tgt_enter();
    rc = vmcc_main(0, 0);
    tgt_leave(C_VIRTUAL);
    answer(C_VIRTUAL, rc);
    if (results != native_count)
        tgt_fail("the virtualized run reported a different number of results", (int32_t)results);
    answer(C_VIRTUAL, strata_vm_error(&vm, 0, 0));

    tgt_enter();
    rc = strata_vm_flush(&vm);
    tgt_leave(C_FLUSH);
    answer(C_FLUSH, rc);
    tgt_enter();
    rc = strata_vm_stat(&vm, &st);
    tgt_leave(C_STAT);
    answer(C_STAT, rc);
    /* The statistics are printed, not digested: the program's structs hold
     * pointers, so the virtual layout (and with it every miss) differs on a 64-bit host. */
    tgt_line("results", results);
    tgt_line("lcb_hits", st.lcb_hits);
    tgt_line("cache_hits", st.hits);
    tgt_line("misses", st.misses);
    tgt_line("writebacks", st.writebacks);
    tgt_line("sector_reads", st.sector_reads);
    tgt_line("sector_writes", st.sector_writes);
    tgt_put_digest("answers", &answers);
    return 0;
}
