/* Unit tests of strata_fs: every call, on the paper's device (m25p80) unless stated. */
#include <stdio.h>
#include <string.h>

#include "fs_helpers.h"

#define M25 "m25p80"

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void empty_after_format(void **state)
{
    struct tfs t;
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    struct strata_fs_usage u;
    (void)state;
    tfs_init(&t, M25, 4, 1);
    assert_int_equal(strata_fs_opendir(&t.fs, &d), 0);
    assert_int_equal(strata_fs_readdir(&t.fs, &d, &st), 0);
    assert_int_equal(strata_fs_df(&t.fs, &u), 0);
    assert_int_equal(u.files, 0);
    assert_int_equal(u.free, u.pages);
    assert_int_equal(strata_fs_stat(&t.fs, "nope", &st), STRATA_ENOENT);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void unformatted_and_wrong_devices(void **state)
{
    struct tfs t;
    (void)state;
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim(M25, 4, 1);
    tfs_config(&t, 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EUNFORMATTED);
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    t.cfg.name_max = 20; /* formatted with 16 */
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EVERSION);
    tfs_free(&t);
    /* NAND, FRAM and SD are refused */
    t.sim = tfs_sim("mt29f4g08", 8, 1);
    tfs_config(&t, 0);
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), STRATA_EDEVICE);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EDEVICE);
    tfs_free(&t);
    t.sim = tfs_sim("sd-spi", 64, 1);
    tfs_config(&t, 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EDEVICE);
    tfs_free(&t);
}

static void write_read_exact_length(void **state)
{
    struct tfs t;
    uint8_t data[700], back[800];
    uint32_t n;
    struct strata_fs_stat st;
    (void)state;
    tfs_init(&t, M25, 4, 2);
    fill(data, sizeof data, 1);
    /* trailing 0xFF and 0x00 bytes: Coffee's length scan lost them */
    memset(data + 600, 0xFF, 50);
    memset(data + 650, 0x00, 50);
    assert_int_equal(tfs_put(&t, "a", data, sizeof data), 0);
    assert_int_equal(tfs_get(&t, "a", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "a", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_string_equal(st.name, "a");
    assert_int_equal(st.size, sizeof data);
    assert_true(st.capacity >= 4096);
    /* a file of only 0xFF bytes */
    memset(data, 0xFF, 100);
    assert_int_equal(tfs_put(&t, "ff", data, 100), 0);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "ff", back, sizeof back, &n), 0);
    assert_int_equal(n, 100);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void open_flags(void **state)
{
    struct tfs t;
    struct strata_fs_file f, g;
    uint8_t b[16];
    (void)state;
    tfs_init(&t, M25, 4, 3);
    assert_int_equal(strata_fs_open(&t.fs, &f, "x", STRATA_FS_READ), STRATA_ENOENT);
    assert_int_equal(strata_fs_open(&t.fs, &f, "x", STRATA_FS_WRITE | STRATA_FS_CREATE), 0);
    assert_int_equal(strata_fs_open(&t.fs, &g, "x", STRATA_FS_READ), STRATA_EBUSY);
    assert_int_equal(strata_fs_read(&t.fs, &f, b, 4), STRATA_EBADF); /* not opened for reading */
    assert_int_equal(strata_fs_write(&t.fs, &f, "abcd", 4), 4);
    assert_int_equal(strata_fs_remove(&t.fs, "x"), STRATA_EBUSY);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), STRATA_EBADF);
    assert_int_equal(strata_fs_open(&t.fs, &f, "x", STRATA_FS_WRITE | STRATA_FS_CREATE |
                                                        STRATA_FS_EXCL),
                     STRATA_EEXIST);
    assert_int_equal(strata_fs_open(&t.fs, &f, "x", STRATA_FS_READ), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "z", 1), STRATA_EBADF);
    assert_int_equal(strata_fs_read(&t.fs, &f, b, sizeof b), 4);
    assert_int_equal(strata_fs_read(&t.fs, &f, b, sizeof b), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    /* append */
    assert_int_equal(strata_fs_open(&t.fs, &f, "x", STRATA_FS_APPEND | STRATA_FS_READ), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "ef", 2), 2);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_SET), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "gh", 2), 2); /* still at the end */
    assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_SET), 0);
    assert_int_equal(strata_fs_read(&t.fs, &f, b, sizeof b), 8);
    assert_memory_equal(b, "abcdefgh", 8);
    assert_int_equal(strata_fs_seek(&t.fs, &f, -3, STRATA_FS_SEEK_END), 5);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 1, STRATA_FS_SEEK_CUR), 6);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 1, STRATA_FS_SEEK_END), STRATA_EINVAL);
    assert_int_equal(strata_fs_seek(&t.fs, &f, -1, STRATA_FS_SEEK_SET), STRATA_EINVAL);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    /* names */
    assert_int_equal(strata_fs_open(&t.fs, &f, "", STRATA_FS_READ), STRATA_EINVAL);
    assert_int_equal(strata_fs_open(&t.fs, &f, "0123456789abcdefX", STRATA_FS_READ),
                     STRATA_ENAMETOOLONG);
    assert_int_equal(tfs_put(&t, "0123456789abcdef", "full", 4), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "0123456789abcdef", STRATA_FS_READ), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void modify_through_log(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    uint8_t data[3000], back[3000];
    struct strata_fs_stat st;
    uint32_t n, i;
    (void)state;
    tfs_init(&t, M25, 4, 4);
    fill(data, sizeof data, 2);
    assert_int_equal(tfs_put(&t, "m", data, sizeof data), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "m", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    for (i = 0; i < 40; i++) { /* default log: 4 records of a page: merges several times */
        uint32_t off = (i * 397) % (sizeof data - 20);
        memset(data + off, (int)i, 20);
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)off, STRATA_FS_SEEK_SET), (int)off);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + off, 20), 20);
        assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_SET), 0);
        assert_int_equal(strata_fs_read(&t.fs, &f, back, sizeof back), sizeof data);
        assert_memory_equal(back, data, sizeof data);
        if (i % 7 == 0)
            assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "m", &st), 0);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "m", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void tuned_log_and_configure(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_stat st;
    uint8_t data[1000], back[1000];
    uint32_t n, i;
    (void)state;
    tfs_init(&t, M25, 4, 5);
    assert_int_equal(strata_fs_configure_log(&t.fs, "r", 500, 0), STRATA_EINVAL);
    assert_int_equal(strata_fs_configure_log(&t.fs, "r", 500, 10), 0); /* creates it */
    fill(data, sizeof data, 3);
    assert_int_equal(tfs_put(&t, "r", data, sizeof data), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "r", &st), 0);
    assert_int_equal(st.log_records, 50);
    assert_int_equal(st.log_record, 10);
    assert_int_equal(strata_fs_open(&t.fs, &f, "r", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    for (i = 0; i < 180; i++) { /* ~3.6 merges */
        uint32_t off = (i * 37 % 100) * 10;
        memset(data + off, (int)(i + 1), 10);
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)off, STRATA_FS_SEEK_SET), (int)off);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + off, 10), 10);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "r", back, sizeof back, &n), 0);
    assert_memory_equal(back, data, sizeof data);
    /* reconfigure an existing file: copied, content kept */
    assert_int_equal(strata_fs_configure_log(&t.fs, "r", 2000, 20), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "r", &st), 0);
    assert_int_equal(st.log_records, 100);
    assert_int_equal(tfs_get(&t, "r", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void grow_and_reserve(void **state)
{
    struct tfs t;
    static uint8_t data[20000], back[20000];
    struct strata_fs_stat st;
    uint32_t n;
    (void)state;
    tfs_init(&t, M25, 4, 6);
    fill(data, sizeof data, 4);
    assert_int_equal(tfs_put(&t, "big", data, sizeof data), 0); /* outgrows 4 KiB */
    assert_int_equal(strata_fs_stat(&t.fs, "big", &st), 0);
    assert_true(st.capacity >= sizeof data);
    assert_int_equal(tfs_get(&t, "big", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(strata_fs_reserve(&t.fs, "res", 30000), 0);
    assert_int_equal(strata_fs_reserve(&t.fs, "res", 10), STRATA_EEXIST);
    assert_int_equal(strata_fs_stat(&t.fs, "res", &st), 0);
    assert_int_equal(st.size, 0);
    assert_true(st.capacity >= 30000);
    assert_int_equal(strata_fs_reserve(&t.fs, "huge", 300000), STRATA_ENOSPC);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "big", back, sizeof back, &n), 0);
    assert_memory_equal(back, data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void rename_and_replace(void **state)
{
    struct tfs t;
    uint8_t back[64];
    uint32_t n;
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int count = 0;
    (void)state;
    tfs_init(&t, M25, 4, 7);
    assert_int_equal(tfs_put(&t, "cfg", "old", 3), 0);
    assert_int_equal(tfs_put(&t, "cfg.tmp", "new!", 4), 0);
    assert_int_equal(strata_fs_rename(&t.fs, "cfg.tmp", "cfg"), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "cfg.tmp", &st), STRATA_ENOENT);
    assert_int_equal(tfs_get(&t, "cfg", back, sizeof back, &n), 0);
    assert_int_equal(n, 4);
    assert_memory_equal(back, "new!", 4);
    /* second rename of the same extent: copied first */
    assert_int_equal(strata_fs_rename(&t.fs, "cfg", "conf"), 0);
    assert_int_equal(strata_fs_rename(&t.fs, "conf", "conf"), 0);
    assert_int_equal(strata_fs_rename(&t.fs, "nope", "x"), STRATA_ENOENT);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "conf", back, sizeof back, &n), 0);
    assert_memory_equal(back, "new!", 4);
    assert_int_equal(strata_fs_stat(&t.fs, "cfg", &st), STRATA_ENOENT);
    assert_int_equal(strata_fs_opendir(&t.fs, &d), 0);
    while (strata_fs_readdir(&t.fs, &d, &st) == 1) {
        assert_string_equal(st.name, "conf");
        count++;
    }
    assert_int_equal(count, 1);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void truncate_then_append(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    uint8_t data[1500], back[1500];
    uint32_t n;
    (void)state;
    tfs_init(&t, M25, 4, 8);
    fill(data, sizeof data, 5);
    assert_int_equal(tfs_put(&t, "t", data, 1000), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "t", STRATA_FS_APPEND), 0);
    assert_int_equal(strata_fs_truncate(&t.fs, &f, 2000), STRATA_EINVAL);
    assert_int_equal(strata_fs_truncate(&t.fs, &f, 300), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, data + 300, 1200), 1200); /* over old bytes */
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "t", back, sizeof back, &n), 0);
    assert_int_equal(n, 1500);
    assert_memory_equal(back, data, 1500);
    assert_int_equal(strata_fs_open(&t.fs, &f, "t", STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_truncate(&t.fs, &f, 0), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "t", back, sizeof back, &n), 0);
    assert_int_equal(n, 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void gc_reclaims_space(void **state)
{
    struct tfs t;
    uint8_t data[4000];
    struct strata_fs_usage u;
    struct strata_sim_stats s;
    char name[16];
    uint32_t i;
    (void)state;
    tfs_init(&t, "w25q128", 16, 9); /* 64 KiB, 4 KiB sectors */
    fill(data, sizeof data, 6);
    for (i = 0; i < 60; i++) { /* 60 x ~5 KiB through a 64 KiB device */
        snprintf(name, sizeof name, "f%u", (unsigned)i);
        assert_int_equal(tfs_put(&t, name, data, sizeof data), 0);
        if (i >= 5) {
            snprintf(name, sizeof name, "f%u", (unsigned)(i - 5));
            assert_int_equal(strata_fs_remove(&t.fs, name), 0);
        }
    }
    strata_sim_stats(t.sim, &s);
    assert_true(s.erases > 16);
    assert_int_equal(strata_fs_df(&t.fs, &u), 0);
    assert_int_equal(u.files, 5);
    assert_int_equal(tfs_remount(&t), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void every_device(void **state)
{
    static const char *const profiles[] = {"m25p80", "w25q128", "msp430f5529", "at45db161",
                                           "at45db041"};
    static const uint32_t units[] = {16, 16, 160, 256, 16};
    uint8_t data[2000], back[2000];
    size_t p;
    (void)state;
    fill(data, sizeof data, 7);
    for (p = 0; p < sizeof profiles / sizeof profiles[0]; p++) {
        struct tfs t;
        struct strata_fs_file f;
        uint32_t n, i;
        tfs_init(&t, profiles[p], units[p], 10);
        assert_int_equal(tfs_put(&t, "log", data, sizeof data), 0);
        assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_WRITE), 0);
        for (i = 0; i < 30; i++) {
            uint32_t off = i * 61 % 1900;
            data[off] = (uint8_t)i;
            strata_fs_seek(&t.fs, &f, (int32_t)off, STRATA_FS_SEEK_SET);
            assert_int_equal(strata_fs_write(&t.fs, &f, data + off, 1), 1);
            if (i % 4 == 0)
                assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
        }
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
        assert_int_equal(tfs_remount(&t), 0);
        assert_int_equal(tfs_get(&t, "log", back, sizeof back, &n), 0);
        assert_int_equal(n, sizeof data);
        assert_memory_equal(back, data, sizeof data);
        tfs_assert_clean(&t);
        tfs_free(&t);
    }
}

/* A file system confined to units [2, 12) of the device never touches the others. */
static void partition_and_name_lengths(void **state)
{
    struct tfs t;
    uint8_t outside[4096], back[4096], data[3000];
    uint32_t i, n;
    (void)state;
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim("w25q128", 16, 11);
    for (i = 0; i < sizeof outside; i++)
        outside[i] = (uint8_t)(i * 7);
    assert_int_equal(strata_sim_poke(t.sim, 1 * 4096, outside, sizeof outside), 0);
    assert_int_equal(strata_sim_poke(t.sim, 12 * 4096, outside, sizeof outside), 0);
    tfs_config(&t, 1); /* one-character names */
    t.cfg.first_unit = 2;
    t.cfg.unit_count = 10;
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    fill(data, sizeof data, 9);
    for (i = 0; i < 20; i++) {
        char name[2] = {(char)('a' + i % 3), 0};
        data[i] = (uint8_t)i;
        assert_int_equal(tfs_put(&t, name, data, sizeof data), 0);
    }
    assert_int_equal(tfs_put(&t, "ab", data, 1), STRATA_ENAMETOOLONG);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(tfs_get(&t, "b", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    tfs_assert_clean(&t);
    strata_sim_peek(t.sim, 1 * 4096, back, sizeof back);
    assert_memory_equal(back, outside, sizeof outside);
    strata_sim_peek(t.sim, 12 * 4096, back, sizeof back);
    assert_memory_equal(back, outside, sizeof outside);
    /* the partition's range must fit the device; names longer than a page allows refused */
    t.cfg.unit_count = 15;
    assert_int_equal(strata_fs_unmount(&t.fs), 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EINVAL);
    tfs_free(&t);
    t.sim = tfs_sim("msp430f5529", 16, 1);
    tfs_config(&t, STRATA_FS_NAME_LIMIT); /* 128 B pages: no room for a 119-byte header */
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), STRATA_EINVAL);
    tfs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_after_format),
        cmocka_unit_test(unformatted_and_wrong_devices),
        cmocka_unit_test(write_read_exact_length),
        cmocka_unit_test(open_flags),
        cmocka_unit_test(modify_through_log),
        cmocka_unit_test(tuned_log_and_configure),
        cmocka_unit_test(grow_and_reserve),
        cmocka_unit_test(rename_and_replace),
        cmocka_unit_test(truncate_then_append),
        cmocka_unit_test(gc_reclaims_space),
        cmocka_unit_test(every_device),
        cmocka_unit_test(partition_and_name_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
