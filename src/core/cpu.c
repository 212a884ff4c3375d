/* The one SIMD layer's CPU query and its OSSA_SIMD cap (see cpu.h). */
#include "core/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"scalar", "sse4", "avx2", "avx512"};

const char *ossa__simd_name(ossa__simd_level level) {
    return (unsigned)level <= OSSA__SIMD_AVX512 ? names[level] : "unknown";
}

ossa__simd_level ossa__simd_cpu(void) {
#if defined(OSSA_SCALAR_ONLY) || !(defined(__x86_64__) || defined(__i386__))
    return OSSA__SIMD_SCALAR;
#else
    if (!__builtin_cpu_supports("sse4.1") || !__builtin_cpu_supports("popcnt")) return OSSA__SIMD_SCALAR;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return OSSA__SIMD_SSE4;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq"))
        return OSSA__SIMD_AVX512;
    return OSSA__SIMD_AVX2;
#endif
}

static atomic_int forced = -1; /* ossa__simd_set_cap's cap; -1 = OSSA_SIMD's */
static atomic_int chosen = -1; /* the level; -1 = not known yet */

static int env_cap(void) {
    const char *e = getenv("OSSA_SIMD");
    if (!e || !*e) return OSSA__SIMD_AVX512;
    for (int l = OSSA__SIMD_SCALAR; l <= OSSA__SIMD_AVX512; l++)
        if (!strcmp(e, names[l])) return l;
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "ossa: OSSA_SIMD=%s is not scalar, sse4, avx2 or avx512: ignored\n", e);
    return OSSA__SIMD_AVX512;
}

ossa__simd_level ossa__simd(void) {
    int level = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (level >= 0) return (ossa__simd_level)level;
    int cap = atomic_load(&forced);
    if (cap < 0) cap = env_cap();
    level = (int)ossa__simd_cpu();
    if (level > cap) level = cap;
    atomic_store_explicit(&chosen, level, memory_order_relaxed);
    return (ossa__simd_level)level;
}

void ossa__simd_set_cap(int cap) {
    atomic_store(&forced, cap < 0 ? -1 : cap > OSSA__SIMD_AVX512 ? OSSA__SIMD_AVX512 : cap);
    atomic_store(&chosen, -1);
}
