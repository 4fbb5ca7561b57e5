/*
 * bench_btree: VMTree's Section 5 on the paper's devices (sd-spi and at45db161 behind the SAMD21,
 * 512 B pages; nand-pic24 through the NAND layer, 2,048 B pages), and the comparison users make: 100,000
 * random inserts with 3 page buffers against the reference code's page writes. Device time and
 * energy come from the simulator's profiles; page reads and writes from the tree's counters.
 * Data: the paper's random set (4 B key, 16 B record, fixed seed) and the real hourly series
 * of ../shared/data indexed by temperature (value + record id, 8 B entries, duplicates).
 * Writes <out>/btree.md and btree.json.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_args.h"
#include "report.h"

static const char *const vnames[3] = {"B-tree", "VMTree", "VMTree-OW"};

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * (a - b) / b : 0;
}

static void log_run(const char *what, const struct bconf *c, const struct bres *r)
{
    fprintf(stderr, "  %-28s %-10s %-9s M=%u L%u: %.2f s, %llu writes, %llu reads, %s (%.1f s host)\n",
            what, c->profile, vnames[c->variant], c->buffers, c->wbuf_pages, r->ins_s,
            (unsigned long long)r->ins_writes, (unsigned long long)r->ins_reads,
            r->rc ? strata_strerror(r->rc) : "ok", r->host_s);
}

static void num_or_fail(struct strata_report *rep, const char *fmt, double v, int rc)
{
    if (rc != 0)
        strata_report_text(rep, "%s", strata_strerror(rc));
    else
        strata_report_num(rep, fmt, v);
}

/* ---- Section 5.1 and 5.2: variants x devices x write buffer ------------------------------------ */

static const struct {
    const char *profile;
    uint32_t units;
} devices[] = {{"sd-spi", 8192}, {"at45db161", 4096}, {"sd-spi-pic24", 4096}, {"nand-pic24", 64}};
#define NDEV BENCH_NDEV

static int supported(const char *profile, unsigned variant)
{
    if (strcmp(profile, "nand-pic24") == 0) /* raw NAND: no in-place or overwrite programs */
        return variant == STRATA_BTREE_VMTREE;
    return !(variant == STRATA_BTREE_OW && strncmp(profile, "sd-spi", 6) == 0);
}

/* What the plots need from the sections: [workload][device][write buffer pages][variant]. */
static struct bres sec_res[WL_COUNT][NDEV][5][3];

static void section(struct strata_report *rep, enum wl_kind wl, const uint8_t *levels,
                    unsigned nlevels, const char *title)
{
    static const char *const cols[] = {"device", "variant", "write buffer", "insert time (s)",
                                       "inserts/s", "page writes", "page reads", "erases",
                                       "energy (J)", "vs B-tree time", "query time (s)",
                                       "query page reads"};
    struct bres base[NDEV][8];
    unsigned d, v, l;
    strata_report_table(rep, title, cols, sizeof cols / sizeof cols[0]);
    for (d = 0; d < NDEV; d++)
        for (l = 0; l < nlevels; l++)
            for (v = 0; v < 3; v++) {
                struct bconf c = {devices[d].profile, devices[d].units, v, 3, 256, levels[l], 0};
                struct bres r;
                if (!supported(c.profile, v))
                    continue;
                bench_run(&c, wl, 10000, 10000, &r);
                log_run(wl_names[wl], &c, &r);
                sec_res[wl][d][levels[l]][v] = r;
                if (v == 0)
                    base[d][l] = r;
                strata_report_text(rep, "%s", c.profile);
                strata_report_text(rep, "%s", vnames[v]);
                if (levels[l] == 0)
                    strata_report_text(rep, "%s", "none");
                else
                    strata_report_text(rep, "%u page%s", levels[l], levels[l] > 1 ? "s" : "");
                num_or_fail(rep, "%.2f", r.ins_s, r.rc);
                num_or_fail(rep, "%.0f", r.ins_s > 0 ? 10000.0 / r.ins_s : 0, r.rc);
                strata_report_num(rep, "%.0f", (double)r.ins_writes);
                strata_report_num(rep, "%.0f", (double)r.ins_reads);
                strata_report_num(rep, "%.0f", (double)r.ins_erases);
                strata_report_num(rep, "%.2f", r.ins_j);
                if (v == 0)
                    strata_report_text(rep, "%s", "—");
                else if (!supported(c.profile, 0)) /* NAND: against the B-tree on the PIC's SD */
                    strata_report_text(rep, "%+.0f %% (B-tree sd-spi-pic24)",
                                       pct(r.ins_s, base[d - 1u][l].ins_s));
                else
                    strata_report_text(rep, "%+.0f %%", pct(r.ins_s, base[d][l].ins_s));
                num_or_fail(rep, "%.2f", r.q_s, r.rc);
                strata_report_num(rep, "%.0f", (double)r.q_reads);
            }
}

/* The SD card's sequential writes are cheaper than random ones in the profile (500 against
 * 215 kB/s): VMTree's head writes in order, the B-tree's slots anywhere. The paper saw no such
 * gain (its bus, not the card, set the pace): the same run with both at the sequential cost. */
static void sensitivity(struct strata_report *rep)
{
    static const char *const cols[] = {"SD model", "variant", "insert time (s)", "vs B-tree",
                                       "page writes", "page reads"};
    static const char *const prof[2] = {"sd-spi", "sd-spi-flat"};
    unsigned p, v;
    strata_report_table(rep, "Sensitivity: random writes as cheap as sequential ones on the SD "
                             "card (10,000 random inserts, M = 3)",
                        cols, sizeof cols / sizeof cols[0]);
    for (p = 0; p < 2; p++) {
        double bt = 0;
        for (v = 0; v < 2; v++) {
            struct bconf c = {prof[p], 8192, v, 3, 256, 0, 0};
            struct bres r;
            bench_run(&c, WL_RANDOM, 10000, 0, &r);
            log_run("sensitivity", &c, &r);
            if (v == 0)
                bt = r.ins_s;
            strata_report_text(rep, "%s", p ? "random = sequential (500 kB/s)" : "profile (215 / 500 kB/s)");
            strata_report_text(rep, "%s", vnames[v]);
            num_or_fail(rep, "%.2f", r.ins_s, r.rc);
            strata_report_text(rep, "%+.1f %%", v ? pct(r.ins_s, bt) : 0.0);
            strata_report_num(rep, "%.0f", (double)r.ins_writes);
            strata_report_num(rep, "%.0f", (double)r.ins_reads);
        }
    }
    strata_report_note(rep, "With random writes as cheap as sequential ones VMTree is within a few "
                            "per cent of the B-tree, as the paper measured: its I/O counts are "
                            "within 2-3 %% of the B-tree's (a page write per update either way); "
                            "the headline gap is the profile's sequential-write bonus.");
}

/* ---- Section 5.3: page buffers against a write buffer ------------------------------------------ */

static void memory_use(struct strata_report *rep)
{
    static const char *const cols[] = {"data", "variant", "memory", "insert time (s)",
                                       "vs 3 buffers", "page reads", "query time (s)",
                                       "query page reads"};
    static const uint8_t bufs[] = {3, 4, 6, 8, 10};
    enum wl_kind wls[2] = {WL_RANDOM, WL_TEMP_GSO};
    unsigned w, v, b;
    strata_report_table(rep, "§5.3 memory: page buffers M = 3..10 against a one-page write buffer "
                             "(log1) with M = 3, sd-spi, 10,000 inserts then 10,000 lookups",
                        cols, sizeof cols / sizeof cols[0]);
    for (w = 0; w < 2; w++)
        for (v = 0; v < 2; v++) {
            double t3 = 0;
            for (b = 0; b <= sizeof bufs; b++) {
                struct bconf c = {"sd-spi", 8192, v, b < sizeof bufs ? bufs[b] : 3, 256,
                                  b < sizeof bufs ? 0 : 1, 0};
                struct bres r;
                bench_run(&c, wls[w], 10000, 10000, &r);
                log_run("memory", &c, &r);
                if (b == 0)
                    t3 = r.ins_s;
                strata_report_text(rep, "%s", w ? "temperature" : "random");
                strata_report_text(rep, "%s", vnames[v]);
                if (b < sizeof bufs)
                    strata_report_text(rep, "M = %u", c.buffers);
                else
                    strata_report_text(rep, "%s", "M = 3 + log1");
                num_or_fail(rep, "%.2f", r.ins_s, r.rc);
                strata_report_text(rep, "%+.0f %%", pct(r.ins_s, t3));
                strata_report_num(rep, "%.0f", (double)r.ins_reads);
                num_or_fail(rep, "%.2f", r.q_s, r.rc);
                strata_report_num(rep, "%.0f", (double)r.q_reads);
            }
        }
    strata_report_note(rep, "Paper §5.3: more page buffers raise B-tree write throughput 5-25 %% "
                            "(random) and under 5 %% (temperature), VMTree 3-14 %%; a write buffer "
                            "helps far more, above all for temperature; four buffers hold a whole "
                            "root-to-leaf path, which is what read throughput gains from.");
}

/* ---- Section 5.4: 100,000 records ---------------------------------------------------------------- */

static void data_size(struct strata_report *rep)
{
    static const char *const cols[] = {"data", "variant", "region (pages)", "time @10k (s)",
                                       "@25k", "@50k", "@100k", "page writes", "passes",
                                       "mapping table peak", "reductions", "vs B-tree @100k"};
    enum wl_kind wls[2] = {WL_RANDOM, WL_TEMP_GSO};
    static const uint32_t units[2] = {16384, 5000};
    unsigned w, v;
    strata_report_table(rep, "§5.4 data size: 100,000 records, M = 4, mapping table 4 KB "
                             "(1,024 entries), sd-spi",
                        cols, sizeof cols / sizeof cols[0]);
    for (w = 0; w < 2; w++) {
        double bt = 0;
        for (v = 0; v < 2; v++) {
            struct bconf c = {"sd-spi", units[w] * (v == 0 ? 2u : 1u), v, 4, 1024, 0, 0};
            struct bres r;
            unsigned k;
            bench_run(&c, wls[w], 100000, 0, &r);
            log_run("100k", &c, &r);
            if (v == 0)
                bt = r.ins_s;
            strata_report_text(rep, "%s", w ? "temperature" : "random");
            strata_report_text(rep, "%s", vnames[v]);
            strata_report_num(rep, "%.0f", (double)units[w]);
            for (k = 0; k < 4; k++)
                num_or_fail(rep, "%.1f", r.at[k], r.at[k] > 0 ? 0 : r.rc ? r.rc : STRATA_ENOSPC);
            strata_report_num(rep, "%.0f", (double)r.ins_writes);
            strata_report_num(rep, "%.1f", (double)r.ins_writes / units[w]);
            strata_report_num(rep, "%.0f", (double)r.map_peak);
            strata_report_num(rep, "%.0f", (double)r.reductions);
            if (v == 0)
                strata_report_text(rep, "%s", "—");
            else
                strata_report_text(rep, "%+.0f %%", pct(r.ins_s, bt));
        }
    }
    strata_report_note(rep, "Paper §5.4 (5,000 pages, M = 4, 4 KB table): VMTree performed over "
                            "135,000 writes, 27 passes through storage; random data: within 1 %% of "
                            "the B-tree at 10,000 records, the B-tree 22 %% faster at 100,000 (the "
                            "table near full); temperature: the table 20 %% full, almost no "
                            "difference. 100,000 random 20 B records do not fit 5,000 pages of 512 B "
                            "at a B-tree's fill factor (they need about 5,700 leaves), so random "
                            "runs on 16,384 pages here; temperature (8 B entries) on 5,000. The "
                            "B-tree's region is twice as many pages (two slots per node). Passes = "
                            "page writes / region pages.");
}

/* ---- the comparable workload ------------------------------------------------------------------- */

static void comparable(struct strata_report *rep)
{
    enum wl_kind wls[3] = {WL_RANDOM, WL_SEQUENTIAL, WL_TEMP_SEA};
    static const char *const tag[3] = {"", " (sequential keys)", " (Seattle)"};
    static const char *const cols[] = {"variant", "device", "write buffer", "page writes",
                                       "reference code page writes", "page reads", "device time (s)",
                                       "energy (J)", "bytes programmed", "write amplification",
                                       "RAM (B)"};
    unsigned v, l;
    unsigned w;
    strata_report_table(rep, "The comparable workload: 100,000 inserts (4 B key, 16 B record), 3 "
                             "page buffers, 512 B pages: random keys, time-ordered keys, and the "
                             "Seattle series by value (8 B entries)",
                        cols, sizeof cols / sizeof cols[0]);
    for (w = 0; w < 3; w++)
    for (l = 0; l < 2; l++)
        for (v = 0; v < 2; v++) {
            struct bconf c = {"sd-spi", v == 0 ? 32768u : 16384u, v, 3, 1024, (uint8_t)l, 0};
            struct bres r;
            double rec = w == 2 ? 8.0 : 20.0;
            bench_run(&c, wls[w], 100000, 0, &r);
            log_run("comparable", &c, &r);
            strata_report_text(rep, "%s%s", vnames[v], tag[w]);
            strata_report_text(rep, "%s", c.profile);
            strata_report_text(rep, "%s", l ? "1 page" : "none");
            num_or_fail(rep, "%.0f", (double)r.ins_writes, r.rc);
            strata_report_text(rep, "%s", w != 0 ? "—" : l ? "19,146 (not every write)" : "112,897");
            strata_report_num(rep, "%.0f", (double)r.ins_reads);
            num_or_fail(rep, "%.1f", r.ins_s, r.rc);
            strata_report_num(rep, "%.1f", r.ins_j);
            strata_report_num(rep, "%.0f", (double)r.ins_prog_bytes);
            /* the physical limit: each record's 20 bytes programmed once */
            strata_report_num(rep, "%.1f", (double)r.ins_prog_bytes / (100000.0 * rec));
            strata_report_num(rep, "%.0f", (double)r.ram);
        }
    strata_report_note(rep, "Write amplification = bytes programmed / (100,000 x record bytes), "
                            "the physical limit being each record's bytes written once; a page "
                            "write per insert at 512 B pages is 25.6 for 20 B records. Without a "
                            "write buffer ours writes as many pages as the reference code (about "
                            "1.1 per insert). Its 19,146 with one page of write buffer is not a "
                            "count of every page write: the next table runs its own test and "
                            "gives the lower bound. With time-ordered keys (a timestamp index) a "
                            "batch fills the rightmost leaf at once; the Seattle rows "
                            "show batching on clustered values (the reference repository's test "
                            "series).");
}

/* ---- the reference code's own test ------------------------------------------------------------ */

/* Expected number of distinct leaves that batches of b uniformly spread keys touch, summed over
 * the n / b batches of n inserts, when the tree holds every leaf full (cap entries: the fewest
 * leaves, hence the fewest distinct ones). A batch applied per leaf writes each leaf it touches
 * at least once, so this is a lower bound on the leaf writes of any batching B-tree. */
static double batch_leaf_bound(uint32_t n, uint32_t b, uint32_t cap)
{
    double sum = 0;
    uint32_t i;
    for (i = 0; i + b <= n; i += b) {
        double leaves = (double)i / cap < 1.0 ? 1.0 : (double)i / cap;
        sum += leaves * (1.0 - pow(1.0 - 1.0 / leaves, (double)b));
    }
    return sum;
}

static void reference_test(struct strata_report *rep)
{
    static const char *const cols[] = {"variant", "write buffer", "page writes (every program)",
                                       "reference code figure", "page reads", "device time (s)"};
    unsigned v, l;
    strata_report_table(rep, "The reference code's own test: 100,000 keys from its generator (a "
                             "permutation of 0..99,999), 16 B records (4 B key, 12 B data), M = 3, "
                             "512 B pages, sd-spi; write buffer none or 32 operations (the "
                             "reference's one page of 16 B records)",
                        cols, sizeof cols / sizeof cols[0]);
    for (l = 0; l < 2; l++)
        for (v = 0; v < 2; v++) {
            struct bconf c = {"sd-spi", v == 0 ? 32768u : 16384u, v, 3, 1024, (uint8_t)l,
                              (uint16_t)(l ? 32u : 0u)};
            struct bres r;
            bench_run(&c, WL_REFKEYS, 100000, 0, &r);
            log_run("reference test", &c, &r);
            strata_report_text(rep, "%s", vnames[v]);
            strata_report_text(rep, "%s", l ? "32 operations" : "none");
            num_or_fail(rep, "%.0f", (double)r.ins_writes, r.rc);
            strata_report_text(rep, "%s", l ? "19,146" : "112,897");
            strata_report_num(rep, "%.0f", (double)r.ins_reads);
            num_or_fail(rep, "%.1f", r.ins_s, r.rc);
        }
    strata_report_note(rep, "Lower bound for this workload with a 32-operation buffer: %.0f leaf "
                            "writes (expected distinct leaves a sorted batch of 32 keys touches, "
                            "summed over the 3,125 batches, with every leaf full at the reference's "
                            "31 records per 512 B leaf; any batching B-tree writes each touched "
                            "leaf once). 19,146 page writes are 6.1 per batch, which 32 uniformly "
                            "spread keys reach only in a tree of about 6 leaves; 100,000 such "
                            "records need at least 3,226. The reference's counter 'Num writes' "
                            "counts pages written to a new place only: in-place writes (its B-tree "
                            "mode's leaf updates) go to 'Num overwrites'. See docs/btree.md.",
                       batch_leaf_bound(100000, 32, 31));
}

int main(int argc, char **argv)
{
    static const uint8_t levels5_1[] = {0, 1, 4};
    static const uint8_t levels5_2[] = {0, 1};
    const char *out = NULL;
    struct strata_report *rep;
    int rc;
    if (strata_bench_args(argc, argv, "bench_btree", "", &out, NULL, 0) != STRATA_BENCH_ARGS_OK)
        return 2;
    if ((rc = bench_load_data()) != 0) {
        fprintf(stderr, "bench_btree: cannot load the data series: %s\n", strata_strerror(rc));
        return 1;
    }
    rep = strata_report_new("btree", "strata_btree: VMTree (Section 5) on the simulated devices");
    strata_report_note(rep, "10,000 records inserted then 10,000 lookups of inserted keys, M = 3 "
                            "page buffers, mapping table 1 KB (256 entries), 512 B pages (the "
                            "paper's SAMD21 setup). Device time from the profiles (sd-spi: 500 kB/s "
                            "sequential, 215 kB/s random writes; at45db161: 2 ms program, 12 ms page "
                            "erase). nand-pic24: VMTree on raw NAND through the shared NAND layer (BCH-4 ECC), 2,048 B "
                            "pages (the paper's PIC24 setup), 64 blocks; the paper runs neither "
                            "B-tree nor VMTree-OW there (no in-place page writes on NAND), and "
                            "compares it with the SD card on the same PIC24 (Figure 7): "
                            "sd-spi-pic24 is sd-spi with 2,048 B pages at the paper's PIC24 SD "
                            "rates (198/194 kB/s read, 108/93 kB/s write).");
    section(rep, WL_RANDOM, levels5_1, sizeof levels5_1,
            "§5.1 random data: 10,000 inserts (4 B key, 16 B record), write buffer none / 1 page "
            "(L1) / 4 pages (L4)");
    strata_report_note(rep, "Paper §5.1: on the SD card VMTree is within 3 %% of the B-tree (time "
                            "and I/O); VMTree-OW 8 %% slower there (here refused: an FTL cannot "
                            "overwrite, a torn 512 B write would lose the node); on DataFlash "
                            "VMTree about 2 %% slower than the B-tree and VMTree-OW four times "
                            "faster; a write buffer improves every variant; query reads are the "
                            "same for all, VMTree-OW's queries 10-20 %% slower (CPU: linear search; "
                            "device time only here). Our DataFlash B-tree erases before each "
                            "write (15 ms), as the paper's in-place B-tree does; VMTree writes "
                            "pre-erased pages in its first pass.");
    section(rep, WL_TEMP_GSO, levels5_2, sizeof levels5_2,
            "§5.2 sensor data: 10,000 Greensboro hourly temperatures indexed by value (value + "
            "record id, 8 B), write buffer none / 1 page");
    strata_report_note(rep, "Paper §5.2: batching with one write buffer cuts I/O and time by "
                            "63-72 %% for every variant (temperature changes slowly: runs of inserts "
                            "land in one leaf); on DataFlash VMTree-OW is four times faster than the "
                            "B-tree and VMTree faster than the B-tree (pre-erased pages). The "
                            "8,760-row series is replayed for 10,000 records (the index does not use "
                            "timestamps).");
    section(rep, WL_TEMP_SEA, levels5_2, sizeof levels5_2,
            "§5.2 sensor data, second series: 10,000 Seattle 2010 hourly temperatures (°F)");
    sensitivity(rep);
    memory_use(rep);
    data_size(rep);
    comparable(rep);
    reference_test(rep);
    btree_plots(rep, sec_res);
    rc = strata_report_write(rep, out, stdout);
    strata_report_free(rep);
    return rc == 0 ? 0 : 1;
}
