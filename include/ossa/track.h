/* ossa/track.h: keyframe tracks and key lookup (runtime data → sample).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * A track is a non-owning VIEW over key times and values: the storage belongs
 * to whoever built it (usually an ossa_clip). Times are seconds, strictly
 * increasing. Values are `components` floats per key; for OSSA_INTERP_CUBIC
 * each key stores (in-tangent, value, out-tangent) in that order, exactly as
 * glTF CUBICSPLINE outputs, i.e. 3 * components floats per key.
 * Tangents are per second: the Hermite evaluation multiplies them by the key
 * interval Δt. Rotation tracks (OSSA_TRACK_ROTATION, 4 components x y z w)
 * slerp along the shorter arc for LINEAR and are normalised after CUBIC.
 *
 * Key lookup: every strategy returns the same index k with
 * times[k] <= t < times[k+1], clamped to [0, key_count - 2] (0 for one key):
 *   linear scan (reference), binary search, a sampled frame-index table
 *   built from the track's own first key time at a chosen rate (the seed's
 *   "fast track"), and a cursor that remembers the last key (O(1) amortised
 *   for forward playback). All are allocation-free. */
#ifndef OSSA_TRACK_H
#define OSSA_TRACK_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_interp {
    OSSA_INTERP_DEFAULT = 0, /* = LINEAR */
    OSSA_INTERP_STEP,
    OSSA_INTERP_LINEAR,
    OSSA_INTERP_CUBIC /* glTF CUBICSPLINE (Hermite) */
} ossa_interp;

typedef enum ossa_track_kind {
    OSSA_TRACK_VECTOR = 0, /* any component count, lerped */
    OSSA_TRACK_ROTATION    /* 4 components, unit quaternion (x y z w) */
} ossa_track_kind;

typedef enum ossa_lookup {
    OSSA_LOOKUP_DEFAULT = 0, /* table when present, else binary search */
    OSSA_LOOKUP_LINEAR,      /* reference scan from the first key */
    OSSA_LOOKUP_BINARY,
    OSSA_LOOKUP_TABLE,       /* sampled frame-index table (falls back to binary if absent) */
    OSSA_LOOKUP_CURSOR       /* remembered key index; needs a cursor */
} ossa_lookup;

/* Sampled frame-index table: entry i holds the key index for time
 * start + i / rate (i in [0, count)). */
typedef struct ossa_key_table {
    float start;            /* seconds: the track's first key time */
    float rate;             /* entries per second; > 0 */
    uint32_t count;
    const uint32_t *keys;   /* count entries; NULL = no table */
} ossa_key_table;

typedef struct ossa_track {
    ossa_track_kind kind;
    ossa_interp interp;
    uint32_t components;    /* floats per value: 1..OSSA_MAX_COMPONENTS; 4 for ROTATION */
    uint32_t key_count;     /* 0 = track absent */
    const float *times;     /* key_count seconds, strictly increasing */
    const float *values;    /* key_count * components (* 3 for CUBIC) */
    ossa_key_table table;   /* optional */
} ossa_track;

#define OSSA_MAX_COMPONENTS 256 /* upper bound for weight tracks (morph targets) */

/* Time of the first / last key (0 for an empty track). */
float ossa_track_start(const ossa_track *track);
float ossa_track_end(const ossa_track *track);

/* Adjusts time `t` into the track's own [start, end]: clamped, or wrapped when
 * `loop`. NaN and -Inf map to start; +Inf maps to end (clamped) or start (loop). */
float ossa_track_adjust_time(const ossa_track *track, float t, bool loop);

/* Key lookups: all return the same k (see above). The cursor variant reads and
 * updates *cursor (any start value is valid; out-of-range is reset). */
uint32_t ossa_track_find_key_linear(const ossa_track *track, float t);
uint32_t ossa_track_find_key_binary(const ossa_track *track, float t);
uint32_t ossa_track_find_key_table(const ossa_track *track, float t);
uint32_t ossa_track_find_key_cursor(const ossa_track *track, float t, uint32_t *cursor);

/* Number of uint32 entries the frame-index table needs at `rate` entries per second:
 * floor((end - start) x rate) + 2, computed in double, saturating at UINT32_MAX (a caller
 * choosing the rate for a huge span, e.g. 6e38 s, must lower it: ossa_clip_create caps it). */
uint32_t ossa_track_table_bound(const ossa_track *track, float rate);
/* Fills `keys` (capacity entries, >= ossa_track_table_bound) and sets track->table
 * to point at it. The caller owns `keys` and keeps it alive as long as the track.
 * INVALID_ARGUMENT for a NULL track or keys, a track without keys, or a rate that gives
 * no table (<= 0, NaN, inf); BUFFER_TOO_SMALL when capacity < the bound. */
ossa_result ossa_track_build_table(ossa_track *track, float rate, uint32_t *keys, uint32_t capacity);

/* Interpolates between key k and k+1 at time t (t already adjusted/clamped),
 * writing `components` floats to out. Any finite key times: an interval t1 - t0 past
 * FLT_MAX (keys at -3e38 and 3e38) takes the parameter (t - t0) / (t1 - t0), and the
 * CUBICSPLINE tangents' factor t1 - t0, in double (the scaled Hermite weights stay finite
 * floats; tangent x interval can still overflow a float when the data asks for it). */
void ossa_track_interpolate(const ossa_track *track, uint32_t k, float t, float *out);

/* Adjusts t (see ossa_track_adjust_time), finds the key with `lookup` (cursor may be
 * NULL unless lookup is CURSOR) and writes `components` floats to out. A track with
 * one key is constant. Returns the adjusted time. */
float ossa_track_sample(const ossa_track *track, float t, bool loop, ossa_lookup lookup,
                        uint32_t *cursor, float *out);

/* Checks a track view: component count, kind, strictly increasing finite times,
 * non-NULL arrays. Returns OSSA_ERROR_INVALID_DATA on violation. */
ossa_result ossa_track_validate(const ossa_track *track);

#ifdef __cplusplus
}
#endif
#endif
