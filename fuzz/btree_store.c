/* The btree_ops fuzzer's RAM page store (btree_store.h). */
#include "btree_store.h"

#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "strata/error.h"

#define NOTE_AT 0u   /* a write's note: the page number, little-endian */
#define RECORD_AT 8u /* a commit's record: seq, ~seq */

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void record(uint8_t r[8], uint32_t seq)
{
    le32(r, seq);
    le32(r + 4, ~seq);
}

static int bs_read(void *ctx, uint32_t page, void *buf)
{
    struct bs *s = ctx;
    if (page >= s->store.pages)
        fz_fail("btree store: read of page %lu of %lu", (unsigned long)page,
                (unsigned long)s->store.pages);
    memcpy(buf, s->cur + (size_t)page * s->store.page_size, s->store.page_size);
    return 0;
}

static int bs_write(void *ctx, uint32_t page, const void *buf)
{
    struct bs *s = ctx;
    uint8_t note[4];
    int rc;
    if (page >= s->store.pages)
        fz_fail("btree store: write of page %lu of %lu", (unsigned long)page,
                (unsigned long)s->store.pages);
    le32(note, page);
    if ((rc = strata_flash_prog(s->flash, s->base + NOTE_AT, note, sizeof note)) != 0)
        return rc; /* power failed before the page changed */
    memcpy(s->cur + (size_t)page * s->store.page_size, buf, s->store.page_size);
    s->dirty[page] = 1;
    return 0;
}

/* The writes since the last commit become durable (ok) or are dropped. */
static void settle(struct bs *s, int ok)
{
    uint32_t p, ps = s->store.page_size;
    for (p = 0; p < s->store.pages; p++) {
        if (!s->dirty[p])
            continue;
        if (ok)
            memcpy(s->dur + (size_t)p * ps, s->cur + (size_t)p * ps, ps);
        else
            memcpy(s->cur + (size_t)p * ps, s->dur + (size_t)p * ps, ps);
        s->dirty[p] = 0;
    }
}

static int bs_commit(void *ctx)
{
    struct bs *s = ctx;
    uint8_t r[8];
    int rc;
    record(r, ++s->seq);
    s->inflight = 1;
    if ((rc = strata_flash_prog(s->flash, s->base + RECORD_AT, r, sizeof r)) != 0)
        return rc; /* bs_recover decides */
    s->inflight = 0;
    settle(s, 1);
    return 0;
}

void bs_init(struct bs *s, const struct strata_flash *f, uint32_t base, uint32_t pages,
             uint32_t page_size)
{
    size_t bytes = (size_t)pages * page_size;
    memset(s, 0, sizeof *s);
    s->flash = f;
    s->base = base;
    s->cur = malloc(bytes);
    s->dur = malloc(bytes);
    s->dirty = calloc(pages, 1);
    if (s->cur == NULL || s->dur == NULL || s->dirty == NULL)
        fz_fail("out of memory");
    memset(s->cur, 0xFF, bytes);
    memset(s->dur, 0xFF, bytes);
    s->store.read = bs_read;
    s->store.write = bs_write;
    s->store.commit = bs_commit;
    s->store.ctx = s;
    s->store.pages = pages;
    s->store.page_size = page_size;
}

void bs_recover(struct bs *s)
{
    uint8_t want[8], got[8];
    int ok = 0;
    if (s->inflight) {
        record(want, s->seq);
        if (strata_flash_read(s->flash, s->base + RECORD_AT, got, sizeof got) != 0)
            fz_fail("btree store: the commit record does not read");
        ok = memcmp(want, got, sizeof want) == 0;
        s->inflight = 0;
    }
    settle(s, ok);
}

void bs_free(struct bs *s)
{
    free(s->cur);
    free(s->dur);
    free(s->dirty);
}
