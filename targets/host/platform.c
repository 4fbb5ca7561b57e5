/* The host platform of the target workloads (-m32 / -m64): stdout, exit status, no measurement
 * (host stack frames and instruction counts say nothing about a microcontroller). */
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

void tgt_write(const char *s)
{
    fputs(s, stdout);
}

void tgt_exit(int status)
{
    fflush(stdout);
    exit(status);
}

void tgt_enter(void)
{
}

void tgt_leave(unsigned id)
{
    tgt_record(id, 0);
}
