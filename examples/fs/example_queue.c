/* Example: a packet queue on strata_fs over a simulated m25p80: enqueue and dequeue packets of
 * 16..128 bytes through a 4 KiB ring file; prints the device time per operation. */
#include <stdio.h>
#include <string.h>

#include "packet_queue.h"
#include "segment_queue.h"
#include "strata/sim.h"

static uint64_t now(const struct strata_sim *sim)
{
    struct strata_sim_stats s;
    strata_sim_stats(sim, &s);
    return s.time_ps;
}

int main(void)
{
    static const uint16_t sizes[] = {16, 32, 64, 100, 128};
    struct strata_sim_config sc;
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    struct pq q;
    uint8_t buf[256], pkt[128], back[128];
    size_t k;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("m25p80");
    sim = strata_sim_new(&sc);
    memset(&cfg, 0, sizeof cfg);
    memset(&fs, 0, sizeof fs);
    cfg.flash = strata_sim_flash(sim);
    cfg.buffer = buf;
    cfg.buffer_size = sizeof buf;
    if (sim == NULL || strata_fs_format(&fs, &cfg) != 0 || strata_fs_mount(&fs, &cfg) != 0 ||
        pq_open(&q, &fs, "queue", 4096, 2048, 64) != 0)
        return 1;
    printf("packet queue on m25p80 (4 KiB ring, log of 32 records of 64 B)\n");
    printf("  size   enqueue ms   dequeue ms\n");
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint64_t put = 0, get = 0, t;
        uint32_t i, n = 200;
        for (i = 0; i < n; i++) {
            memset(pkt, (int)i, sizes[k]);
            t = now(sim);
            if (pq_put(&q, pkt, sizes[k]) != 0)
                return 1;
            put += now(sim) - t;
            t = now(sim);
            if (pq_get(&q, back, sizeof back) != sizes[k] || memcmp(back, pkt, sizes[k]) != 0)
                return 1;
            get += now(sim) - t;
        }
        printf("  %4u   %10.2f   %10.2f\n", sizes[k], put / 1e9 / n, get / 1e9 / n);
    }
    pq_close(&q);
    {
        struct sq s;
        if (sq_open(&s, &fs, "q", 16384) != 0)
            return 1;
        printf("append-only segment queue (16 KiB segments, removed when consumed)\n");
        printf("  size   enqueue ms   dequeue ms\n");
        for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint64_t put = 0, get = 0, t;
            uint32_t i, n = 1000;
            for (i = 0; i < n; i++) {
                memset(pkt, (int)i, sizes[k]);
                t = now(sim);
                if (sq_put(&s, pkt, sizes[k]) != 0)
                    return 1;
                put += now(sim) - t;
                t = now(sim);
                if (sq_get(&s, back, sizeof back) != sizes[k] || memcmp(back, pkt, sizes[k]) != 0)
                    return 1;
                get += now(sim) - t;
            }
            printf("  %4u   %10.2f   %10.2f\n", sizes[k], put / 1e9 / n, get / 1e9 / n);
        }
        if (sq_sync(&s) != 0 || sq_close(&s) != 0)
            return 1;
    }
    strata_fs_unmount(&fs);
    strata_sim_free(sim);
    return 0;
}
