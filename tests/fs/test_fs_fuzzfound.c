/*
 * Regression tests of the strata_fs defects the fuzzers found (docs/fuzzing.md; the saved inputs
 * replay as fuzzcrash_fs_ops_* and fuzzcrash_fs_*), each written against the public API so that
 * it fails on the code before its fix:
 *   - FS-5, FS-8: failed_append_keeps_length_and_commits_its_prefix: a write failing with
 *     STRATA_ENOSPC left the handle's length over a piece never programmed (FS-5), and a write
 *     failing part way left the handle clean, so the next sync committed nothing of the prefix it
 *     had programmed (FS-8: after a remount the file lost it);
 *   - FS-6: failed_close_leaves_no_uncommitted_copy: a close whose commit failed left the copy a
 *     merge had made live beside the file: readdir listed the name twice, check reported it;
 *   - FS-7: name_max_rule_is_the_headers: fs.h stated 88 + name_max <= page size; the code (and
 *     docs/format-fs.md) need 100 + name_max (the sector marker counts): checked at the limit;
 *   - FS-2, FS-3: format-2 versions of the damaged images the format-1 inputs held (a new
 *     file's extent over stray bytes; a log record over erased bytes past a damaged length);
 *   - FS-12: damaged_link_stays_inside_the_region: check(repair) obsoleted an orphan through a
 *     damaged link (0x00FFFFFF, a dual value that reads whole) and programmed 4 bytes in the
 *     sector before the file system's region; remove did the same through a file's next link;
 *   - FS-13: retaken_place_is_not_programmed_again: on msp430f5529 (row-time rule on) an append
 *     a power loss left uncommitted had programmed its place; the place still read erased (0xFF
 *     data) or already held the bytes (the same data), so the next appends took it again and
 *     programmed the same row until it passed its 16 ms between erases (STRATA_EVIOLATION);
 *   - FS-14: truncated_bytes_in_the_slot_area_stay_out_of_the_header: bytes a truncation left
 *     past the committed length lay in the erased slot places the slot search relies on, so the
 *     search counted every place of the tail as a slot, and the next commit programmed its two
 *     length slots before the tail's data area, over its header's continuation link: the commit
 *     returned 0 and the file kept its old length;
 *   - FS-15: cut_append_place_is_not_programmed_over: appends a power loss left uncommitted had
 *     programmed their place; the next appends, with bytes that only cleared further bits,
 *     were programmed over it, and on msp430f5529 the third program of a row passed its 16 ms;
 *   - FS-16: power_cut_while_dropping_a_child_is_reported: a log or continuation whose link could
 *     not be written (stray bits in the link) is obsoleted at once; a power cut during that
 *     program was lost (the write returned STRATA_ECORRUPT, or STRATA_EIO from the stale
 *     context) instead of STRATA_EPOWER;
 *   - FS-17: extent_share_past_its_end_reads_from_the_log: a log record raised the file's
 *     in-place end past its first extent's data area before the file grew, so the next
 *     extent's base lies past that area; reads took the gap from the extent's next pages, past
 *     the region's end when the extent was its last page (STRATA_ECORRUPT).
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

/* The handle's whole content, read through it from the start (its position is moved). */
static uint32_t read_all(struct tfs *t, struct strata_fs_file *f, uint8_t *out, uint32_t max)
{
    int32_t n;
    assert_int_equal(strata_fs_seek(&t->fs, f, 0, STRATA_FS_SEEK_SET), 0);
    n = strata_fs_read(&t->fs, f, out, max);
    assert_true(n >= 0);
    return (uint32_t)n;
}

/* A write larger than the device: its pieces are programmed (the chain growing) until nothing
 * can be allocated. The handle then holds exactly a prefix of the write, the next sync commits
 * that prefix, and a remount reads it back. */
static void failed_append_keeps_length_and_commits_its_prefix(void **state)
{
    static uint8_t data[12288], back[12288];
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_file_config fc = {256, NULL, 0};
    uint32_t n;
    (void)state;
    tfs_init(&t, "at45db041", 4, 5);
    fill(data, sizeof data, 5);
    assert_int_equal(strata_fs_opencfg(&t.fs, &f, "log",
                                       STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE, &fc),
                     0);
    assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), STRATA_ENOSPC);
    n = read_all(&t, &f, back, sizeof back);
    print_message("a failed 12 KiB write left %u bytes\n", (unsigned)n);
    assert_true(n > 0 && n < sizeof data);
    assert_memory_equal(back, data, n); /* nothing past the pieces programmed */
    assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    tfs_assert_file(&t, "log", data, n);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* The names readdir lists must be distinct; returns how many there are. */
static uint32_t list_distinct(struct tfs *t)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    char seen[16][STRATA_FS_NAME_LIMIT + 1];
    uint32_t n = 0, i;
    int rc;
    assert_int_equal(strata_fs_opendir(&t->fs, &d), 0);
    while ((rc = strata_fs_readdir(&t->fs, &d, &st)) == 1) {
        for (i = 0; i < n; i++)
            if (strcmp(seen[i], st.name) == 0)
                fail_msg("readdir lists '%s' twice", st.name);
        assert_true(n < 16);
        memcpy(seen[n], st.name, sizeof seen[n]);
        seen[n][STRATA_FS_NAME_LIMIT] = '\0';
        n++;
    }
    assert_int_equal(rc, 0);
    return n;
}

/* A merge leaves an open file (with a write-back buffer) in an uncommitted copy; the device fills
 * up, so appends collected in the buffer find no room when close programs them, and the close
 * fails. The file is then its last commit, listed once, and check is clean (before the fix the
 * copy stayed live beside it). */
static void failed_close_leaves_no_uncommitted_copy(void **state)
{
    static uint8_t data[300], big[4096], wb[256];
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_file_config fc = {0, wb, sizeof wb};
    char name[8];
    uint32_t i, files;
    int rc;
    (void)state;
    tfs_init(&t, "at45db041", 4, 6);
    fill(data, sizeof data, 6);
    fill(big, sizeof big, 7);
    assert_int_equal(strata_fs_configure_log(&t.fs, "log", 64, 16), 0);
    assert_int_equal(tfs_put(&t, "log", data, sizeof data), 0);
    assert_int_equal(
        strata_fs_opencfg(&t.fs, &f, "log", STRATA_FS_READ | STRATA_FS_WRITE, &fc), 0);
    for (i = 0; i < 5; i++) { /* four records fill the log: the fifth write merges */
        assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)(i * 40), STRATA_FS_SEEK_SET),
                         (int32_t)(i * 40));
        assert_int_equal(strata_fs_write(&t.fs, &f, "x", 1), 1);
    }
    for (files = 0; files < 20; files++) { /* fill the device with reservations */
        snprintf(name, sizeof name, "r%u", (unsigned)files);
        if ((rc = strata_fs_reserve(&t.fs, name, 256)) == STRATA_ENOSPC)
            break;
        assert_int_equal(rc, 0);
    }
    assert_true(files > 0 && files < 20);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_END), (int32_t)sizeof data);
    for (i = 0; i < sizeof big && strata_fs_write(&t.fs, &f, big + i, 16) == 16; i += 16)
        ; /* until a flush of the buffer finds no room */
    assert_true(i < sizeof big);
    assert_int_equal(strata_fs_close(&t.fs, &f), STRATA_ENOSPC);
    assert_int_equal(list_distinct(&t), files + 1);
    tfs_assert_clean(&t);
    tfs_assert_file(&t, "log", data, sizeof data); /* the last commit: before the merge */
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(list_distinct(&t), files + 1);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* On msp430f5529's 128-byte pages the largest name_max is 28 (100 + 28 = 128); 29 and the 32
 * that the old header text allowed are refused, by format and by mount. */
static void name_max_rule_is_the_headers(void **state)
{
    struct tfs t;
    uint32_t n;
    (void)state;
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim("msp430f5529", 4, 7);
    for (n = 26; n <= STRATA_FS_NAME_LIMIT; n++) {
        int want = 100 + n <= 128 ? 0 : STRATA_EINVAL;
        tfs_config(&t, n);
        t.cfg.default_size = 64;
        memset(&t.fs, 0, sizeof t.fs);
        assert_int_equal(strata_fs_format(&t.fs, &t.cfg), want);
        if (want == 0) {
            assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
            assert_int_equal(tfs_put(&t, "a-name-of-28-bytes-exactly!!", "x", 1),
                             n >= 28 ? 0 : STRATA_ENAMETOOLONG);
            assert_int_equal(strata_fs_unmount(&t.fs), 0);
        } else {
            assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), STRATA_EINVAL);
        }
    }
    tfs_free(&t);
}

/* FS-2 on format 2. The format-1 input held stray bytes in the last pages of the extent a new
 * file was given (free-looking pages: their header reads erased), some of which passed as length
 * slots: the new file, written with 300 bytes and synced, reported 700. Re-created here on
 * m25p80 with the bytes a twin device left there (a whole file of 700 bytes, its valid length
 * slot included: the worst stray bytes there can be) and with random bytes. The new file must
 * then be refused (STRATA_ECORRUPT) or hold exactly what was written, before and after a
 * remount; the other file never changes. */
static void new_file_over_stray_bytes(void **state)
{
    static uint8_t data[700], back[1024], raw[8 * 256];
    struct strata_fs_file_config fc = {1024, NULL, 0};
    struct strata_fs_stat st;
    struct strata_fs_file f;
    struct ts_rng r;
    struct tfs a, b;
    uint32_t variant, from, n, i;
    int rc;
    (void)state;
    fill(data, sizeof data, 8);
    for (variant = 0; variant < 9; variant++) {
        tfs_init(&a, "m25p80", 4, 8);
        tfs_init(&b, "m25p80", 4, 8);
        assert_int_equal(tfs_put(&a, "log", data, 500), 0);
        assert_int_equal(tfs_put(&b, "log", data, 500), 0);
        assert_int_equal(strata_fs_opencfg(&a.fs, &f, "new", STRATA_FS_WRITE | STRATA_FS_CREATE,
                                           &fc),
                         0);
        assert_int_equal(strata_fs_write(&a.fs, &f, data, sizeof data), (int32_t)sizeof data);
        assert_int_equal(strata_fs_close(&a.fs, &f), 0);
        assert_int_equal(strata_fs_stat(&a.fs, "new", &st), 0);
        /* the extent's pages after its header page, in sector 0 (no marker among them) */
        from = (st.page + 1) * 256;
        n = (st.pages - 1) * 256;
        assert_true(st.pages + st.page < 256 && n <= sizeof raw);
        assert_int_equal(strata_sim_peek(a.sim, from, raw, n), 0);
        if (variant > 0) { /* random stray bytes, in 1 of 8 bytes; 1-4: every byte of the last
                              page (the slots) */
            ts_rng_seed(&r, variant);
            for (i = 0; i < n; i++)
                raw[i] = (i >= n - 256 && variant < 5) || ts_rng_below(&r, 8) == 0
                             ? (uint8_t)ts_rng_below(&r, 256)
                             : 0xFF;
        }
        assert_int_equal(strata_sim_poke(b.sim, from, raw, n), 0);
        assert_int_equal(tfs_remount(&b), 0); /* damage found at start-up, not while running */
        rc = strata_fs_opencfg(&b.fs, &f, "new",
                               STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE, &fc);
        if (variant == 0) /* a slot that checks: the new file would have a state it never had */
            assert_int_equal(rc, STRATA_ECORRUPT);
        print_message("stray bytes %u: open %d\n", (unsigned)variant, rc);
        if (rc == 0) {
            assert_int_equal(strata_fs_write(&b.fs, &f, data, 300), 300);
            assert_int_equal(strata_fs_sync(&b.fs, &f), 0);
            assert_int_equal(read_all(&b, &f, back, sizeof back), 300);
            assert_memory_equal(back, data, 300);
            assert_int_equal(strata_fs_close(&b.fs, &f), 0);
            assert_int_equal(tfs_remount(&b), 0);
            tfs_assert_file(&b, "new", data, 300);
        } else {
            assert_int_equal(rc, STRATA_ECORRUPT);
            assert_int_equal(strata_fs_stat(&b.fs, "new", &st), STRATA_ENOENT);
        }
        tfs_assert_file(&b, "log", data, 500);
        tfs_assert_clean(&b);
        tfs_free(&a);
        tfs_free(&b);
    }
}

/* FS-3 on format 2. The format-1 input held a file of committed length 0 with 2 committed
 * micro-log records of 64 bytes (a damaged length slot had made it): a write of 40 bytes at
 * offset 0 was programmed in place, and the older log record, applied over the extent by reads,
 * hid it. In format 2 that state is a legal one (a truncate after two logged writes), and writes
 * below the highest logged offset go through the log. Checked with and without a remount
 * between the truncate and the write. */
static void write_under_logged_records_past_the_length(void **state)
{
    static uint8_t data[256], back[256], w[40];
    struct strata_fs_file f;
    struct tfs t;
    uint32_t remount;
    (void)state;
    fill(data, sizeof data, 9);
    memset(w, 0x5A, sizeof w);
    for (remount = 0; remount < 2; remount++) {
        tfs_init(&t, "m25p80", 4, 9);
        assert_int_equal(strata_fs_configure_log(&t.fs, "c", 256, 64), 0);
        assert_int_equal(tfs_put(&t, "c", data, 128), 0);
        assert_int_equal(strata_fs_open(&t.fs, &f, "c", STRATA_FS_READ | STRATA_FS_WRITE), 0);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + 128, 8), 8); /* record 0 */
        assert_int_equal(strata_fs_seek(&t.fs, &f, 64, STRATA_FS_SEEK_SET), 64);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + 136, 8), 8); /* record 1 */
        assert_int_equal(strata_fs_truncate(&t.fs, &f, 0), 0);
        assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
        if (remount) {
            assert_int_equal(strata_fs_close(&t.fs, &f), 0);
            assert_int_equal(tfs_remount(&t), 0);
            assert_int_equal(
                strata_fs_open(&t.fs, &f, "c", STRATA_FS_READ | STRATA_FS_WRITE), 0);
        }
        assert_int_equal(strata_fs_seek(&t.fs, &f, 0, STRATA_FS_SEEK_END), 0);
        assert_int_equal(strata_fs_write(&t.fs, &f, w, sizeof w), (int32_t)sizeof w);
        assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
        assert_int_equal(read_all(&t, &f, back, sizeof back), sizeof w);
        assert_memory_equal(back, w, sizeof w);
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
        assert_int_equal(tfs_remount(&t), 0);
        tfs_assert_file(&t, "c", w, sizeof w);
        tfs_assert_clean(&t);
        tfs_free(&t);
    }
}

/* The dual value v, ~v, v, ~v of a link (docs/format-fs.md), as a damaged image may hold it. */
static void dual32(uint8_t *p, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < 16; i++)
        p[i] = (uint8_t)(((i / 4) & 1 ? ~v : v) >> (8 * (i % 4)));
}

/* The device address of header offset `off` of the extent at region page `page` (m25p80: 256 B
 * pages, 64 KiB sectors; the first page of a sector starts after its 12-byte marker). */
static uint32_t hdr_addr(uint32_t first_unit, uint32_t page, uint32_t off)
{
    return first_unit * 65536u + page * 256u + (page % 256u == 0 ? 12u : 0u) + off;
}

/* FS-12. The region is sectors 1-3 of an m25p80; sector 0 belongs to someone else (here: left
 * erased, and compared after every call). A populated image gets damaged links that decode
 * whole but name page 0x00FFFFFF: (1) a micro log whose owner's link is destroyed (an orphan:
 * check with repair obsoletes it and follows its next link), (2) a closed file's next link
 * (remove follows it). Before the fix each programmed 4 zero bytes at the address that page
 * wraps to, in sector 0. Now the link reads as damaged (not followed), every call stays inside
 * the region, and the other file is untouched. */
static void damaged_link_stays_inside_the_region(void **state)
{
    static uint8_t data[600], guard[65536], erased[65536];
    const uint32_t N = 16, O_LOG = 40 + N, O_NEXT = 56 + N;
    struct strata_fs_report r;
    struct strata_fs_file f;
    struct strata_fs_stat st;
    uint8_t link[16];
    uint32_t log;
    struct tfs t;
    int rc;
    (void)state;
    fill(data, sizeof data, 12);
    memset(erased, 0xFF, sizeof erased);
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim("m25p80", 4, 12);
    tfs_config(&t, N);
    t.cfg.first_unit = 1;
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    assert_int_equal(strata_fs_configure_log(&t.fs, "a", 64, 16), 0);
    assert_int_equal(tfs_put(&t, "a", data, 300), 0);
    assert_int_equal(tfs_put(&t, "b", data + 300, 300), 0);
    assert_int_equal(tfs_put(&t, "c", data, 200), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 10, STRATA_FS_SEEK_SET), 10);
    assert_int_equal(strata_fs_write(&t.fs, &f, "x", 1), 1); /* a micro log record */
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ), 0);
    log = f.log;
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_true(log < 0xFFFFFFFEu);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);

    /* (1) a's log link destroyed (the log is an orphan), the log's next link damaged */
    memset(link, 0, sizeof link);
    assert_int_equal(strata_sim_poke(t.sim, hdr_addr(1, st.page, O_LOG), link, 16), 0);
    dual32(link, 0x00FFFFFFu);
    assert_int_equal(strata_sim_poke(t.sim, hdr_addr(1, log, O_NEXT), link, 16), 0);
    rc = strata_fs_check(&t.fs, 1, &r);
    print_message("check(repair): %d problems, %u repaired, first '%s'\n", rc,
                  (unsigned)r.repaired, r.first ? r.first : "-");
    assert_true(rc > 0 && r.repaired > 0);
    assert_int_equal(strata_sim_peek(t.sim, 0, guard, sizeof guard), 0);
    assert_memory_equal(guard, erased, sizeof guard);

    /* (2) b's next link damaged: remove follows it */
    assert_int_equal(strata_fs_stat(&t.fs, "b", &st), 0);
    assert_int_equal(strata_sim_poke(t.sim, hdr_addr(1, st.page, O_NEXT), link, 16), 0);
    assert_int_equal(strata_fs_remove(&t.fs, "b"), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "b", &st), STRATA_ENOENT);
    assert_int_equal(strata_sim_peek(t.sim, 0, guard, sizeof guard), 0);
    assert_memory_equal(guard, erased, sizeof guard);

    /* the mount after it repairs what is left, inside the region too; c never changed */
    assert_int_equal(tfs_remount(&t), 0);
    (void)strata_fs_check(&t.fs, 1, &r);
    assert_int_equal(strata_sim_peek(t.sim, 0, guard, sizeof guard), 0);
    assert_memory_equal(guard, erased, sizeof guard);
    tfs_assert_file(&t, "c", data, 200);
    tfs_free(&t);
}

/* FS-13. An append of 120 bytes that a power loss leaves uncommitted (the device reboots before
 * any sync) has programmed its place; after the reboot the file's end is where it was, and the
 * next append takes the same place again (it reads as erased for 0xFF data, and allows the same
 * bytes again for any data). Ten such reboots: before the fix every one programmed the place
 * again and a 128-byte row passed its 16 ms (msp430f5529, row-time rule on). Now a program
 * that changes nothing is not made. The file then takes a last append and a sync, and holds
 * exactly that. */
static void retaken_place_is_not_programmed_again(void **state)
{
    static uint8_t data[120], back[256];
    struct strata_fs_file f;
    struct tfs t;
    uint32_t variant, i, n;
    (void)state;
    for (variant = 0; variant < 2; variant++) {
        if (variant == 0)
            memset(data, 0xFF, sizeof data);
        else
            fill(data, sizeof data, 13);
        tfs_init(&t, "msp430f5529", 24, 13);
        assert_int_equal(tfs_put(&t, "log", "head", 4), 0);
        for (i = 0; i < 10; i++) {
            assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_WRITE | STRATA_FS_APPEND),
                             0);
            assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), (int32_t)sizeof data);
            assert_int_equal(tfs_remount(&t), 0); /* power lost before the sync */
        }
        tfs_assert_file(&t, "log", "head", 4);
        assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_WRITE | STRATA_FS_APPEND), 0);
        assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), (int32_t)sizeof data);
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
        assert_int_equal(tfs_remount(&t), 0);
        assert_int_equal(tfs_get(&t, "log", back, sizeof back, &n), 0);
        assert_int_equal(n, 4 + sizeof data);
        assert_memory_equal(back, "head", 4);
        assert_memory_equal(back + 4, data, sizeof data);
        tfs_assert_clean(&t);
        tfs_free(&t); /* no flash rule violated (the row time included) */
    }
}

/* One open-modify-close session on "a" after a reboot: truncate to size. */
static void truncate_after_reboot(struct tfs *t, uint32_t size)
{
    struct strata_fs_file f;
    assert_int_equal(tfs_remount(t), 0);
    assert_int_equal(strata_fs_open(&t->fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_truncate(&t->fs, &f, size), 0);
    assert_int_equal(strata_fs_close(&t->fs, &f), 0);
}

/* FS-14. A file continues in a second extent (its tail), which takes 8 length slots (the
 * growth's first one and 7 syncs); an append then fills exactly the data room left beside its
 * slot area (slots 8 to 12: the next two and a quarter more), and a truncation to 6 bytes,
 * below the tail's base, is closed (slots 8 and 9): the bytes past the new length stay on flash
 * from slot place 13 on. After a reboot the file's end is its committed length, so a second
 * truncation's close takes places 10 and 11; place 12 is the last erased one. After the next
 * reboot the slot search (probes 11, then 14, in the old bytes) found no erased place and
 * counted all of them as slots; with the file's end below the tail's base the room check saw no
 * data, and the third truncation's close programmed its two slots before the tail's data area,
 * over its header's continuation link: close returned 0 and the file still read 5 bytes. Now a
 * commit whose slot area does not fit the tail continues the file in a new extent. */
static void truncated_bytes_in_the_slot_area_stay_out_of_the_header(void **state)
{
    static uint8_t data[4096];
    struct strata_fs_file_config fc = {64, NULL, 0};
    struct strata_fs_file f;
    struct strata_fs_stat st;
    struct tfs t;
    uint32_t i, room;
    (void)state;
    tfs_init(&t, "w25q128", 4, 14);
    fill(data, sizeof data, 14);
    assert_int_equal(strata_fs_opencfg(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE |
                                                        STRATA_FS_CREATE, &fc),
                     0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    room = st.capacity; /* the first extent's room: a byte more continues the file */
    assert_true(room > 8 && room < 1024);
    assert_int_equal(strata_fs_write(&t.fs, &f, data, room + 1), (int32_t)(room + 1));
    for (i = 0; i < 7; i++) {
        assert_int_equal(strata_fs_sync(&t.fs, &f), 0);
        assert_int_equal(strata_fs_write(&t.fs, &f, data + room + 1 + i, 1), 1);
    }
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    print_message("%u bytes, room to %u beside the tail's 8 slots\n", (unsigned)(room + 8),
                  (unsigned)st.capacity);
    assert_true(st.capacity > room + 8 && st.capacity <= sizeof data);
    assert_int_equal(strata_fs_write(&t.fs, &f, data + room + 8, st.capacity - room - 8),
                     (int32_t)(st.capacity - room - 8));
    assert_int_equal(strata_fs_truncate(&t.fs, &f, 6), 0);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    truncate_after_reboot(&t, 5);
    truncate_after_reboot(&t, 4);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_int_equal(st.size, 4);
    assert_int_equal(tfs_remount(&t), 0);
    tfs_assert_file(&t, "a", data, 4);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

/* FS-15. Three appends of 300 bytes, each left uncommitted by a power loss (a reboot before any
 * sync), each with bytes that only clear bits of the one before (a pattern, the pattern & 0x5A,
 * zeros). Before the fix each was programmed over the place the one before had programmed, and
 * the third program of a 128-byte row passed its 16 ms between erases (msp430f5529, row-time
 * rule on: STRATA_EVIOLATION). Now a place that holds programmed bytes is never programmed over:
 * the file continues in a new extent. A last append is synced and reads back exactly. */
static void cut_append_place_is_not_programmed_over(void **state)
{
    static uint8_t data[3][300], want[4 + 300];
    struct strata_fs_file f;
    struct tfs t;
    uint32_t i;
    (void)state;
    fill(data[0], sizeof data[0], 15);
    for (i = 0; i < sizeof data[0]; i++) {
        data[1][i] = (uint8_t)(data[0][i] & 0x5A);
        data[2][i] = 0;
    }
    tfs_init(&t, "msp430f5529", 24, 15);
    assert_int_equal(tfs_put(&t, "log", "head", 4), 0);
    for (i = 0; i < 3; i++) {
        assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_WRITE | STRATA_FS_APPEND), 0);
        assert_int_equal(strata_fs_write(&t.fs, &f, data[i], sizeof data[i]),
                         (int32_t)sizeof data[i]);
        assert_int_equal(tfs_remount(&t), 0); /* power lost before the sync */
        tfs_assert_file(&t, "log", "head", 4);
    }
    assert_int_equal(strata_fs_open(&t.fs, &f, "log", STRATA_FS_WRITE | STRATA_FS_APPEND), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, data[1], sizeof data[1]), (int32_t)sizeof data[1]);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    memcpy(want, "head", 4);
    memcpy(want + 4, data[1], sizeof data[1]);
    tfs_assert_file(&t, "log", want, sizeof want);
    tfs_assert_clean(&t);
    tfs_free(&t); /* no flash rule violated (the row time included) */
}

/* FS-16, one case: a file "a" on m25p80 whose link at header offset `off` (its log link, or its
 * next link) holds stray bits in its second copy (it reads "not written", but cannot be
 * programmed), then the write `w` (at `at`, from a handle opened with `flags`) under a power
 * cut at its k-th flash operation. Returns 1 when the cut fell inside the write. */
static int cut_write_over_stray_link(uint32_t off, uint32_t at, unsigned flags, uint32_t k)
{
    static uint8_t data[8192];
    const uint8_t stray = 0x00;
    struct strata_fs_file f;
    struct strata_fs_stat st;
    struct tfs t;
    int32_t rc;
    int cut;
    fill(data, sizeof data, 16);
    tfs_init(&t, "m25p80", 2, 16);
    assert_int_equal(tfs_put(&t, "a", data, 200), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_int_equal(strata_sim_poke(t.sim, hdr_addr(0, st.page, off) + 12, &stray, 1), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", flags), 0);
    assert_int_equal(strata_fs_seek(&t.fs, &f, (int32_t)at, STRATA_FS_SEEK_SET), (int32_t)at);
    strata_sim_cut_at_op(t.sim, k);
    assert_true(st.capacity + 64 <= sizeof data);
    /* an append 64 bytes past the extent's room, or a write of 20 bytes at 10 */
    rc = strata_fs_write(&t.fs, &f, data, flags & STRATA_FS_APPEND ? st.capacity - 136 : 20);
    cut = !strata_sim_powered(t.sim);
    strata_sim_cut_at_op(t.sim, 0);
    if (cut)
        assert_int_equal(rc, STRATA_EPOWER); /* before the fix: ECORRUPT (log), EIO (next) */
    else
        assert_true(rc > 0);
    if (cut) {
        assert_int_equal(tfs_remount(&t), 0);
        tfs_assert_file(&t, "a", data, 200);
        tfs_assert_clean(&t);
    }
    tfs_free(&t);
    return cut;
}

/* FS-16. A write through the log (the log link refuses its program) and an append that grows
 * the file (the next link refuses), each cut at every flash operation it makes: the write
 * returns STRATA_EPOWER whenever the power failed, also in the program that obsoletes the
 * log or continuation its link could not name (before the fix that cut was lost). */
static void power_cut_while_dropping_a_child_is_reported(void **state)
{
    const uint32_t N = 16;
    uint32_t k, cuts = 0;
    (void)state;
    for (k = 1; cut_write_over_stray_link(40 + N, 10, STRATA_FS_READ | STRATA_FS_WRITE, k); k++)
        cuts++;
    for (k = 1; cut_write_over_stray_link(56 + N, 0, STRATA_FS_WRITE | STRATA_FS_APPEND, k); k++)
        cuts++;
    print_message("%u cut points\n", (unsigned)cuts);
    assert_true(cuts >= 6);
}

/* FS-17. On a w25q128 region of two sectors, "a" takes the last page (a filler file takes the
 * rest, then goes), with a micro log of 256-byte records, more than that page's 168 data bytes.
 * A write of 1,000 bytes at 0 logs its first record (the in-place end D becomes 256) and
 * appends the rest in a continuation whose base is 256. Before the fix a read took file bytes
 * [168, 256) from past the extent's page: past the region's end (STRATA_ECORRUPT). They are
 * the log's. */
static void extent_share_past_its_end_reads_from_the_log(void **state)
{
    static uint8_t data[1000], back[1024];
    struct strata_fs_file f;
    struct strata_fs_stat st;
    struct tfs t;
    (void)state;
    fill(data, sizeof data, 17);
    memset(&t, 0, sizeof t);
    t.sim = tfs_sim("w25q128", 2, 17);
    tfs_config(&t, 16);
    t.cfg.default_size = 1;
    assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    assert_int_equal(strata_fs_mount(&t.fs, &t.cfg), 0);
    assert_int_equal(strata_fs_reserve(&t.fs, "fill", 7600), 0);
    assert_int_equal(strata_fs_configure_log(&t.fs, "a", 512, 256), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "a", &st), 0);
    assert_int_equal(st.page, 31); /* the region's last page */
    assert_int_equal(st.pages, 1);
    assert_int_equal(strata_fs_remove(&t.fs, "fill"), 0);
    assert_int_equal(tfs_put(&t, "a", data, 1), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_write(&t.fs, &f, data, sizeof data), (int32_t)sizeof data);
    assert_int_equal(read_all(&t, &f, back, sizeof back), sizeof data);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(tfs_remount(&t), 0);
    tfs_assert_file(&t, "a", data, sizeof data);
    tfs_assert_clean(&t);
    tfs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failed_append_keeps_length_and_commits_its_prefix),
        cmocka_unit_test(failed_close_leaves_no_uncommitted_copy),
        cmocka_unit_test(name_max_rule_is_the_headers),
        cmocka_unit_test(new_file_over_stray_bytes),
        cmocka_unit_test(write_under_logged_records_past_the_length),
        cmocka_unit_test(damaged_link_stays_inside_the_region),
        cmocka_unit_test(retaken_place_is_not_programmed_again),
        cmocka_unit_test(truncated_bytes_in_the_slot_area_stay_out_of_the_header),
        cmocka_unit_test(cut_append_place_is_not_programmed_over),
        cmocka_unit_test(power_cut_while_dropping_a_child_is_reported),
        cmocka_unit_test(extent_share_past_its_end_reads_from_the_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
