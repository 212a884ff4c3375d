/* SSE4.1 lerp / nlerp kernel of the sampling job: 4 channels per step (built with -msse4.1). */
#include <immintrin.h>

#include "anim/built_clip_internal.h"

void ossa__lerp_sse(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    const __m128 vt = _mm_set1_ps(t), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), half = _mm_set1_ps(0.5f);
    uint32_t i = begin;
    int comps = rotation ? 4 : 3;
    for (; i < end; i += 4) { /* whole vectors: the arrays have OSSA__LERP_SLACK spare entries */
        __m128 s = _mm_mul_ps(_mm_sub_ps(vt, _mm_loadu_ps(soa->t0 + i)), _mm_loadu_ps(soa->inv + i));
        s = _mm_min_ps(_mm_max_ps(s, zero), one);
        if (rotation) {
            __m128 h = _mm_sub_ps(s, half);
            __m128 k = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(soa->ka + i), _mm_mul_ps(h, h)), _mm_loadu_ps(soa->kb + i));
            s = _mm_add_ps(s, _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(s, h), _mm_sub_ps(s, one)), k));
        }
        __m128 v[4];
        for (int c = 0; c < comps; c++) {
            __m128 a = _mm_loadu_ps(soa->a[c] + i), b = _mm_loadu_ps(soa->b[c] + i);
            v[c] = _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), s));
        }
        if (rotation) {
            __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], v[0]), _mm_mul_ps(v[1], v[1])),
                                              _mm_mul_ps(v[2], v[2])),
                                   _mm_mul_ps(v[3], v[3]));
            __m128 n = _mm_div_ps(one, _mm_sqrt_ps(n2));
            for (int c = 0; c < 4; c++) v[c] = _mm_mul_ps(v[c], n);
        }
        for (int c = 0; c < comps; c++) _mm_storeu_ps(soa->o[c] + i, v[c]);
    }
}
