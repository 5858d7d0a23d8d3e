/*
 * switch.S: the context switch. No signal mask and no syscall: only the registers the C ABI
 * says a callee must preserve, plus the stack pointer and the return address.
 *
 *   void st__ctx_switch(void **save_sp, void *load_sp);
 *
 * pushes the callee-saved registers on the current stack, stores sp in *save_sp, switches to
 * load_sp, pops the same frame from there and returns into that context. A new coroutine's
 * stack is prepared by st__ctx_init() in sched.c with a frame of this exact layout whose return
 * address is st__ctx_entry and whose saved registers hold the entry function and its argument.
 *
 * st__ctx_entry starts the frame chain with a zero frame pointer and marks the return address
 * undefined in its unwind info, so perf (frame pointers) and gdb (CFI) stop cleanly there.
 *
 * Not saved: x87 control word / MXCSR (x86-64) and FPCR (aarch64); nothing here changes them.
 */

#if defined(__x86_64__)

    .text

/* Frame, from the saved sp upwards: r15 r14 r13 r12 rbx rbp return-address (7 x 8 bytes). */
    .globl st__ctx_switch
    .type st__ctx_switch, @function
    .p2align 4
st__ctx_switch:
    .cfi_startproc
    pushq %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbp, 0
    pushq %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbx, 0
    pushq %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r12, 0
    pushq %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r13, 0
    pushq %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r14, 0
    pushq %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r15, 0
    movq %rsp, (%rdi)
    movq %rsi, %rsp          /* the other stack holds a frame of the same layout */
    popq %r15
    .cfi_adjust_cfa_offset -8
    popq %r14
    .cfi_adjust_cfa_offset -8
    popq %r13
    .cfi_adjust_cfa_offset -8
    popq %r12
    .cfi_adjust_cfa_offset -8
    popq %rbx
    .cfi_adjust_cfa_offset -8
    popq %rbp
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_endproc
    .size st__ctx_switch, .-st__ctx_switch

/* Entered by the ret above with r12 = function, r13 = argument, rbp = 0, rsp 16-byte aligned. */
    .globl st__ctx_entry
    .type st__ctx_entry, @function
    .p2align 4
st__ctx_entry:
    .cfi_startproc
    .cfi_undefined %rip
    xorl %ebp, %ebp
    movq %r13, %rdi
    call *%r12
    ud2                      /* the function never returns */
    .cfi_endproc
    .size st__ctx_entry, .-st__ctx_entry

    .section .note.GNU-stack,"",@progbits

#elif defined(__aarch64__)

    .text

/* Frame, from the saved sp upwards: x19..x28, x29 (fp), x30 (lr), d8..d15 (20 x 8 bytes). */
    .globl st__ctx_switch
    .type st__ctx_switch, %function
    .p2align 4
st__ctx_switch:
    .cfi_startproc
    sub sp, sp, #160
    .cfi_adjust_cfa_offset 160
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    .cfi_rel_offset x29, 80
    .cfi_rel_offset x30, 88
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x9, sp
    str x9, [x0]
    mov sp, x1               /* the other stack holds a frame of the same layout */
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #160
    .cfi_adjust_cfa_offset -160
    ret
    .cfi_endproc
    .size st__ctx_switch, .-st__ctx_switch

/* Entered by the ret above with x19 = function, x20 = argument, x29 = 0, sp 16-byte aligned. */
    .globl st__ctx_entry
    .type st__ctx_entry, %function
    .p2align 4
st__ctx_entry:
    .cfi_startproc
    .cfi_undefined x30
    mov x29, #0
    mov x30, #0
    mov x0, x20
    blr x19
    brk #0                   /* the function never returns */
    .cfi_endproc
    .size st__ctx_entry, .-st__ctx_entry

    .section .note.GNU-stack,"",%progbits

#else
#error "st: context switch implemented for x86-64 and aarch64 only"
#endif
