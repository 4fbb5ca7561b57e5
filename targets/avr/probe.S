/*
 * AVR measurement bracket of target.h, for the simavr runner (targets/avr/simrun.c), which
 * watches the general-purpose I/O registers: a write to GPIOR1 of 0 marks the start of a call
 * (the runner takes the cycle count), a write to GPIOR2 marks its end with the call's id.
 *
 * tgt_enter paints every byte from __heap_start (the end of static RAM) up to its own stack
 * pointer with STACK_PAINT; tgt_leave finds the lowest byte that is no longer STACK_PAINT and
 * tail-jumps to tgt_record(id, bytes). Neither pushes anything beyond its own return address, at
 * the same place as the measured call's, so the figure is the call's own, return address
 * included (a byte that happens to equal the paint at the very bottom is missed).
 */
#include <avr/io.h>

    .equ STACK_PAINT, 0xA5

    .text
    .global tgt_enter
tgt_enter:
    ldi r26, lo8(__heap_start)
    ldi r27, hi8(__heap_start)
    in r30, _SFR_IO_ADDR(SPL)
    in r31, _SFR_IO_ADDR(SPH)
    ldi r24, STACK_PAINT
1:  cp r30, r26
    cpc r31, r27
    brlo 2f          /* X > SP: done (SP itself is the first free byte) */
    st X+, r24
    rjmp 1b
2:  out _SFR_IO_ADDR(GPIOR1), r1 /* r1 is zero */
    ret

    .global tgt_leave
tgt_leave:                        /* r25:r24 = id */
    out _SFR_IO_ADDR(GPIOR2), r24
    ldi r26, lo8(__heap_start)
    ldi r27, hi8(__heap_start)
    in r30, _SFR_IO_ADDR(SPL)
    in r31, _SFR_IO_ADDR(SPH)
1:  cp r30, r26
    cpc r31, r27
    brlo 2f
    ld r18, X
    cpi r18, STACK_PAINT
    brne 2f
    adiw r26, 1
    rjmp 1b
2:  /* the caller's SP is ours + 2 (our return address); the call used [X, caller's SP] */
    adiw r30, 3
    sub r30, r26
    sbc r31, r27
    movw r22, r30
    jmp tgt_record
