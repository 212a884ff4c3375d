/* ossa_clip_make_additive (ossa/blend.h): an editable clip of deltas against a reference pose.
 * Offline helper: allocates scratch and the new clip; not a hot path. */
#include <ossa/blend.h>

#include <string.h>

#include "build/derived_clip.h"
#include "core/alloc.h"

static ossa_quat quat_conj(ossa_quat q) { return (ossa_quat){-q.x, -q.y, -q.z, q.w}; }
static float safe_div(float a, float b) { return b != 0.0f ? a / b : a; }

/* Floats per key of a track (value, or in/value/out for cubic). */
static uint32_t stride(const ossa_track *t) { return t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u); }

/* Delta of one stored 3/4-component element (value or tangent) against the reference. */
static void delta_t(const float *v, const ossa_vec3 *ref, bool tangent, float *o) {
    o[0] = v[0] - (tangent ? 0.0f : ref->x);
    o[1] = v[1] - (tangent ? 0.0f : ref->y);
    o[2] = v[2] - (tangent ? 0.0f : ref->z);
}
static void delta_s(const float *v, const ossa_vec3 *ref, float *o) {
    o[0] = safe_div(v[0], ref->x);
    o[1] = safe_div(v[1], ref->y);
    o[2] = safe_div(v[2], ref->z);
}
static void delta_q(const float *v, ossa_quat ref, float *o) {
    ossa_quat d = ossa_quat_mul(quat_conj(ref), (ossa_quat){v[0], v[1], v[2], v[3]});
    o[0] = d.x, o[1] = d.y, o[2] = d.z, o[3] = d.w;
}

typedef enum { C_T, C_R, C_S } component;

/* Fills dst from src (or one constant key of `rest` when src is absent), as deltas against ref.
 * `values` has room for the result; returns the number of floats used. */
static size_t make_track(const ossa_track *src, component c, const ossa_transform *rest, const ossa_transform *ref,
                         const float *start_time, float *values, ossa_track *dst) {
    memset(dst, 0, sizeof *dst);
    dst->kind = c == C_R ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
    dst->components = c == C_R ? 4u : 3u;
    dst->values = values;
    if (src->key_count == 0) {
        float v[4];
        if (c == C_T) {
            delta_t(&rest->translation.x, &ref->translation, false, values);
        } else if (c == C_S) {
            delta_s(&rest->scale.x, &ref->scale, values);
        } else {
            v[0] = rest->rotation.x, v[1] = rest->rotation.y, v[2] = rest->rotation.z, v[3] = rest->rotation.w;
            delta_q(v, ref->rotation, values);
        }
        dst->interp = OSSA_INTERP_STEP;
        dst->key_count = 1;
        dst->times = start_time;
        return dst->components;
    }
    dst->interp = src->interp;
    dst->key_count = src->key_count;
    dst->times = src->times;
    uint32_t cs = src->components, per = stride(src);
    bool cubic = src->interp == OSSA_INTERP_CUBIC;
    for (uint32_t k = 0; k < src->key_count; k++) {
        for (uint32_t e = 0; e < per / cs; e++) {
            const float *v = src->values + (size_t)k * per + e * cs;
            float *o = values + (size_t)k * per + e * cs;
            bool tangent = cubic && e != 1;
            if (c == C_T) delta_t(v, &ref->translation, tangent, o);
            else if (c == C_S) delta_s(v, &ref->scale, o);
            else delta_q(v, ref->rotation, o); /* linear in q: tangents transform the same way */
        }
    }
    return (size_t)src->key_count * per;
}

ossa_result ossa_clip_make_additive(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                    const ossa_transform *reference, const ossa_allocator *allocator,
                                    ossa_clip **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!clip || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    const uint32_t n = skeleton->joint_count;
    /* Scratch: the first-frame pose, one track per joint, and every delta value. */
    size_t floats = 0;
    const ossa_transform_track **src_of = NULL;
    ossa__layout L = {0, false};
    size_t o_pose = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_tracks = ossa__layout_add(&L, n, sizeof(ossa_transform_track));
    size_t o_src = ossa__layout_add(&L, n, sizeof(*src_of));
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= n) continue;
        floats += (size_t)t->translation.key_count * stride(&t->translation) +
                  (size_t)t->rotation.key_count * stride(&t->rotation) +
                  (size_t)t->scale.key_count * stride(&t->scale);
    }
    floats += (size_t)n * 10u; /* constant keys */
    size_t o_values = ossa__layout_add(&L, floats, sizeof(float));
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size ? L.size : 1);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_transform *first = (ossa_transform *)(base + o_pose);
    ossa_transform_track *tracks = (ossa_transform_track *)(base + o_tracks);
    src_of = (const ossa_transform_track **)(base + o_src);
    float *values = (float *)(base + o_values);

    if (!reference) {
        ossa_clip_sample_job sj = {.clip = clip, .time = clip->start, .lookup = OSSA_LOOKUP_BINARY,
                                   .reference = skeleton->rest, .reference_count = n, .output = first, .output_count = n};
        ossa_clip_sample_job_run(&sj);
        reference = first;
    }
    for (uint32_t j = 0; j < n; j++) src_of[j] = NULL;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].joint < n) src_of[clip->tracks[i].joint] = &clip->tracks[i];

    const float start = clip->start;
    static const ossa_track absent; /* key_count 0 */
    size_t used = 0;
    for (uint32_t j = 0; j < n; j++) {
        const ossa_transform_track *s = src_of[j];
        ossa_transform_track *d = &tracks[j];
        d->joint = j;
        used += make_track(s ? &s->translation : &absent, C_T, &skeleton->rest[j], &reference[j], &start,
                           values + used, &d->translation);
        used += make_track(s ? &s->rotation : &absent, C_R, &skeleton->rest[j], &reference[j], &start,
                           values + used, &d->rotation);
        used += make_track(s ? &s->scale : &absent, C_S, &skeleton->rest[j], &reference[j], &start,
                           values + used, &d->scale);
    }
    ossa_result r = ossa__clip_create_derived(clip, tracks, n, allocator, out);
    ossa__free(allocator, base);
    return r;
}
