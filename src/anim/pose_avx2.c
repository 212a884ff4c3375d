/* AVX2 build of the pose kernels (src/anim/pose_simd.h; built with -mavx2 -mfma, and the
 * ISO C mode keeps -ffp-contract=off, so no FMA: the values equal the scalar path's). */
#define POSE_SIMD_NAME(x) avx2_##x
#include "anim/pose_simd.h"

void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    avx2_to_model(locals, parents, begin, end, out);
}

void ossa__palette_avx2(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                        bool skin_layout, ossa_mat4 *out) {
    avx2_palette(model, joints, inverse_bind, count, skin_layout, out);
}
