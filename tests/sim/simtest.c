#include "simtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "strata/crc.h"

struct strata_sim_config st_config(const char *profile, uint32_t units, uint64_t seed)
{
    struct strata_sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = strata_sim_profile_find(profile);
    assert_non_null(cfg.profile);
    cfg.erase_count = units;
    cfg.seed = seed;
    return cfg;
}

struct strata_sim *st_new(const char *profile, uint32_t units, uint64_t seed, uint32_t options)
{
    struct strata_sim_config cfg = st_config(profile, units, seed);
    cfg.options = options;
    return st_new_cfg(&cfg);
}

struct strata_sim *st_new_cfg(const struct strata_sim_config *cfg)
{
    struct strata_sim *sim = strata_sim_new(cfg);
    assert_non_null(sim);
    return sim;
}

void st_tmp_path(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "/tmp/strata-simtest-%ld-%s", (long)getpid(), tag);
}

uint8_t *st_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    assert_true(size >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

void st_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

uint8_t *st_image(const struct strata_sim *sim, size_t *len)
{
    char path[128];
    uint8_t *buf;
    st_tmp_path(path, sizeof path, "snap.img");
    assert_int_equal(strata_sim_image_save(sim, path), 0);
    buf = st_read_file(path, len);
    remove(path);
    return buf;
}

void st_put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t st_get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void st_fix_crc(uint8_t *img, size_t len)
{
    st_put_le(img + len - 4, strata_crc32(0, img, len - 4), 4);
}

void st_snap_take(const struct strata_sim *sim, struct st_snap *s)
{
    s->image = st_image(sim, &s->len);
    strata_sim_stats(sim, &s->stats);
    s->mutations = strata_sim_mutations(sim);
    s->powered = strata_sim_powered(sim);
}

void st_snap_free(struct st_snap *s)
{
    free(s->image);
    s->image = NULL;
}

static void assert_same_image(const struct strata_sim *sim, const struct st_snap *s)
{
    size_t len;
    uint8_t *now = st_image(sim, &len);
    assert_int_equal(len, s->len);
    assert_memory_equal(now, s->image, len);
    free(now);
}

void st_assert_unchanged(const struct strata_sim *sim, const struct st_snap *s)
{
    struct strata_sim_stats now;
    assert_same_image(sim, s);
    strata_sim_stats(sim, &now);
    assert_memory_equal(&now, &s->stats, sizeof now);
    assert_int_equal(strata_sim_mutations(sim), s->mutations);
    assert_int_equal(strata_sim_powered(sim), s->powered);
}

void st_assert_refused(const struct strata_sim *sim, const struct st_snap *s, int rc,
                       enum strata_sim_violation v)
{
    struct strata_sim_stats now, expect = s->stats;
    if (rc != STRATA_EVIOLATION)
        fail_msg("expected a %s violation, got %d (%s)", strata_sim_violation_name(v), rc,
                 strata_strerror(rc));
    expect.violations++;
    expect.violation[v]++;
    strata_sim_stats(sim, &now);
    if (memcmp(&now, &expect, sizeof now) != 0)
        fail_msg("stats after a refused %s: violations %llu (want %llu), last '%s'",
                 strata_sim_violation_name(v), (unsigned long long)now.violations,
                 (unsigned long long)expect.violations, strata_sim_last_violation(sim));
    assert_same_image(sim, s);
    assert_int_equal(strata_sim_mutations(sim), s->mutations);
    assert_int_equal(strata_sim_powered(sim), s->powered);
    assert_non_null(strstr(strata_sim_last_violation(sim), strata_sim_violation_name(v)));
}

void st_free_markers(const struct strata_flash *f, uint8_t *spare)
{
    memset(spare + f->geo.bbm_offset, 0xFF, f->geo.bbm_len);
}

void st_pattern(uint8_t *buf, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 12345u;
    size_t i;
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (uint8_t)(x >> 8);
    }
}

uint64_t st_bit_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t bits = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        uint8_t d = (uint8_t)(a[i] ^ b[i]);
        while (d) {
            bits += d & 1u;
            d >>= 1;
        }
    }
    return bits;
}
