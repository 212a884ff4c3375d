/* Private kernels of the local-to-model and palette jobs (see ossa/pose.h).
 *
 * Every kernel computes the same values as the scalar reference (ossa__trs_to_mat4 then
 * ossa__mat4_mul_affine_scalar, and ossa__mat4_mul for the palette): same operations in
 * the same order, no FMA contraction, so the results are equal as floats (a root joint is
 * multiplied by the identity instead of copied, which can only turn a -0 into +0). */
#ifndef OSSA_POSE_INTERNAL_H
#define OSSA_POSE_INTERNAL_H

#include <ossa/pose.h>

/* True when m's last row is 0 0 0 1: the palette kernels take the affine product then (the
 * scalar palette_entry's choice; a model matrix always is). */
static inline bool ossa__mat4_affine(const ossa_mat4 *m) {
    return m->m[3] == 0.0f && m->m[7] == 0.0f && m->m[11] == 0.0f && m->m[15] == 1.0f;
}

/* Forward pass over joints [begin, end) (parents[i] < i; parents of the range already in out). */
typedef void (*ossa__to_model_fn)(const ossa_transform *locals, const int32_t *parents, uint32_t begin,
                                  uint32_t end, ossa_mat4 *out);
/* out[skin_layout ? i : joints[i]] = model[joints[i]] * inverse_bind[i] for i < count (4x4 product). */
typedef void (*ossa__palette_fn)(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                                 uint32_t count, bool skin_layout, ossa_mat4 *out);

/* The SIMD kernels (pose_sse.c, pose_avx2.c, pose_avx512.c), chosen by the level of the one SIMD
 * layer (core/cpu.h). */
void ossa__to_model_sse(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                        ossa_mat4 *out);
void ossa__palette_sse(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                       bool skin_layout, ossa_mat4 *out);
void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out);
void ossa__palette_avx2(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                        bool skin_layout, ossa_mat4 *out);
void ossa__to_model_avx512(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                           ossa_mat4 *out);
void ossa__palette_avx512(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                          uint32_t count, bool skin_layout, ossa_mat4 *out);

/* The palette batch kernels: the palettes of poses [0, count) of the skeleton, one pose per lane,
 * 4 (pose_sse.c), 8 (pose_avx2.c) or 16 (pose_avx512.c) a pass (the last pass may have fewer);
 * scratch holds 12 floats a joint a lane (the model matrices of a pass's poses, SoA: 192 a joint
 * for 16). Skin entries only: the caller writes the identities. */
typedef void (*ossa__palette_batch_fn)(const ossa_skeleton *skeleton, const ossa_skin *skin,
                                       const ossa_transform *const *locals, ossa_mat4 *const *outputs, uint32_t count,
                                       bool skin_layout, float *scratch);
void ossa__palette_batch_sse(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                             ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch);
void ossa__palette_batch_avx2(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                              ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch);
void ossa__palette_batch_avx512(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                                ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch);

#endif
