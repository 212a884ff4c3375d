/* Clips (src/anim/clip.c): creation and validation, start/end over all tracks, the clip
 * clock (clamp, wrap, negative, huge, NaN, infinities), reference fallback, per-track
 * clamping, lookups agreeing, weights, remapping. */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ossa_track vec_track(uint32_t comps, uint32_t n, const float *times, const float *values) {
    ossa_track t;
    memset(&t, 0, sizeof t);
    t.kind = OSSA_TRACK_VECTOR;
    t.interp = OSSA_INTERP_LINEAR;
    t.components = comps;
    t.key_count = n;
    t.times = times;
    t.values = values;
    return t;
}

static ossa_track rot_track(uint32_t n, const float *times, const float *values) {
    ossa_track t = vec_track(4, n, times, values);
    t.kind = OSSA_TRACK_ROTATION;
    return t;
}

/* Joint 2: translation keys at 1..2; joint 0: scale keys at 2..3; weights 0.5..1.5 */
static const float T_TIMES[] = {1, 2};
static const float T_VALUES[] = {0, 0, 0, 10, 20, 30};
static const float S_TIMES[] = {2, 3};
static const float S_VALUES[] = {1, 1, 1, 3, 5, 7};
static const float W_TIMES[] = {0.5f, 1.5f};
static const float W_VALUES[] = {0, 1, 1, 0};
static const float R_TIMES[] = {1.5f};
static const float R_VALUES[] = {0, 0, 0.70710678f, 0.70710678f};

static ossa_clip *make_clip(float table_rate, bool with_weights) {
    ossa_transform_track tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[0].joint = 2;
    tracks[0].translation = vec_track(3, 2, T_TIMES, T_VALUES);
    tracks[0].rotation = rot_track(1, R_TIMES, R_VALUES);
    tracks[1].joint = 0;
    tracks[1].scale = vec_track(3, 2, S_TIMES, S_VALUES);
    ossa_weight_track w;
    w.joint = 1;
    w.weights = vec_track(2, 2, W_TIMES, W_VALUES);
    ossa_clip_desc d = {0};
    d.name = "walk";
    d.track_count = 2;
    d.tracks = tracks;
    d.weight_track_count = with_weights ? 1 : 0;
    d.weight_tracks = &w;
    d.table_rate = table_rate;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}

static void create_copies_and_sorts(void **state) {
    (void)state;
    ossa_clip *c = make_clip(0, true);
    assert_string_equal(c->name, "walk");
    assert_int_equal(c->track_count, 2);
    assert_int_equal(c->tracks[0].joint, 0); /* sorted by joint */
    assert_int_equal(c->tracks[1].joint, 2);
    assert_true(c->tracks[1].translation.times != T_TIMES); /* deep copy */
    assert_memory_equal(c->tracks[1].translation.values, T_VALUES, sizeof T_VALUES);
    assert_int_equal(c->tracks[0].translation.key_count, 0);
    /* start/end over all tracks, weight tracks included */
    assert_float_equal(c->start, 0.5f, 0);
    assert_float_equal(c->end, 3.0f, 0);
    assert_float_equal(ossa_clip_duration(c), 2.5f, 0);
    assert_int_equal(ossa_clip_cursor_count(c), 7);
    /* default table rate 60: a table per animated track, built from the track's own start */
    assert_non_null(c->tracks[1].translation.table.keys);
    assert_float_equal(c->tracks[1].translation.table.start, 1.0f, 0);
    assert_float_equal(c->tracks[1].translation.table.rate, 60.0f, 0);
    assert_int_equal(ossa_track_validate(&c->tracks[1].translation), OSSA_OK);
    ossa_clip_destroy(c);
    c = make_clip(-1, false);
    assert_null(c->tracks[1].translation.table.keys);
    assert_float_equal(c->start, 1.0f, 0);
    ossa_clip_destroy(c);
    ossa_clip_destroy(NULL);
    /* empty clip */
    ossa_clip_desc d = {0};
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    assert_string_equal(c->name, "");
    assert_float_equal(c->start, 0, 0);
    assert_float_equal(c->end, 0, 0);
    assert_float_equal(ossa_clip_adjust_time(c, 5, true), 0, 0);
    ossa_clip_destroy(c);
}

static void create_rejects_bad_tracks(void **state) {
    (void)state;
    const float bad_times[] = {1, 1};
    ossa_transform_track tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[0].translation = vec_track(3, 2, bad_times, T_VALUES);
    ossa_clip_desc d = {0};
    d.track_count = 1;
    d.tracks = tracks;
    ossa_clip *c = (ossa_clip *)1;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    assert_null(c);
    tracks[0].translation = vec_track(4, 2, T_TIMES, T_VALUES); /* wrong component count */
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    tracks[0].translation = rot_track(1, R_TIMES, R_VALUES); /* wrong kind */
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    tracks[0].translation = vec_track(3, 2, T_TIMES, T_VALUES);
    tracks[1] = tracks[0]; /* same joint twice */
    d.track_count = 2;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    assert_null(c);
    d.tracks = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_ARGUMENT);
}

static void clock_semantics(void **state) {
    (void)state;
    ossa_clip *c = make_clip(0, true); /* [0.5, 3] */
    assert_float_equal(ossa_clip_adjust_time(c, 0, false), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, 2, false), 2, 0);
    assert_float_equal(ossa_clip_adjust_time(c, 9, false), 3, 0);
    assert_float_equal(ossa_clip_adjust_time(c, NAN, false), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, -INFINITY, false), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, INFINITY, false), 3, 0);
    assert_float_equal(ossa_clip_adjust_time(c, INFINITY, true), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, NAN, true), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, 3, true), 0.5f, 0);
    assert_float_equal(ossa_clip_adjust_time(c, 4, true), 1.5f, 0);  /* 0.5 + fmod(3.5, 2.5) */
    assert_float_equal(ossa_clip_adjust_time(c, -1, true), 1.5f, 0); /* 0.5 + fmod(-1.5, 2.5) + 2.5 */
    uint64_t s = 5;
    for (int i = 0; i < 10000; i++) {
        float t = ot_rand_float(&s, -1e6f, 1e6f) * (i % 2 ? 1.0f : 1e20f);
        double r = fmod((double)t - 0.5, 2.5);
        if (r < 0) r += 2.5;
        float expect = (float)(0.5 + r);
        if (expect >= 3.0f) expect = 0.5f;
        float got = ossa_clip_adjust_time(c, t, true);
        assert_float_equal(got, expect, 0);
        assert_true(got >= 0.5f && got < 3.0f);
        float clamped = ossa_clip_adjust_time(c, t, false);
        assert_float_equal(clamped, t < 0.5f ? 0.5f : (t > 3 ? 3 : t), 0);
    }
    ossa_clip_destroy(c);
}

static void sample_reference_fallback_and_per_track_clamp(void **state) {
    (void)state;
    ossa_clip *c = make_clip(0, true);
    ossa_transform ref[4];
    for (int j = 0; j < 4; j++) {
        ref[j] = ossa_transform_identity();
        ref[j].translation = ossa_vec3_make((float)j, 100, 200);
        ref[j].scale = ossa_vec3_make(2, 2, 2);
    }
    ossa_transform out[4];
    uint32_t cursors[7] = {0};
    /* t = 1.5: joint 2 translation halfway (5,10,15), rotation constant (one key);
     * joint 0 scale before its first key -> its first value (1,1,1). */
    assert_float_equal(ot_clip_sample(c, 1.5f, false, OSSA_LOOKUP_CURSOR, cursors, ref, out, 4), 1.5f, 0);
    ot_assert_near(out[2].translation.x, 5, 1e-6);
    ot_assert_near(out[2].translation.z, 15, 1e-6);
    assert_memory_equal(&out[2].rotation, R_VALUES, sizeof(ossa_quat));
    assert_memory_equal(&out[2].scale, &ref[2].scale, sizeof(ossa_vec3)); /* missing component */
    assert_memory_equal(&out[0].scale, S_VALUES, sizeof(ossa_vec3));
    assert_memory_equal(&out[0].translation, &ref[0].translation, sizeof(ossa_vec3));
    assert_memory_equal(&out[1], &ref[1], sizeof(ossa_transform)); /* no track */
    assert_memory_equal(&out[3], &ref[3], sizeof(ossa_transform));
    /* t = end: every track's last key exactly, including the one that ended earlier. */
    ot_clip_sample(c, 3.0f, false, OSSA_LOOKUP_DEFAULT, NULL, ref, out, 4);
    assert_memory_equal(&out[2].translation, T_VALUES + 3, sizeof(ossa_vec3));
    assert_memory_equal(&out[0].scale, S_VALUES + 3, sizeof(ossa_vec3));
    /* t = 2.5: translation clamps to its own last key, scale halfway (2,3,4). */
    ot_clip_sample(c, 2.5f, false, OSSA_LOOKUP_LINEAR, NULL, NULL, out, 4);
    assert_memory_equal(&out[2].translation, T_VALUES + 3, sizeof(ossa_vec3));
    ot_assert_near(out[0].scale.y, 3, 1e-6);
    ossa_transform id = ossa_transform_identity();
    assert_memory_equal(&out[1], &id, sizeof id); /* NULL reference = identity */
    /* joint_count smaller than a track's joint: the track is skipped. */
    ot_clip_sample(c, 2.5f, false, OSSA_LOOKUP_LINEAR, NULL, ref, out, 2);
    ot_assert_near(out[0].scale.y, 3, 1e-6);
    /* Weights: [0,1] -> [1,0] over 0.5..1.5. */
    float w[2];
    ot_clip_sample_weights(c, 0, 0.75f, false, OSSA_LOOKUP_DEFAULT, NULL, w);
    ot_assert_near(w[0], 0.25, 1e-6);
    ot_assert_near(w[1], 0.75, 1e-6);
    ot_clip_sample_weights(c, 0, 2.9f, false, OSSA_LOOKUP_CURSOR, cursors, w);
    assert_memory_equal(w, W_VALUES + 2, sizeof w);
    ossa_clip_destroy(c);
}

/* ozz-style: the zeroed job fails validation and passes as each field is set; a short
 * output (or cursor) span is BUFFER_TOO_SMALL and writes nothing. */
static void sample_job_validation(void **state) {
    (void)state;
    ossa_clip *c = make_clip(0, true); /* tracks on joints 0 and 2 of 4; one 2-weight track */
    ossa_transform ref[4], out[5];
    for (int j = 0; j < 4; j++) ref[j] = ossa_transform_identity();
    uint32_t cursors[8] = {0};
    const uint8_t canary = 0xAB;
    ossa_clip_sample_job job = {0};
    ot_assert_job(ossa_clip_sample_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "clip");
    job.clip = c;
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.reference = ref;
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job_ok(ossa_clip_sample_job_validate, &job); /* a zero-joint pose */
    job.reference_count = 4;
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    /* output one short of the reference pose: nothing written */
    memset(out, canary, sizeof out);
    job.output_count = 3, job.time = 1.5f;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t b = 0; b < sizeof out; b++) assert_int_equal(((const uint8_t *)out)[b], canary);
    job.output_count = 4;
    ot_assert_job_ok(ossa_clip_sample_job_validate, &job);
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    assert_true(job.sampled_time == 1.5f);
    ot_assert_near(out[2].translation.x, 5, 1e-6);
    for (size_t b = 0; b < sizeof out[4]; b++) assert_int_equal(((const uint8_t *)&out[4])[b], canary);
    /* CURSOR lookup: cursors required, cursor_count >= ossa_clip_cursor_count (7) */
    job.lookup = OSSA_LOOKUP_CURSOR;
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "cursors");
    job.cursors = cursors, job.cursor_count = 6;
    ot_assert_job(ossa_clip_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "cursor_count");
    memset(out, canary, sizeof out);
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t b = 0; b < sizeof out; b++) assert_int_equal(((const uint8_t *)out)[b], canary);
    job.cursor_count = 7;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    /* bad lookup; track ranges: begin > end, end > track_count */
    ossa_clip_sample_job bad = job;
    bad.lookup = (ossa_lookup)9;
    ot_assert_job(ossa_clip_sample_job_validate, &bad, OSSA_ERROR_INVALID_ARGUMENT, "lookup");
    bad = job, bad.track_begin = 2, bad.track_end = 1;
    ot_assert_job(ossa_clip_sample_job_validate, &bad, OSSA_ERROR_INVALID_ARGUMENT, "track_begin");
    bad = job, bad.track_begin = 0, bad.track_end = c->track_count + 1;
    ot_assert_job(ossa_clip_sample_job_validate, &bad, OSSA_ERROR_INVALID_ARGUMENT, "track_end");
    bad = job, bad.reference = NULL; /* reference_count without a reference */
    ot_assert_job(ossa_clip_sample_job_validate, &bad, OSSA_ERROR_INVALID_ARGUMENT, "reference");
    /* a track range writes only the joints of its tracks (no reference copy) */
    memset(out, canary, sizeof out);
    bad = job, bad.track_begin = 1, bad.track_end = 2; /* the track of joint 2 */
    assert_int_equal(ossa_clip_sample_job_run(&bad), OSSA_OK);
    ot_assert_near(out[2].translation.x, 5, 1e-6);
    for (size_t b = 0; b < sizeof out[0]; b++) assert_int_equal(((const uint8_t *)&out[0])[b], canary);

    /* weights job */
    float w[3] = {7, 7, 7};
    ossa_clip_weights_job wj = {0};
    ot_assert_job(ossa_clip_weights_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_INVALID_ARGUMENT, "clip");
    wj.clip = c;
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_INVALID_ARGUMENT, "output");
    wj.output = w;
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    wj.output_count = 1, wj.time = 0.75f; /* one short of 2 components: nothing written */
    assert_int_equal(ossa_clip_weights_job_run(&wj), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_true(w[0] == 7 && w[1] == 7 && w[2] == 7);
    wj.output_count = 2;
    assert_int_equal(ossa_clip_weights_job_run(&wj), OSSA_OK);
    ot_assert_near(w[0], 0.25, 1e-6);
    assert_true(w[2] == 7 && wj.sampled_time == 0.75f);
    wj.track = 1;
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_INVALID_ARGUMENT, "track");
    wj.track = 0, wj.lookup = OSSA_LOOKUP_CURSOR;
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_INVALID_ARGUMENT, "cursors");
    wj.cursors = cursors, wj.cursor_count = 6;
    ot_assert_job(ossa_clip_weights_job_validate, &wj, OSSA_ERROR_BUFFER_TOO_SMALL, "cursor_count");
    wj.cursor_count = 7;
    assert_int_equal(ossa_clip_weights_job_run(&wj), OSSA_OK);
    ossa_clip_destroy(c);
}

/* The slow reference the job must equal bit for bit: every track sampled on its own through
 * the public track API (linear key scan + interpolate) at the clip-adjusted time. */
static void reference_pose(const ossa_clip *clip, float t, bool loop, uint32_t n, ossa_transform *out) {
    float ct = ossa_clip_adjust_time(clip, t, loop);
    for (uint32_t j = 0; j < n; j++) out[j] = ossa_transform_identity();
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *tt = &clip->tracks[i];
        if (tt->joint >= n) continue;
        const ossa_track *ch[3] = {&tt->translation, &tt->rotation, &tt->scale};
        float *dst[3] = {&out[tt->joint].translation.x, &out[tt->joint].rotation.x, &out[tt->joint].scale.x};
        for (int c = 0; c < 3; c++)
            if (ch[c]->key_count) ossa_track_interpolate(ch[c], ossa_track_find_key_linear(ch[c], ct), ct, dst[c]);
    }
}

static void lookups_agree_for_random_clips(void **state) {
    (void)state;
    uint64_t s = 77;
    enum { J = 12, K = 50 };
    static float times[J][3][K], values[J][3][K * 12];
    for (int iter = 0; iter < 100; iter++) {
        ossa_transform_track tracks[J];
        memset(tracks, 0, sizeof tracks);
        for (uint32_t j = 0; j < J; j++) {
            tracks[j].joint = j;
            for (int c = 0; c < 3; c++) {
                uint32_t n = (uint32_t)(ot_rand_u64(&s) % K);
                float t = ot_rand_float(&s, -3, 3);
                for (uint32_t k = 0; k < n; k++) {
                    times[j][c][k] = t;
                    t += ot_rand_float(&s, 0.01f, 0.5f);
                }
                ossa_interp interp = (ossa_interp)(1 + ot_rand_u64(&s) % 3);
                uint32_t per = interp == OSSA_INTERP_CUBIC ? 3 : 1, comps = c == 1 ? 4 : 3;
                for (uint32_t v = 0; v < n * per; v++) {
                    if (c == 1) {
                        ossa_quat q = ot_rand_quat(&s);
                        memcpy(&values[j][c][v * 4], &q, sizeof q);
                    } else {
                        for (uint32_t e = 0; e < 3; e++) values[j][c][v * 3 + e] = ot_rand_float(&s, -1, 1);
                    }
                }
                ossa_track tr = vec_track(comps, n, times[j][c], values[j][c]);
                tr.kind = c == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
                tr.interp = interp;
                if (c == 0) tracks[j].translation = tr;
                else if (c == 1) tracks[j].rotation = tr;
                else tracks[j].scale = tr;
            }
        }
        ossa_clip_desc d = {0};
        d.track_count = J;
        d.tracks = tracks;
        d.table_rate = ot_rand_float(&s, 1, 90);
        ossa_clip *clip = NULL;
        assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
        uint32_t cursors[3 * J] = {0};
        ossa_transform a[J], b[J], c2[J], e[J];
        float t = clip->start - 0.2f;
        bool loop = iter & 1;
        for (int p = 0; p < 200; p++) {
            t += (p % 50 == 49) ? -3.0f : ot_rand_float(&s, 0, 0.05f); /* forward play with jumps back */
            float ta = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_LINEAR, NULL, NULL, a, J);
            float tb = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_BINARY, NULL, NULL, b, J);
            float tc = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_TABLE, NULL, NULL, c2, J);
            float te = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_CURSOR, cursors, NULL, e, J);
            assert_true(ta == tb && tb == tc && tc == te);
            reference_pose(clip, t, loop, J, b);
            assert_memory_equal(a, b, sizeof a);
            ot_clip_sample(clip, t, loop, OSSA_LOOKUP_BINARY, NULL, NULL, b, J);
            assert_memory_equal(a, b, sizeof a);
            assert_memory_equal(a, c2, sizeof a);
            assert_memory_equal(a, e, sizeof a);
        }
        /* Job form: three disjoint track ranges over a reference-filled pose equal one call. */
        for (int p = 0; p < 20; p++) {
            float tt = ot_rand_float(&s, clip->start - 1, clip->end + 1);
            ot_clip_sample(clip, tt, loop, OSSA_LOOKUP_BINARY, NULL, NULL, a, J);
            for (uint32_t j = 0; j < J; j++) b[j] = ossa_transform_identity();
            uint32_t cut1 = (uint32_t)(ot_rand_u64(&s) % (J + 1)), cut2 = (uint32_t)(ot_rand_u64(&s) % (J + 1));
            if (cut1 > cut2) { uint32_t x = cut1; cut1 = cut2; cut2 = x; }
            const uint32_t ranges[3][2] = {{cut2, clip->track_count}, {0, cut1}, {cut1, cut2}};
            for (int r = 0; r < 3; r++) {
                if (ranges[r][0] == ranges[r][1]) continue; /* (0, 0) would mean the whole clip */
                ossa_clip_sample_job job = {.clip = clip, .time = tt, .loop = loop, .output = b, .output_count = J,
                                            .track_begin = ranges[r][0], .track_end = ranges[r][1]};
                job.lookup = r == 2 ? OSSA_LOOKUP_CURSOR : OSSA_LOOKUP_TABLE;
                job.cursors = cursors, job.cursor_count = 3 * J;
                assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
                assert_true(job.sampled_time == ossa_clip_adjust_time(clip, tt, loop));
            }
            assert_memory_equal(a, b, sizeof a);
        }
        ossa_clip_destroy(clip);
    }
}

static void table_size_is_capped_and_exact(void **state) {
    (void)state;
    /* Five keys over 100000 s at a requested 1000 entries/s would need 1e8 entries. */
    const float times[5] = {-50000, -10, 0, 3, 50000};
    const float values[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    ossa_transform_track t;
    memset(&t, 0, sizeof t);
    t.translation = vec_track(3, 5, times, values);
    ossa_clip_desc d = {0};
    d.track_count = 1;
    d.tracks = &t;
    d.table_rate = 1000;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    const ossa_track *tr = &c->tracks[0].translation;
    assert_non_null(tr->table.keys);
    assert_true(tr->table.count <= 4 * 5 + 64);
    assert_true(tr->table.rate < 1000);
    assert_int_equal(ossa_track_validate(tr), OSSA_OK);
    uint64_t s = 3;
    for (int i = 0; i < 20000; i++) {
        float x = i % 4 ? ot_rand_float(&s, -60000, 60000) : times[i % 5] + (float)(i % 3) - 1;
        assert_int_equal(ossa_track_find_key_table(tr, x), ossa_track_find_key_linear(tr, x));
    }
    ossa_clip_destroy(c);
}

static void remap_drops_and_resorts(void **state) {
    (void)state;
    ossa_clip *c = make_clip(0, true);
    /* old joints 0,1,2 -> new 5,4,1; weight track joint 1 -> 4 */
    const uint32_t map[3] = {5, 4, 1};
    assert_int_equal(ossa_clip_remap_joints(c, map, 3), OSSA_OK);
    assert_int_equal(c->tracks[0].joint, 1);
    assert_int_equal(c->tracks[1].joint, 5);
    assert_int_equal(c->weight_tracks[0].joint, 4);
    /* not injective -> refused, nothing changed */
    const uint32_t dup[6] = {0, 9, 9, 0, 0, 9};
    assert_int_equal(ossa_clip_remap_joints(c, dup, 6), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(c->tracks[0].joint, 1);
    /* joint 5 unmapped, joint 1 out of range: both dropped; range recomputed (weights only). */
    const uint32_t drop[2] = {0, UINT32_MAX};
    assert_int_equal(ossa_clip_remap_joints(c, drop, 2), OSSA_OK);
    assert_int_equal(c->track_count, 0);
    assert_int_equal(c->weight_track_count, 0);
    assert_float_equal(c->start, 0, 0);
    ossa_clip_destroy(c);
}

/* Random, mostly invalid descs: create either succeeds or returns an error, never crashes
 * (ASan/UBSan watch), and a successful clip samples finite-time queries without trouble. */
static void garbage_descs(void **state) {
    (void)state;
    uint64_t s = 8;
    static float times[64], values[64 * 3 * 8];
    for (int i = 0; i < 64 * 24; i++) values[i] = ot_rand_float(&s, -2, 2);
    for (int iter = 0; iter < 3000; iter++) {
        float t = ot_rand_float(&s, -5, 5);
        for (int k = 0; k < 64; k++) {
            times[k] = t;
            t += ot_rand_u64(&s) % 16 == 0 ? ot_rand_float(&s, -0.5f, 0.1f) : ot_rand_float(&s, 0.01f, 0.3f);
            if (ot_rand_u64(&s) % 200 == 0) times[k] = NAN;
        }
        ossa_transform_track tracks[3];
        memset(tracks, 0, sizeof tracks);
        for (int j = 0; j < 3; j++) {
            tracks[j].joint = (uint32_t)(ot_rand_u64(&s) % 5);
            ossa_track *parts[3] = {&tracks[j].translation, &tracks[j].rotation, &tracks[j].scale};
            for (int c = 0; c < 3; c++) {
                ossa_track *tr = parts[c];
                tr->kind = (ossa_track_kind)(ot_rand_u64(&s) % 8 == 0 ? 1 - (c == 1) : (c == 1));
                tr->interp = (ossa_interp)(ot_rand_u64(&s) % 5);
                tr->components = ot_rand_u64(&s) % 8 == 0 ? (uint32_t)(ot_rand_u64(&s) % 6) : (c == 1 ? 4u : 3u);
                tr->key_count = (uint32_t)(ot_rand_u64(&s) % 9);
                tr->times = ot_rand_u64(&s) % 50 ? times : NULL;
                tr->values = values;
            }
        }
        ossa_clip_desc d = {0};
        d.track_count = 1 + (uint32_t)(ot_rand_u64(&s) % 3);
        d.tracks = tracks;
        d.table_rate = ot_rand_float(&s, -10, 100);
        ossa_clip *c = NULL;
        ossa_result r = ossa_clip_create(&d, NULL, &c);
        if (r != OSSA_OK) {
            assert_null(c);
            assert_true(r == OSSA_ERROR_INVALID_DATA || r == OSSA_ERROR_INVALID_ARGUMENT);
            continue;
        }
        ossa_transform out[5];
        uint32_t cursors[9] = {0};
        for (int p = 0; p < 20; p++)
            ot_clip_sample(c, ot_rand_float(&s, -10, 10), p & 1, (ossa_lookup)(p % 5), cursors, NULL, out, 5);
        ossa_clip_destroy(c);
    }
}

/* Real files: every clip of each asset, all lookups bit-identical over random, exact-key,
 * out-of-range and huge times (clamped and looping); at the end every track's last key. */
static void check_asset_clips(const char *relative) {
    ossa_asset *asset = ot_load_asset(relative);
    uint32_t n = asset->skeleton->joint_count;
    assert_true(ossa_pose_parents_first(asset->skeleton->parents, n));
    ossa_transform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *c = malloc(sizeof *c * n),
                   *d = malloc(sizeof *d * n);
    uint64_t s = 17;
    for (uint32_t ci = 0; ci < asset->clip_count; ci++) {
        const ossa_clip *clip = asset->clips[ci];
        uint32_t *cursors = calloc(ossa_clip_cursor_count(clip) + 1, sizeof(uint32_t));
        float dur = ossa_clip_duration(clip);
        float sweep = clip->start - 0.1f;
        for (int p = 0; p < 3000; p++) {
            float t;
            if (p < 1000) t = (sweep += dur / 700); /* forward playback through the end */
            else if (p % 5 == 0 && clip->track_count) {
                const ossa_track *tr = &clip->tracks[ot_rand_u64(&s) % clip->track_count].rotation;
                t = tr->key_count ? tr->times[ot_rand_u64(&s) % tr->key_count] : clip->start;
            } else if (p % 7 == 0) t = ot_rand_float(&s, -1e6f, 1e6f);
            else t = ot_rand_float(&s, clip->start - 1, clip->end + 1);
            bool loop = p & 1;
            float ta = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_LINEAR, NULL, asset->skeleton->rest, a, n);
            float tb = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_BINARY, NULL, asset->skeleton->rest, b, n);
            float tc = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_TABLE, NULL, asset->skeleton->rest, c, n);
            float td = ot_clip_sample(clip, t, loop, OSSA_LOOKUP_CURSOR, cursors, asset->skeleton->rest, d, n);
            assert_true(ta == tb && tb == tc && tc == td);
            assert_memory_equal(a, b, sizeof *a * n);
            assert_memory_equal(a, c, sizeof *a * n);
            assert_memory_equal(a, d, sizeof *a * n);
            for (uint32_t j = 0; j < n; j++) {
                const ossa_quat *q = &a[j].rotation;
                ot_assert_near(sqrt(q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w), 1.0, 1e-4);
            }
            for (uint32_t w = 0; w < clip->weight_track_count; w++) {
                float wa[OSSA_MAX_COMPONENTS], wb[OSSA_MAX_COMPONENTS];
                uint32_t k = clip->weight_tracks[w].weights.components;
                ot_clip_sample_weights(clip, w, t, loop, OSSA_LOOKUP_LINEAR, NULL, wa);
                ot_clip_sample_weights(clip, w, t, loop, OSSA_LOOKUP_CURSOR, cursors, wb);
                assert_memory_equal(wa, wb, k * sizeof(float));
            }
        }
        /* Clamped at the end: each present track gives its last key exactly. */
        ot_clip_sample(clip, clip->end, false, OSSA_LOOKUP_DEFAULT, NULL, asset->skeleton->rest, a, n);
        for (uint32_t i = 0; i < clip->track_count; i++) {
            const ossa_transform_track *tt = &clip->tracks[i];
            if (tt->joint >= n) continue;
            const ossa_track *parts[3] = {&tt->translation, &tt->rotation, &tt->scale};
            const float *got[3] = {&a[tt->joint].translation.x, &a[tt->joint].rotation.x, &a[tt->joint].scale.x};
            for (int k = 0; k < 3; k++) {
                const ossa_track *tr = parts[k];
                if (!tr->key_count) continue;
                size_t per = tr->interp == OSSA_INTERP_CUBIC ? 3 : 1, mid = tr->interp == OSSA_INTERP_CUBIC ? 1 : 0;
                const float *last = tr->values + ((tr->key_count - 1) * per + mid) * tr->components;
                assert_memory_equal(got[k], last, tr->components * sizeof(float));
            }
        }
        free(cursors);
    }
    free(a);
    free(b);
    free(c);
    free(d);
    ossa_asset_destroy(asset);
}

static void asset_woman(void **state) { (void)state; check_asset_clips("Woman/Woman.gltf"); }
static void asset_interpolation_test(void **state) { (void)state; check_asset_clips("interpolation_test/interpolation_test.gltf"); }
static void asset_box_animated(void **state) { (void)state; check_asset_clips("box_animated/box_animated.gltf"); }
static void asset_morph_cube(void **state) { (void)state; check_asset_clips("AnimatedMorphCube/AnimatedMorphCube.gltf"); }

typedef struct counter { int allocs, frees; } counter;
static void *count_alloc(size_t n, void *u) { ((counter *)u)->allocs++; return malloc(n); }
static void count_free(void *p, void *u) { ((counter *)u)->frees++; free(p); }

static void one_allocation(void **state) {
    (void)state;
    counter k = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &k};
    ossa_transform_track t;
    memset(&t, 0, sizeof t);
    t.translation = vec_track(3, 2, T_TIMES, T_VALUES);
    ossa_clip_desc d = {0};
    d.track_count = 1;
    d.tracks = &t;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, &a, &c), OSSA_OK);
    assert_int_equal(k.allocs, 1);
    ossa_clip_destroy(c);
    assert_int_equal(k.frees, 1);
}

/* Tracks with equal key times share one copy of the times and of the frame-index table
 * (glTF samplers of one animation share their input): times shared by pointer, equal by
 * content, and one float apart; each clip track keeps its own times' values, its table
 * equals one built for it alone, every lookup agrees with the linear reference, and the
 * clip is smaller than without sharing by the copies it saved. */
static size_t last_size;
static void *size_alloc(size_t n, void *u) { (void)u; last_size = n; return malloc(n); }
static void size_free(void *p, void *u) { (void)u; free(p); }

static void equal_times_are_shared(void **state) {
    (void)state;
    enum { J = 24, K = 40 };
    static float times[4][K], values[J][3][K * 4];
    uint64_t s = 5;
    for (int iter = 0; iter < 50; iter++) {
        uint32_t n = 2 + (uint32_t)(ot_rand_u64(&s) % (K - 2));
        float t = ot_rand_float(&s, -2, 2);
        for (uint32_t k = 0; k < n; k++) times[0][k] = t, t += ot_rand_float(&s, 0.01f, 0.3f);
        memcpy(times[1], times[0], sizeof times[0]);             /* equal content, another pointer */
        memcpy(times[2], times[0], sizeof times[0]);
        times[2][n - 1] = nextafterf(times[2][n - 1], INFINITY); /* one float apart */
        for (uint32_t k = 0; k < n; k++) times[3][k] = (float)k;  /* unrelated */
        ossa_transform_track tracks[J];
        memset(tracks, 0, sizeof tracks);
        for (uint32_t j = 0; j < J; j++) {
            tracks[j].joint = J - 1 - j;
            for (int c = 0; c < 3; c++) {
                if (ot_rand_u64(&s) % 5 == 0) continue; /* absent */
                uint32_t comps = c == 1 ? 4 : 3;
                for (uint32_t v = 0; v < n * comps; v++) values[j][c][v] = ot_rand_float(&s, -1, 1);
                ossa_track tr = vec_track(comps, n, times[ot_rand_u64(&s) % 4], values[j][c]);
                if (c == 1) tr.kind = OSSA_TRACK_ROTATION;
                if (c == 0) tracks[j].translation = tr;
                else if (c == 1) tracks[j].rotation = tr;
                else tracks[j].scale = tr;
            }
        }
        ossa_allocator al = {size_alloc, size_free, NULL};
        ossa_clip_desc d = {0};
        d.track_count = J;
        d.tracks = tracks;
        d.table_rate = ot_rand_float(&s, 5, 90);
        ossa_clip *clip = NULL;
        assert_int_equal(ossa_clip_create(&d, &al, &clip), OSSA_OK);
        size_t shared_size = last_size;
        /* the same clip with every track's times made distinct by content (no sharing possible) */
        static float own[J][3][K];
        ossa_transform_track distinct[J];
        memcpy(distinct, tracks, sizeof tracks);
        size_t saved = 0, distinct_times[4] = {0};
        for (uint32_t j = 0; j < J; j++) {
            ossa_track *parts[3] = {&distinct[j].translation, &distinct[j].rotation, &distinct[j].scale};
            for (int c = 0; c < 3; c++) {
                if (!parts[c]->key_count) continue;
                for (int w = 0; w < 4; w++)
                    if (parts[c]->times == times[w]) distinct_times[w]++;
                memcpy(own[j][c], parts[c]->times, n * sizeof(float));
                own[j][c][0] -= (float)(j * 3 + (uint32_t)c + 1); /* still increasing */
                parts[c]->times = own[j][c];
            }
        }
        d.tracks = distinct;
        ossa_clip *big = NULL;
        assert_int_equal(ossa_clip_create(&d, &al, &big), OSSA_OK);
        size_t distinct_size = last_size;
        /* times[0] and [1] share one copy; [2] and [3] one each */
        for (int w = 0; w < 4; w++) {
            size_t users = distinct_times[w] + (w == 0 ? distinct_times[1] : 0);
            if (w == 1 || users == 0) continue;
            saved += (users - 1) * n * sizeof(float); /* at least the times (tables: rate dependent) */
        }
        assert_true(distinct_size >= shared_size + saved);
        ossa_clip_destroy(big);
        for (uint32_t i = 0; i < clip->track_count; i++) {
            const ossa_transform_track *tt = &clip->tracks[i];
            const ossa_transform_track *src = &tracks[J - 1 - tt->joint];
            const ossa_track *got[3] = {&tt->translation, &tt->rotation, &tt->scale};
            const ossa_track *want[3] = {&src->translation, &src->rotation, &src->scale};
            for (int c = 0; c < 3; c++) {
                assert_int_equal(got[c]->key_count, want[c]->key_count);
                if (!want[c]->key_count) continue;
                assert_memory_equal(got[c]->times, want[c]->times, n * sizeof(float));
                assert_memory_equal(got[c]->values, want[c]->values, n * want[c]->components * sizeof(float));
                /* the table is the one this track would get alone */
                ossa_transform_track alone;
                memset(&alone, 0, sizeof alone);
                if (c == 1) alone.rotation = *want[c];
                else alone.translation = *want[c];
                ossa_clip_desc ad = {0};
                ad.track_count = 1;
                ad.tracks = &alone;
                ad.table_rate = d.table_rate;
                ossa_clip *one = NULL;
                assert_int_equal(ossa_clip_create(&ad, NULL, &one), OSSA_OK);
                const ossa_key_table *a = &got[c]->table, *b = c == 1 ? &one->tracks[0].rotation.table : &one->tracks[0].translation.table;
                assert_true(a->start == b->start && a->rate == b->rate && a->count == b->count);
                assert_memory_equal(a->keys, b->keys, a->count * sizeof(uint32_t));
                ossa_clip_destroy(one);
                for (int p = 0; p < 50; p++) {
                    float x = ot_rand_float(&s, got[c]->times[0] - 1, got[c]->times[n - 1] + 1);
                    assert_int_equal(ossa_track_find_key_table(got[c], x), ossa_track_find_key_linear(got[c], x));
                }
            }
            /* one copy exactly for equal times (3 distinct arrays here, within SHARE_WAYS) */
            for (uint32_t i2 = 0; i2 < i; i2++) {
                const ossa_transform_track *o = &clip->tracks[i2];
                const ossa_track *og[3] = {&o->translation, &o->rotation, &o->scale};
                for (int c = 0; c < 3; c++)
                    for (int c2 = 0; c2 < 3; c2++) {
                        if (!got[c]->key_count || !og[c2]->key_count) continue;
                        bool equal = !memcmp(got[c]->times, og[c2]->times, n * sizeof(float));
                        assert_int_equal(got[c]->times == og[c2]->times, equal);
                    }
            }
        }
        ossa_clip_destroy(clip);
    }
}

/* A clip with keys at -3e38 and 3e38 (a valid glTF can hold them): its span 6e38 s is past
 * FLT_MAX. Each track still gets a frame-index table (the table's rate comes from the span in
 * double: ~1e-37 entries/s, capped at 4 keys + 64 entries; in float the span was +inf, the rate 0
 * and the table silently dropped), and the clip job samples the halfway slerp / lerp at t = 0 with
 * every lookup, cursors included, and the same after a loop wraps a time past the end. */
static void extreme_key_times(void **state) {
    (void)state;
    const float times[2] = {-3e38f, 3e38f};
    const float rot[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f}; /* identity, 90 deg about z */
    const float pos[6] = {-2, 4, 10, 6, -4, 30};
    ossa_transform_track tt;
    memset(&tt, 0, sizeof tt);
    tt.joint = 0;
    tt.translation = vec_track(3, 2, times, pos);
    tt.rotation = vec_track(4, 2, times, rot);
    tt.rotation.kind = OSSA_TRACK_ROTATION;
    ossa_clip_desc d = {0};
    d.name = "far";
    d.tracks = &tt;
    d.track_count = 1;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    assert_true(c->start == times[0] && c->end == times[1]);
    const ossa_track *ct = &c->tracks[0].rotation;
    assert_non_null(ct->table.keys);
    assert_true(ct->table.count >= 2 && ct->table.count <= 2 * 4 + 64);
    assert_true(ct->table.rate > 0.0f && isfinite(ct->table.rate));
    /* expected, by hand: the slerp from identity to 90 degrees about z at s turns 90 s degrees */
    const double half_pi = 1.57079632679489661923;
    const ossa_lookup modes[] = {OSSA_LOOKUP_DEFAULT, OSSA_LOOKUP_LINEAR, OSSA_LOOKUP_BINARY, OSSA_LOOKUP_TABLE,
                                 OSSA_LOOKUP_CURSOR};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        uint32_t cursors[3] = {0, 0, 0};
        ossa_transform out;
        /* t = 0 (s = 1/2), then a looping t = 2.9e38 (inside the clip, s = 0.98333) */
        for (int loop = 0; loop < 2; loop++) {
            float t = loop ? 2.9e38f : 0.0f;
            float got = ot_clip_sample(c, t, loop != 0, modes[m], modes[m] == OSSA_LOOKUP_CURSOR ? cursors : NULL,
                                       NULL, &out, 1);
            assert_float_equal(got, t, 0);
            double s = ((double)t - (double)times[0]) / ((double)times[1] - (double)times[0]);
            for (int i = 0; i < 3; i++)
                ot_assert_near((&out.translation.x)[i], pos[i] + (pos[3 + i] - pos[i]) * s, 4e-6);
            ot_assert_near(out.rotation.x, 0.0, 1e-7);
            ot_assert_near(out.rotation.y, 0.0, 1e-7);
            ot_assert_near(out.rotation.z, sin(half_pi * s / 2), 2e-7);
            ot_assert_near(out.rotation.w, cos(half_pi * s / 2), 2e-7);
        }
    }
    /* ossa_clip_duration: the span in float, +inf (documented); the clock wraps in double */
    assert_true(isinf(ossa_clip_duration(c)));
    assert_float_equal(ossa_clip_adjust_time(c, -3.2e38f, true), 2.8e38f, 1e32);
    ossa_clip_destroy(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_copies_and_sorts),
        cmocka_unit_test(create_rejects_bad_tracks),
        cmocka_unit_test(clock_semantics),
        cmocka_unit_test(sample_reference_fallback_and_per_track_clamp),
        cmocka_unit_test(sample_job_validation),
        cmocka_unit_test(lookups_agree_for_random_clips),
        cmocka_unit_test(table_size_is_capped_and_exact),
        cmocka_unit_test(extreme_key_times),
        cmocka_unit_test(remap_drops_and_resorts),
        cmocka_unit_test(garbage_descs),
        cmocka_unit_test(one_allocation),
        cmocka_unit_test(equal_times_are_shared),
        cmocka_unit_test(asset_woman),
        cmocka_unit_test(asset_interpolation_test),
        cmocka_unit_test(asset_box_animated),
        cmocka_unit_test(asset_morph_cube),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
