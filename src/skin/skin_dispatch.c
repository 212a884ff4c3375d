/* The skinning kernels available: the levels of the one SIMD layer (core/cpu.h: the CPU's,
 * capped by OSSA_SIMD); the job that uses them is in skin_job.c. */
#include "skin_internal.h"

#include "core/cpu.h"

/* OSSA_SKIN_KERNEL_SCALAR .. _AVX512 are the levels OSSA__SIMD_SCALAR .. _AVX512, plus one. */
_Static_assert(OSSA_SKIN_KERNEL_SCALAR == OSSA__SIMD_SCALAR + 1 && OSSA_SKIN_KERNEL_SSE == OSSA__SIMD_SSE4 + 1 &&
                   OSSA_SKIN_KERNEL_AVX2 == OSSA__SIMD_AVX2 + 1 && OSSA_SKIN_KERNEL_AVX512 == OSSA__SIMD_AVX512 + 1,
               "a skinning kernel is a SIMD level");

bool ossa_skin_kernel_available(ossa_skin_kernel kernel) {
    if (kernel < OSSA_SKIN_KERNEL_SCALAR || kernel > OSSA_SKIN_KERNEL_AVX512) return false;
    return (int)kernel - 1 <= (int)ossa__simd();
}

ossa_skin_kernel ossa_skin_kernel_best(void) {
    return (ossa_skin_kernel)((int)ossa__simd() + 1);
}

const char *ossa_skin_kernel_name(ossa_skin_kernel kernel) {
    switch (kernel) {
    case OSSA_SKIN_KERNEL_AUTO: return "auto";
    case OSSA_SKIN_KERNEL_SCALAR: return "scalar";
    case OSSA_SKIN_KERNEL_SSE: return "sse4.1";
    case OSSA_SKIN_KERNEL_AVX2: return "avx2";
    case OSSA_SKIN_KERNEL_AVX512: return "avx512";
    default: return "unknown";
    }
}
