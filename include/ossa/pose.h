/* ossa/pose.h: local pose → model-space matrices → skin palette, and pose blending.
 *
 * A pose is an array of local transforms plus parent indices (-1 = root), both
 * joint_count long and owned by the caller. When every parent index is lower
 * than its child's (ossa skeletons guarantee it) local-to-model is one forward
 * pass; otherwise a general fallback walks each chain. All functions here are
 * allocation-free and write into caller buffers; ranges let a job system split work. */
#ifndef OSSA_POSE_H
#define OSSA_POSE_H

#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when parents[i] < i for every joint (and -1 <= parents[i]). */
bool ossa_pose_parents_first(const int32_t *parents, uint32_t joint_count);

/* Model-space matrix of one joint by walking its parent chain (the reference path).
 * A chain longer than joint_count (a cycle) stops there. */
ossa_mat4 ossa_pose_joint_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                                   uint32_t joint);
/* The same as a TRS transform, composed with ossa_transform_combine along the chain (the
 * seed's Pose::GetGlobalTransform; exact for uniform scale, like every TRS product). */
ossa_transform ossa_pose_joint_to_model_transform(const ossa_transform *locals, const int32_t *parents,
                                                  uint32_t joint_count, uint32_t joint);

/* Model-space matrices of all joints into out[joint_count]: one forward pass when
 * parents come first, else the per-joint chain walk. INVALID_ARGUMENT on NULLs or
 * a parent index >= joint_count. */
ossa_result ossa_pose_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                               ossa_mat4 *out);

/* Forward pass over joints [begin, end) only; requires parents-first order and the
 * parents of the range already computed in out. For job systems. */
void ossa_pose_to_model_range(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                              ossa_mat4 *out);

/* Skin palette: out[i] = model[joints[i]] * inverse_bind[i] for i in [0, count).
 * (For skeleton-indexed palettes pass joints = NULL: out[i] = model[i] * inverse_bind[i].) */
void ossa_pose_palette(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                       uint32_t count, ossa_mat4 *out);

/* out[i] = blend of a[i] and b[i] by t in [0,1]: lerp translation/scale, nlerp rotation
 * along the shorter arc. out may alias a or b. */
void ossa_pose_blend(const ossa_transform *a, const ossa_transform *b, float t, uint32_t joint_count,
                     ossa_transform *out);

#ifdef __cplusplus
}
#endif
#endif
