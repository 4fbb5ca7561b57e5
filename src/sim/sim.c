/*
 * Simulated devices: the main-area operations of the flash contract (read, program, erase) and
 * the table of operations (the NAND page and bad-block entries are in nand.c).
 *
 * Each mutating operation runs in four steps: refuse anything the medium forbids (violation,
 * nothing applied), count it and ask whether power fails during it (torn result), fail it if the
 * unit is worn out or (NAND) its status fails (EIO), otherwise apply it and charge its cost.
 */
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

uint32_t sim_pages_touched(const struct strata_sim *sim, uint32_t addr, uint32_t len)
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

int sim_check_unit(struct strata_sim *sim, const char *what, uint32_t unit, int bad_ok)
{
    if (unit >= sim->flash.geo.erase_count)
        return sim_violation(sim, STRATA_SIM_V_RANGE, "%s of unit %u (device has %u)", what,
                             (unsigned)unit, (unsigned)sim->flash.geo.erase_count);
    if (!bad_ok && (sim->unit_state[unit] & UNIT_BAD))
        return sim_violation(sim, STRATA_SIM_V_BAD_BLOCK, "%s of bad unit %u", what,
                             (unsigned)unit);
    return 0;
}

static void op_cost(struct strata_sim_op *op, const struct strata_sim_cost *c, uint32_t pages)
{
    op->time_ps = c->fixed_ps + c->page_ps * pages + c->byte_ps * op->len;
    op->energy_pj = c->fixed_pj + c->page_pj * pages + c->byte_pj * op->len;
}

/* ---- reads ---------------------------------------------------------------------------------- */

static const struct strata_sim_cost *read_cost(struct strata_sim *sim, uint32_t addr,
                                               uint32_t len)
{
    int random = sim->profile->kind == STRATA_SIM_FTL && addr != sim->last_read_end;
    sim->last_read_end = addr + len;
    return random ? &sim->profile->read_random : &sim->profile->read;
}

/* NAND: each page read gets its bit errors (corrected by the device with HW_ECC). */
static int nand_read_errors(struct strata_sim *sim, uint32_t addr, uint8_t *buf, uint32_t len)
{
    uint32_t ps = sim->flash.geo.page_size, i = 0;
    int rc = 0;
    while (i < len) {
        uint32_t a = addr + i, n = ps - a % ps;
        if (n > len - i)
            n = len - i;
        if (sim_page_errors(sim, a / ps, buf + i, a % ps, n, NULL) == STRATA_EECC)
            rc = STRATA_EECC;
        i += n;
    }
    return rc;
}

static int op_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    struct strata_sim *sim = sim_of(f);
    struct strata_sim_op op;
    const struct strata_sim_cost *cost;
    uint32_t pages;
    int rc;
    if (!sim->powered)
        return STRATA_EPOWER;
    if ((rc = check_access(sim, "read", addr, len, f->geo.read_size)) != 0)
        return rc;
    cost = read_cost(sim, addr, len);
    pages = sim_pages_touched(sim, addr, len);
    op.kind = STRATA_SIM_OP_READ;
    op.addr = addr;
    op.len = len;
    op_cost(&op, cost, pages);
    if (sim_read_cut(sim, &op))
        return STRATA_EPOWER;
    memcpy(buf, sim->data + addr, len);
    if (sim_is_nand(sim))
        rc = nand_read_errors(sim, addr, buf, len);
    sim_charge(sim, cost, pages, len);
    sim->stats.reads++;
    sim->stats.read_bytes += len;
    return rc;
}

/* ---- programs ------------------------------------------------------------------------------- */

/* The MSP430 rule: cumulative program time per row between erases. */
static int check_row_time(struct strata_sim *sim, uint32_t addr, uint32_t len)
{
    uint32_t rs = sim->profile->row_size, i;
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
            uint32_t a = addr + i, n = ps - a % ps;
            if (n > len - i)
                n = len - i;
            if ((rc = sim_check_nand_page(sim, a / ps, src + i, a % ps, n, NULL, "program")) != 0)
                return rc;
            i += n;
        }
        break;
    default:
        break;
    }
    if (sim->row_ps != NULL && (sim->cfg.options & STRATA_SIM_OPT_ROW_TIME))
        return check_row_time(sim, addr, len);
    return 0;
}

/* Record MSP430 row time for bytes [addr, addr+len). */
static void note_row_time(struct strata_sim *sim, uint32_t addr, uint32_t len)
{
    uint32_t rs = sim->profile->row_size, i;
    for (i = 0; sim->row_ps != NULL && i < len;) {
        uint32_t a = addr + i, n = rs - a % rs;
        if (n > len - i)
            n = len - i;
        sim->row_ps[a / rs] += sim->profile->prog.byte_ps * n;
        i += n;
    }
}

/* Apply the first cut.pos bytes (and a torn cut byte/page) of a program; `power_cut` says the cut
 * is power failing (not a worn unit or status failure), which may leave NAND cells weak. */
static void apply_prog(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                       struct sim_cut cut, int power_cut)
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
        note_row_time(sim, addr, done + (uint32_t)(cut.cut && cut.partial));
        break;
    case STRATA_SIM_NAND:
        sim_nand_apply(sim, addr, src, len, cut, power_cut);
        break;
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

/* A program that fails (worn unit, or a status failure at `fail`): the cells end up anywhere
 * between old and new, never as intended (NAND: the failing page torn, pages before it
 * programmed), and the device reports the failure, unless power failed during it (a cut `cut`
 * stops the failing program no later than where the cut lands). */
static int fail_prog(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                     struct sim_cut cut, struct sim_cut fail, const struct strata_sim_cost *cost)
{
    struct sim_bit keep = sim_pick_clearing(sim, sim->data + addr, src, len);
    if (cut.cut && cut.pos < fail.pos) {
        fail.pos = cut.pos;
        fail.partial = cut.partial;
    }
    apply_prog(sim, addr, src, len, fail, 0);
    if (!sim_is_nand(sim)) /* a NAND page's tear keeps it unfinished itself */
        sim_keep_unfinished(sim->data + addr, src, len, keep);
    sim_charge(sim, cost, sim_pages_touched(sim, addr, len), len);
    sim->stats.io_errors++;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return STRATA_EIO;
}

/* NAND: whether one of the operation's page programs fails its status, and where. */
static int status_fail_at(struct strata_sim *sim, uint32_t addr, uint32_t len,
                          struct sim_cut *fail)
{
    uint32_t ps = sim->flash.geo.page_size, i = 0;
    while (i < len) {
        uint32_t n = ps - (addr + i) % ps;
        if (sim_status_fails(sim, 0)) {
            fail->cut = fail->partial = 1;
            fail->pos = i;
            return 1;
        }
        i += n < len - i ? n : len - i;
    }
    return 0;
}

static int op_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    struct strata_sim *sim = sim_of(f);
    const uint8_t *src = buf;
    const struct strata_sim_cost *cost = &sim->profile->prog;
    struct strata_sim_op op;
    struct sim_cut cut, fail = {1, 0, 1};
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
    pages = sim_pages_touched(sim, addr, len);
    op.kind = STRATA_SIM_OP_PROG;
    op.addr = addr;
    op.len = len;
    op_cost(&op, cost, pages);
    cut = sim_cut_decide(sim, &op);
    for (u = sim_unit_of(sim, addr); u <= sim_unit_of(sim, addr + len - 1); u++)
        worn |= (sim->unit_state[u] & UNIT_WORN) != 0;
    sim->stats.progs++;
    if (worn && !(cut.cut && !cut.partial && cut.pos == 0)) {
        fail.pos = sim_rand_below(sim, len);
        return fail_prog(sim, addr, src, len, cut, fail, cost);
    }
    if (sim_completes(cut, len) && status_fail_at(sim, addr, len, &fail))
        return fail_prog(sim, addr, src, len, cut, fail, cost);
    apply_prog(sim, addr, src, len, cut, 1);
    if (cut.cut) {
        sim_charge(sim, cost, sim_pages_touched(sim, addr, cut.pos), cut.pos);
        sim->stats.prog_bytes += cut.pos;
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    sim_charge(sim, cost, pages, len);
    sim->stats.prog_bytes += len;
    return 0;
}

/* ---- erase ---------------------------------------------------------------------------------- */

/* After an erase of `unit`: NAND page states (weak: the erase was cut late into weak cells); MCU
 * row times restart only after a complete erase. */
static void reset_unit_state(struct strata_sim *sim, uint32_t unit, int complete, int weak)
{
    uint32_t i;
    if (sim_is_nand(sim))
        sim_reset_nand_unit(sim, unit, complete || weak, weak);
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

/* An erase that fails (worn unit, or a status failure): it stops part-way (or where a cut stops
 * it first) and is reported, unless power failed. */
static int fail_erase(struct strata_sim *sim, uint32_t unit, struct sim_cut cut, int worn)
{
    struct sim_cut fail = {1, 0, 1};
    fail.pos = sim_rand_below(sim, sim->flash.geo.erase_size);
    if (cut.cut && cut.pos < fail.pos)
        fail.pos = cut.pos;
    erase_bytes(sim, unit, fail);
    reset_unit_state(sim, unit, 0, 0);
    if (worn)
        sim->unit_state[unit] |= UNIT_WORN;
    sim->stats.io_errors++;
    if (cut.cut) {
        sim_power_fail(sim);
        return STRATA_EPOWER;
    }
    return STRATA_EIO;
}

static int op_erase(const struct strata_flash *f, uint32_t unit)
{
    struct strata_sim *sim = sim_of(f);
    const struct strata_sim_cost *cost = &sim->profile->erase;
    struct strata_sim_op op;
    struct sim_cut cut, whole = {1, 0, 0};
    int rc, weak;
    if (!sim->powered)
        return STRATA_EPOWER;
    if (f->caps & STRATA_FLASH_CAP_NO_ERASE)
        return sim_violation(sim, STRATA_SIM_V_NO_ERASE, "erase of unit %u on %s", (unsigned)unit,
                             sim->profile->name);
    if ((rc = sim_check_unit(sim, "erase", unit, 0)) != 0)
        return rc;
    op.kind = STRATA_SIM_OP_ERASE;
    op.addr = unit;
    op.len = f->geo.erase_size;
    op_cost(&op, cost, 0);
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
    if (sim->wear_limit[unit] != 0 && sim->wear[unit] > sim->wear_limit[unit])
        return fail_erase(sim, unit, cut, 1);
    if (sim_completes(cut, f->geo.erase_size) && sim_status_fails(sim, 1))
        return fail_erase(sim, unit, cut, 0);
    /* Cut late with weak cells on (NAND), the unit reads erased but holds charge poorly. */
    weak = sim_cut_leaves_weak(sim, cut, f->geo.erase_size);
    whole.pos = f->geo.erase_size;
    erase_bytes(sim, unit, cut.cut && !weak ? cut : whole);
    reset_unit_state(sim, unit, !cut.cut || (!cut.partial && cut.pos == f->geo.erase_size),
                     weak);
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

const struct strata_flash_ops sim_ops = {
    op_read, op_prog, op_erase, sim_op_page_read, sim_op_page_prog, sim_op_is_bad,
    sim_op_mark_bad, op_sync,
};
