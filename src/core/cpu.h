/* The one SIMD layer's CPU query (not installed): every kernel dispatcher (skinning, pose,
 * sampling) and every other run-time ISA choice asks ossa__simd() and nothing else. */
#ifndef OSSA_CORE_CPU_H
#define OSSA_CORE_CPU_H

/* The ISA levels, each implying the ones below it. A level is what its kernels' files are
 * built with (CMakeLists.txt) and what the CPU must have to run them:
 *   SSE4:   SSE4.1 and POPCNT (*_sse.c: -msse4.1);
 *   AVX2:   AVX2 and FMA (*_avx2.c: -mavx2 -mfma);
 *   AVX512: AVX-512 F, VL, BW and DQ, with AVX2 and FMA (*_avx512.c: -mavx512f -mavx512vl
 *           -mavx512bw -mavx512dq -mavx2 -mfma, so the compiler may use any of them). */
typedef enum { OSSA__SIMD_SCALAR, OSSA__SIMD_SSE4, OSSA__SIMD_AVX2, OSSA__SIMD_AVX512 } ossa__simd_level;

/* The level the kernels run at: the highest this CPU supports, capped by the environment
 * variable OSSA_SIMD=scalar|sse4|avx2|avx512 (read once; an unknown value is reported once on
 * stderr and ignored) and by a scalar-only build (-DOSSA_SIMD_KERNELS=OFF: always scalar). One
 * relaxed atomic load once known. */
ossa__simd_level ossa__simd(void);

/* The highest level this CPU supports and this build has, whatever the cap (the tests run each
 * kernel it allows against the scalar one). */
ossa__simd_level ossa__simd_cpu(void);

/* Test hook: caps the level (a level, or a negative value: read OSSA_SIMD again). */
void ossa__simd_set_cap(int cap);

/* "scalar", "sse4", "avx2", "avx512": the OSSA_SIMD spelling. */
const char *ossa__simd_name(ossa__simd_level level);

#endif
