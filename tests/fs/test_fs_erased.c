/*
 * Which programs are checked (docs/fs.md, "Checked programs"): every program reads its target
 * first unless it lands where this context erased the flash and has not programmed since (after
 * its own format, or a sector its garbage collection erased). Tests that the read is skipped
 * there and only there:
 *   - appends_after_format_read_nothing: a file written right after format + mount reads
 *     (almost) nothing; the same file written after a remount reads every byte it programs;
 *   - damage_after_remount_is_noticed: a stray byte in free space after a remount is never
 *     programmed over (the append continues elsewhere, the file reads back right);
 *   - other_range_is_not_trusted: a mount of another range on the context format left trusts
 *     nothing;
 *   - collected_sector_is_trusted: after a remount, a sector erased by garbage collection is
 *     known erased again.
 */
#include <stdio.h>
#include <string.h>

#include "fs_helpers.h"

static uint64_t read_bytes(struct tfs *t)
{
    struct strata_sim_stats s;
    strata_sim_stats(t->sim, &s);
    return s.read_bytes;
}

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Bytes read while writing n bytes to a new file in 256-byte pieces (reserved first). */
static uint64_t write_file(struct tfs *t, const char *name, const uint8_t *data, uint32_t n)
{
    struct strata_fs_file f;
    uint64_t before;
    uint32_t at;
    assert_int_equal(strata_fs_reserve(&t->fs, name, n), 0);
    before = read_bytes(t);
    assert_int_equal(strata_fs_open(&t->fs, &f, name, STRATA_FS_WRITE), 0);
    for (at = 0; at < n; at += 256)
        assert_int_equal(strata_fs_write(&t->fs, &f, data + at, 256), 256);
    assert_int_equal(strata_fs_close(&t->fs, &f), 0);
    return read_bytes(t) - before;
}

static void appends_after_format_read_nothing(void **state)
{
    static uint8_t data[8192];
    struct tfs t;
    uint64_t fresh, known;
    (void)state;
    fill(data, sizeof data, 1);
    tfs_init(&t, "m25p80", 4, 1);
    fresh = write_file(&t, "a", data, sizeof data);
    assert_int_equal(tfs_remount(&t), 0);
    known = write_file(&t, "b", data, sizeof data);
    print_message("8 KiB written: %u bytes read after format, %u after a remount\n",
                  (unsigned)fresh, (unsigned)known);
    assert_true(fresh < 512);           /* the header walk of open, nothing per program */
    assert_true(known >= sizeof data);  /* every program checked */
    tfs_assert_file(&t, "a", data, sizeof data);
    tfs_assert_file(&t, "b", data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void damage_after_remount_is_noticed(void **state)
{
    static uint8_t data[4096];
    struct tfs t;
    struct strata_fs_stat st;
    uint8_t zero = 0x00;
    (void)state;
    fill(data, sizeof data, 2);
    tfs_init(&t, "m25p80", 4, 2);
    assert_int_equal(strata_fs_reserve(&t.fs, "a", sizeof data), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    /* a stray zero byte in the middle of the reserved extent's data area (sector 0: the pages
     * after the first hold no marker) */
    assert_int_equal(strata_sim_poke(t.sim, (st.page + 8) * 256 + 18, &zero, 1), 0);
    assert_int_equal(tfs_remount(&t), 0);
    {
        struct strata_fs_file f;
        uint32_t at;
        assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_WRITE), 0);
        for (at = 0; at < sizeof data; at += 256)
            assert_int_equal(strata_fs_write(&t.fs, &f, data + at, 256), 256);
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    }
    tfs_assert_file(&t, "a", data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t); /* no program over the stray byte: the simulator saw no violation */
}

static void other_range_is_not_trusted(void **state)
{
    static uint8_t data[4096];
    struct tfs t;
    (void)state;
    fill(data, sizeof data, 3);
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim("m25p80", 4, 3);
    tfs_config(&t, 0);
    t.cfg.unit_count = 2;
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    t.cfg.first_unit = 2; /* formatted elsewhere before: the context knows nothing of it */
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    t.cfg.first_unit = 0;
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    assert_true(write_file(&t, "a", data, sizeof data) >= sizeof data);
    tfs_assert_file(&t, "a", data, sizeof data);
    tfs_free(&t);
}

static void collected_sector_is_trusted(void **state)
{
    static uint8_t data[4096];
    struct tfs t;
    char name[16];
    uint32_t i, files;
    int rc = 0;
    (void)state;
    fill(data, sizeof data, 4);
    tfs_init(&t, "m25p80", 2, 4);
    for (files = 0; rc == 0; files++) { /* fill the device with reserved files */
        snprintf(name, sizeof name, "f%u", (unsigned)files);
        rc = strata_fs_reserve(&t.fs, name, sizeof data);
    }
    assert_int_equal(rc, STRATA_ENOSPC);
    for (i = 0; i + 3 < files; i++) { /* all but the last two: sector 0 holds nothing live */
        snprintf(name, sizeof name, "f%u", (unsigned)i);
        assert_int_equal(strata_fs_remove(&t.fs, name), 0);
    }
    assert_int_equal(tfs_remount(&t), 0);
    assert_true(strata_fs_gc(&t.fs) >= 1); /* sector 0 erased by this context */
    assert_true(write_file(&t, "new", data, sizeof data) < 512);
    tfs_assert_file(&t, "new", data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_after_format_read_nothing),
        cmocka_unit_test(damage_after_remount_is_noticed),
        cmocka_unit_test(other_range_is_not_trusted),
        cmocka_unit_test(collected_sector_is_trusted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
