/*
 * The ECC codecs on their own (src/nand internals): the field arithmetic, the generated BCH
 * tables against a recomputation, exhaustive single-bit errors over message and ECC bits, random
 * patterns up to the strength, t+1 errors always detected, and the raw codec's miscorrection
 * rate beyond that (which the layer's check word then catches: test_nand_layer.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "nand_internal.h"
#include "nandtest.h"
#include "strata/crc.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the check word's CRC-16 ---------------------------------------------------------------- */

static void crc16_known_values(void **state)
{
    static const char digits[] = "123456789";
    uint8_t buf[600];
    uint32_t i, j;
    (void)state;
    assert_int_equal(strata_crc16(0, digits, 9), 0xD64E); /* CRC-16/GENIBUS check value */
    assert_int_equal(strata_crc16(strata_crc16(0, digits, 4), digits + 4, 5), 0xD64E);
    /* every 1-, 2- and 3-bit error in a 519-byte message changes it (sampled for 3 bits) */
    nt_fill(buf, sizeof buf, 99);
    for (i = 0; i < 8 * 519; i++) {
        uint16_t good = strata_crc16(0, buf, 519), bad;
        buf[i / 8] ^= (uint8_t)(1u << (i % 8));
        bad = strata_crc16(0, buf, 519);
        for (j = i + 1; j < 8 * 519; j += 211) {
            buf[j / 8] ^= (uint8_t)(1u << (j % 8));
            assert_int_not_equal(strata_crc16(0, buf, 519), good);
            buf[(j * 7 + 3) % 519] ^= 0x10;
            if ((j * 7 + 3) % 519 != j / 8 && (j * 7 + 3) % 519 != i / 8)
                assert_int_not_equal(strata_crc16(0, buf, 519), good);
            buf[(j * 7 + 3) % 519] ^= 0x10;
            buf[j / 8] ^= (uint8_t)(1u << (j % 8));
        }
        assert_int_not_equal(bad, good);
        buf[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
}

/* ---- GF(2^13) -------------------------------------------------------------------------------- */

static void gf_inverse_of_every_element(void **state)
{
    uint32_t a;
    (void)state;
    for (a = 1; a <= NAND_GF_ORDER; a++)
        assert_int_equal(nand_gf_mul(a, nand_gf_inv(a)), 1);
}

static void gf_alpha_has_full_order(void **state)
{
    uint32_t a = 1, i;
    (void)state;
    for (i = 1; i <= NAND_GF_ORDER; i++) {
        uint32_t prev = a;
        a = nand_gf_mul_alpha(a);
        assert_int_equal(nand_gf_div_alpha(a), prev);
        if (a == 1)
            break;
    }
    assert_int_equal(i, NAND_GF_ORDER); /* the polynomial is primitive */
    for (a = 1; a < 0x2000u; a++)
        assert_int_equal(nand_gf_div_alpha(nand_gf_mul_alpha(a)), a);
}

/* ---- the BCH tables against g(x) recomputed here --------------------------------------------- */

/* Polynomials over GF(2) up to degree 127 as bit arrays (bit i = x^i). */
struct poly128 {
    uint8_t c[128];
};

static void minimal_poly(uint32_t j, uint32_t *coef, uint32_t *deg)
{
    /* product of (x + alpha^(j 2^k)) over the conjugates of alpha^j, GF coefficients */
    uint32_t e = j % NAND_GF_ORDER, conj[16], n = 0, k, i, a;
    do {
        conj[n++] = e;
        e = 2u * e % NAND_GF_ORDER;
    } while (e != conj[0]);
    memset(coef, 0, 16 * sizeof *coef);
    coef[0] = 1;
    for (k = 0; k < n; k++) {
        uint32_t root = 1;
        for (a = 0; a < conj[k]; a++)
            root = nand_gf_mul_alpha(root);
        for (i = k + 1; i > 0; i--)
            coef[i] = coef[i - 1] ^ nand_gf_mul(coef[i], root);
        coef[0] = nand_gf_mul(coef[0], root);
    }
    *deg = n;
}

static void generator(uint32_t t, struct poly128 *g)
{
    uint32_t j, i, k, coef[16], deg, seen[16], nseen = 0;
    struct poly128 r;
    memset(g, 0, sizeof *g);
    g->c[0] = 1;
    for (j = 1; j < 2 * t; j += 2) {
        int dup = 0;
        uint32_t e = j;
        for (k = 0; k < 13; k++, e = 2 * e % NAND_GF_ORDER)
            for (i = 0; i < nseen; i++)
                dup |= seen[i] == e;
        if (dup)
            continue;
        seen[nseen++] = j;
        minimal_poly(j, coef, &deg);
        assert_int_equal(deg, 13);
        memset(&r, 0, sizeof r);
        for (i = 0; i <= deg; i++) {
            assert_true(coef[i] <= 1); /* a minimal polynomial has binary coefficients */
            for (k = 0; coef[i] && k + i < 128; k++)
                r.c[k + i] ^= g->c[k];
        }
        *g = r;
    }
}

static void bch_tables_match_generator(void **state)
{
    static const uint32_t ts[] = {4, 8};
    size_t n;
    (void)state;
    for (n = 0; n < COUNT(ts); n++) {
        uint32_t t = ts[n], mt = 13 * t, words = (mt + 31) / 32, v, i, k;
        const uint32_t *table = t == 4 ? nand_bch4_table : nand_bch8_table;
        struct poly128 g;
        generator(t, &g);
        for (i = mt + 1; i < 128; i++)
            assert_int_equal(g.c[i], 0);
        assert_int_equal(g.c[mt], 1);
        for (v = 0; v < 16; v++) {
            /* v(x) x^mt mod g(x), by long division */
            uint8_t r[128] = {0};
            for (i = 0; i < 4; i++)
                r[mt + i] = (uint8_t)(v >> i & 1u);
            for (i = mt + 3; i >= mt; i--)
                if (r[i])
                    for (k = 0; k <= mt; k++)
                        r[i - mt + k] ^= g.c[k];
            for (i = 0; i < mt; i++) {
                uint32_t q = mt - 1 - i; /* bit q of the left-aligned words is x^i */
                assert_int_equal(table[v * words + q / 32] >> (31 - q % 32) & 1u, r[i]);
            }
        }
    }
}

/* ---- codewords ------------------------------------------------------------------------------ */

struct codec_case {
    enum strata_nand_ecc ecc;
    uint32_t t, data_len, tail_len, ecc_bits;
};

static const struct codec_case cases[] = {
    {STRATA_NAND_ECC_HAMMING, 1, 512, 13, 15}, /* tc58dvg02: 11 OOB bytes + check word */
    {STRATA_NAND_ECC_HAMMING, 1, 512, 12, 15}, /* k9f1g08 */
    {STRATA_NAND_ECC_HAMMING, 1, 256, 8, 15},
    {STRATA_NAND_ECC_HAMMING, 1, 1015, 8, 15}, /* the largest message: 1023 bytes */
    {STRATA_NAND_ECC_BCH4, 4, 512, 7, 53},     /* mt29f4g08: 5 OOB bytes + check word */
    {STRATA_NAND_ECC_BCH8, 8, 512, 16, 105},
    {STRATA_NAND_ECC_BCH8, 8, 1000, 10, 105},  /* near the longest BCH-8 codeword */
};

struct cw {
    const struct codec_case *cc;
    uint8_t data[1024], tail[32], ecc[STRATA_NAND_MAX_ECC_BYTES];
};

static uint32_t cw_bits(const struct cw *w)
{
    return 8 * (w->cc->data_len + w->cc->tail_len) + w->cc->ecc_bits;
}

/* Flip codeword bit k: message bits first (as the codec numbers them: Hamming from each byte's
 * least significant bit, BCH from the most significant), then the ECC bits in use. */
static void cw_flip(struct cw *w, uint32_t k)
{
    uint32_t msg = 8 * (w->cc->data_len + w->cc->tail_len);
    uint8_t *byte;
    uint32_t bit;
    if (k < msg) {
        byte = k / 8 < w->cc->data_len ? &w->data[k / 8] : &w->tail[k / 8 - w->cc->data_len];
        bit = w->cc->ecc == STRATA_NAND_ECC_HAMMING ? k % 8 : 7 - k % 8;
    } else {
        k -= msg;
        byte = &w->ecc[k / 8];
        bit = w->cc->ecc == STRATA_NAND_ECC_HAMMING ? k % 8 : 7 - k % 8;
    }
    *byte ^= (uint8_t)(1u << bit);
}

static void cw_encode(struct cw *w, struct ts_rng *rng)
{
    struct nand_ecc_state st;
    uint32_t i;
    for (i = 0; i < w->cc->data_len; i++)
        w->data[i] = (uint8_t)ts_rng_next(rng);
    for (i = 0; i < w->cc->tail_len; i++)
        w->tail[i] = (uint8_t)ts_rng_next(rng);
    memset(w->ecc, 0, sizeof w->ecc);
    nand_ecc_start(&st);
    nand_ecc_feed(w->cc->ecc, &st, w->data, w->cc->data_len);
    nand_ecc_feed(w->cc->ecc, &st, w->tail, w->cc->tail_len);
    nand_ecc_finish(w->cc->ecc, &st, w->ecc);
}

static int cw_correct(struct cw *w)
{
    struct nand_ecc_state st;
    nand_ecc_start(&st);
    nand_ecc_feed(w->cc->ecc, &st, w->data, w->cc->data_len);
    nand_ecc_feed(w->cc->ecc, &st, w->tail, w->cc->tail_len);
    return nand_ecc_correct(w->cc->ecc, &st, w->data, w->cc->data_len, w->tail, w->cc->tail_len,
                            w->ecc);
}

static int cw_equal(const struct cw *a, const struct cw *b)
{
    return memcmp(a->data, b->data, a->cc->data_len) == 0 &&
           memcmp(a->tail, b->tail, a->cc->tail_len) == 0 &&
           memcmp(a->ecc, b->ecc, (a->cc->ecc_bits + 7) / 8) == 0;
}

/* Flip n distinct random bits. */
static void flip_random(struct cw *w, uint32_t n, struct ts_rng *rng)
{
    uint32_t picked[24], i, j;
    for (i = 0; i < n; i++) {
        int again;
        do {
            picked[i] = ts_rng_below(rng, cw_bits(w));
            for (again = 0, j = 0; j < i; j++)
                again |= picked[j] == picked[i];
        } while (again);
        cw_flip(w, picked[i]);
    }
}

static void clean_codeword_decodes_clean(void **state)
{
    size_t n;
    struct ts_rng rng;
    (void)state;
    ts_rng_seed(&rng, 1);
    for (n = 0; n < COUNT(cases); n++) {
        struct cw w, ref;
        w.cc = &cases[n];
        cw_encode(&w, &rng);
        ref = w;
        assert_int_equal(cw_correct(&w), 0);
        assert_true(cw_equal(&w, &ref));
        /* padding bits beyond the code are not the codec's business */
        assert_int_equal(nand_ecc_bytes(w.cc->ecc), (w.cc->ecc_bits + 7) / 8);
    }
}

static void every_single_bit_error_corrected(void **state)
{
    size_t n;
    struct ts_rng rng;
    (void)state;
    ts_rng_seed(&rng, 2);
    for (n = 0; n < COUNT(cases); n++) {
        struct cw ref, w;
        uint32_t k;
        ref.cc = &cases[n];
        cw_encode(&ref, &rng);
        for (k = 0; k < cw_bits(&ref); k++) {
            w = ref;
            cw_flip(&w, k);
            if (cw_correct(&w) != 1 || !cw_equal(&w, &ref))
                fail_msg("codec %d (%u B): bit %u not corrected", (int)ref.cc->ecc,
                         (unsigned)ref.cc->data_len, (unsigned)k);
        }
    }
}

static void random_errors_up_to_strength_corrected(void **state)
{
    size_t n;
    struct ts_rng rng;
    (void)state;
    ts_rng_seed(&rng, 3);
    for (n = 0; n < COUNT(cases); n++) {
        uint32_t e, i, trials = (uint32_t)ts_scale(cases[n].t == 8 ? 60 : 300, 20);
        for (e = 2; e <= cases[n].t; e++) {
            for (i = 0; i < trials; i++) {
                struct cw ref, w;
                ref.cc = &cases[n];
                cw_encode(&ref, &rng);
                w = ref;
                flip_random(&w, e, &rng);
                if (cw_correct(&w) != (int)e || !cw_equal(&w, &ref))
                    fail_msg("codec %d: %u errors not corrected", (int)ref.cc->ecc, (unsigned)e);
            }
        }
    }
}

/* The extended codes have distance 2t+2: t+1 errors are never decoded into a codeword. */
static void strength_plus_one_always_detected(void **state)
{
    size_t n;
    struct ts_rng rng;
    (void)state;
    ts_rng_seed(&rng, 4);
    for (n = 0; n < COUNT(cases); n++) {
        uint32_t i, trials = (uint32_t)ts_scale(cases[n].t == 8 ? 120 : 800, 20);
        for (i = 0; i < trials; i++) {
            struct cw ref, w, before;
            ref.cc = &cases[n];
            cw_encode(&ref, &rng);
            w = ref;
            flip_random(&w, cases[n].t + 1, &rng);
            before = w;
            if (cw_correct(&w) != STRATA_EECC)
                fail_msg("codec %d: %u errors not detected (trial %u)", (int)ref.cc->ecc,
                         (unsigned)cases[n].t + 1, (unsigned)i);
            assert_true(cw_equal(&w, &before)); /* a refused codeword is left as read */
        }
    }
}

/* Beyond t+1 the raw codec may decode into another codeword: measure how often (the layer's
 * check word is what catches these; test_nand_layer.c proves that end to end). Whatever it
 * returns must be honest: a success leaves a valid codeword, a refusal changes nothing. */
static void beyond_strength_miscorrection_rate(void **state)
{
    size_t n;
    struct ts_rng rng;
    (void)state;
    ts_rng_seed(&rng, 5);
    for (n = 0; n < COUNT(cases); n++) {
        /* a failed BCH-8 decode can cost a full Chien search: fewer trials here, the long
         * measurement is bench_nand's */
        uint32_t extra, trials = (uint32_t)ts_scale(cases[n].t == 8 ? 60 : 500, 20);
        for (extra = 2; extra <= 4; extra++) {
            uint32_t i, wrong = 0, e = cases[n].t + extra;
            for (i = 0; i < trials; i++) {
                struct cw ref, w, before;
                int rc;
                ref.cc = &cases[n];
                cw_encode(&ref, &rng);
                w = ref;
                flip_random(&w, e, &rng);
                before = w;
                rc = cw_correct(&w);
                if (rc == STRATA_EECC) {
                    assert_true(cw_equal(&w, &before));
                    continue;
                }
                assert_true(rc >= 0 && rc <= (int)cases[n].t); /* 0: the errors form a codeword */
                assert_false(cw_equal(&w, &ref)); /* more than t errors cannot decode right */
                assert_int_equal(cw_correct(&w), 0); /* it landed on a codeword */
                wrong++;
            }
            printf("# codec %d, %u B + %u B: %u errors miscorrected in %u of %u (%.3f%%)\n",
                   (int)cases[n].ecc, (unsigned)cases[n].data_len, (unsigned)cases[n].tail_len,
                   (unsigned)e, (unsigned)wrong, (unsigned)trials, 100.0 * wrong / trials);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc16_known_values),
        cmocka_unit_test(gf_inverse_of_every_element),
        cmocka_unit_test(gf_alpha_has_full_order),
        cmocka_unit_test(bch_tables_match_generator),
        cmocka_unit_test(clean_codeword_decodes_clean),
        cmocka_unit_test(every_single_bit_error_corrected),
        cmocka_unit_test(random_errors_up_to_strength_corrected),
        cmocka_unit_test(strength_plus_one_always_detected),
        cmocka_unit_test(beyond_strength_miscorrection_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
