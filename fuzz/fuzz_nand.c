/*
 * Fuzz target: the shared NAND layer (src/nand) reading damaged pages. Input: nand_glue.h (a
 * configuration, then a script of programs, region programs, bit flips put straight into the
 * cells, reads, erases, remounts and retirements). Seeds: fuzz/seeds_nand.c.
 *
 * What must hold (include/strata/nand.h, docs/format-nand.md), with t the layout's strength and
 * f the bits flipped in the page since it was programmed (main and spare; flips in bytes no
 * codeword covers count too, so f bounds every codeword's errors from above):
 *  - a read returns a status or STRATA_EECC, nothing else; info.failed is set exactly with
 *    STRATA_EECC; ERASED (and every region info.erased names) reads as 0xFF;
 *  - f <= t: the read succeeds with the bytes programmed (0xFF for regions never programmed),
 *    ERASED exactly when no region of it was programmed; on a whole programmed page without
 *    read noise, info.corrected <= f, CLEAN exactly when nothing was corrected, WEAK exactly
 *    when a codeword needed scrub_threshold or more corrections;
 *  - f = t + 1: the extended codes detect it: STRATA_EECC or the bytes programmed, never other
 *    bytes (with f > t + 1 only a check-word collision, 1 in 65,536, could pass: not checked);
 *  - bad blocks: is_bad() says bad for every factory-bad block and every block the layer
 *    retired (a failed erase retires its block at once), also after a remount;
 *  - nothing outside the layer's blocks changes (a guard block before and after).
 * With the simulator's on-die ECC (STRATA_SIM_OPT_HW_ECC: the layer's CAP_HW_ECC path, no
 * software ECC, only the check word) the device corrects the errors it makes itself (its bit
 * errors and read noise, up to the part's strength per codeword), but a bit flipped in the cells
 * is stored data to it: the layer can only detect it. So there t = 0: a page without flips
 * reads exactly, one with a flip reads STRATA_EECC or the bytes programmed (erased codewords
 * keep the layout's zero-bit tolerance).
 * The simulator's own bit errors and weak cells are off unless the configuration picks them;
 * they and read noise (read_flip_rate) add flips the script did not make: then EECC is always
 * allowed. Program and erase status failures stay on (a failed program leaves its page
 * unknown, a failed erase retires its block).
 * STRATA_FUZZ_TRACE=1 prints the layout and every read with its result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "nand_glue.h"
#include "strata/nand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FLIPS 64u
#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static const char *const profiles[] = {"tc58dvg02", "mt29f4g08", "k9f1g08", "nand-pic24"};
/* 0xFF: keep the part's value; strengths above 8 and odd steps must be refused at mount */
static const uint8_t strengths[] = {0xFF, 0, 1, 2, 4, 5, 8, 9};
static const uint16_t steps[] = {0xFFFF, 256, 512, 1024, 2048, 0, 300};
static const uint16_t regions[][2] = {{0xFFFF, 0xFFFF}, {0, 0}, {512, 16}, {1024, 32}, {256, 8}};
static const uint8_t markers[][2] = {{0xFF, 0xFF}, {0, 1}, {5, 1}, {0, 2}, {14, 2}};
static const uint8_t scrubs[] = {0, 1, 2, 3, 4, 8, 9};
static const uint8_t rereads[] = {0, 1, 2, 8, 9};
static const uint32_t bads[] = {0, 0, 1, 2};
static const uint32_t wears[] = {0, 0, 2, 4};
/* read noise: none, transient flips at a rate, or the simulator's whole NAND realism (raw bit
 * errors growing with wear and reads, weak cells). */
#define REALISM (-1.0)
static const double noises[] = {0, 0, 0, 1e-6, 1e-5, REALISM};
/* spare bytes per page: the part's, parts made for stronger ECC (BCH-8 needs more than 16 B per
 * 512 B), and too little for any layout */
static const uint16_t spares[] = {0xFFFF, 0xFFFF, 128, 224, 8};

struct page_m {
    uint8_t seed, kind, unknown, closed; /* closed: damaged, never programmed again */
    uint32_t programmed;                 /* bit r: region r programmed */
    uint16_t nflips;
    uint32_t flips[MAX_FLIPS];           /* bits flipped an odd number of times */
};

struct st {
    struct strata_sim_profile prof;
    struct strata_sim *sim;
    const struct strata_flash *f;
    struct strata_nand nand;
    struct strata_nand_config cfg;
    const struct strata_nand_layout *lay;
    uint8_t *buf, map[1];
    uint16_t list[16];
    uint8_t *want, *got, *oob_want, *oob_got;
    uint32_t ppb, ps, ss, next[NG_BLOCKS], guard_hash[2];
    uint8_t retired[NG_BLOCKS], noise, trace, hw; /* hw: the device's on-die ECC */
    uint8_t marker_hit[NG_BLOCKS]; /* the script's flips made the simulator read the marker bad */
    struct page_m pages[NG_BLOCKS][NG_PAGES];
};

static uint8_t pattern(uint8_t kind, uint8_t seed, uint32_t i)
{
    switch (kind % 4u) {
    case 0: return (uint8_t)(seed * 31u + i * 7u + (i >> 8));
    case 1: return 0xFF;
    case 2: return 0x00;
    default: return seed;
    }
}

static uint32_t dev_page(const struct st *s, uint32_t block, uint32_t idx)
{
    return (1u + block) * s->ppb + idx;
}

/* FNV over a guard block's main and spare bytes. */
static uint32_t guard_hash(const struct st *s, uint32_t unit)
{
    uint32_t h = 2166136261u, p, i;
    for (p = 0; p < s->ppb; p++) {
        strata_sim_peek(s->sim, (unit * s->ppb + p) * s->ps, s->got, s->ps);
        strata_sim_peek_spare(s->sim, unit * s->ppb + p, s->got + s->ps);
        for (i = 0; i < s->ps + s->ss; i++)
            h = (h ^ s->got[i]) * 16777619u;
    }
    return h;
}

static int all_ff(const uint8_t *p, uint32_t n)
{
    while (n > 0)
        if (p[--n] != 0xFF)
            return 0;
    return 1;
}

static int setup(struct st *s, struct fz_in *in)
{
    uint8_t c[NG_FIELDS];
    struct strata_sim_config sc;
    struct strata_flash_geometry *g = &s->prof.geo;
    fz_take(in, c, NG_FIELDS);
    s->prof = *strata_sim_profile_find(profiles[c[NG_PROFILE] % COUNT(profiles)]);
    if (strengths[c[NG_STRENGTH] % COUNT(strengths)] != 0xFF)
        g->ecc_strength = strengths[c[NG_STRENGTH] % COUNT(strengths)];
    if (steps[c[NG_STEP] % COUNT(steps)] != 0xFFFF)
        g->ecc_step = steps[c[NG_STEP] % COUNT(steps)];
    if (regions[c[NG_REGIONS] % COUNT(regions)][0] != 0xFFFF) {
        g->prog_region = regions[c[NG_REGIONS] % COUNT(regions)][0];
        g->spare_region = regions[c[NG_REGIONS] % COUNT(regions)][1];
    }
    if (markers[c[NG_MARKER] % COUNT(markers)][0] != 0xFF) {
        g->bbm_offset = markers[c[NG_MARKER] % COUNT(markers)][0];
        g->bbm_len = markers[c[NG_MARKER] % COUNT(markers)][1];
    }
    if (spares[c[NG_SPARE] % COUNT(spares)] != 0xFFFF)
        g->spare_size = spares[c[NG_SPARE] % COUNT(spares)] * (g->page_size / 512u) / 4u;
    memset(&sc, 0, sizeof sc);
    sc.profile = &s->prof;
    sc.erase_count = NG_BLOCKS + 2u;
    sc.seed = c[NG_BAD];
    sc.factory_bad = bads[c[NG_BAD] % COUNT(bads)];
    sc.wear_limit = wears[c[NG_WEAR] % COUNT(wears)];
    sc.wear_spread = sc.wear_limit ? c[NG_WEAR] % 3u : 0u;
    sc.read_flip_rate = noises[c[NG_NOISE] % COUNT(noises)];
    /* the bits the script flips are the only persistent errors, unless realism is chosen */
    sc.options = STRATA_SIM_OPT_NO_BIT_ERRORS | STRATA_SIM_OPT_NO_WEAK_CELLS;
    if (sc.read_flip_rate == REALISM)
        sc.options = 0;
    if (c[NG_HWECC] & 1u)
        sc.options |= STRATA_SIM_OPT_HW_ECC;
    s->hw = (uint8_t)(c[NG_HWECC] & 1u);
    s->noise = sc.read_flip_rate != 0;
    if (sc.read_flip_rate < 0)
        sc.read_flip_rate = 0;
    s->trace = getenv("STRATA_FUZZ_TRACE") != NULL;
    if ((s->sim = strata_sim_new(&sc)) == NULL)
        return -1; /* a geometry the simulator refuses */
    s->f = strata_sim_flash(s->sim);
    s->ppb = g->erase_size / g->page_size;
    s->ps = g->page_size;
    s->ss = g->spare_size;
    s->buf = malloc(s->ps + s->ss);
    s->want = malloc(s->ps + s->ss);
    s->got = malloc(s->ps + s->ss);
    s->oob_want = malloc(s->ss);
    s->oob_got = malloc(s->ss);
    if (!s->buf || !s->want || !s->got || !s->oob_want || !s->oob_got)
        fz_fail("out of memory");
    s->guard_hash[0] = guard_hash(s, 0);
    s->guard_hash[1] = guard_hash(s, NG_BLOCKS + 1u);
    s->cfg.flash = s->f;
    s->cfg.first_block = 1;
    s->cfg.block_count = NG_BLOCKS;
    s->cfg.buf = s->buf;
    s->cfg.buf_size = c[NG_BUFFER] % 2u ? s->ss : s->ps + s->ss;
    if (c[NG_TABLE] % 4u == 1u)
        s->cfg.bad_map = s->map;
    else if (c[NG_TABLE] % 4u >= 2u) {
        s->cfg.bad_list = s->list;
        s->cfg.bad_list_len = c[NG_TABLE] % 4u == 2u ? 1 : 16;
    }
    s->cfg.scrub_threshold = scrubs[c[NG_SCRUB] % COUNT(scrubs)];
    s->cfg.rereads = rereads[c[NG_REREADS] % COUNT(rereads)];
    return 0;
}

/* A block the script may use: the layer says good (a retired or factory-bad block must read
 * bad; a good one may read bad too, when damage or the layer's own spare bytes reach the bytes
 * the simulator reads as the marker) and the simulator has not marked it bad. A marker the
 * script's flips damaged after the mount's scan is the device's business until the next mount:
 * the layer's table need not know it (NAND-1 was this case). */
static int usable(struct st *s, uint32_t b)
{
    int bad = strata_nand_is_bad(&s->nand, b);
    int sim_bad = strata_sim_unit_is_bad(s->sim, 1u + b);
    if (bad < 0 || ((s->retired[b] || (sim_bad && !s->marker_hit[b])) && bad != 1))
        fz_fail("nand: is_bad(%u) = %d for a block %s", (unsigned)b, bad,
                s->retired[b] ? "the layer retired" : "marked bad");
    return !bad && !sim_bad && !s->retired[b];
}

static int mount(struct st *s)
{
    uint32_t b;
    int rc = strata_nand_mount(&s->nand, &s->cfg);
    if (s->trace && rc != 0)
        fprintf(stderr, "mount: %d\n", rc);
    if (rc == STRATA_EINVAL || rc == STRATA_EDEVICE)
        return -1; /* a configuration or geometry the layer refuses */
    if (rc != 0)
        fz_fail("nand: mount returned %d", rc);
    s->lay = strata_nand_layout(&s->nand);
    if (s->trace)
        fprintf(stderr, "mount: ecc %u strength %u step %u, %u regions, oob %u\n",
                (unsigned)s->lay->ecc, (unsigned)s->lay->strength, (unsigned)s->lay->ecc_step,
                (unsigned)s->lay->regions, (unsigned)s->lay->oob_page);
    memset(s->marker_hit, 0, sizeof s->marker_hit); /* the scan has read every marker */
    for (b = 0; b < NG_BLOCKS; b++)
        usable(s, b);
    return 0;
}

/* The engine-level bytes of region r (or of every region with r = -1) the model expects. */
static void expect(const struct st *s, const struct page_m *m, int r, uint8_t *data,
                   uint8_t *oob)
{
    uint32_t rs = s->lay->region_size, os = s->lay->oob_region, i;
    uint32_t from = r < 0 ? 0 : (uint32_t)r, to = r < 0 ? s->lay->regions : from + 1u;
    for (i = from * rs; i < to * rs; i++)
        data[i - from * rs] = m->programmed >> (i / rs) & 1u ? pattern(m->kind, m->seed, i) : 0xFF;
    for (i = from * os; i < to * os; i++)
        oob[i - from * os] =
            m->programmed >> (i / os) & 1u ? pattern(m->kind, (uint8_t)(m->seed ^ 0x5A), i) : 0xFF;
}

/* Check one read (of region r, or of the whole page with r = -1) against the model. */
static void check_read(struct st *s, const struct page_m *m, int r, int rc,
                       const struct strata_nand_read_info *info)
{
    uint32_t t = s->hw ? 0u : s->lay->strength, f = m->nflips, n, on, all, mask, erased_want;
    n = r < 0 ? s->lay->page_size : s->lay->region_size;
    on = r < 0 ? s->lay->oob_page : s->lay->oob_region;
    all = s->lay->regions >= 32u ? 0xFFFFFFFFu : (1u << s->lay->regions) - 1u;
    mask = r < 0 ? all : 1u << r;
    erased_want = ~m->programmed & mask;
    if (!((rc >= STRATA_NAND_CLEAN && rc <= STRATA_NAND_ERASED) || rc == STRATA_EECC))
        fz_fail("nand: a read returned %d", rc);
    if ((rc == STRATA_EECC) != (info->failed != 0))
        fz_fail("nand: read %d with failed regions 0x%x", rc, (unsigned)info->failed);
    if (rc == STRATA_NAND_ERASED && (!all_ff(s->got, n) || !all_ff(s->oob_got, on)))
        fz_fail("nand: a page read as erased returns bytes other than 0xFF");
    if (m->unknown || f > t + 1u)
        return;
    if (rc == STRATA_EECC) {
        if (f <= t && !s->noise)
            fz_fail("nand: %u flipped bits (strength %u) read as uncorrectable", (unsigned)f,
                    (unsigned)t);
        return;
    }
    expect(s, m, r, s->want, s->oob_want);
    if (memcmp(s->got, s->want, n) != 0 || memcmp(s->oob_got, s->oob_want, on) != 0)
        fz_fail("nand: %u flipped bits (strength %u) read back as other bytes (status %d)",
                (unsigned)f, (unsigned)t, rc);
    if ((rc == STRATA_NAND_ERASED) != (erased_want == mask) || (info->erased & mask) != erased_want)
        fz_fail("nand: status %d, erased 0x%x; programmed regions 0x%x", rc,
                (unsigned)info->erased, (unsigned)m->programmed);
    if (f > t || s->noise || erased_want != 0)
        return;
    if (info->corrected > f || (rc == STRATA_NAND_CLEAN) != (info->corrected == 0) ||
        (rc == STRATA_NAND_WEAK) != (info->corrected >= s->lay->scrub_threshold))
        fz_fail("nand: status %d with %u corrected of %u flipped (scrub threshold %u)", rc,
                (unsigned)info->corrected, (unsigned)f, (unsigned)s->lay->scrub_threshold);
}

static struct page_m *pick(struct st *s, struct fz_in *in, uint32_t *block, uint32_t *idx)
{
    *block = fz_below(in, NG_BLOCKS);
    *idx = fz_below(in, NG_PAGES);
    return &s->pages[*block][*idx];
}

static void prog_result(struct page_m *m, uint32_t block, int rc)
{
    if (rc == STRATA_EBADBLOCK) {
        m->unknown = 1; /* the page is undefined; an engine moves the block's data, retires it */
        return;
    }
    if (rc != 0)
        fz_fail("nand: a program of block %u returned %d", (unsigned)block, rc);
}

static void op_prog(struct st *s, struct fz_in *in)
{
    uint32_t b = fz_below(in, NG_BLOCKS), idx = s->next[b] + fz_below(in, 3), i;
    uint8_t kind = fz_u8(in), seed = fz_u8(in);
    struct page_m *m;
    if (idx >= NG_PAGES || !usable(s, b))
        return;
    m = &s->pages[b][idx];
    s->next[b] = idx + 1u;
    m->kind = kind;
    m->seed = seed;
    m->programmed = s->lay->regions >= 32u ? 0xFFFFFFFFu : (1u << s->lay->regions) - 1u;
    for (i = 0; i < s->ps; i++)
        s->want[i] = pattern(kind, seed, i);
    for (i = 0; i < s->lay->oob_page; i++)
        s->oob_want[i] = pattern(kind, (uint8_t)(seed ^ 0x5A), i);
    prog_result(m, b, strata_nand_prog(&s->nand, b * s->ppb + idx, s->want,
                                          s->oob_want));
}

static void op_prog_region(struct st *s, struct fz_in *in)
{
    uint32_t b, idx, r, i, rs = s->lay->region_size, os = s->lay->oob_region;
    struct page_m *m = pick(s, in, &b, &idx);
    uint8_t kind = fz_u8(in), seed = fz_u8(in);
    int rc;
    r = fz_u8(in) % s->lay->regions;
    if (idx + 1u < s->next[b] || m->closed || m->unknown || m->programmed >> r & 1u ||
        !usable(s, b))
        return; /* pages in ascending order, each region once, never over damage */
    if (m->programmed == 0) {
        m->kind = kind;
        m->seed = seed;
    }
    for (i = 0; i < rs; i++)
        s->want[i] = pattern(m->kind, m->seed, r * rs + i);
    for (i = 0; i < os; i++)
        s->oob_want[i] = pattern(m->kind, (uint8_t)(m->seed ^ 0x5A), r * os + i);
    rc = strata_nand_prog_region(&s->nand, b * s->ppb + idx, r, s->want, s->oob_want);
    if (rc == STRATA_ENOMEM && s->lay->regions > 1u && s->cfg.buf_size < s->ps + s->ss)
        return; /* region programs need the page part of the buffer */
    s->next[b] = idx + 1u;
    m->programmed |= 1u << r;
    prog_result(m, b, rc);
}

/* Flip bits of the cells (main, then spare) straight in the simulator. */
static void op_damage(struct st *s, struct fz_in *in)
{
    uint32_t b, idx, n, k, bits = (s->ps + s->ss) * 8u, page;
    struct page_m *m = pick(s, in, &b, &idx);
    int was_bad;
    n = 1u + fz_u8(in) % 16u;
    page = dev_page(s, b, idx);
    strata_sim_peek(s->sim, page * s->ps, s->got, s->ps);
    strata_sim_peek_spare(s->sim, page, s->got + s->ps);
    while (n-- > 0) {
        uint32_t bit = fz_below(in, bits);
        s->got[bit / 8u] ^= (uint8_t)(1u << bit % 8u);
        for (k = 0; k < m->nflips && m->flips[k] != bit; k++)
            ;
        if (k < m->nflips)
            m->flips[k] = m->flips[--m->nflips]; /* flipped back */
        else if (m->nflips < MAX_FLIPS)
            m->flips[m->nflips++] = bit;
        else
            m->unknown = 1;
    }
    strata_sim_poke(s->sim, page * s->ps, s->got, s->ps);
    was_bad = strata_sim_unit_is_bad(s->sim, 1u + b);
    strata_sim_poke_spare(s->sim, page, s->got + s->ps);
    if (!was_bad && strata_sim_unit_is_bad(s->sim, 1u + b)) {
        s->marker_hit[b] = 1;
        if (s->trace)
            fprintf(stderr, "flips in page %u made the device read block %u's marker bad\n",
                    (unsigned)page, (unsigned)b);
    }
    m->closed = 1;
    if (s->next[b] <= idx)
        s->next[b] = idx + 1u; /* never program over damage */
}

static void op_read(struct st *s, struct fz_in *in, int region)
{
    struct strata_nand_read_info info;
    uint32_t b, idx, r = 0;
    struct page_m *m = pick(s, in, &b, &idx);
    uint32_t page = b * s->ppb + idx;
    int rc;
    if (region)
        r = fz_u8(in) % s->lay->regions;
    memset(&info, 0xA5, sizeof info);
    if (!usable(s, b))
        return;
    rc = region ? strata_nand_read_region(&s->nand, page, r, s->got, s->oob_got, &info)
                : strata_nand_read(&s->nand, page, s->got, s->oob_got, &info);
    if (s->trace)
        fprintf(stderr, "read page %u region %d: %d (flipped %u, corrected %u, strength %u, "
                "programmed 0x%x)\n", (unsigned)page, region ? (int)r : -1, rc,
                (unsigned)m->nflips, (unsigned)info.corrected, (unsigned)s->lay->strength,
                (unsigned)m->programmed);
    /* nand.h: on a CAP_HW_ECC device a region read of a multi-region page needs the page
     * buffer (the device reads whole pages); without it the call refuses */
    if (region && s->hw && rc == STRATA_ENOMEM && s->lay->regions > 1u &&
        s->cfg.buf_size < s->ps + s->ss)
        return;
    check_read(s, m, region ? (int)r : -1, rc, &info);
}

static void op_erase(struct st *s, struct fz_in *in)
{
    uint32_t b = fz_below(in, NG_BLOCKS);
    int rc;
    if (!usable(s, b))
        return;
    rc = strata_nand_erase(&s->nand, b);
    memset(s->pages[b], 0, sizeof s->pages[b]);
    s->next[b] = 0;
    if (rc == STRATA_EBADBLOCK) {
        s->retired[b] = 1; /* a failed erase retires its block at once */
        usable(s, b);
    } else if (rc != 0) {
        fz_fail("nand: erase of block %u returned %d", (unsigned)b, rc);
    }
}

static void op_retire(struct st *s, struct fz_in *in)
{
    uint32_t b = fz_below(in, NG_BLOCKS);
    int rc = strata_nand_retire(&s->nand, b);
    if (rc != 0)
        fz_fail("nand: retire(%u) returned %d", (unsigned)b, rc);
    s->retired[b] = 1;
    usable(s, b);
}

static void finish(struct st *s)
{
    if (s->sim != NULL && (guard_hash(s, 0) != s->guard_hash[0] ||
                           guard_hash(s, NG_BLOCKS + 1u) != s->guard_hash[1]))
        fz_fail("nand: a block outside the layer's range changed");
    strata_sim_free(s->sim);
    free(s->buf);
    free(s->want);
    free(s->got);
    free(s->oob_want);
    free(s->oob_got);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_in in;
    struct st *s = calloc(1, sizeof *s);
    uint32_t steps_left = 256;
    if (s == NULL)
        fz_fail("out of memory");
    fz_in_init(&in, data, size);
    if (setup(s, &in) != 0 || mount(s) != 0) {
        finish(s);
        return 0;
    }
    while (fz_more(&in) && steps_left-- > 0) {
        switch (fz_u8(&in) % NG_OPS) {
        case NG_PROG: op_prog(s, &in); break;
        case NG_PROG_REGION: op_prog_region(s, &in); break;
        case NG_DAMAGE: op_damage(s, &in); break;
        case NG_READ: op_read(s, &in, 0); break;
        case NG_READ_REGION: op_read(s, &in, 1); break;
        case NG_ERASE: op_erase(s, &in); break;
        case NG_REMOUNT:
            if (mount(s) != 0)
                fz_fail("nand: a remount refused the configuration it accepted");
            break;
        default: op_retire(s, &in); break;
        }
    }
    finish(s);
    return 0;
}
