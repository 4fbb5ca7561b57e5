#include "nandtest.h"

#include <stdlib.h>

const char *const nt_profiles[4] = {"tc58dvg02", "mt29f4g08", "k9f1g08", "nand-pic24"};

struct strata_sim *nt_sim_cfg(const struct strata_sim_config *cfg)
{
    struct strata_sim *sim = strata_sim_new(cfg);
    assert_non_null(sim);
    return sim;
}

const struct strata_sim_profile *nt_profile_variant(const char *base,
                                                    const struct strata_flash_geometry *geo)
{
    static struct strata_sim_profile variants[64];
    static size_t used;
    const struct strata_sim_profile *p = strata_sim_profile_find(base);
    assert_non_null(p);
    assert_true(used < NT_COUNT(variants));
    variants[used] = *p;
    variants[used].geo = *geo;
    return &variants[used++];
}

int nt_mount(struct nt_mount *m, const struct strata_flash *f, enum nt_table table,
             int page_buffer)
{
    memset(&m->cfg, 0, sizeof m->cfg);
    m->cfg.flash = f;
    m->cfg.buf = m->buf;
    m->cfg.buf_size = page_buffer ? f->geo.page_size + f->geo.spare_size : f->geo.spare_size;
    assert_true(m->cfg.buf_size <= sizeof m->buf);
    if (table == NT_MAP)
        m->cfg.bad_map = m->map;
    else if (table == NT_LIST) {
        m->cfg.bad_list = m->list;
        m->cfg.bad_list_len = (uint16_t)NT_COUNT(m->list);
    }
    return nt_remount(m);
}

int nt_remount(struct nt_mount *m)
{
    return strata_nand_mount(&m->nand, &m->cfg);
}

uint32_t nt_bit_diff(const uint8_t *a, const uint8_t *b, uint32_t len)
{
    uint32_t i, n = 0;
    for (i = 0; i < len; i++) {
        uint32_t v = (uint32_t)(a[i] ^ b[i]);
        for (; v != 0; v &= v - 1)
            n++;
    }
    return n;
}

/* ---- the wrapper device --------------------------------------------------------------------- */

static struct nt_dev *dev_of(const struct strata_flash *f)
{
    return (struct nt_dev *)f->ctx;
}

static int w_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    return dev_of(f)->inner->ops->read(dev_of(f)->inner, addr, buf, len);
}

static int w_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    return dev_of(f)->inner->ops->prog(dev_of(f)->inner, addr, buf, len);
}

static int w_erase(const struct strata_flash *f, uint32_t unit)
{
    struct nt_dev *d = dev_of(f);
    int rc = d->inner->ops->erase(d->inner, unit);
    if (rc == 0 && d->hw_ecc) {
        uint32_t ppb = f->geo.erase_size / f->geo.page_size;
        memset(d->shadow_data + (size_t)unit * f->geo.erase_size, 0xFF, f->geo.erase_size);
        memset(d->shadow_spare + (size_t)unit * ppb * f->geo.spare_size, 0xFF,
               (size_t)ppb * f->geo.spare_size);
    }
    return rc;
}

/* Correct the page's codewords against what was programmed, as on-die ECC would. */
static int hw_correct(const struct strata_flash *f, uint32_t page, uint8_t *data, uint8_t *spare)
{
    struct nt_dev *d = dev_of(f);
    uint32_t step = f->geo.ecc_step, cws = f->geo.page_size / step;
    uint32_t share = f->geo.spare_size / cws, c, worst = 0;
    const uint8_t *sd = d->shadow_data + (size_t)page * f->geo.page_size;
    const uint8_t *ss = d->shadow_spare + (size_t)page * f->geo.spare_size;
    int failed = 0;
    for (c = 0; c < cws; c++) {
        uint32_t bits = nt_bit_diff(data + c * step, sd + c * step, step) +
                        nt_bit_diff(spare + c * share, ss + c * share, share);
        if (bits > f->geo.ecc_strength) {
            failed = 1;
            continue;
        }
        memcpy(data + c * step, sd + c * step, step);
        memcpy(spare + c * share, ss + c * share, share);
        worst = bits > worst ? bits : worst;
    }
    return failed ? STRATA_EECC : (int)worst;
}

static int w_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    struct nt_dev *d = dev_of(f);
    uint8_t tdata[NT_MAX_PAGE], tspare[NT_MAX_SPARE];
    int rc = d->inner->ops->page_read(d->inner, page, data != NULL ? data : tdata,
                                      spare != NULL ? spare : tspare);
    if (rc != 0 || !d->hw_ecc)
        return rc;
    if (d->scripted) { /* the raw cells, and the result the test chose */
        d->scripted = 0;
        return d->script;
    }
    return hw_correct(f, page, data != NULL ? data : tdata, spare != NULL ? spare : tspare);
}

static int w_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                       const void *spare)
{
    struct nt_dev *d = dev_of(f);
    uint32_t i;
    int rc;
    if (page == d->fail_prog_page)
        return STRATA_EIO;
    rc = d->inner->ops->page_prog(d->inner, page, data, spare);
    d->page_progs++;
    if (rc != 0 || !d->hw_ecc)
        return rc;
    for (i = 0; data != NULL && i < f->geo.page_size; i++)
        d->shadow_data[(size_t)page * f->geo.page_size + i] &= ((const uint8_t *)data)[i];
    for (i = 0; spare != NULL && i < f->geo.spare_size; i++)
        d->shadow_spare[(size_t)page * f->geo.spare_size + i] &= ((const uint8_t *)spare)[i];
    return 0;
}

static int w_is_bad(const struct strata_flash *f, uint32_t unit)
{
    return dev_of(f)->inner->ops->is_bad(dev_of(f)->inner, unit);
}

static int w_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    return dev_of(f)->inner->ops->mark_bad(dev_of(f)->inner, unit);
}

static int w_sync(const struct strata_flash *f)
{
    return dev_of(f)->inner->ops->sync(dev_of(f)->inner);
}

static const struct strata_flash_ops wrapper_ops = {
    w_read, w_prog, w_erase, w_page_read, w_page_prog, w_is_bad, w_mark_bad, w_sync,
};

void nt_dev_init(struct nt_dev *d, const struct strata_flash *inner, uint32_t hw_ecc,
                 uint32_t ecc_bytes)
{
    memset(d, 0, sizeof *d);
    d->inner = inner;
    d->flash = *inner;
    d->flash.ops = &wrapper_ops;
    d->flash.ctx = d;
    d->fail_prog_page = UINT32_MAX;
    if (hw_ecc) {
        size_t pages = strata_flash_page_count(inner);
        d->hw_ecc = 1;
        d->flash.caps |= STRATA_FLASH_CAP_HW_ECC;
        d->flash.geo.ecc_strength = (uint8_t)hw_ecc;
        d->flash.geo.ecc_bytes = (uint8_t)ecc_bytes;
        d->shadow_data = malloc(pages * inner->geo.page_size);
        d->shadow_spare = malloc(pages * inner->geo.spare_size);
        assert_non_null(d->shadow_data);
        assert_non_null(d->shadow_spare);
        memset(d->shadow_data, 0xFF, pages * inner->geo.page_size);
        memset(d->shadow_spare, 0xFF, pages * inner->geo.spare_size);
    }
}

void nt_dev_free(struct nt_dev *d)
{
    free(d->shadow_data);
    free(d->shadow_spare);
    d->shadow_data = d->shadow_spare = NULL;
}

/* ---- pages as stored ------------------------------------------------------------------------ */

void nt_flip(struct strata_sim *sim, uint32_t page, uint32_t bit)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = f->geo.page_size;
    if (bit < 8 * ps) {
        uint8_t b;
        uint32_t addr = page * ps + bit / 8;
        assert_int_equal(strata_sim_peek(sim, addr, &b, 1), 0);
        b ^= (uint8_t)(1u << (bit % 8));
        assert_int_equal(strata_sim_poke(sim, addr, &b, 1), 0);
    } else {
        uint8_t spare[NT_MAX_SPARE];
        bit -= 8 * ps;
        assert_int_equal(strata_sim_peek_spare(sim, page, spare), 0);
        spare[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_equal(strata_sim_poke_spare(sim, page, spare), 0);
    }
}

uint32_t nt_zero_bits(struct strata_sim *sim, uint32_t page)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t data[NT_MAX_PAGE], spare[NT_MAX_SPARE], ff[NT_MAX_PAGE];
    memset(ff, 0xFF, sizeof ff);
    assert_int_equal(strata_sim_peek(sim, page * f->geo.page_size, data, f->geo.page_size), 0);
    assert_int_equal(strata_sim_peek_spare(sim, page, spare), 0);
    return nt_bit_diff(data, ff, f->geo.page_size) + nt_bit_diff(spare, ff, f->geo.spare_size);
}

void nt_fill(uint8_t *buf, uint32_t len, uint64_t seed)
{
    struct ts_rng r;
    uint32_t i;
    ts_rng_seed(&r, seed);
    for (i = 0; i < len; i++)
        buf[i] = (uint8_t)ts_rng_next(&r);
}
