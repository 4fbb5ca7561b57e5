#include "fs_pc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pc_state {
    const struct fs_pc *c;
    struct sc_ns *snap;  /* snap[k]: durable namespace after k script operations */
    int *expect;         /* expected return code of each script operation */
    struct sc_model live; /* the workload's own model (for reads) */
    int at;              /* operation running when power failed; -1: mounting */
    struct strata_fs fs;
    struct strata_fs_config cfg;
    struct strata_fs_file fh[SC_HANDLES];
    uint8_t buf[512];
    char why[160];
};

/* The configuration for the device; the context's RAM is gone (every caller then mounts). */
static void set_cfg(struct pc_state *s, struct strata_sim *sim)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    memset(&s->fs, 0, sizeof s->fs);
    memset(&s->cfg, 0, sizeof s->cfg);
    s->cfg.flash = f;
    s->cfg.buffer = s->buf;
    s->cfg.buffer_size = f->geo.page_size < sizeof s->buf ? f->geo.page_size : sizeof s->buf;
    s->cfg.clean_every = s->c->clean_every;
    s->cfg.default_size = s->c->default_size;
}

static void replay_prefix(struct pc_state *s, struct sc_model *m)
{
    uint32_t i;
    sc_model_free(m);
    sc_model_init(m);
    for (i = 0; i < s->c->nprefix; i++)
        sc_model_apply(m, &s->c->prefix[i]);
    sc_model_drop_handles(m); /* setup unmounts: prefixes close what they open */
}

static int pc_setup(struct strata_sim *sim, void *arg)
{
    struct pc_state *s = arg;
    uint32_t i;
    int rc;
    set_cfg(s, sim);
    if ((rc = strata_fs_format(&s->fs, &s->cfg)) != 0 ||
        (rc = strata_fs_mount(&s->fs, &s->cfg)) != 0)
        return rc;
    for (i = 0; i < s->c->nprefix; i++)
        if ((rc = sc_run(&s->fs, s->fh, &s->c->prefix[i], NULL)) != 0) {
            fprintf(stderr, "%s: prefix op %u failed: %d\n", s->c->name, (unsigned)i, rc);
            return rc;
        }
    return strata_fs_unmount(&s->fs);
}

static void pc_reset(void *arg)
{
    struct pc_state *s = arg;
    replay_prefix(s, &s->live);
    s->at = -1;
}

static int pc_workload(struct strata_sim *sim, void *arg)
{
    struct pc_state *s = arg;
    uint32_t i;
    int rc;
    set_cfg(s, sim);
    if ((rc = strata_fs_mount(&s->fs, &s->cfg)) != 0)
        return rc;
    for (i = 0; i < s->c->nops; i++) {
        s->at = (int)i;
        sc_model_apply(&s->live, &s->c->ops[i]);
        rc = sc_run(&s->fs, s->fh, &s->c->ops[i], &s->live);
        if (rc == STRATA_EPOWER)
            return rc;
        if (rc != s->expect[i]) {
            fprintf(stderr, "%s: op %u returned %d, model %d\n", s->c->name, (unsigned)i, rc,
                    s->expect[i]);
            return rc ? rc : STRATA_ECORRUPT;
        }
    }
    return 0;
}

static int probe_once(struct pc_state *s)
{
    struct strata_fs_file f;
    uint8_t data[300], back[300];
    uint32_t i;
    int32_t n = 0;
    int rc = strata_fs_remove(&s->fs, "~p");
    if (rc != 0 && rc != STRATA_ENOENT)
        return rc;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13 + 5);
    /* small, so that a nearly full device still has room: this proves operations work, not
     * that space is unlimited */
    if ((rc = strata_fs_configure_log(&s->fs, "~p", 64, 16)) != 0 || /* creates it */
        (rc = strata_fs_open(&s->fs, &f, "~p", STRATA_FS_WRITE | STRATA_FS_READ)) != 0) {
        snprintf(s->why, sizeof s->why, "probe: create failed");
        return rc;
    }
    if ((n = strata_fs_write(&s->fs, &f, data, sizeof data)) < 0)
        snprintf(s->why, sizeof s->why, "probe: write failed");
    else if ((n = strata_fs_seek(&s->fs, &f, 10, STRATA_FS_SEEK_SET)) < 0 ||
             (n = strata_fs_write(&s->fs, &f, "xyz", 3)) < 0) /* a modification too */
        snprintf(s->why, sizeof s->why, "probe: modification failed");
    rc = strata_fs_close(&s->fs, &f); /* never leave a stack handle on the open list */
    if (n < 0 || rc != 0)
        return n < 0 ? (int)n : rc;
    memcpy(data + 10, "xyz", 3);
    if ((rc = strata_fs_open(&s->fs, &f, "~p", STRATA_FS_READ)) != 0)
        return rc;
    n = strata_fs_read(&s->fs, &f, back, sizeof back);
    if ((rc = strata_fs_close(&s->fs, &f)) != 0)
        return rc;
    if (n < 0)
        return (int)n;
    if ((uint32_t)n != sizeof data || memcmp(back, data, sizeof data) != 0) {
        snprintf(s->why, sizeof s->why, "probe file reads back wrong");
        return STRATA_ECORRUPT;
    }
    return strata_fs_remove(&s->fs, "~p");
}

/* Near full, an allocation may find the free space scattered among live files: the remedy the
 * API gives (strata_fs_gc, with its cleaning pass), then once more. On a device that is then
 * still full (fewer free pages than the probe's file and log could need: interrupted probes of
 * earlier recoveries on a device that started nearly full leave obsolete pages sharing sectors
 * with live data), ENOSPC is the right answer. */
static int probe(struct pc_state *s)
{
    struct strata_fs_usage u;
    int rc = probe_once(s);
    if (rc == STRATA_ENOSPC && (rc = strata_fs_gc(&s->fs)) >= 0)
        rc = probe_once(s);
    if (rc == STRATA_ENOSPC && strata_fs_df(&s->fs, &u) == 0 && u.free < 8)
        rc = 0;
    return rc;
}

static int check_clean(struct pc_state *s, const char *when)
{
    struct strata_fs_report r;
    int rc = strata_fs_check(&s->fs, 0, &r);
    if (rc > 0)
        snprintf(s->why, sizeof s->why, "check %s: %u problem(s): %s", when,
                 (unsigned)r.problems, r.first ? r.first : "-");
    return rc > 0 ? STRATA_ECORRUPT : rc;
}

static int pc_recover(struct strata_sim *sim, void *arg)
{
    struct pc_state *s = arg;
    uint32_t before = s->at < 0 ? 0 : (uint32_t)s->at;
    uint32_t after = s->at < 0 ? 0 : before + 1;
    char why2[160];
    int rc;
    set_cfg(s, sim);
    s->why[0] = 0;
    if ((rc = strata_fs_mount(&s->fs, &s->cfg)) != 0 || (rc = check_clean(s, "after mount")))
        goto out;
    rc = sc_compare(&s->fs, &s->snap[before], s->why, sizeof s->why);
    if (rc == STRATA_ECORRUPT && after != before) {
        rc = sc_compare(&s->fs, &s->snap[after], why2, sizeof why2);
        if (rc == STRATA_ECORRUPT)
            snprintf(s->why + strlen(s->why), sizeof s->why - strlen(s->why),
                     " (before op %d); after it: %s", s->at, why2);
    }
    if (rc == 0 && (rc = probe(s)) == 0)
        rc = check_clean(s, "after probe");
out:
    if (rc != 0 && rc != STRATA_EPOWER && getenv("FS_PC_DEBUG") != NULL) {
        struct strata_fs_usage u;
        if (strata_fs_df(&s->fs, &u) == 0)
            fprintf(stderr, "df: pages %u free %u active %u obsolete %u erasable %u files %u "
                            "logs %u\n", (unsigned)u.pages, (unsigned)u.free, (unsigned)u.active,
                    (unsigned)u.obsolete, (unsigned)u.erasable, (unsigned)u.files,
                    (unsigned)u.logs);
    }
    if (rc != 0 && rc != STRATA_EPOWER)
        fprintf(stderr, "%s: recovery after a cut in op %d: %d %s\n", s->c->name, s->at, rc,
                s->why);
    return rc;
}

uint64_t fs_pc_run(const struct fs_pc *c)
{
    struct pc_state *s = calloc(1, sizeof *s);
    struct strata_powercut_test t;
    struct sc_model m;
    uint64_t cases;
    uint32_t i;
    assert_non_null(s);
    s->c = c;
    s->snap = calloc(c->nops + 1, sizeof *s->snap);
    s->expect = calloc(c->nops + 1, sizeof *s->expect);
    assert_true(s->snap != NULL && s->expect != NULL);
    sc_model_init(&m);
    replay_prefix(s, &m);
    s->snap[0] = m.ns;
    for (i = 0; i < c->nops; i++) {
        s->expect[i] = sc_model_apply(&m, &c->ops[i]);
        s->snap[i + 1] = m.ns;
    }
    sc_model_init(&s->live);
    if (getenv("FS_PC_DEBUG") != NULL)
        for (i = 0; i < c->nops; i++)
            fprintf(stderr, "op %u: kind %u h %u a %s b %s off %u len %u seed %u -> %d\n",
                    (unsigned)i, c->ops[i].kind, c->ops[i].h, sc_names[c->ops[i].a % SC_NAMES],
                    sc_names[c->ops[i].b % SC_NAMES], (unsigned)c->ops[i].off,
                    (unsigned)c->ops[i].len, (unsigned)c->ops[i].seed, s->expect[i]);
    memset(&t, 0, sizeof t);
    t.name = c->name;
    t.sim.profile = strata_sim_profile_find(c->profile);
    assert_non_null(t.sim.profile);
    t.sim.erase_count = c->units;
    t.sim.seed = 0x5eed;
    t.sim.tear_model = c->tear_model;
    if (strcmp(c->profile, "msp430f5529") == 0)
        t.sim.options = STRATA_SIM_OPT_ROW_TIME;
    t.arg = s;
    t.setup = pc_setup;
    t.reset = pc_reset;
    t.workload = pc_workload;
    t.recover = pc_recover;
    t.samples = c->samples;
    t.recovery_cuts = c->recovery_cuts;
    t.tear = c->tear;
    t.seed = 42;
    cases = ts_powercut(&t);
    sc_model_free(&m);
    sc_model_free(&s->live);
    free(s->snap);
    free(s->expect);
    free(s);
    return cases;
}
