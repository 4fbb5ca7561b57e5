/*
 * simrun: run an AVR target workload (targets/avr) in simavr and measure every library call in
 * exact CPU cycles. A host tool, built against Debian's libsimavr by targets/run.py.
 *
 *   simrun [-m mcu] [-f hz] [-c calls.txt] [-l cycle-limit] [-d lo:hi]... firmware.elf
 *
 * The firmware talks through the general-purpose I/O registers (targets/avr/platform.c, probe.S):
 * GPIOR0 console byte; GPIOR1 0 = a call starts, 0x80 | status = exit; GPIOR2 = a call with this
 * id ends. Per call id the runner counts the cycles between the two marks, and those spent at
 * program addresses inside the -d ranges (byte addresses; the run script names avr-libgcc's
 * division helpers), and writes them to the calls file (targets/common/callstats.h). The exit
 * status is the firmware's; 2 when the simulation crashed or ran past the cycle limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_io.h>

#include "../common/callstats.h"

#define GPIOR0_ADDR 0x3E /* data-space addresses on the ATmega1284 (and the other megaAVRs) */
#define GPIOR1_ADDR 0x4A
#define GPIOR2_ADDR 0x4B

static struct callstats stats;
static avr_cycle_count_t started, in_ranges, started_in_ranges;
static int exit_status = -1;

static void on_console(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)avr;
    (void)addr;
    (void)param;
    putchar(v);
}

static void on_start_or_exit(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    (void)param;
    if (v & 0x80u) {
        exit_status = v & 0x7F;
        avr->state = cpu_Done;
    } else {
        started = avr->cycle;
        started_in_ranges = in_ranges;
    }
}

static void on_end(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    (void)param;
    callstats_add(&stats, v, avr->cycle - started, in_ranges - started_in_ranges);
}

static void quiet(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    (void)avr;
    if (level <= LOG_ERROR)
        vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
    const char *mcu = "atmega1284", *calls_path = NULL;
    unsigned long hz = 16000000ul;
    unsigned long long limit = 20000000000ull;
    elf_firmware_t fw;
    avr_t *avr;
    int opt, state;
    while ((opt = getopt(argc, argv, "m:f:c:l:d:")) != -1) {
        switch (opt) {
        case 'm': mcu = optarg; break;
        case 'f': hz = strtoul(optarg, NULL, 0); break;
        case 'c': calls_path = optarg; break;
        case 'l': limit = strtoull(optarg, NULL, 0); break;
        case 'd':
            if (callstats_add_range(&stats, optarg) != 0)
                return 2;
            break;
        default:
            fprintf(stderr, "usage: simrun [-m mcu] [-f hz] [-c calls] [-l cycles] fw.elf\n");
            return 2;
        }
    }
    if (optind != argc - 1)
        return 2;
    avr_global_logger_set(quiet);
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[optind], &fw) != 0) {
        fprintf(stderr, "simrun: cannot read %s\n", argv[optind]);
        return 2;
    }
    if ((avr = avr_make_mcu_by_name(mcu)) == NULL) {
        fprintf(stderr, "simrun: unknown mcu %s\n", mcu);
        return 2;
    }
    avr_init(avr);
    avr->frequency = (uint32_t)hz;
    avr_load_firmware(avr, &fw);
    avr_register_io_write(avr, GPIOR0_ADDR, on_console, NULL);
    avr_register_io_write(avr, GPIOR1_ADDR, on_start_or_exit, NULL);
    avr_register_io_write(avr, GPIOR2_ADDR, on_end, NULL);
    do {
        avr_cycle_count_t before = avr->cycle;
        int in_range = stats.ranges != 0 && callstats_in_range(&stats, avr->pc);
        state = avr_run(avr);
        if (in_range)
            in_ranges += avr->cycle - before;
    } while (state != cpu_Done && state != cpu_Crashed && avr->cycle < limit);
    fflush(stdout);
    if (exit_status < 0) {
        fprintf(stderr, "simrun: %s after %llu cycles\n",
                state == cpu_Crashed ? "crashed" : "no exit", (unsigned long long)avr->cycle);
        return 2;
    }
    if (calls_path != NULL && callstats_write(&stats, calls_path, "cycles", avr->cycle) != 0)
        return 2;
    return exit_status;
}
