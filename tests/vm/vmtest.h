/* Helpers of the strata_vm tests: sector devices (a RAM one, a fault-injecting shim over any
 * other, and the library's backends on simulated devices), the flat-array model, and the random
 * access traces checked against it. */
#ifndef STRATA_VMTEST_H
#define STRATA_VMTEST_H

#include "strata/fs.h"
#include "strata/ftl.h"
#include "strata/vm.h"
#include "testsupport.h"

/* ---- a sector device in RAM ------------------------------------------------------------------ */

struct vt_ramdev {
    struct strata_sector_dev dev;
    uint8_t *mem;
    uint32_t reads, writes, syncs;
};
void vt_ramdev_init(struct vt_ramdev *r, uint32_t sectors, uint32_t sector_size);
void vt_ramdev_free(struct vt_ramdev *r);

/* ---- a shim over any sector device: counts, fails on demand, reports every write ------------ */

struct vt_shim {
    struct strata_sector_dev dev; /* what the vm is given */
    struct strata_sector_dev inner;
    uint32_t reads, writes, syncs;
    uint32_t fail_read, fail_write, fail_sync; /* fail the n-th call from now (1 = the next) */
    int fail_rc;
    /* Called before every write is passed on (the test's record of what may be in a sector). */
    void (*on_write)(void *arg, uint32_t sector, const void *buf);
    void *arg;
};
void vt_shim_init(struct vt_shim *s, const struct strata_sector_dev *inner);

/* ---- backends ------------------------------------------------------------------------------- */

enum vt_kind {
    VT_RAM,            /* vt_ramdev, any sector size */
    VT_FTL_VOLATILE,   /* strata_ftl on k9f1g08, 2 KiB sectors */
    VT_FTL_SHRINK,     /* strata_ftl volatile with shrink: 512-B sectors */
    VT_FTL_PERSISTENT, /* strata_ftl persistent, 2 KiB sectors */
    VT_SD,             /* strata_ftl_managed_dev on sd-spi, 512-B sectors */
    VT_FILE            /* strata_vm_file_dev on a strata_fs file on w25q128 */
};
const char *vt_kind_name(enum vt_kind k);

struct vt_backend {
    enum vt_kind kind;
    struct strata_sector_dev dev;
    struct vt_ramdev ram;
    struct strata_sim *sim;
    struct strata_ftl ftl;
    struct strata_ftl_config ftl_cfg;
    uint32_t *ftl_ram;
    struct strata_ftl_managed managed;
    struct strata_fs fs;
    struct strata_fs_config fs_cfg;
    struct strata_fs_file file;
    uint8_t fs_buf[256];
    struct strata_vm_file fd;
};
/* A backend of at least `bytes` bytes (VT_RAM: of sectors of `sector_size`; the others choose
 * their own sector size). Fails the test on error. */
void vt_backend_open(struct vt_backend *b, enum vt_kind kind, uint32_t bytes, uint32_t sector_size,
                     uint64_t seed);
/* The backend on a given sim (a power-cut campaign's): formatted when format is 1, else mounted
 * as after a reboot. Returns the backend's result (STRATA_EPOWER when power fails). */
int vt_backend_attach(struct vt_backend *b, enum vt_kind kind, uint32_t bytes,
                      struct strata_sim *sim, int format);
/* The simulated device (profile and erase units) a backend kind of `bytes` uses. */
const char *vt_sim_profile(enum vt_kind kind, uint32_t bytes, uint32_t *units);
/* After a reboot of the sim (persistent kinds): mount again and rebuild dev. Returns the mount's
 * result (fs: the file's open). */
int vt_backend_remount(struct vt_backend *b);
void vt_backend_close(struct vt_backend *b);

/* ---- a vm with its RAM ---------------------------------------------------------------------- */

struct vt_vm {
    struct strata_vm vm;
    struct strata_vm_config cfg;
    uint8_t *ram;      /* cfg.ram with guard bytes either side */
    uint32_t ram_size;
};
/* Mount a vm of `blocks` blocks on dev; fails the test on error. size 0: the whole device. */
void vt_vm_open(struct vt_vm *v, const struct strata_sector_dev *dev, uint32_t block_size,
                uint32_t blocks, uint8_t scheme, uint32_t size);
/* Check the guard bytes around the vm's RAM are untouched, and free it. */
void vt_vm_close(struct vt_vm *v);

/* ---- the model and random traces ------------------------------------------------------------ */

struct vt_model {
    uint8_t *bytes; /* what every virtual address must read */
    uint32_t size;
};
void vt_model_init(struct vt_model *m, uint32_t size);
void vt_model_free(struct vt_model *m);
/* The model starts as what the vm reads before any write: the backend's bytes. */
void vt_model_load(struct vt_model *m, const struct strata_sector_dev *dev, uint32_t first_sector);

/* Compare the whole virtual space (copy_out) with the model. */
void vt_check_all(struct strata_vm *vm, const struct vt_model *m);
/* Compare the backend's sectors with the model (after a flush). */
void vt_check_backend(const struct strata_sector_dev *dev, uint32_t first_sector,
                      const struct vt_model *m);

struct vt_trace {
    uint32_t ops;      /* operations to run */
    uint32_t lcbs;     /* access sites (LCBs) to spread accesses over, 1 .. 16 */
    int pins;          /* use pin/unpin (needs >= 3 blocks) */
    int flushes;       /* flush now and then, and check the backend */
    int discards;      /* discard after some flushes */
    uint64_t seed;
};
/* Random accesses of every kind (scalar, struct, crossing, value-style, universal pointers, bulk,
 * span, pin) with locality, each read compared with the model, each write applied to it. */
void vt_run_trace(struct strata_vm *vm, struct vt_model *m, const struct strata_sector_dev *dev,
                  const struct vt_trace *t);

#endif
