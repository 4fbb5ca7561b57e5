/*
 * Extent headers and their one-way fields (docs/format-fs.md). Every field written after the
 * header is encoded so that each torn state reads either as "not written" or as unusable,
 * never as a different valid value.
 *
 * Headers are read and built in the scratch buffer (a header's walked part and its rename slot
 * each fit its 64-byte minimum), so no header image lives on the stack. A parsed header's name
 * points into the scratch buffer: it is valid until the buffer is used again.
 */
#include <stddef.h>

#include "fs_internal.h"

/* The little-endian 32-bit fields of a header (bytes 4..23) and of a rename slot (after the
 * name), as members of struct fs_hdr, in order. */
static const uint8_t hdr_fields[] = {
    offsetof(struct fs_hdr, seq),   offsetof(struct fs_hdr, pages), offsetof(struct fs_hdr, cfg),
    offsetof(struct fs_hdr, lpage), offsetof(struct fs_hdr, lseq),  0xFF};
static const uint8_t ren_fields[] = {offsetof(struct fs_hdr, rseq), offsetof(struct fs_hdr, rpage),
                                     offsetof(struct fs_hdr, rpseq), 0xFF};

/* Decode the fields listed at p into h, or (put) encode them from h. */
static void fields(uint8_t *p, struct fs_hdr *h, const uint8_t *m, int put)
{
    for (; *m != 0xFF; m++, p += 4) {
        uint32_t *v = (uint32_t *)(void *)((uint8_t *)h + *m);
        if (put)
            strata_put_le32(p, *v);
        else
            *v = strata_get_le32(p);
    }
}

/* CRC of a record, optionally bound to an extent (page, sequence), XOR a per-record magic. */
static uint32_t seal(const uint8_t *p, uint32_t n, const struct fs_hdr *bind, uint32_t magic)
{
    uint8_t id[8];
    uint32_t c = strata_crc32(0, p, n);
    if (bind != NULL) {
        strata_put_le32(id, bind->page);
        strata_put_le32(id + 4, bind->seq);
        c = strata_crc32(c, id, 8);
    }
    return c ^ magic;
}

/* The rename slot, read into the scratch buffer: valid (1, name and pointers taken from it) or
 * torn (2); blank counts as not renamed (0). Otherwise the header's name is read back. */
static int read_ren(const struct strata_fs *fs, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max, u = fs_page_u(fs, h->page);
    uint8_t *r = fs->cfg.buffer;
    int rc = fs_read(fs, u + O_REN(N), r, N + 16);
    if (rc != 0)
        return rc;
    h->renamed = 2;
    if (fs_blank(r, N + 16)) {
        h->renamed = 0;
    } else if (strata_get_le32(r + N + 12) == seal(r, N + 12, h, CRC_REN)) {
        h->renamed = 1;
        h->name = r;
        fields(r + N, h, ren_fields, 0);
        return 0;
    }
    return fs_read(fs, u + O_NAME, r + O_NAME, N);
}

/* A data header's log link into h->log: v = log page + 1 and its complement; blank = none;
 * anything else = torn (FS_BAD). */
int fs_link_read(const struct strata_fs *fs, struct fs_hdr *h)
{
    uint8_t b[8];
    uint32_t v, c;
    int rc = fs_read(fs, fs_page_u(fs, h->page) + O_LINK(fs->cfg.name_max), b, 8);
    v = strata_get_le32(b);
    c = strata_get_le32(b + 4);
    h->log = v == FS_NONE && c == FS_NONE ? FS_NONE
             : v == ~c && v != 0 && v <= fs->pages ? v - 1
                                                    : FS_BAD;
    return rc;
}

/* Read and parse the header at page: the CRC part and the three flags (what a walk reads) and
 * the rename slot when the renamed flag is set. h->log is FS_NONE: see fs_link_read. */
int fs_hdr_read(const struct strata_fs *fs, uint32_t page, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max;
    uint8_t *raw = fs->cfg.buffer;
    int rc;
    memset(h, 0, sizeof *h);
    h->page = page;
    h->log = FS_NONE;
    if (page >= fs->pages)
        return HDR_GARBAGE;
    if ((rc = fs_read(fs, fs_page_u(fs, page), raw, HDR_SHORT(N))) != 0)
        return rc;
    if (fs_blank(raw, HDR_SHORT(N)))
        return HDR_BLANK;
    h->type = raw[O_TYPE];
    fields(raw + O_SEQ, h, hdr_fields, 0);
    /* type, then three zero bytes */
    if ((strata_get_le32(raw) != FS_T_DATA && strata_get_le32(raw) != FS_T_LOG) ||
        strata_get_le32(raw + O_CRC(N)) != seal(raw, O_CRC(N), NULL, CRC_HDR) || h->pages < 2 ||
        h->pages > fs->pages - page || h->seq == FS_NONE)
        return HDR_GARBAGE;
    h->obsolete = raw[O_OBS(N)] != 0xFF;
    h->commit = raw[O_COMMIT(N)] != 0xFF;
    h->name = raw + O_NAME;
    if (h->type != FS_T_DATA)
        return HDR_VALID;
    if (raw[O_RENAMED(N)] != 0xFF && (rc = read_ren(fs, h)) != 0)
        return rc;
    return HDR_VALID;
}

/* A live data file: valid (the caller checked), committed and not obsolete. */
int fs_live(const struct fs_hdr *h)
{
    return h->type == FS_T_DATA && !h->obsolete && (h->lpage == FS_NONE || h->commit);
}

/* Write the CRC-covered part of the header h describes at h->page in one program (a cut
 * leaves it blank or invalid) and give it the next sequence number. A data extent's name is
 * `name`, or with NULL the current name of the extent it supersedes (h->lpage: a copy); a log
 * has none. */
int fs_hdr_write(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen)
{
    uint32_t N = fs->cfg.name_max, log = h->type == FS_T_LOG;
    uint8_t *raw = fs->cfg.buffer;
    struct fs_hdr o;
    int rc;
    if (fs->seq >= 0xFFFFFFF0u)
        return STRATA_ENOSPC; /* sequence numbers exhausted (after 4e9 creations) */
    if (name == NULL && !log) {
        if ((rc = fs_hdr_read(fs, h->lpage, &o)) != HDR_VALID)
            return rc < 0 ? rc : STRATA_ECORRUPT;
        memmove(raw + O_NAME, o.name, N);
    } else {
        memset(raw + O_NAME, log ? 0xFF : 0x00, N);
        if (name != NULL)
            memcpy(raw + O_NAME, name, nlen);
    }
    h->seq = ++fs->seq;
    strata_put_le32(raw, h->type);
    fields(raw + O_SEQ, h, hdr_fields, 1);
    strata_put_le32(raw + O_CRC(N), seal(raw, O_CRC(N), NULL, CRC_HDR));
    return fs_prog(fs, fs_page_u(fs, h->page), raw, O_CRC(N) + 4);
}

/* Set a one-byte flag (obsolete, commit, renamed) of the header at page. */
int fs_flag(const struct strata_fs *fs, uint32_t page, uint32_t off)
{
    return fs_zero(fs, fs_page_u(fs, page) + off, 1);
}

int fs_link_write(const struct strata_fs *fs, uint32_t page, uint32_t log)
{
    uint8_t v[8];
    strata_put_le32(v, log + 1);
    strata_put_le32(v + 4, ~(log + 1));
    return fs_prog(fs, fs_page_u(fs, page) + O_LINK(fs->cfg.name_max), v, 8);
}

/* Give the extent h a new name, replacing the target h->rpage/rpseq: the renamed flag, then
 * the slot, whose program is the commit point (a cut after the flag leaves the slot blank: no
 * rename). */
int fs_ren_write(struct strata_fs *fs, struct fs_hdr *h, const char *name, uint32_t nlen)
{
    uint8_t *s = fs->cfg.buffer;
    uint32_t N = fs->cfg.name_max;
    int rc;
    if (fs->seq >= 0xFFFFFFF0u)
        return STRATA_ENOSPC;
    memset(s, 0, N);
    memcpy(s, name, nlen);
    h->rseq = ++fs->seq;
    fields(s + N, h, ren_fields, 1);
    strata_put_le32(s + N + 12, seal(s, N + 12, h, CRC_REN));
    if (!h->renamed && (rc = fs_flag(fs, h->page, O_RENAMED(N))) != 0)
        return rc;
    return fs_prog(fs, fs_page_u(fs, h->page) + O_REN(N), s, N + 16);
}

/* Obsolete a data extent (the commit point of a removal), then its micro log. */
int fs_obsolete(struct strata_fs *fs, uint32_t page)
{
    struct fs_hdr h;
    uint32_t N = fs->cfg.name_max;
    int rc = fs_hdr_read(fs, page, &h);
    if (rc == HDR_VALID && h.type == FS_T_DATA && (rc = fs_link_read(fs, &h)) == 0)
        rc = HDR_VALID;
    if (rc != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    if (!h.obsolete && (rc = fs_flag(fs, page, O_OBS(N))) != 0)
        return rc;
    return h.log < FS_BAD ? fs_flag(fs, h.log, O_OBS(N)) : 0;
}

/* Index entry check byte: bit 7 always 0, so an entry cut before its last byte never checks;
 * 0x5A for key 0, so the void value 00 00 00 never checks. */
uint32_t fs_entry_check(uint32_t key)
{
    return ((key & 0xFF) + 7 * (key >> 8) + 0x5A) & 0x7F;
}
