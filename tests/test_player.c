/* Player (src/anim/player.c): clock with speed, loop and hold, cross-fade weights worked by
 * hand, cursor playback equal to reference sampling, palette vs an independent product,
 * no allocation in update. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clip_gen.h"

typedef struct counter { int allocs, frees; } counter;
static void *count_alloc(size_t n, void *u) { ((counter *)u)->allocs++; return malloc(n); }
static void count_free(void *p, void *u) { ((counter *)u)->frees++; free(p); }

static const float A_TIMES[] = {0, 2};
static const float A_VALUES[] = {0, 0, 0, 10, 0, 0};
static const float B_TIMES[] = {0, 1};
static const float B_VALUES[] = {100, 0, 0, 100, 0, 0};

typedef struct fixture {
    ossa_skeleton *skeleton;
    ossa_clip *a, *b;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    int32_t parents[3] = {-1, 0, 0};
    ossa_transform rest[3];
    for (int i = 0; i < 3; i++) rest[i] = ossa_transform_identity();
    rest[1].translation = ossa_vec3_make(0, 1, 0);
    rest[2].translation = ossa_vec3_make(0, 0, 3);
    rest[1].rotation = (ossa_quat){0, 0, 0.70710678f, 0.70710678f};
    ossa_mat4 ibm[2];
    ossa_mat4 w0 = ossa_mat4_identity(), w1 = ossa_transform_to_mat4(rest[1]);
    ossa_mat4_inverse(&w0, &ibm[0]);
    ossa_mat4_inverse(&w1, &ibm[1]);
    const uint32_t joints[2] = {1, 0};
    ossa_mat4 ibm_sw[2] = {ibm[1], ibm[0]};
    ossa_skin_desc skin = {"s", 2, joints, ibm_sw, -1};
    ossa_skeleton_desc d = {3, parents, rest, NULL, 1, &skin, 0.0f};
    assert_int_equal(ossa_skeleton_create(&d, NULL, &f->skeleton), OSSA_OK);
    f->a = ot_translation_clip(0, A_TIMES, A_VALUES);
    f->b = ot_translation_clip(0, B_TIMES, B_VALUES);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    ossa_skeleton_destroy(f->skeleton);
    ossa_clip_destroy(f->a);
    ossa_clip_destroy(f->b);
    free(f);
    return 0;
}

static float root_x(const ossa_player *p) { return ossa_player_pose(p)[0].translation.x; }

static void clock_speed_loop_hold(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_null(ossa_player_layer_source(p, 0).clip);
    assert_memory_equal(ossa_player_pose(p), f->skeleton->rest, 3 * sizeof(ossa_transform));
    assert_int_equal(ossa_player_play(p, ossa_source_editable(f->a), 1, false), OSSA_OK);
    assert_ptr_equal(ossa_player_layer_source(p, 0).clip, f->a);
    assert_float_equal(ossa_player_time(p), 0, 0);
    ossa_player_update(p, 0.5f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ot_assert_near(root_x(p), 2.5, 1e-6);
    ossa_player_update(p, 5);
    assert_float_equal(ossa_player_time(p), 2, 0); /* hold at the end */
    assert_float_equal(root_x(p), 10, 0);
    /* loop: 2.5 s into a 2 s clip is 0.5 s */
    ossa_player_play(p, ossa_source_editable(f->a), 1, true);
    ossa_player_update(p, 2.5f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ot_assert_near(root_x(p), 2.5, 1e-6);
    /* speed 2 */
    ossa_player_play(p, ossa_source_editable(f->a), 2, true);
    ossa_player_update(p, 0.25f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ossa_player_set_speed(p, 0.5f);
    ossa_player_update(p, 1.0f);
    assert_float_equal(ossa_player_time(p), 1.0f, 0);
    /* backwards, looping: from 0 back 0.5 s is 1.5 s */
    ossa_player_play(p, ossa_source_editable(f->a), -1, true);
    ossa_player_update(p, 0.5f);
    assert_float_equal(ossa_player_time(p), 1.5f, 0);
    ot_assert_near(root_x(p), 7.5, 1e-6);
    /* backwards, holding: stays at the start */
    ossa_player_play(p, ossa_source_editable(f->a), -1, false);
    ossa_player_update(p, 0.5f);
    assert_float_equal(ossa_player_time(p), 0, 0);
    /* Joints without tracks keep the rest pose. */
    assert_memory_equal(&ossa_player_pose(p)[1], &f->skeleton->rest[1], sizeof(ossa_transform));
    ossa_player_destroy(p);
    ossa_player_destroy(NULL);
}

static void crossfade_hand_worked(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    ossa_player_play(p, ossa_source_editable(f->a), 1, false);
    ossa_player_update(p, 1);
    ot_assert_near(root_x(p), 5, 1e-6);
    assert_int_equal(ossa_player_crossfade(p, ossa_source_editable(f->b), 1, 1, false), OSSA_OK);
    /* At the start of the fade the pose is still A's. */
    ot_assert_near(root_x(p), 5, 1e-6);
    assert_float_equal(ossa_player_fade_weight(p), 0, 0);
    assert_ptr_equal(ossa_player_layer_source(p, 0).clip, f->b);
    ossa_player_update(p, 0.5f);
    /* A at 1.5 s: 7.5; B: 100; weight 0.5 -> 53.75 */
    assert_float_equal(ossa_player_fade_weight(p), 0.5f, 0);
    ot_assert_near(root_x(p), 53.75, 1e-4);
    ossa_player_update(p, 0.25f);
    /* A at 1.75 s: 8.75; weight 0.75 -> 0.25 * 8.75 + 0.75 * 100 = 77.1875 */
    ot_assert_near(root_x(p), 77.1875, 1e-4);
    ossa_player_update(p, 0.25f);
    assert_float_equal(ossa_player_fade_weight(p), 1, 0);
    assert_float_equal(root_x(p), 100, 0);
    /* A cross-fade started during another fades from the pose as it is (no jump). */
    ossa_player_play(p, ossa_source_editable(f->a), 1, false);
    ossa_player_update(p, 1);                       /* A: 5 */
    ossa_player_crossfade(p, ossa_source_editable(f->b), 1, 1, false);
    ossa_player_update(p, 0.5f);                    /* 0.5 * 7.5 + 0.5 * 100 = 53.75 */
    float before = root_x(p);
    ot_assert_near(before, 53.75, 1e-4);
    assert_int_equal(ossa_player_crossfade(p, ossa_source_editable(f->a), 1, 1, false), OSSA_OK);
    assert_float_equal(root_x(p), before, 0);
    ossa_player_update(p, 0.5f);                    /* frozen 53.75 and A at 0.5 s (2.5), weight 0.5 */
    ot_assert_near(root_x(p), 0.5 * 53.75 + 0.5 * 2.5, 1e-4);
    ossa_player_update(p, 0.5f);                    /* done: A at 1 s */
    assert_float_equal(ossa_player_fade_weight(p), 1, 0);
    ot_assert_near(root_x(p), 5, 1e-6);
    /* Zero duration is a cut. */
    ossa_player_crossfade(p, ossa_source_editable(f->a), 0, 1, false);
    assert_float_equal(ossa_player_fade_weight(p), 1, 0);
    assert_float_equal(root_x(p), 0, 0);
    ossa_player_destroy(p);
    /* Cross-fade with nothing playing is play. */
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_crossfade(p, ossa_source_editable(f->b), 1, 1, true), OSSA_OK);
    assert_float_equal(root_x(p), 100, 0);
    assert_int_equal(ossa_player_play(p, ossa_source_editable(NULL), 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_player_destroy(p);
}

static void palette_and_model(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    ossa_player_play(p, ossa_source_editable(f->a), 1, true);
    ossa_player_update(p, 0.7f);
    ossa_mat4 model[3], pal[3], expect_model[3];
    ossa_mat4 canary[3];
    memset(canary, 0xAB, sizeof canary);
    memcpy(model, canary, sizeof model);
    assert_int_equal(ossa_player_model(p, model, 2), OSSA_ERROR_BUFFER_TOO_SMALL); /* 3 joints */
    assert_memory_equal(model, canary, sizeof model);                             /* nothing written */
    assert_int_equal(ossa_player_model(p, model, 3), OSSA_OK);
    ot_local_to_model(ossa_player_pose(p), f->skeleton->parents, 3, expect_model);
    assert_memory_equal(model, expect_model, sizeof model);
    memcpy(pal, canary, sizeof pal);
    assert_int_equal(ossa_player_palette(p, 0, pal, 2), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_memory_equal(pal, canary, sizeof pal);
    assert_int_equal(ossa_player_palette(p, 0, pal, 3), OSSA_OK);
    const ossa_skin *sk = &f->skeleton->skins[0];
    for (uint32_t i = 0; i < sk->joint_count; i++) {
        ossa_mat4 e = ossa_mat4_mul(&model[sk->joints[i]], &sk->inverse_bind[i]);
        ot_assert_floats_near(pal[sk->joints[i]].m, e.m, 16, 1e-6f);
    }
    ossa_mat4 id = ossa_mat4_identity();
    assert_memory_equal(&pal[2], &id, sizeof id); /* not in the skin */
    /* Joint 1 sits at its bind pose under a root moved by x: palette = pure translation x. */
    ot_assert_near(pal[1].m[12], ossa_player_pose(p)[0].translation.x, 1e-5);
    ot_assert_near(pal[1].m[0], 1, 1e-6);
    assert_int_equal(ossa_player_palette(p, 1, pal, 3), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_player_destroy(p);
}

static void cursor_playback_equals_reference(void **state) {
    fixture *f = *state;
    (void)f;
    uint64_t s = 31;
    /* A clip with many keys on three joints. */
    enum { K = 300 };
    static float times[K], values[K * 4];
    float t = 0;
    for (int k = 0; k < K; k++) {
        times[k] = t;
        t += ot_rand_float(&s, 0.005f, 0.05f);
        ossa_quat q = ot_rand_quat(&s);
        memcpy(values + k * 4, &q, sizeof q);
    }
    ossa_transform_track tracks[3];
    memset(tracks, 0, sizeof tracks);
    for (uint32_t j = 0; j < 3; j++) {
        tracks[j].joint = j;
        tracks[j].rotation.kind = OSSA_TRACK_ROTATION;
        tracks[j].rotation.interp = (ossa_interp)(j + 1);
        tracks[j].rotation.components = 4;
        tracks[j].rotation.key_count = j == 2 ? K / 3 : K; /* CUBIC reads 3 values per key */
        tracks[j].rotation.times = times;
        tracks[j].rotation.values = values;
        tracks[j].translation.components = 3;
    }
    ossa_clip_desc d = {0};
    d.track_count = 3;
    d.tracks = tracks;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    counter c = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &c};
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, &a, &p), OSSA_OK);
    for (int mode = 0; mode < 4; mode++) {
        bool loop = mode & 1;
        float speed = mode & 2 ? -1.3f : 1.7f;
        assert_int_equal(ossa_player_play(p, ossa_source_editable(clip), speed, loop), OSSA_OK);
        int allocs = c.allocs;
        float ref_time = clip->start;
        for (int i = 0; i < 2000; i++) {
            float dt = ot_rand_float(&s, 0, 1.0f / 30);
            ossa_player_update(p, dt);
            ref_time = ossa_clip_adjust_time(clip, ref_time + dt * speed, loop);
            assert_float_equal(ossa_player_time(p), ref_time, 0);
            ossa_transform ref[3];
            ot_clip_sample(clip, ref_time, loop, OSSA_LOOKUP_LINEAR, NULL, f->skeleton->rest, ref, 3);
            assert_memory_equal(ossa_player_pose(p), ref, sizeof ref);
        }
        assert_int_equal(c.allocs, allocs); /* update never allocates */
    }
    ossa_player_destroy(p);
    assert_int_equal(c.allocs, c.frees);
    ossa_clip_destroy(clip);
}


/* A clip rotating joint 1 about Z from 0 to `angle` over [0, dur] (linear), looping. */
static ossa_clip *rotation_clip(float angle, float dur) {
    static float times[2][2];
    static float values[2][8];
    static int slot;
    int k = slot++ % 2;
    times[k][0] = 0, times[k][1] = dur;
    ossa_quat q0 = ossa_quat_identity(), q1 = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), angle);
    memcpy(values[k], &q0, sizeof q0);
    memcpy(values[k] + 4, &q1, sizeof q1);
    ossa_transform_track t;
    memset(&t, 0, sizeof t);
    t.joint = 1;
    t.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, times[k], values[k], {0, 0, 0, NULL}};
    ossa_clip_desc d = {0};
    d.looping = true;
    d.track_count = 1;
    d.tracks = &t;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}

static void layer_validity(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_layer_count(p), 1);
    assert_int_equal(ossa_player_add_layer(NULL, OSSA_PLAYER_LAYER_OVERRIDE, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_add_layer(p, (ossa_player_layer_mode)7, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    uint32_t l = 99;
    assert_int_equal(ossa_player_add_layer(p, OSSA_PLAYER_LAYER_ADDITIVE, &l), OSSA_OK);
    assert_int_equal(l, 1);
    assert_int_equal(ossa_player_layer_play(p, 2, ossa_source_editable(f->a), 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    const ossa_clip_source none = {NULL, NULL};
    assert_int_equal(ossa_player_layer_crossfade(p, 1, none, 1, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_weight(p, 0, -1), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_weight(p, 1, -1), OSSA_OK); /* additive: subtracts */
    assert_int_equal(ossa_player_layer_set_weight(p, 1, NAN), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_weight(p, 5, 1), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_mask_joint(p, 0, "nope"), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_mask(p, 3, NULL, 0), OSSA_ERROR_INVALID_ARGUMENT);
    {
        const float short_mask[3] = {1, 1, 1}, bad_mask[3] = {1, NAN, 1}, negative[3] = {1, -0.5f, 1};
        assert_int_equal(ossa_player_layer_set_mask(p, 0, short_mask, 2), OSSA_ERROR_BUFFER_TOO_SMALL);
        assert_int_equal(ossa_player_layer_set_mask(p, 0, bad_mask, 3), OSSA_ERROR_INVALID_ARGUMENT);
        assert_int_equal(ossa_player_layer_set_mask(p, 0, negative, 3), OSSA_ERROR_INVALID_ARGUMENT);
        assert_int_equal(ossa_player_layer_set_mask(p, 0, short_mask, 3), OSSA_OK);
        assert_int_equal(ossa_player_layer_set_mask(p, 0, NULL, 0), OSSA_OK);
    }
    assert_int_equal(ossa_player_layer_set_sync(p, 3, 1), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_set_speed(p, 0, INFINITY), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_bind_root_motion(p, none, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(ossa_player_layer_source(p, 1).clip);
    assert_null(ossa_player_layer_source(p, 1).built);
    assert_null(ossa_player_layer_source(p, 7).clip); /* out of range: empty */
    /* an empty source stops a layer; the getter gives back what plays */
    assert_int_equal(ossa_player_layer_play(p, 1, ossa_source_editable(f->a), 1, true), OSSA_OK);
    assert_ptr_equal(ossa_player_layer_source(p, 1).clip, f->a);
    assert_int_equal(ossa_player_layer_play(p, 1, none, 1, true), OSSA_OK);
    assert_null(ossa_player_layer_source(p, 1).clip);
    assert_float_equal(ossa_player_layer_weight(p, 1), -1, 0);
    ossa_player_destroy(p);
}

/* Three layers (two override clips with weights and a mask, one additive) equal the jobs run
 * by hand: sample each clip at its own clock, then one blend job. No allocation in update. */
static void layers_equal_the_jobs(void **state) {
    fixture *f = *state;
    ossa_clip *r1 = rotation_clip(1.0f, 1.0f), *r2 = rotation_clip(-2.0f, 0.5f);
    ossa_clip *add = NULL;
    assert_int_equal(ossa_clip_make_additive(r2, f->skeleton, NULL, NULL, &add), OSSA_OK);
    counter c = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &c};
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, &a, &p), OSSA_OK);
    uint32_t l1, l2;
    assert_int_equal(ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, &l1), OSSA_OK);
    assert_int_equal(ossa_player_add_layer(p, OSSA_PLAYER_LAYER_ADDITIVE, &l2), OSSA_OK);
    assert_int_equal(ossa_player_play(p, ossa_source_editable(r1), 1, true), OSSA_OK);
    assert_int_equal(ossa_player_layer_play(p, l1, ossa_source_editable(f->a), 0.5f, true), OSSA_OK);
    assert_int_equal(ossa_player_layer_play(p, l2, ossa_source_editable(add), 2, true), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_weight(p, 0, 0.7f), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_weight(p, l1, 0.3f), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_weight(p, l2, 0.6f), OSSA_OK);
    const float mask[3] = {1, 0.5f, 0};
    assert_int_equal(ossa_player_layer_set_mask(p, l1, mask, 3), OSSA_OK);
    int allocs = c.allocs;
    float t0 = 0, t1 = 0, t2 = 0;
    for (int i = 0; i < 50; i++) {
        const float dt = 0.037f;
        ossa_player_update(p, dt);
        t0 = ossa_clip_adjust_time(r1, t0 + dt, true);
        t1 = ossa_clip_adjust_time(f->a, t1 + dt * 0.5f, true);
        t2 = ossa_clip_adjust_time(add, t2 + dt * 2, true);
        assert_float_equal(ossa_player_layer_time(p, l2), t2, 0);
        ossa_transform s0[3], s1[3], s2[3], want[3];
        ot_clip_sample(r1, t0, true, OSSA_LOOKUP_BINARY, NULL, f->skeleton->rest, s0, 3);
        ot_clip_sample(f->a, t1, true, OSSA_LOOKUP_BINARY, NULL, f->skeleton->rest, s1, 3);
        ot_clip_sample(add, t2, true, OSSA_LOOKUP_BINARY, NULL, f->skeleton->rest, s2, 3);
        ossa_blend_layer over[2] = {{s0, 3, 0.7f, NULL, 0}, {s1, 3, 0.3f, mask, 3}};
        ossa_blend_layer ad = {s2, 3, 0.6f, NULL, 0};
        ossa_blend_job job = {over, 2, &ad, 1, f->skeleton->rest, 3, 0, want, 3};
        assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
        for (int j = 0; j < 3; j++) {
            ot_assert_floats_near(&ossa_player_pose(p)[j].translation.x, &want[j].translation.x, 3, 1e-5f);
            ot_assert_floats_near(&ossa_player_pose(p)[j].rotation.x, &want[j].rotation.x, 4, 1e-6f);
        }
        /* Joint 2 (mask 0 for layer 1, untouched by r1): rest; joint 0 half-way in x between r1 (0) and a. */
        ot_assert_near(root_x(p), 0.3 * (5.0 * t1), 1e-4);
    }
    assert_int_equal(c.allocs, allocs);
    /* A subtree mask: only joint 1's subtree (joint 1 alone here). */
    float sub[3];
    assert_int_equal(ossa_blend_mask_subtree(f->skeleton, 1, 1, 0, sub, 3), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_mask(p, l1, sub, 3), OSSA_OK);
    ossa_player_update(p, 0.01f);
    ot_assert_near(root_x(p), 0, 1e-6); /* layer 1 no longer reaches the root */
    ossa_player_destroy(p);
    assert_int_equal(c.allocs, c.frees);
    ossa_clip_destroy(add);
    ossa_clip_destroy(r1);
    ossa_clip_destroy(r2);
}

/* A player with clip c0 on layer 0 and c1 on a second override layer (index *l1), both in
 * sync group 1, with the given loop flags and weights. */
static ossa_player *two_synced(const fixture *f, const ossa_clip *c0, bool loop0, float w0, const ossa_clip *c1,
                               bool loop1, float w1, uint32_t *l1) {
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, l1), OSSA_OK);
    assert_int_equal(ossa_player_play(p, ossa_source_editable(c0), 1, loop0), OSSA_OK);
    assert_int_equal(ossa_player_layer_play(p, *l1, ossa_source_editable(c1), 1, loop1), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_weight(p, 0, w0), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_weight(p, *l1, w1), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_sync(p, 0, 1), OSSA_OK);
    assert_int_equal(ossa_player_layer_set_sync(p, *l1, 1), OSSA_OK);
    return p;
}

/* Sync group: A (2 s) at weight 0.25 and B' (1 s) at 0.75 share the phase; the cycle lasts
 * 0.25 * 2 + 0.75 * 1 = 1.25 s, so after 0.5 s the phase is 0.4: A at 0.8 s, B' at 0.4 s. */
static void sync_group_hand_worked(void **state) {
    fixture *f = *state;
    ossa_clip *r = rotation_clip(1.0f, 1.0f);
    uint32_t l1;
    ossa_player *p = two_synced(f, f->a, true, 0.25f, r, true, 0.75f, &l1);
    ossa_player_update(p, 0.5f);
    ot_assert_near(ossa_player_layer_time(p, 0), 0.8, 1e-5);
    ot_assert_near(ossa_player_layer_time(p, l1), 0.4, 1e-5);
    ossa_player_update(p, 1.0f); /* phase 0.4 + 0.8 = 1.2 -> 0.2 */
    ot_assert_near(ossa_player_layer_time(p, 0), 0.4, 1e-5);
    ot_assert_near(ossa_player_layer_time(p, l1), 0.2, 1e-5);
    /* Out of the group, each runs on its own clock again. */
    ossa_player_layer_set_sync(p, l1, 0);
    ossa_player_update(p, 0.1f);
    ot_assert_near(ossa_player_layer_time(p, 0), 0.5, 1e-5);
    ot_assert_near(ossa_player_layer_time(p, l1), 0.3, 1e-5);
    ossa_player_destroy(p);
    ossa_clip_destroy(r);
}

/* Sync group with a non-looping state: B' (1 s, weight 0.75, no loop) on layer 0 and A
 * (2 s, 0.25, looping) share a 1.25 s cycle. After 0.5 s the phase is 0.4 (B' 0.4 s, A
 * 0.8 s); after 1.0 s more the group phase is 1.2 -> 0.2 (A 0.4 s) but B' holds at its
 * end (1 s, advanced 0.6 s), and stays there (advance 0) while A keeps cycling. */
static void sync_group_non_looping_holds(void **state) {
    fixture *f = *state;
    ossa_clip *r = rotation_clip(1.0f, 1.0f);
    uint32_t l1;
    ossa_player *p = two_synced(f, r, false, 0.75f, f->a, true, 0.25f, &l1);
    ossa_player_update(p, 0.5f);
    ot_assert_near(ossa_player_layer_time(p, 0), 0.4, 1e-5);
    ot_assert_near(ossa_player_layer_time(p, l1), 0.8, 1e-5);
    ossa_player_update(p, 1.0f);
    float from, advance;
    ot_assert_near(ossa_player_layer_time(p, 0), 1.0, 1e-6);
    ossa_player_layer_step(p, 0, &from, &advance);
    ot_assert_near(from, 0.4, 1e-5);
    ot_assert_near(advance, 0.6, 1e-5);
    ot_assert_near(ossa_player_layer_time(p, l1), 0.4, 1e-5);
    ossa_player_update(p, 0.5f); /* group phase 0.2 + 0.4 = 0.6 */
    ot_assert_near(ossa_player_layer_time(p, 0), 1.0, 1e-6);
    ossa_player_layer_step(p, 0, &from, &advance);
    ot_assert_near(advance, 0.0, 1e-7);
    ot_assert_near(ossa_player_layer_time(p, l1), 1.2, 1e-5);
    /* Backwards, the non-looping state holds at its start. */
    ossa_player_layer_set_speed(p, 0, -1);
    ossa_player_layer_set_speed(p, l1, -1);
    ossa_player_update(p, 2.0f);
    ot_assert_near(ossa_player_layer_time(p, 0), 0.0, 1e-6);
    ossa_player_destroy(p);
    ossa_clip_destroy(r);
}

/* Root motion: clip A moves the root 10 units in x over 2 s. Extracted and bound, the pose
 * stays at x = 0 and the root transform accumulates 5 units per second over loops; a
 * cross-fade to an unbound clip scales the delta by the fade weight. */
static void root_motion_accumulates(void **state) {
    fixture *f = *state;
    ossa_clip *stripped = NULL;
    ossa_root_motion *rm = NULL;
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.no_yaw = true;
    assert_int_equal(ossa_root_motion_extract(f->a, f->skeleton, &o, NULL, &stripped, &rm), OSSA_OK);
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_bind_root_motion(p, ossa_source_editable(stripped), rm), OSSA_OK);
    ossa_player_play(p, ossa_source_editable(stripped), 1, true);
    for (int i = 0; i < 50; i++) {
        ossa_player_update(p, 0.1f);
        ot_assert_near(root_x(p), 0, 1e-5);
        ot_assert_near(ossa_player_root_delta(p).translation.x, 0.5, 1e-4);
    }
    ot_assert_near(ossa_player_root_transform(p).translation.x, 25, 1e-3);
    /* Fade to B (no root motion: stands still) over 1 s: after 0.25 s, w = 0.25 and the
     * delta is (1 - w) * (0.25 s * 5 units/s) = 0.9375. */
    ossa_player_crossfade(p, ossa_source_editable(f->b), 1, 1, true);
    ossa_player_update(p, 0.25f);
    ot_assert_near(ossa_player_root_delta(p).translation.x, 0.9375, 1e-4);
    ossa_player_set_root_transform(p, ossa_transform_identity());
    ot_assert_near(ossa_player_root_transform(p).translation.x, 0, 0);
    ossa_player_update(p, 1.0f); /* fade over: B alone, no motion */
    ossa_player_update(p, 0.1f);
    ot_assert_near(ossa_player_root_delta(p).translation.x, 0, 0);
    assert_int_equal(ossa_player_bind_root_motion(p, ossa_source_editable(stripped), NULL), OSSA_OK);
    ossa_player_destroy(p);
    ossa_root_motion_destroy(rm);
    ossa_clip_destroy(stripped);
}

typedef struct hook_data { int calls; } hook_data;
static bool lift_root(void *user, const ossa_skeleton *sk, ossa_transform *locals, ossa_mat4 *model) {
    (void)sk, (void)model;
    ((hook_data *)user)->calls++;
    locals[0].translation.y += 1.0f;
    return true; /* locals changed: recompute model */
}

static void pose_hook_runs_after_local_to_model(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    hook_data h = {0};
    ossa_player_set_pose_hook(p, lift_root, &h);
    ossa_player_play(p, ossa_source_editable(f->a), 1, true);
    ossa_player_update(p, 0.5f);
    assert_int_equal(h.calls, 2);
    ot_assert_near(ossa_player_pose(p)[0].translation.y, 1, 1e-6);
    ossa_mat4 m[3];
    assert_int_equal(ossa_player_model(p, m, 3), OSSA_OK);
    ot_assert_near(m[0].m[13], 1, 1e-6);
    ot_assert_near(m[2].m[13], 1, 1e-6); /* children follow */
    ossa_player_set_pose_hook(p, NULL, NULL);
    ossa_player_update(p, 0.5f);
    assert_int_equal(h.calls, 2);
    ot_assert_near(ossa_player_pose(p)[0].translation.y, 0, 1e-6);
    ossa_player_destroy(p);
}

/* Property: random skeletons, clips and layer stacks (override / additive, weights, masks,
 * speeds); after every update the player's pose equals the jobs run by hand (sampling at the
 * clocks advanced independently, then one blend job). */
static ossa_clip *random_clip(uint64_t *s, uint32_t n, float *store) {
    float *times = store;
    times[0] = 0;
    for (int k = 1; k < 4; k++) times[k] = times[k - 1] + ot_rand_float(s, 0.1f, 0.6f);
    ossa_transform_track tracks[16];
    memset(tracks, 0, sizeof tracks);
    uint32_t count = 0;
    float *v = store + 4;
    for (uint32_t j = 0; j < n && count < 16; j++) {
        if (ot_rand_u64(s) % 3 == 0) continue;
        ossa_transform_track *t = &tracks[count++];
        t->joint = j;
        for (int k = 0; k < 4; k++) {
            ossa_quat q = ot_rand_quat(s);
            memcpy(v + k * 4, &q, sizeof q);
            for (int c = 0; c < 3; c++) v[16 + k * 3 + c] = ot_rand_float(s, -1, 1);
        }
        t->rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 4, times, v, {0, 0, 0, NULL}};
        t->translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 4, times, v + 16, {0, 0, 0, NULL}};
        v += 28;
    }
    ossa_clip_desc d = {0};
    d.track_count = count;
    d.tracks = tracks;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}

static void property_random_layer_stacks(void **state) {
    (void)state;
    uint64_t s = 777;
    static float store[4][4 + 16 * 28];
    for (int iter = 0; iter < 25; iter++) {
        uint32_t n = 1 + (uint32_t)(ot_rand_u64(&s) % 16);
        int32_t parents[16];
        for (uint32_t j = 0; j < n; j++) parents[j] = j ? (int32_t)(ot_rand_u64(&s) % j) : -1;
        ossa_skeleton_desc sd = {n, parents, NULL, NULL, 0, NULL, 0.0f};
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        uint32_t layers = 1 + (uint32_t)(ot_rand_u64(&s) % 4);
        ossa_clip *clips[4] = {NULL}, *owned[4] = {NULL};
        bool additive[4];
        float weight[4], speed[4], masks[4][16], clock[4];
        ossa_player *p = NULL;
        assert_int_equal(ossa_player_create(sk, NULL, &p), OSSA_OK);
        for (uint32_t l = 0; l < layers; l++) {
            clips[l] = random_clip(&s, n, store[l]);
            additive[l] = l > 0 && ot_rand_u64(&s) % 3 == 0;
            if (additive[l]) {
                assert_int_equal(ossa_clip_make_additive(clips[l], sk, NULL, NULL, &owned[l]), OSSA_OK);
                ossa_clip_destroy(clips[l]);
                clips[l] = owned[l];
            }
            if (l) assert_int_equal(ossa_player_add_layer(p, additive[l] ? OSSA_PLAYER_LAYER_ADDITIVE
                                                                          : OSSA_PLAYER_LAYER_OVERRIDE, NULL), OSSA_OK);
            weight[l] = ot_rand_float(&s, 0, 1.5f);
            speed[l] = ot_rand_float(&s, -2, 2);
            clock[l] = clips[l]->start;
            for (uint32_t j = 0; j < n; j++) masks[l][j] = ot_rand_float(&s, 0, 1);
            assert_int_equal(ossa_player_layer_play(p, l, ossa_source_editable(clips[l]), speed[l], true), OSSA_OK);
            assert_int_equal(ossa_player_layer_set_weight(p, l, weight[l]), OSSA_OK);
            if (ot_rand_u64(&s) % 2) assert_int_equal(ossa_player_layer_set_mask(p, l, masks[l], n), OSSA_OK);
            else masks[l][0] = -1; /* no mask */
        }
        for (int step = 0; step < 20; step++) {
            float dt = ot_rand_float(&s, 0, 0.1f);
            ossa_player_update(p, dt);
            static ossa_transform poses[4][16];
            ossa_blend_layer over[4], add[4];
            uint32_t no = 0, na = 0;
            for (uint32_t l = 0; l < layers; l++) {
                clock[l] = ossa_clip_adjust_time(clips[l], clock[l] + dt * speed[l], true);
                ot_clip_sample(clips[l], clock[l], true, OSSA_LOOKUP_BINARY, NULL, sk->rest, poses[l], n);
                bool m = masks[l][0] >= 0;
                ossa_blend_layer b = {poses[l], n, weight[l], m ? masks[l] : NULL, m ? n : 0};
                if (additive[l]) add[na++] = b;
                else over[no++] = b;
            }
            ossa_transform want[16];
            ossa_blend_job job = {over, no, add, na, sk->rest, n, 0, want, n};
            assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
            const ossa_transform *got = ossa_player_pose(p);
            for (uint32_t j = 0; j < n; j++) {
                ot_assert_floats_near(&got[j].translation.x, &want[j].translation.x, 3, 1e-5f);
                ot_assert_floats_near(&got[j].rotation.x, &want[j].rotation.x, 4, 1e-5f);
            }
        }
        ossa_player_destroy(p);
        for (uint32_t l = 0; l < layers; l++) ossa_clip_destroy(clips[l]);
        ossa_skeleton_destroy(sk);
    }
}

/* Built clips (lossless) play exactly like their editable sources: two players fed the same
 * calls, one with editable clips and one with built ones, through plays, a cross-fade, a synced
 * layer, a mask and root motion, agree within float rounding. */
static void built_clips_play_like_editable(void **state) {
    fixture *f = *state;
    ossa_clip_build_options lossless = {0};
    lossless.lossless = true;
    ossa_clip *r = rotation_clip(1.0f, 0.75f), *stripped = NULL;
    ossa_root_motion *rm = NULL;
    assert_int_equal(ossa_root_motion_extract(f->a, f->skeleton, NULL, NULL, &stripped, &rm), OSSA_OK);
    ossa_built_clip *ba = NULL, *bb = NULL, *br = NULL;
    assert_int_equal(ossa_clip_build(stripped, f->skeleton, &lossless, NULL, &ba, NULL), OSSA_OK);
    assert_int_equal(ossa_clip_build(f->b, f->skeleton, &lossless, NULL, &bb, NULL), OSSA_OK);
    assert_int_equal(ossa_clip_build(r, f->skeleton, &lossless, NULL, &br, NULL), OSSA_OK);
    counter c = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &c};
    ossa_player *pe = NULL, *pb = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &pe), OSSA_OK);
    assert_int_equal(ossa_player_create(f->skeleton, &a, &pb), OSSA_OK);
    { /* a clip built with another rest pose (same joints) is refused: its reference hash */
        uint32_t n = f->skeleton->joint_count;
        ossa_transform *rest = malloc(n * sizeof *rest);
        memcpy(rest, f->skeleton->rest, n * sizeof *rest);
        rest[n - 1].translation.x += 0.25f;
        ossa_skeleton_desc d = {n, f->skeleton->parents, rest, NULL, 0, NULL, 0.0f};
        ossa_skeleton *other = NULL;
        ossa_built_clip *bo = NULL;
        assert_int_equal(ossa_skeleton_create(&d, NULL, &other), OSSA_OK);
        assert_int_equal(ossa_clip_build(f->b, other, &lossless, NULL, &bo, NULL), OSSA_OK);
        assert_int_equal(ossa_player_play(pe, ossa_source_built(bo), 1, true), OSSA_ERROR_INVALID_ARGUMENT);
        assert_int_equal(ossa_player_crossfade(pe, ossa_source_built(bo), 0.2f, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
        assert_null(ossa_player_layer_source(pe, 0).built);
        ossa_built_clip_destroy(bo);
        ossa_skeleton_destroy(other);
        free(rest);
    }
    uint32_t le, lb;
    assert_int_equal(ossa_player_add_layer(pe, OSSA_PLAYER_LAYER_OVERRIDE, &le), OSSA_OK);
    assert_int_equal(ossa_player_add_layer(pb, OSSA_PLAYER_LAYER_OVERRIDE, &lb), OSSA_OK);
    assert_int_equal(ossa_player_bind_root_motion(pe, ossa_source_editable(stripped), rm), OSSA_OK);
    assert_int_equal(ossa_player_bind_root_motion(pb, ossa_source_built(ba), rm), OSSA_OK);
    assert_int_equal(ossa_player_play(pe, ossa_source_editable(stripped), 1, true), OSSA_OK);
    assert_int_equal(ossa_player_play(pb, ossa_source_built(ba), 1, true), OSSA_OK);
    assert_ptr_equal(ossa_player_layer_source(pb, 0).built, ba);
    assert_null(ossa_player_layer_source(pb, 0).clip);
    assert_int_equal(ossa_player_layer_play(pe, le, ossa_source_editable(r), 1, true), OSSA_OK);
    assert_int_equal(ossa_player_layer_play(pb, lb, ossa_source_built(br), 1, true), OSSA_OK);
    const float mask[3] = {0, 1, 1};
    for (int k = 0; k < 2; k++) {
        ossa_player *p = k ? pb : pe;
        uint32_t l = k ? lb : le;
        ossa_player_layer_set_weight(p, l, 0.6f);
        assert_int_equal(ossa_player_layer_set_mask(p, l, mask, 3), OSSA_OK);
        ossa_player_layer_set_sync(p, 0, 1);
        ossa_player_layer_set_sync(p, l, 1);
    }
    int allocs = c.allocs;
    for (int i = 0; i < 60; i++) {
        if (i == 30) {
            assert_int_equal(ossa_player_crossfade(pe, ossa_source_editable(f->b), 0.5f, 1, true), OSSA_OK);
            assert_int_equal(ossa_player_crossfade(pb, ossa_source_built(bb), 0.5f, 1, true), OSSA_OK);
            allocs = c.allocs;
        }
        ossa_player_update(pe, 0.041f);
        ossa_player_update(pb, 0.041f);
        ot_assert_near(ossa_player_time(pb), ossa_player_time(pe), 1e-6);
        ot_assert_near(ossa_player_layer_time(pb, lb), ossa_player_layer_time(pe, le), 1e-6);
        for (int j = 0; j < 3; j++) {
            ot_assert_floats_near(&ossa_player_pose(pb)[j].translation.x, &ossa_player_pose(pe)[j].translation.x, 3, 1e-5f);
            ot_assert_floats_near(&ossa_player_pose(pb)[j].rotation.x, &ossa_player_pose(pe)[j].rotation.x, 4, 1e-5f);
        }
        ossa_transform re = ossa_player_root_transform(pe), rb = ossa_player_root_transform(pb);
        ot_assert_floats_near(&rb.translation.x, &re.translation.x, 3, 1e-4f);
    }
    assert_int_equal(c.allocs, allocs); /* updates allocate nothing on the built path either */
    assert_true(ossa_player_root_transform(pb).translation.x > 1.0f); /* it moved */
    ossa_player_destroy(pe);
    ossa_player_destroy(pb);
    assert_int_equal(c.allocs, c.frees);
    ossa_built_clip_destroy(ba);
    ossa_built_clip_destroy(bb);
    ossa_built_clip_destroy(br);
    ossa_root_motion_destroy(rm);
    ossa_clip_destroy(stripped);
    ossa_clip_destroy(r);
}

/* Events on the player's clock: a footstep at 0.31 s of the 2 s looping clip A fires exactly
 * once per loop forwards, and once per loop backwards, through ossa_player_layer_step. */
static void events_on_the_player_clock(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    const float footstep[1] = {0.31f};
    for (int dir = 0; dir < 2; dir++) {
        ossa_player_play(p, ossa_source_editable(f->a), dir ? -1.0f : 1.0f, true);
        int fired = 0;
        for (int i = 0; i < 300; i++) { /* 300 x 1/30 s = 10 s = 5 loops */
            ossa_player_update(p, 1.0f / 30.0f);
            float from, advance;
            ossa_player_layer_step(p, 0, &from, &advance);
            ot_assert_near(advance, dir ? -1.0 / 30.0 : 1.0 / 30.0, 1e-7);
            uint32_t out[4];
            ossa_event_job job = {footstep, 1, f->a->start, f->a->end, true, from, advance, out, 4, 0};
            assert_int_equal(ossa_event_job_run(&job), OSSA_OK);
            fired += (int)job.fired_count;
        }
        assert_int_equal(fired, 5);
    }
    float from = 1, advance = 1;
    ossa_player_layer_step(p, 7, &from, &advance);
    ot_assert_near(from, 0, 0);
    ot_assert_near(advance, 0, 0);
    ossa_player_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(clock_speed_loop_hold, setup, teardown),
        cmocka_unit_test_setup_teardown(crossfade_hand_worked, setup, teardown),
        cmocka_unit_test_setup_teardown(palette_and_model, setup, teardown),
        cmocka_unit_test_setup_teardown(cursor_playback_equals_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(layer_validity, setup, teardown),
        cmocka_unit_test_setup_teardown(layers_equal_the_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(sync_group_hand_worked, setup, teardown),
        cmocka_unit_test_setup_teardown(sync_group_non_looping_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(root_motion_accumulates, setup, teardown),
        cmocka_unit_test_setup_teardown(pose_hook_runs_after_local_to_model, setup, teardown),
        cmocka_unit_test(property_random_layer_stacks),
        cmocka_unit_test_setup_teardown(events_on_the_player_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(built_clips_play_like_editable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
