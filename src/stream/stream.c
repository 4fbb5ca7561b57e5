/* The public calls that feed the store: insert, flush, stats. */
#include "stream_internal.h"

int strata_stream_insert(struct strata_stream *s, uint32_t ts, int32_t key, const void *record,
                         uint32_t len)
{
    const struct strata_stream_config *c;
    uint8_t *slot;
    int rc;
    if (s == NULL || (c = s->cfg) == NULL || key == INT32_MIN || len > c->record_size ||
        (len != 0 && record == NULL) || (s->has_last && ts < s->last_insert_ts))
        return STRATA_EINVAL;
    s->gen++;
    if (s->buffered == 0 && (rc = wr_start_page(s)) != 0)
        return rc;
    slot = s->wbuf + (uint32_t)s->buffered * s->slot;
    s_put32(slot, SLOT_TS, ts);
    s_put32(slot, SLOT_KEY, (uint32_t)key);
    if (len != 0)
        memcpy(slot + SLOT_REC, record, (size_t)len);
    memset(slot + SLOT_REC + len, 0, (size_t)(c->record_size - len));
    if (s->buffered++ == 0)
        s->buf_first_ts = ts;
    s->last_insert_ts = ts;
    s->has_last = 1;
    if (s->buffered >= s->page_cap || (c->flush_records != 0 && s->buffered >= c->flush_records) ||
        (c->flush_seconds != 0 && ts - s->buf_first_ts >= c->flush_seconds))
        return wr_flush_page(s);
    return 0;
}

int strata_stream_flush(struct strata_stream *s)
{
    if (s == NULL || s->cfg == NULL)
        return STRATA_EINVAL;
    s->gen++;
    return wr_flush_page(s);
}

int strata_stream_stats(const struct strata_stream *s, struct strata_stream_stats *out)
{
    if (s == NULL || out == NULL || s->cfg == NULL)
        return STRATA_EINVAL;
    *out = s->st;
    out->segments = s->live_segments;
    out->readings = s->live_readings + s->records + s->buffered;
    out->buffered = s->buffered;
    /* no closed segment: the open segment's first reading, else the aging bound */
    out->min_ts = s->live_segments ? s->min_ts
                  : s->records     ? s->first_ts
                  : s->buffered    ? s->buf_first_ts
                                   : s->min_ts;
    out->last_ts = s->last_insert_ts;
    out->open_pages = s->data_pages;
    out->open_buckets = s->buckets;
    out->open_sections = s->sections;
    out->aged = s->aged;
    return 0;
}
