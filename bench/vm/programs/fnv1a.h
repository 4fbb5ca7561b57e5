/* The checksum the vm programs print of their buffers (FNV-1a, 32 bits), so a virtualized run's
 * output shows any byte it got wrong. A header of static code, not a second translation unit:
 * strata-vmcc virtualizes one file per program, and this comes in with it. */
#ifndef STRATA_VM_PROGRAMS_FNV1A_H
#define STRATA_VM_PROGRAMS_FNV1A_H

static unsigned long fnv1a(const unsigned char *p, unsigned long n)
{
    unsigned long h = 2166136261ul, i;
    for (i = 0; i < n; i++)
        h = ((h ^ p[i]) * 16777619ul) & 0xFFFFFFFFul;
    return h;
}

#endif
