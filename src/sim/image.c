/* Saving and loading simulated devices (docs/format-sim-image.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/crc.h"
#include "sim_internal.h"

#define IMAGE_MAGIC "STRATASM"
#define IMAGE_VERSION 2u
#define HEADER_LEN 112u
#define MAX_SECTIONS 12
#define NAME_LEN 32u

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* One section of the image: `count` elements of `width` bytes at `base`. */
struct section {
    void *base;
    size_t count;
    unsigned width;
};

static size_t sections_of(struct strata_sim *sim, struct section *s)
{
    size_t n = 0, units = sim->flash.geo.erase_count;
    s[n].base = sim->data, s[n].count = strata_flash_size(&sim->flash), s[n++].width = 1;
    if (sim->spare)
        s[n].base = sim->spare, s[n].count = (size_t)sim->page_count * sim->flash.geo.spare_size,
        s[n++].width = 1;
    s[n].base = sim->wear, s[n].count = units, s[n++].width = 4;
    s[n].base = sim->wear_limit, s[n].count = units, s[n++].width = 4;
    s[n].base = sim->unit_state, s[n].count = units, s[n++].width = 1;
    if (sim->page_progs)
        s[n].base = sim->page_progs, s[n].count = sim->page_count, s[n++].width = 1;
    if (sim->top_page)
        s[n].base = sim->top_page, s[n].count = units, s[n++].width = 4;
    if (sim->row_ps)
        s[n].base = sim->row_ps, s[n].count = sim->row_count, s[n++].width = 8;
    if (sim->reads) {
        s[n].base = sim->reads, s[n].count = units, s[n++].width = 4;
        s[n].base = sim->erased_at, s[n].count = units, s[n++].width = 4;
        s[n].base = sim->page_flags, s[n].count = sim->page_count, s[n++].width = 1;
        s[n].base = sim->regions, s[n].count = (size_t)sim->page_count * sim->region_bytes,
        s[n++].width = 1;
    }
    return n;
}

static uint64_t element(const struct section *s, size_t i)
{
    switch (s->width) {
    case 1: return ((const uint8_t *)s->base)[i];
    case 4: return ((const uint32_t *)s->base)[i];
    default: return ((const uint64_t *)s->base)[i];
    }
}

static void set_element(const struct section *s, size_t i, uint64_t v)
{
    switch (s->width) {
    case 1: ((uint8_t *)s->base)[i] = (uint8_t)v; break;
    case 4: ((uint32_t *)s->base)[i] = (uint32_t)v; break;
    default: ((uint64_t *)s->base)[i] = v; break;
    }
}

/* Length of a whole image for this profile and size, from the geometry alone, so a header can be
 * checked against the file before anything is allocated. */
static uint64_t image_length_for(const struct strata_sim_profile *p, uint32_t units)
{
    const struct strata_flash_geometry *g = &p->geo;
    uint64_t pages = (uint64_t)units * (g->erase_size / g->page_size);
    uint64_t len = HEADER_LEN + 4 + (uint64_t)units * g->erase_size; /* header, CRC, main */
    len += pages * g->spare_size + (uint64_t)units * (4 + 4 + 1);     /* spare, wear, state */
    if (p->kind == STRATA_SIM_NAND) {
        uint32_t regions = (g->prog_region ? g->page_size / g->prog_region : 1) +
                           (g->spare_size ? (g->spare_region ? g->spare_size / g->spare_region
                                                             : 1)
                                          : 0);
        len += pages + (uint64_t)units * 4;                           /* page states */
        len += (uint64_t)units * (4 + 4) + pages * (1 + (regions + 7) / 8); /* stress, flags */
    }
    if (p->row_size)
        len += (uint64_t)units * p->geo.erase_size / p->row_size * 8;     /* row times */
    return len;
}

static size_t image_length(const struct strata_sim *sim)
{
    return (size_t)image_length_for(sim->profile, sim->flash.geo.erase_count);
}

static void write_header(const struct strata_sim *sim, uint8_t *h)
{
    uint64_t rate_bits;
    memset(h, 0, HEADER_LEN);
    memcpy(h, IMAGE_MAGIC, 8);
    put_le(h + 8, IMAGE_VERSION, 4);
    put_le(h + 12, HEADER_LEN, 4);
    strncpy((char *)h + 16, sim->profile->name, NAME_LEN - 1);
    put_le(h + 48, sim->cfg.erase_count, 4);
    put_le(h + 52, sim->cfg.options, 4);
    put_le(h + 56, sim->cfg.factory_bad, 4);
    put_le(h + 60, sim->cfg.wear_limit, 4);
    put_le(h + 64, sim->cfg.wear_spread, 4);
    put_le(h + 68, (uint64_t)sim->cfg.tear_model, 4);
    memcpy(&rate_bits, &sim->cfg.read_flip_rate, 8);
    put_le(h + 72, rate_bits, 8);
    put_le(h + 80, sim->cfg.seed, 8);
    put_le(h + 88, sim->rng, 8);
    put_le(h + 96, sim->clock_h, 4);
    memcpy(&rate_bits, &sim->cfg.status_fail_rate, 8);
    put_le(h + 104, rate_bits, 8);
}

int strata_sim_image_save(const struct strata_sim *csim, const char *path)
{
    struct strata_sim *sim = (struct strata_sim *)csim; /* sections_of only reads through it */
    struct section s[MAX_SECTIONS];
    size_t n, i, j, len, at;
    uint8_t *buf;
    char *tmp;
    FILE *f;
    int rc = 0;
    if (sim == NULL || path == NULL)
        return STRATA_EINVAL;
    len = image_length(sim);
    buf = malloc(len);
    tmp = malloc(strlen(path) + 5);
    if (buf == NULL || tmp == NULL) {
        free(buf);
        free(tmp);
        return STRATA_ENOMEM;
    }
    write_header(sim, buf);
    at = HEADER_LEN;
    n = sections_of(sim, s);
    for (i = 0; i < n; i++)
        for (j = 0; j < s[i].count; j++, at += s[i].width)
            put_le(buf + at, element(&s[i], j), s[i].width);
    put_le(buf + at, strata_crc32(0, buf, at), 4);
    /* Write aside, then rename: a crash never leaves a half-written image under `path`. */
    sprintf(tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (f == NULL || fwrite(buf, 1, len, f) != len)
        rc = STRATA_EIO;
    if (f != NULL && fclose(f) != 0)
        rc = STRATA_EIO;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = STRATA_EIO;
    if (rc != 0)
        remove(tmp);
    free(tmp);
    free(buf);
    return rc;
}

/* The longest image any profile this build knows can have: no longer file is worth reading. */
static uint64_t max_image_length(void)
{
    uint64_t max = 0;
    size_t i;
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        uint64_t len = image_length_for(p, UINT32_MAX / p->geo.erase_size);
        max = len > max ? len : max;
    }
    return max;
}

static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long size;
    *out = NULL;
    if (f == NULL)
        return STRATA_EIO;
    /* A directory opens but cannot be read, and its "size" means nothing. */
    if (fgetc(f) == EOF && ferror(f)) {
        fclose(f);
        return STRATA_EIO;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return STRATA_EIO;
    }
    if ((uint64_t)size > max_image_length()) {
        fclose(f);
        return STRATA_ECORRUPT;
    }
    *len = (size_t)size;
    *out = malloc(*len ? *len : 1);
    if (*out == NULL || fread(*out, 1, *len, f) != *len) {
        fclose(f);
        free(*out);
        *out = NULL;
        return *len ? STRATA_EIO : STRATA_ECORRUPT;
    }
    fclose(f);
    return 0;
}

/* Build the device the header describes; STRATA_ECORRUPT if it describes none. */
static int sim_from_header(const uint8_t *h, size_t file_len, struct strata_sim **out)
{
    struct strata_sim_config cfg;
    char name[NAME_LEN + 1];
    uint64_t rate_bits;
    memset(&cfg, 0, sizeof cfg);
    memcpy(name, h + 16, NAME_LEN);
    name[NAME_LEN] = '\0';
    cfg.profile = strata_sim_profile_find(name);
    cfg.erase_count = (uint32_t)get_le(h + 48, 4);
    cfg.options = (uint32_t)get_le(h + 52, 4);
    cfg.wear_limit = (uint32_t)get_le(h + 60, 4);
    cfg.wear_spread = (uint32_t)get_le(h + 64, 4);
    if (get_le(h + 68, 4) > STRATA_SIM_TEAR_MODEL_SUBSET)
        return STRATA_ECORRUPT;
    cfg.tear_model = (enum strata_sim_tear_model)get_le(h + 68, 4);
    rate_bits = get_le(h + 72, 8);
    memcpy(&cfg.read_flip_rate, &rate_bits, 8);
    cfg.seed = get_le(h + 80, 8);
    rate_bits = get_le(h + 104, 8);
    memcpy(&cfg.status_fail_rate, &rate_bits, 8);
    if (cfg.profile == NULL || cfg.erase_count == 0 || !(cfg.read_flip_rate >= 0.0) ||
        !(cfg.status_fail_rate >= 0.0) ||
        (uint64_t)cfg.erase_count * cfg.profile->geo.erase_size > UINT32_MAX ||
        image_length_for(cfg.profile, cfg.erase_count) != file_len)
        return STRATA_ECORRUPT;
    /* factory bad units are restored from the stored unit states, not placed anew */
    *out = strata_sim_new(&cfg);
    if (*out == NULL)
        return STRATA_ECORRUPT;
    (*out)->cfg.factory_bad = (uint32_t)get_le(h + 56, 4);
    (*out)->rng = get_le(h + 88, 8);
    (*out)->clock_h = (uint32_t)get_le(h + 96, 4);
    return 0;
}

#define KNOWN_OPTIONS                                                                          \
    (STRATA_SIM_OPT_ROW_TIME | STRATA_SIM_OPT_ABORT_ON_VIOLATION | STRATA_SIM_OPT_IDEAL |      \
     STRATA_SIM_OPT_HW_ECC)

/* A unit's state against what its pages and markers say. */
static int unit_plausible(const struct strata_sim *sim, uint32_t u)
{
    int nand = sim->profile->kind == STRATA_SIM_NAND;
    /* only NAND has bad blocks and weak cells: elsewhere a unit can be worn, nothing else */
    uint8_t reachable = nand ? UNIT_BAD | UNIT_WORN | UNIT_WEAK : UNIT_WORN;
    if (sim->unit_state[u] & ~reachable)
        return 0;
    if (!nand)
        return 1;
    /* bad means the markers say so; the retention clock never runs backwards */
    return ((sim->unit_state[u] & UNIT_BAD) != 0) == sim_marker_bad(sim, u) &&
           sim->erased_at[u] <= sim->clock_h && sim->top_page[u] >= -1 &&
           sim->top_page[u] < (int32_t)sim->pages_per_unit;
}

/* A NAND page's state: programs within NOP, at or below its block's top page, flags and
 * regions only on pages programmed since the erase, no region bit beyond the page's regions. */
static int page_plausible(const struct strata_sim *sim, uint32_t p)
{
    uint32_t nop = sim->flash.geo.nop, r;
    const uint8_t *reg = sim->regions + (size_t)p * sim->region_bytes;
    uint8_t progs = sim->page_progs[p], flags = sim->page_flags[p];
    if (progs != PAGE_TORN && nop != 0 && progs > nop)
        return 0;
    if (progs != 0 && (int32_t)(p % sim->pages_per_unit) > sim->top_page[p / sim->pages_per_unit])
        return 0;
    if ((flags & PAGE_DECAY) && !(flags & PAGE_WEAK))
        return 0;
    for (r = 0; r < sim->region_bytes * 8; r++)
        if ((reg[r / 8] >> (r % 8)) & 1u)
            if (progs == 0 || r >= sim->regions_per_page)
                return 0;
    return progs != 0 || flags == 0;
}

/* Every stored state must be one the simulator itself can reach: a CRC-valid crafted image must
 * not load an impossible device. */
static int states_plausible(const struct strata_sim *sim)
{
    uint32_t i;
    if (sim->cfg.options & ~(uint32_t)KNOWN_OPTIONS)
        return 0;
    for (i = 0; i < sim->flash.geo.erase_count; i++)
        if (!unit_plausible(sim, i))
            return 0;
    for (i = 0; sim->page_progs && i < sim->page_count; i++)
        if (!page_plausible(sim, i))
            return 0;
    return 1;
}

int strata_sim_image_load(const char *path, struct strata_sim **out)
{
    struct strata_sim *sim = NULL;
    struct section s[MAX_SECTIONS];
    uint8_t *buf;
    size_t len, n, i, j, at;
    int rc;
    if (out == NULL || path == NULL)
        return STRATA_EINVAL;
    *out = NULL;
    if ((rc = read_file(path, &buf, &len)) != 0)
        return rc;
    rc = STRATA_ECORRUPT;
    if (len < HEADER_LEN + 4 || memcmp(buf, IMAGE_MAGIC, 8) != 0)
        goto done;
    if (get_le(buf + 8, 4) != IMAGE_VERSION) {
        rc = STRATA_EVERSION;
        goto done;
    }
    if (get_le(buf + 12, 4) != HEADER_LEN || get_le(buf + len - 4, 4) != strata_crc32(0, buf, len - 4))
        goto done;
    if ((rc = sim_from_header(buf, len, &sim)) != 0)
        goto done;
    rc = STRATA_ECORRUPT;
    at = HEADER_LEN;
    n = sections_of(sim, s);
    for (i = 0; i < n; i++)
        for (j = 0; j < s[i].count; j++, at += s[i].width)
            set_element(&s[i], j, get_le(buf + at, s[i].width));
    if (!states_plausible(sim))
        goto done;
    rc = 0;
done:
    free(buf);
    if (rc != 0)
        strata_sim_free(sim);
    else
        *out = sim;
    return rc;
}
