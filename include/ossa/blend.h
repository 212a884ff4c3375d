/* ossa/blend.h: the blend job (local poses + weights + per-joint masks → local pose), additive
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa), except ossa_clip_make_additive: ossa_offline (ossa::ossa_offline).
 * layers, subtree masks, additive clips and synced (phase-matched) blending.
 *
 * Data flow: sampling job → local poses → BLEND JOB → local pose → local-to-model.
 * The job is a plain struct of input spans, an output span and parameters (ozz's
 * BlendingJob); ossa_blend_job_validate checks it cheaply, ossa_blend_job_run validates and
 * runs. It owns nothing and never allocates. Thread-safety: distinct jobs may run at once.
 *
 * THE FORMULA, per joint j (joint_count = rest_count; every span is indexed by joint):
 *   w_i  = layer_i.weight * (layer_i.joint_weights ? layer_i.joint_weights[j] : 1)
 *   W    = sum of w_i over the (normal) layers
 *   rest fallback: when W < threshold, the rest pose joins as one more layer with weight
 *                  threshold - W (so W = 0 gives exactly the rest pose, and the result moves
 *                  continuously as weights approach zero); W becomes threshold.
 *   t    = sum(w_i * t_i) / W            s = sum(w_i * s_i) / W        (linear)
 *   q    = normalize(sum(w_i * q_i'))    q_i' = q_i, or -q_i when dot(q_i, running sum) < 0
 *          (hemisphere alignment against the sum so far: at equal weights two layers give
 *           normalize(qa + qb) with qb on qa's hemisphere)
 *   When one source alone has a non-zero weight (one layer, or the rest pose) its transform
 *   is copied exactly (so a single layer reproduces its pose bit for bit).
 *   Then every additive layer k, in order, with a_k = weight_k * (mask_k ? mask_k[j] : 1):
 *   t   += a_k * dt_k
 *   q    = q * nlerp(identity, dq_k, a_k)   (for a_k < 0: nlerp(identity, conjugate(dq_k), -a_k))
 *   s   *= lerp(1, ds_k, a_k)               (component-wise)
 *   where (dt_k, dq_k, ds_k) is the additive layer's transform: a DELTA, as made by
 *   ossa_clip_make_additive (dt = t - t_ref, dq = conjugate(q_ref) * q, ds = s / s_ref), so
 *   applying it at weight 1 over the reference pose gives the original pose back.
 * Normal-layer weights must be >= 0 and finite, joint weights finite and >= 0 (usually in
 * [0, 1]; validate checks every one), additive weights any finite value (negative subtracts). */
#ifndef OSSA_BLEND_H
#define OSSA_BLEND_H

#include "clip.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One input layer: a local pose plus its weight and optional per-joint weights (mask). */
typedef struct ossa_blend_layer {
    const ossa_transform *transforms;  /* local pose, transform_count >= the job's joint count */
    uint32_t transform_count;
    float weight;                      /* layer weight (see the formula) */
    const float *joint_weights;        /* optional mask, joint_weight_count >= joint count; NULL = all 1 */
    uint32_t joint_weight_count;
} ossa_blend_layer;

typedef struct ossa_blend_job {
    const ossa_blend_layer *layers;           /* normal layers (may be NULL when layer_count is 0) */
    uint32_t layer_count;
    const ossa_blend_layer *additive_layers;  /* additive layers (deltas), applied after the blend */
    uint32_t additive_count;
    const ossa_transform *rest;               /* required: the rest pose; rest_count = joint count */
    uint32_t rest_count;
    float threshold;                          /* rest fallback threshold; 0 = default 0.1 (> 0 finite) */
    ossa_transform *output;                   /* output_count >= rest_count; may alias no input */
    uint32_t output_count;
} ossa_blend_job;

/* OK, INVALID_ARGUMENT (NULL rest / output / layer arrays / layer transforms, a negative or
 * non-finite weight, a negative or non-finite threshold) or BUFFER_TOO_SMALL (output_count,
 * a layer's transform_count or joint_weight_count below rest_count). On failure diag (may be
 * NULL) names the field: "rest", "output", "threshold", "output_count", "layers" or
 * "additive_layers" (NULL array), or one layer's field, e.g. "layers[2].transforms",
 * "additive_layers[0].weight", "layers[1].joint_weights". O(joint count x masked layers). */
ossa_result ossa_blend_job_validate(const ossa_blend_job *job, ossa_diagnostic *diag);
/* Validates, then writes the blended pose (the formula above) into output[0, rest_count). */
ossa_result ossa_blend_job_run(ossa_blend_job *job);

/* ---- helpers ---- */

/* Per-joint weights for a subtree: mask[j] = inside for `joint` and every descendant of it,
 * outside for every other joint (mask has skeleton->joint_count entries; the skeleton is
 * parents-first, so this is one forward pass). INVALID_ARGUMENT for NULLs or a joint out of
 * range; BUFFER_TOO_SMALL when mask_count < joint_count. */
ossa_result ossa_blend_mask_subtree(const ossa_skeleton *skeleton, uint32_t joint, float inside, float outside,
                                    float *mask, uint32_t mask_count);
/* The same with the subtree root given by name ("upper body from Spine"): INVALID_ARGUMENT
 * also when no joint has that name. */
ossa_result ossa_blend_mask_from_name(const ossa_skeleton *skeleton, const char *joint_name, float inside,
                                      float outside, float *mask, uint32_t mask_count);

/* Makes an ADDITIVE editable clip from `clip` (editable → editable, so it can then be built):
 * every key of every component becomes its delta against the reference,
 *   dt = t - t_ref,  dq = conjugate(q_ref) * q,  ds = s / s_ref   (per joint),
 * cubic tangents transformed the same (linear) way. `reference` has skeleton->joint_count
 * transforms; NULL means the clip's own first frame (the clip sampled at its start time over
 * the skeleton's rest pose). The result has a track with all three components for EVERY
 * skeleton joint (components the clip does not animate get one constant key: the delta of
 * the rest pose against the reference), so sampling or building it fills no joint from the
 * rest pose. Weight tracks are copied unchanged. Times, name and looping are kept.
 * INVALID_ARGUMENT for NULLs; OUT_OF_MEMORY. *out is NULL on failure. */
ossa_result ossa_clip_make_additive(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                    const ossa_transform *reference, const ossa_allocator *allocator,
                                    ossa_clip **out);

/* ---- synced blending: a 1-D blend space ----
 * Clips of different durations (walk 1.2 s, run 0.7 s) blend at a shared normalised phase
 * p in [0, 1): clip i is sampled at start_i + p * duration_i, and p advances by
 * dt / D with D = sum(w_i * duration_i) / sum(w_i), the cycle duration interpolated by weight. */

/* Weights of `count` clips placed at increasing `positions` (e.g. their speeds) for the
 * parameter x: the two neighbours of x get linear weights summing to 1, every other clip 0;
 * x is clamped to [positions[0], positions[count-1]]. INVALID_ARGUMENT for NULLs, count 0, or
 * positions not strictly increasing / not finite, or x NaN. */
ossa_result ossa_blend_space_1d(const float *positions, uint32_t count, float x, float *weights);
/* Cycle duration D = sum(w_i * d_i) / sum(w_i) (seconds); 0 when the weights sum to 0. */
float ossa_sync_duration(const float *durations, const float *weights, uint32_t count);
/* Phase after advancing `dt` seconds (any sign) on a cycle of `duration` seconds, wrapped into
 * [0, 1). A duration <= 0 keeps the phase (wrapped). */
float ossa_sync_advance(float phase, float dt, float duration);

#ifdef __cplusplus
}
#endif
#endif
