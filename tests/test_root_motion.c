/* Root motion (src/anim/root_motion.c): extraction removes the motion from the pose, the
 * delta job re-applies it, and the world trajectory over several loops matches hand-worked
 * positions (a straight walk, a square walked in four loops), also on an FBX-Biped-style rig
 * (hips' +Z up under a rotated, scaled node; a light node with a track) walking straight and
 * turning through ±180°, every joint against the reference maths. */
#include "test_support.h"
#include "job_check.h"
#include "ref_math.h"

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

/* ---- An FBX-Biped-style rig (issue 28): every joint is checked, over several loops, against
 * the original clip's world matrices computed with the reference maths (ref_math.h) and the
 * cycle's rigid motion worked by hand. ----
 * 0 RootNode (identity, or +90° about X for a Z-up model)
 * 1 Light: a node outside the character with a constant translation track (Assimp gives FBX
 *   nodes channels), its index lower than the character's
 * 2 Armature: -90° about X, uniform scale `s`, constant translation track
 * 3 Hips: identity rest, so its local +Z points up in model space; the walk (translation and
 *   rotation tracks) is written in the Armature's local frame and units from model-space
 *   positions and headings given by the test
 * 4 Leg: under the hips, swinging about its local X
 * 5 Prop: static geometry far away, no track */
#define RIG_JOINTS 6
#define RIG_KEYS 9
#define HIPS_HEIGHT 102.7f

typedef struct rig {
    ossa_skeleton *skeleton;
    ossa_clip *clip;
    float times[RIG_KEYS], hips_t[RIG_KEYS * 3], hips_r[RIG_KEYS * 4], leg_r[RIG_KEYS * 4];
    float light_t[6], arm_t[6];
} rig;

static ossa_transform rig_armature(float s) {
    ossa_transform a = ossa_transform_identity();
    a.translation = ossa_vec3_make(0.3f, 0, -0.2f);
    a.rotation = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), -HALF_PI);
    a.scale = ossa_vec3_make(s, s, s);
    return a;
}

/* The hips at key k: model position pos[k] (relative to the model origin, before RootNode)
 * and heading yaw[k] about the model's up (+Z turning toward +X); `root_up` rotates the
 * model Z-up. The local keys are A⁻¹ ∘ model (A: the Armature; the rig's RootNode is
 * identity in the Y-up rig, and the Z-up rig's RootNode is applied to the whole model). */
static void make_rig(rig *r, float s, bool z_up, const ossa_vec3 *pos, const float *yaw) {
    static const int32_t parents[RIG_JOINTS] = {-1, 0, 0, 2, 3, 0};
    static const char *const names[RIG_JOINTS] = {"RootNode", "Light", "Armature", "Hips", "Leg", "Prop"};
    ossa_transform rest[RIG_JOINTS];
    for (int i = 0; i < RIG_JOINTS; i++) rest[i] = ossa_transform_identity();
    if (z_up) rest[0].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), HALF_PI);
    rest[1].translation = ossa_vec3_make(4, 5, -1);
    rest[1].rotation = ossa_quat_from_axis_angle(ossa_vec3_normalize(ossa_vec3_make(1, 2, 3)), 1.1f);
    rest[2] = rig_armature(s);
    rest[3].translation = ossa_vec3_make(0, 0, HIPS_HEIGHT / s);
    rest[4].translation = ossa_vec3_make(10 / s, 0, -45 / s);
    rest[5].translation = ossa_vec3_make(500, 0, 500);
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = RIG_JOINTS, d.parents = parents, d.rest = rest, d.names = names;
    r->skeleton = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &r->skeleton), OSSA_OK);
    ossa_transform ainv = ossa_transform_inverse(rest[2]);
    for (int k = 0; k < RIG_KEYS; k++) {
        r->times[k] = (float)k / (RIG_KEYS - 1);
        ossa_transform model = ossa_transform_identity();
        model.translation = ossa_vec3_make(pos[k].x, pos[k].y + HIPS_HEIGHT, pos[k].z);
        model.rotation = ossa_quat_mul(ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), yaw[k]), rest[2].rotation);
        model.scale = rest[2].scale;
        ossa_transform local = ossa_transform_combine(ainv, model);
        memcpy(r->hips_t + k * 3, &local.translation, sizeof(float) * 3);
        memcpy(r->hips_r + k * 4, &local.rotation, sizeof(float) * 4);
        ossa_quat leg = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), 0.4f * sinf(6.2831853f * r->times[k]));
        memcpy(r->leg_r + k * 4, &leg, sizeof leg);
    }
    for (int k = 0; k < 2; k++) {
        memcpy(r->light_t + k * 3, &rest[1].translation, sizeof(float) * 3);
        memcpy(r->arm_t + k * 3, &rest[2].translation, sizeof(float) * 3);
    }
    static const float ends[2] = {0, 1};
    ossa_transform_track tr[4];
    memset(tr, 0, sizeof tr);
    tr[0].joint = 1, tr[0].translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 2, ends, r->light_t, {0, 0, 0, NULL}};
    tr[1].joint = 2, tr[1].translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 2, ends, r->arm_t, {0, 0, 0, NULL}};
    tr[2].joint = 3;
    tr[2].translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, RIG_KEYS, r->times, r->hips_t, {0, 0, 0, NULL}};
    tr[2].rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, RIG_KEYS, r->times, r->hips_r, {0, 0, 0, NULL}};
    tr[3].joint = 4;
    tr[3].rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, RIG_KEYS, r->times, r->leg_r, {0, 0, 0, NULL}};
    ossa_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.name = "walk", cd.looping = true, cd.track_count = 4, cd.tracks = tr;
    r->clip = NULL;
    assert_int_equal(ossa_clip_create(&cd, NULL, &r->clip), OSSA_OK);
}

static void free_rig(rig *r) {
    ossa_clip_destroy(r->clip);
    ossa_skeleton_destroy(r->skeleton);
}

/* World matrices of a pose by the reference maths: m[j] = m[parent] · TRS(local j). */
static void ref_worlds(const ossa_skeleton *sk, const ossa_transform *pose, const float *pre, float (*m)[16]) {
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        float l[16];
        ref_mat_transform(&pose[j], l);
        if (sk->parents[j] >= 0) ref_mul(m[sk->parents[j]], l, m[j]);
        else if (pre) ref_mul(pre, l, m[j]);
        else memcpy(m[j], l, sizeof l);
    }
}

/* Plays the extracted clip looping for `loops` cycles in steps of `dt`, the character moved by
 * the per-frame deltas from M(start), and checks every joint's world against the original
 * at the same clip time carried by `cycle`^n (n: completed loops; a reference-maths matrix
 * worked by the test) at every frame: within `tol` model units for translations, tol / 100
 * for the other entries. */
static void check_loops(const rig *r, const ossa_clip *stripped, const ossa_root_motion *rm, const float cycle[16],
                        int frames_per_loop, int loops, float tol) {
    const ossa_skeleton *sk = r->skeleton;
    const float dt = 1.0f / (float)frames_per_loop;
    ossa_transform character = ossa_root_motion_sample(rm, 0.0f);
    float gn[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int frame = 0; frame <= frames_per_loop * loops; frame++) {
        int n = frame / frames_per_loop, f = frame % frames_per_loop;
        if (frame && f == 0) ref_mul(cycle, gn, gn); /* one more cycle completed */
        float t = (float)f * dt;
        if (frame) {
            ossa_transform delta;
            ossa_root_motion_job job = {rm, (float)(frame - 1) * dt, dt, true, &delta};
            assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
            character = ossa_transform_combine(character, delta);
        }
        ossa_transform po[RIG_JOINTS], ps[RIG_JOINTS];
        ot_clip_sample(r->clip, t, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, po, RIG_JOINTS);
        ot_clip_sample(stripped, t, true, OSSA_LOOKUP_BINARY, NULL, sk->rest, ps, RIG_JOINTS);
        float want[RIG_JOINTS][16], got[RIG_JOINTS][16], c[16];
        ref_worlds(sk, po, gn, want);
        ref_mat_transform(&character, c);
        ref_worlds(sk, ps, c, got);
        for (int j = 0; j < RIG_JOINTS; j++) {
            for (int e = 0; e < 16; e++)
                if (fabsf(got[j][e] - want[j][e]) > tol * (e >= 12 ? 1.0f : 0.01f))
                    fail_msg("frame %d (t %g, loop %d) joint %s entry %d: %g, original %g", frame, (double)t, n,
                             sk->names[j], e, (double)got[j][e], (double)want[j][e]);
        }
    }
}

/* A straight walk that travels 139 units along model +Z per cycle (the hips sway sideways and
 * bob, the leg swings), on the Biped-style rig with the Armature scaled by 0.01 and by 100:
 * the motion joint is Hips (not Light, whose constant track comes first), the heading comes
 * from the hips' forward axis (local -Y here, not its +Z which points up), the motion
 * track's positions are the hips' ground positions, and every joint's world equals the
 * original walk continued over four loops at every frame (a walk without turning comes out
 * exact between keys too). */
static void biped_rig_walk_travels(void **state) {
    (void)state;
    const float scales[2] = {0.01f, 100.0f};
    for (int si = 0; si < 2; si++) {
        ossa_vec3 pos[RIG_KEYS];
        float yaw[RIG_KEYS];
        for (int k = 0; k < RIG_KEYS; k++) {
            float u = (float)k / (RIG_KEYS - 1), w = 6.2831853f * u;
            pos[k] = ossa_vec3_make(2.9f * sinf(w), 3.0f * cosf(2 * w), 139.0f * u);
            yaw[k] = 0;
        }
        rig r;
        make_rig(&r, scales[si], false, pos, yaw);
        ossa_clip *stripped = NULL;
        ossa_root_motion *rm = NULL;
        assert_int_equal(ossa_root_motion_extract(r.clip, r.skeleton, NULL, NULL, &stripped, &rm), OSSA_OK);
        assert_string_equal(r.skeleton->names[rm->joint], "Hips");
        assert_int_equal(rm->key_count, RIG_KEYS);
        for (uint32_t k = 0; k < rm->key_count; k++) {
            ot_assert_near(rm->yaws[k], 0, 1e-5);
            ot_assert_near(rm->positions[k].x, pos[k].x, 2e-3);
            ot_assert_near(rm->positions[k].y, 0, 0);
            ot_assert_near(rm->positions[k].z, pos[k].z, 2e-3);
        }
        /* one cycle's delta: 139 units forward, no turn */
        ossa_transform d;
        ossa_root_motion_job job = {rm, 0.0f, 1.0f, true, &d};
        assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
        ot_assert_near(d.translation.x, 0, 2e-3);
        ot_assert_near(d.translation.z, 139, 2e-3);
        ot_assert_near(fabs(d.rotation.w), 1, 1e-6);
        const float cycle[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 139, 1};
        check_loops(&r, stripped, rm, cycle, 24, 4, 2e-3f);
        ossa_root_motion_destroy(rm);
        ossa_clip_destroy(stripped);
        free_rig(&r);
    }
}

/* A walk turning left through ±180°: the hips walk an arc of radius 20 around c = (5, 0, 7)
 * with the heading going from 150° to 210° per cycle (so atan2 wraps from +180° to -180°
 * inside the first cycle), on the rig with the Armature scaled by 0.01, Y-up and Z-up (then
 * the caller says up = +Z). The motion's yaws are the headings, unwrapped (no flip); each
 * per-frame delta turns by exactly the heading's step; and every joint's world equals the
 * original carried by G^n, G = translate(c) · rotate_y(60°) · translate(-c) (the cycle's
 * rigid motion worked by hand), at every key time over four loops. */
static void turning_walk_through_180(void **state) {
    (void)state;
    const double deg = 3.14159265358979 / 180.0;
    for (int z_up = 0; z_up < 2; z_up++) {
        ossa_vec3 pos[RIG_KEYS];
        float yaw[RIG_KEYS];
        for (int k = 0; k < RIG_KEYS; k++) {
            double h = (150.0 + 60.0 * k / (RIG_KEYS - 1)) * deg;
            pos[k] = ossa_vec3_make((float)(5 - 20 * cos(h)), 0, (float)(7 + 20 * sin(h)));
            yaw[k] = (float)h;
        }
        rig r;
        make_rig(&r, 0.01f, z_up, pos, yaw);
        ossa_root_motion_options o;
        memset(&o, 0, sizeof o);
        if (z_up) o.up = ossa_vec3_make(0, 0, 1);
        ossa_clip *stripped = NULL;
        ossa_root_motion *rm = NULL;
        assert_int_equal(ossa_root_motion_extract(r.clip, r.skeleton, &o, NULL, &stripped, &rm), OSSA_OK);
        assert_string_equal(r.skeleton->names[rm->joint], "Hips");
        for (uint32_t k = 0; k < rm->key_count; k++) ot_assert_near(rm->yaws[k], yaw[k], 1e-4);
        const float step = 1.0f / (RIG_KEYS - 1);
        for (int f = 0; f < 3 * (RIG_KEYS - 1); f++) { /* every step turns by 7.5°, across the wraps */
            ossa_transform d;
            ossa_root_motion_job job = {rm, (float)f * step, step, true, &d};
            assert_int_equal(ossa_root_motion_job_run(&job), OSSA_OK);
            ossa_vec3 up = z_up ? ossa_vec3_make(0, 0, 1) : ossa_vec3_make(0, 1, 0);
            ossa_vec3 axis = ossa_vec3_make(d.rotation.x, d.rotation.y, d.rotation.z);
            ot_assert_near(2.0 * atan2(ossa_vec3_dot(axis, up), d.rotation.w), 7.5 * deg, 1e-4);
            ot_assert_near(ossa_vec3_length(d.translation), 2 * 20 * sin(3.75 * deg), 1e-3);
        }
        /* G in model space: about c, turned Z-up by RootNode's +90° about X for the Z-up rig. */
        const float c60 = (float)cos(60 * deg), s60 = (float)sin(60 * deg), cx = 5, cz = 7;
        float ry[16] = {c60, 0, -s60, 0, 0, 1, 0, 0, s60, 0, c60, 0, 0, 0, 0, 1};
        float tc[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, cx, 0, cz, 1}, tm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -cx, 0, -cz, 1};
        float g[16];
        ref_mul(tc, ry, g);
        ref_mul(g, tm, g);
        if (z_up) {
            float rx[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}, rxi[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
            ref_mul(rx, g, g);
            ref_mul(g, rxi, g);
        }
        check_loops(&r, stripped, rm, g, RIG_KEYS - 1, 4, 2e-3f);
        ossa_root_motion_destroy(rm);
        ossa_clip_destroy(stripped);
        free_rig(&r);
    }
}

/* The overrides: the forward axis given as the hips' local +X (model +X at rest, heading 90°
 * where local -Y, the automatic choice, has heading 0) adds 90° to every yaw, and the world
 * still follows the original over two loops of a walk that turns 0.4 per cycle; a non-finite
 * up or forward is refused. */
static void overrides(void **state) {
    (void)state;
    ossa_vec3 pos[RIG_KEYS];
    float yaw[RIG_KEYS];
    for (int k = 0; k < RIG_KEYS; k++) {
        pos[k] = ossa_vec3_make(0, 0, 10.0f * (float)k);
        yaw[k] = 0.05f * (float)k;
    }
    rig r;
    make_rig(&r, 1.0f, false, pos, yaw);
    ossa_root_motion_options o;
    memset(&o, 0, sizeof o);
    o.forward = ossa_vec3_make(2, 0, 0); /* any length */
    ossa_clip *stripped = NULL;
    ossa_root_motion *rm = NULL;
    assert_int_equal(ossa_root_motion_extract(r.clip, r.skeleton, &o, NULL, &stripped, &rm), OSSA_OK);
    for (uint32_t k = 0; k < rm->key_count; k++) ot_assert_near(rm->yaws[k], yaw[k] + HALF_PI, 1e-4);
    /* the cycle: 80 units along +Z and a turn of 0.4 about +Y (the hips' end from their start) */
    const float c4 = cosf(0.4f), s4 = sinf(0.4f);
    const float cycle[16] = {c4, 0, -s4, 0, 0, 1, 0, 0, s4, 0, c4, 0, 0, 0, 80, 1};
    check_loops(&r, stripped, rm, cycle, RIG_KEYS - 1, 2, 2e-3f);
    ossa_root_motion_destroy(rm);
    ossa_clip_destroy(stripped);
    o.up = ossa_vec3_make(NAN, 1, 0);
    assert_int_equal(ossa_root_motion_extract(r.clip, r.skeleton, &o, NULL, &stripped, &rm), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(stripped);
    o.up = ossa_vec3_make(0, 0, 0), o.forward = ossa_vec3_make(0, INFINITY, 0);
    assert_int_equal(ossa_root_motion_extract(r.clip, r.skeleton, &o, NULL, &stripped, &rm), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(rm);
    free_rig(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validity),
        cmocka_unit_test(straight_walk_over_loops),
        cmocka_unit_test(square_in_four_loops),
        cmocka_unit_test(property_reapply_at_keys),
        cmocka_unit_test(property_deltas_compose),
        cmocka_unit_test(ancestor_keys_are_motion_keys),
        cmocka_unit_test(biped_rig_walk_travels),
        cmocka_unit_test(turning_walk_through_180),
        cmocka_unit_test(overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
