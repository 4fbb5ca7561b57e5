/* Example: a persistent routing table on strata_fs over a simulated Tmote Sky flash (m25p80).
 * 1,000 routes of 10 bytes, then 60 simulated seconds of 10 random metric updates per second
 * (one commit per second) and 10 lookups per second; prints device time per operation. */
#include <stdio.h>
#include <string.h>

#include "routing_table.h"
#include "strata/sim.h"

static uint64_t now(const struct strata_sim *sim)
{
    struct strata_sim_stats s;
    strata_sim_stats(sim, &s);
    return s.time_ps;
}

int main(void)
{
    struct strata_sim_config sc;
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    struct rt rt;
    uint8_t buf[256];
    uint64_t t, upd = 0, look = 0, sync = 0, seed = 1;
    uint32_t i, sec, n_upd = 0, n_look = 0;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("m25p80");
    sim = strata_sim_new(&sc);
    memset(&cfg, 0, sizeof cfg);
    memset(&fs, 0, sizeof fs);
    cfg.flash = strata_sim_flash(sim);
    cfg.buffer = buf;
    cfg.buffer_size = sizeof buf;
    if (sim == NULL || strata_fs_format(&fs, &cfg) != 0 || strata_fs_mount(&fs, &cfg) != 0 ||
        rt_open(&rt, &fs, "routes", 1000, 51) != 0)
        return 1;
    for (i = 0; i < 1000; i++) {
        struct rt_route r = {(uint16_t)i, (uint16_t)(i * 7 % 100), (uint16_t)(i / 3), 0};
        if (rt_set(&rt, &r) != 0)
            return 1;
    }
    if (rt_sync(&rt) != 0)
        return 1;
    for (sec = 0; sec < 60; sec++) {
        for (i = 0; i < 10; i++) {
            struct rt_route r;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            r.dest = (uint16_t)((seed >> 33) % 1000);
            r.metric = (uint16_t)(seed >> 20);
            r.next_hop = (uint16_t)(seed >> 40);
            r.stamp = sec;
            t = now(sim);
            if (rt_set(&rt, &r) != 0)
                return 1;
            upd += now(sim) - t;
            n_upd++;
            t = now(sim);
            if (rt_get(&rt, (uint16_t)((seed >> 13) % 1000), &r) != 0)
                return 1;
            look += now(sim) - t;
            n_look++;
        }
        t = now(sim);
        if (rt_sync(&rt) != 0)
            return 1;
        sync += now(sim) - t;
    }
    printf("routing table on m25p80: 1000 routes x 10 B, log of 51 records of 10 B\n");
    printf("  update (seek+write 10 B): %.2f ms average over %u\n", upd / 1e9 / n_upd,
           (unsigned)n_upd);
    printf("  lookup (seek+read 10 B):  %.2f ms average over %u\n", look / 1e9 / n_look,
           (unsigned)n_look);
    printf("  commit of a second's 10 updates: %.2f ms average\n", sync / 1e9 / 60);
    rt_close(&rt);
    strata_fs_unmount(&fs);
    strata_sim_free(sim);
    return 0;
}
