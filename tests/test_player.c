/* Player (src/anim/player.c): clock with speed, loop and hold, cross-fade weights worked by
 * hand, cursor playback equal to reference sampling, palette vs an independent product,
 * no allocation in update. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static ossa_clip *translation_clip(uint32_t joint, const float *times, const float *values) {
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
    ossa_skeleton_desc d = {3, parents, rest, NULL, 1, &skin};
    assert_int_equal(ossa_skeleton_create(&d, NULL, &f->skeleton), OSSA_OK);
    f->a = translation_clip(0, A_TIMES, A_VALUES);
    f->b = translation_clip(0, B_TIMES, B_VALUES);
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
    assert_null(ossa_player_clip(p));
    assert_memory_equal(ossa_player_pose(p), f->skeleton->rest, 3 * sizeof(ossa_transform));
    assert_int_equal(ossa_player_play(p, f->a, 1, false), OSSA_OK);
    assert_ptr_equal(ossa_player_clip(p), f->a);
    assert_float_equal(ossa_player_time(p), 0, 0);
    ossa_player_update(p, 0.5f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ot_assert_near(root_x(p), 2.5, 1e-6);
    ossa_player_update(p, 5);
    assert_float_equal(ossa_player_time(p), 2, 0); /* hold at the end */
    assert_float_equal(root_x(p), 10, 0);
    /* loop: 2.5 s into a 2 s clip is 0.5 s */
    ossa_player_play(p, f->a, 1, true);
    ossa_player_update(p, 2.5f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ot_assert_near(root_x(p), 2.5, 1e-6);
    /* speed 2 */
    ossa_player_play(p, f->a, 2, true);
    ossa_player_update(p, 0.25f);
    assert_float_equal(ossa_player_time(p), 0.5f, 0);
    ossa_player_set_speed(p, 0.5f);
    ossa_player_update(p, 1.0f);
    assert_float_equal(ossa_player_time(p), 1.0f, 0);
    /* backwards, looping: from 0 back 0.5 s is 1.5 s */
    ossa_player_play(p, f->a, -1, true);
    ossa_player_update(p, 0.5f);
    assert_float_equal(ossa_player_time(p), 1.5f, 0);
    ot_assert_near(root_x(p), 7.5, 1e-6);
    /* backwards, holding: stays at the start */
    ossa_player_play(p, f->a, -1, false);
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
    ossa_player_play(p, f->a, 1, false);
    ossa_player_update(p, 1);
    ot_assert_near(root_x(p), 5, 1e-6);
    assert_int_equal(ossa_player_crossfade(p, f->b, 1, 1, false), OSSA_OK);
    /* At the start of the fade the pose is still A's. */
    ot_assert_near(root_x(p), 5, 1e-6);
    assert_float_equal(ossa_player_fade_weight(p), 0, 0);
    assert_ptr_equal(ossa_player_clip(p), f->b);
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
    ossa_player_play(p, f->a, 1, false);
    ossa_player_update(p, 1);                       /* A: 5 */
    ossa_player_crossfade(p, f->b, 1, 1, false);
    ossa_player_update(p, 0.5f);                    /* 0.5 * 7.5 + 0.5 * 100 = 53.75 */
    float before = root_x(p);
    ot_assert_near(before, 53.75, 1e-4);
    assert_int_equal(ossa_player_crossfade(p, f->a, 1, 1, false), OSSA_OK);
    assert_float_equal(root_x(p), before, 0);
    ossa_player_update(p, 0.5f);                    /* frozen 53.75 and A at 0.5 s (2.5), weight 0.5 */
    ot_assert_near(root_x(p), 0.5 * 53.75 + 0.5 * 2.5, 1e-4);
    ossa_player_update(p, 0.5f);                    /* done: A at 1 s */
    assert_float_equal(ossa_player_fade_weight(p), 1, 0);
    ot_assert_near(root_x(p), 5, 1e-6);
    /* Zero duration is a cut. */
    ossa_player_crossfade(p, f->a, 0, 1, false);
    assert_float_equal(ossa_player_fade_weight(p), 1, 0);
    assert_float_equal(root_x(p), 0, 0);
    ossa_player_destroy(p);
    /* Cross-fade with nothing playing is play. */
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_crossfade(p, f->b, 1, 1, true), OSSA_OK);
    assert_float_equal(root_x(p), 100, 0);
    assert_int_equal(ossa_player_play(p, NULL, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_player_destroy(p);
}

static void palette_and_model(void **state) {
    fixture *f = *state;
    ossa_player *p = NULL;
    assert_int_equal(ossa_player_create(f->skeleton, NULL, &p), OSSA_OK);
    ossa_player_play(p, f->a, 1, true);
    ossa_player_update(p, 0.7f);
    ossa_mat4 model[3], pal[3], expect_model[3];
    ossa_player_model(p, model);
    ot_local_to_model(ossa_player_pose(p), f->skeleton->parents, 3, expect_model);
    assert_memory_equal(model, expect_model, sizeof model);
    assert_int_equal(ossa_player_palette(p, 0, pal), OSSA_OK);
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
    assert_int_equal(ossa_player_palette(p, 1, pal), OSSA_ERROR_INVALID_ARGUMENT);
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
        assert_int_equal(ossa_player_play(p, clip, speed, loop), OSSA_OK);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(clock_speed_loop_hold, setup, teardown),
        cmocka_unit_test_setup_teardown(crossfade_hand_worked, setup, teardown),
        cmocka_unit_test_setup_teardown(palette_and_model, setup, teardown),
        cmocka_unit_test_setup_teardown(cursor_playback_equals_reference, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
