/* The flash contract's checked wrappers (include/strata/flash.h), strata_flash_validate and
 * strata_strerror. A spy device counts what reaches it: a wrapper that refuses must not call the
 * device at all, one that accepts must pass the device's answer through unchanged. */
#include <limits.h>

#include "simtest.h"

struct spy {
    int calls[8]; /* read, prog, erase, page_read, page_prog, is_bad, mark_bad, sync */
    int answer;   /* what every operation returns */
    uint32_t last_addr, last_len;
};

enum { S_READ, S_PROG, S_ERASE, S_PREAD, S_PPROG, S_ISBAD, S_MARK, S_SYNC };

static struct spy *spy_of(const struct strata_flash *f)
{
    return (struct spy *)f->ctx;
}

static int spy_read(const struct strata_flash *f, uint32_t a, void *b, uint32_t n)
{
    (void)b;
    spy_of(f)->calls[S_READ]++;
    spy_of(f)->last_addr = a;
    spy_of(f)->last_len = n;
    return spy_of(f)->answer;
}

static int spy_prog(const struct strata_flash *f, uint32_t a, const void *b, uint32_t n)
{
    (void)b;
    spy_of(f)->calls[S_PROG]++;
    spy_of(f)->last_addr = a;
    spy_of(f)->last_len = n;
    return spy_of(f)->answer;
}

static int spy_erase(const struct strata_flash *f, uint32_t u)
{
    spy_of(f)->calls[S_ERASE]++;
    spy_of(f)->last_addr = u;
    return spy_of(f)->answer;
}

static int spy_page_read(const struct strata_flash *f, uint32_t p, void *d, void *s)
{
    (void)d, (void)s;
    spy_of(f)->calls[S_PREAD]++;
    spy_of(f)->last_addr = p;
    return spy_of(f)->answer;
}

static int spy_page_prog(const struct strata_flash *f, uint32_t p, const void *d, const void *s)
{
    (void)d, (void)s;
    spy_of(f)->calls[S_PPROG]++;
    spy_of(f)->last_addr = p;
    return spy_of(f)->answer;
}

static int spy_is_bad(const struct strata_flash *f, uint32_t u)
{
    spy_of(f)->calls[S_ISBAD]++;
    spy_of(f)->last_addr = u;
    return spy_of(f)->answer;
}

static int spy_mark_bad(const struct strata_flash *f, uint32_t u)
{
    spy_of(f)->calls[S_MARK]++;
    spy_of(f)->last_addr = u;
    return spy_of(f)->answer;
}

static int spy_sync(const struct strata_flash *f)
{
    spy_of(f)->calls[S_SYNC]++;
    return spy_of(f)->answer;
}

static const struct strata_flash_ops spy_ops = {spy_read,      spy_prog,   spy_erase,
                                                spy_page_read, spy_page_prog, spy_is_bad,
                                                spy_mark_bad,  spy_sync};

/* read unit 4, program unit 8, 64 B pages, 256 B erase units x 4 = 1024 B, 8 B spare. */
static struct strata_flash spy_flash(struct spy *s, const struct strata_flash_ops *ops,
                                     uint32_t caps)
{
    struct strata_flash f;
    memset(s, 0, sizeof *s);
    memset(&f, 0, sizeof f); /* the NAND fields stay zero: no ECC, no marker, whole-page programs */
    s->answer = STRATA_EIO; /* a code the wrappers never make up themselves */
    f.ops = ops;
    f.ctx = s;
    f.geo.read_size = 4;
    f.geo.prog_size = 8;
    f.geo.page_size = 64;
    f.geo.erase_size = 256;
    f.geo.erase_count = 4;
    f.geo.spare_size = 8;
    f.geo.nop = 2;
    f.caps = caps;
    return f;
}

static int total_calls(const struct spy *s)
{
    int i, n = 0;
    for (i = 0; i < 8; i++)
        n += s->calls[i];
    return n;
}

#define ALL_CAPS                                                                                 \
    (STRATA_FLASH_CAP_SPARE | STRATA_FLASH_CAP_BAD_BLOCKS | STRATA_FLASH_CAP_INORDER_PAGES)

static void read_and_prog_check_bounds_alignment_and_overflow(void **state)
{
    struct spy s;
    struct strata_flash f = spy_flash(&s, &spy_ops, ALL_CAPS);
    uint8_t buf[64];
    struct { uint32_t addr, len; int ok_read, ok_prog; } cases[] = {
        {0, 8, 1, 1},                   /* aligned for both */
        {1016, 8, 1, 1},                /* the last 8 bytes */
        {1020, 4, 1, 0},                /* read-aligned only */
        {4, 4, 1, 0},
        {2, 4, 0, 0},                   /* misaligned address */
        {0, 6, 0, 0},                   /* misaligned length */
        {1024, 8, 0, 0},                /* past the end */
        {1016, 16, 0, 0},               /* across the end */
        {0xFFFFFFF8u, 16, 0, 0},        /* addr + len wraps to 8 */
        {8, 0xFFFFFFF8u, 0, 0},         /* len huge, sum wraps to 0 */
        {0, 1028, 0, 0},                /* longer than the device */
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(s.calls, 0, sizeof s.calls);
        assert_int_equal(strata_flash_read(&f, cases[i].addr, buf, cases[i].len),
                         cases[i].ok_read ? STRATA_EIO : STRATA_EINVAL);
        assert_int_equal(s.calls[S_READ], cases[i].ok_read);
        if (cases[i].ok_read) {
            assert_int_equal(s.last_addr, cases[i].addr);
            assert_int_equal(s.last_len, cases[i].len);
        }
        assert_int_equal(strata_flash_prog(&f, cases[i].addr, buf, cases[i].len),
                         cases[i].ok_prog ? STRATA_EIO : STRATA_EINVAL);
        assert_int_equal(s.calls[S_PROG], cases[i].ok_prog);
    }
    /* zero length: success without a device operation, even at the very end or with no buffer */
    memset(s.calls, 0, sizeof s.calls);
    assert_int_equal(strata_flash_read(&f, 1024, buf, 0), 0);
    assert_int_equal(strata_flash_prog(&f, 0, NULL, 0), 0);
    assert_int_equal(strata_flash_read(&f, 0, NULL, 0), 0);
    assert_int_equal(strata_flash_read(&f, 2, buf, 0), STRATA_EINVAL); /* still misaligned */
    assert_int_equal(strata_flash_read(&f, 1028, buf, 0), STRATA_EINVAL);
    /* NULL buffer, device, ops, operation */
    assert_int_equal(strata_flash_read(&f, 0, NULL, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_prog(&f, 0, NULL, 8), STRATA_EINVAL);
    assert_int_equal(strata_flash_read(NULL, 0, buf, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_prog(NULL, 0, buf, 8), STRATA_EINVAL);
    assert_int_equal(total_calls(&s), 0);
    f.ops = NULL;
    assert_int_equal(strata_flash_read(&f, 0, buf, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_prog(&f, 0, buf, 8), STRATA_EINVAL);
    {
        struct strata_flash_ops none;
        memset(&none, 0, sizeof none);
        f.ops = &none;
        assert_int_equal(strata_flash_read(&f, 0, buf, 4), STRATA_EINVAL);
        assert_int_equal(strata_flash_prog(&f, 0, buf, 8), STRATA_EINVAL);
    }
    assert_int_equal(total_calls(&s), 0);
}

static void erase_checks_unit_and_capability(void **state)
{
    struct spy s;
    struct strata_flash f = spy_flash(&s, &spy_ops, 0);
    struct strata_flash_ops no_erase = spy_ops;
    (void)state;
    assert_int_equal(strata_flash_erase(&f, 3), STRATA_EIO);
    assert_int_equal(s.last_addr, 3);
    assert_int_equal(strata_flash_erase(&f, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_erase(&f, UINT32_MAX), STRATA_EINVAL);
    assert_int_equal(strata_flash_erase(NULL, 0), STRATA_EINVAL);
    f.caps = STRATA_FLASH_CAP_NO_ERASE;
    assert_int_equal(strata_flash_erase(&f, 0), STRATA_EDEVICE);
    assert_int_equal(strata_flash_erase(&f, 4), STRATA_EDEVICE); /* capability first */
    f.caps = 0;
    no_erase.erase = NULL;
    f.ops = &no_erase;
    assert_int_equal(strata_flash_erase(&f, 0), STRATA_EDEVICE);
    f.ops = NULL;
    assert_int_equal(strata_flash_erase(&f, 0), STRATA_EINVAL);
    assert_int_equal(s.calls[S_ERASE], 1);
    assert_int_equal(total_calls(&s), 1);
}

static void page_ops_check_page_buffers_and_capability(void **state)
{
    struct spy s;
    struct strata_flash f = spy_flash(&s, &spy_ops, ALL_CAPS);
    struct strata_flash_ops missing = spy_ops;
    uint8_t d[64], sp[8];
    (void)state;
    assert_int_equal(strata_flash_page_count(&f), 16);
    assert_int_equal(strata_flash_page_read(&f, 15, d, NULL), STRATA_EIO);
    assert_int_equal(strata_flash_page_read(&f, 15, NULL, sp), STRATA_EIO);
    assert_int_equal(strata_flash_page_prog(&f, 0, d, sp), STRATA_EIO);
    assert_int_equal(s.last_addr, 0);
    assert_int_equal(strata_flash_page_read(&f, 16, d, sp), STRATA_EINVAL);
    assert_int_equal(strata_flash_page_prog(&f, 16, d, sp), STRATA_EINVAL);
    assert_int_equal(strata_flash_page_read(&f, 0, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_flash_page_prog(&f, 0, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_flash_page_read(NULL, 0, d, sp), STRATA_EINVAL);
    assert_int_equal(strata_flash_page_prog(NULL, 0, d, sp), STRATA_EINVAL);
    f.caps = STRATA_FLASH_CAP_BAD_BLOCKS; /* no spare */
    assert_int_equal(strata_flash_page_read(&f, 0, d, sp), STRATA_EDEVICE);
    assert_int_equal(strata_flash_page_prog(&f, 0, d, sp), STRATA_EDEVICE);
    f.caps = ALL_CAPS;
    missing.page_read = NULL;
    missing.page_prog = NULL;
    f.ops = &missing;
    assert_int_equal(strata_flash_page_read(&f, 0, d, sp), STRATA_EDEVICE);
    assert_int_equal(strata_flash_page_prog(&f, 0, d, sp), STRATA_EDEVICE);
    assert_int_equal(s.calls[S_PREAD], 2);
    assert_int_equal(s.calls[S_PPROG], 1);
    assert_int_equal(total_calls(&s), 3);
}

static void bad_block_ops_and_sync(void **state)
{
    struct spy s;
    struct strata_flash f = spy_flash(&s, &spy_ops, ALL_CAPS);
    struct strata_flash_ops missing = spy_ops;
    (void)state;
    s.answer = 1;
    assert_int_equal(strata_flash_is_bad(&f, 3), 1);
    s.answer = STRATA_EIO;
    assert_int_equal(strata_flash_mark_bad(&f, 3), STRATA_EIO);
    assert_int_equal(strata_flash_sync(&f), STRATA_EIO);
    assert_int_equal(strata_flash_is_bad(&f, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_mark_bad(&f, 4), STRATA_EINVAL);
    assert_int_equal(strata_flash_is_bad(NULL, 0), STRATA_EINVAL);
    assert_int_equal(strata_flash_mark_bad(NULL, 0), STRATA_EINVAL);
    assert_int_equal(strata_flash_sync(NULL), STRATA_EINVAL);
    assert_int_equal(total_calls(&s), 3);
    /* media without bad blocks: every unit is good, marking is refused */
    f.caps = STRATA_FLASH_CAP_SPARE;
    assert_int_equal(strata_flash_is_bad(&f, 0), 0);
    assert_int_equal(strata_flash_mark_bad(&f, 0), STRATA_EDEVICE);
    assert_int_equal(strata_flash_is_bad(&f, 4), STRATA_EINVAL); /* range still checked */
    f.caps = ALL_CAPS;
    missing.is_bad = NULL;
    missing.mark_bad = NULL;
    missing.sync = NULL;
    f.ops = &missing;
    assert_int_equal(strata_flash_is_bad(&f, 0), 0);
    assert_int_equal(strata_flash_mark_bad(&f, 0), STRATA_EDEVICE);
    assert_int_equal(strata_flash_sync(&f), 0);
    assert_int_equal(total_calls(&s), 3);
}

static void size_and_capability_helpers(void **state)
{
    struct spy s;
    struct strata_flash f = spy_flash(&s, &spy_ops, ALL_CAPS);
    (void)state;
    assert_int_equal(strata_flash_size(&f), 1024);
    assert_true(strata_flash_has(&f, STRATA_FLASH_CAP_SPARE));
    assert_true(strata_flash_has(&f, STRATA_FLASH_CAP_SPARE | STRATA_FLASH_CAP_BAD_BLOCKS));
    assert_false(strata_flash_has(&f, STRATA_FLASH_CAP_SPARE | STRATA_FLASH_CAP_NO_ERASE));
    assert_true(strata_flash_has(&f, 0));
}

static void capability_refusals_on_simulated_devices(void **state)
{
    struct strata_sim *nor = st_new("w25q128", 2, 1, 0);
    struct strata_sim *sd = st_new("sd-spi", 2, 1, 0);
    const struct strata_flash *f = strata_sim_flash(nor), *g = strata_sim_flash(sd);
    uint8_t buf[512];
    (void)state;
    assert_int_equal(strata_flash_page_read(f, 0, buf, NULL), STRATA_EDEVICE);
    assert_int_equal(strata_flash_page_prog(f, 0, buf, NULL), STRATA_EDEVICE);
    assert_int_equal(strata_flash_is_bad(f, 1), 0);
    assert_int_equal(strata_flash_mark_bad(f, 1), STRATA_EDEVICE);
    assert_int_equal(strata_flash_erase(g, 0), STRATA_EDEVICE);
    assert_int_equal(strata_flash_sync(f), 0);
    ts_assert_no_violations(nor);
    ts_assert_no_violations(sd);
    strata_sim_free(nor);
    strata_sim_free(sd);
}

/* Called directly (bypassing the wrappers), the NAND-only operations of a device without spare
 * or bad blocks answer like the wrappers do, and leave the device untouched. */
static void raw_nand_ops_on_other_devices_refused(void **state)
{
    const char *names[] = {"w25q128", "msp430f5529", "at45db161", "sd-spi", "fram-msp430fr5994"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct strata_sim *sim = st_new(names[i], 2, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t buf[4096];
        struct st_snap s;
        memset(buf, 0x00, sizeof buf);
        st_snap_take(sim, &s);
        assert_int_equal(f->ops->page_read(f, 0, buf, NULL), STRATA_EDEVICE);
        assert_int_equal(f->ops->page_read(f, 0, NULL, buf), STRATA_EDEVICE);
        assert_int_equal(f->ops->page_read(f, 0, buf, buf + 2048), STRATA_EDEVICE);
        assert_int_equal(f->ops->page_prog(f, 0, buf, NULL), STRATA_EDEVICE);
        assert_int_equal(f->ops->page_prog(f, 1, NULL, buf), STRATA_EDEVICE);
        assert_int_equal(f->ops->is_bad(f, 0), 0);
        assert_int_equal(f->ops->mark_bad(f, 1), STRATA_EDEVICE);
        st_assert_unchanged(sim, &s);
        st_snap_free(&s);
        strata_sim_free(sim);
    }
}

static void validate_rejects_bad_geometry(void **state)
{
    struct spy s;
    struct strata_flash good = spy_flash(&s, &spy_ops, ALL_CAPS), f;
    struct strata_flash_ops no_read = spy_ops, no_prog = spy_ops;
    size_t i;
    (void)state;
    no_read.read = NULL;
    no_prog.prog = NULL;
    assert_int_equal(strata_flash_validate(&good), 0);
    assert_int_equal(strata_flash_validate(NULL), STRATA_EINVAL);
#define BAD(stmt)                                                                                \
    do {                                                                                         \
        f = good;                                                                                \
        stmt;                                                                                    \
        assert_int_equal(strata_flash_validate(&f), STRATA_EINVAL);                              \
    } while (0)
    BAD(f.ops = NULL);
    BAD(f.ops = &no_read);
    BAD(f.ops = &no_prog);
    BAD(f.geo.read_size = 0);
    BAD(f.geo.prog_size = 0);
    BAD(f.geo.page_size = 0);
    BAD(f.geo.erase_size = 0);
    BAD(f.geo.erase_count = 0);
    BAD(f.geo.read_size = 3);                       /* 64 % 3 */
    BAD(f.geo.read_size = 12; f.geo.prog_size = 12; f.geo.page_size = 48; f.geo.erase_size = 96);
                                                    /* units must be powers of two */
    BAD(f.geo.ecc_strength = 1);                    /* ECC without a codeword size */
    BAD(f.geo.ecc_strength = 1; f.geo.ecc_step = 24); /* codewords do not tile the page */
    BAD(f.geo.prog_region = 24);                    /* regions do not tile the page */
    BAD(f.geo.spare_region = 3);                    /* ... nor the spare */
    BAD(f.geo.bbm_offset = 15; f.geo.bbm_len = 2);  /* marker beyond the spare */
    BAD(f.geo.prog_size = 128);                     /* program unit larger than the page */
    BAD(f.geo.erase_size = 96);                     /* not a multiple of the page */
    BAD(f.geo.spare_size = 0);                      /* CAP_SPARE without spare */
    BAD(f.geo.erase_size = 4096; f.geo.erase_count = 1u << 20); /* 4 GiB: not 32-bit */
    BAD(f.geo.erase_size = 1u << 31; f.geo.page_size = 1u << 31; f.geo.erase_count = 3);
#undef BAD
    /* the largest device that fits: 2^20 - 1 units of 4 KiB */
    f = good;
    f.geo.erase_size = 4096;
    f.geo.erase_count = (1u << 20) - 1;
    assert_int_equal(strata_flash_validate(&f), 0);
    /* optional operations may be missing; spare may exist without the capability */
    {
        struct strata_flash_ops minimal;
        memset(&minimal, 0, sizeof minimal);
        minimal.read = spy_read;
        minimal.prog = spy_prog;
        f = good;
        f.ops = &minimal;
        assert_int_equal(strata_flash_validate(&f), 0);
    }
    for (i = 0; i < strata_sim_profile_count(); i++) {
        struct strata_sim *sim = st_new(strata_sim_profile_at(i)->name, 2, 1, 0);
        assert_int_equal(strata_flash_validate(strata_sim_flash(sim)), 0);
        strata_sim_free(sim);
    }
    assert_int_equal(total_calls(&s), 0);
}

static void strerror_describes_every_code(void **state)
{
    static const struct { int code; const char *text; } known[] = {
        {STRATA_OK, "ok"},
        {STRATA_EINVAL, "invalid argument"},
        {STRATA_EIO, "device I/O error"},
        {STRATA_ECORRUPT, "corrupt storage"},
        {STRATA_ENOSPC, "no space left"},
        {STRATA_ENOENT, "not found"},
        {STRATA_EEXIST, "already exists"},
        {STRATA_EPOWER, "power lost"},
        {STRATA_EVIOLATION, "flash rule violated"},
        {STRATA_EDEVICE, "device lacks a needed capability"},
        {STRATA_EBADF, "bad handle"},
        {STRATA_ENAMETOOLONG, "name too long"},
        {STRATA_EBUSY, "busy"},
        {STRATA_ENOMEM, "buffer or table too small"},
        {STRATA_EUNFORMATTED, "not formatted"},
        {STRATA_EVERSION, "unsupported format version"},
        {STRATA_EBADBLOCK, "bad block"},
        {STRATA_EECC, "uncorrectable bit errors"},
    };
    const int unknown[] = {1, 2, 100, -18, -100, INT_MAX, INT_MIN, INT_MIN + 1};
    size_t i, j;
    (void)state;
    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        assert_int_equal(known[i].code, -(int)i); /* the codes are dense: 0, -1, ... -17 */
        assert_string_equal(strata_strerror(known[i].code), known[i].text);
        for (j = 0; j < i; j++)
            assert_string_not_equal(strata_strerror(known[i].code),
                                    strata_strerror(known[j].code));
    }
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        assert_string_equal(strata_strerror(unknown[i]), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_and_prog_check_bounds_alignment_and_overflow),
        cmocka_unit_test(erase_checks_unit_and_capability),
        cmocka_unit_test(page_ops_check_page_buffers_and_capability),
        cmocka_unit_test(bad_block_ops_and_sync),
        cmocka_unit_test(size_and_capability_helpers),
        cmocka_unit_test(capability_refusals_on_simulated_devices),
        cmocka_unit_test(raw_nand_ops_on_other_devices_refused),
        cmocka_unit_test(validate_rejects_bad_geometry),
        cmocka_unit_test(strerror_describes_every_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
