/* Fuzz target: loading a simulator image must reject damage with an error, never crash. Each
 * input is tried as given and with its CRC trailer repaired, so the fuzzer also reaches the
 * header and section checks behind the CRC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/crc.h"
#include "strata/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void try_load(const uint8_t *data, size_t size)
{
    char path[64];
    struct strata_sim *sim = NULL;
    FILE *f;
    snprintf(path, sizeof path, "/tmp/strata-fuzz-image-%ld", (long)getpid());
    f = fopen(path, "wb");
    if (f == NULL)
        return;
    fwrite(data, 1, size, f);
    fclose(f);
    if (strata_sim_image_load(path, &sim) == 0) {
        uint8_t b[512];
        const struct strata_flash *fl = strata_sim_flash(sim);
        strata_flash_read(fl, 0, b, fl->geo.read_size);
        strata_sim_free(sim);
    }
    remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try_load(data, size);
    if (size >= 8) {
        uint8_t *fixed = malloc(size);
        uint32_t crc;
        if (fixed == NULL)
            return 0;
        memcpy(fixed, data, size);
        crc = strata_crc32(0, fixed, size - 4);
        fixed[size - 4] = (uint8_t)crc;
        fixed[size - 3] = (uint8_t)(crc >> 8);
        fixed[size - 2] = (uint8_t)(crc >> 16);
        fixed[size - 1] = (uint8_t)(crc >> 24);
        try_load(fixed, size);
        free(fixed);
    }
    return 0;
}
