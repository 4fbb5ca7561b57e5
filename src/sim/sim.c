/*
 * Simulated devices: lifecycle and the flash-contract operations.
 *
 * Each mutating operation runs in four steps: refuse anything the medium forbids (violation,
 * nothing applied), count it and ask whether power fails during it (torn result), fail it if the
 * unit is worn out (EIO), otherwise apply it and charge its cost.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static struct strata_sim *sim_of(const struct strata_flash *f)
{
    return (struct strata_sim *)f->ctx;
}

uint32_t sim_unit_of(const struct strata_sim *sim, uint32_t addr)
{
    return addr / sim->flash.geo.erase_size;
}

static int is_nand(const struct strata_sim *sim)
{
    return sim->profile->kind == STRATA_SIM_NAND;
}

static uint32_t pages_touched(const struct strata_sim *sim, uint32_t addr, uint32_t len)
{
    uint32_t ps = sim->flash.geo.page_size;
    return len == 0 ? 0 : (addr + len - 1) / ps - addr / ps + 1;
}

/* RANGE and BAD_BLOCK checks shared by reads and programs of the main area. */
static int check_access(struct strata_sim *sim, const char *what, uint32_t addr, uint32_t len,
                        uint32_t unit_size)
{
    uint32_t size = strata_flash_size(&sim->flash), u;
    if (addr % unit_size != 0 || len % unit_size != 0 || len == 0 || addr > size ||
        len > size - addr)
        return sim_violation(sim, STRATA_SIM_V_RANGE, "%s of %u B at 0x%x (device %u B, unit %u)",
                             what, (unsigned)len, (unsigned)addr, (unsigned)size,
                             (unsigned)unit_size);
    for (u = sim_unit_of(sim, addr); u <= sim_unit_of(sim, addr + len - 1); u++)
        if (sim->unit_state[u] & UNIT_BAD)
            return sim_violation(sim, STRATA_SIM_V_BAD_BLOCK, "%s at 0x%x in bad unit %u", what,
                                 (unsigned)addr, (unsigned)u);
    return 0;
}

static int check_unit(struct strata_sim *sim, const char *what, uint32_t unit, int bad_ok)
{
    if (unit >= sim->flash.geo.erase_count)
        return sim_violation(sim, STRATA_SIM_V_RANGE, "%s of unit %u (device has %u)", what,
                             (unsigned)unit, (unsigned)sim->flash.geo.erase_count);
    if (!bad_ok && (sim->unit_state[unit] & UNIT_BAD))
        return sim_violation(sim, STRATA_SIM_V_BAD_BLOCK, "%s of bad unit %u", what,
                             (unsigned)unit);
    return 0;
}

/* ---- reads ---------------------------------------------------------------------------------- */

static const struct strata_sim_cost *read_cost(struct strata_sim *sim, uint32_t addr,
                                               uint32_t len)
{
    int random = sim->profile->kind == STRATA_SIM_FTL && addr != sim->last_read_end;
    sim->last_read_end = addr + len;
    return random ? &sim->profile->read_random : &sim->profile->read;
}

static int op_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    const struct strata_sim_cost *cost;
    int rc;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = check_access(sim, "read", addr, len, f->geo.read_size)) != 0)
        return rc;
    cost = read_cost(sim, addr, len);
    op.kind = STRATA_SIM_OP_READ;
    op.addr = addr;
    op.len = len;
    op.time_ps = cost->fixed_ps + cost->page_ps * pages_touched(sim, addr, len) + cost->byte_ps * len;
    op.energy_pj = cost->fixed_pj + cost->page_pj * pages_touched(sim, addr, len) + cost->byte_pj * len;
    if (sim_read_cut(sim, &op))
        return STRATA_EPOWER;
    memcpy(buf, sim->data + addr, len);
    if (is_nand(sim))
        sim_read_flips(sim, buf, len);
    sim_charge(sim, cost, pages_touched(sim, addr, len), len);
    sim->stats.reads++;
    sim->stats.read_bytes += len;
    return 0;
}

/* ---- programs ------------------------------------------------------------------------------- */

/* NAND rules for programming `len` bytes of `src` over `dst`, all inside `page`. */
static int check_nand_page(struct strata_sim *sim, uint32_t page, const uint8_t *dst,
                           const uint8_t *src, uint32_t len, const char *what)
{
    uint32_t unit = page / sim->pages_per_unit, i;
    int32_t in_unit = (int32_t)(page % sim->pages_per_unit);
    uint32_t nop = sim->flash.geo.nop;
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
    for (i = 0; i < len; i++)
        if (src[i] != 0xFF && dst[i] != 0xFF)
            return sim_violation(sim, STRATA_SIM_V_NOT_ERASED,
                                 "%s of page %u byte %u: 0x%02x over programmed 0x%02x", what,
                                 (unsigned)page, (unsigned)i, src[i], dst[i]);
    return 0;
}

/* The medium's rules for a main-area program; nothing is changed. */
static int check_prog_rules(struct strata_sim *sim, uint32_t addr, const uint8_t *src,
                            uint32_t len)
{
    const uint8_t *dst = sim->data + addr;
    uint32_t i, ps = sim->flash.geo.page_size;
    int rc;
    switch (sim->profile->kind) {
    case STRATA_SIM_NOR:
    case STRATA_SIM_DATAFLASH:
        for (i = 0; i < len; i++)
            if (src[i] & ~dst[i])
                return sim_violation(sim, STRATA_SIM_V_ZERO_TO_ONE,
                                     "program 0x%02x over 0x%02x at 0x%x", src[i], dst[i],
                                     (unsigned)(addr + i));
        break;
    case STRATA_SIM_NAND:
        for (i = 0; i < len;) {
            uint32_t a = addr + i, page = a / ps, n = ps - a % ps;
            if (n > len - i)
                n = len - i;
            if ((rc = check_nand_page(sim, page, dst + i, src + i, n, "program")) != 0)
                return rc;
            i += n;
        }
        break;
    default:
        break;
    }
    if (sim->row_ps != NULL && (sim->cfg.options & STRATA_SIM_OPT_ROW_TIME)) {
        uint32_t rs = sim->profile->row_size;
        for (i = 0; i < len;) {
            uint32_t a = addr + i, n = rs - a % rs;
            uint64_t t;
            if (n > len - i)
                n = len - i;
            t = sim->row_ps[a / rs] + sim->profile->prog.byte_ps * n;
            if (t > sim->profile->row_prog_limit_ps)
                return sim_violation(sim, STRATA_SIM_V_ROW_TIME,
                                     "row %u: %llu ns of programming since erase (limit %llu)",
                                     (unsigned)(a / rs), (unsigned long long)(t / 1000),
                                     (unsigned long long)(sim->profile->row_prog_limit_ps / 1000));
            i += n;
        }
    }
    return 0;
}

/* Record NAND page programs and MSP430 row time for bytes [addr, addr+len). */
static void note_programmed(struct strata_sim *sim, uint32_t addr, uint32_t len)
{
    uint32_t ps = sim->flash.geo.page_size, p;
    if (len == 0)
        return;
    if (is_nand(sim)) {
        for (p = addr / ps; p <= (addr + len - 1) / ps; p++) {
            uint32_t unit = p / sim->pages_per_unit;
            if (sim->page_progs[p] != PAGE_TORN)
                sim->page_progs[p]++;
            sim->top_page[unit] = (int32_t)(p % sim->pages_per_unit);
        }
    }
    if (sim->row_ps != NULL) {
        uint32_t rs = sim->profile->row_size, i;
        for (i = 0; i < len;) {
            uint32_t a = addr + i, n = rs - a % rs;
            if (n > len - i)
                n = len - i;
            sim->row_ps[a / rs] += sim->profile->prog.byte_ps * n;
            i += n;
        }
    }
}

/* Apply the first cut.pos bytes (and a torn cut byte/page) of a program. */
static void apply_prog(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                       struct sim_cut cut)
{
    uint8_t *dst = sim->data + addr;
    uint32_t done = cut.cut ? cut.pos : len, ps = sim->flash.geo.page_size, i;
    switch (sim->profile->kind) {
    case STRATA_SIM_NOR:
    case STRATA_SIM_DATAFLASH:
        cut.pos = done;
        if (sim->tear_model == STRATA_SIM_TEAR_MODEL_SUBSET)
            sim_tear_subset(sim, dst, src, len, addr % ps, ps, cut);
        else
            sim_tear_bitwise(sim, dst, src, len, cut);
        note_programmed(sim, addr, done + (uint32_t)(cut.cut && cut.partial));
        break;
    case STRATA_SIM_NAND: {
        /* Whole pages before the cut page completed; the cut page is torn. */
        uint32_t cut_page_start = (addr + done) / ps * ps;
        uint32_t whole = done >= len ? len : cut_page_start > addr ? cut_page_start - addr : 0;
        for (i = 0; i < whole; i++)
            dst[i] &= src[i];
        note_programmed(sim, addr, whole);
        if (cut.cut && (cut.partial || done > whole) && whole < len) {
            uint32_t n = ps - (addr + whole) % ps;
            uint32_t page = (addr + whole) / ps;
            if (n > len - whole)
                n = len - whole;
            sim_tear_page(sim, dst + whole, src + whole, n);
            sim->page_progs[page] = PAGE_TORN;
            sim->top_page[page / sim->pages_per_unit] = (int32_t)(page % sim->pages_per_unit);
        }
        break;
    }
    case STRATA_SIM_FTL: {
        /* Blocks before the cut hold new data; the block being written holds garbage. */
        uint32_t bs = sim->flash.geo.prog_size;
        uint32_t whole = cut.cut ? done / bs * bs : len;
        memcpy(dst, src, whole);
        if (cut.cut && (cut.partial || done > whole) && whole < len)
            for (i = whole; i < whole + bs && i < len; i++)
                dst[i] = (uint8_t)sim_rand(sim);
        break;
    }
    case STRATA_SIM_FRAM:
        memcpy(dst, src, done);
        break;
    }
}

/* A program of a worn unit fails: the cells end up anywhere between old and new, never as
 * intended, and the device reports the failure, unless power failed during it (a cut `cut`
 * stops the failing program no later than where the cut lands). */
static int fail_prog(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                     struct sim_cut cut, const struct strata_sim_cost *cost)
{
    struct sim_cut fail = {1, 0, 1};
    struct sim_bit keep = sim_pick_clearing(sim, sim->data + addr, src, len);
    fail.pos = sim_rand_below(sim, len);
    if (cut.cut && cut.pos < fail.pos) {
        fail.pos = cut.pos;
        fail.partial = cut.partial;
    }
    apply_prog(sim, addr, src, len, fail);
    sim_keep_unfinished(sim->data + addr, src, len, keep);
    sim_charge(sim, cost, pages_touched(sim, addr, len), len);
    sim->stats.io_errors++;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return STRATA_EIO;
}

static int op_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    struct strata_sim *sim = sim_of(f);
    const uint8_t *src = buf;
    const struct strata_sim_cost *cost = &sim->profile->prog;
    struct strata_sim_op op;
    struct sim_cut cut;
    uint32_t u, pages;
    int rc, worn = 0;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = check_access(sim, "program", addr, len, f->geo.prog_size)) != 0)
        return rc;
    if ((rc = check_prog_rules(sim, addr, src, len)) != 0)
        return rc;
    if (sim->profile->kind == STRATA_SIM_FTL && addr != sim->last_prog_end)
        cost = &sim->profile->prog_random;
    sim->last_prog_end = addr + len;
    pages = pages_touched(sim, addr, len);
    op.kind = STRATA_SIM_OP_PROG;
    op.addr = addr;
    op.len = len;
    op.time_ps = cost->fixed_ps + cost->page_ps * pages + cost->byte_ps * len;
    op.energy_pj = cost->fixed_pj + cost->page_pj * pages + cost->byte_pj * len;
    cut = sim_cut_decide(sim, &op);
    for (u = sim_unit_of(sim, addr); u <= sim_unit_of(sim, addr + len - 1); u++)
        worn |= (sim->unit_state[u] & UNIT_WORN) != 0;
    sim->stats.progs++;
    if (worn && !(cut.cut && !cut.partial && cut.pos == 0))
        return fail_prog(sim, addr, src, len, cut, cost);
    apply_prog(sim, addr, src, len, cut);
    if (cut.cut) {
        sim_charge(sim, cost, pages_touched(sim, addr, cut.pos), cut.pos);
        sim->stats.prog_bytes += cut.pos;
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    sim_charge(sim, cost, pages, len);
    sim->stats.prog_bytes += len;
    return 0;
}

/* ---- erase ---------------------------------------------------------------------------------- */

static void reset_unit_state(struct strata_sim *sim, uint32_t unit, int complete)
{
    uint32_t first = unit * sim->pages_per_unit, p, i;
    uint32_t ps = sim->flash.geo.page_size, ss = sim->flash.geo.spare_size;
    if (is_nand(sim)) {
        /* After a torn erase, pages that still hold 0 bits cannot be programmed; pages that read
         * erased can (their cells are in the erased state as far as the device can tell). */
        sim->top_page[unit] = -1;
        for (p = first; p < first + sim->pages_per_unit; p++) {
            int blank = 1;
            for (i = 0; blank && i < ps; i++)
                blank = sim->data[(size_t)p * ps + i] == 0xFF;
            for (i = 0; blank && i < ss; i++)
                blank = sim->spare[(size_t)p * ss + i] == 0xFF;
            sim->page_progs[p] = blank ? 0 : PAGE_TORN;
            if (!blank)
                sim->top_page[unit] = (int32_t)(p - first);
        }
    }
    if (sim->row_ps != NULL && complete) {
        uint32_t rows = sim->flash.geo.erase_size / sim->profile->row_size;
        for (i = 0; i < rows; i++)
            sim->row_ps[unit * rows + i] = 0;
    }
}

static void erase_bytes(struct strata_sim *sim, uint32_t unit, struct sim_cut cut)
{
    uint32_t es = sim->flash.geo.erase_size, ss = sim->flash.geo.spare_size;
    uint32_t spare_len = sim->pages_per_unit * ss;
    sim_tear_erase(sim, sim->data + (size_t)unit * es, es, cut);
    if (sim->spare != NULL) {
        /* the spare cells erase together with the block: same progress */
        cut.pos = (uint32_t)((uint64_t)cut.pos * spare_len / es);
        sim_tear_erase(sim, sim->spare + (size_t)unit * spare_len, spare_len, cut);
    }
}

static int op_erase(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    const struct strata_sim_cost *cost = &sim->profile->erase;
    struct strata_sim_op op;
    struct sim_cut cut, whole = {1, 0, 0};
    int rc;
    if (!sim->powered)
        return STRATA_EPOWER;
    if (f->caps & STRATA_FLASH_CAP_NO_ERASE)
        return sim_violation(sim, STRATA_SIM_V_NO_ERASE, "erase of unit %u on %s", (unsigned)unit,
                             sim->profile->name);
    if ((rc = check_unit(sim, "erase", unit, 0)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_ERASE;
    op.addr = unit;
    op.len = f->geo.erase_size;
    op.time_ps = cost->fixed_ps + cost->byte_ps * op.len;
    op.energy_pj = cost->fixed_pj + cost->byte_pj * op.len;
    cut = sim_cut_decide(sim, &op);
    sim->stats.erases++;
    if (cut.cut) { /* the erase pulse ran for the part done before the lights went out */
        sim->stats.time_ps += op.time_ps * cut.pos / op.len;
        sim->stats.energy_pj += op.energy_pj * cut.pos / op.len;
    } else {
        sim_charge(sim, cost, 0, f->geo.erase_size);
    }
    if (cut.cut && !cut.partial && cut.pos == 0) {
        /* cut before it began: the cells, their wear and the page states never saw it */
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    sim->wear[unit]++;
    if (sim->wear_limit[unit] != 0 && sim->wear[unit] > sim->wear_limit[unit]) {
        /* Worn out: the erase fails part-way (or where a cut stops it first), the unit is worn
         * from now on, and the failure is reported unless power failed. */
        struct sim_cut fail = {1, 0, 1};
        fail.pos = sim_rand_below(sim, f->geo.erase_size);
        if (cut.cut && cut.pos < fail.pos)
            fail.pos = cut.pos;
        erase_bytes(sim, unit, fail);
        reset_unit_state(sim, unit, 0);
        sim->unit_state[unit] |= UNIT_WORN;
        sim->stats.io_errors++;
        if (cut.cut) {
            sim_power_fail(sim);
            return STRATA_EPOWER;
        }
        return STRATA_EIO;
    }
    whole.pos = f->geo.erase_size;
    erase_bytes(sim, unit, cut.cut ? cut : whole);
    reset_unit_state(sim, unit, !cut.cut || (!cut.partial && cut.pos == f->geo.erase_size));
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return 0;
}

/* ---- NAND page and bad-block operations ----------------------------------------------------- */

/* The table of operations is shared by every kind of device; the NAND-only entries answer a
 * direct call on another kind as the wrappers would (no spare, no bad blocks) instead of reaching
 * state that only NAND devices have. */

/* Checks both page calls share; fills `op` with the call's cost. */
static int page_access(struct strata_sim *sim, const char *what, uint32_t page,
                       enum strata_sim_op_kind kind, const struct strata_sim_cost *cost,
                       uint32_t len, struct strata_sim_op *op)
{
    if (!is_nand(sim))
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
    return check_unit(sim, what, page / sim->pages_per_unit, 0);
}

static int op_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
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
    if (data) {
        memcpy(data, sim->data + (size_t)page * ps, ps);
        sim_read_flips(sim, data, ps);
    }
    if (spare) {
        memcpy(spare, sim->spare + (size_t)page * ss, ss);
        sim_read_flips(sim, spare, ss);
    }
    sim_charge(sim, cost, 1, len);
    sim->stats.reads++;
    sim->stats.read_bytes += len;
    return 0;
}

/* A page program that did not finish (power cut or worn unit): data and spare torn, and the page
 * refuses programs until its block is erased. */
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

static int op_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                        const void *spare)
{
    struct strata_sim *sim = sim_of(f);
    const struct strata_sim_cost *cost = &sim->profile->prog;
    uint32_t ps = f->geo.page_size, ss = f->geo.spare_size;
    uint32_t len = (data ? ps : 0) + (spare ? ss : 0), i;
    uint8_t *dd, *sd;
    struct strata_sim_op op;
    struct sim_cut cut;
    int rc = page_access(sim, "page program", page, STRATA_SIM_OP_PAGE_PROG, cost, len, &op);
    if (rc != 0)
        return rc;
    dd = sim->data + (size_t)page * ps;
    sd = sim->spare + (size_t)page * ss;
    if (data && (rc = check_nand_page(sim, page, dd, data, ps, "page program")) != 0)
        return rc;
    if (spare && (rc = check_nand_page(sim, page, sd, spare, ss, "spare program")) != 0)
        return rc;
    cut = sim_cut_decide(sim, &op);
    sim->stats.progs++;
    if (cut.cut && !cut.partial && cut.pos == 0) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    if (sim->unit_state[page / sim->pages_per_unit] & UNIT_WORN) {
        /* a worn unit fails the program, cut or not; power failing too is what the caller sees */
        tear_page_prog(sim, page, data, spare);
        sim_charge(sim, cost, 1, len);
        sim->stats.io_errors++;
        if (cut.cut) {
            sim_power_fail(sim);
            return STRATA_EPOWER;
        }
        return STRATA_EIO;
    }
    if (cut.cut && (cut.partial || cut.pos < len)) {
        tear_page_prog(sim, page, data, spare);
        sim_charge(sim, cost, 1, cut.pos);
        sim->stats.prog_bytes += cut.pos;
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    for (i = 0; data && i < ps; i++)
        dd[i] &= ((const uint8_t *)data)[i];
    for (i = 0; spare && i < ss; i++)
        sd[i] &= ((const uint8_t *)spare)[i];
    note_programmed(sim, page * ps, ps);
    sim_charge(sim, cost, 1, len);
    sim->stats.prog_bytes += len;
    if (cut.cut) { /* TEAR_AFTER: done, then the lights go out */
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return 0;
}

/* The factory marks a bad unit with a non-0xFF first spare byte in its first or second page. */
static int marker_bad(const struct strata_sim *sim, uint32_t unit)
{
    uint32_t ss = sim->flash.geo.spare_size, first = unit * sim->pages_per_unit;
    return sim->spare[(size_t)first * ss] != 0xFF ||
           (sim->pages_per_unit > 1 && sim->spare[(size_t)(first + 1) * ss] != 0xFF);
}

static int op_is_bad(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    int rc;
    if (!is_nand(sim))
        return 0;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = check_unit(sim, "is_bad", unit, 1)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_IS_BAD;
    op.addr = unit;
    op.len = 2;
    op.time_ps = 2 * (sim->profile->read.fixed_ps + sim->profile->read.page_ps +
                      sim->profile->read.byte_ps);
    op.energy_pj = 2 * (sim->profile->read.fixed_pj + sim->profile->read.page_pj +
                        sim->profile->read.byte_pj);
    if (sim_read_cut(sim, &op))
        return STRATA_EPOWER;
    sim_charge(sim, &sim->profile->read, 1, 1); /* marker byte of page 0 */
    sim_charge(sim, &sim->profile->read, 1, 1); /* ... and of page 1 */
    sim->stats.reads++;
    sim->stats.read_bytes += 2;
    return marker_bad(sim, unit);
}

static int op_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    struct sim_cut cut;
    uint32_t ss = f->geo.spare_size, first, p;
    int rc;
    if (!is_nand(sim))
        return STRATA_EDEVICE;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = check_unit(sim, "mark_bad", unit, 1)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_MARK_BAD;
    op.addr = unit;
    op.len = 2;
    op.time_ps = sim->profile->prog.fixed_ps + sim->profile->prog.page_ps +
                 2 * sim->profile->prog.byte_ps; /* what sim_charge() below charges */
    op.energy_pj = sim->profile->prog.fixed_pj + sim->profile->prog.page_pj +
                   2 * sim->profile->prog.byte_pj;
    cut = sim_cut_decide(sim, &op);
    sim->stats.progs++;
    sim_charge(sim, &sim->profile->prog, 1, 2);
    first = unit * sim->pages_per_unit;
    /* Marking is exempt from NOP and order: it is what a driver does to a failed block. */
    for (p = 0; p < 2 && p < sim->pages_per_unit; p++) {
        uint8_t *m = &sim->spare[(size_t)(first + p) * ss];
        if (!cut.cut || cut.pos > p)
            *m = 0x00;
        else if (cut.partial && cut.pos == p)
            *m &= (uint8_t)sim_rand(sim);
    }
    if (marker_bad(sim, unit))
        sim->unit_state[unit] |= UNIT_MARKED_BAD;
    sim->stats.prog_bytes += 2;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return 0;
}

static int op_sync(const struct strata_flash *f)
{
    return sim_of(f)->powered ? 0 : STRATA_EPOWER;
}

static const struct strata_flash_ops sim_ops = {
    op_read, op_prog, op_erase, op_page_read, op_page_prog, op_is_bad, op_mark_bad, op_sync,
};

/* ---- lifecycle ------------------------------------------------------------------------------ */

void sim_bind_flash(struct strata_sim *sim)
{
    sim->flash.ops = &sim_ops;
    sim->flash.ctx = sim;
    sim->flash.geo = sim->profile->geo;
    sim->flash.geo.erase_count = sim->cfg.erase_count;
    sim->flash.caps = sim->profile->caps;
    sim->pages_per_unit = sim->flash.geo.erase_size / sim->flash.geo.page_size;
    sim->page_count = sim->pages_per_unit * sim->flash.geo.erase_count;
    sim->row_count = sim->profile->row_size
                         ? strata_flash_size(&sim->flash) / sim->profile->row_size
                         : 0;
}

int sim_alloc_arrays(struct strata_sim *sim)
{
    size_t size = strata_flash_size(&sim->flash);
    size_t units = sim->flash.geo.erase_count;
    sim->data = malloc(size);
    sim->wear = calloc(units, sizeof *sim->wear);
    sim->wear_limit = calloc(units, sizeof *sim->wear_limit);
    sim->unit_state = calloc(units, 1);
    if (sim->flash.geo.spare_size)
        sim->spare = malloc((size_t)sim->page_count * sim->flash.geo.spare_size);
    if (is_nand(sim)) {
        sim->page_progs = calloc(sim->page_count, 1);
        sim->top_page = malloc(units * sizeof *sim->top_page);
    }
    if (sim->row_count)
        sim->row_ps = calloc(sim->row_count, sizeof *sim->row_ps);
    if (!sim->data || !sim->wear || !sim->wear_limit || !sim->unit_state ||
        (sim->flash.geo.spare_size && !sim->spare) ||
        (is_nand(sim) && (!sim->page_progs || !sim->top_page)) ||
        (sim->row_count && !sim->row_ps))
        return STRATA_ENOMEM;
    return 0;
}

void sim_free_arrays(struct strata_sim *sim)
{
    free(sim->data);
    free(sim->spare);
    free(sim->wear);
    free(sim->wear_limit);
    free(sim->unit_state);
    free(sim->page_progs);
    free(sim->top_page);
    free(sim->row_ps);
}

static void place_factory_bad(struct strata_sim *sim)
{
    uint32_t n = sim->cfg.factory_bad, units = sim->flash.geo.erase_count;
    uint32_t es = sim->flash.geo.erase_size, i;
    while (n > 0) {
        uint32_t u = 1 + sim_rand_below(sim, units - 1); /* unit 0 is guaranteed good */
        if (sim->unit_state[u] & UNIT_FACTORY_BAD)
            continue;
        sim->unit_state[u] |= UNIT_FACTORY_BAD;
        for (i = 0; i < es; i++) /* contents of a factory-bad block are undefined */
            sim->data[(size_t)u * es + i] = (uint8_t)sim_rand(sim);
        sim->spare[(size_t)u * sim->pages_per_unit * sim->flash.geo.spare_size] = 0x00;
        n--;
    }
}

/* A tear model applies to bitwise-programmable media only; resolve the profile's default. */
static int tear_model_ok(struct strata_sim *sim)
{
    enum strata_sim_tear_model m = sim->cfg.tear_model;
    int bitwise = (sim->flash.caps & STRATA_FLASH_CAP_BITWISE_PROGRAM) != 0;
    if (m == STRATA_SIM_TEAR_MODEL_PROFILE) {
        sim->tear_model = sim->profile->tear_model;
        return 1;
    }
    sim->tear_model = m;
    return bitwise && (m == STRATA_SIM_TEAR_MODEL_PREFIX || m == STRATA_SIM_TEAR_MODEL_SUBSET);
}

struct strata_sim *strata_sim_new(const struct strata_sim_config *cfg)
{
    struct strata_sim *sim;
    uint32_t u;
    if (cfg == NULL || cfg->profile == NULL || !(cfg->read_flip_rate >= 0.0) || /* NaN too */
        cfg->read_flip_rate >= 1.0)
        return NULL;
    sim = calloc(1, sizeof *sim);
    if (sim == NULL)
        return NULL;
    sim->cfg = *cfg;
    sim->profile = cfg->profile;
    if (sim->cfg.erase_count == 0)
        sim->cfg.erase_count = cfg->profile->geo.erase_count;
    sim_bind_flash(sim);
    if (!tear_model_ok(sim) || strata_flash_validate(&sim->flash) != 0 ||
        (cfg->factory_bad && (!is_nand(sim) || cfg->factory_bad >= sim->cfg.erase_count)) ||
        sim->pages_per_unit > 0x7FFFFFFFu || sim_alloc_arrays(sim) != 0) {
        strata_sim_free(sim);
        return NULL;
    }
    sim->rng = sim_seed_rng(cfg->seed);
    sim->powered = 1;
    memset(sim->data, 0xFF, strata_flash_size(&sim->flash));
    if (sim->spare)
        memset(sim->spare, 0xFF, (size_t)sim->page_count * sim->flash.geo.spare_size);
    for (u = 0; u < sim->cfg.erase_count; u++) {
        if (sim->top_page)
            sim->top_page[u] = -1;
        if (cfg->wear_limit)
            sim->wear_limit[u] =
                cfg->wear_limit + sim_rand_below(sim, (uint64_t)cfg->wear_spread + 1);
        if (sim->wear_limit[u] < cfg->wear_limit) /* the draw wrapped: cap at the maximum */
            sim->wear_limit[u] = UINT32_MAX;
    }
    place_factory_bad(sim);
    return sim;
}

void strata_sim_free(struct strata_sim *sim)
{
    if (sim == NULL)
        return;
    sim_free_arrays(sim);
    free(sim);
}

static int copy_array(void **dst, const void *src, size_t bytes)
{
    if (src == NULL)
        return 0;
    *dst = malloc(bytes);
    if (*dst == NULL)
        return STRATA_ENOMEM;
    memcpy(*dst, src, bytes);
    return 0;
}

struct strata_sim *strata_sim_clone(const struct strata_sim *src)
{
    struct strata_sim *sim;
    size_t units, pages;
    int rc = 0;
    if (src == NULL || (sim = malloc(sizeof *sim)) == NULL)
        return NULL;
    *sim = *src;
    sim->data = sim->spare = sim->unit_state = sim->page_progs = NULL;
    sim->wear = sim->wear_limit = NULL;
    sim->top_page = NULL;
    sim->row_ps = NULL;
    sim->flash.ctx = sim;
    units = src->flash.geo.erase_count;
    pages = src->page_count;
    rc |= copy_array((void **)&sim->data, src->data, strata_flash_size(&src->flash));
    rc |= copy_array((void **)&sim->spare, src->spare, pages * src->flash.geo.spare_size);
    rc |= copy_array((void **)&sim->wear, src->wear, units * sizeof *src->wear);
    rc |= copy_array((void **)&sim->wear_limit, src->wear_limit, units * sizeof *src->wear_limit);
    rc |= copy_array((void **)&sim->unit_state, src->unit_state, units);
    rc |= copy_array((void **)&sim->page_progs, src->page_progs, pages);
    rc |= copy_array((void **)&sim->top_page, src->top_page, units * sizeof *src->top_page);
    rc |= copy_array((void **)&sim->row_ps, src->row_ps, src->row_count * sizeof *src->row_ps);
    if (rc != 0) {
        strata_sim_free(sim);
        return NULL;
    }
    return sim;
}

const struct strata_flash *strata_sim_flash(const struct strata_sim *sim)
{
    return sim ? &sim->flash : NULL;
}

const struct strata_sim_config *strata_sim_config_of(const struct strata_sim *sim)
{
    return &sim->cfg;
}

/* ---- power control --------------------------------------------------------------------------- */

void strata_sim_cut_at_op(struct strata_sim *sim, uint64_t k)
{
    sim->cut_op = k;
}

void strata_sim_cut_after_bytes(struct strata_sim *sim, uint64_t n)
{
    sim->cut_bytes = n;
}

void strata_sim_set_tear(struct strata_sim *sim, enum strata_sim_tear tear)
{
    sim->tear = tear;
}

void strata_sim_set_tear_seed(struct strata_sim *sim, uint64_t seed)
{
    sim->tear_seed = seed;
}

void strata_sim_cut_now(struct strata_sim *sim)
{
    if (sim->powered)
        sim_power_fail(sim);
}

int strata_sim_powered(const struct strata_sim *sim)
{
    return sim->powered;
}

void strata_sim_reboot(struct strata_sim *sim)
{
    sim->powered = 1;
    sim->cut_op = 0;
    sim->cut_bytes = 0;
    sim->last_read_end = sim->last_prog_end = 0;
}

uint64_t strata_sim_mutations(const struct strata_sim *sim)
{
    return sim->mutations;
}

void strata_sim_set_observer(struct strata_sim *sim, strata_sim_observer fn, void *arg)
{
    sim->observer = fn;
    sim->observer_arg = arg;
}
