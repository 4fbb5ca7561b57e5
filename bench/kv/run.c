/*
 * One intermittent run: a sensor program inserts the workload, committing a checkpoint every
 * `every` records; the energy model decides when power fails. After a failure all RAM is
 * poisoned, the capacitor recharges (time passes), the device reboots and mounts (restores) the
 * store, and the program continues from its restored state.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct app {
    uint32_t next, commits, sum;
};

struct meter {
    struct strata_energy e;
    uint32_t log_first, log_end, unit; /* the undo log's units */
    uint64_t log_bytes;
    struct strata_sim_op *ops; /* every operation, for the flash-only replay */
    size_t n, cap;
    double erase_s; /* device time of erases so far */
    struct run_plot *plot; /* the trace, while the run is traced */
    double progress;       /* records the program has stored (as its state last said) */
};

static void mark(struct meter *m, enum strata_trace_event ev)
{
    if (m->plot)
        strata_trace_add(&m->plot->trace, m->e.t, m->e.v, m->progress, ev);
}

static int meter_observer(void *arg, const struct strata_sim_op *op)
{
    struct meter *m = arg;
    uint64_t failures = m->e.st.power_failures;
    int cut;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 65536;
        m->ops = realloc(m->ops, m->cap * sizeof *m->ops);
    }
    m->ops[m->n++] = *op;
    if (op->kind == STRATA_SIM_OP_PROG && op->addr / m->unit >= m->log_first &&
        op->addr / m->unit < m->log_end)
        m->log_bytes += op->len;
    if (op->kind == STRATA_SIM_OP_ERASE)
        m->erase_s += (double)op->time_ps * 1e-12;
    cut = strata_energy_observer(&m->e, op);
    mark(m, m->e.st.power_failures != failures ? STRATA_TRACE_FAILURE : STRATA_TRACE_SAMPLE);
    return cut;
}

void bench_config(struct strata_kv_config *c, const struct strata_flash *f, uint16_t flags,
                  void *buf, uint16_t buf_size)
{
    memset(c, 0, sizeof *c);
    c->flash = f;
    c->log_units = 16;
    c->partition_units = 40; /* 4 x 20 KiB = 80 KiB */
    c->partitions = 4;
    c->first_unit = f->geo.erase_count - (16u + 2u + 160u);
    c->dims = 2;
    c->payload_size = 0; /* 9-byte records: ts, humidity, temperature, check */
    c->spare_slots = 5;
    c->node_size = 64;
    c->garbage_reserve = 2048;
    c->flags = flags;
    c->lo[0] = 0;
    c->hi[0] = 1000;
    c->lo[1] = -200;
    c->hi[1] = 1000;
    c->buffer = buf;
    c->buffer_size = buf_size;
}

void lat_add(struct lat *l, double s)
{
    l->sum += s;
    l->n++;
    if (s > l->max)
        l->max = s;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n--) {
        h ^= *b++;
        h *= 1099511628211ull;
    }
    return h;
}

static int hash_all(struct strata_kv *kv, uint64_t *hash, uint32_t *count)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    int rc;
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = INT16_MIN;
    q.hi[0] = q.hi[1] = INT16_MAX;
    *hash = 1469598103934665603ull;
    *count = 0;
    if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
        return rc;
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1) {
        *hash = fnv(*hash, &r.ts, sizeof r.ts);
        *hash = fnv(*hash, r.v, 2 * sizeof r.v[0]);
        (*count)++;
    }
    return rc;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Random ranges, first 256 records of each (paper Fig. 15). */
static void scans(struct strata_kv *kv, struct meter *m, int count, uint64_t seed,
                  struct lat *l)
{
    uint64_t s = seed | 1;
    int i;
    for (i = 0; i < count; i++) {
        struct strata_kv_query q;
        struct strata_kv_iter it;
        struct strata_kv_record r;
        double t0 = m->e.st.on_s;
        unsigned j;
        memset(&q, 0, sizeof q);
        for (j = 0; j < 2; j++) {
            int span = kv->cfg->hi[j] - kv->cfg->lo[j];
            int a = kv->cfg->lo[j] + (int)(rng(&s) % (uint64_t)(span + 1));
            int w = (int)(rng(&s) % (uint64_t)(span + 1));
            q.lo[j] = (int16_t)a;
            q.hi[j] = (int16_t)(a + w > kv->cfg->hi[j] ? kv->cfg->hi[j] : a + w);
        }
        q.limit = 256;
        r.payload = NULL;
        if (strata_kv_scan_open(kv, &it, &q) != 0)
            return;
        while (strata_kv_scan_next(kv, &it, &r) == 1)
            ;
        lat_add(l, m->e.st.on_s - t0);
    }
}

static void flash_only(const struct meter *m, double supply_ma, struct run_result *r)
{
    struct strata_energy_config ec;
    struct strata_energy e;
    size_t i;
    strata_energy_default(&ec);
    ec.supply_current = supply_ma / 1000.0;
    ec.cycles_per_op = ec.cycles_per_byte = 0;
    strata_energy_init(&e, &ec);
    for (i = 0; i < m->n; i++)
        if (strata_energy_observer(&e, &m->ops[i]))
            strata_energy_recharge(&e);
    r->flash_only_s = strata_energy_time(&e);
    r->flash_only_cycles = e.st.charge_cycles;
}

void run(const struct run_cfg *c, struct run_result *r)
{
    static uint8_t buf[512];
    struct strata_sim_config sc;
    struct strata_kv_config cfg;
    struct strata_kv_region regions[4];
    struct strata_energy_config ec;
    struct strata_sim_stats ss;
    struct strata_sim_wear wear;
    struct meter m;
    struct app app;
    struct store *s = c->ops->create();
    const struct strata_kv_region *extra;
    struct strata_sim *sim;
    unsigned nextra = 0, i;
    int rc, failed = 0;
    memset(r, 0, sizeof *r);
    memset(&m, 0, sizeof m);
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.seed = c->seed;
    sc.options = STRATA_SIM_OPT_ROW_TIME;
    sim = strata_sim_new(&sc);
    bench_config(&cfg, strata_sim_flash(sim), c->flags, buf, sizeof buf);
    if (c->spare_slots)
        cfg.spare_slots = c->spare_slots;
    memset(&app, 0, sizeof app);
    regions[0].addr = &app;
    regions[0].size = sizeof app;
    extra = c->ops->regions ? c->ops->regions(s, &nextra) : NULL;
    for (i = 0; i < nextra; i++)
        regions[1 + i] = extra[i];
    cfg.regions = regions;
    cfg.region_count = (uint8_t)(1 + nextra);
    if ((rc = c->ops->format(s, &cfg)) != 0) {
        r->rc = rc;
        goto out;
    }
    strata_energy_default(&ec);
    ec.supply_current = c->supply_ma > 0 ? c->supply_ma / 1000.0 : 10.0;
    if (c->trace != NULL) {
        ec.trace = c->trace;
        ec.trace_len = c->trace_len;
        ec.trace_step = 1.0;
    }
    strata_energy_init(&m.e, &ec);
    m.unit = strata_sim_flash(sim)->geo.erase_size;
    m.log_first = cfg.first_unit;
    m.log_end = cfg.first_unit + cfg.log_units;
    if ((m.plot = c->plot) != NULL) {
        strata_trace_init(&m.plot->trace, 0.05);
        m.plot->layout = cfg;
        mark(&m, STRATA_TRACE_SAMPLE);
    }
    strata_sim_stats_reset(sim);
    strata_sim_set_observer(sim, meter_observer, &m);
    for (;;) {
        double t0 = m.e.st.on_s;
        rc = c->ops->mount(s, &cfg);
        if (rc == 0 && failed) {
            const struct strata_kv_restore_info *ri = &c->ops->kv(s)->restored;
            lat_add(&r->restore, m.e.st.on_s - t0);
            r->marks += ri->marks;
            r->slots_zeroed += ri->slots_zeroed;
            r->units_restored += ri->units_restored;
            r->fallbacks += ri->fallback;
            m.progress = app.next;
            mark(&m, STRATA_TRACE_RESTORE);
        }
        while (rc == 0 && app.next < c->n) {
            struct strata_kv_record rec;
            memset(&rec, 0, sizeof rec);
            rec.ts = c->recs[app.next].ts;
            rec.v[0] = c->recs[app.next].hum;
            rec.v[1] = c->recs[app.next].temp;
            double f0 = m.e.st.flash_s, e0 = m.erase_s;
            t0 = m.e.st.on_s;
            if ((rc = c->ops->put(s, &rec)) != 0)
                break;
            lat_add(&r->insert, m.e.st.on_s - t0);
            lat_add(&r->insert_dev, m.e.st.flash_s - f0);
            r->insert_erase_s += m.erase_s - e0;
            app.sum = app.sum * 31u + rec.ts + (uint16_t)rec.v[0];
            app.next++;
            m.progress = app.next;
            if (app.next % c->every == 0) {
                app.commits++;
                t0 = m.e.st.on_s;
                if ((rc = c->ops->commit(s)) != 0)
                    break;
                lat_add(&r->commit, m.e.st.on_s - t0);
                mark(&m, STRATA_TRACE_CHECKPOINT);
                /* records the store holds after each commit (space utilisation) */
                r->live_sum += c->ops->records(s);
                r->live_samples++;
            }
        }
        if (rc == 0)
            break;
        if (rc != STRATA_EPOWER) {
            r->rc = rc;
            goto out;
        }
        /* power failed: RAM is gone, wait for the capacitor, reboot */
        failed = 1;
        memset(&app, 0xA5, sizeof app);
        memset(buf, 0xA5, sizeof buf);
        memset(c->ops->kv(s), 0xA5, sizeof(struct strata_kv));
        if (strata_energy_recharge(&m.e) != 0) {
            r->rc = STRATA_EPOWER;
            goto out;
        }
        mark(&m, STRATA_TRACE_CHARGED);
        strata_sim_reboot(sim);
    }
    m.plot = NULL; /* what follows runs on unlimited power */
    r->total_s = strata_energy_time(&m.e);
    r->on_s = m.e.st.on_s;
    r->off_s = m.e.st.off_s;
    r->flash_s = m.e.st.flash_s;
    r->compute_s = m.e.st.compute_s;
    r->flash_j = m.e.st.flash_j;
    r->compute_j = m.e.st.compute_j;
    r->failures = m.e.st.power_failures;
    r->charge_cycles = m.e.st.charge_cycles;
    strata_sim_stats(sim, &ss);
    r->erases = ss.erases;
    r->progs = ss.progs;
    r->prog_bytes = ss.prog_bytes;
    r->reads = ss.reads;
    r->read_bytes = ss.read_bytes;
    r->log_bytes = m.log_bytes;
    flash_only(&m, c->supply_ma > 0 ? c->supply_ma : 10000.0, r);
    /* afterwards, on unlimited power: content and scans */
    m.e.cfg.supply_current = 10.0;
    m.e.cfg.trace = NULL;
    if ((rc = hash_all(c->ops->kv(s), &r->hash, &r->live)) != 0)
        r->rc = rc;
    scans(c->ops->kv(s), &m, c->scans, c->seed, &r->scan);
    strata_sim_wear(sim, &wear);
    r->wear_max = wear.max;
    if (c->plot)
        c->plot->units = strata_wear_snapshot(sim, c->plot->wear, RUN_WEAR_UNITS);
    if (ss.violations)
        r->rc = STRATA_EVIOLATION;
out:
    c->ops->destroy(s);
    strata_sim_free(sim);
    free(m.ops);
}
