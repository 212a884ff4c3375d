/* AVX-512 decode + lerp / nlerp kernels of the sampling job, its exact slerp kernel (16 channels
 * per step) and its raw-lane unpack kernel (8 lanes per gather, masked tail) (built with -mavx512f). */
#include <immintrin.h>

#define OSSA__K_NAME ossa__lerp_avx512
#define OSSA__K_W 16u
#define V __m512
#define V_LD _mm512_loadu_ps
#define V_ST _mm512_storeu_ps
#define V_SET1 _mm512_set1_ps
#define V_ADD _mm512_add_ps
#define V_SUB _mm512_sub_ps
#define V_MUL _mm512_mul_ps
#define V_DIV _mm512_div_ps
#define V_SQRT _mm512_sqrt_ps
#define V_MIN _mm512_min_ps
#define V_MAX _mm512_max_ps
#define V_XOR _mm512_xor_ps
#define V_NEGSIGN(x) _mm512_maskz_mov_ps(_mm512_cmp_ps_mask((x), zero, _CMP_LT_OQ), _mm512_set1_ps(-0.0f))
#define OSSA__K_SLERP_NAME ossa__slerp_avx512
#define M __mmask16
#define V_GE(x, y) _mm512_cmp_ps_mask((x), (y), _CMP_GE_OQ)
#define V_GT(x, y) _mm512_cmp_ps_mask((x), (y), _CMP_GT_OQ)
#define V_LTM(x, y) _mm512_cmp_ps_mask((x), (y), _CMP_LT_OQ)
#define V_MAND(x, y) ((__mmask16)((x) & (y)))
#define V_BLEND(m, x, y) _mm512_mask_blend_ps((m), (x), (y))
#define V_MOVEMASK(m) ((int)(m))
#define V_UNPACKLO _mm512_unpacklo_ps
#define V_UNPACKHI _mm512_unpackhi_ps
#define V_LO64(a, b) _mm512_shuffle_ps((a), (b), _MM_SHUFFLE(1, 0, 1, 0))
#define V_HI64(a, b) _mm512_shuffle_ps((a), (b), _MM_SHUFFLE(3, 2, 3, 2))
#define V_ST_LANE4(p, v, L) _mm_storeu_ps((p), lane4((v), (L)))
static inline __m128 lane4(__m512 v, unsigned L) { /* L is a constant once the caller's loop unrolls */
    switch (L) {
    case 0: return _mm512_castps512_ps128(v);
    case 1: return _mm512_extractf32x4_ps(v, 1);
    case 2: return _mm512_extractf32x4_ps(v, 2);
    default: return _mm512_extractf32x4_ps(v, 3);
    }
}
#define V_LOAD4X(base, off)                                                                                 \
    _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_set_m128(_mm_loadu_ps((base) + (off)[4]), _mm_loadu_ps((base) + (off)[0]))), \
                       _mm256_set_m128(_mm_loadu_ps((base) + (off)[12]), _mm_loadu_ps((base) + (off)[8])), 1)
#include "anim/sample_kernel.h"

/* ossa__unpack_scalar 8 lanes at a time: 32-bit bit positions, one 8-qword gather (the stream
 * is followed by >= 8 readable bytes), shifted per lane; the tail masked. */
void ossa__unpack_avx512(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                         float *out) {
    const __m256i vk = _mm256_set1_epi32((int)k), seven = _mm256_set1_epi32(7), sign = _mm256_set1_epi32(INT32_MIN);
    const __m256i byte8 = _mm256_set1_epi32(0xFF), one = _mm256_set1_epi32(1);
    for (uint32_t i = begin; i < end; i += 8u) {
        __mmask8 live = (__mmask8)(end - i >= 8u ? 0xFFu : (1u << (end - i)) - 1u);
        __m256i pos = _mm256_maskz_loadu_epi32(live, tab->pos + i);
        __m256i per = _mm256_and_si256(_mm256_srli_epi32(pos, 8), byte8);
        __m256i bit = _mm256_add_epi32(_mm256_mullo_epi32(per, vk), _mm256_and_si256(pos, byte8));
        __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, _mm256_srli_epi32(pos, 16)), one); /* 32 bits: 0 - 1 */
        __m256i byte = _mm256_add_epi32(_mm256_maskz_loadu_epi32(live, tab->off + i), _mm256_srli_epi32(bit, 3));
        __m512i w = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), live, byte, block, 1);
        w = _mm512_srlv_epi64(w, _mm512_cvtepu32_epi64(_mm256_and_si256(bit, seven)));
        __m256i f = _mm512_cvtepi64_epi32(w); /* the low dwords */
        f = _mm256_add_epi32(_mm256_and_si256(f, mask), _mm256_maskz_loadu_epi32(live, tab->base + i));
        /* ossa__ord_float: top bit set: clear it; else flip every bit */
        __m256i x = _mm256_or_si256(_mm256_xor_si256(_mm256_srai_epi32(f, 31), _mm256_set1_epi32(-1)), sign);
        _mm256_mask_storeu_ps(out + i, live, _mm256_castsi256_ps(_mm256_xor_si256(f, x)));
    }
}
