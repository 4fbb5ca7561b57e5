/*
 * The flash contract: the one interface every Strata engine uses to reach storage.
 *
 * A device is a `struct strata_flash`: its geometry, its capability flags and a table of operations.
 * A port for a real chip fills these in (see README, "Porting"); on the host the simulator does.
 * Engines call the inline wrappers below (never `ops` directly): they check bounds and alignment
 * and return STRATA_EINVAL before anything reaches the device.
 *
 * Addresses are byte offsets into the main (data) area, 0 .. erase_size * erase_count - 1; the
 * whole device must fit in 32 bits. Spare (OOB) bytes are reached only through the page calls.
 *
 * Cost of each wrapper: one device operation, no RAM beyond the caller's buffers. Power-loss
 * behaviour is the medium's: a program or erase cut by power loss may leave its range torn
 * (partly programmed / partly erased), which is what every engine must survive.
 */
#ifndef STRATA_FLASH_H
#define STRATA_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include "strata/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- capability flags ------------------------------------------------------------------------ */

/* Programming is a bitwise AND: bytes already programmed may be programmed again as long as no
 * bit goes from 0 to 1 (NOR, DataFlash, MCU flash). Without it, a byte is programmed once per
 * erase. */
#define STRATA_FLASH_CAP_BITWISE_PROGRAM (1u << 0)
/* Pages inside an erase unit must be programmed in ascending order (NAND). */
#define STRATA_FLASH_CAP_INORDER_PAGES (1u << 1)
/* The erase unit is a single page (DataFlash page erase). */
#define STRATA_FLASH_CAP_PAGE_ERASE (1u << 2)
/* There is no erase: program overwrites in place (SD behind an FTL, FRAM). erase() is refused. */
#define STRATA_FLASH_CAP_NO_ERASE (1u << 3)
/* Blocks may be bad from the factory or go bad in use; check is_bad() before use (NAND). */
#define STRATA_FLASH_CAP_BAD_BLOCKS (1u << 4)
/* Pages have a spare (OOB) area reached through page_read()/page_prog(). */
#define STRATA_FLASH_CAP_SPARE (1u << 5)
/* Reads may return flipped bits: the engine must protect data with ECC or checksums (NAND). */
#define STRATA_FLASH_CAP_READ_ERRORS (1u << 6)

/* ---- geometry -------------------------------------------------------------------------------- */

struct strata_flash_geometry {
    uint32_t read_size;   /* read unit: read() address and length are multiples of it */
    uint32_t prog_size;   /* program unit: prog() address and length are multiples of it */
    uint32_t page_size;   /* device page: the spare area is per page; one device program never
                             spans pages (prog() over several pages is several device programs) */
    uint32_t erase_size;  /* erase unit (sector / block / page) in bytes, a multiple of page_size */
    uint32_t erase_count; /* number of erase units */
    uint32_t spare_size;  /* spare (OOB) bytes per page, 0 if none */
    uint32_t nop;         /* programs allowed per page between erases (NAND NOP); 0 = unlimited */
};

struct strata_flash;

/* Operations a port implements. Every function returns 0 or a negative STRATA_E... code.
 * Optional entries may be NULL; the wrappers then answer as documented below. */
struct strata_flash_ops {
    int (*read)(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len);
    int (*prog)(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len);
    int (*erase)(const struct strata_flash *f, uint32_t unit);
    /* NAND (CAP_SPARE): whole page and/or its spare; either pointer may be NULL (not transferred). */
    int (*page_read)(const struct strata_flash *f, uint32_t page, void *data, void *spare);
    int (*page_prog)(const struct strata_flash *f, uint32_t page, const void *data,
                     const void *spare);
    /* NAND (CAP_BAD_BLOCKS): is_bad returns 1 if bad, 0 if good, or an error. */
    int (*is_bad)(const struct strata_flash *f, uint32_t unit);
    int (*mark_bad)(const struct strata_flash *f, uint32_t unit);
    /* Optional: wait until everything issued is durable. */
    int (*sync)(const struct strata_flash *f);
};

struct strata_flash {
    const struct strata_flash_ops *ops;
    void *ctx; /* the port's own state */
    struct strata_flash_geometry geo;
    uint32_t caps; /* STRATA_FLASH_CAP_... */
};

/* ---- checked wrappers ------------------------------------------------------------------------ */

/* Total bytes in the main area. */
static inline uint32_t strata_flash_size(const struct strata_flash *f)
{
    return f->geo.erase_size * f->geo.erase_count;
}

static inline int strata_flash_has(const struct strata_flash *f, uint32_t caps)
{
    return (f->caps & caps) == caps;
}

/* True when [addr, addr+len) lies inside the device and both ends are multiples of `unit`. */
static inline int strata_flash_range_ok_(const struct strata_flash *f, uint32_t addr, uint32_t len,
                                         uint32_t unit)
{
    uint32_t size = strata_flash_size(f);
    if (unit == 0 || addr % unit != 0 || len % unit != 0)
        return 0;
    return addr <= size && len <= size - addr;
}

/* Read len bytes at addr. Cost: one device read. */
static inline int strata_flash_read(const struct strata_flash *f, uint32_t addr, void *buf,
                                    uint32_t len)
{
    if (f == NULL || f->ops == NULL || f->ops->read == NULL || (buf == NULL && len != 0))
        return STRATA_EINVAL;
    if (!strata_flash_range_ok_(f, addr, len, f->geo.read_size))
        return STRATA_EINVAL;
    return len == 0 ? 0 : f->ops->read(f, addr, buf, len);
}

/* Program len bytes at addr. Cost: one device program per page touched. Not atomic: a power cut
 * leaves a prefix programmed and the next byte (NOR) or page (NAND) torn. */
static inline int strata_flash_prog(const struct strata_flash *f, uint32_t addr, const void *buf,
                                    uint32_t len)
{
    if (f == NULL || f->ops == NULL || f->ops->prog == NULL || (buf == NULL && len != 0))
        return STRATA_EINVAL;
    if (!strata_flash_range_ok_(f, addr, len, f->geo.prog_size))
        return STRATA_EINVAL;
    return len == 0 ? 0 : f->ops->prog(f, addr, buf, len);
}

/* Erase one erase unit (all bytes become 0xFF). Not atomic: a cut leaves it partly erased.
 * STRATA_EDEVICE on media without erase. */
static inline int strata_flash_erase(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL)
        return STRATA_EINVAL;
    if ((f->caps & STRATA_FLASH_CAP_NO_ERASE) || f->ops->erase == NULL)
        return STRATA_EDEVICE;
    if (unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    return f->ops->erase(f, unit);
}

static inline uint32_t strata_flash_page_count(const struct strata_flash *f)
{
    return strata_flash_size(f) / f->geo.page_size;
}

/* Read a whole page's data (page_size bytes) and/or spare (spare_size bytes). */
static inline int strata_flash_page_read(const struct strata_flash *f, uint32_t page, void *data,
                                         void *spare)
{
    if (f == NULL || f->ops == NULL || (data == NULL && spare == NULL))
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_SPARE) || f->ops->page_read == NULL)
        return STRATA_EDEVICE;
    if (page >= strata_flash_page_count(f))
        return STRATA_EINVAL;
    return f->ops->page_read(f, page, data, spare);
}

/* Program a page's data and/or spare in one device program (counts once against NOP). */
static inline int strata_flash_page_prog(const struct strata_flash *f, uint32_t page,
                                         const void *data, const void *spare)
{
    if (f == NULL || f->ops == NULL || (data == NULL && spare == NULL))
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_SPARE) || f->ops->page_prog == NULL)
        return STRATA_EDEVICE;
    if (page >= strata_flash_page_count(f))
        return STRATA_EINVAL;
    return f->ops->page_prog(f, page, data, spare);
}

/* 1 if the unit is bad, 0 if good. Media without bad blocks always answer 0. */
static inline int strata_flash_is_bad(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL || unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_BAD_BLOCKS) || f->ops->is_bad == NULL)
        return 0;
    return f->ops->is_bad(f, unit);
}

/* Mark a unit bad (after a program/erase failure). After this, only is_bad() may touch it. */
static inline int strata_flash_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL || unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_BAD_BLOCKS) || f->ops->mark_bad == NULL)
        return STRATA_EDEVICE;
    return f->ops->mark_bad(f, unit);
}

/* Wait until everything issued is durable; 0 at once when the port has nothing to wait for. */
static inline int strata_flash_sync(const struct strata_flash *f)
{
    if (f == NULL || f->ops == NULL)
        return STRATA_EINVAL;
    return f->ops->sync == NULL ? 0 : f->ops->sync(f);
}

/* Check a device description is self-consistent (units non-zero, erase unit a multiple of the
 * page, page a multiple of the program and read units, size within 32 bits). Engines call it at
 * mount before trusting the geometry. */
int strata_flash_validate(const struct strata_flash *f);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_FLASH_H */
