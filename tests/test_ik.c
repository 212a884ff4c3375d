/* IK jobs (src/anim/ik.c): a hand-worked two-bone solve, then properties over random
 * chains and targets checked by geometry computed here (positions from ossa_pose_joint_to_model
 * of the corrected pose, angles from dot and cross products), limits measured without the
 * library's swing/twist split, and a validity test per job. */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265f
#define MAXJ 12

static ossa_vec3 mpos(const ossa_mat4 *m) { return ossa_vec3_make(m->m[12], m->m[13], m->m[14]); }
static ossa_vec3 sub(ossa_vec3 a, ossa_vec3 b) { return ossa_vec3_sub(a, b); }
static float len(ossa_vec3 a) { return ossa_vec3_length(a); }
static float angle_between(ossa_vec3 a, ossa_vec3 b) {
    return atan2f(len(ossa_vec3_cross(a, b)), ossa_vec3_dot(a, b));
}
static ossa_vec3 rand_dir(uint64_t *rng) {
    for (;;) {
        ossa_vec3 v = {ot_rand_float(rng, -1, 1), ot_rand_float(rng, -1, 1), ot_rand_float(rng, -1, 1)};
        float l = len(v);
        if (l > 0.1f && l <= 1.0f) return ossa_vec3_scale(v, 1.0f / l);
    }
}
/* Rotation angle of a unit quaternion, in [0, pi]. */
static float quat_angle(ossa_quat q) {
    return 2.0f * atan2f(len(ossa_vec3_make(q.x, q.y, q.z)), fabsf(q.w));
}

/* A chain skeleton: joint 0 is a randomly placed root, joints 1..n-1 each a child of the
 * previous one with a random offset and rotation. */
typedef struct rig {
    uint32_t n;
    ossa_transform locals[MAXJ];
    int32_t parents[MAXJ];
    ossa_mat4 models[MAXJ];
} rig;

/* Model matrices by the reference chain walk (independent of the jobs under test). */
static void rig_update(rig *r) {
    for (uint32_t i = 0; i < r->n; i++) r->models[i] = ossa_pose_joint_to_model(r->locals, r->parents, r->n, i);
}

static void rig_random(rig *r, uint32_t n, uint64_t *rng, float root_scale) {
    memset(r, 0, sizeof *r);
    r->n = n;
    for (uint32_t i = 0; i < n; i++) {
        r->parents[i] = (int32_t)i - 1;
        r->locals[i] = ossa_transform_identity();
        r->locals[i].rotation = ot_rand_quat(rng);
        if (i > 0) r->locals[i].translation = ossa_vec3_scale(rand_dir(rng), ot_rand_float(rng, 0.3f, 1.2f));
    }
    r->locals[0].translation = ossa_vec3_make(ot_rand_float(rng, -2, 2), ot_rand_float(rng, -2, 2), ot_rand_float(rng, -2, 2));
    r->locals[0].scale = ossa_vec3_make(root_scale, root_scale, root_scale);
    rig_update(r);
}

/* The apply job with corrections (multiplied in) or rotations (replacing); then checks the
 * recomputed model matrices against the reference chain walk. */
static void rig_apply(rig *r, const uint32_t *joints, uint32_t count, const ossa_quat *corrections,
                      const ossa_quat *rotations) {
    ossa_ik_apply_job aj = {0};
    aj.joints = joints;
    aj.joint_count = count;
    aj.corrections = corrections;
    aj.correction_count = corrections ? count : 0;
    aj.rotations = rotations;
    aj.rotation_count = rotations ? count : 0;
    aj.parents = r->parents;
    aj.parent_count = r->n;
    aj.locals = r->locals;
    aj.local_count = r->n;
    aj.models = r->models;
    aj.model_count = r->n;
    assert_int_equal(ossa_ik_apply_job_run(&aj), OSSA_OK);
    /* the apply job's partial recompute equals the reference chain walk */
    for (uint32_t i = 0; i < r->n; i++) {
        ossa_mat4 ref = ossa_pose_joint_to_model(r->locals, r->parents, r->n, i);
        ot_assert_floats_near(r->models[i].m, ref.m, 16, 1e-5f);
    }
}

static void apply_corrections(rig *r, const uint32_t *joints, const ossa_quat *c, uint32_t count) {
    rig_apply(r, joints, count, c, NULL);
}

/* A two-bone job on joints 1-2-3 of the rig, corrections into out[2]. */
static ossa_ik_two_bone_job leg_job(rig *r, ossa_vec3 target, ossa_quat out[2]) {
    ossa_ik_two_bone_job job = {0};
    job.start_joint = &r->models[1];
    job.mid_joint = &r->models[2];
    job.end_joint = &r->models[3];
    job.target = target;
    job.start_correction = &out[0];
    job.mid_correction = &out[1];
    return job;
}

static ossa_result two_bone(rig *r, ossa_vec3 target, ossa_vec3 pole, ossa_vec3 mid_axis, ossa_quat out[2],
                            bool *reached) {
    ossa_ik_two_bone_job job = leg_job(r, target, out);
    job.pole_vector = pole;
    job.mid_axis = mid_axis;
    ossa_result res = ossa_ik_two_bone_job_run(&job);
    if (reached) *reached = job.reached;
    return res;
}

static void two_bone_hand_worked(void **state) {
    (void)state;
    /* start at the origin, mid at (1,0,0), end at (2,0,0), all frames identity; target (1,1,0):
     * a right angle at the mid joint. Bending +90 degrees about z takes the end straight there. */
    rig r = {0};
    r.n = 4;
    for (int i = 0; i < 4; i++) {
        r.parents[i] = i - 1;
        r.locals[i] = ossa_transform_identity();
    }
    r.locals[2].translation = r.locals[3].translation = ossa_vec3_make(1, 0, 0);
    rig_update(&r);
    ossa_quat c[2];
    bool reached = false;
    const uint32_t joints[2] = {1, 2};
    assert_int_equal(two_bone(&r, ossa_vec3_make(1, 1, 0), ossa_vec3_make(0, 0, 0), ossa_vec3_make(0, 0, 1), c, &reached),
                     OSSA_OK);
    const float id[4] = {0, 0, 0, 1}, rz90[4] = {0, 0, 0.70710678f, 0.70710678f};
    ot_assert_floats_near(&c[0].x, id, 4, 1e-6f);
    ot_assert_floats_near(&c[1].x, rz90, 4, 1e-6f);
    assert_true(reached);
    /* A pole at -x puts the knee at (0,1,0): a half turn of the start about (1,1,0)/sqrt2. */
    assert_int_equal(two_bone(&r, ossa_vec3_make(1, 1, 0), ossa_vec3_make(-1, 0, 0), ossa_vec3_make(0, 0, 1), c, NULL),
                     OSSA_OK);
    ossa_quat s = c[0].x < 0 ? (ossa_quat){-c[0].x, -c[0].y, -c[0].z, -c[0].w} : c[0];
    const float half[4] = {0.70710678f, 0.70710678f, 0, 0};
    ot_assert_floats_near(&s.x, half, 4, 1e-6f);
    ot_assert_floats_near(&c[1].x, rz90, 4, 1e-6f);
    apply_corrections(&r, joints, c, 2);
    const float mid[3] = {0, 1, 0}, end[3] = {1, 1, 0};
    ot_assert_floats_near(&r.models[2].m[12], mid, 3, 1e-6f);
    ot_assert_floats_near(&r.models[3].m[12], end, 3, 1e-6f);
    /* Straight chain, no hinge axis given: it bends towards the pole. Target (1.2, 0, 0):
     * the knee at (0.6, +0.8, 0) (a 0.6-0.8-1 triangle), on the pole's +y side. */
    rig_update(&r);
    for (int i = 1; i < 4; i++) r.locals[i].rotation = ossa_quat_identity();
    rig_update(&r);
    assert_int_equal(two_bone(&r, ossa_vec3_make(1.2f, 0, 0), ossa_vec3_make(0, 1, 0), ossa_vec3_make(0, 0, 0), c, &reached),
                     OSSA_OK);
    apply_corrections(&r, joints, c, 2);
    const float knee[3] = {0.6f, 0.8f, 0}, foot[3] = {1.2f, 0, 0};
    ot_assert_floats_near(&r.models[2].m[12], knee, 3, 1e-5f);
    ot_assert_floats_near(&r.models[3].m[12], foot, 3, 1e-5f);
}

/* Random thigh/shin/foot chains (with a random, sometimes scaled or mirrored, hip above):
 * reachable targets are reached, bone lengths kept, the knee on the pole's side. */
static void two_bone_properties(void **state) {
    (void)state;
    const uint32_t joints[2] = {1, 2};
    int reached_count = 0, cases = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        uint64_t rng = seed * 7919;
        float scale = seed % 4 == 0 ? 2.0f : (seed % 4 == 1 ? -1.0f : 1.0f); /* -1: a mirrored hip */
        rig r;
        rig_random(&r, 4, &rng, scale);
        ossa_vec3 s = mpos(&r.models[1]), m = mpos(&r.models[2]), e = mpos(&r.models[3]);
        float l1 = len(sub(m, s)), l2 = len(sub(e, m)), chain = l1 + l2;
        float lo = fabsf(l1 - l2), hi = l1 + l2;
        bool reachable = seed % 3 != 0;
        float d = reachable ? lo + (hi - lo) * ot_rand_float(&rng, 0.05f, 0.95f) : hi * ot_rand_float(&rng, 1.05f, 2.0f);
        ossa_vec3 dir = rand_dir(&rng);
        ossa_vec3 target = ossa_vec3_add(s, ossa_vec3_scale(dir, d));
        ossa_vec3 pole = rand_dir(&rng);
        ossa_quat c[2];
        bool reached = false;
        assert_int_equal(two_bone(&r, target, pole, ossa_vec3_make(0, 0, 0), c, &reached), OSSA_OK);
        apply_corrections(&r, joints, c, 2);
        ossa_vec3 s2 = mpos(&r.models[1]), m2 = mpos(&r.models[2]), e2 = mpos(&r.models[3]);
        ot_assert_floats_near(&s2.x, &s.x, 3, 1e-6f);
        ot_assert_near(len(sub(m2, s2)), l1, 1e-5f * chain);
        ot_assert_near(len(sub(e2, m2)), l2, 1e-5f * chain);
        cases++;
        if (reachable) {
            ot_assert_near(len(sub(e2, target)), 0, 1e-4f * chain);
            assert_true(reached);
            reached_count++;
            /* pole side: the knee's offset from the start->target line points along the pole's */
            ossa_vec3 mp = sub(sub(m2, s2), ossa_vec3_scale(dir, ossa_vec3_dot(sub(m2, s2), dir)));
            ossa_vec3 pp = sub(pole, ossa_vec3_scale(dir, ossa_vec3_dot(pole, dir)));
            if (len(mp) > 1e-3f * chain && len(pp) > 1e-3f) {
                assert_true(ossa_vec3_dot(mp, pp) > 0.0f);
                assert_true(angle_between(mp, pp) < 1e-3f);
            }
        } else {
            /* straight, pointing at the target */
            assert_false(reached);
            assert_true(angle_between(sub(m2, s2), dir) < 1e-3f);
            assert_true(angle_between(sub(e2, s2), dir) < 1e-4f);
            ot_assert_near(len(sub(e2, s2)), chain, 1e-5f * chain);
        }
    }
    assert_true(reached_count > 200 && cases == 400);
}

/* Weight 0 changes nothing; weight w turns each correction by w of its angle; a hinge axis
 * given explicitly is the only axis the mid joint turns about. */
static void two_bone_weight_and_axis(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        uint64_t rng = seed * 104729;
        rig r;
        rig_random(&r, 4, &rng, 1.0f);
        ossa_vec3 target = ossa_vec3_add(mpos(&r.models[1]), ossa_vec3_scale(rand_dir(&rng), 0.5f));
        ossa_quat full[2], part[2];
        ossa_ik_two_bone_job job = leg_job(&r, target, full);
        job.pole_vector = rand_dir(&rng);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        job.has_weight = true;
        job.weight = 0.0f;
        job.start_correction = &part[0];
        job.mid_correction = &part[1];
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        const float id[4] = {0, 0, 0, 1};
        ot_assert_floats_near(&part[0].x, id, 4, 0.0f);
        ot_assert_floats_near(&part[1].x, id, 4, 0.0f);
        job.weight = 0.25f;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        for (int k = 0; k < 2; k++) {
            ot_assert_near(quat_angle(part[k]), 0.25f * quat_angle(full[k]), 1e-4f);
            if (quat_angle(full[k]) > 1e-3f) /* same axis */
                assert_true(angle_between(ossa_vec3_make(part[k].x, part[k].y, part[k].z),
                                          ossa_vec3_make(full[k].x, full[k].y, full[k].z)) < 1e-3f ||
                            quat_angle(part[k]) < 1e-4f);
        }
        /* explicit hinge: the mid correction is a rotation about it */
        ossa_vec3 axis = rand_dir(&rng);
        job.has_weight = false;
        job.mid_axis = axis;
        job.mid_correction = &full[1];
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        ossa_vec3 cv = {full[1].x, full[1].y, full[1].z};
        assert_true(len(ossa_vec3_cross(cv, axis)) < 1e-5f);
    }
}

/* twist_angle turns the solved chain about the start->target line: the knee of a twisted
 * solve is the untwisted knee rotated by that angle about the line, the foot unchanged. */
static void two_bone_twist(void **state) {
    (void)state;
    const uint32_t joints[2] = {1, 2};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t rng = seed * 4099;
        rig r;
        rig_random(&r, 4, &rng, 1.0f);
        rig a = r, b = r;
        ossa_vec3 s = mpos(&r.models[1]);
        ossa_vec3 target = ossa_vec3_add(s, ossa_vec3_scale(rand_dir(&rng), 0.6f));
        float twist = ot_rand_float(&rng, -3, 3);
        ossa_quat c[2];
        ossa_ik_two_bone_job job = leg_job(&r, target, c);
        job.pole_vector = rand_dir(&rng);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        apply_corrections(&a, joints, c, 2);
        job.twist_angle = twist;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        apply_corrections(&b, joints, c, 2);
        ossa_quat about = ossa_quat_from_axis_angle(ossa_vec3_normalize(sub(target, s)), twist);
        ossa_vec3 expect = ossa_vec3_add(s, ossa_quat_rotate(about, sub(mpos(&a.models[2]), s)));
        ossa_vec3 knee = mpos(&b.models[2]), foot_a = mpos(&a.models[3]), foot_b = mpos(&b.models[3]);
        ot_assert_floats_near(&knee.x, &expect.x, 3, 1e-5f);
        ot_assert_floats_near(&foot_b.x, &foot_a.x, 3, 1e-5f);
    }
}

/* The soft limit: the reach follows da + ds (1 - exp(-(d - da) / ds)) and never gets to
 * the full length. */
static void two_bone_soft(void **state) {
    (void)state;
    uint64_t rng = 99;
    rig r;
    rig_random(&r, 4, &rng, 1.0f);
    ossa_vec3 s = mpos(&r.models[1]);
    float l1 = len(sub(mpos(&r.models[2]), s)), l2 = len(sub(mpos(&r.models[3]), mpos(&r.models[2])));
    float chain = l1 + l2, softness = 0.2f, da = (1 - softness) * chain, ds = softness * chain;
    ossa_vec3 dir = rand_dir(&rng);
    const uint32_t joints[2] = {1, 2};
    float previous = 0.0f;
    for (float f = 0.85f; f < 1.6f; f += 0.05f) {
        rig w = r;
        float d = f * chain;
        ossa_quat c[2];
        ossa_ik_two_bone_job job = leg_job(&w, ossa_vec3_add(s, ossa_vec3_scale(dir, d)), c);
        job.softness = softness;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        assert_false(job.reached);
        apply_corrections(&w, joints, c, 2);
        float reach = len(sub(mpos(&w.models[3]), s));
        ot_assert_near(reach, da + ds * (1.0f - expf(-(d - da) / ds)), 2e-5f * chain);
        assert_true(reach < chain && reach > previous);
        previous = reach;
    }
}

/* Aim: the forward axis points at the target, up stays in the plane of forward and the
 * pole; with an offset the offset ray passes through the target. */
static void aim_properties(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t rng = seed * 31337;
        rig r;
        rig_random(&r, 3, &rng, seed % 3 == 0 ? 1.5f : (seed % 3 == 1 ? -1.0f : 1.0f)); /* scaled, mirrored */
        const ossa_mat4 *m = &r.models[2];
        ossa_vec3 pos = mpos(m);
        ossa_vec3 target = ossa_vec3_add(pos, ossa_vec3_scale(rand_dir(&rng), ot_rand_float(&rng, 1, 5)));
        ossa_vec3 fwd = rand_dir(&rng);
        ossa_vec3 up = ossa_vec3_normalize(ossa_vec3_cross(fwd, rand_dir(&rng)));
        ossa_vec3 pole = rand_dir(&rng);
        bool with_offset = seed % 2 == 0;
        ossa_vec3 offset = with_offset ? ossa_vec3_scale(rand_dir(&rng), 0.3f) : ossa_vec3_make(0, 0, 0);
        ossa_quat c;
        ossa_ik_aim_job job = {0};
        job.joint = m;
        job.target = target;
        job.forward = fwd;
        job.up = up;
        job.offset = offset;
        job.pole_vector = pole;
        job.joint_correction = &c;
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        assert_true(job.reached);
        const ossa_mat4 before = *m;
        const uint32_t joint = 2;
        apply_corrections(&r, &joint, &c, 1);
        ossa_vec3 fw = ossa_mat4_transform_vector(m, fwd), uw = ossa_mat4_transform_vector(m, up);
        if (!with_offset) {
            assert_true(angle_between(fw, sub(target, pos)) < 1e-4f);
            ossa_vec3 normal = ossa_vec3_normalize(ossa_vec3_cross(fw, pole));
            ot_assert_near(ossa_vec3_dot(ossa_vec3_normalize(uw), normal), 0, 1e-4f);
            assert_true(ossa_vec3_dot(uw, pole) > -1e-6f);
        } else {
            ossa_vec3 o = ossa_mat4_transform_point(m, offset);
            assert_true(angle_between(fw, sub(target, o)) < 1e-4f);
        }
        /* weight 0.5: half the angle about the same axis; weight 0: identity */
        ossa_quat full = c;
        job.joint = &before;
        job.has_weight = true;
        job.weight = 0.5f;
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        ot_assert_near(quat_angle(c), 0.5f * quat_angle(full), 1e-4f);
        job.weight = 0.0f;
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        const float id[4] = {0, 0, 0, 1};
        ot_assert_floats_near(&c.x, id, 4, 0.0f);
    }
    /* a target inside the offset's sphere cannot be aimed at */
    ossa_mat4 m = ossa_mat4_identity();
    ossa_quat c;
    ossa_ik_aim_job job = {0};
    job.joint = &m;
    job.target = ossa_vec3_make(0.1f, 0, 0);
    job.offset = ossa_vec3_make(0, 1, 0);
    job.joint_correction = &c;
    assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
    assert_false(job.reached);
}

/* ---- chains ---- */

static ossa_result run_chain(rig *r, ossa_ik_solver solver, ossa_vec3 target, const ossa_ik_limit *limits,
                             uint32_t iterations, ossa_quat *out, ossa_ik_chain_job *job_out) {
    uint32_t joints[MAXJ];
    for (uint32_t i = 0; i + 1 < r->n; i++) joints[i] = i + 1; /* joint 0 is the root above the chain */
    ossa_ik_chain_job job = {0};
    job.solver = solver;
    job.joints = joints;
    job.joint_count = r->n - 1;
    job.locals = r->locals;
    job.local_count = r->n;
    job.parents = r->parents;
    job.parent_count = r->n;
    job.models = r->models;
    job.model_count = r->n;
    job.limits = limits;
    job.limit_count = limits ? r->n - 1 : 0;
    job.target = target;
    job.iterations = iterations;
    job.rotations = out;
    job.rotation_count = r->n - 1;
    ossa_result res = ossa_ik_chain_job_run(&job);
    if (res == OSSA_OK) rig_apply(r, joints, r->n - 1, NULL, out);
    if (job_out) *job_out = job;
    return res;
}

static void chain_reach(void **state) {
    (void)state;
    for (int solver = OSSA_IK_SOLVER_FABRIK; solver <= OSSA_IK_SOLVER_CCD; solver++) {
        int reached = 0;
        for (uint64_t seed = 1; seed <= 120; seed++) {
            uint64_t rng = seed * 65537 + (uint64_t)solver;
            uint32_t n = 1 + (seed % 2 ? 4 : 8);
            rig r;
            rig_random(&r, n, &rng, seed % 5 == 0 ? 2.0f : (seed % 5 == 1 ? -1.0f : 1.0f)); /* scaled, mirrored */
            /* a reachable target: the effector of the same chain in another random pose */
            rig other = r;
            for (uint32_t i = 1; i < n - 1; i++) other.locals[i].rotation = ot_rand_quat(&rng);
            rig_update(&other);
            bool unreachable = seed % 4 == 0;
            float lengths[MAXJ], chain = 0;
            for (uint32_t i = 1; i + 1 < n; i++) chain += lengths[i] = len(sub(mpos(&r.models[i + 1]), mpos(&r.models[i])));
            ossa_vec3 base = mpos(&r.models[1]);
            ossa_vec3 target = unreachable ? ossa_vec3_add(base, ossa_vec3_scale(rand_dir(&rng), 1.3f * chain))
                                           : mpos(&other.models[n - 1]);
            ossa_quat out[MAXJ];
            ossa_ik_chain_job job;
            assert_int_equal(run_chain(&r, (ossa_ik_solver)solver, target, NULL, 200, out, &job), OSSA_OK);
            for (uint32_t i = 1; i + 1 < n; i++)
                ot_assert_near(len(sub(mpos(&r.models[i + 1]), mpos(&r.models[i]))), lengths[i], 1e-5f * chain);
            ot_assert_floats_near(&r.models[1].m[12], &base.x, 3, 1e-6f);
            ossa_vec3 e = mpos(&r.models[n - 1]);
            ot_assert_near(len(sub(e, target)), job.distance, 1e-5f * chain);
            if (unreachable) {
                ossa_vec3 dir = sub(target, base);
                for (uint32_t i = 2; i < n; i++) {
                    float a = angle_between(sub(mpos(&r.models[i]), base), dir);
                    if (a > 1e-3f) print_message("solver %d seed %d joint %u: %g rad off\n", solver, (int)seed, i, (double)a);
                    assert_true(a < 1e-3f);
                }
                assert_false(job.reached);
            } else if (job.reached) {
                ot_assert_near(len(sub(e, target)), 0, 1e-4f * chain);
                reached++;
            }
        }
        print_message("%s: %d of 90 reachable targets reached\n", solver == OSSA_IK_SOLVER_CCD ? "CCD" : "FABRIK", reached);
        assert_true(reached >= 85); /* CCD and FABRIK can stall in rare folded poses (none here today) */
    }
}

/* Angle of the twist of r about unit axis, measured by removing the swing with the shortest
 * arc from r(axis) back to axis and comparing a perpendicular vector. */
static float measured_twist(ossa_quat r, ossa_vec3 axis) {
    ossa_vec3 perp = ossa_vec3_normalize(ossa_vec3_cross(axis, fabsf(axis.x) < 0.9f ? ossa_vec3_make(1, 0, 0)
                                                                                     : ossa_vec3_make(0, 1, 0)));
    ossa_vec3 moved = ossa_quat_rotate(r, axis), p = ossa_quat_rotate(r, perp);
    ossa_vec3 back_axis = ossa_vec3_cross(moved, axis);
    float s = len(back_axis), c = ossa_vec3_dot(moved, axis);
    if (s > 1e-7f) p = ossa_quat_rotate(ossa_quat_from_axis_angle(ossa_vec3_scale(back_axis, 1 / s), atan2f(s, c)), p);
    return atan2f(ossa_vec3_dot(axis, ossa_vec3_cross(perp, p)), ossa_vec3_dot(perp, p));
}

static void chain_limits(void **state) {
    (void)state;
    for (int solver = OSSA_IK_SOLVER_FABRIK; solver <= OSSA_IK_SOLVER_CCD; solver++) {
        for (uint64_t seed = 1; seed <= 150; seed++) {
            uint64_t rng = seed * 2654435761u + (uint64_t)solver;
            uint32_t n = 1 + (seed % 2 ? 4 : 8);
            rig r;
            rig_random(&r, n, &rng, 1.0f);
            ossa_ik_limit limits[MAXJ];
            memset(limits, 0, sizeof limits);
            for (uint32_t k = 0; k + 1 < n - 1; k++) {
                ossa_ik_limit *l = &limits[k];
                l->type = ot_rand_u64(&rng) % 2 ? OSSA_IK_LIMIT_HINGE : OSSA_IK_LIMIT_BALL;
                l->reference = ot_rand_u64(&rng) % 2 ? r.locals[k + 1].rotation : ot_rand_quat(&rng);
                l->axis = ot_rand_u64(&rng) % 3 ? rand_dir(&rng) : ossa_vec3_make(0, 0, 0);
                l->min_angle = ot_rand_float(&rng, -1.5f, 0);
                l->max_angle = ot_rand_float(&rng, 0, 1.5f);
                l->cone_angle = ot_rand_float(&rng, 0.1f, 1.2f);
                l->limit_twist = ot_rand_u64(&rng) % 2;
                l->max_twist = ot_rand_float(&rng, 0.05f, 1.0f);
            }
            float chain = 0;
            for (uint32_t i = 1; i + 1 < n; i++) chain += len(sub(mpos(&r.models[i + 1]), mpos(&r.models[i])));
            ossa_vec3 target = ossa_vec3_add(mpos(&r.models[1]), ossa_vec3_scale(rand_dir(&rng), ot_rand_float(&rng, 0.2f, 1.2f) * chain));
            ossa_quat out[MAXJ];
            assert_int_equal(run_chain(&r, (ossa_ik_solver)solver, target, limits, 32, out, NULL), OSSA_OK);
            for (uint32_t k = 0; k + 1 < n - 1; k++) {
                const ossa_ik_limit *l = &limits[k];
                ossa_quat rel = ossa_quat_mul(ossa_quat_inverse(l->reference), out[k]);
                if (rel.w < 0) rel = (ossa_quat){-rel.x, -rel.y, -rel.z, -rel.w};
                ossa_vec3 rv = {rel.x, rel.y, rel.z};
                if (l->type == OSSA_IK_LIMIT_HINGE) {
                    ossa_vec3 axis = ossa_vec3_length(l->axis) > 0 ? l->axis : ossa_vec3_make(0, 0, 1);
                    assert_true(len(ossa_vec3_cross(rv, axis)) < 1e-5f); /* only about the axis */
                    float angle = 2.0f * atan2f(ossa_vec3_dot(rv, axis), rel.w);
                    assert_true(angle >= l->min_angle - 1e-4f && angle <= l->max_angle + 1e-4f);
                } else {
                    ossa_vec3 axis = ossa_vec3_length(l->axis) > 0 ? l->axis
                                                                   : ossa_vec3_normalize(r.locals[k + 2].translation);
                    float swing = angle_between(ossa_quat_rotate(rel, axis), axis);
                    assert_true(swing <= l->cone_angle + 1e-4f);
                    if (l->limit_twist) assert_true(fabsf(measured_twist(rel, axis)) <= l->max_twist + 1e-4f);
                }
            }
        }
    }
}

/* Limits worked by hand: clamps to the nearest allowed angle, removes what a hinge forbids. */
static void limit_hand_worked(void **state) {
    (void)state;
    const ossa_vec3 X = {1, 0, 0}, Y = {0, 1, 0}, Z = {0, 0, 1};
    ossa_ik_limit hinge = {0};
    hinge.type = OSSA_IK_LIMIT_HINGE; /* zero axis = +z */
    hinge.min_angle = -0.5f;
    hinge.max_angle = 0.5f;
    ossa_quat q = ossa_ik_limit_apply(&hinge, Y, ossa_quat_from_axis_angle(Z, 1.0f));
    ossa_quat e = ossa_quat_from_axis_angle(Z, 0.5f);
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    q = ossa_ik_limit_apply(&hinge, Y, ossa_quat_from_axis_angle(Z, -0.3f)); /* inside: kept */
    e = ossa_quat_from_axis_angle(Z, -0.3f);
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    q = ossa_ik_limit_apply(&hinge, Y, ossa_quat_from_axis_angle(X, 0.8f)); /* off-axis: removed */
    const float id[4] = {0, 0, 0, 1};
    ot_assert_floats_near(&q.x, id, 4, 1e-6f);
    /* reference: the limit is measured from it */
    hinge.reference = ossa_quat_from_axis_angle(X, 1.0f);
    q = ossa_ik_limit_apply(&hinge, Y, ossa_quat_mul(hinge.reference, ossa_quat_from_axis_angle(Z, 0.9f)));
    e = ossa_quat_mul(hinge.reference, ossa_quat_from_axis_angle(Z, 0.5f));
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);

    ossa_ik_limit ball = {0};
    ball.type = OSSA_IK_LIMIT_BALL; /* zero axis = the bone, here +y */
    ball.cone_angle = 0.3f;
    q = ossa_ik_limit_apply(&ball, Y, ossa_quat_from_axis_angle(X, 0.6f));
    e = ossa_quat_from_axis_angle(X, 0.3f);
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    q = ossa_ik_limit_apply(&ball, Y, ossa_quat_from_axis_angle(Y, 1.0f)); /* pure twist, free */
    e = ossa_quat_from_axis_angle(Y, 1.0f);
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    ball.limit_twist = true;
    ball.max_twist = 0.4f;
    q = ossa_ik_limit_apply(&ball, Y, ossa_quat_from_axis_angle(Y, -1.0f));
    e = ossa_quat_from_axis_angle(Y, -0.4f);
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    /* swing then twist: 0.6 about z after 1.0 about y -> 0.3 about z after 0.4 about y */
    q = ossa_ik_limit_apply(&ball, Y, ossa_quat_mul(ossa_quat_from_axis_angle(Z, 0.6f), ossa_quat_from_axis_angle(Y, 1.0f)));
    e = ossa_quat_mul(ossa_quat_from_axis_angle(Z, 0.3f), ossa_quat_from_axis_angle(Y, 0.4f));
    ot_assert_floats_near(&q.x, &e.x, 4, 1e-6f);
    /* NONE and NULL leave q as it is */
    ossa_ik_limit none = {0};
    ossa_quat any = ossa_quat_from_axis_angle(ossa_vec3_normalize(ossa_vec3_make(1, 2, 3)), 2.5f);
    q = ossa_ik_limit_apply(&none, Y, any);
    ot_assert_floats_near(&q.x, &any.x, 4, 0.0f);
    q = ossa_ik_limit_apply(NULL, Y, any);
    ot_assert_floats_near(&q.x, &any.x, 4, 0.0f);
}

static void chain_weight_zero(void **state) {
    (void)state;
    uint64_t rng = 5;
    rig r;
    rig_random(&r, 6, &rng, 1.0f);
    rig before = r;
    uint32_t joints[5] = {1, 2, 3, 4, 5};
    ossa_quat out[5];
    ossa_ik_chain_job job = {0};
    job.joints = joints;
    job.joint_count = 5;
    job.locals = r.locals;
    job.local_count = 6;
    job.parents = r.parents;
    job.parent_count = 6;
    job.models = r.models;
    job.model_count = 6;
    job.target = ossa_vec3_make(0.5f, 0.5f, 0.5f);
    job.has_weight = true;
    job.rotations = out;
    job.rotation_count = 5;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_OK);
    for (int i = 0; i < 5; i++) ot_assert_floats_near(&out[i].x, &before.locals[i + 1].rotation.x, 4, 0.0f);
    /* weight w: each rotation is the slerp from the input rotation to the full solution */
    ossa_quat full[5], part[5];
    job.has_weight = false;
    job.rotations = full;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_OK);
    job.has_weight = true;
    job.weight = 0.3f;
    job.rotations = part;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_OK);
    for (int i = 0; i < 5; i++) {
        ossa_quat expect = ossa_quat_slerp(before.locals[i + 1].rotation, full[i], 0.3f);
        if (ossa_quat_dot(expect, part[i]) < 0) expect = (ossa_quat){-expect.x, -expect.y, -expect.z, -expect.w};
        ot_assert_floats_near(&part[i].x, &expect.x, 4, 1e-5f);
    }
}

/* ---- the IK pass as the player's pose hook ---- */

typedef struct leg_pass {
    ossa_vec3 target;
    int calls;
    bool reached;
} leg_pass;

static bool leg_hook(void *user, const ossa_skeleton *sk, ossa_transform *locals, ossa_mat4 *model) {
    leg_pass *p = user;
    const uint32_t chain[2] = {1, 2};
    ossa_quat c[2];
    ossa_ik_two_bone_job job = {0};
    job.start_joint = &model[1];
    job.mid_joint = &model[2];
    job.end_joint = &model[3];
    job.target = p->target;
    job.pole_vector = ossa_vec3_make(0, 0, 1);
    job.start_correction = &c[0];
    job.mid_correction = &c[1];
    ossa_ik_apply_job aj = {.joints = chain, .joint_count = 2, .corrections = c, .correction_count = 2,
                            .parents = sk->parents, .parent_count = sk->joint_count, .locals = locals,
                            .local_count = sk->joint_count, .models = model, .model_count = sk->joint_count};
    if (ossa_ik_two_bone_job_run(&job) != OSSA_OK || ossa_ik_apply_job_run(&aj) != OSSA_OK) return false;
    p->calls++;
    p->reached = job.reached;
    return false; /* model updated by the apply job */
}

/* A swinging leg played by ossa_player with the IK pass as its pose hook: after each update
 * the foot is on the target in the player's model matrices, with the leg's bone lengths. */
static void player_pose_hook(void **state) {
    (void)state;
    int32_t parents[4] = {-1, 0, 1, 2};
    ossa_transform rest[4];
    for (int i = 0; i < 4; i++) rest[i] = ossa_transform_identity();
    rest[0].translation = ossa_vec3_make(0, 0.9f, 0);
    rest[1].translation = ossa_vec3_make(0.1f, 0, 0);
    rest[2].translation = rest[3].translation = ossa_vec3_make(0, -0.42f, 0);
    ossa_skeleton_desc sd = {0};
    sd.joint_count = 4;
    sd.parents = parents;
    sd.rest = rest;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    static const float times[3] = {0, 0.5f, 1};
    static const float swing[12] = {0, 0, 0, 1, 0.25881905f, 0, 0, 0.96592583f, 0, 0, 0, 1}; /* thigh, 30 deg about x */
    ossa_transform_track track = {0};
    track.joint = 1;
    track.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 3, times, swing, {0, 0, 0, NULL}};
    ossa_clip_desc cd = {0};
    cd.name = "swing";
    cd.looping = true;
    cd.track_count = 1;
    cd.tracks = &track;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&cd, NULL, &clip), OSSA_OK);
    ossa_player *player = NULL;
    assert_int_equal(ossa_player_create(sk, NULL, &player), OSSA_OK);
    leg_pass pass = {ossa_vec3_make(0.15f, 0.25f, 0.2f), 0, false};
    ossa_player_set_pose_hook(player, leg_hook, &pass);
    assert_int_equal(ossa_player_play(player, ossa_source_editable(clip), 1.0f, true), OSSA_OK);
    ossa_mat4 model[4];
    for (int step = 0; step < 8; step++) {
        ossa_player_update(player, 0.13f);
        assert_int_equal(ossa_player_model(player, model, 4), OSSA_OK);
        ossa_vec3 foot = mpos(&model[3]);
        ot_assert_floats_near(&foot.x, &pass.target.x, 3, 1e-5f);
        ot_assert_near(len(sub(mpos(&model[2]), mpos(&model[1]))), 0.42f, 1e-5f);
        ot_assert_near(len(sub(mpos(&model[3]), mpos(&model[2]))), 0.42f, 1e-5f);
        assert_true(pass.reached);
    }
    assert_true(pass.calls >= 8);
    ossa_player_destroy(player);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* ---- validity: the zero job fails, then passes as each field is set; short spans fail ---- */

static void validity_two_bone_aim(void **state) {
    (void)state;
    ossa_mat4 m[3] = {ossa_mat4_identity(), ossa_mat4_identity(), ossa_mat4_identity()};
    ossa_quat c[2];
    ossa_ik_two_bone_job job = {0};
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "start_joint");
    ot_assert_job(ossa_ik_two_bone_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    job.start_joint = &m[0];
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "mid_joint");
    job.mid_joint = &m[1];
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "end_joint");
    job.end_joint = &m[2];
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "start_correction");
    job.start_correction = &c[0];
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "mid_correction");
    job.mid_correction = &c[1];
    ot_assert_job_ok(ossa_ik_two_bone_job_validate, &job);
    assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK); /* degenerate chain: runs, no NaN */
    assert_true(isfinite(c[0].w) && isfinite(c[1].w));
    job.softness = 1.0f;
    assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.softness = 0.5f;
    job.twist_angle = NAN;
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "twist_angle");
    job.twist_angle = 0.5f;
    job.has_weight = true;
    job.weight = 1.5f;
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "weight");
    job.weight = 0.5f;
    job.target.x = NAN;
    ot_assert_job(ossa_ik_two_bone_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "target");

    ossa_ik_aim_job aim = {0};
    ot_assert_job(ossa_ik_aim_job_validate, &aim, OSSA_ERROR_INVALID_ARGUMENT, "joint");
    aim.joint = &m[0];
    ot_assert_job(ossa_ik_aim_job_validate, &aim, OSSA_ERROR_INVALID_ARGUMENT, "joint_correction");
    aim.joint_correction = &c[0];
    ot_assert_job_ok(ossa_ik_aim_job_validate, &aim);
    assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_OK); /* target at the joint: identity */
    const float id[4] = {0, 0, 0, 1};
    ot_assert_floats_near(&c[0].x, id, 4, 0.0f);
    aim.twist_angle = INFINITY;
    assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_ERROR_INVALID_ARGUMENT);
    aim.twist_angle = 0;
    aim.has_weight = true;
    aim.weight = -0.1f;
    ot_assert_job(ossa_ik_aim_job_validate, &aim, OSSA_ERROR_INVALID_ARGUMENT, "weight");
}

static void validity_chain_apply(void **state) {
    (void)state;
    uint64_t rng = 3;
    rig r;
    rig_random(&r, 4, &rng, 1.0f);
    uint32_t joints[3] = {1, 2, 3};
    ossa_quat out[3];
    ossa_ik_limit limits[3];
    memset(limits, 0, sizeof limits);
    ossa_ik_chain_job job = {0};
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "joints");
    job.joints = joints;
    job.joint_count = 3;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "locals");
    job.locals = r.locals;
    job.local_count = 4;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "parents");
    job.parents = r.parents;
    job.parent_count = 4;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "models");
    job.models = r.models;
    job.model_count = 4;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "rotations");
    job.rotations = out;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "rotation_count");
    job.rotation_count = 2;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "rotation_count");
    job.rotation_count = 3;
    ot_assert_job_ok(ossa_ik_chain_job_validate, &job);
    job.limits = limits;
    job.limit_count = 2;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "limit_count");
    job.limit_count = 3;
    ot_assert_job_ok(ossa_ik_chain_job_validate, &job);
    limits[1].type = OSSA_IK_LIMIT_HINGE;
    limits[1].min_angle = 1.0f; /* min > max */
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "limits[1]");
    limits[1].type = OSSA_IK_LIMIT_BALL;
    limits[1].cone_angle = -0.1f;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "limits[1]");
    limits[1].type = (ossa_ik_limit_type)7;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "limits[1]");
    memset(limits, 0, sizeof limits);
    job.model_count = 3;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "model_count");
    job.model_count = 4;
    job.parent_count = 3;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "parent_count");
    job.parent_count = 4;
    uint32_t broken[3] = {1, 3, 2}; /* 3's parent is not 1 */
    job.joints = broken;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "joints[1]");
    uint32_t outside[3] = {1, 2, 4};
    job.joints = outside;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "joints[2]");
    job.joints = joints;
    job.joint_count = 1;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "joint_count");
    job.joint_count = OSSA_IK_CHAIN_MAX + 1;
    ot_assert_job(ossa_ik_chain_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "joint_count");
    job.joint_count = 3;
    job.solver = OSSA_IK_SOLVER_COUNT;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.solver = OSSA_IK_SOLVER_CCD;
    job.tolerance = -1.0f;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.tolerance = 0;
    assert_int_equal(ossa_ik_chain_job_run(&job), OSSA_OK);

    ossa_quat corr[2] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
    ossa_ik_apply_job aj = {0};
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "joints");
    aj.joints = joints;
    aj.joint_count = 2;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "corrections");
    aj.corrections = corr;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "parents");
    aj.parents = r.parents;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "locals");
    aj.locals = r.locals;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "models");
    aj.models = r.models;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_BUFFER_TOO_SMALL, "correction_count");
    aj.correction_count = 2;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "joints[0]"); /* outside the pose */
    aj.local_count = 4;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_BUFFER_TOO_SMALL, "parent_count");
    aj.parent_count = 4;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_BUFFER_TOO_SMALL, "model_count");
    aj.model_count = 4;
    ot_assert_job_ok(ossa_ik_apply_job_validate, &aj);
    aj.rotations = corr;
    aj.rotation_count = 2;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "corrections"); /* both given */
    aj.corrections = NULL;
    assert_int_equal(ossa_ik_apply_job_run(&aj), OSSA_OK);
    ot_assert_floats_near(&r.locals[1].rotation.x, &corr[0].x, 4, 0.0f);
    int32_t child_first[4] = {-1, 2, 0, 1};
    aj.parents = child_first;
    ot_assert_job(ossa_ik_apply_job_validate, &aj, OSSA_ERROR_INVALID_ARGUMENT, "parents");
}

static void ray_triangle(void **state) {
    (void)state;
    ossa_vec3 a = {0, 0, 0}, b = {2, 0, 0}, c = {0, 0, 2};
    float t = -1;
    /* straight down onto y = 0 from (0.5, 3, 0.5): t = 3 for a unit direction, 1.5 for length 2 */
    assert_true(ossa_ray_intersect_triangle(ossa_vec3_make(0.5f, 3, 0.5f), ossa_vec3_make(0, -1, 0), a, b, c, &t));
    ot_assert_near(t, 3.0f, 1e-6f);
    assert_true(ossa_ray_intersect_triangle(ossa_vec3_make(0.5f, 3, 0.5f), ossa_vec3_make(0, -2, 0), a, b, c, &t));
    ot_assert_near(t, 1.5f, 1e-6f);
    /* from below (back side), outside the edge, pointing away, parallel */
    assert_true(ossa_ray_intersect_triangle(ossa_vec3_make(0.5f, -1, 0.5f), ossa_vec3_make(0, 1, 0), a, b, c, &t));
    ot_assert_near(t, 1.0f, 1e-6f);
    assert_false(ossa_ray_intersect_triangle(ossa_vec3_make(1.5f, 3, 1.5f), ossa_vec3_make(0, -1, 0), a, b, c, &t));
    assert_false(ossa_ray_intersect_triangle(ossa_vec3_make(0.5f, 3, 0.5f), ossa_vec3_make(0, 1, 0), a, b, c, &t));
    assert_false(ossa_ray_intersect_triangle(ossa_vec3_make(0.5f, 3, 0.5f), ossa_vec3_make(1, 0, 0), a, b, c, &t));
    /* a slanted triangle: plane x + y = 1 hit from (0.25, 5, 0.25) downwards at y = 0.75 */
    ossa_vec3 p = {1, 0, -1}, q = {0, 1, -1}, s = {0, 1, 3};
    assert_true(ossa_ray_intersect_triangle(ossa_vec3_make(0.25f, 5, 0.25f), ossa_vec3_make(0, -1, 0), p, q, s, &t));
    ot_assert_near(t, 4.25f, 1e-5f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_bone_hand_worked),  cmocka_unit_test(two_bone_properties),
        cmocka_unit_test(two_bone_weight_and_axis), cmocka_unit_test(two_bone_soft),
        cmocka_unit_test(two_bone_twist),
        cmocka_unit_test(aim_properties),        cmocka_unit_test(chain_reach),
        cmocka_unit_test(chain_limits),          cmocka_unit_test(chain_weight_zero),
        cmocka_unit_test(limit_hand_worked),     cmocka_unit_test(player_pose_hook),
        cmocka_unit_test(validity_two_bone_aim), cmocka_unit_test(validity_chain_apply),
        cmocka_unit_test(ray_triangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
