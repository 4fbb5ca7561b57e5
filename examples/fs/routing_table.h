/*
 * A persistent routing table on strata_fs (Coffee paper §6.1): one 10-byte entry per
 * destination (destination, metric, next hop, timestamp) in one file, updated in place through
 * a micro log whose records are exactly one entry. RAM: this struct (the open file) only.
 */
#ifndef STRATA_EXAMPLE_ROUTING_TABLE_H
#define STRATA_EXAMPLE_ROUTING_TABLE_H

#include <stdint.h>

#include "strata/fs.h"

#define RT_ENTRY 10u

struct rt_route {
    uint16_t dest, metric, next_hop;
    uint32_t stamp;
};

struct rt {
    struct strata_fs *fs;
    struct strata_fs_file f;
    uint32_t routes; /* entries in the table */
};

/* Open the table (creating it with room for max_routes entries and a log of log_records
 * entry-sized records when missing). */
int rt_open(struct rt *rt, struct strata_fs *fs, const char *name, uint32_t max_routes,
            uint32_t log_records);
/* Insert or update the route to r->dest (dest < max_routes; entries below it exist). */
int rt_set(struct rt *rt, const struct rt_route *r);
/* Look up the route to dest: 0, or STRATA_ENOENT when beyond the table. */
int rt_get(struct rt *rt, uint16_t dest, struct rt_route *out);
/* Make every update so far durable (one commit). */
int rt_sync(struct rt *rt);
int rt_close(struct rt *rt);

#endif
