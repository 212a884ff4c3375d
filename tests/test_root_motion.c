/* Root motion (src/anim/root_motion.c): extraction removes the motion from the pose, the
 * delta job re-applies it, and the world trajectory over several loops matches hand-worked
 * positions (a straight walk, a square walked in four loops). */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HALF_PI 1.57079632679f

/* Skeleton: 0 "Armature" (static, offset and rotated about Y), 1 "Hips" (animated), 2 "Leg". */
static ossa_skeleton *make_skeleton(void) {
    static const int32_t parents[3] = {-1, 0, 1};
    static const char *const names[3] = {"Armature", "Hips", "Leg"};
    ossa_transform rest[3];
    for (int i = 0; i < 3; i++) rest[i] = ossa_transform_identity();
    rest[0].translation = ossa_vec3_make(0.5f, 0, -0.25f);
    rest[0].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), 0.3f);
    rest[2].translation = ossa_vec3_make(0, -1, 0);
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = 3;
    d.parents = parents;
    d.rest = rest;
    d.names = names;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

/* Hips: translation keys (local), rotation keys (local, about Y), 5 keys over [0, 1]. */
static ossa_clip *make_clip(const float *tvals, const float *rvals) {
    static const float times[5] = {0, 0.25f, 0.5f, 0.75f, 1.0f};
    ossa_transform_track t;
    memset(&t, 0, sizeof t);
    t.joint = 1;
    t.translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 5, times, tvals, {0, 0, 0, NULL}};
    if (rvals) t.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 5, times, rvals, {0, 0, 0, NULL}};
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = "walk";
    d.looping = true;
    d.track_count = 1;
    d.tracks = &t;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}

static ossa_mat4 world_of(const ossa_skeleton *sk, const ossa_clip *clip, float t, uint32_t joint) {
    ossa_transform pose[3];
    ot_clip_sample(clip, t, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, pose, 3);
    return ossa_pose_joint_to_model(pose, sk->parents, 3, joint);
}

static void validity(void **state) {
    (void)state;
    ossa_root_motion_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_root_motion_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_root_motion_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "motion");
    float times[1] = {0};
    ossa_vec3 pos[1] = {{0, 0, 0}};
    float yaw[1] = {0};
    ossa_root_motion m;
    memset(&m, 0, sizeof m);
    m.key_count = 1, m.times = times, m.positions = pos, m.yaws = yaw;
    job.motion = &m;
    ot_assert_job(ossa_root_motion_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "delta"); /* no delta */
    ossa_transform delta;
    job.delta = &delta;
    assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
    ot_assert_job_ok(ossa_root_motion_job_validate, &job);
    job.from = NAN;
    assert_int_equal(ossa_root_motion_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    ot_assert_job(ossa_root_motion_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "from");
    job.from = 0;
    job.advance = INFINITY;
    assert_int_equal(ossa_root_motion_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    ot_assert_job(ossa_root_motion_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "advance");
    ossa_skeleton *sk = make_skeleton();
    ossa_clip *out = NULL;
    ossa_root_motion *rm = NULL;
    assert_int_equal(ossa_root_motion_extract(NULL, sk, NULL, NULL, &out, &rm), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(out);
    assert_null(rm);
    static const float tv[15] = {0};
    ossa_clip *clip = make_clip(tv, NULL);
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.joint_name = "nope";
    assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &out, &rm), OSSA_ERROR_INVALID_ARGUMENT);
    o.joint_name = NULL;
    o.joint = 3;
    assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &out, &rm), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* Straight walk: Hips moves 2 units along its parent's local +X per cycle with a bob in Y.
 * Extract (height stays in the pose), then for several loops: the character transform
 * accumulated from deltas ∘ the extracted pose = the original walk continued. The expected
 * world position is computed by hand: the Armature (rotated 0.3 about Y, at (0.5, 0, -0.25))
 * carries the local path x(t) = 2 t, so after u seconds of playback the hips are at
 * A ∘ (2u, bob(u), 0). */
static void straight_walk_over_loops(void **state) {
    (void)state;
    ossa_skeleton *sk = make_skeleton();
    static const float tv[15] = {0, 1, 0, 0.5f, 1.1f, 0, 1, 1, 0, 1.5f, 1.1f, 0, 2, 1, 0};
    ossa_clip *clip = make_clip(tv, NULL);
    ossa_clip *stripped = NULL;
    ossa_root_motion *rm = NULL;
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.no_yaw = true;
    assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &stripped, &rm), OSSA_OK);
    assert_int_equal(rm->joint, 1);
    /* The stripped hips stay over the origin: world x, z = 0 at every key. */
    for (int k = 0; k <= 4; k++) {
        ossa_mat4 w = world_of(sk, stripped, 0.25f * (float)k, 1);
        ot_assert_near(w.m[12], 0, 1e-6);
        ot_assert_near(w.m[14], 0, 1e-6);
        ot_assert_near(w.m[13], k % 2 ? 1.1 : 1.0, 1e-6); /* the height stays */
    }
    ossa_transform character = ossa_transform_identity();
    character = ossa_root_motion_sample(rm, 0.0f); /* start where the original starts */
    float t = 0.0f;
    const float dt = 1.0f / 30.0f;
    ossa_transform A = sk->rest[0];
    for (int frame = 1; frame <= 30 * 4 + 7; frame++) {
        ossa_transform delta;
        ossa_root_motion_job job = {rm, t, dt, true, &delta};
        assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
        character = ossa_transform_combine(character, delta);
        t = ossa_clip_adjust_time(stripped, t + dt, true);
        double u = frame * (double)dt;
        double cyc = u - floor(u + 1e-9);
        double bob = 1.0 + 0.1 * (1.0 - fabs(fmod(cyc, 0.5) / 0.25 - 1.0));
        ossa_vec3 expect = ossa_transform_point(A, ossa_vec3_make((float)(2.0 * u), (float)bob, 0));
        ossa_mat4 local_world = world_of(sk, stripped, t, 1);
        ossa_vec3 p = ossa_transform_point(character, ossa_vec3_make(local_world.m[12], local_world.m[13], local_world.m[14]));
        ot_assert_near(p.x, expect.x, 2e-4);
        ot_assert_near(p.y, expect.y, 2e-4);
        ot_assert_near(p.z, expect.z, 2e-4);
    }
    /* Backwards over a wrap: the delta of -0.5 s from 0.25 is the inverse of +0.5 s from 0.75. */
    ossa_transform back, fwd;
    ossa_root_motion_job jb = {rm, 0.25f, -0.5f, true, &back}, jf = {rm, 0.75f, 0.5f, true, &fwd};
    assert_int_equal(ossa_root_motion_job_run(&jb), OSSA_OK);
    assert_int_equal(ossa_root_motion_job_run(&jf), OSSA_OK);
    ossa_transform id = ossa_transform_combine(back, fwd);
    ot_assert_near(id.translation.x, 0, 1e-5);
    ot_assert_near(id.translation.z, 0, 1e-5);
    ot_assert_near(ossa_vec3_length(back.translation), 1.0, 1e-5); /* 2 units per second */
    /* Not looping: clamped to the clip. */
    ossa_root_motion_job jc = {rm, 0.5f, 10.0f, false, &fwd};
    assert_int_equal(ossa_root_motion_job_run(&jc), OSSA_OK);
    ot_assert_near(ossa_vec3_length(fwd.translation), 1.0, 1e-5);
    ossa_root_motion_destroy(rm);
    ossa_clip_destroy(stripped);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* Each cycle the hips walk one unit forward (their +Z) and turn 90° left (about +Y). Over
 * four loops the character walks a unit square and ends where it started, heading 360°.
 * Worked by hand in the Armature's frame: corners (0,0,1), (1,0,1), (1,0,0), (0,0,0) at the
 * ends of loops 1..4 (heading rotates +Z toward +X). */
static void square_in_four_loops(void **state) {
    (void)state;
    ossa_skeleton *sk = make_skeleton();
    static float tv[15], rv[20];
    for (int k = 0; k < 5; k++) {
        float u = 0.25f * (float)k;
        tv[k * 3 + 0] = 0, tv[k * 3 + 1] = 1, tv[k * 3 + 2] = u;
        ossa_quat q = ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), HALF_PI * u);
        memcpy(rv + k * 4, &q, sizeof q);
    }
    ossa_clip *clip = make_clip(tv, rv);
    ossa_clip *stripped = NULL;
    ossa_root_motion *rm = NULL;
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.joint_name = "Hips";
    assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &stripped, &rm), OSSA_OK);
    ossa_transform A = sk->rest[0];
    /* The Armature's own yaw (0.3) is part of the model-space heading. */
    ot_assert_near(rm->yaws[0], 0.3, 1e-5);
    ot_assert_near(rm->yaws[rm->key_count - 1], 0.3 + HALF_PI, 1e-5);
    ossa_transform character = ossa_root_motion_sample(rm, 0.0f);
    float t = 0.0f;
    const int steps = 8; /* 8 frames per loop */
    const float dt = 1.0f / (float)steps;
    const float corners[4][3] = {{0, 0, 1}, {1, 0, 1}, {1, 0, 0}, {0, 0, 0}};
    for (int loop = 0; loop < 4; loop++) {
        for (int f = 0; f < steps; f++) {
            ossa_transform delta;
            ossa_root_motion_job job = {rm, t, dt, true, &delta};
            assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
            character = ossa_transform_combine(character, delta);
            t = ossa_clip_adjust_time(stripped, t + dt, true);
        }
        ossa_mat4 lw = world_of(sk, stripped, t, 1);
        ossa_vec3 p = ossa_transform_point(character, ossa_vec3_make(lw.m[12], lw.m[13], lw.m[14]));
        ossa_vec3 want = ossa_transform_point(A, ossa_vec3_make(corners[loop][0], 1, corners[loop][2]));
        ot_assert_near(p.x, want.x, 1e-4);
        ot_assert_near(p.y, want.y, 1e-4);
        ot_assert_near(p.z, want.z, 1e-4);
        /* The world heading: the hips' +Z in world after (loop + 1) quarter turns. */
        ossa_vec3 fwd = ossa_transform_vector(character, ossa_vec3_make(lw.m[8], lw.m[9], lw.m[10]));
        float ang = 0.3f + HALF_PI * (float)(loop + 1);
        ot_assert_near(fwd.x, sinf(ang), 1e-4);
        ot_assert_near(fwd.z, cosf(ang), 1e-4);
    }
    /* One whole loop's delta from the start is the cycle motion C (translation length 1). */
    ossa_transform d;
    ossa_root_motion_job job = {rm, 0.0f, 1.0f, true, &d};
    assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
    ot_assert_near(ossa_vec3_length(d.translation), 1.0, 1e-4);
    ossa_root_motion_destroy(rm);
    ossa_clip_destroy(stripped);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* Property: random clips on random skeletons: re-applying the motion at the keys gives the
 * original model-space transform of the motion joint, for every option combination. */
static void property_reapply_at_keys(void **state) {
    (void)state;
    uint64_t s = 4242;
    for (int iter = 0; iter < 30; iter++) {
        uint32_t n = 2 + (uint32_t)(ot_rand_u64(&s) % 10);
        int32_t parents[12];
        ossa_transform rest[12];
        for (uint32_t j = 0; j < n; j++) {
            parents[j] = j == 0 ? -1 : (int32_t)(ot_rand_u64(&s) % j);
            rest[j] = ossa_transform_identity();
            rest[j].translation = ossa_vec3_make(ot_rand_float(&s, -1, 1), ot_rand_float(&s, -1, 1), ot_rand_float(&s, -1, 1));
            rest[j].rotation = ot_rand_quat(&s);
        }
        ossa_skeleton_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.joint_count = n, sd.parents = parents, sd.rest = rest;
        ossa_skeleton *sk = NULL;
        assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
        static float times[6] = {0, 0.2f, 0.3f, 0.7f, 0.8f, 1.3f};
        static float tv[6 * 3], rv[6 * 4];
        for (int k = 0; k < 6; k++) {
            for (int c = 0; c < 3; c++) tv[k * 3 + c] = ot_rand_float(&s, -2, 2);
            ossa_quat q = ot_rand_quat(&s);
            memcpy(rv + k * 4, &q, sizeof q);
        }
        uint32_t joint = (uint32_t)(ot_rand_u64(&s) % n);
        ossa_transform_track tr;
        memset(&tr, 0, sizeof tr);
        tr.joint = joint;
        tr.translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 6, times, tv, {0, 0, 0, NULL}};
        tr.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 6, times, rv, {0, 0, 0, NULL}};
        ossa_clip_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.track_count = 1, cd.tracks = &tr;
        ossa_clip *clip = NULL, *stripped = NULL;
        assert_int_equal(ossa_clip_create(&cd, NULL, &clip), OSSA_OK);
        ossa_root_motion_options o;
        memset(&o, 0, sizeof o);
        o.joint = joint;
        o.extract_height = iter % 2;
        o.no_yaw = iter % 3 == 0;
        ossa_root_motion *rm = NULL;
        assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &stripped, &rm), OSSA_OK);
        assert_int_equal(rm->key_count, 6);
        for (int k = 0; k < 6; k++) {
            ossa_transform po[12], ps[12];
            ot_clip_sample(clip, times[k], false, OSSA_LOOKUP_BINARY, NULL, sk->rest, po, n);
            ot_clip_sample(stripped, times[k], false, OSSA_LOOKUP_BINARY, NULL, sk->rest, ps, n);
            ossa_mat4 wo = ossa_pose_joint_to_model(po, sk->parents, n, joint);
            ossa_mat4 wsm = ossa_pose_joint_to_model(ps, sk->parents, n, joint);
            ossa_mat4 M = ossa_transform_to_mat4(ossa_root_motion_sample(rm, times[k]));
            ossa_mat4 re = ossa_mat4_mul(&M, &wsm);
            ot_assert_floats_near(re.m, wo.m, 16, 2e-4f);
            if (!o.extract_height) ot_assert_near(rm->positions[k].y, 0, 0);
            if (o.no_yaw) ot_assert_near(rm->yaws[k], 0, 0);
            /* Stripped: ground position at the origin (and height 0 when extracted). */
            ot_assert_near(wsm.m[12], 0, 2e-4);
            ot_assert_near(wsm.m[14], 0, 2e-4);
            if (o.extract_height) ot_assert_near(wsm.m[13], 0, 2e-4);
        }
        ossa_root_motion_destroy(rm);
        ossa_clip_destroy(stripped);
        ossa_clip_destroy(clip);
        ossa_skeleton_destroy(sk);
    }
}

/* Property: deltas compose. For random motions, start times and steps (any sign, several
 * loops), delta(a, x) ∘ delta(a + x, y) = delta(a, x + y) when looping. */
static void property_deltas_compose(void **state) {
    (void)state;
    uint64_t s = 99;
    static float times[5] = {0.5f, 0.7f, 1.1f, 1.6f, 2.0f};
    for (int iter = 0; iter < 200; iter++) {
        ossa_vec3 pos[5];
        float yaw[5];
        for (int k = 0; k < 5; k++) {
            pos[k] = ossa_vec3_make(ot_rand_float(&s, -3, 3), 0, ot_rand_float(&s, -3, 3));
            yaw[k] = ot_rand_float(&s, -3, 3);
        }
        ossa_root_motion m;
        memset(&m, 0, sizeof m);
        m.start = times[0], m.end = times[4], m.key_count = 5, m.times = times, m.positions = pos, m.yaws = yaw;
        /* Steps on a 1/64 grid so a + x is exact in float. */
        float a = (float)(int)(ot_rand_float(&s, -4, 4) * 64) / 64;
        float x = (float)(int)(ot_rand_float(&s, -4, 4) * 64) / 64;
        float y = (float)(int)(ot_rand_float(&s, -4, 4) * 64) / 64;
        ossa_transform d1, d2, d12;
        ossa_root_motion_job j1 = {&m, a, x, true, &d1}, j2 = {&m, a + x, y, true, &d2}, j12 = {&m, a, x + y, true, &d12};
        assert_int_equal(ossa_root_motion_job_run(&j1), OSSA_OK);
        assert_int_equal(ossa_root_motion_job_run(&j2), OSSA_OK);
        assert_int_equal(ossa_root_motion_job_run(&j12), OSSA_OK);
        ossa_transform c = ossa_transform_combine(d1, d2);
        ot_assert_floats_near(&c.translation.x, &d12.translation.x, 3, 2e-3f);
        double dot = fabs((double)c.rotation.x * d12.rotation.x + (double)c.rotation.y * d12.rotation.y +
                          (double)c.rotation.z * d12.rotation.z + (double)c.rotation.w * d12.rotation.w);
        ot_assert_near(dot, 1.0, 1e-5);
    }
}

/* An animated ancestor moves the motion joint between the joint's own keys: Armature
 * slides out to x = 2 and back (keys 0, 0.5, 1) while Hips has keys only at 0 and 1. The
 * motion gets a key at 0.5 where it equals Hips' model-space position, and the extracted
 * clip keeps Hips at the origin (x, z) there. */
static void ancestor_keys_are_motion_keys(void **state) {
    (void)state;
    ossa_skeleton *sk = make_skeleton();
    static const float ta[3] = {0, 0.5f, 1.0f}, tb[2] = {0, 1.0f};
    static const float va[9] = {0.5f, 0, -0.25f, 2.5f, 0, -0.25f, 0.5f, 0, -0.25f};
    static const float vb[6] = {0, 0, 0, 1, 0, 0};
    ossa_transform_track tr[2];
    memset(tr, 0, sizeof tr);
    tr[0].joint = 0;
    tr[0].translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 3, ta, va, {0, 0, 0, NULL}};
    tr[1].joint = 1;
    tr[1].translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 2, tb, vb, {0, 0, 0, NULL}};
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = "slide";
    d.track_count = 2;
    d.tracks = tr;
    ossa_clip *clip = NULL, *out = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.joint_name = "Hips";
    o.no_yaw = true;
    ossa_root_motion *m = NULL;
    assert_int_equal(ossa_root_motion_extract(clip, sk, &o, NULL, &out, &m), OSSA_OK);
    assert_int_equal(m->key_count, 3);
    ot_assert_near(m->times[1], 0.5, 0);
    ossa_mat4 w = world_of(sk, clip, 0.5f, 1);
    ossa_transform at = ossa_root_motion_sample(m, 0.5f);
    ot_assert_near(at.translation.x, w.m[12], 1e-5);
    ot_assert_near(at.translation.z, w.m[14], 1e-5);
    ossa_mat4 stripped = world_of(sk, out, 0.5f, 1);
    ot_assert_near(stripped.m[12], 0, 1e-5);
    ot_assert_near(stripped.m[14], 0, 1e-5);
    ossa_root_motion_destroy(m);
    ossa_clip_destroy(out);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validity),
        cmocka_unit_test(straight_walk_over_loops),
        cmocka_unit_test(square_in_four_loops),
        cmocka_unit_test(property_reapply_at_keys),
        cmocka_unit_test(property_deltas_compose),
        cmocka_unit_test(ancestor_keys_are_motion_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
