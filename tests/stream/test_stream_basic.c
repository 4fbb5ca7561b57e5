/* strata_stream: every call on every configuration, small and deterministic. */
#include "streamtest.h"

static void fill(struct rig *r, struct st_model *m, uint32_t n, uint64_t seed)
{
    struct ts_rng rng;
    uint32_t ts = m->n ? m->ts[m->n - 1u] + 60u : 1000000u, i; /* after the model's last */
    int32_t key = m->n ? m->key[m->n - 1u] : 500;
    int rc;
    ts_rng_seed(&rng, seed);
    for (i = 0; i < n; i++) {
        rc = st_insert(r, m, &rng, &ts, &key);
        if (rc != 0)
            fail_msg("insert %u: %s", i, strata_strerror(rc));
    }
}

static void basic(enum rig_kind kind)
{
    struct rig r;
    struct st_model m;
    struct ts_rng rng;
    struct strata_stream_stats st;
    struct rig_params p = st_params(kind, 1);
    uint32_t i;
    int rc;
    st_model_init(&m);
    st_new(&r, &p);
    st_check_all(&r, &m);
    fill(&r, &m, 3000, 2);
    st_check_all(&r, &m);
    ts_rng_seed(&rng, 3);
    for (i = 0; i < 300; i++) {
        struct strata_stream_query q = st_random_query(&rng, &m);
        if ((rc = st_check(&r, &m, &q)) != 0)
            fail_msg("query %u: %s", i, strata_strerror(rc));
    }
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    for (i = 0; i < 300; i++) {
        struct strata_stream_query q = st_random_query(&rng, &m);
        if ((rc = st_check(&r, &m, &q)) != 0)
            fail_msg("query %u after remount: %s", i, strata_strerror(rc));
    }
    strata_stream_stats(&r.s, &st);
    print_message("# kind %d: %u segments, %u readings, %u aged\n", kind, st.segments, st.readings,
                  st.aged);
    st_finish(&r, &m);
}

static void test_hybrid(void **state)
{
    (void)state;
    basic(RIG_HYBRID);
}

static void test_nand_only(void **state)
{
    (void)state;
    basic(RIG_NAND);
}

static void test_sd(void **state)
{
    (void)state;
    basic(RIG_SD);
}

/* STREAM-1: a segment whose data area is one block (max_pages = pages per block), RAM stage.
 * Mount never relies on the newest data page where it lies (it may be the page a cut hit late:
 * weak), but that segment has no block left to program it again and no indexed reading to close
 * with, so the segment starts again in the next block with the page as its first. Before the fix
 * the page was indexed in place (no page moved). The mount that moves it marks the copy complete
 * (format 3): later mounts leave it where it is (before, each moved it again: the boot loop of
 * the STREAM-4 fix). */
static void test_one_block_segment(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_NAND, 7);
    uint32_t i;
    (void)state;
    p.fmt.max_pages = 32; /* tc58dvg02: 32 pages per block */
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 5, 8); /* one page, not full */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    for (i = 1; i <= 3; i++) {
        st_remount(&r);
        strata_stream_stats(&r.s, &st);
        assert_int_equal(st.moved_pages, i == 1 ? 1 : 0); /* this mount's */
        assert_int_equal(st.segments, 0);
        st_check_all(&r, &m);
    }
    fill(&r, &m, 900, 9); /* segments close and age after the restarts */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

/* STREAM-3: a remount of a RAM-stage store programs the open segment's newest data page again
 * in the next block (it may be the page a cut hit late); when every boot is cut just before the
 * mark that says the copy is complete (the worst a boot loop can do since the STREAM-4 fix), the
 * node walks its open segment round the ring, restarting it (STREAM-1) when it runs out of
 * positions, and the write head ages the closed segments one by one, during mount. Mount learnt
 * the newest reading only after recovery, so aging the last closed segment took 0 for the store's
 * minimum time, and the skip list's head then passed aged header pages, in blocks the open
 * segment had reached, for live ones: the full select after the 17th remount returned
 * STRATA_ECORRUPT. Each step: a clone of the device is mounted whole and checked; the device
 * itself is mounted with the cut at that mount's last operation, the mark. */
static void remount_cut_at_mark(struct rig *r, const struct st_model *m,
                                struct strata_stream_stats *st)
{
    struct rig c;
    uint64_t ops;
    assert_int_equal(rig_adopt(&c, &r->p, strata_sim_clone(r->data), NULL), 0);
    ops = strata_sim_mutations(c.data);
    st_remount(&c);
    ops = strata_sim_mutations(c.data) - ops;
    strata_stream_stats(&c.s, st);
    assert_int_equal(st->moved_pages, 1); /* it programmed the page again (then the mark) */
    st_check_all(&c, m);
    rig_free(&c);
    strata_sim_set_tear(r->data, STRATA_SIM_TEAR_BEFORE);
    strata_sim_cut_at_op(r->data, ops);
    assert_int_equal(rig_mount(r), STRATA_EPOWER);
    strata_sim_reboot(r->data);
    strata_sim_set_tear(r->data, STRATA_SIM_TEAR_RANDOM);
}

static void test_remounts_age_every_segment(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_NAND, 3);
    uint32_t i;
    (void)state;
    p.data_blocks = 24;
    p.stage_size = 2048;
    rig_paper_format(&p.fmt);
    p.fmt.max_pages = 128; /* four blocks of tc58dvg02 */
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 700, 4);
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    strata_stream_stats(&r.s, &st);
    assert_true(st.segments >= 3);
    for (i = 0; i < 40 && (i == 0 || st.segments > 0); i++)
        remount_cut_at_mark(&r, &m, &st);
    print_message("# %u remounts, %u segments aged\n", i, st.aged);
    assert_int_equal(st.segments, 0);
    st_remount(&r);
    st_check_all(&r, &m);
    for (i = 0; i < 8; i++) { /* the open segment grows over the aged segments' blocks */
        fill(&r, &m, 25, 5 + i);
        st_check_all(&r, &m);
    }
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

/* STREAM-6 (found by stream_ops): a copy a cut left weak reads whole at the next mount, which
 * programs it again a block on (and marks that copy), and decays afterwards. The rebuild's scan
 * of the open segment ended at a block's length of positions holding nothing, and the decayed
 * copy was counted as nothing: the run from after the original page across the copy's block
 * reached a block's length before the newer copy, so the readings written after it (flushed)
 * were lost at the next mount. A page that was programmed and does not read now keeps the scan
 * going. RAM stage on raw NAND. */
static void test_decayed_copy_keeps_the_scan_going(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_NAND, 4);
    const struct strata_flash *f;
    uint8_t buf[512];
    uint32_t page, i;
    (void)state;
    p.data_blocks = 24;
    p.fmt.max_pages = 128; /* four blocks: the copies stay in the segment (no restart) */
    st_model_init(&m);
    st_new(&r, &p);
    f = strata_sim_flash(r.data);
    assert_true(f->geo.page_size <= sizeof buf);
    fill(&r, &m, 5, 6);
    assert_int_equal(strata_stream_flush(&r.s), 0); /* the segment's only data page, position 0 */
    m.durable = m.n;
    remount_cut_at_mark(&r, &m, &st); /* its copy at position ppb, cut before the mark */
    st_remount(&r); /* the copy reads whole: programmed again at 2 ppb, then marked */
    strata_stream_stats(&r.s, &st);
    assert_int_equal(st.moved_pages, 1);
    assert_int_equal(r.s.pos, 2u * r.s.ppb + 2u);
    page = (r.s.b0 + 1u) * r.s.ppb; /* the first copy (no bad block in this rig) */
    assert_int_equal(strata_sim_peek(r.data, page * f->geo.page_size, buf, f->geo.page_size), 0);
    for (i = 0; i < f->geo.page_size && buf[i] == 0xFF; i++)
        ;
    assert_true(i < f->geo.page_size);
    for (i = 0; i < f->geo.page_size; i += 16u) /* decayed: far beyond what the ECC corrects */
        buf[i] ^= 0x5A;
    assert_int_equal(strata_sim_poke(r.data, page * f->geo.page_size, buf, f->geo.page_size), 0);
    fill(&r, &m, 40, 7); /* after the marked copy */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

/* STREAM-4: a clean reboot loop (no reading between boots) takes no space. The first remount
 * programs the newest data page again (it may be the page a cut hit late) and marks the copy
 * complete, and writes its fresh anchor twice; every later one finds the copy marked and the
 * anchor vouched for, and programs and erases nothing on the data device, so no reading ages
 * however often the node boots. Before the fix each remount of a RAM-stage store moved the page
 * a block on (200 remounts: about 200 erases, every closed segment aged) and wrote an anchor.
 * Each configuration (and an empty store), every reading checked every 20 remounts. */
static void reboot_loop(enum rig_kind kind, uint32_t readings)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st, st0;
    struct strata_sim_stats a, b, na, nb;
    struct rig_params p = st_params(kind, 13);
    uint32_t i;
    p.data_blocks = 24;
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, readings, 14);
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    strata_stream_stats(&r.s, &st0);
    assert_true(readings == 0 || st0.segments >= 2);
    st_remount(&r); /* may program the newest page again, and its mark */
    st_check_all(&r, &m);
    rig_stats(&r, &a, &na, NULL, NULL);
    for (i = 0; i < 200; i++) {
        st_remount(&r);
        strata_stream_stats(&r.s, &st);
        assert_int_equal(st.moved_pages, 0);
        assert_int_equal(st.pages_written, 0);
        assert_int_equal(st.erases, 0);
        assert_int_equal(st.segments, st0.segments);
        assert_int_equal(st.aged, st0.aged);
        if (i % 20u == 0 || i == 199u)
            st_check_all(&r, &m);
    }
    rig_stats(&r, &b, &nb, NULL, NULL);
    print_message("# kind %d: 200 remounts: %llu programs, %llu erases (data), %llu NOR programs\n",
                  kind, (unsigned long long)(b.progs - a.progs),
                  (unsigned long long)(b.erases - a.erases),
                  (unsigned long long)(nb.progs - na.progs));
    assert_int_equal(b.progs - a.progs, 0);
    assert_int_equal(b.erases - a.erases, 0);
    fill(&r, &m, 300, 15); /* and the store goes on */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

static void test_reboot_loop_nand(void **state)
{
    (void)state;
    reboot_loop(RIG_NAND, 1500);
    reboot_loop(RIG_NAND, 0);
}

static void test_reboot_loop_sd_stage(void **state)
{
    (void)state;
    reboot_loop(RIG_SD_STAGE, 1500);
}

static void test_reboot_loop_hybrid(void **state)
{
    (void)state;
    reboot_loop(RIG_HYBRID, 1500);
}

/* Page reads of a time equality query at every 7th reading, both orders (each answer checked). */
static uint32_t lookups_reads(struct rig *r, const struct st_model *m)
{
    struct strata_stream_stats a, b;
    struct strata_stream_query q;
    uint32_t i;
    int rc;
    strata_stream_stats(&r->s, &a);
    memset(&q, 0, sizeof q);
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    for (i = 0; i < m->n; i += 7u) {
        q.t1 = q.t2 = m->ts[i];
        q.newest_first = (uint8_t)(i % 2u);
        if ((rc = st_check(r, m, &q)) != 0)
            fail_msg("time %u: %s", q.t1, strata_strerror(rc));
    }
    strata_stream_stats(&r->s, &b);
    return b.pages_read - a.pages_read;
}

/* The lane (skip.c): with many small segments the skip list's upper levels are kept in RAM,
 * raised while segments close and aged, and built again by mount. A search starts at a lane
 * node, so the lane may change the header pages a search reads, never its answer: every time
 * equality answer is checked with the lane and with it emptied (the head only), before and after
 * a remount, and the lane must read fewer pages. */
static void test_lane(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_HYBRID, 11);
    uint32_t with, without, pass, held;
    (void)state;
    p.fmt.max_pages = 8; /* a segment a block */
    p.data_blocks = 160;
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 40000, 12);
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    strata_stream_stats(&r.s, &st);
    print_message("# %u segments, %u aged\n", st.segments, st.aged);
    assert_true(st.segments > 2u * STRATA_STREAM_LANE);
    assert_true(st.aged > 0);
    for (pass = 0; pass < 2; pass++) {
        assert_true(r.s.lane_k > 1 && r.s.lane_n > 0);
        with = lookups_reads(&r, &m);
        held = r.s.lane_n;
        r.s.lane_n = 0; /* the head only, as before the lane */
        without = lookups_reads(&r, &m);
        print_message("# %s: %u segments, lane of %u at level >= %u: %u page reads, %u without\n",
                      pass ? "remounted" : "written", st.segments, held, r.s.lane_k, with,
                      without);
        assert_true(with < without);
        st_remount(&r);
        st_check_all(&r, &m);
    }
    st_finish(&r, &m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hybrid),
        cmocka_unit_test(test_nand_only),
        cmocka_unit_test(test_sd),
        cmocka_unit_test(test_one_block_segment),
        cmocka_unit_test(test_remounts_age_every_segment),
        cmocka_unit_test(test_decayed_copy_keeps_the_scan_going),
        cmocka_unit_test(test_reboot_loop_nand),
        cmocka_unit_test(test_reboot_loop_sd_stage),
        cmocka_unit_test(test_reboot_loop_hybrid),
        cmocka_unit_test(test_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
