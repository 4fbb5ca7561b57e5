/*
 * Damaged and truncated images: errors, never crashes. Random byte damage over populated
 * images (every call afterwards must return a code, under the sanitizers); targeted damage to
 * each record type (the result must be what the format promises); a truncated device.
 * With FS_WRITE_CORPUS=dir it also writes the fuzz seed corpus (fuzz/corpus/fs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/crc.h"
#include "fs_helpers.h"

/* A formatted device with small default files, so that 8 KiB images hold several. */
static void init_small(struct tfs *t, const char *profile, uint32_t units, uint64_t seed)
{
    tfs_init(t, profile, units, seed);
    t->cfg.default_size = 512;
    assert_int_equal(tfs_remount(t), 0);
}

static void populate(struct tfs *t, uint32_t seed)
{
    struct strata_fs_file f;
    uint8_t data[900];
    uint32_t i;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * seed + 3);
    assert_int_equal(tfs_put(t, "cfg", "v=1", 3), 0);
    assert_int_equal(strata_fs_reserve(&t->fs, "log", 600), 0);
    assert_int_equal(strata_fs_open(&t->fs, &f, "log", STRATA_FS_APPEND), 0);
    assert_int_equal(strata_fs_write(&t->fs, &f, data, 300), 300);
    assert_int_equal(strata_fs_sync(&t->fs, &f), 0);
    assert_int_equal(strata_fs_write(&t->fs, &f, data, 100), 100);
    assert_int_equal(strata_fs_close(&t->fs, &f), 0);
    assert_int_equal(strata_fs_configure_log(&t->fs, "tab", 64, 8), 0);
    assert_int_equal(strata_fs_open(&t->fs, &f, "tab", STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_write(&t->fs, &f, data, 200), 200);
    assert_int_equal(strata_fs_seek(&t->fs, &f, 16, STRATA_FS_SEEK_SET), 16);
    assert_int_equal(strata_fs_write(&t->fs, &f, "modified", 8), 8);
    assert_int_equal(strata_fs_close(&t->fs, &f), 0);
    assert_int_equal(tfs_put(t, "tmp", "x", 1), 0);
    assert_int_equal(strata_fs_rename(&t->fs, "tmp", "cfg"), 0);
    assert_int_equal(tfs_put(t, "gone", data, 50), 0);
    assert_int_equal(strata_fs_remove(&t->fs, "gone"), 0);
}

/* Exercise everything on a possibly damaged device; only crashes and hangs can fail here. */
static void exercise(struct tfs *t)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    struct strata_fs_usage u;
    struct strata_fs_report r;
    struct strata_fs_file f;
    uint8_t b[100];
    int n = 0;
    if (strata_fs_mount(&t->fs, &t->cfg) != 0)
        return;
    if (strata_fs_opendir(&t->fs, &d) == 0)
        while (n++ < 100 && strata_fs_readdir(&t->fs, &d, &st) == 1)
            if (strata_fs_open(&t->fs, &f, st.name, STRATA_FS_READ | STRATA_FS_WRITE) == 0) {
                while (strata_fs_read(&t->fs, &f, b, sizeof b) > 0)
                    ;
                strata_fs_seek(&t->fs, &f, 0, STRATA_FS_SEEK_SET);
                strata_fs_write(&t->fs, &f, "zz", 2);
                strata_fs_close(&t->fs, &f);
            }
    strata_fs_df(&t->fs, &u);
    strata_fs_check(&t->fs, 1, &r);
    if (strata_fs_open(&t->fs, &f, "new", STRATA_FS_WRITE | STRATA_FS_CREATE) == 0) {
        strata_fs_write(&t->fs, &f, b, sizeof b);
        strata_fs_close(&t->fs, &f);
    }
    strata_fs_rename(&t->fs, "new", "cfg");
    strata_fs_remove(&t->fs, "log");
    strata_fs_gc(&t->fs);
    strata_fs_unmount(&t->fs);
}

static void random_damage_never_crashes(void **state)
{
    static const char *const profiles[] = {"msp430f5529", "w25q128", "at45db161"};
    static const uint32_t units[] = {32, 4, 32};
    uint32_t p, seed;
    (void)state;
    for (p = 0; p < 3; p++) {
        struct tfs base;
        init_small(&base, profiles[p], units[p], 1);
        populate(&base, 7);
        for (seed = 0; seed < ts_scale(150, 10); seed++) {
            struct tfs t = base;
            struct ts_rng r;
            uint32_t size = strata_flash_size(strata_sim_flash(base.sim)), i, n;
            ts_rng_seed(&r, seed);
            t.sim = strata_sim_clone(base.sim);
            assert_non_null(t.sim);
            tfs_config(&t, 0);
            t.cfg.default_size = 512;
            n = 1 + ts_rng_below(&r, 24);
            for (i = 0; i < n; i++) {
                uint8_t v = (uint8_t)ts_rng_next(&r);
                /* mostly in the used first half, where the metadata is */
                strata_sim_poke(t.sim, ts_rng_below(&r, size / 2 + 1), &v, 1);
            }
            exercise(&t);
            strata_sim_free(t.sim);
        }
        tfs_free(&base);
    }
}

static uint32_t phys(const struct tfs *t, uint32_t page)
{
    const struct strata_flash *f = strata_sim_flash(t->sim);
    uint32_t pps = f->geo.erase_size / f->geo.page_size;
    return page / pps * f->geo.erase_size + (page % pps ? page % pps * f->geo.page_size : 8);
}

/* Length slot i of a file: 8 bytes, growing down from the end of its extent. */
static uint32_t slot_addr(const struct tfs *t, const struct strata_fs_stat *st, uint32_t i)
{
    uint32_t ps = strata_sim_flash(t->sim)->geo.page_size;
    return (st->page + st->pages) * ps - 8 * (i + 1);
}

static void poke(struct tfs *t, uint32_t addr, const void *v, uint32_t n)
{
    assert_int_equal(strata_sim_poke(t->sim, addr, v, n), 0);
}

/* A header whose CRC fails is a garbage page: that file is gone. Bit rot (unlike a cut) can
 * also hide the files after it in its sector, since its data pages then look like free or
 * garbage pages: check must say so. */
static void damaged_header(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_report r;
    uint8_t b;
    int rc;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    populate(&t, 3);
    assert_int_equal(strata_fs_stat(&t.fs, "log", &st), 0);
    strata_sim_peek(t.sim, phys(&t, st.page) + 4, &b, 1);
    b ^= 0x10;
    poke(&t, phys(&t, st.page) + 4, &b, 1);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "log", &st), STRATA_ENOENT);
    rc = strata_fs_check(&t.fs, 0, &r);
    assert_true(rc >= 0);
    if (strata_fs_stat(&t.fs, "tab", &st) != 0)
        assert_true(rc > 0 && strstr(r.first, "after a free page") != NULL);
    tfs_free(&t);
}

/* The last length slot damaged: the file falls back to its previous commit, like a torn one. */
static void damaged_length_slot(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_file f;
    uint8_t raw[16], slot[8];
    uint32_t n;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    assert_int_equal(tfs_put(&t, "two", "abc", 3), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "two", STRATA_FS_APPEND), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "def", 3), 3);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "two", &st), 0);
    assert_int_equal(st.size, 6);
    /* slots: abc's intent, abc's commit, def's commit (the third) */
    strata_sim_peek(t.sim, slot_addr(&t, &st, 2), slot, 8);
    slot[0] ^= 0x01;
    poke(&t, slot_addr(&t, &st, 2), slot, 8);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "two", raw, sizeof raw, &n), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(raw, "abc", 3);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* A length slot with a valid CRC but a length past the extent: reported, never trusted. */
static void impossible_length(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_file f;
    struct strata_fs_report r;
    uint8_t raw[8], slot[8], id[8];
    uint32_t seq, i = 2;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    assert_int_equal(tfs_put(&t, "cfg", "v=1", 3), 0); /* slots 0 (intent) and 1 (commit) */
    assert_int_equal(strata_fs_stat(&t.fs, "cfg", &st), 0);
    strata_sim_peek(t.sim, phys(&t, st.page), raw, sizeof raw);
    seq = raw[4] | raw[5] << 8 | (uint32_t)raw[6] << 16 | (uint32_t)raw[7] << 24;
    memset(slot, 0, 7);
    slot[2] = 0x10; /* 1 MiB */
    memcpy(id, &seq, 4);
    memcpy(id + 4, &i, 4);
    slot[7] = (uint8_t)((strata_crc32(strata_crc32(0, slot, 7), id, 8) ^ 0x4C) & 0x7F);
    poke(&t, slot_addr(&t, &st, 2), slot, 8);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "cfg", STRATA_FS_READ), STRATA_ECORRUPT);
    assert_int_equal(strata_fs_check(&t.fs, 0, &r), 1);
    assert_non_null(strstr(r.first, "length slot"));
    assert_int_equal(strata_fs_remove(&t.fs, "cfg"), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* Two live files of one name (impossible after a power cut): check finds and repairs it. */
static void duplicate_name(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_report r;
    uint8_t raw[44];
    uint32_t n, crc;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    assert_int_equal(tfs_put(&t, "dupa", "1", 1), 0);
    assert_int_equal(tfs_put(&t, "dupb", "22", 2), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "dupb", &st), 0);
    strata_sim_peek(t.sim, phys(&t, st.page), raw, sizeof raw);
    raw[24 + 3] = 'a';
    crc = strata_crc32(0, raw, 40) ^ 0x46534844u;
    memcpy(raw + 40, &crc, 4);
    poke(&t, phys(&t, st.page), raw, sizeof raw); /* the simulator's unchecked access */
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_check(&t.fs, 0, &r), 1);
    assert_non_null(strstr(r.first, "duplicate"));
    assert_int_equal(strata_fs_check(&t.fs, 1, &r), 1);
    assert_int_equal(r.repaired, 1);
    tfs_assert_clean(&t);
    assert_int_equal(tfs_get(&t, "dupa", raw, sizeof raw, &n), 0);
    assert_int_equal(n, 2); /* the newer one (higher sequence number) stays */
    tfs_free(&t);
}

static void truncated_device(void **state)
{
    struct tfs t, small;
    uint8_t *img;
    uint32_t half;
    (void)state;
    init_small(&t, "w25q128", 16, 4);
    populate(&t, 5);
    {
        uint8_t big[5000];
        memset(big, 0x42, sizeof big);
        assert_int_equal(tfs_put(&t, "spans", big, sizeof big), 0);
    }
    half = 8 * 4096;
    img = malloc(half);
    assert_non_null(img);
    strata_sim_peek(t.sim, 0, img, half);
    memset(&small, 0, sizeof small);
    small.sim = tfs_sim("w25q128", 8, 4);
    strata_sim_poke(small.sim, 0, img, half);
    tfs_config(&small, 0);
    exercise(&small);
    /* a configuration asking for more sectors than the device has is refused */
    small.cfg.unit_count = 16;
    assert_int_equal(strata_fs_mount(&small.fs, &small.cfg), STRATA_EINVAL);
    free(img);
    tfs_free(&small);
    tfs_free(&t);
}

/* FS_WRITE_CORPUS=dir: write the fuzz seeds (profile byte + the 8 KiB device). */
static void write_corpus(void **state)
{
    const char *dir = getenv("FS_WRITE_CORPUS");
    uint32_t k;
    (void)state;
    if (dir == NULL)
        skip();
    for (k = 0; k < 2; k++) {
        struct tfs t;
        uint8_t img[8193];
        char path[512];
        uint32_t n = 8192;
        FILE *f;
        init_small(&t, k ? "w25q128" : "msp430f5529", k ? 2 : 16, 9);
        populate(&t, 11);
        img[0] = (uint8_t)k;
        strata_sim_peek(t.sim, 0, img + 1, 8192);
        while (n > 0 && img[n] == 0xFF)
            n--;
        snprintf(path, sizeof path, "%s/seed-%s", dir, k ? "w25q128" : "msp430");
        f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(img, 1, n + 1, f);
        fclose(f);
        tfs_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_damage_never_crashes),
        cmocka_unit_test(damaged_header),
        cmocka_unit_test(damaged_length_slot),
        cmocka_unit_test(impossible_length),
        cmocka_unit_test(duplicate_name),
        cmocka_unit_test(truncated_device),
        cmocka_unit_test(write_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
