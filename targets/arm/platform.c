/* Cortex-M platform of the target workloads: console and exit through ARM semihosting (QEMU
 * -semihosting-config enable=on), faults reported and fatal. */
#include <stdint.h>

#include "target.h"

#define SYS_WRITE0 0x04u
#define SYS_EXIT 0x18u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u /* QEMU exits with status 1 for any other reason */

static uint32_t semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void tgt_write(const char *s)
{
    semihost(SYS_WRITE0, s);
}

void tgt_exit(int status)
{
    semihost(SYS_EXIT, (const void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                              : ADP_STOPPED_RUNTIME_ERROR));
    for (;;)
        ;
}

/* From the fault handler in startup.S: exception number and faulting pc. Unaligned accesses on
 * Cortex-M0 land here. */
void tgt_fault(uint32_t exception, uint32_t sp, uint32_t pc);
void tgt_fault(uint32_t exception, uint32_t sp, uint32_t pc)
{
    (void)sp;
    tgt_write("FAULT exception ");
    tgt_put_dec(exception);
    tgt_write(" pc 0x");
    tgt_put_hex(pc);
    tgt_write("\nresult FAIL\n");
    tgt_exit(1);
}
