/* AVX2 lerp / nlerp kernel of the sampling job: 8 channels per step (built with -mavx2). */
#include <immintrin.h>

#include "anim/built_clip_internal.h"

void ossa__lerp_avx2(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    const __m256 vt = _mm256_set1_ps(t), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    uint32_t i = begin;
    int comps = rotation ? 4 : 3;
    for (; i < end; i += 8) { /* whole vectors: the arrays have OSSA__LERP_SLACK spare entries */
        __m256 s = _mm256_mul_ps(_mm256_sub_ps(vt, _mm256_loadu_ps(soa->t0 + i)), _mm256_loadu_ps(soa->inv + i));
        s = _mm256_min_ps(_mm256_max_ps(s, zero), one);
        if (rotation) {
            __m256 h = _mm256_sub_ps(s, half);
            __m256 k = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(soa->ka + i), _mm256_mul_ps(h, h)), _mm256_loadu_ps(soa->kb + i));
            s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(s, h), _mm256_sub_ps(s, one)), k));
        }
        __m256 v[4];
        for (int c = 0; c < comps; c++) {
            __m256 a = _mm256_loadu_ps(soa->a[c] + i), b = _mm256_loadu_ps(soa->b[c] + i);
            v[c] = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), s));
        }
        if (rotation) {
            __m256 n2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(v[0], v[0]), _mm256_mul_ps(v[1], v[1])),
                                              _mm256_mul_ps(v[2], v[2])),
                                   _mm256_mul_ps(v[3], v[3]));
            __m256 n = _mm256_div_ps(one, _mm256_sqrt_ps(n2));
            for (int c = 0; c < 4; c++) v[c] = _mm256_mul_ps(v[c], n);
        }
        for (int c = 0; c < comps; c++) _mm256_storeu_ps(soa->o[c] + i, v[c]);
    }
}
