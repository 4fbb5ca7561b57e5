/*
 * strata_fs: the Coffee flash file system (Tsiftes et al., IPSN'09), crash-consistent.
 *
 * Files are contiguous page extents found first-fit, with a one-way-flag header in the first
 * page; overwrites go to a per-file micro log (configurable record size and count) that merges
 * into a fresh extent when full; a file that outgrows its reservation moves. Flat namespace,
 * names of up to `name_max` bytes. RAM: the context plus one `struct strata_fs_file` per open
 * file, whatever the file sizes; no malloc, no globals. Design: docs/fs.md; layout:
 * docs/format-fs.md (version 1).
 *
 * Devices: byte-programmable NOR and DataFlash (read/prog unit 1, bitwise programming, erase).
 * NAND, FRAM and SD are refused by mount and format with STRATA_EDEVICE.
 *
 * POWER-LOSS GUARANTEE. The unit of atomicity is one sync: write() and truncate() change the
 * file's volatile state; sync() and close() make everything since the previous commit durable
 * as one unit. Creating a file, remove, rename, reserve and configure_log are atomic and
 * durable when they return. After a power cut at any flash operation of any call except
 * format (and after further cuts during the recovery):
 *   - strata_fs_mount() succeeds and strata_fs_check() then reports no problem;
 *   - every file holds the content of its last completed commit, or — if the cut hit a commit
 *     (sync, close, or a metadata call) — the content that commit was making durable;
 *   - no other file changes, no file is lost or duplicated, a rename shows exactly the old or
 *     the new name (with the replaced target gone exactly when the new name shows);
 *   - every later operation works.
 * After any call returns STRATA_EPOWER the context is stale: remount.
 *
 * Files are limited to 16 MiB - 1 (24-bit lengths) and to 65,534 log records of their size.
 * Footprint (Cortex-M0+, -Os): 9.8 KB of text (9.1 KB built with STRATA_FS_NO_CHECK), no
 * static RAM; sizeof(struct strata_fs) 144 B, sizeof(struct strata_fs_file) 68 B; stack up to
 * 1.1 KB (docs/fs.md). Headers are built and parsed in the scratch buffer.
 *
 * Costs below use n = bytes moved, X = headers in the file system (the quick-skip search reads
 * one header per extent and one 8-byte marker per sector), P = page size.
 */
#ifndef STRATA_FS_H
#define STRATA_FS_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_FS_NAME_LIMIT 32u /* largest name_max a configuration may ask for */
#define STRATA_FS_CACHE 8u       /* open-by-name cache entries in the context */

/* open() flags (the Contiki values for the first three) */
#define STRATA_FS_READ 1u
#define STRATA_FS_WRITE 2u
#define STRATA_FS_APPEND 4u /* every write goes to the end of the file (implies WRITE) */
#define STRATA_FS_CREATE 8u /* create the file when it does not exist */
#define STRATA_FS_EXCL 16u  /* with CREATE: fail with STRATA_EEXIST when it exists */

/* seek() origins (the Contiki values) */
#define STRATA_FS_SEEK_SET 0
#define STRATA_FS_SEEK_CUR 1
#define STRATA_FS_SEEK_END 2

struct strata_fs_config {
    const struct strata_flash *flash;
    uint32_t first_unit; /* the file system uses erase units [first_unit, first_unit+unit_count) */
    uint32_t unit_count; /* 0: to the end of the device */
    uint8_t *buffer;     /* scratch for copies and log records; >= 64 bytes, one page is best */
    uint32_t buffer_size;
    uint32_t name_max;     /* 0: 16. 1..STRATA_FS_NAME_LIMIT, and 71 + 2 * name_max <= the
                              page size (a header and one slot fit a page). Fixed at format. */
    uint32_t default_size; /* data bytes reserved by open(CREATE); 0: 4096 */
    uint32_t log_size;     /* default micro log size in bytes; 0: 4 pages */
    uint32_t log_record;   /* default micro log record size; 0: one page */
    uint32_t clean_every;  /* run the wear-levelling cleaning pass every n removals; 0: never */
};

/* One open file: O(1) RAM whatever its size; owned by the caller, valid until close. */
struct strata_fs_file {
    struct strata_fs_file *next; /* the context's list of open files */
    uint32_t page, pages;        /* current extent */
    uint32_t seq;
    uint32_t base, base_seq;     /* last committed extent (== page unless moved since) */
    uint32_t cap;                /* data area in bytes (data, erased gap, length slots) */
    uint32_t len, clen;          /* length now / at the last commit */
    uint32_t clean;              /* D: offsets >= clean are erased and not logged */
    uint32_t intent;             /* offsets >= intent are erased even after a power cut */
    uint32_t pos;
    uint32_t log;                /* micro log extent's first page, or 0xFFFFFFFF */
    uint16_t log_records, log_record; /* log configuration */
    uint16_t k, kc;              /* log slots used now / at the last commit */
    uint16_t kend;               /* first blank log entry found at open */
    uint16_t slot;               /* next length slot (they grow back from the extent's end) */
    uint8_t flags, state;
};

struct strata_fs {
    struct strata_fs_config cfg;
    uint32_t pages, pps, usable;          /* geometry: pages, pages/sector, E - M; the sector
                                             count is cfg.unit_count */
    uint32_t hdr;                         /* header bytes (55 + 2 * name_max) */
    uint32_t seq;                         /* last sequence number used */
    uint32_t free_hint;                   /* first page that may be free (a header boundary) */
    uint32_t removals;                    /* for the cleaning pass */
    uint32_t gc_next;                     /* where incremental garbage collection resumes */
    struct strata_fs_file *open;
    struct {
        uint16_t hash;
        uint32_t page;
    } cache[STRATA_FS_CACHE];
    uint8_t cache_next, mounted, cleaning, tag; /* tag: configuration byte of the markers */
};

struct strata_fs_dir {
    uint32_t page; /* next page to examine */
};

struct strata_fs_stat {
    char name[STRATA_FS_NAME_LIMIT + 1];
    uint32_t size;       /* bytes (the open handle's view when the file is open) */
    uint32_t capacity;   /* size the file can reach before it must move (or merge its slots) */
    uint32_t page, pages;
    uint32_t log_records, log_record; /* micro log configuration */
    uint32_t log_used;   /* log slots used (0: no log) */
};

struct strata_fs_usage {
    uint32_t pages, free, active, obsolete; /* pages; obsolete includes torn and dirty */
    uint32_t sectors, erasable;             /* sectors with no live page and some obsolete */
    uint32_t files, logs;
};

struct strata_fs_report {
    uint32_t files, logs, garbage_pages, dirty_sectors;
    uint32_t problems;   /* invariant violations: 0 on a healthy file system */
    uint32_t repaired;
    const char *first;   /* the first problem, or NULL */
    uint32_t first_page; /* where (0xFFFFFFFF: not one extent) */
};

/* Erase the range and write sector markers. Not power-safe. Cost: one erase and two small
 * programs per sector. The context is left unmounted. */
int strata_fs_format(struct strata_fs *fs, const struct strata_fs_config *cfg);

/* Check the device and configuration, find the highest sequence number and the first free
 * page, and finish any operation a power cut interrupted (mount repair). Cost: one walk of all
 * headers (X reads) plus one header read per cross-reference (a copy's original, a rename's
 * target, a log's owner); programs only when repairing. STRATA_EUNFORMATTED
 * when no sector carries a marker, STRATA_EVERSION for another format version, STRATA_EINVAL
 * for a different name length or page size, STRATA_EDEVICE for NAND/FRAM/SD. */
int strata_fs_mount(struct strata_fs *fs, const struct strata_fs_config *cfg);
/* Close every open file (syncing it) and forget the device. */
int strata_fs_unmount(struct strata_fs *fs);

/* Open (and with CREATE, create) a file. A file may be open through one handle at a time
 * (STRATA_EBUSY). Cost: cache hit 1 header read, else the quick-skip search (<= X header
 * reads of 31 + name_max bytes); the log link; a galloping search over the length slots
 * (2 log2 of their count reads of 8 bytes); with a log, a binary search of its index. Creation
 * adds the allocation search (from the first free page: usually one header read), a program
 * per sector the extent runs into, and the header program (GC when full). Power-safe: creation
 * is atomic. */
int strata_fs_open(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                   unsigned flags);
/* Sync, then forget the handle. */
int strata_fs_close(struct strata_fs *fs, struct strata_fs_file *f);

/* Read up to n bytes at the position; returns the count (0 at end of file). Cost: one read per
 * contiguous piece; with a micro log, one index scan (<= 3 bytes per used slot) per record. */
int32_t strata_fs_read(struct strata_fs *fs, struct strata_fs_file *f, void *buf, uint32_t n);
/* Write n bytes at the position (at the end with APPEND); returns n or an error. Appends are
 * programmed in place (one program per page touched, plus an 8-byte intent slot about every
 * time the uncommitted data doubles); other writes read-modify-write one log record each
 * (the record + a 3-byte entry; reading the record's other bytes scans the index once, 4
 * bytes per entry). A full log merges (a copy of the file with the write folded in), a full
 * extent relocates to one twice as large (copy). Allocation may collect garbage (an erase per
 * sector it frees, a few at a time). Not durable until sync. */
int32_t strata_fs_write(struct strata_fs *fs, struct strata_fs_file *f, const void *buf,
                        uint32_t n);
/* Set the position; it must stay within [0, size]. Returns it. No flash access. */
int32_t strata_fs_seek(struct strata_fs *fs, struct strata_fs_file *f, int32_t off, int whence);
/* Commit everything written: one byte (a commit mark on the last log entry) when only log
 * records changed, else one 8-byte length slot; after a merge or relocation, also a commit
 * flag and two obsolete flags. Power-safe: the commit is atomic. */
int strata_fs_sync(struct strata_fs *fs, struct strata_fs_file *f);
/* Shrink the file to size bytes (<= its size). No flash access; committed by the next sync. */
int strata_fs_truncate(struct strata_fs *fs, struct strata_fs_file *f, uint32_t size);

/* Remove a closed file: one flag program (the commit point), one more for its log; every
 * clean_every removals also the cleaning pass. Power-safe. */
int strata_fs_remove(struct strata_fs *fs, const char *name);
/* Rename a closed file, atomically replacing a closed target of the new name. Cost: two
 * lookups, the renamed flag and one rename slot program, the target's flag (and its log's); a
 * file renamed before is copied first. Power-safe. */
int strata_fs_rename(struct strata_fs *fs, const char *from, const char *to);
/* Create an empty file with room for size data bytes (STRATA_EEXIST if it exists). */
int strata_fs_reserve(struct strata_fs *fs, const char *name, uint32_t size);
/* Set the micro log of a file: log_size bytes of records of record_size bytes. Creates the
 * file when missing; an existing closed file is copied to a new extent with the new
 * configuration (its log merged). Power-safe. */
int strata_fs_configure_log(struct strata_fs *fs, const char *name, uint32_t log_size,
                            uint32_t record_size);
/* Facts about a file. Cost: the search plus the length-slot search. */
int strata_fs_stat(struct strata_fs *fs, const char *name, struct strata_fs_stat *st);

/* Directory listing: one entry per live file, in flash order. readdir returns 1 with an entry,
 * 0 at the end, or an error. Cost: the quick-skip walk, one length search per file. */
int strata_fs_opendir(struct strata_fs *fs, struct strata_fs_dir *d);
int strata_fs_readdir(struct strata_fs *fs, struct strata_fs_dir *d, struct strata_fs_stat *st);
int strata_fs_closedir(struct strata_fs *fs, struct strata_fs_dir *d);

/* Free, live and obsolete pages. Cost: one walk. */
int strata_fs_df(struct strata_fs *fs, struct strata_fs_usage *u);
/* fsck: walk everything and check every invariant of docs/format-fs.md; with repair, obsolete
 * what is unreachable or duplicated (never touching live data). Returns the number of problems
 * found (0 = clean) or an error. Cost: two walks plus per-file metadata reads and a lookup of
 * each file's name. Left out of a library built with STRATA_FS_NO_CHECK (mount still repairs
 * everything a power cut can leave; 0.7 KB of text less on Cortex-M0+). */
int strata_fs_check(struct strata_fs *fs, int repair, struct strata_fs_report *r);

/* Run garbage collection now over the whole device (it otherwise runs when an allocation
 * fails, erasing only as many sectors as the allocation needs, round robin). Returns the
 * number of sectors erased. Cost: one walk, per erased sector one erase and two 4-byte
 * programs. Power-safe: a cut leaves the sector dirty, erased again later. */
int strata_fs_gc(struct strata_fs *fs);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_FS_H */
