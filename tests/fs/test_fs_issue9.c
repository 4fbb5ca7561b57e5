/*
 * Regression tests of the defects issue #9 lists, one (or more) per defect, each written against
 * the public API so that it fails on the code before the fix:
 *   - copies_keep_their_size: an extent grew by one page at every copy;
 *   - namespace_calls_read_few_headers, names_filter_answers_absent_without_a_walk: open(CREATE)
 *     and rename read every header (the second with more live files than the cache holds);
 *   - unreserved_appends_program_each_byte_once, logger_fills_most_of_the_device: growing files
 *     relocated by doubling (2.9x programmed, ENOSPC at a third of the device);
 *   - (test_fs_corrupt) every_metadata_byte_damaged_is_reported_or_harmless: metadata damage
 *     went unseen and was programmed over;
 *   - cleaning_never_nests: remove's cleaning pass recursed through allocation;
 *   - create_with_size_hint: every created file reserved 4 KiB;
 *   - mount_refuses_a_mounted_context, stale_context_refuses_calls: mount dropped open handles,
 *     and calls went on after a power loss or device error;
 *   - no_allocation_in_a_retired_sector: found in this pass (allocation after a retired claim).
 */
#include <stdio.h>
#include <string.h>

#include "fs_helpers.h"

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static uint64_t read_bytes(struct tfs *t)
{
    struct strata_sim_stats s;
    strata_sim_stats(t->sim, &s);
    return s.read_bytes;
}

static uint64_t prog_bytes(struct tfs *t)
{
    struct strata_sim_stats s;
    strata_sim_stats(t->sim, &s);
    return s.prog_bytes;
}

/* Merges (default log, 200 overwrites), reconfiguration and renames back and forth copy the
 * file again and again: its extent keeps its size. */
static void copies_keep_their_size(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_stat st;
    uint8_t data[1024], back[1024];
    uint32_t i, pages, n;
    (void)state;
    tfs_init(&t, "m25p80", 16, 1);
    fill(data, sizeof data, 1);
    assert_int_equal(tfs_put(&t, "a", data, sizeof data), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_SET), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "x", 1), 1);
    assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    for (i = 0; i < 8; i++) { /* merge twice: the size after the first merge is the baseline */
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)(i * 100), STRATA_FS_SEEK_SET),
                         (int32_t)(i * 100));
        assert_int_equal(strata_fs_write(&t.fs, &f, "y", 1), 1);
        assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    pages = st.pages;
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    for (i = 0; i < 200; i++) {
        uint32_t off = i * 37 % (sizeof data - 10);
        memset(data + off, (int)i, 10);
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)off, STRATA_FS_SEEK_SET), (int32_t)off);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + off, 10), 10);
        assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_int_equal(st.pages, pages);
    for (i = 0; i < 20; i++) {
        assert_int_equal(strata_fs_rename(&t.fs, i % 2 ? "b" : "a", i % 2 ? "a" : "b"), 0);
        assert_int_equal(strata_fs_configure_log(&t.fs, i % 2 ? "a" : "b", 1024, 256), 0);
    }
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_int_equal(st.pages, pages);
    assert_int_equal(tfs_get(&t, "a", back, sizeof back, &n), 0);
    assert_int_equal(n, sizeof data);
    tfs_free(&t);
}

/* Many obsolete extents on the device: creating a file under a new name and renaming it over
 * another read a few headers, not all of them. */
static void namespace_calls_read_few_headers(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    char name[16];
    uint8_t data[300];
    uint64_t before;
    uint32_t i;
    (void)state;
    tfs_init(&t, "m25p80", 16, 2);
    fill(data, sizeof data, 2);
    for (i = 0; i < 200; i++) { /* 200 obsolete extents */
        snprintf(name, sizeof name, "old%u", (unsigned)i);
        assert_int_equal(strata_fs_reserve(&t.fs, name, 100), 0);
        assert_int_equal(strata_fs_remove(&t.fs, name), 0);
    }
    assert_int_equal(tfs_put(&t, "cfg", data, sizeof data), 0);
    assert_int_equal(tfs_remount(&t), 0); /* whatever the cache held is gone */
    before = read_bytes(&t);
    assert_int_equal(strata_fs_open(&t.fs, &f, "cfg.tmp", STRATA_FS_WRITE | STRATA_FS_CREATE), 0);
    assert_true(read_bytes(&t) - before < 1024);
    assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), (int32_t)sizeof data);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    before = read_bytes(&t);
    assert_int_equal(strata_fs_rename(&t.fs, "cfg.tmp", "cfg"), 0);
    /* the copy reads the file and checks its target is erased; the lookups read two headers */
    assert_true(read_bytes(&t) - before < 3 * sizeof data + 1024);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* Every file of the names fmt % i, i in [from, to), opens. */
static int opens(struct tfs *t, const char *fmt, uint32_t from, uint32_t to)
{
    struct strata_fs_file f;
    char name[16];
    for (; from < to; from++) {
        snprintf(name, sizeof name, fmt, (unsigned)from);
        if (strata_fs_open(&t->fs, &f, name, STRATA_FS_READ) != 0 ||
            strata_fs_close(&t->fs, &f) != 0)
            return 0;
    }
    return 1;
}

/* More live files than the name cache holds (40): the names filter still answers "absent" for
 * most new names without a walk (a walk past 40 headers reads over 2 KB), and never hides a
 * file: every name opens after creations, removals, renames and a remount. */
static void names_filter_answers_absent_without_a_walk(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    char name[16], to[16];
    uint64_t before;
    uint32_t i, quick = 0;
    (void)state;
    tfs_init(&t, "w25q128", 64, 3);
    for (i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "live%u", (unsigned)i);
        assert_int_equal(strata_fs_reserve(&t.fs, name, 100), 0);
    }
    assert_int_equal(tfs_remount(&t), 0); /* the cache holds 8 of the 40: not complete */
    for (i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "new%u", (unsigned)i);
        before = read_bytes(&t);
        assert_int_equal(strata_fs_open(&t.fs, &f, name, STRATA_FS_WRITE | STRATA_FS_CREATE), 0);
        quick += read_bytes(&t) - before < 1024;
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    }
    /* 40 to 60 names set about half to two thirds of the 128 bits: a new name finds one of its
     * two bits clear about two times in three */
    print_message("%u of 20 new names created without a walk\n", (unsigned)quick);
    assert_true(quick >= 10);
    for (i = 0; i < 10; i++) { /* removals leave bits set; renames set the new name's */
        snprintf(name, sizeof name, "live%u", (unsigned)i);
        snprintf(to, sizeof to, "moved%u", (unsigned)i);
        assert_int_equal(strata_fs_remove(&t.fs, name), 0);
        snprintf(name, sizeof name, "new%u", (unsigned)i);
        assert_int_equal(strata_fs_rename(&t.fs, name, to), 0);
    }
    for (i = 0; i < 2; i++) { /* before and after a remount */
        assert_true(opens(&t, "moved%u", 0, 10) && opens(&t, "live%u", 10, 40) &&
                    opens(&t, "new%u", 10, 20));
        assert_int_equal(strata_fs_open(&t.fs, &f, "live3", STRATA_FS_READ), STRATA_ENOENT);
        assert_int_equal(tfs_remount(&t), 0);
    }
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* Found in this pass (power-cut campaign pc_gc under subset tears, with the FS-4 check): a claim
 * that meets stray bits of an earlier torn claim retires its sector, then the allocation
 * searched again from past the refused run, inside the retired sector, without reading its
 * marker again: the new file landed in a dirty sector and vanished at the next mount. Here the
 * stray bits are made directly (one byte of the first copy of sector 1's first-page field). */
static void no_allocation_in_a_retired_sector(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    static const uint8_t stray = 0x4E;
    (void)state;
    tfs_init(&t, "msp430f5529", 16, 5); /* 128 B pages, 4 per sector */
    assert_int_equal(strata_fs_reserve(&t.fs, "a", 100), 0); /* pages 0-2 */
    assert_int_equal(strata_sim_poke(t.sim, 512 + 4, &stray, 1), 0);
    assert_int_equal(strata_fs_reserve(&t.fs, "b", 10), 0); /* 2 pages: 3-4 would claim sector 1 */
    assert_int_equal(strata_fs_stat(&t.fs, "b", &st), 0);
    assert_true(st.page / 4 != 1);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "b", &st), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* 10,000 appends of 32 B, synced every 100, with no reservation: every byte is programmed about
 * once (the file continues in new extents instead of being copied into larger ones). */
static void unreserved_appends_program_each_byte_once(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    uint8_t rec[32], back[32];
    uint64_t before;
    uint32_t i;
    (void)state;
    tfs_init(&t, "w25q128", 256, 3);
    before = prog_bytes(&t);
    assert_int_equal(strata_fs_open(&t.fs, &f, "b", STRATA_FS_APPEND | STRATA_FS_CREATE), 0);
    for (i = 0; i < 10000; i++) {
        fill(rec, sizeof rec, i);
        assert_int_equal(strata_fs_write(&t.fs, &f, rec, sizeof rec), (int32_t)sizeof rec);
        if (i % 100 == 99)
            assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_true(prog_bytes(&t) - before < 320000 * 12 / 10);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "b", STRATA_FS_READ), 0);
    for (i = 0; i < 10000; i += 997) {
        fill(rec, sizeof rec, i);
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)(i * 32), STRATA_FS_SEEK_SET),
                         (int32_t)(i * 32));
        assert_int_equal(strata_fs_read(&t.fs, &f, back, sizeof back), (int32_t)sizeof back);
        assert_memory_equal(back, rec, sizeof rec);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* A logger appending to one unreserved file on a 256 KiB device (beside a small configuration
 * file) gets most of the space before ENOSPC, and everything it wrote reads back. */
static void logger_fills_most_of_the_device(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_stat st;
    uint8_t rec[64], back[64];
    uint32_t n = 0, i;
    int32_t rc;
    (void)state;
    tfs_init(&t, "w25q128", 64, 4);
    assert_int_equal(tfs_put(&t, "config", "period=60", 9), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_APPEND | STRATA_FS_CREATE), 0);
    for (;; n++) {
        fill(rec, sizeof rec, n);
        if ((rc = strata_fs_write(&t.fs, &f, rec, sizeof rec)) < 0)
            break;
        if (n % 16 == 15 && (rc = strata_fs_sync(&t.fs, &f)) < 0)
            break;
    }
    assert_int_equal(rc, STRATA_ENOSPC);
    strata_fs_close(&t.fs, &f); /* may find no room for its seal: the commit before holds */
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "log", &st), 0);
    print_message("logger committed %u bytes of a 262144-byte device\n", (unsigned)st.size);
    assert_true(st.size > 262144 * 8 / 10);
    n = st.size / 64;
    assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_READ), 0);
    for (i = 0; i < n; i++) { /* every committed record */
        fill(rec, sizeof rec, i);
        assert_int_equal(strata_fs_read(&t.fs, &f, back, sizeof back), (int32_t)sizeof back);
        assert_memory_equal(back, rec, sizeof rec);
    }
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* The deepest host stack address a flash operation was issued from. */
struct depth {
    uintptr_t low;
};

static int note_depth(void *arg, const struct strata_sim_op *op)
{
    struct depth *d = arg;
    volatile char here = 0;
    (void)op;
    if ((uintptr_t)&here < d->low)
        d->low = (uintptr_t)&here;
    return 0;
}

/* A device where the cleaning pass finds a file to move but no room for its copy: before the fix,
 * remove's cleaning pass allocated, the allocation failed, and started a second cleaning pass
 * inside the first. Measured as stack depth against the same copy made by configure_log. */
static void fill_for_cleaning(struct tfs *t)
{
    uint8_t data[3000];
    char name[8];
    uint32_t i;
    tfs_init(t, "w25q128", 8, 5); /* 8 sectors of 16 pages */
    t->cfg.clean_every = 1;
    assert_int_equal(tfs_remount(t), 0);
    fill(data, sizeof data, 5);
    for (i = 0; i < 9; i++) { /* 9 files of 13 pages: no room for another */
        snprintf(name, sizeof name, "f%u", (unsigned)i);
        assert_int_equal(strata_fs_reserve(&t->fs, name, 3000), 0);
        assert_int_equal(tfs_put(t, name, data, sizeof data), 0);
    }
    assert_int_equal(strata_fs_reserve(&t->fs, "keep", 1), 0);
    assert_int_equal(tfs_put(t, "keep", data, 1), 0);
}

static uintptr_t depth_of(struct tfs *t, int remove)
{
    struct depth d;
    volatile char top = 0;
    d.low = (uintptr_t)&top;
    strata_sim_set_observer(t->sim, note_depth, &d);
    if (remove)
        assert_int_equal(strata_fs_remove(&t->fs, "f3"), 0);
    else
        assert_true(strata_fs_configure_log(&t->fs, "f8", 1024, 256) <= 0);
    strata_sim_set_observer(t->sim, NULL, NULL);
    return (uintptr_t)&top - d.low;
}

static void cleaning_never_nests(void **state)
{
    struct tfs t, u;
    uintptr_t by_remove, by_copy;
    (void)state;
    fill_for_cleaning(&t);
    by_remove = depth_of(&t, 1);
    tfs_assert_clean(&t);
    tfs_free(&t);
    fill_for_cleaning(&u);
    by_copy = depth_of(&u, 0);
    tfs_free(&u);
    print_message("stack below the call: remove with cleaning %u B, configure_log %u B\n",
                  (unsigned)by_remove, (unsigned)by_copy);
    /* one cleaning pass adds its own frames and the victim search over a copy's chain; a second
     * pass would add a whole copy chain more */
    assert_true(by_remove < by_copy + 512);
}

/* A size hint (or reserve) sizes the new file's extent; without one it is the configured
 * default. */
static void create_with_size_hint(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_file_config fc;
    struct strata_fs_stat st;
    uint8_t data[300];
    (void)state;
    tfs_init(&t, "w25q128", 16, 6);
    fill(data, sizeof data, 6);
    memset(&fc, 0, sizeof fc);
    fc.size = sizeof data;
    assert_int_equal(strata_fs_opencfg(&t.fs, &f, "small", STRATA_FS_WRITE | STRATA_FS_CREATE, &fc),
                     0);
    assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), (int32_t)sizeof data);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "small", &st), 0);
    assert_true(st.pages <= 3); /* header region, 300 bytes, room for commits: 516 B */
    assert_int_equal(strata_fs_reserve(&t.fs, "reserved", sizeof data), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "reserved", &st), 0);
    assert_true(st.pages <= 3);
    assert_int_equal(tfs_put(&t, "default", data, sizeof data), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "default", &st), 0);
    assert_true(st.pages >= 16); /* the 4096-byte default */
    tfs_assert_clean(&t);
    tfs_free(&t);
}

static void mount_refuses_a_mounted_context(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    uint8_t back[8];
    uint32_t n;
    (void)state;
    tfs_init(&t, "w25q128", 16, 7);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_WRITE | STRATA_FS_CREATE), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "unsynced", 8), 8);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EBUSY);
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), STRATA_EBUSY);
    /* the handle and its data are still there */
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_get(&t, "a", back, sizeof back, &n), 0);
    assert_int_equal(n, 8);
    assert_int_equal(strata_fs_unmount(&t.fs), 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    tfs_free(&t);
}

/* A flash whose n-th program fails with STRATA_EIO (wrapping the simulator's). */
struct failing {
    struct strata_flash flash;
    struct strata_flash_ops ops;
    const struct strata_flash *real;
    uint32_t progs_left;
};

static struct failing failing_dev;

static int fail_read(const struct strata_flash *f, uint32_t a, void *b, uint32_t n)
{
    (void)f;
    return strata_flash_read(failing_dev.real, a, b, n);
}

static int fail_prog(const struct strata_flash *f, uint32_t a, const void *b, uint32_t n)
{
    (void)f;
    if (failing_dev.progs_left > 0 && --failing_dev.progs_left == 0)
        return STRATA_EIO;
    return strata_flash_prog(failing_dev.real, a, b, n);
}

static int fail_erase(const struct strata_flash *f, uint32_t unit)
{
    (void)f;
    return strata_flash_erase(failing_dev.real, unit);
}

/* After STRATA_EPOWER or STRATA_EIO every call but mount is refused until mounted again. */
static void stale_context_refuses_calls(void **state)
{
    struct tfs t;
    struct strata_fs_file f, g;
    struct strata_fs_stat st;
    uint8_t b[4];
    uint32_t n;
    (void)state;
    tfs_init(&t, "w25q128", 16, 8);
    assert_int_equal(tfs_put(&t, "a", "abcd", 4), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    strata_sim_cut_at_op(t.sim, 1);
    assert_int_equal(strata_fs_write(&t.fs, &f, "zz", 2), STRATA_EPOWER);
    strata_sim_reboot(t.sim); /* power is back, but the context saw the loss */
    assert_int_equal(strata_fs_read(&t.fs, &f, b, 4), STRATA_EBADF);
    assert_int_equal(strata_fs_open(&t.fs, &g, "a", STRATA_FS_READ), STRATA_EINVAL);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), STRATA_EINVAL);
    assert_int_equal(strata_fs_remove(&t.fs, "a"), STRATA_EINVAL);
    assert_int_equal(strata_fs_gc(&t.fs), STRATA_EINVAL);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    assert_int_equal(tfs_get(&t, "a", b, sizeof b, &n), 0);
    assert_memory_equal(b, "abcd", 4);
    /* the same after a device error */
    failing_dev.real = strata_sim_flash(t.sim);
    failing_dev.flash = *failing_dev.real;
    failing_dev.ops = *failing_dev.real->ops;
    failing_dev.ops.read = fail_read;
    failing_dev.ops.prog = fail_prog;
    failing_dev.ops.erase = fail_erase;
    failing_dev.flash.ops = &failing_dev.ops;
    assert_int_equal(strata_fs_unmount(&t.fs), 0);
    t.cfg.flash = &failing_dev.flash;
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    failing_dev.progs_left = 1;
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, "zz", 2), STRATA_EIO);
    assert_int_equal(strata_fs_open(&t.fs, &g, "b", STRATA_FS_WRITE | STRATA_FS_CREATE),
                     STRATA_EINVAL);
    memset(&t.fs, 0, sizeof t.fs);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    assert_int_equal(tfs_get(&t, "a", b, sizeof b, &n), 0);
    assert_memory_equal(b, "abcd", 4);
    t.cfg.flash = failing_dev.real;
    tfs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copies_keep_their_size),
        cmocka_unit_test(namespace_calls_read_few_headers),
        cmocka_unit_test(names_filter_answers_absent_without_a_walk),
        cmocka_unit_test(unreserved_appends_program_each_byte_once),
        cmocka_unit_test(logger_fills_most_of_the_device),
        cmocka_unit_test(cleaning_never_nests),
        cmocka_unit_test(create_with_size_hint),
        cmocka_unit_test(mount_refuses_a_mounted_context),
        cmocka_unit_test(stale_context_refuses_calls),
        cmocka_unit_test(no_allocation_in_a_retired_sector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
