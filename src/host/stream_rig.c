/* A strata_stream store on simulated devices (stream_rig.h). */
#include "stream_rig.h"

#include <stdlib.h>
#include <string.h>

void rig_paper_format(struct strata_stream_config *f)
{
    f->record_size = 24;
    f->bucket_size = 256;
    f->bloom_bits = 2048;
    f->bloom_n = 256;
    f->bloom_hashes = 3;
    f->max_level = STRATA_STREAM_MAX_LEVEL;
    f->max_pages = 1024;
    f->split = STRATA_STREAM_SPLIT_ADAPTIVE;
}

void rig_defaults(struct rig_params *p)
{
    int sd = p->kind == RIG_SD || p->kind == RIG_SD_STAGE;
    if (p->data_profile == NULL)
        p->data_profile = sd ? "sd-spi" : "tc58dvg02";
    if (p->data_blocks == 0)
        p->data_blocks = 64;
    if (p->ftl_block_pages == 0)
        p->ftl_block_pages = 32;
    if (p->nor_profile == NULL)
        p->nor_profile = "at45db041";
    if (p->slot_units == 0)
        p->slot_units = 32;
    if (p->slots == 0)
        p->slots = 8;
    if (p->stage_size == 0)
        p->stage_size = 2048;
    if (p->fmt.record_size == 0 && p->fmt.bucket_size == 0)
        rig_paper_format(&p->fmt);
}

static struct strata_sim *new_sim(const char *profile, uint32_t units, const struct rig_params *p,
                                  int faults)
{
    struct strata_sim_config c;
    memset(&c, 0, sizeof c);
    c.profile = strata_sim_profile_find(profile);
    if (c.profile == NULL)
        return NULL;
    c.erase_count = units;
    c.seed = p->seed + (faults ? 0u : 7919u);
    if (faults) {
        c.factory_bad = p->factory_bad;
        c.wear_limit = p->wear_limit;
        c.wear_spread = p->wear_spread;
        c.read_flip_rate = p->flip_rate;
    }
    return strata_sim_new(&c);
}

int rig_new(struct rig *r, const struct rig_params *params)
{
    struct rig_params p = *params;
    struct strata_sim *data, *nor = NULL;
    uint32_t units;
    rig_defaults(&p);
    units = p.data_blocks;
    if (p.kind == RIG_SD || p.kind == RIG_SD_STAGE) {
        const struct strata_sim_profile *prof = strata_sim_profile_find(p.data_profile);
        if (prof == NULL)
            return STRATA_EINVAL;
        units = p.data_blocks * p.ftl_block_pages * prof->geo.page_size / prof->geo.erase_size;
    }
    data = new_sim(p.data_profile, units, &p, 1);
    if (p.kind == RIG_HYBRID || p.kind == RIG_SD)
        nor = new_sim(p.nor_profile, 0, &p, 0);
    if (data == NULL || ((p.kind == RIG_HYBRID || p.kind == RIG_SD) && nor == NULL)) {
        strata_sim_free(data);
        strata_sim_free(nor);
        return STRATA_EINVAL;
    }
    return rig_adopt(r, &p, data, nor);
}

int rig_adopt(struct rig *r, const struct rig_params *params, struct strata_sim *data,
              struct strata_sim *nor)
{
    struct strata_stream_config *c = &r->cfg;
    const struct strata_flash *df = strata_sim_flash(data);
    uint32_t page = df->geo.page_size;
    memset(r, 0, sizeof *r);
    r->p = *params;
    rig_defaults(&r->p);
    r->data = data;
    r->nor = nor;
    *c = r->p.fmt;
    c->first_block = 0;
    c->block_count = r->p.data_blocks;
    if (r->p.kind == RIG_SD || r->p.kind == RIG_SD_STAGE) {
        c->ftl = df;
        c->ftl_block_pages = r->p.ftl_block_pages;
    } else {
        c->nand = &r->nand;
        r->bad_map = calloc(1, STRATA_NAND_MAP_BYTES(df->geo.erase_count));
    }
    if (nor != NULL) {
        c->nor = strata_sim_flash(nor);
        c->nor_first_unit = 0;
        c->nor_slot_units = r->p.slot_units;
        c->nor_slots = r->p.slots;
    } else {
        r->stage = malloc(r->p.stage_size);
        c->stage = r->stage;
        c->stage_size = r->p.stage_size;
    }
    c->buffer_size = STRATA_STREAM_BUFFER_SIZE(page, c->bucket_size, c->bloom_bits);
    r->buffer = malloc(c->buffer_size);
    c->buffer = r->buffer;
    if (r->buffer == NULL || (c->nand != NULL && r->bad_map == NULL) ||
        (nor == NULL && r->stage == NULL))
        return STRATA_ENOMEM;
    return 0;
}

static int mount_nand(struct rig *r)
{
    struct strata_nand_config nc;
    const struct strata_flash *f = r->data_flash ? r->data_flash : strata_sim_flash(r->data);
    if (r->cfg.nand == NULL)
        return 0;
    memset(&nc, 0, sizeof nc);
    nc.flash = f;
    nc.first_block = 0;
    nc.block_count = r->p.data_blocks;
    nc.buf = r->nand_buf;
    nc.buf_size = f->geo.spare_size;
    if (r->p.bad_table == 0) {
        nc.bad_map = r->bad_map;
    } else if (r->p.bad_table == 1) {
        nc.bad_list = r->bad_list;
        nc.bad_list_len = (uint16_t)(sizeof r->bad_list / sizeof r->bad_list[0]);
    }
    return strata_nand_mount(&r->nand, &nc);
}

int rig_format(struct rig *r)
{
    int rc = mount_nand(r);
    return rc != 0 ? rc : strata_stream_format(&r->s, &r->cfg);
}

int rig_mount(struct rig *r)
{
    int rc = mount_nand(r);
    return rc != 0 ? rc : strata_stream_mount(&r->s, &r->cfg);
}

void rig_free(struct rig *r)
{
    strata_sim_free(r->data);
    strata_sim_free(r->nor);
    free(r->bad_map);
    free(r->buffer);
    free(r->stage);
    memset(r, 0, sizeof *r);
}

void rig_stats(const struct rig *r, struct strata_sim_stats *data, struct strata_sim_stats *nor,
               double *time_s, double *energy_j)
{
    struct strata_sim_stats d, n;
    memset(&n, 0, sizeof n);
    strata_sim_stats(r->data, &d);
    if (r->nor != NULL)
        strata_sim_stats(r->nor, &n);
    if (data != NULL)
        *data = d;
    if (nor != NULL)
        *nor = n;
    if (time_s != NULL)
        *time_s = (double)(d.time_ps + n.time_ps) * 1e-12;
    if (energy_j != NULL)
        *energy_j = (double)(d.energy_pj + n.energy_pj) * 1e-12;
}

void rig_stats_reset(struct rig *r)
{
    strata_sim_stats_reset(r->data);
    if (r->nor != NULL)
        strata_sim_stats_reset(r->nor);
}
