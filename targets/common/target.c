/* main() of every target workload, the per-call measurement table, output and digests. */
#include "target.h"

#include "strata/crc.h"

static struct {
    uint16_t calls;
    uint16_t stack;
} table[TGT_MAX_CALLS];

void tgt_record(unsigned id, uint16_t stack)
{
    if (id >= TGT_MAX_CALLS)
        return;
    if (table[id].calls != 0xFFFFu)
        table[id].calls++;
    if (stack > table[id].stack)
        table[id].stack = stack;
}

void tgt_puts(const char *s)
{
    tgt_write(s);
}

void tgt_put_hex(uint32_t v)
{
    char s[9];
    unsigned i;
    for (i = 0; i < 8u; i++) {
        unsigned nib = (unsigned)(v >> (28u - 4u * i)) & 15u;
        s[i] = (char)(nib < 10u ? '0' + nib : 'a' + nib - 10u);
    }
    s[8] = '\0';
    tgt_write(s);
}

void tgt_put_dec(uint32_t v)
{
    char s[11];
    unsigned i = sizeof s - 1u;
    s[i] = '\0';
    do {
        s[--i] = (char)('0' + (unsigned)(v % 10u));
        v /= 10u;
    } while (v != 0);
    tgt_write(s + i);
}

void tgt_line(const char *label, uint32_t v)
{
    tgt_write(label);
    tgt_write(" ");
    tgt_put_dec(v);
    tgt_write("\n");
}

void tgt_fail(const char *what, int32_t v)
{
    tgt_write("FAIL ");
    tgt_write(what);
    tgt_write(" ");
    if (v < 0) {
        tgt_write("-");
        tgt_put_dec((uint32_t)-v);
    } else {
        tgt_put_dec((uint32_t)v);
    }
    tgt_write("\nresult FAIL\n");
    tgt_exit(1);
}

void tgt_digest_bytes(struct tgt_digest *d, const void *p, size_t n)
{
    d->crc = strata_crc32(d->crc, p, n);
    d->items++;
}

void tgt_digest_u32(struct tgt_digest *d, uint32_t v)
{
    uint8_t b[4];
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
    tgt_digest_bytes(d, b, 4);
}

void tgt_digest_u32s(struct tgt_digest *d, const uint32_t *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        tgt_digest_u32(d, v[i]);
}

void tgt_digest_rc(struct tgt_digest *d, unsigned id, int32_t rc)
{
    tgt_digest_u32(d, (uint32_t)id);
    tgt_digest_u32(d, (uint32_t)rc);
}

void tgt_put_digest(const char *what, const struct tgt_digest *d)
{
    tgt_write("digest ");
    tgt_write(what);
    tgt_write(" ");
    tgt_put_hex(d->crc);
    tgt_write(" ");
    tgt_put_dec(d->items);
    tgt_write("\n");
}

void tgt_put_bytes_digest(const char *what, const void *p, size_t n)
{
    struct tgt_digest d = {0, 0};
    tgt_digest_bytes(&d, p, n);
    tgt_put_digest(what, &d);
}

void tgt_trace(uint32_t step, const struct tgt_digest *d)
{
#ifdef TGT_TRACE
    tgt_line("step", step);
    tgt_put_digest("trace", d);
#else
    (void)step;
    (void)d;
#endif
}

uint32_t tgt_rand(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

uint32_t tgt_rand_below(uint32_t *state, uint32_t n)
{
    return tgt_rand(state) % n;
}

int main(void)
{
    unsigned i;
    int rc;
    tgt_write("strata-target ");
    tgt_write(tgt_workload_name);
    tgt_write(" start\n");
    tgt_enter();
    tgt_leave(0); /* the empty bracket: the measurement's own cost */
    rc = tgt_workload();
    for (i = 0; i < TGT_MAX_CALLS; i++) {
        if (table[i].calls == 0)
            continue;
        tgt_write("call ");
        tgt_put_dec(i);
        tgt_write(" ");
        tgt_write(i == 0 ? "bracket" : tgt_call_names[i] ? tgt_call_names[i] : "?");
        tgt_write(" ");
        tgt_put_dec(table[i].calls);
        tgt_write(" ");
        tgt_put_dec(table[i].stack);
        tgt_write("\n");
    }
    tgt_write(rc == 0 ? "result PASS\n" : "result FAIL\n");
    tgt_exit(rc != 0);
    return rc;
}
