/* The paper's networking examples (§6) measured on strata_fs, and the RAM figures. */
#include <stdio.h>
#include <string.h>

#include "bench_fs.h"
#include "packet_queue.h"
#include "routing_table.h"
#include "segment_queue.h"

static void routing(struct strata_report *r)
{
    static const char *const cols[] = {"operation", "mean (ms)", "max (ms)", "count"};
    struct bdev d;
    struct rt rt;
    struct acc up = {0}, look = {0}, com = {0};
    uint64_t seed = 1, t;
    uint32_t i, sec;
    bdev_init(&d, "m25p80", 16);
    must(rt_open(&rt, &d.fs, "routes", 1000, 51), "rt_open");
    for (i = 0; i < 1000; i++) {
        struct rt_route x = {(uint16_t)i, (uint16_t)(i * 7 % 100), (uint16_t)(i / 3), 0};
        must(rt_set(&rt, &x), "rt_set");
    }
    must(rt_sync(&rt), "rt_sync");
    for (sec = 0; sec < 300; sec++) {
        for (i = 0; i < 10; i++) {
            struct rt_route x;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            x.dest = (uint16_t)((seed >> 33) % 1000);
            x.metric = (uint16_t)(seed >> 20);
            x.next_hop = (uint16_t)(seed >> 40);
            x.stamp = sec;
            t = now_ps(&d);
            must(rt_set(&rt, &x), "update");
            acc_add(&up, now_ps(&d) - t);
            t = now_ps(&d);
            must(rt_get(&rt, (uint16_t)((seed >> 13) % 1000), &x), "lookup");
            acc_add(&look, now_ps(&d) - t);
        }
        t = now_ps(&d);
        must(rt_sync(&rt), "commit");
        acc_add(&com, now_ps(&d) - t);
    }
    must(rt_close(&rt), "rt_close");
    strata_report_table(r, "Example: persistent routing table (m25p80; 1,000 routes x 10 B, "
                           "10 random updates/s for 300 s)", cols, 4);
#define ROW(label, a)                                                                              \
    do {                                                                                           \
        strata_report_text(r, "%s", label);                                                        \
        strata_report_num(r, "%.2f", acc_mean(&a));                                                \
        strata_report_num(r, "%.2f", a.max);                                                       \
        strata_report_num(r, "%.0f", a.n);                                                         \
    } while (0)
    ROW("update (seek + write 10 B, log record)", up);
    ROW("lookup (seek + read 10 B)", look);
    ROW("commit of the second's 10 updates", com);
    strata_report_note(r, "Log: 51 records of 10 B (510 B, the paper's 512 B log); a full log "
                          "merges the 10 KB table into a fresh extent, which is the max update "
                          "time. Paper (Fig. 10): lookups faster than sending a packet, "
                          "independent of the number of changes; merges about every 30 updates "
                          "(its log also held the header and index). 2 B of static RAM in the "
                          "paper's table; here the open file struct (see the RAM table).");
    bdev_free(&d);
}

static void queue(struct strata_report *r)
{
    static const char *const cols[] = {"packet (B)", "enqueue mean (ms)", "enqueue max (ms)",
                                       "dequeue mean (ms)", "dequeue max (ms)"};
    static const uint16_t sizes[] = {16, 32, 64, 100, 128};
    size_t k;
    strata_report_table(r, "Example: packet queue (m25p80; 4 KiB ring file, log of 32 records "
                           "of 64 B, 200 packets per size)", cols, 5);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct bdev d;
        struct pq q;
        struct acc put = {0}, get = {0};
        uint8_t pkt[128], back[128];
        uint32_t i;
        bdev_init(&d, "m25p80", 16);
        must(pq_open(&q, &d.fs, "queue", 4096, 2048, 64), "pq_open");
        for (i = 0; i < 200; i++) {
            uint64_t t;
            memset(pkt, (int)i, sizes[k]);
            t = now_ps(&d);
            must(pq_put(&q, pkt, sizes[k]), "enqueue");
            acc_add(&put, now_ps(&d) - t);
            t = now_ps(&d);
            if (pq_get(&q, back, sizeof back) != sizes[k] || memcmp(back, pkt, sizes[k]) != 0)
                must(STRATA_ECORRUPT, "dequeue");
            acc_add(&get, now_ps(&d) - t);
        }
        must(pq_close(&q), "pq_close");
        strata_report_num(r, "%.0f", sizes[k]);
        strata_report_num(r, "%.2f", acc_mean(&put));
        strata_report_num(r, "%.2f", put.max);
        strata_report_num(r, "%.2f", acc_mean(&get));
        strata_report_num(r, "%.2f", get.max);
        bdev_free(&d);
    }
    strata_report_note(r, "Paper (Fig. 11): under 4 ms to enqueue or dequeue a 100-byte packet; "
                          "sending it over the CC2420 takes 8 ms. Each packet is one write of its "
                          "2-byte length and its bytes. The first lap of the ring appends in "
                          "place (about 2.8 ms for 100 B); later laps overwrite through the micro "
                          "log, about two 64-byte records per 100-byte packet (1.7 ms to program "
                          "each, 0.5 ms for its entry, plus reading the record's other bytes), "
                          "and every 32 records the 4 KiB file is copied with the pending write "
                          "folded in (the max column, about 220 ms). Under 4 ms needs the append "
                          "path: see the segment queue below. Positions are kept in RAM, as in "
                          "the paper.");
}

static void segments(struct strata_report *r)
{
    static const char *const cols[] = {"packet (B)", "packets", "enqueue mean (ms)",
                                       "enqueue max (ms)", "dequeue mean (ms)",
                                       "dequeue max (ms)", "erases"};
    static const uint16_t sizes[] = {16, 32, 64, 100, 128, 100};
    static const uint32_t counts[] = {2000, 2000, 2000, 2000, 2000, 20000};
    size_t k;
    strata_report_table(r, "Example: packet queue as append-only segments (m25p80; 16 KiB "
                           "segment files, removed when consumed)", cols, 7);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct bdev d;
        struct sq q;
        struct acc put = {0}, get = {0};
        struct strata_sim_stats s0, s1;
        uint8_t pkt[128], back[128];
        uint32_t i, queued = 0;
        bdev_init(&d, "m25p80", 16);
        must(sq_open(&q, &d.fs, "q", 16384), "sq_open");
        strata_sim_stats(d.sim, &s0);
        for (i = 0; i < counts[k]; i++) {
            uint64_t t;
            memset(pkt, (int)i, sizes[k]);
            t = now_ps(&d);
            must(sq_put(&q, pkt, sizes[k]), "enqueue");
            acc_add(&put, now_ps(&d) - t);
            if (++queued < 8)
                continue; /* keep a few packets queued */
            t = now_ps(&d);
            if (sq_get(&q, back, sizeof back) != sizes[k])
                must(STRATA_ECORRUPT, "dequeue");
            acc_add(&get, now_ps(&d) - t);
            queued--;
        }
        must(sq_close(&q), "sq_close");
        strata_sim_stats(d.sim, &s1);
        strata_report_num(r, "%.0f", sizes[k]);
        strata_report_num(r, "%.0f", counts[k]);
        strata_report_num(r, "%.2f", acc_mean(&put));
        strata_report_num(r, "%.2f", put.max);
        strata_report_num(r, "%.2f", acc_mean(&get));
        strata_report_num(r, "%.2f", get.max);
        strata_report_num(r, "%.0f", (double)(s1.erases - s0.erases));
        bdev_free(&d);
    }
    strata_report_note(r, "Every enqueue appends in place (Coffee's fast path); a segment is "
                          "removed (one flag) when its last packet is dequeued; garbage "
                          "collection reclaims whole sectors when the device fills (the "
                          "enqueue max of the 20,000-packet row is one 2 s m25p80 erase). "
                          "Paper: under 4 ms per 100-byte packet.");
}

void examples(struct strata_report *r)
{
    routing(r);
    queue(r);
    segments(r);
}

void footprint(struct strata_report *r)
{
    static const char *const cols[] = {"structure", "host bytes (x86-64)", "what"};
    strata_report_table(r, "RAM (host build; see docs/fs.md for Cortex-M0+ sizes)", cols, 3);
    strata_report_text(r, "struct strata_fs");
    strata_report_num(r, "%.0f", (double)sizeof(struct strata_fs));
    strata_report_text(r, "context: configuration copy, geometry, sequence, free-page hint, cache "
                          "of 8, names filter");
    strata_report_text(r, "struct strata_fs_file");
    strata_report_num(r, "%.0f", (double)sizeof(struct strata_fs_file));
    strata_report_text(r, "one open file, whatever its size");
    strata_report_text(r, "scratch buffer");
    strata_report_num(r, "%.0f", 256.0);
    strata_report_text(r, "given in the configuration (>= 64 B; one page here)");
}
