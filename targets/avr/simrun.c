/*
 * simrun: run an AVR target workload (targets/avr) in simavr and measure every library call in
 * exact CPU cycles. A host tool, built against Debian's libsimavr by targets/run.py.
 *
 *   simrun [-m mcu] [-f hz] [-c calls.txt] [-l cycle-limit] [-d lo:hi]... firmware.elf
 *
 * The firmware talks through the general-purpose I/O registers (targets/avr/platform.c, probe.S):
 * GPIOR0 console byte; GPIOR1 0 = a call starts, 0x80 | status = exit; GPIOR2 = a call with this
 * id ends. Per call id the runner keeps count, total, min and max of the cycles between the two
 * marks, and the cycles spent at program addresses inside the -d ranges (byte addresses; the run
 * script names avr-libgcc's division helpers), and writes "id count total min max div" lines to
 * the calls file. The exit status is the firmware's; 2 when the simulation crashed or ran past the
 * cycle limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_io.h>

#define GPIOR0_ADDR 0x3E /* data-space addresses on the ATmega1284 (and the other megaAVRs) */
#define GPIOR1_ADDR 0x4A
#define GPIOR2_ADDR 0x4B
#define MAX_IDS 256
#define MAX_RANGES 16

static struct {
    uint64_t count, total, min, max, div;
} calls[MAX_IDS];
static avr_cycle_count_t started, in_ranges, started_in_ranges;
static uint32_t range_lo[MAX_RANGES], range_hi[MAX_RANGES];
static int ranges;
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
    uint64_t d = avr->cycle - started;
    (void)addr;
    (void)param;
    if (calls[v].count == 0 || d < calls[v].min)
        calls[v].min = d;
    if (d > calls[v].max)
        calls[v].max = d;
    calls[v].total += d;
    calls[v].div += in_ranges - started_in_ranges;
    calls[v].count++;
}

static int in_a_range(uint32_t pc)
{
    int i;
    for (i = 0; i < ranges; i++)
        if (pc >= range_lo[i] && pc < range_hi[i])
            return 1;
    return 0;
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
    int opt, state, i;
    while ((opt = getopt(argc, argv, "m:f:c:l:d:")) != -1) {
        char *end;
        switch (opt) {
        case 'm': mcu = optarg; break;
        case 'f': hz = strtoul(optarg, NULL, 0); break;
        case 'c': calls_path = optarg; break;
        case 'l': limit = strtoull(optarg, NULL, 0); break;
        case 'd':
            if (ranges == MAX_RANGES)
                return 2;
            range_lo[ranges] = (uint32_t)strtoul(optarg, &end, 0);
            if (*end != ':')
                return 2;
            range_hi[ranges++] = (uint32_t)strtoul(end + 1, NULL, 0);
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
        int in_range = ranges != 0 && in_a_range(avr->pc);
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
    if (calls_path != NULL) {
        FILE *f = fopen(calls_path, "w");
        if (f == NULL)
            return 2;
        for (i = 0; i < MAX_IDS; i++)
            if (calls[i].count != 0)
                fprintf(f, "%d %llu %llu %llu %llu %llu\n", i, (unsigned long long)calls[i].count,
                        (unsigned long long)calls[i].total, (unsigned long long)calls[i].min,
                        (unsigned long long)calls[i].max, (unsigned long long)calls[i].div);
        fprintf(f, "cycles %llu\n", (unsigned long long)avr->cycle);
        fclose(f);
    }
    return exit_status;
}
