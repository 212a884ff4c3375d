/* ossa/sample.h: the sampling job (built clip + per-instance context + time → local pose).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * The job is a plain struct (ozz's shape): inputs, outputs as spans (pointer + count)
 * and parameters; ossa_sample_job_validate checks it cheaply, ossa_sample_job_run
 * validates and runs. It owns nothing and never allocates.
 *
 * The context is per playback instance: it remembers where the last sample was (key
 * cursors and decoded keys), so forward playback costs O(1) per frame, and random
 * access needs no scan from the start. One context serves any clip that fits its capacity
 * (sized for a joint count, or for the clips it will play: the smaller); switching clips or
 * jumping in time only costs a re-seek.
 * Compressed channels are interpolated several at a time by an SSE4.1 / AVX2 / AVX-512 kernel
 * chosen at run time (the environment variable OSSA_SIMD=scalar|sse4|avx2|avx512 caps it, as
 * every SIMD kernel of the library; every kernel gives the scalar one's bits). docs/built-clips.md describes the format.
 * Thread-safety: distinct jobs with distinct contexts may run at once on one clip. */
#ifndef OSSA_SAMPLE_H
#define OSSA_SAMPLE_H

#include "built_clip.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_sampling_context ossa_sampling_context;

/* Creates a context for any clip of up to `max_joints` joints (ossa_built_clip_joint_count)
 * and `max_weights` morph weights (ossa_built_clip_weight_count): one allocation of 104
 * bytes per joint (three 8-byte segment slots and 80 bytes of decoded keys), 8 per weight
 * and about 210 more (ossa_sampling_context_size; 4,680 B for Woman's 43 joints on a 64-bit
 * target, against ozz 0.16's 5,110). It holds only per-instance state (segment cursors and
 * two decoded keys a channel); the per-clip tables live in the built clip. INVALID_ARGUMENT
 * for a NULL out or counts above 2^24; OUT_OF_MEMORY. */
ossa_result ossa_sampling_context_create(uint32_t max_joints, uint32_t max_weights,
                                         const ossa_allocator *allocator, ossa_sampling_context **out);
/* Creates a context sized for the `count` clips given (each non-NULL; borrowed for the call
 * only): the largest of what each clip needs (8 bytes per key mask and clock, its decoded
 * keys), so usually well below the joint-sized one (Woman's 43 joints: 4,680 B for any clip,
 * 1,424 B for its 10 clips built by default). It plays those clips and any other that fits: the job's validation
 * fails on "context" (BUFFER_TOO_SMALL) for a clip that needs more. INVALID_ARGUMENT for a
 * NULL out, NULL clips with count > 0 or a NULL clip; OUT_OF_MEMORY. */
#define OSSA_SAMPLING_CONTEXT_FOR_CLIPS 1 /* this header declares it (code built against older trees tests it) */
ossa_result ossa_sampling_context_create_for_clips(const ossa_built_clip *const *clips, uint32_t count,
                                                   const ossa_allocator *allocator,
                                                   ossa_sampling_context **out);
/* Frees a context; NULL is a no-op. */
void ossa_sampling_context_destroy(ossa_sampling_context *context);
/* Bytes the context occupies (per instance memory). */
size_t ossa_sampling_context_size(const ossa_sampling_context *context);
/* Forgets the cached position (the next run re-seeks). */
void ossa_sampling_context_reset(ossa_sampling_context *context);

typedef struct ossa_sample_job {
    const ossa_built_clip *clip;           /* required */
    ossa_sampling_context *context;        /* required; its capacity fits the clip (see create) */
    float time;                            /* absolute clip time, seconds (any finite value) */
    bool loop;                             /* wrap into [start, end) instead of clamping */
    ossa_transform *output;                /* local pose: output_count >= joint_count */
    uint32_t output_count;
    float *weights;                        /* optional morph weights, tracks concatenated in */
    uint32_t weights_count;                /* order: weights_count >= weight_count (or NULL, 0) */
    const ossa_transform *reference;       /* required: the rest pose the clip was built with */
    uint32_t reference_count;              /* (skeleton->rest): reference_count >= joint_count */
    float sampled_time;                    /* out: the time actually sampled (clamped / wrapped) */
} ossa_sample_job;

/* OK, or INVALID_ARGUMENT (missing clip / context / output / reference, NaN time, NULL
 * weights with weights_count > 0) or BUFFER_TOO_SMALL (output_count, reference_count,
 * weights_count or the context's capacity too small). On failure diag (may be NULL) names
 * the field ("clip", "context", "output", "reference", "time", "output_count",
 * "reference_count", "weights", "weights_count"). O(1). */
ossa_result ossa_sample_job_validate(const ossa_sample_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then samples into job->output (and weights)
 * and sets job->sampled_time. Never allocates. The clip stores only what differs from the
 * reference pose (its joints and components without keys come from it), so the reference
 * must be the rest pose the clip was built with: the context hashes it (its first
 * joint_count transforms, XXH64) when the clip or the reference pointer changes and compares
 * it with the clip's (ossa_built_clip_matches); a mismatch is INVALID_ARGUMENT. The
 * reference is assumed unchanged while the context keeps using the same pointer
 * (ossa_sampling_context_reset forces a new check). */
ossa_result ossa_sample_job_run(ossa_sample_job *job);

#ifdef __cplusplus
}
#endif
#endif
