/* Keyframe tracks: time adjustment, four key-lookup strategies, interpolation (see ossa/track.h). */
#include <ossa/track.h>

#include <math.h>
#include <string.h>

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
    if (track->key_count < 2) return 0;
    return ossa__find_key_binary(track->times, track->key_count, t);
}

uint32_t ossa_track_find_key_table(const ossa_track *track, float t) {
    if (track->key_count < 2) return 0;
    return ossa__find_key_table(track, t);
}

uint32_t ossa_track_find_key_cursor(const ossa_track *track, float t, uint32_t *cursor) {
    if (track->key_count < 2) {
        if (cursor) *cursor = 0;
        return 0;
    }
    if (!cursor) return ossa__find_key_binary(track->times, track->key_count, t);
    return ossa__find_key_cursor(track, t, cursor);
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

void ossa_track_interpolate(const ossa_track *track, uint32_t k, float t, float *out) {
    ossa__interpolate(track, k, t, out, track->components);
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
    ossa__interpolate(track, k, ta, out, track->components);
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
