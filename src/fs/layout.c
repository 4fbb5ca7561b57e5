/*
 * Extent headers and their one-way fields (docs/format-fs.md). Every field written after the
 * header is encoded so that each torn state reads either as "not written" or as unusable,
 * never as a different valid value.
 */
#include "fs_internal.h"

static uint32_t crc_xor(const uint8_t *p, uint32_t n, uint32_t x)
{
    return strata_crc32(0, p, n) ^ x;
}

/* The rename slot's CRC also binds it to its extent (page and sequence). */
static uint32_t ren_crc(const struct strata_fs *fs, const uint8_t *slot, uint32_t page,
                        uint32_t seq)
{
    uint8_t id[8];
    fs_put32(id, page);
    fs_put32(id + 4, seq);
    return strata_crc32(strata_crc32(0, slot, fs->cfg.name_max + 12), id, 8) ^ CRC_REN;
}

/* One-way pointer field: v+1 and its complement; blank = none; anything else = torn. */
static uint32_t link_decode(const struct strata_fs *fs, const uint8_t *p)
{
    uint32_t v = fs_get32(p), c = fs_get32(p + 4);
    if (v == FS_NONE && c == FS_NONE)
        return FS_NONE;
    return v == ~c && v != 0 && v <= fs->pages ? v - 1 : FS_BAD;
}

/* Parse the CRC-covered part and the three flags (the first HDR_SHORT bytes of raw). */
int fs_hdr_parse(const struct strata_fs *fs, const uint8_t *raw, uint32_t page, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max;
    memset(h, 0, sizeof *h);
    h->page = page;
    h->log = FS_NONE;
    if (fs_blank(raw, HDR_SHORT(N)))
        return HDR_BLANK;
    h->type = raw[O_TYPE];
    h->seq = fs_get32(raw + O_SEQ);
    h->pages = fs_get32(raw + O_PAGES);
    if ((h->type != FS_T_DATA && h->type != FS_T_LOG) || raw[1] != 0 ||
        fs_get16(raw + O_ZERO) != 0 ||
        fs_get32(raw + O_CRC(N)) != crc_xor(raw, O_CRC(N), CRC_HDR) || h->pages < 2 ||
        h->pages > fs->pages - page || h->seq == FS_NONE)
        return HDR_GARBAGE;
    h->logn = (uint16_t)fs_get16(raw + O_LOGN);
    h->logrs = (uint16_t)fs_get16(raw + O_LOGRS);
    h->lpage = fs_get32(raw + O_LPAGE);
    h->lseq = fs_get32(raw + O_LSEQ);
    h->obsolete = raw[O_OBS(N)] != 0xFF;
    h->commit = raw[O_COMMIT(N)] != 0xFF;
    h->renamed = h->type == FS_T_DATA && raw[O_RENAMED(N)] != 0xFF;
    h->name = raw + O_NAME;
    return HDR_VALID;
}

/* The rename slot at raw + O_REN: valid (1) or torn (2); blank counts as not renamed (0). */
static void parse_ren(const struct strata_fs *fs, const uint8_t *raw, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max;
    const uint8_t *r = raw + O_REN(N);
    if (fs_blank(r, N + 16)) {
        h->renamed = 0;
    } else if (fs_get32(r + N + 12) == ren_crc(fs, r, h->page, h->seq)) {
        h->renamed = 1;
        h->name = r;
        h->rseq = fs_get32(r + N);
        h->rpage = fs_get32(r + N + 4);
        h->rpseq = fs_get32(r + N + 8);
    } else {
        h->renamed = 2;
    }
}

/* The whole header: flags, log link and rename slot. */
int fs_hdr_read(const struct strata_fs *fs, uint32_t page, uint8_t *raw, struct fs_hdr *h)
{
    int rc;
    if (page >= fs->pages)
        return HDR_GARBAGE;
    if ((rc = fs_read(fs, fs_page_u(fs, page), raw, fs->hdr)) != 0)
        return rc;
    rc = fs_hdr_parse(fs, raw, page, h);
    if (rc == HDR_VALID && h->type == FS_T_DATA) {
        h->log = link_decode(fs, raw + O_LINK(fs->cfg.name_max));
        if (h->renamed)
            parse_ren(fs, raw, h);
    }
    return rc;
}

/* What a walk needs: the CRC part and flags, plus the rename slot of a renamed file (its
 * name). h->log is not read. */
int fs_hdr_read_short(const struct strata_fs *fs, uint32_t page, uint8_t *raw, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max;
    int rc = fs_read(fs, fs_page_u(fs, page), raw, HDR_SHORT(N));
    if (rc != 0)
        return rc;
    rc = fs_hdr_parse(fs, raw, page, h);
    if (rc == HDR_VALID && h->renamed) {
        int r = fs_read(fs, fs_page_u(fs, page) + O_REN(N), raw + O_REN(N), N + 16);
        if (r != 0)
            return r;
        parse_ren(fs, raw, h);
    }
    return rc;
}

uint32_t fs_link_read(const struct strata_fs *fs, uint32_t page, int *rc)
{
    uint8_t v[8];
    *rc = fs_read(fs, fs_page_u(fs, page) + O_LINK(fs->cfg.name_max), v, 8);
    return link_decode(fs, v);
}

/* A live data file: valid (the caller checked), committed and not obsolete. */
int fs_live(const struct fs_hdr *h)
{
    return h->type == FS_T_DATA && !h->obsolete && (h->lpage == FS_NONE || h->commit);
}

/* Write the CRC-covered part of a header in one program: a cut leaves it blank or invalid. */
int fs_hdr_write(struct strata_fs *fs, uint32_t page, uint8_t type, uint32_t pages,
                 uint32_t logn, uint32_t logrs, uint32_t lpage, uint32_t lseq, const char *name,
                 uint32_t nlen)
{
    uint8_t raw[FS_HDR_MAX];
    uint32_t N = fs->cfg.name_max;
    if (fs->seq >= 0xFFFFFFF0u)
        return STRATA_ENOSPC; /* sequence numbers exhausted (after 4e9 creations) */
    memset(raw, type == FS_T_LOG ? 0xFF : 0x00, O_CRC(N));
    raw[O_TYPE] = type;
    raw[1] = 0;
    fs_put16(raw + O_ZERO, 0);
    fs_put32(raw + O_SEQ, ++fs->seq);
    fs_put32(raw + O_PAGES, pages);
    fs_put16(raw + O_LOGN, logn);
    fs_put16(raw + O_LOGRS, logrs);
    fs_put32(raw + O_LPAGE, lpage);
    fs_put32(raw + O_LSEQ, lseq);
    if (name != NULL)
        memcpy(raw + O_NAME, name, nlen);
    fs_put32(raw + O_CRC(N), crc_xor(raw, O_CRC(N), CRC_HDR));
    return fs_prog(fs, fs_page_u(fs, page), raw, O_CRC(N) + 4);
}

/* Set a one-byte flag (obsolete, commit) of the header at page. */
int fs_flag(const struct strata_fs *fs, uint32_t page, uint32_t off)
{
    return fs_zero(fs, fs_page_u(fs, page) + off, 1);
}

int fs_link_write(const struct strata_fs *fs, uint32_t page, uint32_t log)
{
    uint8_t v[8];
    fs_put32(v, log + 1);
    fs_put32(v + 4, ~(log + 1));
    return fs_prog(fs, fs_page_u(fs, page) + O_LINK(fs->cfg.name_max), v, 8);
}

int fs_ren_write(struct strata_fs *fs, const struct fs_hdr *h, const char *name, uint32_t nlen,
                 uint32_t rpage, uint32_t rpseq)
{
    uint8_t s[STRATA_FS_NAME_LIMIT + 16];
    uint32_t N = fs->cfg.name_max;
    if (fs->seq >= 0xFFFFFFF0u)
        return STRATA_ENOSPC;
    memset(s, 0, N);
    memcpy(s, name, nlen);
    fs_put32(s + N, ++fs->seq);
    fs_put32(s + N + 4, rpage);
    fs_put32(s + N + 8, rpseq);
    fs_put32(s + N + 12, ren_crc(fs, s, h->page, h->seq));
    /* the flag tells walks to read the slot; a cut after it leaves the slot blank: no rename */
    if (!h->renamed) {
        int rc = fs_flag(fs, h->page, O_RENAMED(N));
        if (rc != 0)
            return rc;
    }
    return fs_prog(fs, fs_page_u(fs, h->page) + O_REN(N), s, N + 16);
}

/* Obsolete a data extent (the commit point of a removal), then its micro log. */
int fs_obsolete(struct strata_fs *fs, uint32_t page)
{
    uint8_t raw[FS_HDR_MAX];
    struct fs_hdr h;
    uint32_t N = fs->cfg.name_max;
    int rc = fs_hdr_read(fs, page, raw, &h);
    if (rc != HDR_VALID)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    if (!h.obsolete && (rc = fs_flag(fs, page, O_OBS(N))) != 0)
        return rc;
    return h.log < FS_BAD ? fs_flag(fs, h.log, O_OBS(N)) : 0;
}

int fs_name_eq(const struct strata_fs *fs, const uint8_t *stored, const char *name, uint32_t n)
{
    return memcmp(stored, name, n) == 0 && (n == fs->cfg.name_max || stored[n] == 0);
}

/* Index entry check byte: bit 7 always 0, so an entry cut before its last byte never checks;
 * 0x5A for key 0, so the void value 00 00 00 never checks. */
uint32_t fs_entry_check(uint32_t key)
{
    return ((key & 0xFF) + 7 * (key >> 8) + 0x5A) & 0x7F;
}
