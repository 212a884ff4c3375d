/* Inertialization jobs (src/anim/inertialize.c): continuity at the transition, rest at the
 * end, the no-overshoot bound, the short arc, hand-worked 1-D quintics whose coefficients the
 * test solves itself from the boundary conditions, and the validity of both jobs. Offsets and
 * velocities are measured in double from the jobs' outputs (finite differences), never read
 * back from the state except where the state's fields are the subject. */
#include "test_support.h"
#include "job_check.h"
#include "clip_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXJ 48
#define DUR 1.0f

/* ---- double-precision rotation vectors (independent of the library) ---- */

typedef struct dq4 { double x, y, z, w; } dq4;

static dq4 dq_of(ossa_quat q) { return (dq4){q.x, q.y, q.z, q.w}; }
static dq4 dq_mul(dq4 a, dq4 b) {
    return (dq4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static dq4 dq_conj(dq4 q) { return (dq4){-q.x, -q.y, -q.z, q.w}; }
/* Rotation vector of q; short arc unless keep_sign (then q's own hemisphere). */
static void dq_log(dq4 q, bool keep_sign, double r[3]) {
    if (!keep_sign && q.w < 0) q = (dq4){-q.x, -q.y, -q.z, -q.w};
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    double k = s > 1e-300 ? 2.0 * atan2(s, q.w) / s : 2.0;
    r[0] = k * q.x, r[1] = k * q.y, r[2] = k * q.z;
}
static ossa_quat q_exp(const double r[3]) {
    double a = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double k = a > 1e-300 ? sin(0.5 * a) / a : 0.5;
    return (ossa_quat){(float)(k * r[0]), (float)(k * r[1]), (float)(k * r[2]), (float)cos(0.5 * a)};
}
/* Rotation vector taking b to a on the short arc: log(a * conj(b)). */
static void rot_between(ossa_quat a, ossa_quat b, double r[3]) { dq_log(dq_mul(dq_of(a), dq_conj(dq_of(b))), false, r); }
static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The 9 offset channels of `a` against `b` (translation, rotation vector, scale), in double. */
static void channels(const ossa_transform *a, const ossa_transform *b, double x[9]) {
    x[0] = (double)a->translation.x - b->translation.x;
    x[1] = (double)a->translation.y - b->translation.y;
    x[2] = (double)a->translation.z - b->translation.z;
    rot_between(a->rotation, b->rotation, &x[3]);
    x[6] = (double)a->scale.x - b->scale.x;
    x[7] = (double)a->scale.y - b->scale.y;
    x[8] = (double)a->scale.z - b->scale.z;
}

/* ---- scenes: an old pose moving with constant velocities, a still new pose ---- */

typedef struct scene {
    uint32_t n;
    float dt;
    ossa_transform before[MAXJ], previous[MAXJ], target[MAXJ];
    double vel[MAXJ][9]; /* the old pose's velocity: translation, angular (left), scale */
    ossa_inertialize_joint state[MAXJ];
} scene;

static ossa_transform rand_transform(uint64_t *s) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(s, -1, 1), ot_rand_float(s, -1, 1), ot_rand_float(s, -1, 1));
    t.rotation = ot_rand_quat(s);
    t.scale = ossa_vec3_make(ot_rand_float(s, 0.5f, 1.5f), ot_rand_float(s, 0.5f, 1.5f), ot_rand_float(s, 0.5f, 1.5f));
    return t;
}

/* Joint j's old motion: toward the target (v = -k x0 per vector, so no channel is clamped)
 * when `toward`, else random. previous = old(0), before = old(-dt). */
static void make_joint(scene *sc, uint32_t j, uint64_t *s, bool toward) {
    ossa_transform *p = &sc->previous[j], *tg = &sc->target[j];
    *p = rand_transform(s), *tg = rand_transform(s);
    double x[9], *v = sc->vel[j];
    channels(p, tg, x);
    double k = ot_rand_float(s, 0.2f, 2.0f);
    for (int c = 0; c < 9; c++) v[c] = toward ? -k * x[c] : ot_rand_float(s, -2.0f, 2.0f);
    double r[3] = {-v[3] * sc->dt, -v[4] * sc->dt, -v[5] * sc->dt};
    ossa_transform *b = &sc->before[j];
    b->translation = ossa_vec3_make((float)(p->translation.x - v[0] * sc->dt), (float)(p->translation.y - v[1] * sc->dt),
                                    (float)(p->translation.z - v[2] * sc->dt));
    b->rotation = ossa_quat_mul(q_exp(r), p->rotation);
    b->scale = ossa_vec3_make((float)(p->scale.x - v[6] * sc->dt), (float)(p->scale.y - v[7] * sc->dt),
                              (float)(p->scale.z - v[8] * sc->dt));
}

static void record(scene *sc) {
    ossa_inertialize_record_job job = {sc->previous, sc->n, sc->before, sc->n, sc->target, sc->n, DUR, sc->dt,
                                       sc->state, sc->n};
    assert_int_equal(ossa_inertialize_record_job_run(&job), OSSA_OK);
}

static void apply(const scene *sc, float t, ossa_transform *out) {
    ossa_inertialize_apply_job job = {sc->state, sc->n, sc->target, sc->n, t, out, sc->n};
    assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
}

/* True when the test's own offsets and finite-difference velocities say Bollo's rules leave
 * joint j's velocities alone: every channel moves toward zero (no clamp) and slowly enough
 * that the duration is not shortened (5 |x0| >= T |v|), so the curve is smooth at the scale
 * of the finite differences. */
static bool unclamped(const scene *sc, uint32_t j) {
    double x[9], xb[9];
    channels(&sc->previous[j], &sc->target[j], x);
    channels(&sc->before[j], &sc->target[j], xb);
    for (int c = 0; c < 9; c++) {
        double v = (x[c] - xb[c]) / sc->dt;
        if (!(x[c] * v < 0.0) || 5.0 * fabs(x[c]) < DUR * fabs(v)) return false;
    }
    return true;
}

static void assert_same_transform(const ossa_transform *a, const ossa_transform *b, double tol) {
    double x[9];
    channels(a, b, x);
    for (int c = 0; c < 9; c++) ot_assert_near(x[c], 0.0, tol);
}

/* ---- continuity ---- */

static void transition_frame_is_the_old_pose_with_its_velocity(void **state) {
    (void)state;
    uint64_t s = 27;
    static scene sc;
    sc.n = MAXJ, sc.dt = 1e-3f;
    for (uint32_t j = 0; j < sc.n; j++) make_joint(&sc, j, &s, j % 2 == 0);
    record(&sc);
    const float h = 2e-3f;
    ossa_transform f0[MAXJ], f1[MAXJ], f2[MAXJ];
    apply(&sc, 0.0f, f0), apply(&sc, h, f1), apply(&sc, 2 * h, f2);
    uint32_t checked = 0;
    for (uint32_t j = 0; j < sc.n; j++) {
        assert_same_transform(&f0[j], &sc.previous[j], 1e-5);
        if (!unclamped(&sc, j)) continue;
        checked++;
        double x1[9], x2[9]; /* offsets of f1, f2 from f0: one-sided second-order derivative */
        channels(&f1[j], &f0[j], x1);
        channels(&f2[j], &f0[j], x2);
        for (int c = 0; c < 9; c++) {
            double fd = (4.0 * x1[c] - x2[c]) / (2.0 * h);
            ot_assert_near(fd, sc.vel[j][c], 1e-2 * (1.0 + fabs(sc.vel[j][c])));
        }
    }
    assert_true(checked >= sc.n / 2); /* every "toward" joint at least */
}

/* A realistic frame step (1/60 s): with the old joints moving straight toward the target
 * (rotation about the offset's own axis), every channel's velocity is carried over exactly. */
static void velocity_at_sixty_hz(void **state) {
    (void)state;
    uint64_t s = 5;
    static scene sc;
    sc.n = 16, sc.dt = 1.0f / 60.0f;
    for (uint32_t j = 0; j < sc.n; j++) make_joint(&sc, j, &s, true);
    record(&sc);
    const float h = 1e-3f;
    ossa_transform f0[MAXJ], f1[MAXJ], f2[MAXJ];
    apply(&sc, 0.0f, f0), apply(&sc, h, f1), apply(&sc, 2 * h, f2);
    for (uint32_t j = 0; j < sc.n; j++) {
        double x1[9], x2[9];
        channels(&f1[j], &f0[j], x1);
        channels(&f2[j], &f0[j], x2);
        for (int c = 0; c < 9; c++) { /* rotation too: the motion is about the offset's own axis */
            double fd = (4.0 * x1[c] - x2[c]) / (2.0 * h);
            ot_assert_near(fd, sc.vel[j][c], 1e-2 * (1.0 + fabs(sc.vel[j][c])));
        }
    }
}

static void end_of_transition_is_the_new_pose_at_rest(void **state) {
    (void)state;
    uint64_t s = 99;
    static scene sc;
    sc.n = MAXJ, sc.dt = 1.0f / 30.0f;
    for (uint32_t j = 0; j < sc.n; j++) make_joint(&sc, j, &s, j % 3 != 0);
    record(&sc);
    const float h = 1e-3f;
    ossa_transform fT[MAXJ], fb[MAXJ], late[MAXJ];
    apply(&sc, DUR, fT), apply(&sc, DUR - h, fb), apply(&sc, 7.5f, late);
    assert_memory_equal(fT, sc.target, sizeof(ossa_transform) * sc.n);
    assert_memory_equal(late, sc.target, sizeof(ossa_transform) * sc.n);
    for (uint32_t j = 0; j < sc.n; j++) {
        double x[9];
        channels(&fT[j], &fb[j], x);
        for (int c = 0; c < 9; c++) ot_assert_near(x[c] / h, 0.0, 2e-3);
    }
}

/* ---- the bound ---- */

static void offset_never_exceeds_its_start(void **state) {
    (void)state;
    uint64_t s = 2018;
    static scene sc;
    sc.n = MAXJ, sc.dt = 1.0f / 60.0f;
    for (int round = 0; round < 4; round++) {
        for (uint32_t j = 0; j < sc.n; j++) make_joint(&sc, j, &s, round == 0);
        record(&sc);
        double x0[MAXJ][9];
        for (uint32_t j = 0; j < sc.n; j++) channels(&sc.previous[j], &sc.target[j], x0[j]);
        ossa_transform out[MAXJ];
        for (int k = 0; k <= 1000; k++) {
            apply(&sc, DUR * (float)k / 1000.0f, out);
            for (uint32_t j = 0; j < sc.n; j++) {
                double x[9];
                channels(&out[j], &sc.target[j], x);
                for (int v = 0; v < 9; v += 3) {
                    if (len3(&x[v]) > len3(&x0[j][v]) + 2e-6)
                        print_message("round %d k %d joint %u vec %d: %.9g > %.9g\n", round, k, j, v, len3(&x[v]), len3(&x0[j][v]));
                    assert_true(len3(&x[v]) <= len3(&x0[j][v]) + 2e-6);
                }
                for (int c = 0; c < 9; c++) { /* per channel: between 0 and x0 */
                    assert_true(fabs(x[c]) <= fabs(x0[j][c]) + 2e-6);
                    assert_true(x[c] * x0[j][c] >= -2e-6);
                }
            }
        }
    }
}

/* ---- the short arc ---- */

static void rotation_takes_the_short_arc(void **state) {
    (void)state;
    const double pi = 3.14159265358979323846;
    ossa_transform prev = ossa_transform_identity(), target = ossa_transform_identity(), out;
    double a = 200.0 * pi / 180.0; /* stored with w < 0: the short way is 160 degrees back */
    prev.rotation = (ossa_quat){0, 0, (float)sin(a / 2), (float)cos(a / 2)};
    ossa_inertialize_joint st;
    ossa_inertialize_record_job rec = {&prev, 1, NULL, 0, &target, 1, DUR, 0.0f, &st, 1};
    assert_int_equal(ossa_inertialize_record_job_run(&rec), OSSA_OK);
    ossa_inertialize_apply_job job = {&st, 1, &target, 1, 0.0f, &out, 1};
    double last = 1e9;
    for (int k = 0; k <= 200; k++) {
        job.time = DUR * (float)k / 200.0f;
        assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
        double r[3];
        rot_between(out.rotation, target.rotation, r);
        ot_assert_near(r[0], 0.0, 1e-6);
        ot_assert_near(r[1], 0.0, 1e-6);
        assert_true(r[2] <= 1e-6); /* the other way round: -z */
        assert_true(len3(r) <= 160.0 * pi / 180.0 + 1e-5);
        assert_true(len3(r) <= last + 1e-6); /* monotone back to the target (v0 = 0) */
        last = len3(r);
        if (k == 0) ot_assert_near(r[2], -160.0 * pi / 180.0, 1e-5);
    }
    /* The old rotation given as -q of a nearby one: a small offset, not a near-full turn. */
    target.rotation = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), 0.3f);
    ossa_quat q = ossa_quat_mul(ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), 0.1f), target.rotation);
    prev.rotation = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
    assert_int_equal(ossa_inertialize_record_job_run(&rec), OSSA_OK);
    for (int k = 0; k <= 50; k++) {
        job.time = DUR * (float)k / 50.0f;
        assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
        double r[3];
        rot_between(out.rotation, target.rotation, r);
        assert_true(len3(r) <= 0.1 + 1e-5);
    }
}

/* ---- hand-worked 1-D quintics ---- */

/* Solves the 3x3 system M c = b (Gaussian elimination, partial pivoting). */
static void solve3(double m[3][3], double b[3], double c[3]) {
    for (int i = 0; i < 3; i++) {
        int p = i;
        for (int r = i + 1; r < 3; r++)
            if (fabs(m[r][i]) > fabs(m[p][i])) p = r;
        for (int k = 0; k < 3; k++) {
            double t = m[i][k];
            m[i][k] = m[p][k], m[p][k] = t;
        }
        double t = b[i];
        b[i] = b[p], b[p] = t;
        for (int r = i + 1; r < 3; r++) {
            double f = m[r][i] / m[i][i];
            for (int k = i; k < 3; k++) m[r][k] -= f * m[i][k];
            b[r] -= f * b[i];
        }
    }
    for (int i = 2; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < 3; k++) s -= m[i][k] * c[k];
        c[i] = s / m[i][i];
    }
}

/* A, B, C of x(t) = A t^5 + B t^4 + C t^3 + a0/2 t^2 + v0 t + x0 from x(T) = x'(T) = x''(T) = 0. */
static void quintic(double x0, double v0, double a0, double T, double abc[3]) {
    double m[3][3] = {{pow(T, 5), pow(T, 4), pow(T, 3)},
                      {5 * pow(T, 4), 4 * pow(T, 3), 3 * T * T},
                      {20 * pow(T, 3), 12 * T * T, 6 * T}};
    double b[3] = {-(x0 + v0 * T + 0.5 * a0 * T * T), -(v0 + a0 * T), -a0};
    solve3(m, b, abc);
}

/* One joint moving along x only: before.x -> previous.x in dt, target.x = 0, duration 1 s.
 * Expected (v0, a0, T') come from the documented clamps; the curve from the solved system. */
static void check_1d(float prev_x, float before_x, float dt, double v0, double a0, double T, const double *hand) {
    ossa_transform prev = ossa_transform_identity(), before = prev, target = prev, out;
    prev.translation.x = prev_x, before.translation.x = before_x;
    ossa_inertialize_joint st;
    ossa_inertialize_record_job rec = {&prev, 1, &before, 1, &target, 1, 1.0f, dt, &st, 1};
    assert_int_equal(ossa_inertialize_record_job_run(&rec), OSSA_OK);
    ot_assert_near(st.offset[0], prev_x, 1e-6);
    ot_assert_near(st.velocity[0], v0, 1e-4);
    ot_assert_near(st.acceleration[0], a0, 1e-3);
    ot_assert_near(st.duration[0], T, 1e-6);
    for (int c = 1; c < 9; c++) assert_true(st.offset[c] == 0.0f && st.duration[c] == 0.0f);
    double abc[3];
    quintic(prev_x, v0, a0, T, abc);
    if (hand)
        for (int i = 0; i < 3; i++) ot_assert_near(abc[i], hand[i], 1e-9);
    ossa_inertialize_apply_job job = {&st, 1, &target, 1, 0.0f, &out, 1};
    for (int k = 0; k <= 64; k++) {
        double t = 1.25 * k / 64.0;
        job.time = (float)t;
        assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
        double want = t < T ? ((((abc[0] * t + abc[1]) * t + abc[2]) * t + 0.5 * a0) * t + v0) * t + prev_x : 0.0;
        ot_assert_near(out.translation.x, want, 1e-5);
        assert_true(out.translation.y == 0.0f && out.translation.z == 0.0f);
        assert_true(out.rotation.w == 1.0f && out.scale.x == 1.0f);
    }
}

static void hand_worked_one_dimension(void **state) {
    (void)state;
    /* x0 = 1, v0 = -3 (before 1.375, dt 0.125), T = 1: -5 x0 / v0 = 5/3 > 1, no shortening;
     * a0 = (-8 (-3) 1 - 20) / 1 = 4; by hand A = 1, B = -3, C = 2:
     * x(t) = t^5 - 3t^4 + 2t^3 + 2t^2 - 3t + 1 (x(1) = 0, x'(1) = 0, x''(1) = 0). */
    const double hand[3] = {1, -3, 2};
    check_1d(1.0f, 1.375f, 0.125f, -3.0, 4.0, 1.0, hand);
    check_1d(-1.0f, -1.375f, 0.125f, 3.0, -4.0, 1.0, NULL); /* mirrored: the sign is handled */
    /* Fast approach v0 = -10: T' = -5 x0 / v0 = 0.5, a0 = (-8 (-10) 0.5 - 20) / 0.25 = 80. */
    check_1d(1.0f, 2.25f, 0.125f, -10.0, 80.0, 0.5, NULL);
    /* Moving away (v = +2): v0 clamped to 0; a0 = -20 < 0 clamped to 0: 1 - 10t^3 + 15t^4 - 6t^5. */
    const double away[3] = {-6, 15, -10};
    check_1d(1.0f, 0.75f, 0.125f, 0.0, 0.0, 1.0, away);
    /* Slow approach v = -1: a0 = (8 - 20) / 1 < 0, clamped to 0. */
    check_1d(1.0f, 1.125f, 0.125f, -1.0, 0.0, 1.0, NULL);
}

/* Without `before` the velocity is zero; apply works in place (output = target). */
static void no_history_and_in_place(void **state) {
    (void)state;
    uint64_t s = 3;
    static scene sc;
    sc.n = 8, sc.dt = 0.0f;
    for (uint32_t j = 0; j < sc.n; j++) make_joint(&sc, j, &s, false);
    ossa_inertialize_record_job rec = {sc.previous, sc.n, NULL, 0, sc.target, sc.n, DUR, 0.0f, sc.state, sc.n};
    assert_int_equal(ossa_inertialize_record_job_run(&rec), OSSA_OK);
    ossa_transform ref[MAXJ], pose[MAXJ];
    apply(&sc, 0.3f, ref);
    memcpy(pose, sc.target, sizeof pose);
    ossa_inertialize_apply_job job = {sc.state, sc.n, pose, sc.n, 0.3f, pose, sc.n};
    assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
    assert_memory_equal(pose, ref, sizeof(ossa_transform) * sc.n);
    for (uint32_t j = 0; j < sc.n; j++)
        for (int c = 0; c < 9; c++) assert_true(sc.state[j].velocity[c] == 0.0f);
}

/* ---- with the player, by hand (the recipe of docs/inertialization.md) ---- */

typedef struct inert {
    ossa_inertialize_joint state[MAXJ];
    ossa_transform last[MAXJ], before[MAXJ];
    float time, duration;
} inert;

static bool inertialize_hook(void *user, const ossa_skeleton *sk, ossa_transform *locals, ossa_mat4 *model) {
    inert *in = user;
    (void)model;
    if (in->time < 0.0f || in->time >= in->duration) return false;
    ossa_inertialize_apply_job job = {in->state, sk->joint_count, locals, sk->joint_count, in->time, locals,
                                      sk->joint_count};
    return ossa_inertialize_apply_job_run(&job) == OSSA_OK;
}

static void with_the_player(void **state) {
    (void)state;
    uint64_t s = 64;
    ot_gen_options opt = {.joints = 12, .interp = OSSA_INTERP_LINEAR, .max_keys = 6};
    ossa_skeleton *sk = ot_gen_skeleton(&s, &opt);
    ossa_clip *a = ot_gen_clip(&s, sk, &opt), *b = ot_gen_clip(&s, sk, &opt);
    ossa_player *p = NULL, *ref = NULL;
    assert_int_equal(ossa_player_create(sk, NULL, &p), OSSA_OK);
    assert_int_equal(ossa_player_create(sk, NULL, &ref), OSSA_OK);
    uint32_t n = sk->joint_count;
    size_t bytes = sizeof(ossa_transform) * n;
    static inert in;
    in.time = -1.0f, in.duration = 0.3f;
    const float dt = 1.0f / 60.0f;
    ossa_player_play(p, ossa_source_editable(a), 1, true);
    for (int f = 0; f < 10; f++) {
        ossa_player_update(p, dt);
        memcpy(in.before, in.last, bytes);
        memcpy(in.last, ossa_player_pose(p), bytes);
    }
    /* The transition: cut to b, record against its first pose, then inertialize in the hook. */
    ossa_player_play(p, ossa_source_editable(b), 1, true);
    ossa_player_update(p, 0.0f);
    ossa_inertialize_record_job rec = {in.last, n, in.before, n, ossa_player_pose(p), n, in.duration, dt, in.state, n};
    assert_int_equal(ossa_inertialize_record_job_run(&rec), OSSA_OK);
    float largest = 0.0f; /* the cut is a real jump */
    for (uint32_t j = 0; j < n; j++)
        for (int c = 0; c < 9; c++) largest = fmaxf(largest, fabsf(in.state[j].offset[c]));
    assert_true(largest > 0.05f);
    in.time = 0.0f;
    ossa_player_set_pose_hook(p, inertialize_hook, &in);
    ossa_player_update(p, 0.0f);
    for (uint32_t j = 0; j < n; j++) assert_same_transform(&ossa_player_pose(p)[j], &in.last[j], 1e-5);
    /* Past the duration: b's own pose, bit for bit (a second player plays b alone). */
    ossa_player_play(ref, ossa_source_editable(b), 1, true);
    for (int f = 0; f < 30; f++) {
        in.time += dt; /* the hook's clock advances with the player's, before the update */
        ossa_player_update(p, dt), ossa_player_update(ref, dt);
    }
    assert_true(in.time >= in.duration);
    assert_memory_equal(ossa_player_pose(p), ossa_player_pose(ref), bytes);
    ossa_player_destroy(ref);
    ossa_player_destroy(p);
    ossa_clip_destroy(b);
    ossa_clip_destroy(a);
    ossa_skeleton_destroy(sk);
}

/* ---- validity ---- */

static void validity_record(void **state) {
    (void)state;
    ossa_transform pose[4];
    ossa_inertialize_joint st[4];
    for (int i = 0; i < 4; i++) pose[i] = ossa_transform_identity();
    ossa_inertialize_record_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_inertialize_record_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "previous");
    job.previous = pose;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "target");
    job.target = pose, job.target_count = 4;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "state");
    job.state = st;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "duration");
    job.duration = NAN;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "duration");
    job.duration = 0.2f;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "previous_count");
    job.previous_count = 4;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count");
    job.state_count = 3;
    assert_int_equal(ossa_inertialize_record_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    job.state_count = 4;
    ot_assert_job_ok(ossa_inertialize_record_job_validate, &job); /* no history: v0 = 0 */
    job.before = pose;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "dt");
    job.dt = -1.0f;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "dt");
    job.dt = 1.0f / 60.0f;
    ot_assert_job(ossa_inertialize_record_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "before_count");
    job.before_count = 4;
    ot_assert_job_ok(ossa_inertialize_record_job_validate, &job);
    assert_int_equal(ossa_inertialize_record_job_run(&job), OSSA_OK);
    for (int j = 0; j < 4; j++)
        for (int c = 0; c < 9; c++) assert_true(st[j].offset[c] == 0.0f && st[j].duration[c] == 0.0f);
}

static void validity_apply(void **state) {
    (void)state;
    ossa_transform pose[4], out[4];
    ossa_inertialize_joint st[4];
    memset(st, 0, sizeof st);
    for (int i = 0; i < 4; i++) pose[i] = ossa_transform_identity();
    ossa_inertialize_apply_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_inertialize_apply_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "state");
    job.state = st;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "target");
    job.target = pose, job.target_count = 4;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count");
    job.state_count = 4;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    job.output_count = 3;
    assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    job.output_count = 4;
    ot_assert_job_ok(ossa_inertialize_apply_job_validate, &job);
    job.time = -0.1f;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "time");
    job.time = INFINITY;
    ot_assert_job(ossa_inertialize_apply_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "time");
    job.time = 0.5f;
    assert_int_equal(ossa_inertialize_apply_job_run(&job), OSSA_OK);
    assert_memory_equal(out, pose, sizeof pose); /* an empty state: the target */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transition_frame_is_the_old_pose_with_its_velocity),
        cmocka_unit_test(velocity_at_sixty_hz),
        cmocka_unit_test(end_of_transition_is_the_new_pose_at_rest),
        cmocka_unit_test(offset_never_exceeds_its_start),
        cmocka_unit_test(rotation_takes_the_short_arc),
        cmocka_unit_test(hand_worked_one_dimension),
        cmocka_unit_test(no_history_and_in_place),
        cmocka_unit_test(with_the_player),
        cmocka_unit_test(validity_record),
        cmocka_unit_test(validity_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
