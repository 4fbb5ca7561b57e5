/*
 * bench_nand: what the NAND layer costs.
 *  1. ECC per codeword (512 main bytes + the OOB and check word a profile puts beside them):
 *     host time to encode, to decode clean, with 1 and t errors, to refuse t+1, the check word,
 *     and an erased codeword's zero count.
 *  2. The encoder choices: BCH one bit at a time (no table), four bits (the layer's 128/256 B
 *     tables), eight bits (2/4 KiB tables); Hamming without and with a 256 B table.
 *  3. Miscorrection beyond the strength: how often the code alone decodes t+1.. errors into
 *     wrong data, and how often the check word lets such a result through.
 *  4. Through the layer on each NAND profile: simulated device time of page and region
 *     programs and reads (the region calls move fewer bytes), the layer's host CPU time beside a
 *     raw page access, and the mount scan per block.
 * Host times are this machine's (gcc -O2 release build); Cortex-M0 instruction counts come from
 * the targets' QEMU runs (docs/nand.md says where they stand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ecc_variants.h"
#include "nand_internal.h"
#include "bench_args.h"
#include "report.h"
#include "rng.h"
#include "strata/crc.h"
#include "strata/sim.h"

/* CPU time of this thread: other processes sharing the machine do not inflate it. Each figure
 * is the best of several runs (the least disturbed). */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define RUNS 5

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    return strata_rand_below(&rng_state, n);
}

/* ---- one codeword of a codec ---------------------------------------------------------------- */

struct codec {
    const char *name;
    enum strata_nand_ecc ecc;
    uint32_t t, tail; /* OOB + check word bytes, as the profile's layout has them */
    uint32_t ecc_bits;
};

static const struct codec codecs[] = {
    {"Hamming (k9f1g08, nand-pic24)", STRATA_NAND_ECC_HAMMING, 1, 12, 15},
    {"BCH-4 (mt29f4g08)", STRATA_NAND_ECC_BCH4, 4, 7, 53},
    {"BCH-8 (2048+128 B part)", STRATA_NAND_ECC_BCH8, 8, 16, 105},
};

struct cw {
    uint8_t data[512], tail[32], ecc[STRATA_NAND_MAX_ECC_BYTES];
};

static void encode(const struct codec *c, struct cw *w)
{
    struct nand_ecc_state st;
    memset(w->ecc, 0, sizeof w->ecc);
    nand_ecc_start(&st);
    nand_ecc_feed(c->ecc, &st, w->data, 512);
    nand_ecc_feed(c->ecc, &st, w->tail, c->tail);
    nand_ecc_finish(c->ecc, &st, w->ecc);
}

static int correct(const struct codec *c, struct cw *w)
{
    struct nand_ecc_state st;
    nand_ecc_start(&st);
    nand_ecc_feed(c->ecc, &st, w->data, 512);
    nand_ecc_feed(c->ecc, &st, w->tail, c->tail);
    return nand_ecc_correct(c->ecc, &st, w->data, 512, w->tail, c->tail, w->ecc);
}

/* The check word as the layer computes it (codeword.c): CRC-16 over main + OOB, never 0xFFFF. */
static uint32_t check_word(const struct codec *c, const struct cw *w)
{
    uint16_t crc = strata_crc16(strata_crc16(0, w->data, 512), w->tail, c->tail - 2);
    return crc == 0xFFFFu ? 0u : crc;
}

static void random_codeword(const struct codec *c, struct cw *w)
{
    uint32_t i, chk;
    for (i = 0; i < 512; i++)
        w->data[i] = (uint8_t)rnd(256);
    for (i = 0; i + 2 < c->tail; i++)
        w->tail[i] = (uint8_t)rnd(256);
    chk = check_word(c, w);
    w->tail[c->tail - 2] = (uint8_t)chk;
    w->tail[c->tail - 1] = (uint8_t)(chk >> 8);
    encode(c, w);
}

static void flip(const struct codec *c, struct cw *w, uint32_t k)
{
    uint32_t msg = 8 * (512 + c->tail), bit;
    uint8_t *byte;
    if (k < msg)
        byte = k / 8 < 512 ? &w->data[k / 8] : &w->tail[k / 8 - 512];
    else
        byte = &w->ecc[(k -= msg) / 8];
    bit = c->ecc == STRATA_NAND_ECC_HAMMING ? k % 8 : 7 - k % 8;
    *byte ^= (uint8_t)(1u << bit);
}

static void flip_n(const struct codec *c, struct cw *w, uint32_t n)
{
    uint32_t picked[24], i, j, bits = 8 * (512 + c->tail) + c->ecc_bits;
    for (i = 0; i < n; i++) {
        int again;
        do {
            picked[i] = rnd(bits);
            for (again = 0, j = 0; j < i; j++)
                again |= picked[j] == picked[i];
        } while (again);
        flip(c, w, picked[i]);
    }
}

/* ---- 1. ECC cost ----------------------------------------------------------------------------- */

/* Mean ns of decoding a codeword with `errors` random errors: a batch of damaged copies is made
 * first, and the time of copying one (measured alone) is taken off. Best of RUNS. */
static double decode_ns(const struct codec *c, const struct cw *ref, uint32_t errors, uint32_t n)
{
    static struct cw batch[64], work;
    double best = 1e30, copy = 1e30, t0;
    uint32_t i, run;
    int sink = 0;
    for (i = 0; i < 64; i++) {
        batch[i] = *ref;
        flip_n(c, &batch[i], errors);
    }
    for (run = 0; run < RUNS; run++) {
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            work = batch[i % 64];
            sink += work.data[i % 512];
        }
        copy = now_ns() - t0 < copy ? now_ns() - t0 : copy;
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            work = batch[i % 64];
            sink += correct(c, &work);
        }
        best = now_ns() - t0 < best ? now_ns() - t0 : best;
    }
    if (sink == 12345)
        printf(" ");
    return (best - copy) / n;
}

/* Best-of-RUNS mean ns of `body` over n iterations (i is the loop variable). */
#define TIME_NS(out, n, body)                                                                    \
    do {                                                                                         \
        uint32_t run_;                                                                           \
        (out) = 1e30;                                                                            \
        for (run_ = 0; run_ < RUNS; run_++) {                                                    \
            double t0_ = now_ns(), d_;                                                           \
            for (i = 0; i < (n); i++) {                                                          \
                body;                                                                            \
            }                                                                                    \
            d_ = (now_ns() - t0_) / (n);                                                         \
            (out) = d_ < (out) ? d_ : (out);                                                     \
        }                                                                                        \
    } while (0)

static void ecc_costs(struct strata_report *r)
{
    static const char *const cols[] = {"code", "message B", "ECC B", "encode ns", "decode clean ns",
                                       "decode 1 error ns", "decode t errors ns",
                                       "refuse t+1 ns", "check word ns", "erased check ns"};
    size_t k;
    strata_report_table(r, "1. ECC per 512-byte codeword (host, release build)", cols, 10);
    for (k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        const struct codec *c = &codecs[k];
        struct cw w, x;
        uint8_t ff[600];
        double enc, chk, zero;
        uint32_t i, n = c->t == 8 ? 400 : 4000, z = 0;
        random_codeword(c, &w);
        TIME_NS(enc, 5000u, (w.data[i % 512] ^= 1, encode(c, &w)));
        random_codeword(c, &w);
        TIME_NS(chk, 5000u, (w.data[i % 512] ^= 1, z += check_word(c, &w)));
        memset(ff, 0xFF, sizeof ff);
        /* at most one zero bit: a full pass */
        TIME_NS(zero, 5000u, (ff[i % 512] = (uint8_t)(0xFF ^ (i & 1u)),
                              z += nand_zero_bits(ff, 512 + c->tail + c->ecc_bits / 8, 0, c->t)));
        random_codeword(c, &w);
        x = w;
        strata_report_text(r, "%s", c->name);
        strata_report_num(r, "%.0f", 512.0 + c->tail);
        strata_report_num(r, "%.0f", (double)nand_ecc_bytes(c->ecc));
        strata_report_num(r, "%.0f", enc);
        strata_report_num(r, "%.0f", decode_ns(c, &x, 0, n));
        strata_report_num(r, "%.0f", decode_ns(c, &x, 1, n));
        strata_report_num(r, "%.0f", decode_ns(c, &x, c->t, n / 4));
        strata_report_num(r, "%.0f", decode_ns(c, &x, c->t + 1, n / 4));
        strata_report_num(r, "%.0f", chk);
        strata_report_num(r, "%.0f", zero + (z == 1 ? 1e-9 : 0.0));
    }
    strata_report_note(r, "Decode: the syndrome pass over the codeword (the same LFSR as the "
                          "encoder); with errors, Berlekamp-Massey and a Chien search over the "
                          "4,2xx positions (Hamming: the syndrome names the bit). Refusing t+1 "
                          "errors costs a full Chien search. The check word is CRC-16 over main "
                          "+ OOB; an erased codeword's zero count is a full pass (programmed "
                          "data stops it within the first bytes).");
}

/* ---- 2. encoder choices --------------------------------------------------------------------- */

static void encode_once(int which, uint32_t t, const uint32_t *byte_table,
                        const uint8_t *ham_table, uint8_t *msg, uint32_t len, uint8_t *ecc,
                        uint32_t i);

static double time_encoder(int which, uint32_t t, const uint32_t *byte_table,
                           const uint8_t *ham_table, uint8_t *msg, uint32_t len, uint8_t *ecc)
{
    uint32_t i;
    double best;
    TIME_NS(best, 3000u, encode_once(which, t, byte_table, ham_table, msg, len, ecc, i));
    return best;
}

static void encode_once(int which, uint32_t t, const uint32_t *byte_table,
                        const uint8_t *ham_table, uint8_t *msg, uint32_t len, uint8_t *ecc,
                        uint32_t i)
{
    {
        struct nand_ecc_state st;
        msg[i % len] ^= 1;
        switch (which) {
        case 0:
            variant_bch_bitwise(t, msg, len, ecc);
            break;
        case 1:
            nand_ecc_start(&st);
            nand_bch_feed(t, &st, msg, len);
            nand_bch_finish(t, &st, ecc);
            break;
        case 2:
            variant_bch_bytewise(t, byte_table, msg, len, ecc);
            break;
        case 3:
            nand_ecc_start(&st);
            nand_hamming_feed(&st, msg, len);
            nand_hamming_finish(&st, ecc);
            break;
        default:
            variant_hamming_tabled(ham_table, msg, len, ecc);
            break;
        }
    }
}

/* All variants must give the layer's bytes, or the comparison is void. */
static int variants_agree(const uint32_t *bt4, const uint32_t *bt8, const uint8_t *ht)
{
    uint8_t msg[519], a[16], b[16];
    uint32_t i, t;
    for (i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)rnd(256);
    for (t = 4; t <= 8; t += 4) {
        struct nand_ecc_state st;
        memset(a, 0, sizeof a);
        nand_ecc_start(&st);
        nand_bch_feed(t, &st, msg, sizeof msg);
        nand_bch_finish(t, &st, a);
        memset(b, 0, sizeof b);
        variant_bch_bitwise(t, msg, sizeof msg, b);
        if (memcmp(a, b, 14) != 0)
            return 0;
        memset(b, 0, sizeof b);
        variant_bch_bytewise(t, t == 4 ? bt4 : bt8, msg, sizeof msg, b);
        if (memcmp(a, b, 14) != 0)
            return 0;
    }
    {
        struct nand_ecc_state st;
        nand_ecc_start(&st);
        nand_hamming_feed(&st, msg, sizeof msg);
        nand_hamming_finish(&st, a);
        variant_hamming_tabled(ht, msg, sizeof msg, b);
        return memcmp(a, b, 2) == 0;
    }
}

/* The rows of table 2: which encoder (time_encoder's `which`), its table, a note. */
struct choice {
    const char *name;
    int which;
    uint32_t t;
    double table_bytes;
    const char *note;
};

static const struct choice choices[] = {
    {"BCH-4, 1 bit at a time", 0, 4, 0, "table-free: only g(x)"},
    {"BCH-4, 4 bits at a time (layer)", 1, 4, 16 * 2 * 4, "16 remainders of 64 bits, ROM"},
    {"BCH-4, 8 bits at a time", 2, 4, 256 * 2 * 4, "256 remainders, ROM or built into RAM"},
    {"BCH-8, 1 bit at a time", 0, 8, 0, "table-free"},
    {"BCH-8, 4 bits at a time (layer)", 1, 8, 16 * 4 * 4, "16 remainders of 128 bits"},
    {"BCH-8, 8 bits at a time", 2, 8, 256 * 4 * 4, "256 remainders of 128 bits"},
    {"Hamming, folded (layer)", 3, 0, 0, "XOR of bytes + odd-parity row indices"},
    {"Hamming, 256 B table", 4, 0, 256, "parity and bit index per byte"},
};

static void encoder_choices(struct strata_report *r)
{
    static const char *const cols[] = {"encoder", "table bytes", "encode ns per 512 B + OOB",
                                       "note"};
    static uint32_t bt4[256 * 2], bt8[256 * 4];
    static uint8_t ht[256], msg[519], ecc[16];
    uint32_t i;
    variant_bch_byte_table(4, bt4);
    variant_bch_byte_table(8, bt8);
    variant_hamming_table(ht);
    if (!variants_agree(bt4, bt8, ht)) {
        fprintf(stderr, "bench_nand: an encoder variant disagrees with the layer\n");
        exit(1);
    }
    for (i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)rnd(256);
    strata_report_table(r, "2. Encoder choices (host; every variant gives the layer's bytes)",
                        cols, 4);
    for (i = 0; i < sizeof choices / sizeof choices[0]; i++) {
        const struct choice *c = &choices[i];
        strata_report_text(r, "%s", c->name);
        strata_report_num(r, "%.0f", c->table_bytes);
        strata_report_num(r, "%.0f", time_encoder(c->which, c->t, c->t == 8 ? bt8 : bt4, ht, msg,
                                                  sizeof msg, ecc));
        strata_report_text(r, "%s", c->note);
    }
    strata_report_note(r, "GF(2^13) multiplication in the decoder is table-free (13 shift-and-add "
                          "steps); log/antilog tables would cost 2 x 8192 x 2 B = 32 KiB of ROM. "
                          "Code sizes of these variants on Cortex-M0+: docs/nand.md.");
}

/* ---- 3. miscorrection ---------------------------------------------------------------------- */

static void miscorrection(struct strata_report *r)
{
    static const char *const cols[] = {"code", "errors", "trials", "detected by the code",
                                       "decoded to wrong data", "rate", "passed the check word"};
    size_t k;
    strata_report_table(r, "3. Errors beyond the strength (random bit positions over message "
                           "and ECC)", cols, 7);
    for (k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        const struct codec *c = &codecs[k];
        uint32_t extra;
        for (extra = 1; extra <= 4; extra++) {
            uint32_t trials = c->t == 8 ? 3000 : 30000, i, detected = 0, wrong = 0, silent = 0;
            for (i = 0; i < trials; i++) {
                struct cw ref, w;
                uint32_t chk;
                random_codeword(c, &ref);
                w = ref;
                flip_n(c, &w, c->t + extra);
                if (correct(c, &w) < 0) {
                    detected++;
                    continue;
                }
                if (memcmp(w.data, ref.data, 512) == 0 && memcmp(w.tail, ref.tail, c->tail) == 0)
                    continue; /* only ECC bits were wrong: corrected right */
                wrong++;
                chk = (uint32_t)w.tail[c->tail - 2] | (uint32_t)w.tail[c->tail - 1] << 8;
                silent += chk == check_word(c, &w);
            }
            strata_report_text(r, "%s", c->name);
            strata_report_num(r, "%.0f", (double)(c->t + extra));
            strata_report_num(r, "%.0f", trials);
            strata_report_num(r, "%.0f", detected);
            strata_report_num(r, "%.0f", wrong);
            strata_report_num(r, "%.4f", (double)wrong / trials);
            strata_report_num(r, "%.0f", silent);
        }
    }
    strata_report_note(r, "t+1 errors are never decoded (the extended codes have distance "
                          "2t+2). Beyond that the code alone can land on another codeword; the "
                          "check word (CRC-16) lets about 1 in 65,536 of those through, so the "
                          "expected silent rate is the miscorrection rate / 65,536 per codeword "
                          "read with that many errors.");
}

/* ---- 4. through the layer -------------------------------------------------------------------- */

static const char *const profiles[] = {"tc58dvg02", "mt29f4g08", "k9f1g08", "nand-pic24"};

struct layer_run {
    struct strata_sim *sim;
    const struct strata_flash *f;
    struct strata_nand nand;
    uint32_t ppb;
    uint8_t buf[2048 + 64], data[2048], spare[64], oob[64];
    uint16_t bad[32];
};

static double device_us(struct strata_sim *sim, const struct strata_sim_stats *before)
{
    struct strata_sim_stats after;
    strata_sim_stats(sim, &after);
    return (double)(after.time_ps - before->time_ps) / 1e6;
}

/* Device time of one call, in microseconds; the call's result must be >= 0. */
#define DEVICE_US(L, call)                                                                       \
    do {                                                                                         \
        struct strata_sim_stats s_;                                                              \
        strata_sim_stats((L)->sim, &s_);                                                         \
        if ((call) < 0) {                                                                        \
            fprintf(stderr, "bench_nand: %s failed\n", #call);                                   \
            exit(1);                                                                             \
        }                                                                                        \
        strata_report_num(r, "%.1f", device_us((L)->sim, &s_));                                  \
    } while (0)

/* Host ns per page program and per page read, through the layer minus raw: the layer's CPU. */
static void layer_cpu(struct strata_report *r, struct layer_run *L, uint32_t blocks)
{
    uint32_t p, n = blocks * L->ppb, rounds = 1000, i;
    double t0, layer_prog, raw_prog, layer_read, raw_read;
    t0 = now_ns();
    for (p = 0; p < n; p++)
        strata_nand_prog(&L->nand, 2 * L->ppb + p, L->data, L->oob);
    layer_prog = now_ns() - t0;
    t0 = now_ns();
    for (p = 0; p < n; p++)
        strata_flash_page_prog(L->f, 130 * L->ppb + p, L->data, L->spare);
    raw_prog = now_ns() - t0;
    TIME_NS(layer_read, rounds,
            strata_nand_read(&L->nand, 2 * L->ppb + i % n, L->data, L->oob, NULL));
    TIME_NS(raw_read, rounds,
            strata_flash_page_read(L->f, 130 * L->ppb + i % n, L->data, L->spare));
    strata_report_num(r, "%.0f", layer_read - raw_read);
    strata_report_num(r, "%.0f", (layer_prog - raw_prog) / n);
}

static void layer_costs(struct strata_report *r)
{
    static const char *const cols[] = {"profile", "raw page program us", "raw page read us",
                                       "page program us", "page read us", "region program us",
                                       "region read us", "layer CPU per page read ns",
                                       "layer CPU per page program ns", "mount scan us per block"};
    static struct layer_run L;
    size_t k;
    strata_report_table(r, "4. Through the layer (simulated device time per call; the layer's "
                           "host CPU time beside a raw page access)", cols, 10);
    for (k = 0; k < sizeof profiles / sizeof profiles[0]; k++) {
        struct strata_sim_config cfg;
        struct strata_nand_config nc;
        struct strata_sim_stats s;
        uint32_t i, reg, raw;
        double scan;
        memset(&cfg, 0, sizeof cfg);
        cfg.profile = strata_sim_profile_find(profiles[k]);
        cfg.erase_count = 256;
        cfg.seed = 1;
        L.sim = strata_sim_new(&cfg);
        L.f = strata_sim_flash(L.sim);
        L.ppb = L.f->geo.erase_size / L.f->geo.page_size;
        memset(&nc, 0, sizeof nc);
        nc.flash = L.f;
        nc.buf = L.buf;
        nc.buf_size = L.f->geo.page_size + L.f->geo.spare_size;
        nc.block_count = 128; /* the layer on the first half, raw accesses on the second */
        nc.bad_list = L.bad; /* the scan asks for every block */
        nc.bad_list_len = 32;
        strata_sim_stats(L.sim, &s);
        if (!L.sim || strata_nand_mount(&L.nand, &nc) != 0) {
            fprintf(stderr, "bench_nand: mount failed on %s\n", profiles[k]);
            exit(1);
        }
        scan = device_us(L.sim, &s) / 128.0;
        for (i = 0; i < L.f->geo.page_size; i++)
            L.data[i] = (uint8_t)rnd(256);
        for (i = 0; i < sizeof L.oob; i++)
            L.spare[i] = L.oob[i] = (uint8_t)rnd(256);
        reg = strata_nand_layout(&L.nand)->regions > 1 ? 1 : 0;
        /* raw accesses on the first good block past the layer's half (the simulator's factory
         * bad blocks may include block 128) */
        for (raw = 128; raw + 1u < L.f->geo.erase_count && strata_flash_is_bad(L.f, raw) != 0; raw++)
            continue;
        /* only mark_bad() may program the bad-block marker bytes (flash.h) */
        memset(L.spare + L.f->geo.bbm_offset, 0xFF, L.f->geo.bbm_len);
        strata_report_text(r, "%s", profiles[k]);
        DEVICE_US(&L, strata_flash_page_prog(L.f, raw * L.ppb, L.data, L.spare));
        DEVICE_US(&L, strata_flash_page_read(L.f, raw * L.ppb, L.data, L.spare));
        DEVICE_US(&L, strata_nand_prog(&L.nand, 0, L.data, L.oob));
        DEVICE_US(&L, strata_nand_read(&L.nand, 0, L.data, L.oob, NULL));
        DEVICE_US(&L, strata_nand_prog_region(&L.nand, 1, reg, L.data, L.oob));
        DEVICE_US(&L, strata_nand_read_region(&L.nand, 1, reg, L.data, L.oob, NULL));
        layer_cpu(r, &L, 4);
        strata_report_num(r, "%.1f", scan);
        strata_sim_free(L.sim);
    }
    strata_report_note(r, "Region calls (one 512 B region and its spare region) read the region's "
                          "bytes and the spare as two transfers and program the page with 0xFF "
                          "outside the region; on tc58dvg02 a region is the whole page. The mount "
                          "scan asks the device whether each block is bad (two marker reads).");
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    struct strata_report *r;
    if (strata_bench_args(argc, argv, "bench_nand", "", &out, NULL, 0) != STRATA_BENCH_ARGS_OK)
        return 2;
    r = strata_report_new("nand", "NAND layer: ECC, layout and device costs");
    strata_report_note(r, "What the shared NAND layer (src/nand) costs: CPU per codeword, the "
                          "encoder choices behind its ROM figure, how often errors beyond the "
                          "strength would pass, and device time per call on each NAND profile.");
    ecc_costs(r);
    encoder_choices(r);
    miscorrection(r);
    layer_costs(r);
    if (strata_report_write(r, out, stdout) != 0)
        return 1;
    strata_report_free(r);
    return 0;
}
