/* Internal track helpers shared by track.c, clip.c and player.c (not installed).
 * The lookups and the interpolation are static inline so the clip sampler gets them
 * specialised for 3 and 4 components without cross-file calls (the library is built
 * with -fPIC, which keeps even same-file exported functions from being inlined). */
#ifndef OSSA_ANIM_TRACK_INTERNAL_H
#define OSSA_ANIM_TRACK_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <ossa/track.h>

#include "math/fast.h"

/* Clamp or wrap t into [start, end] exactly as ossa_track_adjust_time documents. */
float ossa__adjust_time(float start, float end, float t, bool loop);

/* Largest k in [0, n-2] with times[k] <= t (0 if none): the binary search. n >= 2. */
static inline uint32_t ossa__find_key_binary(const float *times, uint32_t n, float t) {
    /* k = number of keys among times[1 .. n-2] that are <= t. */
    uint32_t lo = 1, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* Moves guess k to the exact key for t: back while times[k] > t, forward while times[k+1] <= t. */
static inline uint32_t ossa__correct_key(const float *times, uint32_t n, uint32_t k, float t) {
    if (k > n - 2) k = n - 2;
    while (k > 0 && times[k] > t) k--;
    while (k + 1 < n - 1 && times[k + 1] <= t) k++;
    return k;
}

/* Frame-index table lookup (falls back to binary search without a table). n >= 2. */
static inline uint32_t ossa__find_key_table(const ossa_track *track, float t) {
    uint32_t n = track->key_count;
    const ossa_key_table *tab = &track->table;
    if (!tab->keys || tab->count == 0 || !(tab->rate > 0.0f)) return ossa__find_key_binary(track->times, n, t);
    if (isnan(t)) return 0;
    /* In double so that the clamp against count - 1 is exact for any table size. */
    double f = ((double)t - (double)tab->start) * (double)tab->rate;
    uint32_t i;
    if (!(f > 0.0)) i = 0;
    else if (f >= (double)(tab->count - 1)) i = tab->count - 1;
    else i = (uint32_t)f;
    return ossa__correct_key(track->times, n, tab->keys[i], t);
}

/* Cursor lookup: O(1) for small forward or backward steps; jumps (seeks, loop wraps) use
 * the frame-index table when the track has one, else binary search. n >= 2. */
static inline uint32_t ossa__find_key_cursor(const ossa_track *track, float t, uint32_t *cursor) {
    const float *times = track->times;
    uint32_t n = track->key_count, k = *cursor;
    if (k > n - 2 || isnan(t)) {
        k = ossa__find_key_table(track, t);
    } else if (times[k] > t) {
        if (k == 0) {
            /* before the first key: stays 0 */
        } else if (times[k - 1] <= t) {
            k--; /* one step back: reverse playback */
        } else {
            k = ossa__find_key_table(track, t);
        }
    } else if (k + 1 < n - 1 && times[k + 1] <= t) {
        /* Forwards: try the next two keys, then jump. */
        k++;
        if (k + 1 < n - 1 && times[k + 1] <= t) {
            k++;
            if (k + 1 < n - 1 && times[k + 1] <= t) k = ossa__find_key_table(track, t);
        }
    }
    *cursor = k;
    return k;
}

/* Key lookup by strategy (DEFAULT/TABLE: table if present else binary; CURSOR without a
 * cursor: as DEFAULT). Any t (already adjusted by the caller). */
static inline uint32_t ossa__track_find_key(const ossa_track *track, float t, ossa_lookup lookup, uint32_t *cursor) {
    uint32_t n = track->key_count;
    if (n < 2) {
        if (cursor && lookup == OSSA_LOOKUP_CURSOR) *cursor = 0;
        return 0;
    }
    switch (lookup) {
    case OSSA_LOOKUP_LINEAR: {
        uint32_t k = 0;
        while (k + 1 < n - 1 && track->times[k + 1] <= t) k++;
        return k;
    }
    case OSSA_LOOKUP_BINARY: return ossa__find_key_binary(track->times, n, t);
    case OSSA_LOOKUP_CURSOR:
        if (cursor) return ossa__find_key_cursor(track, t, cursor);
        return ossa__find_key_table(track, t);
    case OSSA_LOOKUP_TABLE:
    case OSSA_LOOKUP_DEFAULT:
    default: return ossa__find_key_table(track, t);
    }
}

/* Copies key k's value (the middle of the triple for CUBIC). */
static inline void ossa__copy_key(const ossa_track *track, uint32_t k, float *out, uint32_t c) {
    if (track->interp == OSSA_INTERP_CUBIC) memcpy(out, track->values + ((size_t)k * 3 + 1) * c, c * sizeof(float));
    else memcpy(out, track->values + (size_t)k * c, c * sizeof(float));
}

/* ossa_track_interpolate with the component count c passed in (a constant at most call
 * sites). Exact key values before the first key, at key times and from the last key on. */
static inline void ossa__interpolate(const ossa_track *track, uint32_t k, float t, float *out, uint32_t c) {
    uint32_t n = track->key_count;
    if (n == 0) {
        memset(out, 0, c * sizeof(float));
        return;
    }
    const float *times = track->times;
    if (n == 1 || !(t > times[0])) { /* before the first key (and NaN): the first value */
        ossa__copy_key(track, 0, out, c);
        return;
    }
    if (t >= times[n - 1]) { /* at or after the last key: exactly the last value */
        ossa__copy_key(track, n - 1, out, c);
        return;
    }
    if (k > n - 2) k = n - 2;
    float t0 = times[k], t1 = times[k + 1];
    if (t <= t0 || track->interp == OSSA_INTERP_STEP) {
        ossa__copy_key(track, k, out, c);
        return;
    }
    /* The key interval of finite key times can pass FLT_MAX (keys at -3e38 and 3e38): then the
     * parameter, and the tangents' scale, are computed in double (t - t0 is finite whenever
     * t1 - t0 is: t0 < t < t1). */
    float td = t1 - t0, s;
    bool wide = !(td <= FLT_MAX);
    if (!wide) s = (t - t0) / td;
    else s = (float)(((double)t - (double)t0) / ((double)t1 - (double)t0));
    if (s > 1.0f) s = 1.0f;
    if (track->interp == OSSA_INTERP_CUBIC) {
        const float *v0 = track->values + ((size_t)k * 3 + 1) * c; /* v_k */
        const float *b0 = v0 + c;                                  /* out-tangent b_k */
        const float *a1 = v0 + 2 * c;                              /* in-tangent a_{k+1} */
        const float *v1 = v0 + 3 * c;                              /* v_{k+1} */
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f, h10 = s3 - 2.0f * s2 + s;
        float h01 = -2.0f * s3 + 3.0f * s2, h11 = s3 - s2;
        if (!wide) {
            h10 *= td;
            h11 *= td;
        } else { /* |h10|, |h11| <= 4/27 and t1 - t0 < 2 FLT_MAX: the scaled weights are finite floats */
            double dt = (double)t1 - (double)t0;
            h10 = (float)((double)h10 * dt);
            h11 = (float)((double)h11 * dt);
        }
        for (uint32_t i = 0; i < c; i++) out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
        if (track->kind == OSSA_TRACK_ROTATION) ossa__quat_normalize4(out);
        return;
    }
    const float *a = track->values + (size_t)k * c, *b = a + c;
    if (track->kind == OSSA_TRACK_ROTATION) {
        ossa__slerp4(a, b, s, out);
        return;
    }
    for (uint32_t i = 0; i < c; i++) out[i] = a[i] + (b[i] - a[i]) * s;
}

#endif
