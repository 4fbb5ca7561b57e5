/* Seeds for the sim_image target: saved images of every kind of device, with contents, wear,
 * bad blocks, NAND page states and MCU row times in them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seeds.h"

static void image_of(const char *profile, uint32_t units, uint32_t factory_bad, uint32_t options)
{
    struct strata_sim_config c;
    struct strata_sim *sim;
    const struct strata_flash *f;
    char path[64];
    uint8_t *b;
    FILE *fp;
    long n;
    uint8_t *p;
    memset(&c, 0, sizeof c);
    c.profile = strata_sim_profile_find(profile);
    c.erase_count = units;
    c.factory_bad = factory_bad;
    c.options = options;
    c.wear_limit = factory_bad ? 1000 : 0;
    c.seed = 9;
    if (c.profile == NULL || (sim = strata_sim_new(&c)) == NULL)
        fz_fail("seeds: cannot make a %s device", profile);
    f = strata_sim_flash(sim);
    if ((b = malloc(f->geo.page_size)) == NULL)
        fz_fail("out of memory");
    memset(b, 0x5A, f->geo.page_size);
    if (!(f->caps & STRATA_FLASH_CAP_NO_ERASE))
        strata_flash_erase(f, 0); /* wear; unit 0 is never factory bad */
    if (f->caps & STRATA_FLASH_CAP_SPARE)
        strata_flash_page_prog(f, 1, b, NULL);
    else
        strata_flash_prog(f, 0, b, f->geo.page_size);
    free(b);
    snprintf(path, sizeof path, "/tmp/strata-seed-image-%ld", (long)getpid());
    if (strata_sim_image_save(sim, path) != 0 || (fp = fopen(path, "rb")) == NULL)
        fz_fail("seeds: cannot save a %s image", profile);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    if (n <= 0 || (p = malloc((size_t)n)) == NULL || fread(p, 1, (size_t)n, fp) != (size_t)n)
        fz_fail("seeds: cannot read %s", path);
    fclose(fp);
    remove(path);
    seed_write("sim_image", profile, p, (size_t)n);
    free(p);
    strata_sim_free(sim);
}

void seeds_sim_image(void)
{
    image_of("msp430f5529", 4, 0, STRATA_SIM_OPT_ROW_TIME);
    image_of("w25q128", 2, 0, 0);
    image_of("at45db161", 4, 0, 0);
    image_of("tc58dvg02", 3, 1, 0);
    image_of("k9f1g08", 1, 0, 0);
    image_of("fram-msp430fr5994", 2, 0, 0);
    image_of("sd-spi", 4, 0, 0);
}
