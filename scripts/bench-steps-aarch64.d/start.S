// Entry of the static program: hands the initial stack (argc, argv) to cstart. Also the
// samples, as little-endian doubles (time, x, y, z per sample; 5 values per event for the
// pipeline), from samples.bin. The ordinary build (AMBLE_ORDINARY) takes only the samples: the
// C library has the entry.
#ifndef AMBLE_ORDINARY
    .text
    .globl _start
#if defined(__x86_64__)
_start:
    mov %rsp, %rdi
    and $-16, %rsp
    call cstart
    hlt
#else
_start:
    mov x0, sp
    bl cstart
1:  b 1b
#endif
#endif
    .section .rodata
    .balign 16
    .globl amble_samples
amble_samples:
    .incbin "samples.bin"
amble_samples_end:
    .balign 8
    .globl amble_sample_values
amble_sample_values:
    .quad (amble_samples_end - amble_samples) / 8
