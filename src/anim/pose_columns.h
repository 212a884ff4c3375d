/* Model matrices carried in registers as four 128-bit columns: what the SSE4.1 and AVX2
 * local-to-model kernels share (SSE2 operations only; included by pose_sse.c and pose_avx2.c). */
#ifndef OSSA_POSE_COLUMNS_H
#define OSSA_POSE_COLUMNS_H

#include <immintrin.h>

#include "anim/pose_internal.h"

/* A model matrix as four 128-bit columns. */
typedef struct columns4 {
    __m128 c[4];
} columns4;

/* Joint i's parent columns: the joint just computed (prev) from registers when it is the
 * parent and inside the range (no store-to-load forward on a chain), else loaded from out
 * (or the identity for a root). */
static inline columns4 parent_columns(const columns4 *prev, const int32_t *parents, const ossa_mat4 *out,
                                      uint32_t i, uint32_t begin) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    int32_t p = parents[i];
    columns4 a = *prev;
    if (!(p >= 0 && (uint32_t)p + 1 == i && i > begin)) {
        const float *A = p < 0 ? identity.m : out[p].m;
        for (int c = 0; c < 4; c++) a.c[c] = _mm_loadu_ps(A + 4 * c);
    }
    return a;
}

/* Stores m with the rotation columns' w lanes cleared (they are left as computed in
 * registers), so memory gets exactly the scalar pass's 0 0 0 1 row. */
static inline void store_columns(const columns4 *m, float *o) {
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    for (int c = 0; c < 3; c++) _mm_storeu_ps(o + 4 * c, _mm_and_ps(m->c[c], xyz));
    _mm_storeu_ps(o + 12, m->c[3]);
}

#endif
