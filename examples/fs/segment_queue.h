/*
 * A packet queue on strata_fs that only appends: packets go to the end of the newest segment
 * file; a segment is removed once every packet in it was dequeued. Flash-friendly where the
 * paper's ring file (packet_queue.h) overwrites through the micro log once it wraps. Positions
 * live in RAM, as in the paper; a packet is durable once sq_sync returns. RAM: this struct.
 */
#ifndef STRATA_EXAMPLE_SEGMENT_QUEUE_H
#define STRATA_EXAMPLE_SEGMENT_QUEUE_H

#include <stdint.h>

#include "strata/fs.h"

struct sq {
    struct strata_fs *fs;
    struct strata_fs_file file[2]; /* the tail segment, and the head one when it differs */
    uint32_t seg_size, head_seg, tail_seg, head_off;
    int t;                         /* file[t] is the tail */
    char prefix[8];
};

int sq_open(struct sq *q, struct strata_fs *fs, const char *prefix, uint32_t seg_size);
int sq_put(struct sq *q, const void *packet, uint16_t len);
/* Dequeue into buf; returns the packet length, 0 when empty. */
int32_t sq_get(struct sq *q, void *buf, uint16_t max);
int sq_sync(struct sq *q);
int sq_close(struct sq *q);

#endif
