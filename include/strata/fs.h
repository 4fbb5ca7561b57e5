/*
 * strata_fs: the Coffee flash file system (Tsiftes et al., IPSN'09), crash-consistent.
 *
 * Files are contiguous page extents found first-fit, with a header in the first page; overwrites
 * go to a per-file micro log (configurable record size and count) that merges into a fresh
 * extent when full; a file that outgrows its extent continues in another one, linked from it
 * (no copy). Flat namespace, names of up to `name_max` bytes. RAM: the context plus one
 * `struct strata_fs_file` per open file, whatever the file sizes (plus its write-back buffer
 * when the caller gives one); no malloc, no globals. Design: docs/fs.md; layout:
 * docs/format-fs.md (version 2).
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
 * Every program is checked against what the flash holds first: bytes that should be erased but
 * are not (a cut, damage) are never programmed over. The one exception skips nothing real: where
 * this context erased the flash and has not programmed since (its own format followed by a mount
 * of the same range, or a sector its garbage collection erased), the read is left out. A
 * checked program ends at the last byte it changes and is not made when it changes none (a
 * no-op on NOR that an MCU flash still counts against its row-time limit), and nothing is ever
 * read or programmed outside the configured region (an address from damaged metadata:
 * STRATA_ECORRUPT).
 *
 * DAMAGE. Every metadata byte is covered: one damaged byte of a closed file's metadata either
 * changes nothing (the fields written after a header are kept twice or decided by three bytes
 * of four, and close writes the last length slot twice) or is reported by strata_fs_check().
 * File data is not checked (as in littlefs). The one exception: the newest commit of a file that
 * was never closed since reads, when damaged, as a power cut during that commit would leave it.
 *
 * ERRORS. Calls return 0 (or a count) or a negative STRATA_E... code. After any call returns
 * STRATA_EPOWER or STRATA_EIO the context is stale: every call but mount returns STRATA_EINVAL
 * until strata_fs_mount() succeeds. Mount and format refuse a context that is mounted
 * (STRATA_EBUSY): a context must be zero-initialised (or unmounted) before its first mount.
 *
 * Files are limited to 16 MiB - 1 (24-bit lengths) and their micro log keys to 2^15 records of
 * their size. Footprint (Cortex-M0+, -Os, make size): see docs/fs.md. Headers are built and
 * parsed in the scratch buffer.
 *
 * Costs below use n = bytes moved, X = headers in the file system (the quick-skip search reads
 * one header per extent and one marker per sector), P = page size, c = the number of extents
 * in a file's chain (1 unless it grew past its reservation).
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
#define STRATA_FS_CREATE 8u /* create the file when it does not exist (with READ alone too:
                               an empty file opened read-only) */
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
    uint32_t name_max;     /* 0: 16. 1..STRATA_FS_NAME_LIMIT, and 100 + name_max <= the page
                              size (the 12-byte sector marker, a header region of 72 + name_max
                              bytes and two 8-byte slots fit a page; else STRATA_EINVAL).
                              Fixed at format. */
    uint32_t default_size; /* data bytes open(CREATE) reserves without a size hint; 0: 4096 */
    uint32_t log_size;     /* default micro log size in bytes; 0: 4 pages */
    uint32_t log_record;   /* default micro log record size; 0: one page */
    uint32_t clean_every;  /* run the wear-levelling cleaning pass every n removals; 0: never */
};

/* Per-open options (strata_fs_opencfg). */
struct strata_fs_file_config {
    uint32_t size;        /* data bytes to reserve when the open creates the file (0: the
                             configuration's default_size); the file can still grow past it */
    uint8_t *buffer;      /* write-back buffer for appends (NULL: none): appends collect here and
                             are programmed a device page at a time; at least one page is best */
    uint32_t buffer_size; /* its size (up to 65535) */
};

/* One open file: O(1) RAM whatever its size; owned by the caller, valid until close. The fields
 * are the file system's. */
struct strata_fs_file {
    uint8_t flags, state;
    uint16_t buffer_size, buffered;        /* write-back buffer: size, bytes held */
    uint16_t log_records, log_record;      /* log configuration: records and their size */
    uint16_t log_used, log_committed;      /* log entries used now / at the last commit */
    uint16_t log_end;                      /* first blank log entry found at open */
    uint16_t last_key;                     /* key of the last entry this handle wrote */
    uint16_t slots;                        /* length slots written in the tail */
    uint16_t name_hash;
    struct strata_fs_file *next;           /* the context's list of open files */
    uint32_t page, seq;                    /* first extent (a copy not yet committed when it
                                              differs from committed_page) */
    uint32_t committed_page, committed_seq; /* first extent of the last commit */
    uint32_t tail, tail_base, tail_cap;    /* last extent of the chain (appends and length
                                              slots go there), the file offset its data starts
                                              at, its data area in bytes */
    uint32_t cursor, cursor_base, cursor_end; /* extent holding the file offsets [base, end)
                                                 last read */
    uint32_t len, committed_len, pos;
    uint32_t data_end;                     /* offsets from here on were never programmed in
                                              place */
    uint32_t log;                          /* micro log extent's first page, or 0xFFFFFFFF */
    uint32_t buffered_at;                  /* file offset of the first buffered byte */
    uint8_t *buffer;                       /* write-back buffer (NULL: none) */
};

struct strata_fs {
    struct strata_fs_config cfg;
    uint32_t pages, pages_per_sector, usable; /* geometry; usable: sector bytes after its marker;
                                                 the sector count is cfg.unit_count */
    uint32_t header_size;                     /* header region of an extent's first page */
    uint32_t seq;                             /* last sequence number used */
    uint32_t free_hint;                       /* first page that may be free (a header boundary) */
    uint32_t removals;                        /* for the cleaning pass */
    uint32_t gc_next;                         /* where incremental garbage collection resumes */
    uint32_t mounted;                         /* a magic value while mounted (another one
                                                 between format and mount) */
    uint32_t erased_lo, erased_hi;            /* usable bytes this context erased and has not
                                                 programmed since: programs there skip the
                                                 read that checks their target */
    struct strata_fs_file *open;
    struct {
        uint32_t page;
        uint16_t hash;
    } cache[STRATA_FS_CACHE];
    uint8_t names[16]; /* a filter of the live names' hashes (2 bits each of 128): a name with a
                          bit clear does not exist; rebuilt by every walk that sees every file */
    uint8_t cache_next, cache_complete, tag; /* cache_complete: every live file is in the cache;
                                                tag: configuration byte of the markers */
};

struct strata_fs_dir {
    uint32_t page; /* next page to examine */
};

struct strata_fs_stat {
    char name[STRATA_FS_NAME_LIMIT + 1];
    uint32_t size;       /* bytes (the open handle's view when the file is open) */
    uint32_t capacity;   /* size the file can reach before it continues in another extent */
    uint32_t page, pages; /* first extent */
    uint32_t log_records, log_record; /* micro log configuration */
    uint32_t log_used;   /* log entries used (0: no log) */
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
 * programs per sector. The context is left unmounted; a mount of the same range on it (with no
 * reboot between) knows the range erased, so its programs skip the check read until they have
 * used that space. */
int strata_fs_format(struct strata_fs *fs, const struct strata_fs_config *cfg);

/* Check the device and configuration, find the highest sequence number and the first free
 * page, and finish any operation a power cut interrupted (mount repair). Cost: one walk of all
 * headers (X reads) plus one header read per cross-reference (a copy's original, a rename's
 * target, a log's or continuation's owner); programs only when repairing. STRATA_EUNFORMATTED
 * when no sector carries a marker, STRATA_EVERSION for another format version or configuration
 * (name length, page size), STRATA_EDEVICE for NAND/FRAM/SD, STRATA_EBUSY for a mounted
 * context. */
int strata_fs_mount(struct strata_fs *fs, const struct strata_fs_config *cfg);
/* Close every open file (syncing it) and forget the device. */
int strata_fs_unmount(struct strata_fs *fs);

/* Open (and with CREATE, create) a file. A file may be open through one handle at a time
 * (STRATA_EBUSY). Cost: the name cache (1 header read per hit; a miss reads nothing while the
 * cache holds every live file), else the quick-skip search (<= X header reads of 40 + name_max
 * bytes); the log link; 2c reads to follow the chain; a search over the length slots
 * (about 3 log2 of their count reads of 8 bytes); with a log, a binary search of its index.
 * Creation adds the allocation search (from the first free page: usually one header read), a
 * program per sector the extent runs into, the header program and its seal (GC when full).
 * Power-safe: creation is atomic. */
int strata_fs_open(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                   unsigned flags);
/* open() with options: a size hint for creation and a write-back buffer (fc may be NULL). */
int strata_fs_opencfg(struct strata_fs *fs, struct strata_fs_file *f, const char *name,
                      unsigned flags, const struct strata_fs_file_config *fc);
/* Sync, then forget the handle. When the handle committed anything, close writes the last
 * length slot a second time (8 bytes), so that the closed file survives one damaged byte. */
int strata_fs_close(struct strata_fs *fs, struct strata_fs_file *f);

/* Read up to n bytes at the position; returns the count (0 at end of file). Programs buffered
 * appends first. Cost: one read per contiguous piece; with a micro log, one index scan (4 bytes
 * per used entry) per call and one read per record overlapping the range. */
int32_t strata_fs_read(struct strata_fs *fs, struct strata_fs_file *f, void *buf, uint32_t n);
/* Write n bytes at the position (at the end with APPEND); returns n or an error. Appends are
 * programmed in place (one program per page touched; with a buffer, one per device page
 * filled); every program first reads its target to check it is erased (unless this context
 * erased it and has not programmed it since: see the top). Other writes
 * read-modify-write one log record each (the record + a 4-byte entry; reading the record's
 * other bytes scans the index once). A full log merges (a copy of the file with the write
 * folded in); a file outgrowing its extent continues in a new one, about as large as the file
 * (a header, its seal, a slot and a link). Allocation may collect garbage (an erase per sector
 * it frees, a few at a time). Not durable until sync. */
int32_t strata_fs_write(struct strata_fs *fs, struct strata_fs_file *f, const void *buf,
                        uint32_t n);
/* Set the position; it must stay within [0, size]. Returns it. No flash access. */
int32_t strata_fs_seek(struct strata_fs *fs, struct strata_fs_file *f, int32_t off, int whence);
/* Commit everything written: buffered appends, then one byte (a commit mark on the last log
 * entry) when only log records changed, else one 8-byte length slot; after a merge, also the
 * obsolete states of the extents the copy supersedes. Power-safe: the commit is atomic. */
int strata_fs_sync(struct strata_fs *fs, struct strata_fs_file *f);
/* Shrink the file to size bytes (<= its size). Programs buffered appends; committed by the next
 * sync. */
int strata_fs_truncate(struct strata_fs *fs, struct strata_fs_file *f, uint32_t size);

/* Remove a closed file: one state program (the commit point), one more for its log and for each
 * continuation; every clean_every removals also the cleaning pass. Power-safe. */
int strata_fs_remove(struct strata_fs *fs, const char *name);
/* Rename a closed file, atomically replacing a closed target of the new name. The file is copied
 * under its new name (reads and programs of its size, its log merged; it needs a free run of
 * its size), then the original and the target become obsolete. Power-safe. */
int strata_fs_rename(struct strata_fs *fs, const char *from, const char *to);
/* Create an empty file with room for size data bytes (STRATA_EEXIST if it exists). */
int strata_fs_reserve(struct strata_fs *fs, const char *name, uint32_t size);
/* Set the micro log of a file: log_size bytes of records of record_size bytes (at most 32767
 * records). Creates the file when missing; an existing closed file is copied to a new extent
 * with the new configuration (its log merged). Power-safe. */
int strata_fs_configure_log(struct strata_fs *fs, const char *name, uint32_t log_size,
                            uint32_t record_size);
/* Facts about a file. Cost: the lookup plus loading its state (as open). */
int strata_fs_stat(struct strata_fs *fs, const char *name, struct strata_fs_stat *st);

/* Directory listing: one entry per live file, in flash order. readdir returns 1 with an entry,
 * 0 at the end, or an error. Cost: the quick-skip walk, loading each file's state. */
int strata_fs_opendir(struct strata_fs *fs, struct strata_fs_dir *d);
int strata_fs_readdir(struct strata_fs *fs, struct strata_fs_dir *d, struct strata_fs_stat *st);
int strata_fs_closedir(struct strata_fs *fs, struct strata_fs_dir *d);

/* Free, live and obsolete pages. Cost: one walk. */
int strata_fs_df(struct strata_fs *fs, struct strata_fs_usage *u);
/* fsck: walk everything and check every invariant of docs/format-fs.md; with repair, obsolete
 * what is unreachable or duplicated (never touching live data). Returns the number of problems
 * found (0 = clean) or an error. Cost: two walks plus per-file metadata reads and a lookup of
 * each file's name. */
int strata_fs_check(struct strata_fs *fs, int repair, struct strata_fs_report *r);

/* Run the cleaning pass when the configuration has it on (clean_every != 0: live closed files
 * move out of the sector whose pages are mostly obsolete), then garbage collection over the
 * whole device (it otherwise runs when an allocation fails, erasing only as many sectors as the
 * allocation needs, round robin). Returns
 * the number of sectors erased. The remedy for STRATA_ENOSPC on a nearly full device whose
 * obsolete pages share sectors with live files. Cost: two walks, the copies of the files moved,
 * per erased sector one erase and two 4-byte programs. Power-safe: a cut leaves the sector
 * dirty, erased again later. */
int strata_fs_gc(struct strata_fs *fs);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_FS_H */
