/*
 * Intermittent power (host only): the iFKVS testbed in software. A capacitor (10 mF, the device
 * switches on at 3.3 V and off at 2.3 V) is charged by a constant-current supply (7 mA; also 6, 5)
 * or a replayed power trace, and drained by the board while it runs: flash operations cost their
 * device energy (from the simulator's profile) plus the board's active power over their duration,
 * and the MCU's compute between operations costs the board's active power over the compute time.
 *
 * Compute model: the library's work between two flash operations is charged just before the
 * second one as cycles_per_op + cycles_per_byte x (bytes the operation moves) cycles at mcu_hz;
 * the application adds its own work with strata_energy_compute(). Constants and their calibration
 * are in energy.c and docs/kv.md.
 *
 * Use: set strata_energy_observer as the simulator's observer. When the capacitor falls below
 * v_off the observer cuts power in the middle of the operation (the simulator tears it); the
 * program then sees STRATA_EPOWER, must treat all RAM as lost, call strata_energy_recharge()
 * (time passes until v_on), reboot the simulator and restore.
 */
#ifndef STRATA_ENERGY_H
#define STRATA_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "strata/sim.h"

struct strata_energy_config {
    double capacitance;    /* F */
    double v_on, v_off;    /* V: switch on when charged to v_on, off below v_off */
    double supply_current; /* A, constant-current source (used when trace == NULL) */
    const double *trace;   /* harvested power in W, one sample per trace_step s (repeats) */
    size_t trace_len;
    double trace_step;
    double p_active;       /* W drawn by the board while running */
    double mcu_hz;
    double cycles_per_op, cycles_per_byte;
};

struct strata_energy_stats {
    double on_s, off_s;          /* wall time powered / waiting for charge */
    double flash_s, compute_s;   /* parts of on_s */
    double flash_j, compute_j;   /* energy drawn by flash operations / by compute */
    uint64_t ops, power_failures, charge_cycles;
};

struct strata_energy {
    struct strata_energy_config cfg;
    double v, t, pending_cycles;
    int on;
    struct strata_energy_stats st;
};

/* The paper's testbed at 7 mA with the calibrated board and compute model. */
void strata_energy_default(struct strata_energy_config *c);
/* Start charged to v_on and powered. */
void strata_energy_init(struct strata_energy *e, const struct strata_energy_config *c);
/* A strata_sim_observer; arg is the struct strata_energy. */
int strata_energy_observer(void *arg, const struct strata_sim_op *op);
/* Application work (cycles), charged before the next flash operation. */
void strata_energy_compute(struct strata_energy *e, double cycles);
/* After a power failure: wait (advance time) until the capacitor reaches v_on. 0, or -1 when the
 * supply cannot get there (a dead trace). */
int strata_energy_recharge(struct strata_energy *e);
/* Total wall time so far. */
double strata_energy_time(const struct strata_energy *e);

#endif
