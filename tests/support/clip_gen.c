/* Generated skeletons and clips for the built-clip tests (see clip_gen.h). */
#include "clip_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static float rnd(uint64_t *s, float lo, float hi) { return ot_rand_float(s, lo, hi); }

static float rnd_scale(uint64_t *s, bool wild) {
    if (!wild) return rnd(s, 0.8f, 1.2f);
    switch (ot_rand_u64(s) % 4) {
    case 0: return rnd(s, 1e-3f, 3e-3f);
    case 1: return rnd(s, 5e2f, 1e3f);
    case 2: return -rnd(s, 0.5f, 2.0f);
    default: return rnd(s, 0.3f, 3.0f);
    }
}

ossa_skeleton *ot_gen_skeleton(uint64_t *state, const ot_gen_options *opt) {
    uint32_t n = opt->joints;
    int32_t *parents = calloc(n, sizeof *parents);
    ossa_transform *rest = calloc(n, sizeof *rest);
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = i == 0 ? -1 : (opt->chain ? (int32_t)i - 1 : (int32_t)(ot_rand_u64(state) % i));
        rest[i].translation = (ossa_vec3){rnd(state, -1, 1), rnd(state, 0.1f, 1), rnd(state, -1, 1)};
        rest[i].rotation = ot_rand_quat(state);
        float s = rnd_scale(state, opt->wild_scales);
        rest[i].scale = opt->wild_scales ? (ossa_vec3){s, rnd_scale(state, true), s} : (ossa_vec3){1, 1, 1};
    }
    if (opt->wild_scales && n > 2) rest[0].scale = (ossa_vec3){0.01f, 0.01f, 0.01f}; /* Woman's root */
    ossa_skeleton_desc d = {0};
    d.joint_count = n;
    d.parents = parents;
    d.rest = rest;
    ossa_skeleton *sk = NULL;
    ossa_result r = ossa_skeleton_create(&d, NULL, &sk);
    free(parents);
    free(rest);
    return r == OSSA_OK ? sk : NULL;
}

/* Key times: start + increasing random steps. */
static void gen_times(uint64_t *s, float *t, uint32_t n) {
    t[0] = rnd(s, -0.5f, 0.5f);
    for (uint32_t k = 1; k < n; k++) t[k] = t[k - 1] + rnd(s, 0.01f, 0.2f);
}

static void gen_track(uint64_t *s, const ot_gen_options *opt, ossa_track *t, ossa_track_kind kind, uint32_t comps,
                      float **times_out, float **values_out) {
    memset(t, 0, sizeof *t);
    uint32_t n = 1 + (uint32_t)(ot_rand_u64(s) % opt->max_keys);
    int interp = opt->interp ? opt->interp : 1 + (int)(ot_rand_u64(s) % 3);
    uint32_t per = interp == OSSA_INTERP_CUBIC ? 3 : 1;
    float *times = calloc(n, sizeof *times), *values = calloc((size_t)n * comps * per, sizeof *values);
    gen_times(s, times, n);
    int shape = (int)(ot_rand_u64(s) % 4); /* 0 constant, 1 near-constant, 2 smooth, 3 noisy */
    if (opt->noisy) shape = 3;
    float base[OSSA_MAX_COMPONENTS], amp = rnd(s, 0.1f, 2.0f), freq = rnd(s, 0.5f, 6.0f);
    ossa_quat q0 = ot_rand_quat(s), q1 = ot_rand_quat(s);
    for (uint32_t c = 0; c < comps; c++) base[c] = kind == OSSA_TRACK_VECTOR ? rnd(s, -1, 1) : 0.0f;
    if (opt->wild_scales && comps == 3 && ot_rand_u64(s) % 3 == 0)
        for (uint32_t c = 0; c < comps; c++) base[c] = rnd_scale(s, true);
    for (uint32_t k = 0; k < n; k++) {
        float *v = values + ((size_t)k * per + (per == 3 ? 1 : 0)) * comps;
        float u = times[k];
        if (kind == OSSA_TRACK_ROTATION) {
            float a = shape == 0 ? 0.0f : shape == 1 ? 1e-4f * sinf(u * 7) : shape == 2 ? 0.5f + 0.5f * sinf(u * freq) : rnd(s, 0, 1);
            float qa[4] = {q0.x, q0.y, q0.z, q0.w}, qb[4] = {q1.x, q1.y, q1.z, q1.w};
            float len = 0;
            for (int c = 0; c < 4; c++) {
                v[c] = qa[c] * (1 - a) + qb[c] * a;
                len += v[c] * v[c];
            }
            for (int c = 0; c < 4; c++) v[c] /= sqrtf(len);
            if (ot_rand_u64(s) % 5 == 0)
                for (int c = 0; c < 4; c++) v[c] = -v[c]; /* sign flips between keys */
        } else {
            for (uint32_t c = 0; c < comps; c++) {
                float off = shape == 0 ? 0.0f : shape == 1 ? 1e-5f * sinf(u * 9 + (float)c) : shape == 2 ? amp * sinf(u * freq + (float)c) : rnd(s, -amp, amp);
                v[c] = base[c] + off * (fabsf(base[c]) > 10 ? fabsf(base[c]) * 0.1f : 1.0f);
            }
        }
        if (per == 3)
            for (uint32_t c = 0; c < comps; c++) {
                (v - comps)[c] = shape == 0 ? 0.0f : rnd(s, -2, 2); /* in-tangent */
                (v + comps)[c] = shape == 0 ? 0.0f : rnd(s, -2, 2); /* out-tangent */
            }
    }
    t->kind = kind;
    t->interp = (ossa_interp)interp;
    t->components = comps;
    t->key_count = n;
    t->times = times;
    t->values = values;
    *times_out = times;
    *values_out = values;
}

ossa_clip *ot_gen_clip(uint64_t *state, const ossa_skeleton *skeleton, const ot_gen_options *opt) {
    uint32_t n = skeleton->joint_count, W = opt->weight_tracks;
    ossa_transform_track *tracks = calloc(n, sizeof *tracks);
    ossa_weight_track *wt = calloc(W + 1, sizeof *wt);
    float **bufs = calloc((size_t)(n * 3 + W) * 2 + 1, sizeof *bufs);
    uint32_t nb = 0;
    for (uint32_t j = 0; j < n; j++) {
        tracks[j].joint = j;
        uint64_t mask = 1 + ot_rand_u64(state) % 7;
        if (mask & 1) gen_track(state, opt, &tracks[j].translation, OSSA_TRACK_VECTOR, 3, &bufs[nb], &bufs[nb + 1]), nb += 2;
        if (mask & 2) gen_track(state, opt, &tracks[j].rotation, OSSA_TRACK_ROTATION, 4, &bufs[nb], &bufs[nb + 1]), nb += 2;
        if (mask & 4) gen_track(state, opt, &tracks[j].scale, OSSA_TRACK_VECTOR, 3, &bufs[nb], &bufs[nb + 1]), nb += 2;
    }
    for (uint32_t i = 0; i < W; i++) {
        wt[i].joint = (uint32_t)(ot_rand_u64(state) % n);
        gen_track(state, opt, &wt[i].weights, OSSA_TRACK_VECTOR, 1 + (uint32_t)(ot_rand_u64(state) % 4), &bufs[nb],
                  &bufs[nb + 1]);
        nb += 2;
    }
    ossa_clip_desc d = {0};
    d.name = "generated";
    d.track_count = n;
    d.tracks = tracks;
    d.weight_track_count = W;
    d.weight_tracks = wt;
    ossa_clip *clip = NULL;
    ossa_result r = ossa_clip_create(&d, NULL, &clip);
    for (uint32_t i = 0; i < nb; i++) free(bufs[i]);
    free(bufs);
    free(tracks);
    free(wt);
    return r == OSSA_OK ? clip : NULL;
}

float ot_pose_error(const ossa_transform *a, const ossa_transform *b, const ossa_skeleton *skeleton, float shell,
                    float *magnitude) {
    float worst = 0.0f, mag = 0.0f;
    uint32_t n = skeleton->joint_count;
    for (uint32_t j = 0; j < n; j++) {
        ossa_mat4 ma = ossa_pose_joint_to_model(a, skeleton->parents, n, j);
        ossa_mat4 mb = ossa_pose_joint_to_model(b, skeleton->parents, n, j);
        /* the shell is model units at the bind pose: local offsets by the bind frame's axis lengths */
        ossa_mat4 bind = ossa_pose_joint_to_model(skeleton->bind, skeleton->parents, n, j);
        for (int p = 0; p < 4; p++) {
            double d2 = 0, local = 0;
            if (p > 0) {
                const float *c = bind.m + (p - 1) * 4;
                double len = sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2]);
                local = len > 0 ? shell / len : 0.0;
            }
            for (int r = 0; r < 3; r++) {
                double pa = ma.m[12 + r], pb = mb.m[12 + r];
                if (p > 0) {
                    pa += (double)ma.m[(p - 1) * 4 + r] * local;
                    pb += (double)mb.m[(p - 1) * 4 + r] * local;
                }
                d2 += (pa - pb) * (pa - pb);
                if (fabs(pa) > mag) mag = (float)fabs(pa);
            }
            float d = (float)sqrt(d2);
            if (!(d <= worst)) worst = d;
        }
    }
    if (magnitude) *magnitude = mag;
    return worst;
}

ossa_clip *ot_translation_clip(uint32_t joint, const float *times, const float *values) {
    ossa_transform_track t;
    memset(&t, 0, sizeof t);
    t.joint = joint;
    t.translation.kind = OSSA_TRACK_VECTOR;
    t.translation.interp = OSSA_INTERP_LINEAR;
    t.translation.components = 3;
    t.translation.key_count = 2;
    t.translation.times = times;
    t.translation.values = values;
    ossa_clip_desc d = {0};
    d.track_count = 1;
    d.tracks = &t;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}
