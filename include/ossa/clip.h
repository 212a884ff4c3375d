/* ossa/clip.h: animation clips (runtime data → sample → local pose).
 *
 * A clip is an immutable runtime object: one allocation created by
 * ossa_clip_create (which deep-copies the desc and builds the frame-index
 * tables) and freed by ossa_clip_destroy. It holds one transform track per
 * animated joint (translation / rotation / scale; key_count 0 = component not
 * animated, the reference pose supplies it) and weight tracks for morph targets.
 *
 * Time semantics (DESIGN.md): start/end are the min/max key time over all
 * tracks. Sampling clamps into [start, end] or, when looping, wraps into
 * [start, end) (times far from the range and negative times included; the wrap
 * is computed in double). NaN and -Inf map to start; +Inf to end (clamped) or
 * start (looping). At t == end a clamped clip gives every track's last key.
 * Every track is sampled with the clip's single clock.
 * Thread-safety: a clip may be sampled from many threads at once; cursors are
 * per playback instance. */
#ifndef OSSA_CLIP_H
#define OSSA_CLIP_H

#include "math.h"
#include "track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_transform_track {
    uint32_t joint;           /* skeleton joint index */
    ossa_track translation;   /* VECTOR, 3 components */
    ossa_track rotation;      /* ROTATION, 4 components */
    ossa_track scale;         /* VECTOR, 3 components */
} ossa_transform_track;

typedef struct ossa_weight_track {
    uint32_t joint;           /* joint (glTF node) whose mesh's morph weights this drives */
    ossa_track weights;       /* VECTOR, components = morph target count */
} ossa_weight_track;

typedef struct ossa_clip_desc {
    const char *name;                         /* copied; NULL = "" */
    bool looping;                             /* default playback mode */
    uint32_t track_count;
    const ossa_transform_track *tracks;       /* copied; a joint may appear once */
    uint32_t weight_track_count;
    const ossa_weight_track *weight_tracks;   /* copied */
    float table_rate;                         /* frame-index table rate, entries/s; 0 = 60, < 0 = no table */
} ossa_clip_desc;

typedef struct ossa_clip {
    const char *name;
    bool looping;
    float start, end;                 /* seconds; start == end == 0 for an empty clip */
    uint32_t track_count;
    ossa_transform_track *tracks;     /* sorted by joint */
    uint32_t weight_track_count;
    ossa_weight_track *weight_tracks;
    ossa_allocator allocator;         /* remembered for destroy */
} ossa_clip;

/* Validates every track (see ossa_track_validate) and copies the desc into one
 * allocation. On failure *out is NULL and nothing is leaked. */
/* (Each track's table is built from its own first key; its size is capped at
 * 4 * key_count + 64 entries by lowering that track's rate, recorded in track.table.rate,
 * so a sparse track over a long time range cannot blow up memory. Absent tracks (0 keys)
 * need no valid kind/components: they are normalised. DEFAULT interp becomes LINEAR.) */
ossa_result ossa_clip_create(const ossa_clip_desc *desc, const ossa_allocator *allocator, ossa_clip **out);
/* Frees a clip from ossa_clip_create; NULL is a no-op. */
void ossa_clip_destroy(ossa_clip *clip);

/* Clip duration in seconds (end - start). */
float ossa_clip_duration(const ossa_clip *clip);
/* Maps any time to the clip's sampling time (see the semantics above). */
float ossa_clip_adjust_time(const ossa_clip *clip, float t, bool loop);

/* Number of uint32 cursors a playback instance needs for this clip
 * (3 per transform track + 1 per weight track). */
uint32_t ossa_clip_cursor_count(const ossa_clip *clip);

/* Samples the clip at time t into `out` (joint_count transforms). Joints without
 * a track, and components a track lacks, are copied from `reference` (the rest
 * pose; joint_count entries). Tracks whose joint >= joint_count are skipped.
 * `cursors` (ossa_clip_cursor_count entries) is needed only for OSSA_LOOKUP_CURSOR
 * (NULL falls back to a binary search). Returns the adjusted time. No allocation.
 * Misuse: a NULL clip, or a NULL out with joint_count > 0, returns 0 and writes nothing. */
float ossa_clip_sample(const ossa_clip *clip, float t, bool loop, ossa_lookup lookup, uint32_t *cursors,
                       const ossa_transform *reference, ossa_transform *out, uint32_t joint_count);

/* Job form of ossa_clip_sample: samples only tracks [track_begin, track_end) (clamped to
 * track_count) into the joints they drive, leaving every other joint of `out` untouched (the
 * caller fills the reference pose once). Disjoint track ranges write disjoint joints, so
 * threads may split a clip this way. Same cursors layout; returns the adjusted time. */
float ossa_clip_sample_tracks(const ossa_clip *clip, float t, bool loop, ossa_lookup lookup, uint32_t *cursors,
                              uint32_t track_begin, uint32_t track_end, ossa_transform *out, uint32_t joint_count);

/* Samples weight track `index` at time t into out (weights.components floats). */
float ossa_clip_sample_weights(const ossa_clip *clip, uint32_t index, float t, bool loop, ossa_lookup lookup,
                               uint32_t *cursors, float *out);

/* Rewrites every track's joint through old_to_new (count entries; tracks whose joint
 * is >= count or maps to UINT32_MAX are dropped) and re-sorts. The seed's RearrangeClip. */
ossa_result ossa_clip_remap_joints(ossa_clip *clip, const uint32_t *old_to_new, uint32_t count);

#ifdef __cplusplus
}
#endif
#endif
