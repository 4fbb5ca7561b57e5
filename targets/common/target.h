/*
 * What a target workload needs from the platform it runs on, and the helpers every workload
 * shares: console output, exit, the measurement bracket around each library call, digests.
 *
 * A workload (targets/workloads/<engine>.c) defines tgt_workload_name, tgt_call_names and
 * tgt_workload(); targets/common/target.c holds main(). Each platform (targets/arm, targets/avr,
 * targets/host) implements the functions marked PLATFORM.
 *
 * Measurement. Every library call of a workload is written as
 *     tgt_enter(); rc = strata_kv_put(...); tgt_leave(CALL_KV_PUT);
 * On Cortex-M and AVR, tgt_enter() paints the free stack (from the end of static RAM up to the
 * caller's stack pointer) and marks the start of the call for the instruction/cycle counter (a
 * QEMU plugin, or the simavr runner); tgt_leave() marks its end with the call's id, then finds the
 * lowest stack word the call touched. Both are assembly leaf routines that use no stack of their
 * own, so the figure is the call's (argument set-up included). On the host both do nothing.
 */
#ifndef STRATA_TARGETS_TARGET_H
#define STRATA_TARGETS_TARGET_H

#include <stddef.h>
#include <stdint.h>

#define TGT_MAX_CALLS 32 /* call ids 1..31 (0: the empty bracket, for calibration) */

/* PLATFORM: write a NUL-terminated string to the console. */
void tgt_write(const char *s);
/* PLATFORM: stop with the given status (0: success). */
void tgt_exit(int status);
/* PLATFORM (assembly on targets): the measurement bracket; see above. */
void tgt_enter(void);
void tgt_leave(unsigned id);
/* Called by tgt_leave() with the stack bytes the call used (0 on the host). */
void tgt_record(unsigned id, uint16_t stack);

/* Defined by the workload. */
extern const char tgt_workload_name[];
extern const char *const tgt_call_names[TGT_MAX_CALLS]; /* by id; NULL: unused */
/* Runs the workload; returns 0 on success (its digests are then printed). */
int tgt_workload(void);

/* Output: text, and numbers in a fixed format (no printf: the same text on every target). */
void tgt_puts(const char *s);
void tgt_put_hex(uint32_t v); /* 8 hex digits */
void tgt_put_dec(uint32_t v);
void tgt_line(const char *label, uint32_t v); /* "label v\n" in decimal */
/* Report a failure (with a value, e.g. the error code) and stop. */
void tgt_fail(const char *what, int32_t v);

/* Digests: CRC-32 (the library's strata_crc32) over a canonical byte stream. Numbers go in as
 * little-endian bytes of a stated width, never as raw structs (padding and int widths differ). */
struct tgt_digest {
    uint32_t crc;
    uint32_t items;
};
void tgt_digest_bytes(struct tgt_digest *d, const void *p, size_t n);
void tgt_digest_u32(struct tgt_digest *d, uint32_t v);
void tgt_digest_u32s(struct tgt_digest *d, const uint32_t *v, size_t n); /* n numbers */
/* An answer: the call's id and its result code (rc as 32 bits, sign included). */
void tgt_digest_rc(struct tgt_digest *d, unsigned id, int32_t rc);
/* "digest <what> <hex> <count>\n": the lines compared across targets. */
void tgt_put_digest(const char *what, const struct tgt_digest *d);
/* The same line for the digest of n bytes (a flash image). */
void tgt_put_bytes_digest(const char *what, const void *p, size_t n);
/* Built with -DTGT_TRACE: print the digest after every step, to find the first step at which two
 * targets part (the digest lines compared by make target-test are printed either way). */
void tgt_trace(uint32_t step, const struct tgt_digest *d);

/* Deterministic pseudo-random numbers (xorshift32): the same sequence on every target. */
uint32_t tgt_rand(uint32_t *state);
uint32_t tgt_rand_below(uint32_t *state, uint32_t n); /* 0 .. n-1, n >= 1 */

#endif
