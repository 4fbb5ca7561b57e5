/*
 * Per-call counters of the host-side measuring tools (the QEMU plugin targets/qemu/insn_probe.c
 * and the simavr runner targets/avr/simrun.c): for each call id, how many calls, their total,
 * smallest and largest count (instructions or cycles), and how much of it ran inside the named
 * address ranges (libgcc's division helpers). Written as "id count total min max in-ranges" lines
 * plus a last "<label> <total>" line, which targets/run.py reads. Host tools only: uses stdio.
 */
#ifndef STRATA_TARGETS_CALLSTATS_H
#define STRATA_TARGETS_CALLSTATS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CALLSTATS_IDS 256
#define CALLSTATS_RANGES 16

struct callstats {
    struct {
        uint64_t count, total, min, max, in_ranges;
    } call[CALLSTATS_IDS];
    uint64_t lo[CALLSTATS_RANGES], hi[CALLSTATS_RANGES];
    int ranges;
};

/* Add the range "lo:hi" (numbers in C notation, hi exclusive); 0, or -1 when malformed or full. */
static inline int callstats_add_range(struct callstats *s, const char *text)
{
    char *end;
    if (s->ranges == CALLSTATS_RANGES)
        return -1;
    s->lo[s->ranges] = strtoull(text, &end, 0);
    if (*end != ':')
        return -1;
    s->hi[s->ranges++] = strtoull(end + 1, NULL, 0);
    return 0;
}

static inline int callstats_in_range(const struct callstats *s, uint64_t pc)
{
    int i;
    for (i = 0; i < s->ranges; i++)
        if (pc >= s->lo[i] && pc < s->hi[i])
            return 1;
    return 0;
}

/* One call of that id took n, of which in_ranges inside the ranges. */
static inline void callstats_add(struct callstats *s, unsigned id, uint64_t n, uint64_t in_ranges)
{
    if (id >= CALLSTATS_IDS)
        return;
    if (s->call[id].count == 0 || n < s->call[id].min)
        s->call[id].min = n;
    if (n > s->call[id].max)
        s->call[id].max = n;
    s->call[id].total += n;
    s->call[id].in_ranges += in_ranges;
    s->call[id].count++;
}

static inline int callstats_write(const struct callstats *s, const char *path, const char *label,
                                  uint64_t total)
{
    FILE *f = fopen(path, "w");
    unsigned i;
    if (f == NULL)
        return -1;
    for (i = 0; i < CALLSTATS_IDS; i++)
        if (s->call[i].count != 0)
            fprintf(f, "%u %llu %llu %llu %llu %llu\n", i, (unsigned long long)s->call[i].count,
                    (unsigned long long)s->call[i].total, (unsigned long long)s->call[i].min,
                    (unsigned long long)s->call[i].max, (unsigned long long)s->call[i].in_ranges);
    fprintf(f, "%s %llu\n", label, (unsigned long long)total);
    return fclose(f);
}

#endif
