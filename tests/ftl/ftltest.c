#include "ftltest.h"

#include <stdio.h>
#include <stdlib.h>

static struct strata_sim_profile variants[8];
static char variant_names[8][32];
static size_t variant_count;

const char *ft_small_blocks(const char *base, uint32_t pages)
{
    const struct strata_sim_profile *b = strata_sim_profile_find(base);
    size_t i;
    assert_non_null(b);
    for (i = 0; i < variant_count; i++)
        if (variants[i].geo.erase_size == pages * b->geo.page_size &&
            strncmp(variant_names[i], base, strlen(base)) == 0)
            return variant_names[i];
    assert_true(variant_count < 8);
    variants[variant_count] = *b;
    variants[variant_count].geo.erase_size = pages * b->geo.page_size;
    snprintf(variant_names[variant_count], sizeof variant_names[0], "%s/%u", base,
             (unsigned)pages);
    variants[variant_count].name = variant_names[variant_count];
    return variant_names[variant_count++];
}

const struct strata_sim_profile *ft_profile(const char *name)
{
    size_t i;
    for (i = 0; i < variant_count; i++)
        if (strcmp(variant_names[i], name) == 0)
            return &variants[i];
    return strata_sim_profile_find(name);
}

int ft_try_open(struct ft_dev *d, const struct ft_params *p, const struct strata_sim_config *sc,
                ft_wrap_fn wrap, void *arg)
{
    uint32_t need = 0;
    int rc;
    memset(d, 0, sizeof *d);
    assert_non_null(sc->profile);
    d->sim = strata_sim_new(sc);
    assert_non_null(d->sim);
    d->cfg.flash = wrap != NULL ? wrap(d->sim, arg) : strata_sim_flash(d->sim);
    d->cfg.sectors = p->sectors;
    d->cfg.mode = p->mode;
    d->cfg.degree = p->degree;
    d->cfg.shrink = p->shrink;
    d->cfg.map_cache = p->cache;
    d->cfg.reserve = p->reserve;
    if ((rc = strata_ftl_ram_size(&d->cfg, &need)) != 0) {
        strata_sim_free(d->sim);
        return rc;
    }
    d->ram = calloc(need / 4u + 1u, 4u);
    assert_non_null(d->ram);
    d->cfg.ram = d->ram;
    d->cfg.ram_size = need;
    rc = strata_ftl_format(&d->ftl, &d->cfg);
    if (rc != 0)
        fail_msg("format: %d %s", rc, strata_strerror(rc));
    strata_ftl_dev(&d->ftl, &d->dev);
    return 0;
}

void ft_open_sim(struct ft_dev *d, const struct ft_params *p, const struct strata_sim_config *sc)
{
    assert_int_equal(ft_try_open(d, p, sc, NULL, NULL), 0);
}

void ft_open(struct ft_dev *d, const struct ft_params *p)
{
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = ft_profile(p->profile);
    sc.erase_count = p->units;
    sc.seed = p->seed;
    sc.factory_bad = p->factory_bad;
    ft_open_sim(d, p, &sc);
}

int ft_mount(struct ft_dev *d)
{
    int rc = strata_ftl_mount(&d->ftl, &d->cfg);
    strata_ftl_dev(&d->ftl, &d->dev);
    return rc;
}

void ft_close(struct ft_dev *d)
{
    strata_sim_free(d->sim);
    free(d->ram);
}

void ft_model_init(struct ft_model *m, uint32_t sectors, uint32_t size)
{
    m->sectors = sectors;
    m->size = size;
    m->next = 1;
    m->stamp = calloc(sectors, sizeof *m->stamp);
    assert_non_null(m->stamp);
}

void ft_model_free(struct ft_model *m)
{
    free(m->stamp);
}

void ft_fill(uint8_t *buf, uint32_t size, uint32_t s, uint32_t v)
{
    uint32_t i, x = s * 2654435761u ^ v * 40503u ^ 0x5bd1e995u;
    if (v == 0) {
        memset(buf, 0, size);
        return;
    }
    for (i = 0; i + 8u <= size; i += 8u) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        memcpy(buf + i, &s, 4);
        memcpy(buf + i + 4, &x, 4);
    }
    memcpy(buf, &v, 4); /* the stamp, readable back */
}

uint32_t ft_stamp_of(const uint8_t *buf, uint32_t size, uint32_t s)
{
    uint8_t *want = malloc(size);
    uint32_t v;
    memcpy(&v, buf, 4);
    ft_fill(want, size, s, v);
    if (memcmp(want, buf, size) != 0)
        v = UINT32_MAX;
    free(want);
    return v;
}

int ft_write(const struct strata_sector_dev *dev, struct ft_model *m, uint32_t s)
{
    uint8_t *buf = malloc(m->size);
    uint32_t v = m->next++;
    int rc;
    ft_fill(buf, m->size, s, v);
    rc = dev->write(dev->ctx, s, buf);
    if (rc == 0)
        m->stamp[s] = v;
    free(buf);
    return rc;
}

void ft_check(const struct strata_sector_dev *dev, const struct ft_model *m, uint32_t s)
{
    uint8_t *buf = malloc(m->size);
    int rc = dev->read(dev->ctx, s, buf);
    uint32_t got;
    if (rc != 0)
        fail_msg("read of sector %u: %d %s", (unsigned)s, rc, strata_strerror(rc));
    got = ft_stamp_of(buf, m->size, s);
    if (got != m->stamp[s])
        fail_msg("sector %u reads stamp %u, the model says %u", (unsigned)s, (unsigned)got,
                 (unsigned)m->stamp[s]);
    free(buf);
}

void ft_check_all(const struct strata_sector_dev *dev, const struct ft_model *m)
{
    uint32_t s;
    for (s = 0; s < m->sectors; s++)
        ft_check(dev, m, s);
}

uint32_t ft_pick(struct ts_rng *r, uint32_t sectors)
{
    uint32_t hot = sectors / 8u > 0 ? sectors / 8u : 1u;
    return ts_rng_below(r, 2) ? ts_rng_below(r, hot) : ts_rng_below(r, sectors);
}

void ft_random_ops(const struct strata_sector_dev *dev, struct ft_model *m, struct ts_rng *r,
                   uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint32_t s = ft_pick(r, m->sectors);
        if (ts_rng_below(r, 4) == 0) {
            ft_check(dev, m, s);
        } else {
            int rc = ft_write(dev, m, s);
            if (rc != 0)
                fail_msg("write %u of sector %u: %d %s", (unsigned)i, (unsigned)s, rc,
                         strata_strerror(rc));
        }
    }
}
