/* AVX-512 decode + lerp / nlerp kernels of the sampling job, and its exact slerp kernel: 16 channels per step (built with -mavx512f). */
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
#include "anim/sample_kernel.h"
