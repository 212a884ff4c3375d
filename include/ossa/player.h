/* ossa/player.h: playback controller for one character, an arrangement of the jobs:
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *   per layer: clip clock → sampling → (cross-fade: blend job of the old and new clip)
 *   all layers: blend job (override layers with weights and masks, then additive layers)
 *   → local-to-model → optional pose hook (IK) → palettes; root motion accumulated on the side.
 *
 * The beginner path: create → play / crossfade → update(dt) → palette → destroy,
 * all on layer 0. Everything else is opt-in:
 *   - layers: ossa_player_add_layer (OVERRIDE layers are blended by weight and mask; ADDITIVE
 *     layers play delta clips from ossa_clip_make_additive on top), each with its own clip,
 *     clock, speed, cross-fades, weight, mask and sync group;
 *   - sync groups: layers in the same group (> 0) share a normalised phase; the cycle
 *     duration is the weight-averaged duration of their clips (ossa_sync_duration), so a
 *     walk (1.2 s) and a run (0.7 s) stay in step at any weights; looping states wrap the
 *     shared phase, a non-looping state moves by the same phase step but holds at its ends;
 *   - root motion: bind a clip to its ossa_root_motion (root_motion.h); every update adds the
 *     weighted delta of the playing override clips to the player's root transform;
 *   - a pose hook (the IK pass) runs after local-to-model and may correct the pose.
 *
 * Clips: every call that takes a clip takes an ossa_clip_source: an editable clip
 * (ossa_source_editable, sampled by the clip sampling job with cursors) or a built clip
 * (ossa_source_built, built_clip.h, sampled by the sampling job of sample.h with a context per
 * playing clip); layers mix both freely. A built clip must be built for this skeleton (or one
 * whose first joints match: joints past its joint count keep the rest pose): a clip built with
 * another rest pose is INVALID_ARGUMENT (ossa_built_clip_matches).
 *
 * Ownership and allocation: a player owns its pose buffers, layers and cursors. create,
 * add_layer, play, crossfade and bind_root_motion may allocate; update, the setters, model and
 * palette never do. Not thread-safe per instance; distinct players may run on distinct
 * threads. The clips, root motions and the skeleton must outlive the player. */
#ifndef OSSA_PLAYER_H
#define OSSA_PLAYER_H

#include "built_clip.h"
#include "clip.h"
#include "root_motion.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_player ossa_player;

/* What a layer plays: an editable clip or a built clip, at most one non-NULL. Both NULL is
 * "no clip" (stops a layer where stopping is allowed); both non-NULL is INVALID_ARGUMENT.
 * The clip is borrowed: it must outlive its use by the player. */
typedef struct ossa_clip_source {
    const ossa_clip *clip;          /* an editable clip (clip.h), or NULL */
    const ossa_built_clip *built;   /* a built clip (built_clip.h), or NULL */
} ossa_clip_source;

/* ossa_player_play(player, ossa_source_editable(clip), 1.0f, true) */
static inline ossa_clip_source ossa_source_editable(const ossa_clip *clip) {
    ossa_clip_source source = {clip, NULL};
    return source;
}
/* ossa_player_play(player, ossa_source_built(clip), 1.0f, true) */
static inline ossa_clip_source ossa_source_built(const ossa_built_clip *clip) {
    ossa_clip_source source = {NULL, clip};
    return source;
}

typedef enum ossa_player_layer_mode {
    OSSA_PLAYER_LAYER_OVERRIDE = 0, /* blended with the other override layers by weight and mask */
    OSSA_PLAYER_LAYER_ADDITIVE      /* a delta clip applied on top (blend.h's additive step) */
} ossa_player_layer_mode;

/* Called by update (and play / crossfade) after local-to-model with the current local pose
 * and model matrices (skeleton->joint_count each); it may change both (an IK pass). Return
 * true when it changed `locals` without updating `model`: the player then recomputes the
 * model matrices from `locals`. */
typedef bool (*ossa_player_pose_hook)(void *user, const ossa_skeleton *skeleton, ossa_transform *locals,
                                      ossa_mat4 *model);

/* Creates a player for `skeleton` showing the rest pose, with one override layer (layer 0,
 * weight 1, no clip). */
ossa_result ossa_player_create(const ossa_skeleton *skeleton, const ossa_allocator *allocator, ossa_player **out);
/* Frees a player; NULL is a no-op. */
void ossa_player_destroy(ossa_player *player);

/* ---- the beginner path (layer 0) ---- */

/* Starts the source's clip at its start time (cancels any fade). speed: playback rate
 * (1 = real time, negative plays backwards); loop: wrap or hold at the ends.
 * INVALID_ARGUMENT when player is NULL or the source holds no clip or two (also for
 * crossfade). An editable clip made for another skeleton plays: its tracks for joints >=
 * joint_count are skipped. */
ossa_result ossa_player_play(ossa_player *player, ossa_clip_source source, float speed, bool loop);

/* Cross-fades from the current clip to the source's (started at its start time) over
 * `duration` seconds; the old clip keeps playing during the fade. duration <= 0 = cut. */
ossa_result ossa_player_crossfade(ossa_player *player, ossa_clip_source source, float duration, float speed,
                                  bool loop);
/* (The blend is the blend job over (old, new) with weights (1 - w, w), w = elapsed / duration;
 * elapsed counts real seconds. A cross-fade started while another runs fades from the
 * current blended pose of that layer, frozen, so the pose never jumps.) */

/* Advances time by dt seconds (times each layer's speed), samples, blends, runs the pose hook
 * and accumulates root motion. No allocation. */
void ossa_player_update(ossa_player *player, float dt);

/* Changes the speed factor of layer 0's current clip. */
void ossa_player_set_speed(ossa_player *player, float speed);

/* Layer 0's current clip time in seconds (adjusted: within [start, end]). */
float ossa_player_time(const ossa_player *player);

/* The current local pose: skeleton->joint_count transforms, owned by the player,
 * valid until the next update. */
const ossa_transform *ossa_player_pose(const ossa_player *player);

/* Model-space matrices of the current pose into out[0, joint_count) (joint_count =
 * skeleton->joint_count; out_count >= joint_count). INVALID_ARGUMENT for a NULL player or out,
 * BUFFER_TOO_SMALL when out_count < joint_count (nothing written). */
ossa_result ossa_player_model(const ossa_player *player, ossa_mat4 *out, uint32_t out_count);

/* Skeleton-indexed palette for skin `skin`: out[j] = model[j] * IBM (identity for
 * joints the skin does not use), out[0, joint_count) with out_count >= skeleton->joint_count.
 * INVALID_ARGUMENT when player or out is NULL or skin >= skeleton->skin_count;
 * BUFFER_TOO_SMALL when out_count < joint_count (nothing written). */
ossa_result ossa_player_palette(const ossa_player *player, uint32_t skin, ossa_mat4 *out, uint32_t out_count);
/* (Exactly: out[j] = model[j] * skin.inverse_bind[i] for j = skin.joints[i]; identity for
 * every other joint. Model matrices are computed once per play / crossfade / update and
 * cached, so ossa_player_model and ossa_player_palette are copies plus one multiply.) */

/* Weight of the incoming clip during layer 0's cross-fade: elapsed / duration in [0, 1]
 * (elapsed is real time, not scaled by speed); 1 when no fade is running. */
float ossa_player_fade_weight(const ossa_player *player);

/* ---- layers ---- */

/* Adds a layer (weight 1, no mask, no sync group, no clip) and gives its index in *out_layer
 * (may be NULL). Layers are blended in index order. INVALID_ARGUMENT for a NULL player or a
 * bad mode; OUT_OF_MEMORY. */
ossa_result ossa_player_add_layer(ossa_player *player, ossa_player_layer_mode mode, uint32_t *out_layer);
/* Number of layers (>= 1). */
uint32_t ossa_player_layer_count(const ossa_player *player);
/* play / crossfade on any layer (layer 0 = the beginner calls). layer_play with an empty
 * source (both NULL) stops the layer (it then contributes nothing); layer_crossfade needs a
 * clip. INVALID_ARGUMENT for a NULL player, a layer out of range or a source with two clips. */
ossa_result ossa_player_layer_play(ossa_player *player, uint32_t layer, ossa_clip_source source, float speed,
                                   bool loop);
ossa_result ossa_player_layer_crossfade(ossa_player *player, uint32_t layer, ossa_clip_source source, float duration,
                                        float speed, bool loop);
/* Layer weight (>= 0 and finite; additive layers: any finite value). INVALID_ARGUMENT otherwise. */
ossa_result ossa_player_layer_set_weight(ossa_player *player, uint32_t layer, float weight);
float ossa_player_layer_weight(const ossa_player *player, uint32_t layer);
ossa_result ossa_player_layer_set_speed(ossa_player *player, uint32_t layer, float speed);
/* Per-joint weights (weight_count floats, the first skeleton->joint_count used and copied;
 * each finite and >= 0), or NULL to clear the mask (weight_count ignored). BUFFER_TOO_SMALL
 * when weight_count < joint_count; INVALID_ARGUMENT for a bad layer or weight (mask unchanged). */
ossa_result ossa_player_layer_set_mask(ossa_player *player, uint32_t layer, const float *joint_weights,
                                       uint32_t weight_count);
/* The mask of a subtree by joint name (1 inside, 0 outside); NULL clears it.
 * INVALID_ARGUMENT for an unknown name. */
ossa_result ossa_player_layer_set_mask_joint(ossa_player *player, uint32_t layer, const char *joint_name);
/* Sync group (0 = none). Layers in one group share a phase; a layer joining takes the
 * group's phase at the next update. */
ossa_result ossa_player_layer_set_sync(ossa_player *player, uint32_t layer, uint32_t group);
/* The layer's current clip time (seconds, adjusted) and what it plays (the source given to
 * play / crossfade; both NULL when stopped or for a NULL player or layer out of range). */
float ossa_player_layer_time(const ossa_player *player, uint32_t layer);
ossa_clip_source ossa_player_layer_source(const ossa_player *player, uint32_t layer);
/* The layer's last clock step: the clip time before the last update (*from) and the clip
 * seconds it advanced (*advance, signed; phase-scaled in a sync group) — exactly what the
 * event job (events.h) and the root-motion job take. Zeros for a stopped layer or index out
 * of range; either pointer may be NULL. */
void ossa_player_layer_step(const ossa_player *player, uint32_t layer, float *from, float *advance);

/* ---- root motion and the pose hook ---- */

/* Tells the player that the source's clip (as extracted by ossa_root_motion_extract, or built
 * from that in-place clip) moves the character by `motion`; motion NULL removes the binding.
 * OUT_OF_MEMORY; INVALID_ARGUMENT for a NULL player or a source without exactly one clip. */
ossa_result ossa_player_bind_root_motion(ossa_player *player, ossa_clip_source source,
                                         const ossa_root_motion *motion);
/* The root delta of the last update: the weighted blend (translation lerp, rotation nlerp by
 * layer weight x fade weight, normalised over the playing override clips) of their deltas; a
 * clip without a bound root motion contributes the identity (it stands still), so fading from
 * a walk to an idle slows the character down smoothly. Identity when no playing clip has one. */
ossa_transform ossa_player_root_delta(const ossa_player *player);
/* The accumulated character transform (root = root ∘ delta every update); starts at identity. */
ossa_transform ossa_player_root_transform(const ossa_player *player);
void ossa_player_set_root_transform(ossa_player *player, ossa_transform root);

/* Installs (or with hook NULL removes) the pose hook. */
void ossa_player_set_pose_hook(ossa_player *player, ossa_player_pose_hook hook, void *user);

#ifdef __cplusplus
}
#endif
#endif
