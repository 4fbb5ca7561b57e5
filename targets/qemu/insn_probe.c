/*
 * insn_probe: a QEMU TCG plugin that counts the guest instructions of each measured library call
 * of a target workload (targets/arm/startup.S), exactly: every executed instruction adds one to a
 * counter (an inline add, no callback); the counter is read when the guest executes
 * tgt_probe_enter (a call starts) and when the store at tgt_probe_leave writes tgt_sink[id] (the
 * call with that id ends; the id is the store's address). Per id it counts the call's
 * instructions, and those that ran inside the address ranges given as div=lo:hi (the run script
 * names libgcc's division helpers there), and writes them to the output file at exit
 * (targets/common/callstats.h).
 *
 *   qemu-system-arm ... -plugin insn_probe.so,enter=0x...,leave=0x...,sink=0x...,out=FILE[,div=lo:hi...]
 *
 * Debian's QEMU loads plugins but ships neither its example plugins nor qemu-plugin.h, so the few
 * declarations used here are written out below from QEMU's documented plugin API, version 1 (the
 * API of QEMU 7.2; QEMU refuses a plugin whose qemu_plugin_version it does not support).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/callstats.h"

/* ---- the subset of QEMU's plugin API (include/qemu/qemu-plugin.h, version 1) --------------- */
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
    const char *target_name;
    struct {
        int min, cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus, max_vcpus;
        } system;
    };
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
#define EXPORT __attribute__((visibility("default")))
EXPORT extern int qemu_plugin_version;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* --------------------------------------------------------------------------------------------- */

EXPORT int qemu_plugin_version = 1;

static struct callstats stats;
static uint64_t executed;  /* instructions so far (one vCPU: the Cortex-M machines have one) */
static uint64_t in_ranges; /* of which inside the div= ranges */
static uint64_t started, started_in_ranges;
static uint64_t enter_pc, leave_pc, sink;
static const char *out_path;

static void on_enter(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    (void)userdata;
    started = executed;
    started_in_ranges = in_ranges;
}

static void on_leave(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)vcpu;
    (void)info;
    (void)userdata;
    callstats_add(&stats, (unsigned)((vaddr - sink) / 4u), executed - started,
                  in_ranges - started_in_ranges);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
        if (callstats_in_range(&stats, pc))
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                       &in_ranges, 1);
        if (pc == enter_pc)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_enter, QEMU_PLUGIN_CB_NO_REGS, NULL);
        if (pc == leave_pc)
            qemu_plugin_register_vcpu_mem_cb(insn, on_leave, QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_W, NULL);
    }
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    callstats_write(&stats, out_path, "instructions", executed);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    int i;
    (void)info;
    for (i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL)
            return 1;
        if (strncmp(argv[i], "enter=", 6) == 0)
            enter_pc = strtoull(eq + 1, NULL, 0);
        else if (strncmp(argv[i], "leave=", 6) == 0)
            leave_pc = strtoull(eq + 1, NULL, 0);
        else if (strncmp(argv[i], "sink=", 5) == 0)
            sink = strtoull(eq + 1, NULL, 0);
        else if (strncmp(argv[i], "out=", 4) == 0)
            out_path = eq + 1;
        else if (strncmp(argv[i], "div=", 4) == 0) {
            if (callstats_add_range(&stats, eq + 1) != 0)
                return 1;
        }
        else
            return 1;
    }
    if (enter_pc == 0 || leave_pc == 0 || sink == 0 || out_path == NULL)
        return 1;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, write_counts, NULL);
    return 0;
}
