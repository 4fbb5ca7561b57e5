/*
 * Fuzz target: a strata_kv store image (the whole layout of a small store on the msp430f5529
 * profile: 4 log units, the save area, 3 partitions of 4 units). The input overlays the layout
 * from its start (missing bytes read erased). Mount (restore), scan, get, put and commit must
 * answer with errors or results — never crash, hang or touch memory out of bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "strata/kv.h"
#include "strata/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define UNITS 18u
#define UNIT 512u

struct app {
    uint32_t next, commits;
};

static void config(struct strata_kv_config *c, const struct strata_flash *f, uint8_t *buf,
                   struct strata_kv_region *region, int erase)
{
    memset(c, 0, sizeof *c);
    c->flash = f;
    c->log_units = 4;
    c->partition_units = 4;
    c->partitions = 3;
    c->dims = 2;
    c->spare_slots = 2;
    c->node_size = 32;
    c->garbage_reserve = 128;
    c->flags = erase ? STRATA_KV_ERASE_UNDO : 0;
    c->lo[0] = 0;
    c->hi[0] = 1000;
    c->lo[1] = -200;
    c->hi[1] = 1000;
    c->regions = region;
    c->region_count = 1;
    c->buffer = buf;
    c->buffer_size = UNIT;
}

static void exercise(struct strata_kv *kv, const struct strata_kv_config *c, struct app *app)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    uint32_t n = 0, i;
    int16_t key[2] = {5, 5};
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = q.lo[2] = -32768;
    q.hi[0] = q.hi[1] = q.hi[2] = 32767;
    if (strata_kv_scan_open(kv, &it, &q) == 0) {
        r.payload = NULL;
        while (strata_kv_scan_next(kv, &it, &r) == 1 && ++n < 200000)
            ;
        if (n >= 200000)
            abort(); /* a scan that does not end */
    }
    r.payload = NULL;
    (void)strata_kv_get(kv, key, &r);
    for (i = 0; i < 40; i++) {
        memset(&r, 0, sizeof r);
        r.ts = app->next;
        r.v[0] = (int16_t)(app->next * 37u % 1000u);
        r.v[1] = (int16_t)(app->next * 91u % 1200u) - 200;
        if (strata_kv_put(kv, &r) != 0)
            break;
        app->next++;
        if (i % 15 == 14 && strata_kv_commit(kv) != 0)
            break;
    }
    (void)strata_kv_mount(kv, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t buf[UNIT];
    struct strata_sim_config sc;
    struct strata_kv_config c;
    struct strata_kv_region region;
    struct strata_kv kv;
    struct app app;
    struct strata_sim *sim;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.erase_count = UNITS;
    sc.seed = 1;
    sim = strata_sim_new(&sc);
    if (sim == NULL)
        return 0;
    strata_sim_poke(sim, 0, data, size < UNITS * UNIT ? (uint32_t)size : UNITS * UNIT);
    memset(&app, 0, sizeof app);
    region.addr = &app;
    region.size = sizeof app;
    config(&c, strata_sim_flash(sim), buf, &region, (int)(size & 1u));
    if (strata_kv_mount(&kv, &c) == 0)
        exercise(&kv, &c, &app);
    strata_sim_free(sim);
    return 0;
}
