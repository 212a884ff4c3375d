/* ossa/root_motion.h: root motion: extract a clip's root motion as its own track, remove it
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa) for sampling and the delta job;
 * ossa_offline (ossa::ossa_offline) for ossa_root_motion_extract.
 * from the pose, and give per-frame deltas (loop wraps included) to move the character.
 *
 * Data flow: editable clip → ossa_root_motion_extract (offline, allocates) → an in-place clip
 * (the motion removed; build it like any clip) + an ossa_root_motion track. At run time the
 * root-motion job turns a step of clip time into a delta transform for the caller's character
 * transform (character = character ∘ delta); it owns nothing and never allocates.
 *
 * Conventions: the ground plane is model-space XZ (+Y up, glTF's convention). The motion at
 * clip time t is the rigid transform M(t) = translate(x, h, z) ∘ rotate_y(yaw) where (x, y, z)
 * is the motion joint's model-space position (h = y with extract_height, else 0) and yaw is
 * the heading of the joint's model-space +Z axis projected on XZ (atan2(f.x, f.z); 0 with
 * no_yaw). Model space means the joint's sampled local transform composed with its parents'
 * sampled transforms (TRS products, exact for uniform scale). The
 * extracted clip's motion joint has local L' with parent ∘ L' = M(t)⁻¹ ∘ parent ∘ L, so the
 * pose stays at the origin and heading 0 and the character transform carries the motion.
 * The motion is stored at the union of the key times of the joint's translation and rotation
 * and of its animated ancestors' tracks (at least the clip's start and end), interpolated
 * linearly (position, and yaw unwrapped); the motion joint's translation and rotation tracks
 * of the extracted clip are rewritten as LINEAR keys at those times (exact at the keys;
 * between keys of a turning or CUBIC root, within the linear interpolation error).
 * Limitation: a STEP root comes out LINEAR too (it slides between its keys instead of
 * jumping); resample such a clip before extracting if the steps matter.
 * Thread-safety: immutable after extraction. */
#ifndef OSSA_ROOT_MOTION_H
#define OSSA_ROOT_MOTION_H

#include "clip.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_root_motion {
    float start, end;            /* the source clip's time range, seconds */
    uint32_t key_count;          /* >= 1 */
    const float *times;          /* key_count seconds, increasing */
    const ossa_vec3 *positions;  /* key_count model-space positions (y = 0 unless extract_height) */
    const float *yaws;           /* key_count radians, unwrapped (0 with no_yaw) */
    uint32_t joint;              /* the motion joint */
    ossa_allocator allocator;
} ossa_root_motion;

/* Zero means default for every field. */
typedef struct ossa_root_motion_options {
    const char *joint_name;  /* motion joint by name; NULL = `joint` */
    uint32_t joint;          /* motion joint index when joint_name is NULL; 0 = the lowest joint with a
                                translation track in the clip (joint 0 when none has one) */
    bool extract_height;     /* also move the height into the motion (default: it stays in the pose) */
    bool no_yaw;             /* keep the heading in the pose (default: extract yaw) */
} ossa_root_motion_options;

/* Extracts the root motion of `clip` for `skeleton`: *out_clip is a new editable clip with the
 * motion removed, *out_motion the motion track. options may be NULL. INVALID_ARGUMENT for
 * NULLs or an unknown / out-of-range joint; OUT_OF_MEMORY. On failure both outputs are NULL. */
ossa_result ossa_root_motion_extract(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                     const ossa_root_motion_options *options, const ossa_allocator *allocator,
                                     ossa_clip **out_clip, ossa_root_motion **out_motion);
/* Frees a motion track; NULL is a no-op. */
void ossa_root_motion_destroy(ossa_root_motion *motion);
/* M(t) with t clamped into [start, end] (translation and yaw rotation, unit scale). */
ossa_transform ossa_root_motion_sample(const ossa_root_motion *motion, float t);

/* The per-frame delta: the motion from clip time `from` to `from + advance` (advance may be
 * negative: playing backwards), expressed in the character's frame at `from`:
 *   delta = W(from)⁻¹ ∘ W(from + advance)
 * where W is the motion continued over loops: W(t) = C^n ∘ M(start)⁻¹ ∘ M(r) for t = r + n·D,
 * r in [start, end), D = end - start, C = M(start)⁻¹ ∘ M(end) (one cycle's motion). Without
 * loop both times are clamped into [start, end] and delta = M(from)⁻¹ ∘ M(from + advance). */
typedef struct ossa_root_motion_job {
    const ossa_root_motion *motion;  /* required */
    float from;                      /* clip seconds, finite */
    float advance;                   /* clip seconds, finite, any sign */
    bool loop;
    ossa_transform *delta;           /* required output */
} ossa_root_motion_job;

/* INVALID_ARGUMENT for a NULL motion or delta, or a non-finite from / advance; diag (may be
 * NULL) names the field ("motion", "delta", "from", "advance"). O(1). */
ossa_result ossa_root_motion_job_validate(const ossa_root_motion_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then writes *delta. O(log key_count). */
ossa_result ossa_root_motion_job_run(ossa_root_motion_job *job);

#ifdef __cplusplus
}
#endif
#endif
