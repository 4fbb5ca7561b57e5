#include "fz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTE 0x5Au

void fz_in_init(struct fz_in *in, const uint8_t *p, size_t n)
{
    in->p = p;
    in->n = p != NULL ? n : 0;
    in->at = 0;
}

int fz_more(const struct fz_in *in)
{
    return in->at < in->n;
}

uint8_t fz_u8(struct fz_in *in)
{
    return in->at < in->n ? in->p[in->at++] : 0;
}

uint16_t fz_u16(struct fz_in *in)
{
    uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)(fz_u8(in) << 8));
}

uint32_t fz_below(struct fz_in *in, uint32_t n)
{
    uint32_t v = n <= 256u ? fz_u8(in) : fz_u16(in);
    return n > 1u ? v % n : 0u;
}

void fz_take(struct fz_in *in, uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = fz_u8(in);
}

const uint8_t *fz_rest(struct fz_in *in, size_t *n)
{
    const uint8_t *p = in->p + in->at;
    *n = in->n - in->at;
    in->at = in->n;
    return p;
}

static void reserve(struct fz_out *o, size_t more)
{
    if (o->n + more <= o->cap)
        return;
    o->cap = 2 * (o->n + more) + 64;
    o->p = realloc(o->p, o->cap);
    if (o->p == NULL)
        fz_fail("out of memory");
}

void fz_put8(struct fz_out *o, uint32_t v)
{
    reserve(o, 1);
    o->p[o->n++] = (uint8_t)v;
}

void fz_put16(struct fz_out *o, uint32_t v)
{
    fz_put8(o, v & 0xFFu);
    fz_put8(o, (v >> 8) & 0xFFu);
}

void fz_put_below(struct fz_out *o, uint32_t v, uint32_t n)
{
    if (n <= 256u)
        fz_put8(o, v);
    else
        fz_put16(o, v);
}

void fz_put_bytes(struct fz_out *o, const void *p, size_t n)
{
    reserve(o, n);
    memcpy(o->p + o->n, p, n);
    o->n += n;
}

void fz_out_free(struct fz_out *o)
{
    free(o->p);
    memset(o, 0, sizeof *o);
}

int fz_dev_new(struct fz_dev *d, const char *profile, uint32_t units, uint8_t device,
               uint32_t options)
{
    static const enum strata_sim_tear_model models[3] = {
        STRATA_SIM_TEAR_MODEL_PROFILE, STRATA_SIM_TEAR_MODEL_PREFIX, STRATA_SIM_TEAR_MODEL_SUBSET};
    struct strata_sim_config c;
    uint8_t *pattern;
    uint32_t es, total;
    memset(d, 0, sizeof *d);
    memset(&c, 0, sizeof c);
    c.profile = strata_sim_profile_find(profile);
    if (c.profile == NULL || units == 0)
        return -1;
    c.erase_count = total = units + 2u;
    c.seed = device;
    c.options = options;
    c.tear_model = models[device % 3u];
    if ((d->sim = strata_sim_new(&c)) == NULL)
        return -1;
    d->first = 1;
    d->units = units;
    es = strata_sim_flash(d->sim)->geo.erase_size;
    if ((pattern = malloc(es)) == NULL)
        fz_fail("out of memory");
    memset(pattern, GUARD_BYTE, es);
    strata_sim_poke(d->sim, 0, pattern, es);
    strata_sim_poke(d->sim, (total - 1u) * es, pattern, es);
    free(pattern);
    return 0;
}

void fz_dev_free(struct fz_dev *d)
{
    strata_sim_free(d->sim);
    d->sim = NULL;
}

void fz_dev_load(struct fz_dev *d, const uint8_t *p, size_t n)
{
    uint32_t es = strata_sim_flash(d->sim)->geo.erase_size, room = d->units * es;
    strata_sim_poke(d->sim, d->first * es, p, n < room ? (uint32_t)n : room);
}

static void check_guard(const struct fz_dev *d, uint32_t unit, const char *who)
{
    uint32_t es = strata_sim_flash(d->sim)->geo.erase_size, i, j;
    uint8_t b[256], pattern[256];
    memset(pattern, GUARD_BYTE, sizeof pattern);
    for (i = 0; i < es; i += sizeof b) {
        uint32_t n = es - i < sizeof b ? es - i : (uint32_t)sizeof b;
        strata_sim_peek(d->sim, unit * es + i, b, n);
        if (memcmp(b, pattern, n) == 0)
            continue;
        for (j = 0; b[j] == GUARD_BYTE; j++)
            ;
        fz_fail("%s: wrote outside its region: unit %u byte %u is 0x%02x", who, (unsigned)unit,
                (unsigned)(i + j), b[j]);
    }
}

void fz_dev_check(const struct fz_dev *d, int guards, int rules, const char *who)
{
    struct strata_sim_stats st;
    if (guards) {
        check_guard(d, 0, who);
        check_guard(d, d->first + d->units, who);
    }
    if (!rules)
        return;
    strata_sim_stats(d->sim, &st);
    if (st.violations != 0)
        fz_fail("%s: the device saw %u rule violation(s); last: %s", who,
                (unsigned)st.violations, strata_sim_last_violation(d->sim));
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FUZZ FINDING: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
