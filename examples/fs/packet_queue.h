/*
 * A packet queue on strata_fs (Coffee paper §6.2): packets (a 2-byte length, then the bytes)
 * stored back to back in one file used as a ring of `size` bytes. The two positions live in
 * RAM, as in the paper; the bytes written are durable at pq_sync. The first lap appends; later
 * laps overwrite, through the file's micro log. A packet of up to PQ_INLINE bytes is written
 * together with its length (one write: fewer, fuller log records), so pq_put uses
 * PQ_INLINE + 2 bytes of stack.
 */
#ifndef STRATA_EXAMPLE_PACKET_QUEUE_H
#define STRATA_EXAMPLE_PACKET_QUEUE_H

#include <stdint.h>

#include "strata/fs.h"

#define PQ_INLINE 128 /* packets up to this size are written with their length in one write */

struct pq {
    struct strata_fs *fs;
    struct strata_fs_file f;
    uint32_t size;       /* ring bytes */
    uint32_t head, tail; /* next byte to dequeue / enqueue, modulo size */
    uint32_t used;       /* bytes queued */
};

/* Create (or reuse) the queue file with a ring of `size` bytes and a micro log of `log_size`
 * bytes in records of `record` bytes. */
int pq_open(struct pq *q, struct strata_fs *fs, const char *name, uint32_t size,
            uint32_t log_size, uint32_t record);
/* Enqueue one packet; STRATA_ENOSPC when it does not fit. */
int pq_put(struct pq *q, const void *packet, uint16_t len);
/* Dequeue the oldest packet into buf (max bytes); returns its length, 0 when empty. */
int32_t pq_get(struct pq *q, void *buf, uint16_t max);
int pq_sync(struct pq *q);
int pq_close(struct pq *q);

#endif
