/* ossa/events.h: user tracks and events that play with a clip: float tracks sampled with the
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 * clip's clock, and edge-triggered events (a footstep at 0.31 s) that fire once per crossing.
 *
 * Data flow: clip time (the player's or the caller's clock) → EVENT JOB → indices of the events
 * crossed; → USER TRACK JOB → the track's value at that time. Both are jobs (plain structs,
 * validate + run), own nothing and never allocate. Thread-safety: distinct jobs may run at once.
 *
 * Crossing rule: an event at time e splits the timeline into "before" (t < e) and "after"
 * (t >= e). A step from clip time `from` by `advance` seconds crosses the event when it moves
 * from one side to the other: forwards when from < e <= from + advance, backwards when
 * from + advance < e <= from. So stopping exactly on an event fires it once, and stepping back
 * off it fires it once more. When looping, the event repeats at e + k·D (D = end - start) for
 * every integer k and every repetition inside the step is crossed (a step longer than a cycle
 * fires the event once per cycle); without looping both ends of the step are clamped into
 * [start, end]. Events are reported in the order they are crossed. */
#ifndef OSSA_EVENTS_H
#define OSSA_EVENTS_H

#include "track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_event_job {
    const float *times;        /* required (even for time_count 0): event times, clip seconds, */
    uint32_t time_count;       /* non-decreasing, in [start, end] */
    float start, end;          /* the clip's time range (end >= start) */
    bool loop;
    float from;                /* clip time before the step (finite; for loop, any value) */
    float advance;             /* clip seconds of the step (finite, any sign) */
    uint32_t *fired;           /* required out: indices into times, in crossing order */
    uint32_t fired_capacity;   /* entries fired holds (0 = count only) */
    uint32_t fired_count;      /* out: how many were crossed (may exceed fired_capacity) */
} ossa_event_job;

/* INVALID_ARGUMENT for NULL times or fired (so a zeroed job fails), a non-finite start / end /
 * from / advance, end < start, or unsorted / non-finite times or times outside [start, end].
 * On failure diag (may be NULL) names the field ("times", "fired", "start", "end", "from",
 * "advance"). O(time_count). */
ossa_result ossa_event_job_validate(const ossa_event_job *job, ossa_diagnostic *diag);
/* Validates, then writes the crossed events. BUFFER_TOO_SMALL when more than fired_capacity
 * were crossed: the first fired_capacity are written and fired_count has the total. */
ossa_result ossa_event_job_run(ossa_event_job *job);

/* A user track (any component count, VECTOR kind) sampled with the clip: at clip time `time`
 * (already adjusted by the clip's clock: clamped or wrapped) the track is evaluated like the
 * clip's own tracks (held before its first and after its last key). */
typedef struct ossa_user_track_job {
    const ossa_track *track;   /* required; validated with ossa_track_validate's rules (cheap subset) */
    float time;                /* clip seconds (finite) */
    uint32_t *cursor;          /* optional: remembered key (O(1) forward playback); NULL = binary search */
    float *output;             /* output_count >= track->components */
    uint32_t output_count;
} ossa_user_track_job;

/* INVALID_ARGUMENT for a NULL track / output, a track without keys or values, or a NaN /
 * infinite time; BUFFER_TOO_SMALL when output_count < components. On failure diag (may be
 * NULL) names the field ("track", "time", "output", "output_count"). O(1). */
ossa_result ossa_user_track_job_validate(const ossa_user_track_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then writes the track's components to output
 * (and moves *cursor when given). */
ossa_result ossa_user_track_job_run(ossa_user_track_job *job);

#ifdef __cplusplus
}
#endif
#endif
