#include "segment_queue.h"

#include <string.h>

static void seg_name(const struct sq *q, uint32_t seg, char *out)
{
    size_t n = strlen(q->prefix);
    memcpy(out, q->prefix, n);
    out[n] = (char)('0' + seg / 1000 % 10);
    out[n + 1] = (char)('0' + seg / 100 % 10);
    out[n + 2] = (char)('0' + seg / 10 % 10);
    out[n + 3] = (char)('0' + seg % 10);
    out[n + 4] = 0;
}

#define TAIL(q) (&(q)->file[(q)->t])
#define HEAD(q) ((q)->head_seg == (q)->tail_seg ? TAIL(q) : &(q)->file[1 - (q)->t])

static int open_tail(struct sq *q)
{
    char name[16];
    int rc;
    seg_name(q, q->tail_seg, name);
    rc = strata_fs_reserve(q->fs, name, q->seg_size);
    if (rc != 0 && rc != STRATA_EEXIST)
        return rc;
    return strata_fs_open(q->fs, TAIL(q), name, STRATA_FS_READ | STRATA_FS_APPEND);
}

int sq_open(struct sq *q, struct strata_fs *fs, const char *prefix, uint32_t seg_size)
{
    memset(q, 0, sizeof *q);
    q->fs = fs;
    q->seg_size = seg_size;
    strncpy(q->prefix, prefix, 3); /* names: up to 3 characters and 4 digits */
    return open_tail(q);
}

int sq_put(struct sq *q, const void *packet, uint16_t len)
{
    uint8_t l[2];
    int32_t rc;
    if (TAIL(q)->len + 2u + len > q->seg_size) {
        /* start the next segment; the current one stays open when it is the head */
        if (q->head_seg != q->tail_seg && (rc = strata_fs_close(q->fs, TAIL(q))) != 0)
            return (int)rc;
        if (q->head_seg == q->tail_seg)
            q->t = 1 - q->t;
        q->tail_seg++;
        if ((rc = open_tail(q)) != 0)
            return (int)rc;
    }
    if (len <= 256) { /* one write (one device program) for length and bytes */
        uint8_t b[258];
        b[0] = (uint8_t)len;
        b[1] = (uint8_t)(len >> 8);
        memcpy(b + 2, packet, len);
        rc = strata_fs_write(q->fs, TAIL(q), b, 2u + len);
        return rc < 0 ? (int)rc : 0;
    }
    l[0] = (uint8_t)len;
    l[1] = (uint8_t)(len >> 8);
    if ((rc = strata_fs_write(q->fs, TAIL(q), l, 2)) < 0 ||
        (rc = strata_fs_write(q->fs, TAIL(q), packet, len)) < 0)
        return (int)rc;
    return 0;
}

int32_t sq_get(struct sq *q, void *buf, uint16_t max)
{
    struct strata_fs_file *f = HEAD(q);
    uint8_t l[2];
    uint16_t len;
    int32_t rc;
    if (q->head_seg != q->tail_seg && q->head_off >= f->len) {
        char name[16];
        /* the head segment is used up: drop it, move to the next */
        if ((rc = strata_fs_close(q->fs, f)) != 0)
            return rc;
        seg_name(q, q->head_seg, name);
        if ((rc = strata_fs_remove(q->fs, name)) != 0)
            return rc;
        q->head_seg++;
        q->head_off = 0;
        f = HEAD(q);
        if (q->head_seg != q->tail_seg) {
            seg_name(q, q->head_seg, name);
            if ((rc = strata_fs_open(q->fs, f, name, STRATA_FS_READ)) != 0)
                return rc;
        }
    }
    if (q->head_off >= f->len)
        return 0;
    if ((rc = strata_fs_seek(q->fs, f, (int32_t)q->head_off, STRATA_FS_SEEK_SET)) < 0 ||
        (rc = strata_fs_read(q->fs, f, l, 2)) < 0)
        return rc;
    len = (uint16_t)(l[0] | l[1] << 8);
    if (len > max)
        return STRATA_ENOMEM;
    if ((rc = strata_fs_read(q->fs, f, buf, len)) < 0)
        return rc;
    q->head_off += 2u + len;
    return len;
}

int sq_sync(struct sq *q)
{
    return strata_fs_sync(q->fs, TAIL(q));
}

int sq_close(struct sq *q)
{
    int rc = q->head_seg != q->tail_seg ? strata_fs_close(q->fs, HEAD(q)) : 0;
    int r = strata_fs_close(q->fs, TAIL(q));
    return rc ? rc : r;
}
