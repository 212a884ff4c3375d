/* Keyframe tracks: time adjustment, four key-lookup strategies, interpolation (see ossa/track.h). */
#include <ossa/track.h>

#include <math.h>
#include <string.h>

#include <ossa/math.h>

#include "anim/track_internal.h"

float ossa_track_start(const ossa_track *track) {
    return (track && track->key_count) ? track->times[0] : 0.0f;
}

float ossa_track_end(const ossa_track *track) {
    return (track && track->key_count) ? track->times[track->key_count - 1] : 0.0f;
}

float ossa__adjust_time(float start, float end, float t, bool loop) {
    if (isnan(t) || t == -INFINITY) return start;
    if (t == INFINITY) return loop ? start : end;
    if (!loop) {
        if (t < start) return start;
        if (t > end) return end;
        return t;
    }
    double dur = (double)end - (double)start;
    if (!(dur > 0.0)) return start;
    if (t >= start && t < end) return t;
    double r = fmod((double)t - (double)start, dur);
    if (r < 0.0) r += dur;
    float out = (float)((double)start + r);
    if (out >= end || out < start) out = start; /* rounding at the seam: [start, end) */
    return out;
}

float ossa_track_adjust_time(const ossa_track *track, float t, bool loop) {
    if (!track || track->key_count == 0) return 0.0f;
    return ossa__adjust_time(track->times[0], track->times[track->key_count - 1], t, loop);
}

uint32_t ossa_track_find_key_linear(const ossa_track *track, float t) {
    uint32_t n = track->key_count;
    if (n < 2) return 0;
    uint32_t k = 0;
    while (k + 1 < n - 1 && track->times[k + 1] <= t) k++;
    return k;
}

uint32_t ossa_track_find_key_binary(const ossa_track *track, float t) {
    uint32_t n = track->key_count;
    if (n < 2) return 0;
    /* k = number of keys among times[1 .. n-2] that are <= t. */
    const float *times = track->times;
    uint32_t lo = 1, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* Moves guess k to the exact key for t: back while times[k] > t, forward while times[k+1] <= t. */
static inline uint32_t correct_key(const float *times, uint32_t n, uint32_t k, float t) {
    if (k > n - 2) k = n - 2;
    while (k > 0 && times[k] > t) k--;
    while (k + 1 < n - 1 && times[k + 1] <= t) k++;
    return k;
}

uint32_t ossa_track_find_key_table(const ossa_track *track, float t) {
    uint32_t n = track->key_count;
    if (n < 2) return 0;
    const ossa_key_table *tab = &track->table;
    if (!tab->keys || tab->count == 0 || !(tab->rate > 0.0f)) return ossa_track_find_key_binary(track, t);
    if (isnan(t)) return 0;
    /* In double so that the clamp against count - 1 is exact for any table size. */
    double f = ((double)t - (double)tab->start) * (double)tab->rate;
    uint32_t i;
    if (!(f > 0.0)) i = 0;
    else if (f >= (double)(tab->count - 1)) i = tab->count - 1;
    else i = (uint32_t)f;
    return correct_key(track->times, n, tab->keys[i], t);
}

uint32_t ossa_track_find_key_cursor(const ossa_track *track, float t, uint32_t *cursor) {
    uint32_t n = track->key_count;
    if (n < 2) {
        if (cursor) *cursor = 0;
        return 0;
    }
    if (!cursor) return ossa_track_find_key_binary(track, t);
    const float *times = track->times;
    uint32_t k = *cursor;
    if (k > n - 2 || isnan(t)) {
        k = ossa_track_find_key_binary(track, t);
    } else if (k > 0 && times[k] > t) {
        /* Backwards: one step back is common for reverse playback; otherwise search. */
        if (times[k - 1] <= t) k--;
        else k = ossa_track_find_key_binary(track, t);
    } else if (k + 1 < n - 1 && times[k + 1] <= t) {
        /* Forwards: try the next two keys, then search. */
        k++;
        if (k + 1 < n - 1 && times[k + 1] <= t) {
            k++;
            if (k + 1 < n - 1 && times[k + 1] <= t) k = ossa_track_find_key_binary(track, t);
        }
    }
    *cursor = k;
    return k;
}

uint32_t ossa_track_table_bound(const ossa_track *track, float rate) {
    if (!track || track->key_count == 0 || !(rate > 0.0f) || !isfinite(rate)) return 0;
    double span = ((double)ossa_track_end(track) - (double)ossa_track_start(track)) * (double)rate;
    if (!(span >= 0.0)) return 0;
    double count = floor(span) + 2.0;
    if (count > (double)UINT32_MAX) return UINT32_MAX;
    return (uint32_t)count;
}

ossa_result ossa_track_build_table(ossa_track *track, float rate, uint32_t *keys, uint32_t capacity) {
    if (!track || !keys || track->key_count == 0) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t count = ossa_track_table_bound(track, rate);
    if (count == 0) return OSSA_ERROR_INVALID_ARGUMENT;
    if (capacity < count) return OSSA_ERROR_BUFFER_TOO_SMALL;
    float start = track->times[0];
    uint32_t k = 0;
    for (uint32_t i = 0; i < count; i++) {
        float t = (float)((double)start + (double)i / (double)rate);
        /* Times grow with i, so the reference key only moves forward. */
        if (track->key_count >= 2)
            while (k + 1 < track->key_count - 1 && track->times[k + 1] <= t) k++;
        keys[i] = k;
    }
    track->table.start = start;
    track->table.rate = rate;
    track->table.count = count;
    track->table.keys = keys;
    return OSSA_OK;
}

static inline void copy_key(const ossa_track *track, uint32_t k, float *out) {
    uint32_t c = track->components;
    if (track->interp == OSSA_INTERP_CUBIC) memcpy(out, track->values + ((size_t)k * 3 + 1) * c, c * sizeof(float));
    else memcpy(out, track->values + (size_t)k * c, c * sizeof(float));
}

void ossa_track_interpolate(const ossa_track *track, uint32_t k, float t, float *out) {
    uint32_t n = track->key_count, c = track->components;
    if (n == 0) {
        memset(out, 0, c * sizeof(float));
        return;
    }
    const float *times = track->times;
    if (n == 1 || !(t > times[0])) { /* before the first key (and NaN): the first value */
        copy_key(track, 0, out);
        return;
    }
    if (t >= times[n - 1]) { /* at or after the last key: exactly the last value */
        copy_key(track, n - 1, out);
        return;
    }
    if (k > n - 2) k = n - 2;
    float t0 = times[k], t1 = times[k + 1];
    if (t <= t0 || track->interp == OSSA_INTERP_STEP) {
        copy_key(track, k, out);
        return;
    }
    float td = t1 - t0;
    float s = (t - t0) / td;
    if (s > 1.0f) s = 1.0f;
    if (track->interp == OSSA_INTERP_CUBIC) {
        const float *v0 = track->values + ((size_t)k * 3 + 1) * c;  /* v_k */
        const float *b0 = track->values + ((size_t)k * 3 + 2) * c;  /* out-tangent b_k */
        const float *a1 = track->values + ((size_t)k * 3 + 3) * c;  /* in-tangent a_{k+1} */
        const float *v1 = track->values + ((size_t)k * 3 + 4) * c;  /* v_{k+1} */
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f, h10 = (s3 - 2.0f * s2 + s) * td;
        float h01 = -2.0f * s3 + 3.0f * s2, h11 = (s3 - s2) * td;
        for (uint32_t i = 0; i < c; i++) out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
        if (track->kind == OSSA_TRACK_ROTATION) {
            ossa_quat q = {out[0], out[1], out[2], out[3]};
            q = ossa_quat_normalize(q);
            out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
        }
        return;
    }
    const float *a = track->values + (size_t)k * c, *b = a + c;
    if (track->kind == OSSA_TRACK_ROTATION) {
        ossa_quat qa = {a[0], a[1], a[2], a[3]}, qb = {b[0], b[1], b[2], b[3]};
        ossa_quat q = ossa_quat_slerp(qa, qb, s);
        out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
        return;
    }
    for (uint32_t i = 0; i < c; i++) out[i] = a[i] + (b[i] - a[i]) * s;
}

uint32_t ossa__track_find_key(const ossa_track *track, float t, ossa_lookup lookup, uint32_t *cursor) {
    switch (lookup) {
    case OSSA_LOOKUP_LINEAR: return ossa_track_find_key_linear(track, t);
    case OSSA_LOOKUP_BINARY: return ossa_track_find_key_binary(track, t);
    case OSSA_LOOKUP_CURSOR:
        if (cursor) return ossa_track_find_key_cursor(track, t, cursor);
        return track->table.keys ? ossa_track_find_key_table(track, t) : ossa_track_find_key_binary(track, t);
    case OSSA_LOOKUP_TABLE:
    case OSSA_LOOKUP_DEFAULT:
    default: return track->table.keys ? ossa_track_find_key_table(track, t) : ossa_track_find_key_binary(track, t);
    }
}

float ossa_track_sample(const ossa_track *track, float t, bool loop, ossa_lookup lookup, uint32_t *cursor,
                        float *out) {
    if (!track || !out) return 0.0f;
    if (track->key_count == 0) {
        memset(out, 0, track->components * sizeof(float));
        return 0.0f;
    }
    float ta = ossa_track_adjust_time(track, t, loop);
    uint32_t k = ossa__track_find_key(track, ta, lookup, cursor);
    ossa_track_interpolate(track, k, ta, out);
    return ta;
}

ossa_result ossa_track_validate(const ossa_track *track) {
    if (!track) return OSSA_ERROR_INVALID_ARGUMENT;
    if (track->kind != OSSA_TRACK_VECTOR && track->kind != OSSA_TRACK_ROTATION) return OSSA_ERROR_INVALID_DATA;
    if ((unsigned)track->interp > (unsigned)OSSA_INTERP_CUBIC) return OSSA_ERROR_INVALID_DATA;
    if (track->components < 1 || track->components > OSSA_MAX_COMPONENTS) return OSSA_ERROR_INVALID_DATA;
    if (track->kind == OSSA_TRACK_ROTATION && track->components != 4) return OSSA_ERROR_INVALID_DATA;
    uint32_t n = track->key_count;
    if (n == 0) return OSSA_OK;
    if (!track->times || !track->values) return OSSA_ERROR_INVALID_DATA;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(track->times[i])) return OSSA_ERROR_INVALID_DATA;
        if (i > 0 && !(track->times[i] > track->times[i - 1])) return OSSA_ERROR_INVALID_DATA;
    }
    const ossa_key_table *tab = &track->table;
    if (tab->keys) {
        if (tab->count == 0 || !(tab->rate > 0.0f) || !isfinite(tab->rate) || !isfinite(tab->start))
            return OSSA_ERROR_INVALID_DATA;
        for (uint32_t i = 0; i < tab->count; i++)
            if (tab->keys[i] >= n) return OSSA_ERROR_INVALID_DATA;
    }
    return OSSA_OK;
}
