/*
 * Damaged and truncated images: errors, never crashes, never a silent wrong answer.
 *
 * every_metadata_byte: each byte of every piece of metadata of a populated image (markers,
 * headers with their one-way fields, length slots, committed log entries), damaged in several
 * ways, one at a time: mount fails, or check reports a problem, or every file reads exactly as
 * before. After each, the file system is used (writes, creates, removes, a collection) and must
 * never program over bytes that are not erased (the simulator refuses it: a real chip would
 * corrupt silently there). Random damage over populated images checks the same safety; targeted
 * damage checks specific promises; a truncated device; the fuzz seed corpus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/crc.h"
#include "fs_script.h"

#define N16 16u /* name_max of these images */
#define HDR_REGION (72u + N16)
#define MARKER 12u

/* A formatted device with small default files, so that small images hold several. */
static void init_small(struct tfs *t, const char *profile, uint32_t units, uint64_t seed)
{
    tfs_init(t, profile, units, seed);
    t->cfg.default_size = 512;
    assert_int_equal(tfs_remount(t), 0);
}

/* Every kind of metadata, every file closed: a small file, a reserved log with two commits, a
 * file with a tuned micro log and committed records, a renamed file (a copy with a replaced
 * target), an obsolete file, a file grown into a continuation, an empty reserved file. */
static void populate(struct tfs *t, uint32_t seed)
{
    struct strata_fs_file f;
    uint8_t data[1500];
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
    assert_int_equal(strata_fs_sync(&t->fs, &f), 0);
    assert_int_equal(strata_fs_seek(&t->fs, &f, 40, STRATA_FS_SEEK_SET), 40);
    assert_int_equal(strata_fs_write(&t->fs, &f, "again", 5), 5);
    assert_int_equal(strata_fs_close(&t->fs, &f), 0);
    assert_int_equal(tfs_put(t, "tmp", "x", 1), 0);
    assert_int_equal(strata_fs_rename(&t->fs, "tmp", "cfg"), 0);
    assert_int_equal(tfs_put(t, "gone", data, 50), 0);
    assert_int_equal(strata_fs_remove(&t->fs, "gone"), 0);
    assert_int_equal(strata_fs_reserve(&t->fs, "grown", 100), 0);
    assert_int_equal(tfs_put(t, "grown", data, sizeof data), 0);
    assert_int_equal(strata_fs_reserve(&t->fs, "empty", 10), 0);
}

/* The namespace and contents of a mounted file system, for comparison. */
struct snapshot {
    int n;
    char name[16][STRATA_FS_NAME_LIMIT + 1];
    uint32_t len[16];
    uint8_t data[16][2048];
};

/* 0, or the error that stopped the listing. */
static int snap(struct strata_fs *fs, struct snapshot *s)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int rc;
    memset(s, 0, sizeof *s);
    if ((rc = strata_fs_opendir(fs, &d)) != 0)
        return rc;
    while ((rc = strata_fs_readdir(fs, &d, &st)) == 1 && s->n < 16) {
        struct strata_fs_file f;
        int32_t n;
        memcpy(s->name[s->n], st.name, sizeof st.name);
        if ((rc = strata_fs_open(fs, &f, st.name, STRATA_FS_READ)) != 0)
            return rc;
        n = strata_fs_read(fs, &f, s->data[s->n], sizeof s->data[0]);
        if ((rc = strata_fs_close(fs, &f)) != 0 || n < 0)
            return n < 0 ? (int)n : rc;
        s->len[s->n++] = (uint32_t)n;
    }
    return rc;
}

static int same(const struct snapshot *a, const struct snapshot *b)
{
    int i, j;
    if (a->n != b->n)
        return 0;
    for (i = 0; i < a->n; i++) {
        for (j = 0; j < b->n && strcmp(a->name[i], b->name[j]) != 0; j++)
            ;
        if (j == b->n || a->len[i] != b->len[j] ||
            memcmp(a->data[i], b->data[j], a->len[i]) != 0)
            return 0;
    }
    return 1;
}

/* Use a possibly damaged file system; only crashes, hangs and programs over stray bits fail
 * here (the caller checks the simulator). */
static void exercise(struct tfs *t)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    struct strata_fs_usage u;
    struct strata_fs_report r;
    struct strata_fs_file f;
    uint8_t b[100];
    int n = 0;
    memset(b, 0x5A, sizeof b);
    if (strata_fs_opendir(&t->fs, &d) == 0)
        while (n++ < 100 && strata_fs_readdir(&t->fs, &d, &st) == 1)
            if (strata_fs_open(&t->fs, &f, st.name, STRATA_FS_READ | STRATA_FS_WRITE) == 0) {
                while (strata_fs_read(&t->fs, &f, b, sizeof b) > 0)
                    ;
                strata_fs_write(&t->fs, &f, "appended", 8);
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

/* A copy of the populated device with its context. */
static void clone(struct tfs *dst, const struct tfs *base)
{
    *dst = *base;
    dst->sim = strata_sim_clone(base->sim);
    assert_non_null(dst->sim);
    tfs_config(dst, 0);
    dst->cfg.default_size = 512;
    memset(&dst->fs, 0, sizeof dst->fs);
}

struct range {
    uint32_t at, n;
};

/* Usable addresses (docs/format-fs.md): the flash minus each sector's marker. */
static uint32_t page_u(const struct strata_flash *fl, uint32_t q)
{
    uint32_t pps = fl->geo.erase_size / fl->geo.page_size, usable = fl->geo.erase_size - MARKER;
    return q / pps * usable + (q % pps ? q % pps * fl->geo.page_size - MARKER : 0);
}

static uint32_t dev_of(const struct strata_flash *fl, uint32_t u)
{
    uint32_t usable = fl->geo.erase_size - MARKER;
    return u / usable * fl->geo.erase_size + MARKER + u % usable;
}

/* The metadata of a format-2 image (docs/format-fs.md): each sector's marker, each extent's
 * header region, its written length slots (data and continuation extents) or written index
 * entries (logs). Parsed from the raw bytes. */
static uint32_t metadata(struct strata_sim *sim, struct range *out, uint32_t max)
{
    const struct strata_flash *fl = strata_sim_flash(sim);
    uint32_t ps = fl->geo.page_size, pages = strata_flash_size(fl) / ps;
    uint32_t pps = fl->geo.erase_size / ps, p, k = 0;
    uint8_t h[HDR_REGION];
    for (p = 0; p < pages && k + 64 < max; p++) {
        uint32_t a = dev_of(fl, page_u(fl, p)), np, end, i, crc;
        if (p % pps == 0) {
            out[k].at = p * ps;
            out[k++].n = MARKER;
        }
        strata_sim_peek(sim, a, h, sizeof h);
        crc = h[32 + N16] | h[33 + N16] << 8 | (uint32_t)h[34 + N16] << 16 |
              (uint32_t)h[35 + N16] << 24;
        if ((h[0] != 0xD1 && h[0] != 0x1D && h[0] != 0xC7) ||
            crc != (strata_crc32(0, h, 32 + N16) ^ 0x46534832u))
            continue;
        out[k].at = a;
        out[k++].n = HDR_REGION;
        np = h[8] | h[9] << 8;
        end = page_u(fl, p + np);
        for (i = 0; k < max - 1; i++) {
            /* index entries of a log, from its data start; length slots, from the end */
            uint32_t w = h[0] == 0x1D ? 4 : 8, j, blank = 1;
            uint32_t at = dev_of(fl, h[0] == 0x1D ? page_u(fl, p) + HDR_REGION + 4 * i
                                                  : end - 8 * (i + 1));
            uint8_t e[8];
            strata_sim_peek(sim, at, e, w);
            for (j = 0; j < w; j++)
                blank &= e[j] == 0xFF;
            if (blank)
                break;
            out[k].at = at;
            out[k++].n = w;
        }
    }
    return k;
}

static void every_metadata_byte_damaged_is_reported_or_harmless(void **state)
{
    static struct range r[2048];
    static struct snapshot before, after;
    static const uint8_t ways[] = {0x01, 0x80, 0xFF, 0x10};
    struct tfs base;
    uint32_t nr, i, b, w, cases = 0, reported = 0, harmless = 0, refused = 0;
    (void)state;
    init_small(&base, "w25q128", 8, 7);
    populate(&base, 5);
    assert_int_equal(snap(&base.fs, &before), 0);
    nr = metadata(base.sim, r, 2048);
    assert_true(nr > 20);
    for (i = 0; i < nr; i++)
        for (b = 0; b < r[i].n; b++)
            for (w = 0; w < sizeof ways; w++) {
                struct tfs t;
                struct strata_fs_report rep;
                uint8_t v;
                int rc;
                clone(&t, &base);
                strata_sim_peek(t.sim, r[i].at + b, &v, 1);
                v = w == 3 ? (uint8_t)(v ? 0x00 : 0x5A) : (uint8_t)(v ^ ways[w]);
                assert_int_equal(strata_sim_poke(t.sim, r[i].at + b, &v, 1), 0);
                cases++;
                strata_sim_reboot(t.sim);
                if ((rc = strata_fs_mount(&t.fs, &t.cfg)) != 0) {
                    refused++;
                } else if ((rc = strata_fs_check(&t.fs, 0, &rep)) != 0) {
                    assert_true(rc > 0 || rc == STRATA_ECORRUPT);
                    reported++;
                } else {
                    rc = snap(&t.fs, &after);
                    if (rc != 0 || !same(&before, &after))
                        fail_msg("byte 0x%x (%u of a %u-byte field) %s 0x%02x: check clean but "
                                 "the files differ (%d)",
                                 (unsigned)(r[i].at + b), (unsigned)b, (unsigned)r[i].n,
                                 w == 3 ? "set to" : "xor", w == 3 ? v : ways[w], rc);
                    harmless++;
                }
                if (rc == 0 || t.fs.mounted != 0)
                    exercise(&t);
                ts_assert_no_violations(t.sim); /* never programmed over stray bits */
                strata_sim_free(t.sim);
            }
    print_message("%u cases over %u metadata fields: %u refused at mount, %u reported by "
                  "check, %u changed nothing\n",
                  (unsigned)cases, (unsigned)nr, (unsigned)refused, (unsigned)reported,
                  (unsigned)harmless);
    tfs_free(&base);
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
            struct tfs t;
            struct ts_rng r;
            uint32_t size = strata_flash_size(strata_sim_flash(base.sim)), i, n;
            ts_rng_seed(&r, seed);
            clone(&t, &base);
            n = 1 + ts_rng_below(&r, 24);
            for (i = 0; i < n; i++) {
                uint8_t v = (uint8_t)ts_rng_next(&r);
                /* mostly in the used first half, where the metadata is */
                strata_sim_poke(t.sim, ts_rng_below(&r, size / 2 + 1), &v, 1);
            }
            strata_sim_reboot(t.sim);
            if (strata_fs_mount(&t.fs, &t.cfg) == 0)
                exercise(&t);
            ts_assert_no_violations(t.sim);
            strata_sim_free(t.sim);
        }
        tfs_free(&base);
    }
}

/* Fuzz finding FS-4: a file's micro log whose sector marker reads dirty (here its ok word
 * erased). The walk, and so garbage collection, counts that sector dead; a handle that had
 * loaded the log saw its committed records vanish when a collection erased it under the open
 * file, and read back the bytes held before: a silent wrong answer. Open must refuse the link
 * (or else the records must survive), and check must report the damage. */
static void log_in_dirty_sector_is_refused(void **state)
{
    struct tfs t;
    struct strata_fs_file f;
    struct strata_fs_report r;
    uint8_t data[700], rec[40], back[40];
    const uint32_t pps = 4; /* msp430f5529: 128 B pages, 512 B sectors */
    static const uint8_t erased[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    uint32_t log;
    int rc;
    (void)state;
    tfs_init(&t, "msp430f5529", 16, 4);
    memset(data, 0x5A, sizeof data);
    memset(rec, 0xC3, sizeof rec);
    assert_int_equal(tfs_put(&t, "a", data, sizeof data), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_WRITE), 0);
    assert_int_equal(strata_fs_seek(&t.fs, &f, 350, STRATA_FS_SEEK_SET), 350);
    assert_int_equal(strata_fs_write(&t.fs, &f, rec, sizeof rec), (int32_t)sizeof rec);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ), 0);
    log = f.log;
    assert_true(log != 0xFFFFFFFFu && log / pps != f.page / pps);
    assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    assert_int_equal(strata_sim_poke(t.sim, log / pps * 512, erased, sizeof erased), 0);
    assert_int_equal(tfs_remount(&t), 0);
    rc = strata_fs_open(&t.fs, &f, "a", STRATA_FS_READ | STRATA_FS_WRITE);
    if (rc == 0) { /* then the committed records must survive a collection */
        assert_true(strata_fs_gc(&t.fs) >= 0);
        assert_int_equal(strata_fs_seek(&t.fs, &f, 350, STRATA_FS_SEEK_SET), 350);
        assert_int_equal(strata_fs_read(&t.fs, &f, back, sizeof back), (int32_t)sizeof back);
        assert_memory_equal(back, rec, sizeof rec);
        assert_int_equal(strata_fs_close(&t.fs, &f), 0);
    } else {
        assert_int_equal(rc, STRATA_ECORRUPT);
    }
    assert_true(strata_fs_check(&t.fs, 0, &r) > 0);
    tfs_free(&t);
}

/* The case: one byte of a header made a file vanish with check clean. */
static void damaged_header_is_reported(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_report r;
    const struct strata_flash *fl;
    uint8_t b;
    uint32_t a;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    populate(&t, 3);
    assert_int_equal(strata_fs_stat(&t.fs, "empty", &st), 0);
    fl = strata_sim_flash(t.sim);
    a = dev_of(fl, page_u(fl, st.page));
    strata_sim_peek(t.sim, a + 4, &b, 1); /* the sequence number */
    b ^= 0x10;
    strata_sim_poke(t.sim, a + 4, &b, 1);
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "empty", &st), STRATA_ENOENT);
    assert_int_equal(strata_fs_check(&t.fs, 0, &r), 1);
    assert_non_null(strstr(r.first, "damaged header"));
    tfs_free(&t);
}

/* A length slot with a valid check but a length past the extent: reported, never trusted. */
static void impossible_length(void **state)
{
    struct tfs t;
    struct strata_fs_stat st;
    struct strata_fs_file f;
    struct strata_fs_report r;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    assert_int_equal(tfs_put(&t, "cfg", "v=1", 3), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "cfg", &st), 0);
    {
        /* rebuild the last slot pair with a 1 MiB length (the codec of docs/format-fs.md) */
        const struct strata_flash *fl = strata_sim_flash(t.sim);
        uint32_t end = page_u(fl, st.page + st.pages), i, k, z;
        uint8_t s[8], id[8];
        for (k = 0; k < 2; k++) {
            uint32_t at = dev_of(fl, end - 8 * (k + 1)), crc;
            memset(s, 0, 8);
            s[2] = 0x10;
            id[0] = (uint8_t)st.page;
            id[1] = (uint8_t)(st.page >> 8);
            id[2] = id[3] = 0;
            id[4] = (uint8_t)k;
            id[5] = id[6] = id[7] = 0;
            crc = strata_crc32(strata_crc32(0, s, 5), id, 8);
            s[5] = (uint8_t)crc;
            s[6] = (uint8_t)(crc >> 8);
            for (i = 0, z = 0; i < 7; i++) {
                uint32_t b;
                for (b = 0; b < 8; b++)
                    z += !((s[i] >> b) & 1);
            }
            s[7] = (uint8_t)z;
            assert_int_equal(strata_sim_poke(t.sim, at, s, 8), 0);
        }
    }
    assert_int_equal(tfs_remount(&t), 0);
    assert_int_equal(strata_fs_open(&t.fs, &f, "cfg", STRATA_FS_READ), STRATA_ECORRUPT);
    assert_int_equal(strata_fs_check(&t.fs, 0, &r), 1);
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
    uint8_t raw[36 + N16];
    uint32_t n, crc;
    (void)state;
    init_small(&t, "w25q128", 8, 2);
    assert_int_equal(tfs_put(&t, "dupa", "1", 1), 0);
    assert_int_equal(tfs_put(&t, "dupb", "22", 2), 0);
    assert_int_equal(strata_fs_stat(&t.fs, "dupb", &st), 0);
    assert_true(st.page % 16 != 0);
    strata_sim_peek(t.sim, st.page * 256, raw, sizeof raw);
    raw[32 + 3] = 'a';
    crc = strata_crc32(0, raw, 32 + N16) ^ 0x46534832u;
    memcpy(raw + 32 + N16, &crc, 4);
    strata_sim_poke(t.sim, st.page * 256, raw, sizeof raw); /* the simulator's unchecked access */
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
    if (strata_fs_mount(&small.fs, &small.cfg) == 0)
        exercise(&small);
    /* a configuration asking for more sectors than the device has is refused */
    small.cfg.unit_count = 16;
    memset(&small.fs, 0, sizeof small.fs);
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
        cmocka_unit_test(every_metadata_byte_damaged_is_reported_or_harmless),
        cmocka_unit_test(random_damage_never_crashes),
        cmocka_unit_test(damaged_header_is_reported),
        cmocka_unit_test(log_in_dirty_sector_is_refused),
        cmocka_unit_test(impossible_length),
        cmocka_unit_test(duplicate_name),
        cmocka_unit_test(truncated_device),
        cmocka_unit_test(write_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
