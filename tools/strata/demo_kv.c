/*
 * Demo section: a batteryless weather node. The Greensboro hourly series (temperature, relative
 * humidity) goes into strata_kv on the msp430f5529 while a 10 mF capacitor charged at 7 mA powers
 * the board: power fails whenever the capacitor drops to 2.3 V, RAM is lost, the node waits for
 * 3.3 V, reboots, restores its last checkpoint and carries on. At the end the store and the
 * program state are compared with a run on unlimited power.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "energy.h"
#include "plot.h"
#include "strata/kv.h"

#define EVERY 100u

/* The node's program state, checkpointed with the store. */
struct node_state {
    uint32_t next;     /* next reading to store */
    uint32_t commits;
    int16_t tmax;      /* running maximum temperature (0.1 F) */
    uint16_t hot_humid; /* readings over 80 F and 60 % so far */
};

struct reading {
    uint32_t ts;
    int16_t hum, temp;
};

/* The energy model, watched for the report's voltage timeline. */
struct watch {
    struct strata_energy *e;
    struct strata_trace trace;
    const uint32_t *next; /* the program's progress, NULL while RAM is lost */
    double progress;      /* the last progress seen */
};

static void watch_mark(struct watch *w, enum strata_trace_event ev)
{
    if (w->next != NULL)
        w->progress = *w->next;
    strata_trace_add(&w->trace, w->e->t, w->e->v, w->progress, ev);
}

static int watch_observer(void *arg, const struct strata_sim_op *op)
{
    struct watch *w = arg;
    uint64_t failures = w->e->st.power_failures;
    int cut = strata_energy_observer(w->e, op);
    watch_mark(w, w->e->st.power_failures != failures ? STRATA_TRACE_FAILURE
                                                      : STRATA_TRACE_SAMPLE);
    return cut;
}

struct node {
    struct strata_sim *sim;
    struct strata_kv kv;
    struct strata_kv_config cfg;
    struct strata_kv_region region;
    struct node_state st;
    uint8_t buf[512];
};

static void node_init(struct node *n)
{
    struct strata_sim_config sc;
    memset(n, 0, sizeof *n);
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.seed = 1;
    sc.options = STRATA_SIM_OPT_ROW_TIME;
    n->sim = strata_sim_new(&sc);
    n->cfg.flash = strata_sim_flash(n->sim);
    n->cfg.first_unit = 256u - (16u + 2u + 160u);
    n->cfg.log_units = 16;
    n->cfg.partition_units = 40;
    n->cfg.partitions = 4;
    n->cfg.dims = 2;
    n->cfg.spare_slots = 5;
    n->cfg.node_size = 64;
    n->cfg.garbage_reserve = 2048;
    n->cfg.lo[0] = 0;
    n->cfg.hi[0] = 1000;
    n->cfg.lo[1] = -200;
    n->cfg.hi[1] = 1000;
    n->region.addr = &n->st;
    n->region.size = sizeof n->st;
    n->cfg.regions = &n->region;
    n->cfg.region_count = 1;
    n->cfg.buffer = n->buf;
    n->cfg.buffer_size = sizeof n->buf;
}

/* The program's main loop from wherever its state says; returns on completion or failure.
 * Checkpoints are marked on `w` unless it is NULL. */
static int node_loop(struct node *n, const struct reading *r, uint32_t count, struct watch *w)
{
    int rc = 0;
    while (rc == 0 && n->st.next < count) {
        struct strata_kv_record rec;
        memset(&rec, 0, sizeof rec);
        rec.ts = r[n->st.next].ts;
        rec.v[0] = r[n->st.next].hum;
        rec.v[1] = r[n->st.next].temp;
        if ((rc = strata_kv_put(&n->kv, &rec)) != 0)
            break;
        if (rec.v[1] > n->st.tmax)
            n->st.tmax = rec.v[1];
        if (rec.v[1] > 800 && rec.v[0] > 600)
            n->st.hot_humid++;
        if (++n->st.next % EVERY == 0) {
            n->st.commits++;
            rc = strata_kv_commit(&n->kv);
            if (rc == 0 && w != NULL)
                watch_mark(w, STRATA_TRACE_CHECKPOINT);
        }
    }
    return rc;
}

static uint64_t store_hash(struct strata_kv *kv, uint32_t *count)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record rec;
    uint64_t h = 1469598103934665603ull;
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = INT16_MIN;
    q.hi[0] = q.hi[1] = INT16_MAX;
    *count = 0;
    if (strata_kv_scan_open(kv, &it, &q) != 0)
        return 0;
    rec.payload = NULL;
    while (strata_kv_scan_next(kv, &it, &rec) == 1) {
        uint8_t b[8];
        unsigned i;
        memcpy(b, &rec.ts, 4);
        memcpy(b + 4, rec.v, 4);
        for (i = 0; i < 8; i++)
            h = (h ^ b[i]) * 1099511628211ull;
        (*count)++;
    }
    return h;
}

static uint32_t count_hot_humid(struct strata_kv *kv)
{
    struct strata_kv_query q;
    uint32_t n = 0;
    memset(&q, 0, sizeof q);
    q.lo[0] = 601;
    q.hi[0] = 1000;
    q.lo[1] = 801;
    q.hi[1] = 1000;
    strata_kv_count(kv, &q, &n);
    return n;
}

/* The node's voltage and progress over time, and the wear it left. */
static void plot_node(struct strata_report *plots, const struct watch *w, const struct node *a,
                      uint32_t count)
{
    struct strata_plot_region regions[STRATA_PLOT_KV_REGIONS];
    uint32_t wear[256], units = strata_wear_snapshot(a->sim, wear, 256), top;
    size_t n = strata_plot_kv_regions(&a->cfg, regions);
    const char *where;
    const struct strata_energy_stats *st = &w->e->st;
    strata_report_plot(plots, "timeline", "demo.kv.voltage",
                       "The batteryless node: capacitor voltage while strata_kv stores the year "
                       "(msp430f5529, 10 mF, 7 mA supply)");
    strata_report_caption(plots,
                          "The board runs until the capacitor falls to 2.3 V, loses power and RAM "
                          "(red x), waits for charge (grey), restores its last checkpoint and "
                          "carries on: %u readings in %.1f s, %.0f %% of it waiting for charge.",
                          (unsigned)count, strata_energy_time(w->e),
                          100.0 * st->off_s / strata_energy_time(w->e));
    strata_report_attr(plots, "x", "time (s)");
    strata_report_attr(plots, "y", "capacitor voltage (V)");
    strata_report_attr(plots, "hlines", "%.1f:switches on at %.1f V|%.1f:switches off below %.1f V",
                       w->e->cfg.v_on, w->e->cfg.v_on, w->e->cfg.v_off, w->e->cfg.v_off);
    strata_trace_series(plots, "strata_kv (RB)", &w->trace);
    strata_report_plot(plots, "lines", "demo.kv.progress",
                       "The batteryless node: readings stored over time");
    strata_report_caption(plots, "A power failure loses the readings stored since the last "
                                 "checkpoint (a step back, at most %u): %.0f readings redone over "
                                 "%llu failures; flat stretches are waits for charge and erases. "
                                 "The final store equals a run without failures.",
                          EVERY - 1u, strata_trace_lost(&w->trace),
                          (unsigned long long)st->power_failures);
    strata_report_attr(plots, "x", "time (s)");
    strata_report_attr(plots, "y", "readings stored");
    strata_report_attr(plots, "step", "yes");
    strata_trace_progress_series(plots, "strata_kv (RB)", &w->trace);
    strata_report_plot(plots, "heatmap", "demo.kv.wear",
                       "The batteryless node: erases per 512-byte segment of the msp430f5529 "
                       "flash after the year");
    where = strata_wear_hottest(wear, units, regions, n, &top);
    strata_report_caption(plots, "Darker is more worn: the most erased segment (%u erases) is in "
                                 "the %s; the partitions are used first-in first-out, so their "
                                 "wear grows together; the segments outside the store hold the "
                                 "program on a real board.",
                          (unsigned)top, where);
    strata_report_attr(plots, "columns", "40");
    strata_report_attr(plots, "unit", "segment");
    strata_wear_series(plots, "msp430f5529", wear, units, regions, n);
}

int demo_kv(const struct strata_dataset *d, struct strata_report *plots)
{
    int ct = strata_dataset_column(d, "temp_c"), ch = strata_dataset_column(d, "rh_pct");
    int cts = strata_dataset_column(d, "ts");
    uint32_t count = (uint32_t)d->rows, i, shown = 0, live_a, live_b;
    struct reading *r = calloc(count, sizeof *r);
    struct strata_energy_config ec;
    struct strata_energy e;
    struct watch w;
    struct node *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    uint64_t ha, hb;
    int rc, ok;
    printf("== strata_kv: a batteryless weather node (msp430f5529, 10 mF capacitor, 7 mA supply)\n");
    if (r == NULL || a == NULL || b == NULL || ct < 0 || ch < 0 || cts < 0) {
        free(r);
        free(a);
        free(b);
        return CLI_FAIL;
    }
    for (i = 0; i < count; i++) {
        double c = strata_dataset_at(d, i, ct), h = strata_dataset_at(d, i, ch) * 10.0;
        double f = (c * 9.0 / 5.0 + 32.0) * 10.0;
        r[i].ts = (uint32_t)strata_dataset_at(d, i, cts);
        r[i].hum = (int16_t)(h < 0 ? 0 : h > 1000 ? 1000 : h + 0.5);
        r[i].temp = (int16_t)(f < -200 ? -200 : f > 1000 ? 1000 : (f < 0 ? f - 0.5 : f + 0.5));
    }
    /* the node on harvested power */
    node_init(a);
    rc = strata_kv_format(&a->kv, &a->cfg);
    strata_energy_default(&ec);
    strata_energy_init(&e, &ec);
    w.e = &e;
    w.next = &a->st.next;
    w.progress = 0;
    strata_trace_init(&w.trace, 0.02);
    watch_mark(&w, STRATA_TRACE_SAMPLE);
    strata_sim_set_observer(a->sim, watch_observer, &w);
    printf("   storing %u hourly readings (humidity, temperature), a checkpoint every %u\n", count,
           EVERY);
    while (rc == 0) {
        if ((rc = strata_kv_mount(&a->kv, &a->cfg)) == 0 && e.st.power_failures > 0 &&
            shown < 12) {
            printf("   power failure %2llu at %6.2f s: restored checkpoint %u (reading %u); "
                   "%u write mark(s), zeroed %u slot(s), erase-undid %u segment(s)\n",
                   (unsigned long long)e.st.power_failures, strata_energy_time(&e),
                   a->st.commits, a->st.next, a->kv.restored.marks, a->kv.restored.slots_zeroed,
                   a->kv.restored.units_restored);
            shown++;
        }
        if (rc == 0 && w.next == NULL) {
            w.next = &a->st.next;
            watch_mark(&w, STRATA_TRACE_RESTORE);
        }
        if (rc == 0)
            rc = node_loop(a, r, count, &w);
        if (rc != STRATA_EPOWER)
            break;
        /* power is gone: so is RAM */
        w.next = NULL;
        memset(&a->kv, 0xA5, sizeof a->kv);
        memset(&a->st, 0xA5, sizeof a->st);
        memset(a->buf, 0xA5, sizeof a->buf);
        if (strata_energy_recharge(&e) != 0)
            break;
        watch_mark(&w, STRATA_TRACE_CHARGED);
        strata_sim_reboot(a->sim);
        rc = 0;
    }
    if (rc != 0) {
        fprintf(stderr, "strata demo: kv node failed: %s\n", strata_strerror(rc));
        goto out;
    }
    if (shown < e.st.power_failures)
        printf("   ... %llu power failures in all\n", (unsigned long long)e.st.power_failures);
    strata_sim_set_observer(a->sim, NULL, NULL);
    printf("   done in %.1f s: %.1f s running, %.1f s waiting for charge over %llu charge "
           "cycles; %llu power failures\n",
           strata_energy_time(&e), e.st.on_s, e.st.off_s, (unsigned long long)e.st.charge_cycles,
           (unsigned long long)e.st.power_failures);
    /* the same program on unlimited power */
    node_init(b);
    if ((rc = strata_kv_format(&b->kv, &b->cfg)) == 0)
        rc = node_loop(b, r, count, NULL);
    if (rc != 0) {
        fprintf(stderr, "strata demo: reference run failed: %s\n", strata_strerror(rc));
        goto out;
    }
    ha = store_hash(&a->kv, &live_a);
    hb = store_hash(&b->kv, &live_b);
    ok = ha == hb && live_a == live_b && memcmp(&a->st, &b->st, sizeof a->st) == 0;
    printf("   store: %u readings retrievable (the oldest partitions expired FIFO); run without "
           "failures: %u\n", live_a, live_b);
    printf("   program state: max %.1f F, %u hot and humid readings; without failures: max %.1f "
           "F, %u\n", a->st.tmax / 10.0, a->st.hot_humid, b->st.tmax / 10.0, b->st.hot_humid);
    printf("   query 'over 80 F and 60 %% humidity' on the live store: %u vs %u\n",
           count_hot_humid(&a->kv), count_hot_humid(&b->kv));
    printf("   consistency check (every record in scan order, and the program state): %s\n\n",
           ok ? "identical" : "DIFFERENT");
    rc = ok ? 0 : CLI_FAIL;
    if (ok)
        plot_node(plots, &w, a, count);
out:
    strata_trace_free(&w.trace);
    strata_sim_free(a->sim);
    strata_sim_free(b->sim);
    free(a);
    free(b);
    free(r);
    return rc ? CLI_FAIL : 0;
}
