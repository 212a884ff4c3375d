/* Run-time CPU feature checks shared by the SIMD dispatchers (not installed). */
#ifndef OSSA_CORE_CPU_H
#define OSSA_CORE_CPU_H

#include <stdbool.h>


/* The CPU runs the *_avx512.c kernels: those files are built with -mavx512f/vl/bw/dq (and
 * avx2, fma), so the compiler may use any of them (e.g. vxorps zmm is AVX512DQ). */
static inline bool ossa__cpu_avx512(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

/* The CPU issues 512-bit operations as two 256-bit halves (AMD family 19h with AVX-512: Zen 4),
 * so a 512-bit shuffle costs two 256-bit ones; kernels bound by shuffles then run their 256-bit
 * form there (measured: the palette kernel, 79 against 95 ns for 43 joints). One cpuid, once
 * (cpu.c); then a relaxed load. */
bool ossa__cpu_splits_512(void);

#endif
