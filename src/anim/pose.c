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

/* Forward pass over joints [begin, end); parents of the range are already in out. */
static void to_model_forward(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
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

/* Joint count and parents of a job (skeleton first). */
static uint32_t job_hierarchy(const ossa_local_to_model_job *job, const int32_t **parents) {
    if (job->skeleton) {
        *parents = job->skeleton->parents;
        return job->skeleton->joint_count;
    }
    *parents = job->parents;
    return job->parent_count;
}

ossa_result ossa_local_to_model_job_validate(const ossa_local_to_model_job *job) {
    if (!job || !job->input || !job->output) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!job->skeleton && !job->parents) return OSSA_ERROR_INVALID_ARGUMENT;
    const int32_t *parents;
    uint32_t n = job_hierarchy(job, &parents);
    if (job->begin > job->end || job->end > n) return OSSA_ERROR_INVALID_ARGUMENT;
    if (n && !parents) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!job->skeleton) {
        bool ranged = job->begin != 0 || job->end != 0;
        for (uint32_t i = 0; i < n; i++) {
            int32_t p = parents[i];
            if (p < -1 || (p >= 0 && (uint32_t)p >= n)) return OSSA_ERROR_INVALID_ARGUMENT;
            /* a range is one forward pass: its joints' parents must come first */
            if (ranged && i >= job->begin && i < job->end && p >= (int64_t)i) return OSSA_ERROR_INVALID_ARGUMENT;
        }
    }
    if (job->input_count < n || job->output_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    return OSSA_OK;
}

ossa_result ossa_local_to_model_job_run(const ossa_local_to_model_job *job) {
    ossa_result r = ossa_local_to_model_job_validate(job);
    if (r != OSSA_OK) return r;
    const int32_t *parents;
    uint32_t n = job_hierarchy(job, &parents);
    if (job->begin != 0 || job->end != 0) {
        to_model_forward(job->input, parents, job->begin, job->end, job->output);
    } else if (job->skeleton || ossa_pose_parents_first(parents, n)) {
        to_model_forward(job->input, parents, 0, n, job->output);
    } else {
        for (uint32_t i = 0; i < n; i++) job->output[i] = ossa_pose_joint_to_model(job->input, parents, n, i);
    }
    return OSSA_OK;
}

/* out = m * b: the affine 3x4 product when both are affine (the glTF case), else 4x4. */
static inline void palette_entry(const ossa_mat4 *m, const ossa_mat4 *b, ossa_mat4 *out) {
    if (b->m[3] == 0.0f && b->m[7] == 0.0f && b->m[11] == 0.0f && b->m[15] == 1.0f && m->m[3] == 0.0f &&
        m->m[7] == 0.0f && m->m[11] == 0.0f && m->m[15] == 1.0f)
        ossa__mat4_mul_affine(m, b, out);
    else
        ossa__mat4_mul(m, b, out);
}

ossa_result ossa_palette_job_validate(const ossa_palette_job *job) {
    if (!job || !job->skeleton || !job->model || !job->output) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_skeleton *s = job->skeleton;
    if (job->skin >= s->skin_count) return OSSA_ERROR_INVALID_ARGUMENT;
    if (job->layout != OSSA_PALETTE_LAYOUT_SKELETON && job->layout != OSSA_PALETTE_LAYOUT_SKIN)
        return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t need = job->layout == OSSA_PALETTE_LAYOUT_SKIN ? s->skins[job->skin].joint_count : s->joint_count;
    if (job->model_count < s->joint_count || job->output_count < need) return OSSA_ERROR_BUFFER_TOO_SMALL;
    return OSSA_OK;
}

ossa_result ossa_palette_job_run(const ossa_palette_job *job) {
    ossa_result r = ossa_palette_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *s = job->skeleton;
    const ossa_skin *sk = &s->skins[job->skin];
    const ossa_mat4 *model = job->model;
    ossa_mat4 *out = job->output;
    if (job->layout == OSSA_PALETTE_LAYOUT_SKIN) {
        /* skin joints are < joint_count (ossa_skeleton_create checks them) */
        for (uint32_t i = 0; i < sk->joint_count; i++) palette_entry(&model[sk->joints[i]], &sk->inverse_bind[i], &out[i]);
    } else {
        /* identity only where the skin lists no joint (the list ossa_skeleton_create made) */
        const ossa_mat4 identity = ossa_mat4_identity();
        for (uint32_t u = 0; u < sk->unused_count; u++) out[sk->unused[u]] = identity;
        for (uint32_t i = 0; i < sk->joint_count; i++) {
            uint32_t j = sk->joints[i];
            palette_entry(&model[j], &sk->inverse_bind[i], &out[j]);
        }
    }
    return OSSA_OK;
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
