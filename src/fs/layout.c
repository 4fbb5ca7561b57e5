/*
 * Extent headers and their one-way fields (docs/format-fs.md).
 *
 * Every field written after the header reads, whatever a power cut or a single damaged byte
 * leaves, as its old value or its new value (links and the marker's first-page field: or as
 * unusable); never as a different valid value:
 *   - the state (4 bytes): new FF FF FF FF, sealed 0F 0F 0F 0F, obsolete 00 00 00 00, decided by
 *     three bytes of four, so one damaged byte changes nothing and a torn write reads as either
 *     state;
 *   - links and the first-page field (dual values): v, ~v, v, ~v; either whole copy gives the
 *     value and a copy still blank means "not written", so one damaged byte changes nothing,
 *     and a torn write never yields a whole copy of another value (a tear leaves bits at 1 that
 *     should be 0, which a value and its complement cannot both hide). A field that reads as
 *     not written but is not blank is never programmed over: the program check refuses it.
 * Headers are read and built in the scratch buffer; a parsed header's name points there and is
 * valid until the buffer is used again.
 */
#include "fs_internal.h"

int fs_state_of(const uint8_t *s)
{
    uint32_t i, zero = 0, sealed = 0;
    for (i = 0; i < 4; i++) {
        zero += s[i] == 0;
        sealed += s[i] <= FS_SEAL_BYTE;
    }
    return zero >= 3 ? HS_OBSOLETE : sealed >= 3 ? HS_SEALED : HS_NEW;
}

static uint32_t get_le(const uint8_t *p, uint32_t width)
{
    return width == 4 ? strata_get_le32(p) : strata_get_le16(p);
}

/* Either whole copy gives the value; a copy still blank means the write never happened (a cut
 * leaving it blank, or one damaged byte in the other); FS_BAD when both are torn. */
uint32_t fs_dual_get(const uint8_t *p, uint32_t width)
{
    uint32_t mask = width == 4 ? 0xFFFFFFFFu : 0xFFFFu, i;
    for (i = 0; i < 4 * width; i += 2 * width) {
        uint32_t v = get_le(p + i, width);
        if ((v ^ get_le(p + i + width, width)) == mask)
            return v;
    }
    return fs_blank(p, 2 * width) || fs_blank(p + 2 * width, 2 * width) ? FS_NONE : FS_BAD;
}

void fs_dual_put(uint8_t *p, uint32_t v, uint32_t width)
{
    uint32_t i;
    for (i = 0; i < 4 * width; i++)
        p[i] = (uint8_t)(((i / width) & 1 ? ~v : v) >> (8 * (i % width)));
}

/* The link at header offset `off` (O_LOG or O_NEXT) into *to: a page, FS_NONE or FS_BAD. A
 * link naming a page outside the region is damage (a dual value can read whole and wrong when
 * more than one byte changed): FS_BAD, never an address to use (fuzz finding FS-12). */
int fs_link(struct strata_fs *fs, uint32_t page, uint32_t off, uint32_t *to)
{
    uint8_t b[16];
    int rc = fs_read(fs, fs_page_u(fs, page) + off, b, 16);
    *to = fs_dual_get(b, 4);
    if (*to < FS_BAD && *to >= fs->pages)
        *to = FS_BAD;
    return rc;
}

int fs_link_write(struct strata_fs *fs, uint32_t page, uint32_t off, uint32_t target)
{
    uint8_t b[16];
    fs_dual_put(b, target, 4);
    return fs_prog(fs, fs_page_u(fs, page) + off, b, 16);
}

/* Read and parse the header at page: the CRC part and the state (what a walk reads). */
int fs_hdr_read(struct strata_fs *fs, uint32_t page, struct fs_hdr *h)
{
    uint32_t N = fs->cfg.name_max, i, t;
    uint8_t *raw = fs->cfg.buffer;
    int rc;
    memset(h, 0, sizeof *h);
    h->page = page;
    if (page >= fs->pages)
        return HDR_GARBAGE;
    if ((rc = fs_read(fs, fs_page_u(fs, page), raw, HDR_WALKED(N))) != 0)
        return rc;
    if (fs_blank(raw, HDR_WALKED(N)))
        return HDR_BLANK;
    for (i = 0; i < HF_COUNT; i++)
        h->f[i] = strata_get_le32(raw + O_FIELDS + 4 * i);
    t = strata_get_le32(raw); /* type, then three zero bytes */
    h->type = raw[0];
    h->state = (uint8_t)fs_state_of(raw + O_STATE(N));
    h->name = raw + O_NAME;
    return (t == FS_T_DATA || t == FS_T_LOG || t == FS_T_CONT) &&
                   strata_get_le32(raw + O_CRC(N)) ==
                       (strata_crc32(0, raw, (size_t)O_CRC(N)) ^ CRC_HDR) &&
                   h->f[HF_PAGES] != 0 && h->f[HF_PAGES] <= fs->pages - page &&
                   h->f[HF_SEQ] != FS_NONE
               ? HDR_VALID
               : HDR_GARBAGE;
}

/* A live data file: valid (the caller checked) and not obsolete. */
int fs_live(const struct fs_hdr *h)
{
    return h->type == FS_T_DATA && h->state != HS_OBSOLETE;
}

/* Write the header h describes at h->page in one program (a cut leaves it blank or invalid),
 * giving it the next sequence number, then seal it (a header that reads invalid while sealed was
 * damaged, not torn). A data extent's name is `name` (NUL-terminated), or with NULL the name of
 * the extent it supersedes (a copy); other extents have none. */
int fs_hdr_write(struct strata_fs *fs, struct fs_hdr *h, const char *name)
{
    uint32_t N = fs->cfg.name_max, i;
    uint8_t *raw = fs->cfg.buffer;
    struct fs_hdr o;
    int rc = HDR_VALID;
    if (fs->seq >= 0xFFFFFFF0u)
        return STRATA_ENOSPC; /* sequence numbers exhausted (after 4e9 creations) */
    if (name != NULL || h->type != FS_T_DATA) {
        memset(raw + O_NAME, h->type == FS_T_DATA ? 0x00 : 0xFF, (size_t)N);
        if (name != NULL)
            strncpy((char *)raw + O_NAME, name, (size_t)N);
    } else if ((rc = fs_hdr_read(fs, h->f[HF_OWNER], &o)) != HDR_VALID) {
        return rc < 0 ? rc : STRATA_ECORRUPT; /* else its name is in place in raw */
    }
    h->f[HF_SEQ] = ++fs->seq;
    strata_put_le32(raw, h->type);
    for (i = 0; i < HF_COUNT; i++)
        strata_put_le32(raw + O_FIELDS + 4 * i, h->f[i]);
    strata_put_le32(raw + O_CRC(N), strata_crc32(0, raw, (size_t)O_CRC(N)) ^ CRC_HDR);
    if ((rc = fs_prog(fs, fs_page_u(fs, h->page), raw, O_CRC(N) + 4)) != 0)
        return rc;
    h->name = raw + O_NAME; /* the seal below leaves the scratch buffer alone */
    h->state = HS_SEALED;
    return fs_set_state(fs, h->page, FS_SEAL_BYTE);
}

/* Seal (FS_SEAL_BYTE) or obsolete (0) the extent at page. */
int fs_set_state(struct strata_fs *fs, uint32_t page, uint32_t byte)
{
    uint8_t s[4];
    memset(s, (int)byte, 4);
    return fs_prog_over(fs, fs_page_u(fs, page) + O_STATE(fs->cfg.name_max), s, 4);
}

/* Obsolete an extent (the commit point of a removal), then everything it links: its micro log
 * and its continuations, in chain order (a cut part way leaves orphans mount obsoletes). */
int fs_obsolete(struct strata_fs *fs, uint32_t page)
{
    uint32_t N = fs->cfg.name_max, log;
    int rc = fs_link(fs, page, O_LOG(N), &log);
    while (rc == 0 && (rc = fs_set_state(fs, page, 0)) == 0) {
        if (log < FS_BAD)
            rc = fs_set_state(fs, log, 0);
        log = FS_NONE;
        if (rc == 0 && (rc = fs_link(fs, page, O_NEXT(N), &page)) == 0 && page >= FS_BAD)
            break;
    }
    return rc;
}
