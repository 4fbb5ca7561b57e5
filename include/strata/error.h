/*
 * Strata error codes, shared by every module.
 *
 * Every call returns 0 (or a non-negative count) on success and one of these negative codes on
 * failure. strata_strerror() gives a short English description; it never returns NULL.
 */
#ifndef STRATA_ERROR_H
#define STRATA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum strata_error {
    STRATA_OK = 0,
    STRATA_EINVAL = -1,        /* bad argument: NULL, out of range, misaligned, bad config */
    STRATA_EIO = -2,           /* the device reported a failure (program/erase status, worn unit) */
    STRATA_ECORRUPT = -3,      /* stored data fails its checksum or violates its format */
    STRATA_ENOSPC = -4,        /* no free space left */
    STRATA_ENOENT = -5,        /* no such file, key or record */
    STRATA_EEXIST = -6,        /* already exists */
    STRATA_EPOWER = -7,        /* power was lost (simulator): nothing works until reboot */
    STRATA_EVIOLATION = -8,    /* a rule of the medium was broken (simulator): a bug in the caller */
    STRATA_EDEVICE = -9,       /* the device lacks a capability this call or module needs */
    STRATA_EBADF = -10,        /* handle not open, or opened without the needed access */
    STRATA_ENAMETOOLONG = -11, /* name longer than configured */
    STRATA_EBUSY = -12,        /* object in use (e.g. file open elsewhere) */
    STRATA_ENOMEM = -13,       /* a caller-supplied buffer or table is too small */
    STRATA_EUNFORMATTED = -14, /* no store found on the medium: format it first */
    STRATA_EVERSION = -15,     /* on-flash format version not supported by this build */
    STRATA_EBADBLOCK = -16,    /* the block is bad (NAND) */
    STRATA_EECC = -17          /* more bit errors than the ECC corrects: the data is lost */
};

/* Short description of an error code; unknown codes give "unknown error". */
const char *strata_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_ERROR_H */
