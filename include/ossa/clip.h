/* ossa/clip.h: animation clips (runtime data → sample → local pose).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * A clip is an immutable runtime object: one allocation created by
 * ossa_clip_create (which deep-copies the desc and builds the frame-index
 * tables) and freed by ossa_clip_destroy. It holds one transform track per
 * animated joint (translation / rotation / scale; key_count 0 = component not
 * animated, the reference pose supplies it) and weight tracks for morph targets.
 *
 * Time semantics (docs/architecture.md): start/end are the min/max key time over all
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
 * so a sparse track over a long time range cannot blow up memory: keys at -3e38 and 3e38 get
 * a table of at most 72 entries at ~1e-37 entries/s. Absent tracks (0 keys)
 * need no valid kind/components: they are normalised. DEFAULT interp becomes LINEAR.) */
ossa_result ossa_clip_create(const ossa_clip_desc *desc, const ossa_allocator *allocator, ossa_clip **out);
/* Frees a clip from ossa_clip_create; NULL is a no-op. */
void ossa_clip_destroy(ossa_clip *clip);

/* Clip duration in seconds (end - start, in float: +inf when finite key times span more than
 * FLT_MAX, e.g. -3e38 .. 3e38; such a clip still samples and loops correctly, the clock and
 * the key intervals are computed in double). */
float ossa_clip_duration(const ossa_clip *clip);
/* Maps any time to the clip's sampling time (see the semantics above). */
float ossa_clip_adjust_time(const ossa_clip *clip, float t, bool loop);

/* Number of uint32 cursors a playback instance needs for this clip
 * (3 per transform track + 1 per weight track). */
uint32_t ossa_clip_cursor_count(const ossa_clip *clip);

/* Sampling job (editable clip → local pose): the exact reference path.
 *
 * Spans: the pose has N joints, N = reference_count when `reference` is given, else
 * output_count. output[0..N) receives the pose; joints without a track, and components a
 * track lacks, come from reference (the rest pose) or identity when reference is NULL.
 * Tracks whose joint >= N are skipped (a clip made for a bigger skeleton plays).
 * `cursors` (cursor_count >= ossa_clip_cursor_count(clip)) is required for
 * OSSA_LOOKUP_CURSOR and optional otherwise (ignored). No allocation.
 *
 * Splitting: track_begin = track_end = 0 samples the whole clip (reference copied, then
 * every track). Any other [track_begin, track_end) (track_end <= track_count) samples only
 * those tracks into the joints they drive and leaves every other joint of output untouched
 * (reference is not copied: the caller fills the pose once). Tracks are sorted by joint,
 * so disjoint track ranges write disjoint joints and threads may split a clip this way. */
typedef struct ossa_clip_sample_job {
    const ossa_clip *clip;              /* required */
    float time;                         /* seconds; mapped by ossa_clip_adjust_time */
    bool loop;                          /* wrap into [start, end) instead of clamping */
    ossa_lookup lookup;                 /* key lookup strategy; 0 = DEFAULT */
    uint32_t *cursors;                  /* per-instance cursors (CURSOR lookup only) */
    uint32_t cursor_count;
    const ossa_transform *reference;    /* optional rest pose, reference_count entries */
    uint32_t reference_count;
    ossa_transform *output;             /* required: output_count >= N */
    uint32_t output_count;
    uint32_t track_begin, track_end;    /* 0, 0 = all tracks (see above) */
    float sampled_time;                 /* out: the clip time actually sampled */
} ossa_clip_sample_job;

/* OK, INVALID_ARGUMENT (NULL job / clip / output, NULL reference with reference_count > 0, an
 * unknown lookup, CURSOR lookup without cursors, track_begin > track_end or track_end >
 * track_count) or BUFFER_TOO_SMALL (output_count < reference_count, cursor_count <
 * ossa_clip_cursor_count). On failure diag (may be NULL) names the field ("clip", "output",
 * "reference", "track_begin", "track_end", "lookup", "cursors", "cursor_count",
 * "output_count"). Cheap: O(1). */
ossa_result ossa_clip_sample_job_validate(const ossa_clip_sample_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then samples and sets job->sampled_time. */
ossa_result ossa_clip_sample_job_run(ossa_clip_sample_job *job);

/* Morph-weight sampling job: weight track `track` at `time` into output[0..components)
 * (components = clip->weight_tracks[track].weights.components; a track without keys
 * gives zeros). Cursors as for ossa_clip_sample_job (the same cursor array serves both). */
typedef struct ossa_clip_weights_job {
    const ossa_clip *clip;              /* required */
    uint32_t track;                     /* weight track index < weight_track_count */
    float time;
    bool loop;
    ossa_lookup lookup;
    uint32_t *cursors;                  /* CURSOR lookup only: cursor_count >= ossa_clip_cursor_count */
    uint32_t cursor_count;
    float *output;                      /* required: output_count >= the track's components */
    uint32_t output_count;
    float sampled_time;                 /* out */
} ossa_clip_weights_job;

/* OK, INVALID_ARGUMENT (NULL job / clip / output, track out of range, bad lookup, CURSOR
 * without cursors) or BUFFER_TOO_SMALL (output_count or cursor_count too small); diag (may
 * be NULL) names the field ("clip", "output", "track", "lookup", "cursors", "cursor_count",
 * "output_count"). O(1). */
ossa_result ossa_clip_weights_job_validate(const ossa_clip_weights_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then samples and sets job->sampled_time. */
ossa_result ossa_clip_weights_job_run(ossa_clip_weights_job *job);

/* Rewrites every track's joint through old_to_new (count entries; tracks whose joint
 * is >= count or maps to UINT32_MAX are dropped) and re-sorts. The seed's RearrangeClip. */
ossa_result ossa_clip_remap_joints(ossa_clip *clip, const uint32_t *old_to_new, uint32_t count);

#ifdef __cplusplus
}
#endif
#endif
