/* Fuzz target: mount + readdir + read (+ check and df) of arbitrary strata_fs images must
 * return errors, never crash, hang or touch memory out of bounds. Input: byte 0 picks the
 * device (msp430f5529 with 16 segments of 512 B, or w25q128 with 2 sectors of 4 KiB, both
 * 8 KiB); the rest is the device content (a short input leaves the tail erased). The seed
 * corpus is written by tests/fs/test_fs_corrupt (FS_WRITE_CORPUS=dir). */
#include <stdlib.h>
#include <string.h>

#include "strata/fs.h"
#include "strata/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEV_BYTES 8192u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct strata_sim_config c;
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    struct strata_fs_usage u;
    struct strata_fs_report r;
    uint8_t buf[128], io[200];
    int n = 0;
    if (size < 1)
        return 0;
    memset(&c, 0, sizeof c);
    c.profile = strata_sim_profile_find(data[0] & 1 ? "w25q128" : "msp430f5529");
    c.erase_count = data[0] & 1 ? 2 : 16;
    c.seed = 1;
    sim = strata_sim_new(&c);
    if (sim == NULL)
        return 0;
    size--;
    strata_sim_poke(sim, 0, data + 1, size > DEV_BYTES ? DEV_BYTES : (uint32_t)size);
    memset(&cfg, 0, sizeof cfg);
    cfg.flash = strata_sim_flash(sim);
    cfg.buffer = buf;
    cfg.buffer_size = sizeof buf;
    if (strata_fs_mount(&fs, &cfg) == 0) {
        if (strata_fs_opendir(&fs, &d) == 0)
            while (n++ < 64 && strata_fs_readdir(&fs, &d, &st) == 1) {
                struct strata_fs_file f;
                if (strata_fs_open(&fs, &f, st.name, STRATA_FS_READ) == 0) {
                    while (strata_fs_read(&fs, &f, io, sizeof io) > 0)
                        ;
                    strata_fs_close(&fs, &f);
                }
            }
        strata_fs_df(&fs, &u);
        strata_fs_check(&fs, 0, &r);
    }
    strata_sim_free(sim);
    return 0;
}
