/* Local pose -> model-space matrices -> skin palette; pose blending (see ossa/pose.h). */
#include <ossa/pose.h>

#include <string.h>

#include "core/cpu.h"
#include "core/job.h"
#include "anim/pose_internal.h"
#include "math/fast.h"

/* The SIMD kernels (pose_sse.c, pose_avx2.c, pose_avx512.c) run at their levels of the one SIMD
 * layer (core/cpu.h); a scalar-only build (OSSA_SCALAR_ONLY) has none. */

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

/* Forward pass over joints [begin, end); parents of the range are already in out. The
 * scalar reference kernel (always built; OSSA_SIMD=scalar selects it). */
static void to_model_scalar(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                            ossa_mat4 *out) {
    ossa_mat4 local;
    for (uint32_t i = begin; i < end; i++) {
        int32_t p = parents[i];
        if (p < 0) {
            ossa__trs_to_mat4(&locals[i], &out[i]);
        } else {
            ossa__trs_to_mat4(&locals[i], &local);
            ossa__mat4_mul_affine_scalar(&out[p], &local, &out[i]);
        }
    }
}

static void to_model_forward(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                             ossa_mat4 *out) {
    static const ossa__to_model_fn table[] = {
        [OSSA__SIMD_SCALAR] = to_model_scalar,
#if !defined(OSSA_SCALAR_ONLY)
        [OSSA__SIMD_SSE4] = ossa__to_model_sse,
        [OSSA__SIMD_AVX2] = ossa__to_model_avx2,
        [OSSA__SIMD_AVX512] = ossa__to_model_avx512,
#endif
    };
    ossa__simd_level k = ossa__simd();
#if !defined(OSSA_SCALAR_ONLY)
    if (end - begin < 2 && k > OSSA__SIMD_SSE4) k = OSSA__SIMD_SSE4; /* one joint fills no SoA block */
#endif
    table[k](locals, parents, begin, end, out);
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

ossa_result ossa_local_to_model_job_validate(const ossa_local_to_model_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->skeleton && !job->parents) return ossa__job_fail(diag, bad, "skeleton", "neither skeleton nor parents");
    if (!job->input) return ossa__job_fail(diag, bad, "input", "NULL");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    const int32_t *parents;
    uint32_t n = job_hierarchy(job, &parents);
    if (job->begin > job->end) return ossa__job_fail(diag, bad, "begin", "%u > end %u", job->begin, job->end);
    if (job->end > n) return ossa__job_fail(diag, bad, "end", "%u > joint count %u", job->end, n);
    if (n && !parents) return ossa__job_fail(diag, bad, "skeleton", "no parents");
    if (!job->skeleton) {
        bool ranged = job->begin != 0 || job->end != 0;
        for (uint32_t i = 0; i < n; i++) {
            int32_t p = parents[i];
            if (p < -1 || (p >= 0 && (uint32_t)p >= n))
                return ossa__job_fail(diag, bad, "parents", "parents[%u] = %d outside [-1, %u)", i, (int)p, n);
            /* a range is one forward pass: its joints' parents must come first */
            if (ranged && i >= job->begin && i < job->end && p >= (int64_t)i)
                return ossa__job_fail(diag, bad, "parents", "parents[%u] = %d does not come first in the range", i,
                                      (int)p);
        }
    }
    if (job->input_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "input_count", "%u < %u joints", job->input_count, n);
    if (job->output_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < %u joints", job->output_count,
                              n);
    return OSSA_OK;
}

ossa_result ossa_local_to_model_job_run(ossa_local_to_model_job *job) {
    ossa_result r = ossa_local_to_model_job_validate(job, NULL);
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

/* The scalar palette kernel: out = m * b, the affine 3x4 product when both are affine (the
 * glTF case), else 4x4. The SIMD kernels always do the 4x4 product: for affine matrices
 * its extra terms are exact zeros, so the values are the same without the per-entry test. */
static inline void palette_entry(const ossa_mat4 *m, const ossa_mat4 *b, ossa_mat4 *out) {
    if (ossa__mat4_affine(b) && ossa__mat4_affine(m))
        ossa__mat4_mul_affine_scalar(m, b, out);
    else
        ossa__mat4_mul(m, b, out);
}

static void palette_scalar(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                           uint32_t count, bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        palette_entry(&model[joints[i]], &inverse_bind[i], &out[skin_layout ? i : joints[i]]);
}

/* What both palette jobs check first: the skeleton, the skin index and the layout; *need: the
 * entries a palette of that layout has. */
static ossa_result palette_skin_validate(const ossa_skeleton *s, uint32_t skin, ossa_palette_layout layout,
                                         ossa_diagnostic *diag, uint32_t *need) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!s) return ossa__job_fail(diag, bad, "skeleton", "NULL");
    if (skin >= s->skin_count) return ossa__job_fail(diag, bad, "skin", "%u >= skin count %u", skin, s->skin_count);
    if (layout != OSSA_PALETTE_LAYOUT_SKELETON && layout != OSSA_PALETTE_LAYOUT_SKIN)
        return ossa__job_fail(diag, bad, "layout", "unknown layout %d", (int)layout);
    *need = layout == OSSA_PALETTE_LAYOUT_SKIN ? s->skins[skin].joint_count : s->joint_count;
    return OSSA_OK;
}

ossa_result ossa_palette_job_validate(const ossa_palette_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    uint32_t need = 0;
    ossa_result r = palette_skin_validate(job->skeleton, job->skin, job->layout, diag, &need);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *s = job->skeleton;
    if (!job->model) return ossa__job_fail(diag, bad, "model", "NULL");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    if (job->model_count < s->joint_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "model_count", "%u < %u joints", job->model_count,
                              s->joint_count);
    if (job->output_count < need)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < %u entries",
                              job->output_count, need);
    return OSSA_OK;
}

/* Identity for every joint the skin does not list (the list ossa_skeleton_create made): the
 * SKELETON layout's entries no product writes. */
static void palette_identities(const ossa_skin *sk, ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    for (uint32_t u = 0; u < sk->unused_count; u++) out[sk->unused[u]] = identity;
}

/* The palette kernel of the SIMD level (skin joints are < joint_count: ossa_skeleton_create
 * checks them). */
static void palette_run(const ossa_mat4 *model, const ossa_skin *sk, bool skin_layout, ossa_mat4 *out) {
    static const ossa__palette_fn table[] = {
        [OSSA__SIMD_SCALAR] = palette_scalar,
#if !defined(OSSA_SCALAR_ONLY)
        [OSSA__SIMD_SSE4] = ossa__palette_sse,
        [OSSA__SIMD_AVX2] = ossa__palette_avx2,
        [OSSA__SIMD_AVX512] = ossa__palette_avx512,
#endif
    };
    table[ossa__simd()](model, sk->joints, sk->inverse_bind, sk->joint_count, skin_layout, out);
}

ossa_result ossa_palette_job_run(ossa_palette_job *job) {
    ossa_result r = ossa_palette_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_skin *sk = &job->skeleton->skins[job->skin];
    bool skin_layout = job->layout == OSSA_PALETTE_LAYOUT_SKIN;
    if (!skin_layout) palette_identities(sk, job->output);
    palette_run(job->model, sk, skin_layout, job->output);
    return OSSA_OK;
}

/* ---------------------------------------------------------------- palette batch */

uint32_t ossa_palette_batch_scratch_count(const ossa_skeleton *skeleton) {
    if (!skeleton) return 0;
    uint64_t n = (uint64_t)skeleton->joint_count * 192u; /* 16 lanes of 12 floats */
    return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}

ossa_result ossa_palette_batch_job_validate(const ossa_palette_batch_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT, small = OSSA_ERROR_BUFFER_TOO_SMALL;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    uint32_t need = 0;
    ossa_result r = palette_skin_validate(job->skeleton, job->skin, job->layout, diag, &need);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *s = job->skeleton;
    if (!job->locals) return ossa__job_fail(diag, bad, "locals", "NULL");
    if (!job->outputs) return ossa__job_fail(diag, bad, "outputs", "NULL");
    if (!job->scratch) return ossa__job_fail(diag, bad, "scratch", "NULL");
    for (uint32_t k = 0; k < job->pose_count; k++) {
        if (!job->locals[k]) return ossa__job_fail(diag, bad, "locals", "locals[%u] is NULL", k);
        if (!job->outputs[k]) return ossa__job_fail(diag, bad, "outputs", "outputs[%u] is NULL", k);
    }
    if (job->output_count < need)
        return ossa__job_fail(diag, small, "output_count", "%u < %u entries", job->output_count, need);
    uint32_t scratch = ossa_palette_batch_scratch_count(s);
    if (job->scratch_count < scratch)
        return ossa__job_fail(diag, small, "scratch_count", "%u < %u floats (192 a joint)", job->scratch_count, scratch);
    return OSSA_OK;
}

ossa_result ossa_palette_batch_job_run(ossa_palette_batch_job *job) {
    ossa_result r = ossa_palette_batch_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *s = job->skeleton;
    const ossa_skin *sk = &s->skins[job->skin];
    bool skin_layout = job->layout == OSSA_PALETTE_LAYOUT_SKIN;
    for (uint32_t k = 0; !skin_layout && k < job->pose_count; k++) palette_identities(sk, job->outputs[k]);
    uint32_t batched = 0; /* poses [0, batched) go through lane kernels, the rest pose by pose */
#if !defined(OSSA_SCALAR_ONLY)
    static const ossa__palette_batch_fn table[] = {
        [OSSA__SIMD_SSE4] = ossa__palette_batch_sse,       /* 4 poses a pass, one a lane */
        [OSSA__SIMD_AVX2] = ossa__palette_batch_avx2,      /* 8 */
        [OSSA__SIMD_AVX512] = ossa__palette_batch_avx512,  /* 16 */
    };
    static const uint32_t lanes[] = {1, 4, 8, 16};
    /* whole passes of the level's kernel, and a last, partial one when more than half its lanes
     * are filled (a pass costs about what its lanes' poses cost one by one at 0.6 each); else
     * the rest through the narrower kernels, and what is left after the narrowest pose by pose */
    for (int level = (int)ossa__simd(); level > OSSA__SIMD_SCALAR && batched < job->pose_count; level--) {
        uint32_t left = job->pose_count - batched, tail = left % lanes[level];
        uint32_t n = tail * 2u > lanes[level] ? left : left - tail;
        if (n) table[level](s, sk, job->locals + batched, job->outputs + batched, n, skin_layout, job->scratch);
        batched += n;
    }
#endif
    ossa_mat4 *model = (ossa_mat4 *)(void *)job->scratch; /* pose by pose: 16 floats a joint */
    for (uint32_t k = batched; k < job->pose_count; k++) {
        to_model_forward(job->locals[k], s->parents, 0, s->joint_count, model);
        palette_run(model, sk, skin_layout, job->outputs[k]);
    }
    return OSSA_OK;
}
