/* AVX-512 decode + lerp / nlerp kernel of the sampling job: 16 channels per step (built with -mavx512f). */
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
#include "anim/sample_kernel.h"
