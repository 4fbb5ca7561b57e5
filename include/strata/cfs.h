/*
 * Contiki CFS / Coffee compatibility: the cfs_* calls of Contiki's cfs.h and cfs-coffee.h as
 * static inline wrappers over strata_fs, for programs written against Contiki.
 *
 * The library keeps no globals, so the application defines the state the shim uses:
 *
 *     struct strata_fs *strata_cfs_fs;                          (mounted by the application)
 *     struct strata_fs_file strata_cfs_files[STRATA_CFS_MAX_OPEN];  (zero-initialised)
 *
 * File descriptors index strata_cfs_files. Semantics follow Contiki's cfs.h with strata_fs's
 * guarantee: CFS_WRITE and CFS_APPEND create a missing file; without CFS_APPEND writes start at
 * offset 0 and overwrite (the file is not truncated); cfs_close commits (strata_fs_sync) — a
 * power cut before it leaves the file as at its previous close. Errors are -1, as in Contiki;
 * the strata_fs call behind each wrapper tells the reason when needed. Directories are flat:
 * cfs_opendir ignores its name. Costs and power-loss safety: those of the strata_fs calls.
 */
#ifndef STRATA_CFS_H
#define STRATA_CFS_H

#include "strata/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STRATA_CFS_MAX_OPEN
#define STRATA_CFS_MAX_OPEN 4
#endif

#define CFS_READ 1
#define CFS_WRITE 2
#define CFS_APPEND 4
#define CFS_SEEK_SET 0
#define CFS_SEEK_CUR 1
#define CFS_SEEK_END 2

typedef int32_t cfs_offset_t;

struct cfs_dir {
    struct strata_fs_dir d;
};

struct cfs_dirent {
    char name[STRATA_FS_NAME_LIMIT + 1];
    cfs_offset_t size;
};

extern struct strata_fs *strata_cfs_fs;
extern struct strata_fs_file strata_cfs_files[STRATA_CFS_MAX_OPEN];

/* The descriptor's file, or NULL when fd is not an open descriptor (flags 0 = free). */
static inline struct strata_fs_file *strata_cfs_file(int fd)
{
    return fd >= 0 && fd < STRATA_CFS_MAX_OPEN && strata_cfs_files[fd].flags != 0
               ? &strata_cfs_files[fd]
               : (struct strata_fs_file *)0;
}

static inline int cfs_open(const char *name, int flags)
{
    unsigned fl = 0;
    int fd;
    if (flags & CFS_READ)
        fl |= STRATA_FS_READ;
    if (flags & CFS_WRITE)
        fl |= STRATA_FS_WRITE | STRATA_FS_CREATE;
    if (flags & CFS_APPEND)
        fl |= STRATA_FS_APPEND | STRATA_FS_CREATE;
    for (fd = 0; fd < STRATA_CFS_MAX_OPEN; fd++)
        if (strata_cfs_files[fd].flags == 0)
            return strata_fs_open(strata_cfs_fs, &strata_cfs_files[fd], name, fl) == 0 ? fd
                                                                                       : -1;
    return -1;
}

static inline void cfs_close(int fd)
{
    struct strata_fs_file *f = strata_cfs_file(fd);
    if (f != (struct strata_fs_file *)0) {
        strata_fs_close(strata_cfs_fs, f);
        f->flags = 0;
    }
}

static inline int cfs_read(int fd, void *buf, unsigned size)
{
    struct strata_fs_file *f = strata_cfs_file(fd);
    int32_t n = f ? strata_fs_read(strata_cfs_fs, f, buf, size) : -1;
    return n < 0 ? -1 : (int)n;
}

static inline int cfs_write(int fd, const void *buf, unsigned size)
{
    struct strata_fs_file *f = strata_cfs_file(fd);
    int32_t n = f ? strata_fs_write(strata_cfs_fs, f, buf, size) : -1;
    return n < 0 ? -1 : (int)n;
}

static inline cfs_offset_t cfs_seek(int fd, cfs_offset_t offset, int whence)
{
    struct strata_fs_file *f = strata_cfs_file(fd);
    int32_t at = f ? strata_fs_seek(strata_cfs_fs, f, offset, whence) : -1;
    return at < 0 ? -1 : at;
}

static inline int cfs_remove(const char *name)
{
    return strata_fs_remove(strata_cfs_fs, name) == 0 ? 0 : -1;
}

static inline int cfs_opendir(struct cfs_dir *dirp, const char *name)
{
    (void)name;
    return strata_fs_opendir(strata_cfs_fs, &dirp->d) == 0 ? 0 : -1;
}

static inline int cfs_readdir(struct cfs_dir *dirp, struct cfs_dirent *dirent)
{
    struct strata_fs_stat st;
    unsigned i;
    if (strata_fs_readdir(strata_cfs_fs, &dirp->d, &st) != 1)
        return -1;
    for (i = 0; i < sizeof dirent->name; i++)
        dirent->name[i] = st.name[i];
    dirent->size = (cfs_offset_t)st.size;
    return 0;
}

static inline void cfs_closedir(struct cfs_dir *dirp)
{
    strata_fs_closedir(strata_cfs_fs, &dirp->d);
}

/* Coffee's additions. */
static inline int cfs_coffee_reserve(const char *name, cfs_offset_t size)
{
    return size >= 0 && strata_fs_reserve(strata_cfs_fs, name, (uint32_t)size) == 0 ? 0 : -1;
}

static inline int cfs_coffee_configure_log(const char *file, unsigned log_size,
                                           unsigned log_entry_size)
{
    return strata_fs_configure_log(strata_cfs_fs, file, log_size, log_entry_size) == 0 ? 0 : -1;
}

/* Format with the mounted configuration and mount again (open descriptors are closed first,
 * as unmount does). */
static inline int cfs_coffee_format(void)
{
    struct strata_fs_config cfg = strata_cfs_fs->cfg;
    return strata_fs_unmount(strata_cfs_fs) == 0 && strata_fs_format(strata_cfs_fs, &cfg) == 0 &&
                   strata_fs_mount(strata_cfs_fs, &cfg) == 0
               ? 0
               : -1;
}

#ifdef __cplusplus
}
#endif

#endif /* STRATA_CFS_H */
