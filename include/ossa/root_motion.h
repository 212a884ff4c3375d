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
 * Conventions: up is a model-space direction U (default +Y, glTF's convention; options.up
 * overrides it) and the ground is the plane through the origin normal to U. Heading 0 is
 * the direction F0 = +Z projected on the ground (-Y when U is along ±Z), and yaw turns about
 * U (right-handed: with U = +Y, yaw = atan2(f.x, f.z)). The motion at clip time t is the
 * rigid transform M(t) = translate(p) ∘ rotate(U, yaw), where p is the motion joint's
 * model-space position projected on the ground (kept whole with extract_height), and yaw is
 * the heading of f = the joint's model-space rotation applied to its local forward axis
 * (0 with no_yaw). The forward axis is options.forward, else the signed local axis (±X, ±Y,
 * ±Z) whose model-space direction in the rest pose is closest to F0: so a joint whose local
 * +Z points up (an FBX Biped's pelvis) takes its heading from the axis that faces forward,
 * not from its up axis. Model space means the joint's sampled local transform composed
 * with its parents' sampled transforms (TRS products, exact for uniform scale), whatever
 * rotation and scale the ancestors have. The extracted clip is the original carried by
 * M(t)⁻¹ as a whole: every root joint (parent -1) gets the local L' = M(t)⁻¹ ∘ L, so every
 * joint's model transform is M(t)⁻¹ ∘ its original one (the motion joint stays over the
 * origin facing F0), and the character transform M (or the accumulated deltas) composed
 * in front of the roots gives back every joint's original world transform.
 * The motion is stored at the union of the key times of the motion joint's translation and
 * rotation, of its animated ancestors' tracks and of the root joints' translation and
 * rotation (at least the clip's start and end), interpolated linearly (position, and yaw
 * unwrapped: no jump at ±180°); the root joints' translation and rotation tracks of the
 * extracted clip are rewritten as LINEAR keys at those times (their scale tracks are kept;
 * exact at the keys and, for a motion without turning, at every time; between keys of a
 * turning motion, within the linear interpolation error).
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
    const ossa_vec3 *positions;  /* key_count model-space positions (on the ground unless extract_height) */
    const float *yaws;           /* key_count radians, unwrapped (0 with no_yaw) */
    uint32_t joint;              /* the motion joint */
    ossa_vec3 up;                /* unit model-space up U, the yaw axis; zero (a hand-made track) = +Y */
    ossa_allocator allocator;
} ossa_root_motion;

/* Zero means default for every field. */
typedef struct ossa_root_motion_options {
    const char *joint_name;  /* motion joint by name; NULL = `joint` */
    uint32_t joint;          /* motion joint index when joint_name is NULL; 0 = automatic: among the joints
                                whose translation track moves (keys not all equal), the one with the
                                most descendants (the character's root, not a camera or light node;
                                ties: the lower index); when none moves, the same among joints with
                                any translation track; joint 0 when none has one */
    bool extract_height;     /* also move the height into the motion (default: it stays in the pose) */
    bool no_yaw;             /* keep the heading in the pose (default: extract yaw) */
    ossa_vec3 up;            /* model-space up, any length; zero = +Y */
    ossa_vec3 forward;       /* the motion joint's local axis that faces forward, any length;
                                zero = automatic (see Conventions above) */
} ossa_root_motion_options;

/* Extracts the root motion of `clip` for `skeleton`: *out_clip is a new editable clip with the
 * motion removed, *out_motion the motion track. options may be NULL. INVALID_ARGUMENT for
 * NULLs, an unknown / out-of-range joint, or an up or forward that is not finite;
 * OUT_OF_MEMORY. On failure both outputs are NULL. */
ossa_result ossa_root_motion_extract(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                     const ossa_root_motion_options *options, const ossa_allocator *allocator,
                                     ossa_clip **out_clip, ossa_root_motion **out_motion);
/* Frees a motion track; NULL is a no-op. */
void ossa_root_motion_destroy(ossa_root_motion *motion);
/* M(t) with t clamped into [start, end] (translation and the yaw rotation about up, unit scale). */
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
