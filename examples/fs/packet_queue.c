#include "packet_queue.h"

#include <string.h>

int pq_open(struct pq *q, struct strata_fs *fs, const char *name, uint32_t size,
            uint32_t log_size, uint32_t record)
{
    int rc = strata_fs_reserve(fs, name, size);
    if (rc == 0)
        rc = strata_fs_configure_log(fs, name, log_size, record);
    if (rc != 0 && rc != STRATA_EEXIST)
        return rc;
    q->fs = fs;
    q->size = size;
    q->head = q->tail = q->used = 0;
    return strata_fs_open(fs, &q->f, name, STRATA_FS_READ | STRATA_FS_WRITE);
}

/* Write or read n bytes at ring position `at`, wrapping at the end. */
static int ring(struct pq *q, int write, uint32_t at, uint8_t *p, uint32_t n)
{
    while (n > 0) {
        uint32_t c = q->size - at < n ? q->size - at : n;
        int32_t rc = strata_fs_seek(q->fs, &q->f, (int32_t)at, STRATA_FS_SEEK_SET);
        if (rc >= 0)
            rc = write ? strata_fs_write(q->fs, &q->f, p, c) : strata_fs_read(q->fs, &q->f, p, c);
        if (rc < 0)
            return (int)rc;
        if ((uint32_t)rc != c)
            return STRATA_ECORRUPT;
        at = (at + c) % q->size;
        p += c;
        n -= c;
    }
    return 0;
}

int pq_put(struct pq *q, const void *packet, uint16_t len)
{
    uint8_t b[2 + PQ_INLINE];
    int rc;
    if (q->used + 2u + len > q->size)
        return STRATA_ENOSPC;
    b[0] = (uint8_t)len;
    b[1] = (uint8_t)(len >> 8);
    if (len <= PQ_INLINE) {
        /* one write for length and packet: fewer, fuller micro log records once the ring wraps */
        memcpy(b + 2, packet, len);
        rc = ring(q, 1, q->tail, b, 2u + len);
    } else if ((rc = ring(q, 1, q->tail, b, 2)) == 0) {
        rc = ring(q, 1, (q->tail + 2) % q->size, (uint8_t *)(uintptr_t)packet, len);
    }
    if (rc != 0)
        return rc;
    q->tail = (q->tail + 2u + len) % q->size;
    q->used += 2u + len;
    return 0;
}

int32_t pq_get(struct pq *q, void *buf, uint16_t max)
{
    uint8_t l[2];
    uint16_t len;
    int rc;
    if (q->used == 0)
        return 0;
    if ((rc = ring(q, 0, q->head, l, 2)) != 0)
        return rc;
    len = (uint16_t)(l[0] | l[1] << 8);
    if (len > max || 2u + len > q->used)
        return STRATA_ECORRUPT;
    if ((rc = ring(q, 0, (q->head + 2) % q->size, buf, len)) != 0)
        return rc;
    q->head = (q->head + 2u + len) % q->size;
    q->used -= 2u + len;
    return len;
}

int pq_sync(struct pq *q)
{
    return strata_fs_sync(q->fs, &q->f);
}

int pq_close(struct pq *q)
{
    return strata_fs_close(q->fs, &q->f);
}
