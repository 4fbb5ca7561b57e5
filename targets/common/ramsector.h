/*
 * A sector device (strata_vm's backing store, include/strata/vm.h) over the RAM NOR port for the
 * target workloads: sector s is erase unit s of the ramflash; a read is one flash read, a write
 * an erase and then the unit's pages programmed one by one (as the medium allows it: never a
 * program over unerased bytes).
 */
#ifndef STRATA_TARGETS_RAMSECTOR_H
#define STRATA_TARGETS_RAMSECTOR_H

#include "ramflash.h"
#include "strata/vm.h"

/* Describe rf (initialised, NOR) as `dev` of rf's erase units, one sector each. */
void ramsector_init(struct strata_sector_dev *dev, struct ramflash *rf);

#endif
