/*
 * NAND: the medium's rules for programs (order, NOP, partial-program regions, bad-block markers),
 * the page and bad-block operations, and what programs and erases leave behind in a block's page
 * states.
 */
#include <string.h>

#include "sim_internal.h"

int sim_is_nand(const struct strata_sim *sim)
{
    return sim->profile->kind == STRATA_SIM_NAND;
}

/* ---- bad-block markers ---------------------------------------------------------------------- */

uint32_t sim_marker_pages(const struct strata_sim *sim, uint32_t *pages)
{
    uint8_t m = sim->flash.geo.bbm_pages;
    uint32_t n = 0, last = sim->pages_per_unit - 1;
    if (m & 0x01u)
        pages[n++] = 0;
    if ((m & 0x02u) && last >= 1)
        pages[n++] = 1;
    if ((m & 0x80u) && last > 1)
        pages[n++] = last;
    return n;
}

static int is_marker_page(const struct strata_sim *sim, uint32_t page)
{
    uint32_t pages[3], n = sim_marker_pages(sim, pages), i;
    for (i = 0; i < n; i++)
        if (page % sim->pages_per_unit == pages[i])
            return 1;
    return 0;
}

static uint8_t *marker_at(const struct strata_sim *sim, uint32_t unit, uint32_t page_in_unit)
{
    return sim->spare +
           (size_t)(unit * sim->pages_per_unit + page_in_unit) * sim->flash.geo.spare_size +
           sim->flash.geo.bbm_offset;
}

/* A unit is bad when a marker byte of one of its marker pages is not 0xFF, as a driver scanning
 * the chip reads it. */
int sim_marker_bad(const struct strata_sim *sim, uint32_t unit)
{
    uint32_t pages[3], n = sim_marker_pages(sim, pages), i, b;
    for (i = 0; i < n; i++)
        for (b = 0; b < sim->flash.geo.bbm_len; b++)
            if (marker_at(sim, unit, pages[i])[b] != 0xFF)
                return 1;
    return 0;
}

/* Write every marker byte of a unit (0x00), or as much of it as a cut after `bytes` allows (the
 * cut byte partly). */
static void write_markers(struct strata_sim *sim, uint32_t unit, struct sim_cut cut)
{
    uint32_t pages[3], n = sim_marker_pages(sim, pages), i, b, k = 0;
    for (i = 0; i < n; i++)
        for (b = 0; b < sim->flash.geo.bbm_len; b++, k++) {
            uint8_t *m = &marker_at(sim, unit, pages[i])[b];
            if (!cut.cut || cut.pos > k)
                *m = 0x00;
            else if (cut.partial && cut.pos == k)
                *m &= (uint8_t)sim_rand(sim);
        }
}

void sim_place_factory_bad(struct strata_sim *sim)
{
    uint32_t n = sim->cfg.factory_bad, units = sim->flash.geo.erase_count;
    uint32_t es = sim->flash.geo.erase_size, i;
    struct sim_cut whole = {0, 0, 0};
    while (n > 0) {
        uint32_t u = 1 + sim_rand_below(sim, units - 1); /* unit 0 is guaranteed good */
        if (sim->unit_state[u] & UNIT_FACTORY_BAD)
            continue;
        sim->unit_state[u] |= UNIT_FACTORY_BAD;
        for (i = 0; i < es; i++) /* contents of a factory-bad block are undefined */
            sim->data[(size_t)u * es + i] = (uint8_t)sim_rand(sim);
        write_markers(sim, u, whole);
        n--;
    }
}

/* ---- program rules ------------------------------------------------------------------------ */

/* Partial-program region of byte `at` of the main area (spare = 0) or the spare (spare = 1). */
static uint32_t region_of(const struct strata_sim *sim, uint32_t at, int spare)
{
    const struct strata_flash_geometry *g = &sim->flash.geo;
    uint32_t main_regions = g->prog_region ? g->page_size / g->prog_region : 1;
    if (!spare)
        return g->prog_region ? at / g->prog_region : 0;
    return main_regions + (g->spare_region ? at / g->spare_region : 0);
}

static int region_done(const struct strata_sim *sim, uint32_t page, uint32_t r)
{
    return (sim->regions[(size_t)page * sim->region_bytes + r / 8] >> (r % 8)) & 1u;
}

/* The rules for one area of a page program; see sim_check_nand_page. */
static int check_area(struct strata_sim *sim, uint32_t page, const uint8_t *src, uint32_t off,
                      uint32_t len, int spare, const char *what)
{
    const struct strata_flash_geometry *g = &sim->flash.geo;
    const uint8_t *dst = spare ? sim->spare + (size_t)page * g->spare_size + off
                               : sim->data + (size_t)page * g->page_size + off;
    uint32_t i;
    for (i = 0; i < len; i++) {
        uint32_t at = off + i;
        if (src[i] == 0xFF) /* a 1 leaves its cell alone: nothing is programmed there */
            continue;
        if (dst[i] != 0xFF)
            return sim_violation(sim, STRATA_SIM_V_NOT_ERASED,
                                 "%s of page %u %s byte %u: 0x%02x over programmed 0x%02x", what,
                                 (unsigned)page, spare ? "spare" : "main", (unsigned)at, src[i],
                                 dst[i]);
        if (spare && at >= g->bbm_offset && at < (uint32_t)g->bbm_offset + g->bbm_len &&
            is_marker_page(sim, page))
            return sim_violation(sim, STRATA_SIM_V_MARKER,
                                 "%s of page %u: 0x%02x into bad-block marker byte %u (only "
                                 "mark_bad may)", what, (unsigned)page, src[i], (unsigned)at);
        if (region_done(sim, page, region_of(sim, at, spare)))
            return sim_violation(sim, STRATA_SIM_V_REGION,
                                 "%s of page %u %s byte %u: its %u B region was programmed "
                                 "since the erase", what, (unsigned)page, spare ? "spare" : "main",
                                 (unsigned)at,
                                 (unsigned)(spare ? (g->spare_region ? g->spare_region
                                                                     : g->spare_size)
                                                  : (g->prog_region ? g->prog_region
                                                                    : g->page_size)));
    }
    return 0;
}

int sim_check_nand_page(struct strata_sim *sim, uint32_t page, const uint8_t *data, uint32_t off,
                        uint32_t dlen, const uint8_t *spare, const char *what)
{
    uint32_t unit = page / sim->pages_per_unit, nop = sim->flash.geo.nop;
    int32_t in_unit = (int32_t)(page % sim->pages_per_unit);
    int rc;
    if (sim->page_progs[page] == PAGE_TORN)
        return sim_violation(sim, STRATA_SIM_V_NOP, "%s of page %u torn by a power cut", what,
                             (unsigned)page);
    if (nop != 0 && sim->page_progs[page] >= nop)
        return sim_violation(sim, STRATA_SIM_V_NOP, "%s of page %u: program %u of NOP %u", what,
                             (unsigned)page, (unsigned)sim->page_progs[page] + 1, (unsigned)nop);
    if (in_unit < sim->top_page[unit])
        return sim_violation(sim, STRATA_SIM_V_ORDER,
                             "%s of page %d of unit %u after page %d was programmed", what,
                             (int)in_unit, (unsigned)unit, (int)sim->top_page[unit]);
    if (data && (rc = check_area(sim, page, data, off, dlen, 0, what)) != 0)
        return rc;
    if (spare && (rc = check_area(sim, page, spare, 0, sim->flash.geo.spare_size, 1, what)) != 0)
        return rc;
    return 0;
}

static void mark_regions(struct strata_sim *sim, uint32_t page, const uint8_t *src, uint32_t off,
                         uint32_t len, int spare)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        if (src[i] != 0xFF) {
            uint32_t r = region_of(sim, off + i, spare);
            sim->regions[(size_t)page * sim->region_bytes + r / 8] |= (uint8_t)(1u << (r % 8));
        }
}

void sim_note_nand_program(struct strata_sim *sim, uint32_t page, const uint8_t *data,
                           uint32_t off, uint32_t dlen, const uint8_t *spare)
{
    if (sim->page_progs[page] != PAGE_TORN)
        sim->page_progs[page]++;
    sim->top_page[page / sim->pages_per_unit] = (int32_t)(page % sim->pages_per_unit);
    if (data)
        mark_regions(sim, page, data, off, dlen, 0);
    if (spare)
        mark_regions(sim, page, spare, 0, sim->flash.geo.spare_size, 1);
    sim_note_page_program(sim, page);
}

/* ---- what programs leave ------------------------------------------------------------------ */

static void program_bytes(uint8_t *dst, const uint8_t *src, uint32_t len)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        dst[i] &= src[i];
}

/* A page program that did not finish (power cut, worn unit, status failure): data and spare
 * torn, and the page refuses programs until its block is erased. */
static void tear_page_prog(struct strata_sim *sim, uint32_t page, const void *data,
                           const void *spare)
{
    uint32_t ps = sim->flash.geo.page_size, ss = sim->flash.geo.spare_size;
    if (data)
        sim_tear_page(sim, sim->data + (size_t)page * ps, data, ps);
    if (spare)
        sim_tear_page(sim, sim->spare + (size_t)page * ss, spare, ss);
    sim->page_progs[page] = PAGE_TORN;
    sim->top_page[page / sim->pages_per_unit] = (int32_t)(page % sim->pages_per_unit);
}

/* A page program cut by power: torn, or, cut late with weak cells on, complete but weak. */
static void cut_page_prog(struct strata_sim *sim, uint32_t page, const uint8_t *data,
                          uint32_t off, uint32_t dlen, const uint8_t *spare, struct sim_cut cut,
                          uint32_t len)
{
    uint32_t ps = sim->flash.geo.page_size, ss = sim->flash.geo.spare_size;
    if (!sim_cut_leaves_weak(sim, cut, len)) {
        if (spare || dlen == ps)
            tear_page_prog(sim, page, data, spare);
        else { /* a part of the main area: only its bytes were being programmed */
            sim_tear_page(sim, sim->data + (size_t)page * ps + off, data, dlen);
            sim->page_progs[page] = PAGE_TORN;
            sim->top_page[page / sim->pages_per_unit] = (int32_t)(page % sim->pages_per_unit);
        }
        return;
    }
    if (data)
        program_bytes(sim->data + (size_t)page * ps + off, data, dlen);
    if (spare)
        program_bytes(sim->spare + (size_t)page * ss, spare, ss);
    sim_note_nand_program(sim, page, data, off, dlen, spare);
    sim->page_flags[page] = PAGE_WEAK;
}

/* A main-area program of [addr, addr+len) cut at `cut` (or failed there: power_cut 0): the pages
 * before the cut page complete, the cut page torn (or weak), later pages untouched. */
void sim_nand_apply(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                    struct sim_cut cut, int power_cut)
{
    uint32_t ps = sim->flash.geo.page_size, done = cut.cut ? cut.pos : len, i = 0;
    while (i < len && i <= done) {
        uint32_t a = addr + i, page = a / ps, off = a % ps, n = ps - off;
        if (n > len - i)
            n = len - i;
        if (!cut.cut || i + n <= done) {
            program_bytes(sim->data + a, src + i, n);
            sim_note_nand_program(sim, page, src + i, off, n, NULL);
        } else if (cut.partial || done > i) {
            struct sim_cut in_page = cut;
            in_page.pos = done - i;
            in_page.cut = power_cut;
            cut_page_prog(sim, page, src + i, off, n, NULL, in_page, n);
        }
        i += n;
    }
}

/* ---- page operations ---------------------------------------------------------------------- */

static struct strata_sim *sim_of(const struct strata_flash *f)
{
    return (struct strata_sim *)f->ctx;
}

/* Checks both page calls share; fills `op` with the call's cost. */
static int page_access(struct strata_sim *sim, const char *what, uint32_t page,
                       enum strata_sim_op_kind kind, const struct strata_sim_cost *cost,
                       uint32_t len, struct strata_sim_op *op)
{
    if (!sim_is_nand(sim))
        return STRATA_EDEVICE;
    if (!sim->powered)
        return STRATA_EPOWER;
    if (page >= sim->page_count)
        return sim_violation(sim, STRATA_SIM_V_RANGE, "%s of page %u (device has %u)", what,
                             (unsigned)page, (unsigned)sim->page_count);
    op->kind = kind;
    op->addr = page;
    op->len = len;
    op->time_ps = cost->fixed_ps + cost->page_ps + cost->byte_ps * len;
    op->energy_pj = cost->fixed_pj + cost->page_pj + cost->byte_pj * len;
    return sim_check_unit(sim, what, page / sim->pages_per_unit, 0);
}

int sim_op_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    struct strata_sim *sim = sim_of(f);
    const struct strata_sim_cost *cost = &sim->profile->read;
    uint32_t ps = f->geo.page_size, ss = f->geo.spare_size;
    uint32_t len = (data ? ps : 0) + (spare ? ss : 0);
    struct strata_sim_op op;
    int rc = page_access(sim, "page read", page, STRATA_SIM_OP_PAGE_READ, cost, len, &op);
    if (rc != 0)
        return rc;
    if (sim_read_cut(sim, &op))
        return STRATA_EPOWER;
    if (data)
        memcpy(data, sim->data + (size_t)page * ps, ps);
    if (spare)
        memcpy(spare, sim->spare + (size_t)page * ss, ss);
    rc = sim_page_errors(sim, page, data, 0, data ? ps : 0, spare);
    sim_charge(sim, cost, 1, len);
    sim->stats.reads++;
    sim->stats.read_bytes += len;
    return rc;
}

/* A program the device reports failed (worn unit, status failure) or power cut: page torn (or
 * weak), the call's cost charged, power off if it was cut. */
static int page_prog_ends(struct strata_sim *sim, uint32_t page, const uint8_t *data,
                          const uint8_t *spare, struct sim_cut cut, uint32_t len, int failed)
{
    const struct strata_sim_cost *cost = &sim->profile->prog;
    if (failed) {
        tear_page_prog(sim, page, data, spare);
        sim->stats.io_errors++;
    } else {
        cut_page_prog(sim, page, data, 0, data ? sim->flash.geo.page_size : 0, spare, cut, len);
    }
    sim_charge(sim, cost, 1, failed ? len : cut.pos);
    sim->stats.prog_bytes += failed ? len : cut.pos;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return STRATA_EIO;
}

int sim_op_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                     const void *spare)
{
    struct strata_sim *sim = sim_of(f);
    const struct strata_sim_cost *cost = &sim->profile->prog;
    uint32_t ps = f->geo.page_size, ss = f->geo.spare_size;
    uint32_t len = (data ? ps : 0) + (spare ? ss : 0);
    struct strata_sim_op op;
    struct sim_cut cut;
    int rc = page_access(sim, "page program", page, STRATA_SIM_OP_PAGE_PROG, cost, len, &op);
    if (rc != 0)
        return rc;
    if ((rc = sim_check_nand_page(sim, page, data, 0, data ? ps : 0, spare, "page program")) != 0)
        return rc;
    cut = sim_cut_decide(sim, &op);
    sim->stats.progs++;
    if (cut.cut && !cut.partial && cut.pos == 0) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    /* a worn unit fails the program, cut or not; power failing too is what the caller sees */
    if (sim->unit_state[page / sim->pages_per_unit] & UNIT_WORN)
        return page_prog_ends(sim, page, data, spare, cut, len, 1);
    if (cut.cut && (cut.partial || cut.pos < len))
        return page_prog_ends(sim, page, data, spare, cut, len, 0);
    if (sim_completes(cut, len) && sim_status_fails(sim, 0))
        return page_prog_ends(sim, page, data, spare, cut, len, 1);
    if (data)
        program_bytes(sim->data + (size_t)page * ps, data, ps);
    if (spare)
        program_bytes(sim->spare + (size_t)page * ss, spare, ss);
    sim_note_nand_program(sim, page, data, 0, data ? ps : 0, spare);
    sim_charge(sim, cost, 1, len);
    sim->stats.prog_bytes += len;
    if (cut.cut) { /* TEAR_AFTER: done, then the lights go out */
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return 0;
}

/* ---- bad blocks ----------------------------------------------------------------------------- */

/* Cost of touching every marker page's marker bytes with `c` (one page operation each). */
static void marker_cost(const struct strata_sim *sim, const struct strata_sim_cost *c,
                        struct strata_sim_op *op)
{
    uint32_t pages[3], n = sim_marker_pages(sim, pages), b = sim->flash.geo.bbm_len;
    op->len = n * b;
    op->time_ps = n * (c->fixed_ps + c->page_ps + c->byte_ps * b);
    op->energy_pj = n * (c->fixed_pj + c->page_pj + c->byte_pj * b);
}

static void charge_markers(struct strata_sim *sim, const struct strata_sim_cost *c)
{
    uint32_t pages[3], n = sim_marker_pages(sim, pages), i;
    for (i = 0; i < n; i++)
        sim_charge(sim, c, 1, sim->flash.geo.bbm_len);
}

int sim_op_is_bad(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    int rc;
    if (!sim_is_nand(sim))
        return 0;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = sim_check_unit(sim, "is_bad", unit, 1)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_IS_BAD;
    op.addr = unit;
    marker_cost(sim, &sim->profile->read, &op);
    if (sim_read_cut(sim, &op))
        return STRATA_EPOWER;
    charge_markers(sim, &sim->profile->read);
    sim->stats.reads++;
    sim->stats.read_bytes += op.len;
    return sim_marker_bad(sim, unit);
}

/* Marking is exempt from NOP, order and regions: it is what a driver does to a failed block. It
 * programs the marker bytes of every marker page (one page program each). */
int sim_op_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    struct sim_cut cut;
    int rc;
    if (!sim_is_nand(sim))
        return STRATA_EDEVICE;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = sim_check_unit(sim, "mark_bad", unit, 1)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_MARK_BAD;
    op.addr = unit;
    marker_cost(sim, &sim->profile->prog, &op);
    cut = sim_cut_decide(sim, &op);
    sim->stats.progs++;
    charge_markers(sim, &sim->profile->prog);
    write_markers(sim, unit, cut);
    if (sim_marker_bad(sim, unit))
        sim->unit_state[unit] |= UNIT_MARKED_BAD;
    sim->stats.prog_bytes += op.len;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return 0;
}

/* ---- erase ---------------------------------------------------------------------------------- */

static int blank_bytes(const uint8_t *p, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (p[i] != 0xFF)
            return 0;
    return 1;
}

/* After an erase of `unit` (complete, torn, failed, or cut late into weak cells): pages still
 * holding 0 bits refuse programs until a complete erase, pages that read erased accept them (as
 * far as the device can tell, their cells are erased); stress counters restart. `erased`: every
 * byte reads 0xFF (nothing to look at). */
void sim_reset_nand_unit(struct strata_sim *sim, uint32_t unit, int erased, int weak)
{
    uint32_t first = unit * sim->pages_per_unit, p;
    uint32_t ps = sim->flash.geo.page_size, ss = sim->flash.geo.spare_size;
    sim->top_page[unit] = -1;
    for (p = first; p < first + sim->pages_per_unit; p++) {
        int blank = erased || (blank_bytes(sim->data + (size_t)p * ps, ps) &&
                               blank_bytes(sim->spare + (size_t)p * ss, ss));
        sim->page_progs[p] = blank ? 0 : PAGE_TORN;
        sim->page_flags[p] = 0;
        memset(sim->regions + (size_t)p * sim->region_bytes, 0, sim->region_bytes);
        if (!blank)
            sim->top_page[unit] = (int32_t)(p - first);
    }
    sim->reads[unit] = 0;
    sim->erased_at[unit] = sim->clock_h;
    sim->unit_state[unit] = (uint8_t)((sim->unit_state[unit] & ~UNIT_WEAK) | (weak ? UNIT_WEAK : 0));
}
