/* The local matrices of a block of up to 8 joints, computed SoA (one joint per 256-bit
 * lane), and the 8 x 8 transpose: shared by the AVX2 and AVX-512 pose kernels (in a file built
 * with -mavx2 or more). */
#ifndef OSSA_POSE_BLOCK_H
#define OSSA_POSE_BLOCK_H

#include <immintrin.h>

#include "anim/pose_internal.h"

/* The AVX2 kernel stores these SoA rows and splats a joint's entries from them by broadcast
 * loads; the AVX-512 one permutes them in registers. Earlier forms (each local matrix built
 * in registers, the SoA fields gathered, the rows transposed back to matrices) are in
 * docs/performance.md, "Pose kernel designs". */
enum { BLOCK = 8 };

/* The local matrices of 8 transforms (lane g: *t[g]), SoA (the scalar ossa__trs_to_mat4's
 * operations, one transform per lane): c01 = rows 0..3 of columns 0 and 1, c23 = of columns 2
 * and 3. */
static inline void local_soa_of(const ossa_transform *const t[8], __m256 c01[8], __m256 c23[8]) {
    /* AoS -> SoA: three 4x4 transposes of 4-float windows: (tx ty tz qx), (qx qy qz qw),
     * (qw sx sy sz) */
    __m256 r[3][4];
    for (int g = 0; g < 4; g++) {
        const ossa_transform *lo = t[g], *hi = t[g + 4];
        r[0][g] = _mm256_set_m128(_mm_loadu_ps(&hi->translation.x), _mm_loadu_ps(&lo->translation.x));
        r[1][g] = _mm256_set_m128(_mm_loadu_ps(&hi->rotation.x), _mm_loadu_ps(&lo->rotation.x));
        r[2][g] = _mm256_set_m128(_mm_loadu_ps(&hi->rotation.w), _mm_loadu_ps(&lo->rotation.w));
    }
    __m256 f[3][4];
    for (int m = 0; m < 3; m++) {
        __m256 t0 = _mm256_unpacklo_ps(r[m][0], r[m][1]), t1 = _mm256_unpacklo_ps(r[m][2], r[m][3]);
        __m256 t2 = _mm256_unpackhi_ps(r[m][0], r[m][1]), t3 = _mm256_unpackhi_ps(r[m][2], r[m][3]);
        f[m][0] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
        f[m][1] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
        f[m][2] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
        f[m][3] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
    __m256 x = f[1][0], y = f[1][1], z = f[1][2], w = f[1][3];
    __m256 sx = f[2][1], sy = f[2][2], sz = f[2][3];
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    __m256 x2 = _mm256_add_ps(x, x), y2 = _mm256_add_ps(y, y), z2 = _mm256_add_ps(z, z);
    __m256 xx = _mm256_mul_ps(x, x2), yy = _mm256_mul_ps(y, y2), zz = _mm256_mul_ps(z, z2);
    __m256 xy = _mm256_mul_ps(x, y2), xz = _mm256_mul_ps(x, z2), yz = _mm256_mul_ps(y, z2);
    __m256 wx = _mm256_mul_ps(w, x2), wy = _mm256_mul_ps(w, y2), wz = _mm256_mul_ps(w, z2);
    c01[0] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sx);
    c01[1] = _mm256_mul_ps(_mm256_add_ps(xy, wz), sx);
    c01[2] = _mm256_mul_ps(_mm256_sub_ps(xz, wy), sx);
    c01[3] = zero;
    c01[4] = _mm256_mul_ps(_mm256_sub_ps(xy, wz), sy);
    c01[5] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sy);
    c01[6] = _mm256_mul_ps(_mm256_add_ps(yz, wx), sy);
    c01[7] = zero;
    c23[0] = _mm256_mul_ps(_mm256_add_ps(xz, wy), sz);
    c23[1] = _mm256_mul_ps(_mm256_sub_ps(yz, wx), sz);
    c23[2] = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sz);
    c23[3] = zero;
    c23[4] = f[0][0], c23[5] = f[0][1], c23[6] = f[0][2], c23[7] = one;
}

/* The local matrices of up to 8 consecutive joints t[0 .. count), as local_soa_of (lanes past
 * count repeat the last joint, so nothing past the range is read). */
static inline void local_soa(const ossa_transform *t, uint32_t count, __m256 c01[8], __m256 c23[8]) {
    const ossa_transform *lane[8];
    for (uint32_t g = 0; g < 8; g++) lane[g] = &t[g < count ? g : count - 1];
    local_soa_of(lane, c01, c23);
}

/* The 8 x 8 transpose: row i's lane l becomes row l's lane i (the palette batch kernels turn
 * their SoA results, one pose a lane, into each pose's matrix columns with it). */
static inline void transpose8(__m256 r[8]) {
    __m256 t[8], s[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) { /* rows 0-3 (h = 0) and 4-7 */
        s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(s[i], s[4 + i], 0x20);
        r[4 + i] = _mm256_permute2f128_ps(s[i], s[4 + i], 0x31);
    }
}

#endif
