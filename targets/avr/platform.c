/* AVR platform of the target workloads, for the simavr runner (targets/avr/simrun.c): console
 * bytes go to GPIOR0; the exit status to GPIOR1 as 0x80 | status (0 there is the measurement
 * probe, probe.S), after which the runner stops the simulation. */
#include <avr/io.h>

#include "target.h"

void tgt_write(const char *s)
{
    while (*s != '\0')
        GPIOR0 = (uint8_t)*s++;
}

void tgt_exit(int status)
{
    GPIOR1 = (uint8_t)(0x80u | (status != 0 ? 1u : 0u));
    for (;;)
        ;
}
