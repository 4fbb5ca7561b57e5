#include "routing_table.h"

static void encode(const struct rt_route *r, uint8_t *b)
{
    b[0] = (uint8_t)r->dest;
    b[1] = (uint8_t)(r->dest >> 8);
    b[2] = (uint8_t)r->metric;
    b[3] = (uint8_t)(r->metric >> 8);
    b[4] = (uint8_t)r->next_hop;
    b[5] = (uint8_t)(r->next_hop >> 8);
    b[6] = (uint8_t)r->stamp;
    b[7] = (uint8_t)(r->stamp >> 8);
    b[8] = (uint8_t)(r->stamp >> 16);
    b[9] = (uint8_t)(r->stamp >> 24);
}

static void decode(const uint8_t *b, struct rt_route *r)
{
    r->dest = (uint16_t)(b[0] | b[1] << 8);
    r->metric = (uint16_t)(b[2] | b[3] << 8);
    r->next_hop = (uint16_t)(b[4] | b[5] << 8);
    r->stamp = b[6] | (uint32_t)b[7] << 8 | (uint32_t)b[8] << 16 | (uint32_t)b[9] << 24;
}

int rt_open(struct rt *rt, struct strata_fs *fs, const char *name, uint32_t max_routes,
            uint32_t log_records)
{
    int rc = strata_fs_reserve(fs, name, max_routes * RT_ENTRY);
    if (rc == 0)
        rc = strata_fs_configure_log(fs, name, log_records * RT_ENTRY, RT_ENTRY);
    if (rc != 0 && rc != STRATA_EEXIST)
        return rc;
    rt->fs = fs;
    rc = strata_fs_open(fs, &rt->f, name, STRATA_FS_READ | STRATA_FS_WRITE);
    rt->routes = rc == 0 ? rt->f.len / RT_ENTRY : 0;
    return rc;
}

int rt_set(struct rt *rt, const struct rt_route *r)
{
    uint8_t b[RT_ENTRY];
    int32_t rc;
    if (r->dest > rt->routes)
        return STRATA_EINVAL;
    encode(r, b);
    rc = strata_fs_seek(rt->fs, &rt->f, (int32_t)(r->dest * RT_ENTRY), STRATA_FS_SEEK_SET);
    if (rc >= 0)
        rc = strata_fs_write(rt->fs, &rt->f, b, RT_ENTRY);
    if (rc < 0)
        return (int)rc;
    if (r->dest == rt->routes)
        rt->routes++;
    return 0;
}

int rt_get(struct rt *rt, uint16_t dest, struct rt_route *out)
{
    uint8_t b[RT_ENTRY];
    int32_t rc;
    if (dest >= rt->routes)
        return STRATA_ENOENT;
    rc = strata_fs_seek(rt->fs, &rt->f, (int32_t)(dest * RT_ENTRY), STRATA_FS_SEEK_SET);
    if (rc >= 0)
        rc = strata_fs_read(rt->fs, &rt->f, b, RT_ENTRY);
    if (rc < 0)
        return (int)rc;
    if (rc != (int32_t)RT_ENTRY)
        return STRATA_ECORRUPT;
    decode(b, out);
    return 0;
}

int rt_sync(struct rt *rt)
{
    return strata_fs_sync(rt->fs, &rt->f);
}

int rt_close(struct rt *rt)
{
    return strata_fs_close(rt->fs, &rt->f);
}
