/* ossa/pose.h: local pose → model-space matrices → skin palette (blending is blend.h).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * A pose is an array of local transforms plus parent indices (-1 = root), both
 * joint_count long and owned by the caller. When every parent index is lower
 * than its child's (ossa skeletons guarantee it) local-to-model is one forward
 * pass; otherwise a general fallback walks each chain. The hot-path stages are jobs
 * (ossa_local_to_model_job, ossa_palette_job): plain structs of input spans, output
 * spans (pointer + count) and parameters, with _validate and _run; a zeroed job fails
 * validation and a too-short output is BUFFER_TOO_SMALL, never an overflow. Everything
 * here is allocation-free and writes into caller buffers; ranges let a job system split work.
 * Both jobs run SIMD kernels chosen at run time (SSE, AVX2, AVX-512 F+VL+BW+DQ; the
 * environment variable OSSA_SIMD=scalar|sse4|avx2|avx512 caps them, as every SIMD kernel of
 * the library) that compute the scalar path's values:
 * roots multiply the identity, and the palette always takes the 4x4 product (exactly the
 * affine one for affine inputs, so no per-entry test). */
#ifndef OSSA_POSE_H
#define OSSA_POSE_H

#include "skeleton.h"

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

/* Local-to-model job: model-space matrices out of a local pose.
 *
 * The hierarchy is `skeleton` (parents-first by construction) or, when skeleton is NULL,
 * the `parents` span (N = parent_count; -1 = root, else < N). input holds >= N locals,
 * output >= N matrices. begin = end = 0 converts every joint: one forward pass when
 * parents come first, else the per-joint chain walk (ossa_pose_joint_to_model). Any
 * other [begin, end) (end <= N) converts only those joints in one forward pass; it needs
 * parents-first order and the matrices of the range's parents outside it already in
 * output (for job systems: split after a root, or run ranges in order). No allocation. */
typedef struct ossa_local_to_model_job {
    const ossa_skeleton *skeleton;      /* the hierarchy, or NULL to use parents */
    const int32_t *parents;             /* used when skeleton is NULL */
    uint32_t parent_count;
    const ossa_transform *input;        /* required: local pose, input_count >= N */
    uint32_t input_count;
    ossa_mat4 *output;                  /* required: model matrices, output_count >= N */
    uint32_t output_count;
    uint32_t begin, end;                /* joint range; 0, 0 = all */
} ossa_local_to_model_job;

/* OK, INVALID_ARGUMENT (NULL job / input / output, neither skeleton nor parents, begin >
 * end or end > N, a parent index out of [-1, N), or a range over joints whose parent does
 * not come first) or BUFFER_TOO_SMALL (input_count or output_count < N). On failure diag
 * (may be NULL) names the field: "skeleton" (for neither hierarchy), "input", "output",
 * "begin", "end", "parents", "input_count", "output_count". With a skeleton it is O(1);
 * with a parents span it reads the parents once (O(N)). */
ossa_result ossa_local_to_model_job_validate(const ossa_local_to_model_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then fills output. */
ossa_result ossa_local_to_model_job_run(ossa_local_to_model_job *job);

/* Palette layout: which index a palette entry has. */
typedef enum ossa_palette_layout {
    OSSA_PALETTE_LAYOUT_SKELETON = 0, /* default: entry j for skeleton joint j (what mesh joint indices expect) */
    OSSA_PALETTE_LAYOUT_SKIN          /* compact: entry i for skin joint i (GPU uniform arrays) */
} ossa_palette_layout;

/* Palette job: skinning matrices of one skin from model-space matrices.
 *
 * SKELETON layout: output[j] = model[j] * skin.inverse_bind[i] for j = skin.joints[i], and
 * identity for every joint the skin does not use; output_count >= skeleton->joint_count.
 * SKIN layout: output[i] = model[skin.joints[i]] * skin.inverse_bind[i];
 * output_count >= skin.joint_count. model_count >= skeleton->joint_count. The product is
 * the affine 3x4 one when both matrices are affine (the glTF case), else the full 4x4 one;
 * both equal ossa_mat4_mul's values. The skeleton must come from ossa_skeleton_create
 * (its skins' `unused` lists say which entries are identity). No allocation. */
typedef struct ossa_palette_job {
    const ossa_skeleton *skeleton;      /* required */
    uint32_t skin;                      /* skin index < skeleton->skin_count */
    ossa_palette_layout layout;         /* 0 = SKELETON */
    const ossa_mat4 *model;             /* required: model-space matrices */
    uint32_t model_count;
    ossa_mat4 *output;                  /* required */
    uint32_t output_count;
} ossa_palette_job;

/* OK, INVALID_ARGUMENT (NULL job / skeleton / model / output, skin out of range, bad
 * layout) or BUFFER_TOO_SMALL (model_count or output_count too small); diag (may be NULL)
 * names the field ("skeleton", "skin", "layout", "model", "output", "model_count",
 * "output_count"). O(1). */
ossa_result ossa_palette_job_validate(const ossa_palette_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then fills output. */
ossa_result ossa_palette_job_run(ossa_palette_job *job);

/* Palette batch job: the palettes of many poses of one skeleton at once (a crowd). Palette k
 * gets the values ossa_local_to_model_job then ossa_palette_job give local pose k (equal as
 * floats to their scalar kernels'; only a zero's sign may differ from a SIMD kernel's). The
 * poses go one per SIMD lane, 16 at a time at the AVX-512 level, 8 at AVX2 and 4 at SSE4.1
 * (a batch's last poses through the narrower kernels): a joint waits for no parent chain and
 * its inverse bind is read once for all the lanes, so a batch of a multiple of the lanes costs
 * about 0.6 of running the two jobs pose by pose (docs/performance.md); the scalar
 * level runs the two jobs' kernels pose by pose. The model matrices are not returned: a caller
 * that needs them runs ossa_local_to_model_job. The skeleton must come from
 * ossa_skeleton_create. No allocation. */
#define OSSA_PALETTE_BATCH_JOB 1 /* this header declares it (code built against older trees tests it) */
typedef struct ossa_palette_batch_job {
    const ossa_skeleton *skeleton;        /* required */
    uint32_t skin;                        /* skin index < skeleton->skin_count */
    ossa_palette_layout layout;           /* 0 = SKELETON, as ossa_palette_job */
    const ossa_transform *const *locals;  /* required: pose_count local poses, joint_count transforms each */
    ossa_mat4 *const *outputs;            /* required: pose_count palettes, output_count entries each */
    uint32_t pose_count;
    uint32_t output_count;                /* >= joint_count (SKELETON) or the skin's joint count (SKIN) */
    float *scratch;                       /* required: scratch_count floats, any alignment */
    uint32_t scratch_count;               /* >= ossa_palette_batch_scratch_count(skeleton) */
} ossa_palette_batch_job;

/* Scratch floats a palette batch job over this skeleton needs: 192 a joint (16 poses' model
 * matrices, 12 floats each), 0 for NULL. */
uint32_t ossa_palette_batch_scratch_count(const ossa_skeleton *skeleton);
/* OK, INVALID_ARGUMENT (NULL job / skeleton / locals / outputs / scratch or a NULL pose or
 * palette in them, skin out of range, bad layout) or BUFFER_TOO_SMALL (output_count or
 * scratch_count too small); diag (may be NULL) names the field ("skeleton", "skin", "layout",
 * "locals", "outputs", "scratch", "output_count", "scratch_count"). O(pose_count). */
ossa_result ossa_palette_batch_job_validate(const ossa_palette_batch_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then fills the pose_count palettes. */
ossa_result ossa_palette_batch_job_run(ossa_palette_batch_job *job);

#ifdef __cplusplus
}
#endif
#endif
