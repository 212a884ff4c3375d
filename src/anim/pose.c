/* Local pose -> model-space matrices -> skin palette; pose blending (see ossa/pose.h). */
#include <ossa/pose.h>

#include "math/fast.h"

bool ossa_pose_parents_first(const int32_t *parents, uint32_t joint_count) {
    if (!parents) return joint_count == 0;
    for (uint32_t i = 0; i < joint_count; i++)
        if (parents[i] < -1 || parents[i] >= (int64_t)i) return false;
    return true;
}

ossa_mat4 ossa_pose_joint_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                                   uint32_t joint) {
    if (!locals || joint >= joint_count) return ossa_mat4_identity();
    ossa_mat4 m, local, tmp;
    ossa__trs_to_mat4(&locals[joint], &m);
    if (!parents) return m;
    int32_t p = parents[joint];
    for (uint32_t steps = 1; p >= 0 && (uint32_t)p < joint_count && steps < joint_count; steps++) {
        ossa__trs_to_mat4(&locals[p], &local);
        ossa__mat4_mul_affine_scalar(&local, &m, &tmp); /* local was just written by scalar stores */
        m = tmp;
        p = parents[p];
    }
    return m;
}

ossa_transform ossa_pose_joint_to_model_transform(const ossa_transform *locals, const int32_t *parents,
                                                  uint32_t joint_count, uint32_t joint) {
    if (!locals || joint >= joint_count) return ossa_transform_identity();
    ossa_transform t = locals[joint];
    if (!parents) return t;
    int32_t p = parents[joint];
    for (uint32_t steps = 1; p >= 0 && (uint32_t)p < joint_count && steps < joint_count; steps++) {
        t = ossa_transform_combine(locals[p], t);
        p = parents[p];
    }
    return t;
}

void ossa_pose_to_model_range(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                              ossa_mat4 *out) {
    ossa_mat4 local;
    for (uint32_t i = begin; i < end; i++) {
        int32_t p = parents[i];
        if (p < 0) {
            ossa__trs_to_mat4(&locals[i], &out[i]);
        } else {
            ossa__trs_to_mat4(&locals[i], &local);
            ossa__mat4_mul_affine(&out[p], &local, &out[i]);
        }
    }
}

ossa_result ossa_pose_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                               ossa_mat4 *out) {
    if (joint_count == 0) return OSSA_OK;
    if (!locals || !parents || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    bool forward = true;
    for (uint32_t i = 0; i < joint_count; i++) {
        int32_t p = parents[i];
        if (p < -1 || (p >= 0 && (uint32_t)p >= joint_count)) return OSSA_ERROR_INVALID_ARGUMENT;
        if (p >= (int64_t)i) forward = false;
    }
    if (forward) {
        ossa_pose_to_model_range(locals, parents, 0, joint_count, out);
    } else {
        for (uint32_t i = 0; i < joint_count; i++) out[i] = ossa_pose_joint_to_model(locals, parents, joint_count, i);
    }
    return OSSA_OK;
}

void ossa_pose_palette(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                       uint32_t count, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++) {
        const ossa_mat4 *m = &model[joints ? joints[i] : i], *b = &inverse_bind[i];
        /* Both affine (the glTF case): the 3x4 product; otherwise the full 4x4 one. */
        if (b->m[3] == 0.0f && b->m[7] == 0.0f && b->m[11] == 0.0f && b->m[15] == 1.0f && m->m[3] == 0.0f &&
            m->m[7] == 0.0f && m->m[11] == 0.0f && m->m[15] == 1.0f)
            ossa__mat4_mul_affine(m, b, &out[i]);
        else
            ossa__mat4_mul(m, b, &out[i]);
    }
}

void ossa_pose_blend(const ossa_transform *a, const ossa_transform *b, float t, uint32_t joint_count,
                     ossa_transform *out) {
    for (uint32_t i = 0; i < joint_count; i++) {
        ossa_transform r;
        r.translation = ossa_vec3_lerp(a[i].translation, b[i].translation, t);
        r.rotation = ossa_quat_nlerp(a[i].rotation, b[i].rotation, t);
        r.scale = ossa_vec3_lerp(a[i].scale, b[i].scale, t);
        out[i] = r;
    }
}
