/* ossa/player.h: playback controller (the seed's Animator): play a clip, advance
 * by dt with a speed factor, loop or hold, cross-fade to another clip, and build
 * skin palettes.
 *
 * A player belongs to one character instance. It owns its pose buffers and
 * per-clip cursors (allocated at create / play, never in update), so
 * ossa_player_update and ossa_player_palette do no allocation. Forward playback
 * finds keys in O(1) amortised through the cursors. Not thread-safe per
 * instance; distinct players may run on distinct threads. The clips and the
 * skeleton must outlive the player. */
#ifndef OSSA_PLAYER_H
#define OSSA_PLAYER_H

#include "clip.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_player ossa_player;

/* Creates a player for `skeleton` showing the rest pose. */
ossa_result ossa_player_create(const ossa_skeleton *skeleton, const ossa_allocator *allocator, ossa_player **out);
/* Frees a player; NULL is a no-op. */
void ossa_player_destroy(ossa_player *player);

/* Starts `clip` at its start time (cancels any fade). speed: playback rate
 * (1 = real time, negative plays backwards); loop: wrap or hold at the ends.
 * INVALID_ARGUMENT when player or clip is NULL (also for crossfade). A clip made for
 * another skeleton plays: its tracks for joints >= joint_count are skipped. */
ossa_result ossa_player_play(ossa_player *player, const ossa_clip *clip, float speed, bool loop);

/* Cross-fades from the current clip to `clip` (started at its start time) over
 * `duration` seconds; the old clip keeps playing during the fade. duration <= 0 = cut. */
ossa_result ossa_player_crossfade(ossa_player *player, const ossa_clip *clip, float duration, float speed, bool loop);
/* (The blend is ossa_pose_blend(old, new, elapsed / duration); elapsed counts real seconds.
 * A cross-fade started while another runs fades from the current blended pose, frozen,
 * so the pose never jumps.) */

/* Advances time by dt seconds (times speed) and samples into the player's pose. */
void ossa_player_update(ossa_player *player, float dt);

/* Changes the speed factor of the current clip. */
void ossa_player_set_speed(ossa_player *player, float speed);

/* Current clip time in seconds (adjusted: within [start, end]). */
float ossa_player_time(const ossa_player *player);
/* Current clip, or NULL. */
const ossa_clip *ossa_player_clip(const ossa_player *player);

/* The current local pose: skeleton->joint_count transforms, owned by the player,
 * valid until the next update. */
const ossa_transform *ossa_player_pose(const ossa_player *player);

/* Model-space matrices of the current pose into out (skeleton->joint_count). */
void ossa_player_model(const ossa_player *player, ossa_mat4 *out);

/* Skeleton-indexed palette for skin `skin`: out[j] = model[j] * IBM (identity for
 * joints the skin does not use). out has skeleton->joint_count entries.
 * INVALID_ARGUMENT when player or out is NULL or skin >= skeleton->skin_count. */
ossa_result ossa_player_palette(const ossa_player *player, uint32_t skin, ossa_mat4 *out);
/* (Exactly: out[j] = model[j] * skin.inverse_bind[i] for j = skin.joints[i]; identity for
 * every other joint. Model matrices are computed once per play / crossfade / update and
 * cached, so ossa_player_model and ossa_player_palette are copies plus one multiply.) */

/* Weight of the incoming clip during a cross-fade: elapsed / duration in [0, 1] (elapsed is
 * real time, not scaled by speed); 1 when no fade is running. */
float ossa_player_fade_weight(const ossa_player *player);

#ifdef __cplusplus
}
#endif
#endif
