/*
 * Cortex-M start-up for the target workloads (ARMv6-M instructions only, so one file serves
 * Cortex-M0 and M4): the vector table, reset (copy .data, clear .bss, main, exit), a fault
 * handler that reports and stops, and the measurement bracket of target.h.
 *
 * Measurement bracket. tgt_enter paints every word from __stack_limit (the end of static RAM) up
 * to the caller's stack pointer with STACK_PAINT, then reaches tgt_probe_enter, where the QEMU
 * plugin (targets/qemu/insn_probe.c) takes the instruction count. tgt_leave(id) stores to
 * tgt_sink[id] at tgt_probe_leave (the plugin reads the id from the store's address and takes the
 * count), then finds the lowest word that is no longer STACK_PAINT and tail-calls
 * tgt_record(id, caller's sp - that address). Neither pushes anything: the stack they see is the
 * caller's, and the figure is the measured call's own (a pushed word that happens to equal the
 * paint would be missed: one word in 2^32).
 */
    .syntax unified
    .thumb

    .equ STACK_PAINT, 0xA5A5A5A5

    .section .vectors, "a"
    .align 2
    .global __vectors
__vectors:
    .word __stack_top
    .word reset_handler
    .word fault_handler /* NMI */
    .word fault_handler /* HardFault */
    .word fault_handler /* MemManage */
    .word fault_handler /* BusFault */
    .word fault_handler /* UsageFault */
    .word 0, 0, 0, 0
    .word fault_handler /* SVC */
    .word fault_handler /* DebugMon */
    .word 0
    .word fault_handler /* PendSV */
    .word fault_handler /* SysTick */

    .text
    .align 1
    .global reset_handler
    .thumb_func
reset_handler:
    ldr r0, =__data_start
    ldr r1, =__data_end
    ldr r2, =__data_load
1:  cmp r0, r1
    bhs 2f
    ldr r3, [r2]
    str r3, [r0]
    adds r0, #4
    adds r2, #4
    b 1b
2:  ldr r0, =__bss_start
    ldr r1, =__bss_end
    movs r3, #0
3:  cmp r0, r1
    bhs 4f
    str r3, [r0]
    adds r0, #4
    b 3b
4:  bl main
    bl tgt_exit
5:  b 5b

    .thumb_func
fault_handler:
    mrs r0, ipsr
    mov r1, sp
    ldr r2, [r1, #24] /* the faulting pc, from the exception frame */
    ldr r3, =tgt_fault
    bx r3

    .global tgt_enter
    .thumb_func
tgt_enter:
    ldr r1, =__stack_limit
    mov r2, sp
    ldr r3, =STACK_PAINT
1:  cmp r1, r2
    bhs 2f
    str r3, [r1]
    adds r1, #4
    b 1b
2:
    .global tgt_probe_enter
    .thumb_func
tgt_probe_enter:
    bx lr

    .global tgt_leave
    .thumb_func
tgt_leave:
    ldr r1, =tgt_sink
    lsls r2, r0, #2
    .global tgt_probe_leave
tgt_probe_leave:
    str r2, [r1, r2]
    mov r12, r0 /* the id */
    ldr r1, =__stack_limit
    mov r2, sp
    ldr r3, =STACK_PAINT
1:  cmp r1, r2
    bhs 2f
    ldr r0, [r1]
    cmp r0, r3
    bne 2f
    adds r1, #4
    b 1b
2:  subs r1, r2, r1 /* bytes from the lowest touched word up to the caller's sp */
    mov r0, r12
    ldr r3, =tgt_record
    bx r3

    .ltorg

    .bss
    .align 2
    .global tgt_sink
tgt_sink:
    .space 4 * 32
