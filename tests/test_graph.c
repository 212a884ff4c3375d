/* Animation graphs (src/anim/graph*.c, dead_blend.c, blend_space_2d.c): expectations computed
 * here, independently of the graph: a cross-fade against the blend job at the weights the
 * test works out from the frame count; exit times and triggers on the frames counted by hand
 * (dt = 1/8 s, exact in binary); inertialization and dead blending through the graph against
 * a second instance that never transitions (the old pose) and against the still new pose
 * (finite differences per joint); 2-D weights on a grid; the synced blend of a clip with
 * itself against the clip's own sampling job; no allocation in update (counting allocator). */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/graph_json.h>

#define NJ 4
#define MAXF 4096

/* ---- a 4-joint chain and clips that are linear in time (exact between their keys) ---- */

typedef struct motion {
    float x0, vx;   /* translation.x = x0 + vx t (+ 0.1 j) */
    float a0, va;   /* rotation about z by a0 + va t (radians) */
} motion;

static ossa_skeleton *make_skeleton(void) {
    int32_t parents[NJ] = {-1, 0, 1, 2};
    const char *names[NJ] = {"root", "spine", "arm", "hand"};
    ossa_transform rest[NJ];
    for (int i = 0; i < NJ; i++) {
        rest[i] = ossa_transform_identity();
        rest[i].translation = ossa_vec3_make(0, 0.5f, 0);
    }
    ossa_skeleton_desc d = {.joint_count = NJ, .parents = parents, .rest = rest, .names = names};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

static ossa_quat rot_z(float a) { return (ossa_quat){0, 0, sinf(0.5f * a), cosf(0.5f * a)}; }

/* Keys at 0, d/2 and d of a motion on every joint (joint j shifted by 0.1 j in x). */
static ossa_clip *make_clip(const char *name, float duration, motion m) {
    static float times[NJ][3], trans[NJ][9], rots[NJ][12];
    ossa_transform_track tracks[NJ];
    for (uint32_t j = 0; j < NJ; j++) {
        for (int k = 0; k < 3; k++) {
            float t = duration * 0.5f * (float)k;
            times[j][k] = t;
            trans[j][3 * k] = m.x0 + m.vx * t + 0.1f * (float)j, trans[j][3 * k + 1] = 0.5f, trans[j][3 * k + 2] = 0;
            ossa_quat q = rot_z(m.a0 + m.va * t);
            memcpy(&rots[j][4 * k], &q, sizeof q);
        }
        tracks[j] = (ossa_transform_track){
            .joint = j,
            .translation = {OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 3, times[j], trans[j], {0}},
            .rotation = {OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 3, times[j], rots[j], {0}}};
    }
    ossa_clip_desc d = {.name = name, .looping = true, .track_count = NJ, .tracks = tracks};
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    return clip;
}

typedef struct fixture {
    ossa_skeleton *skeleton;
    ossa_clip *walk, *run, *still, *punch;
    ossa_graph_clip clips[4];
} fixture;

static const motion WALK = {0.0f, 1.0f, 0.0f, 0.2f};
static const motion RUN = {0.3f, 2.0f, 0.1f, 0.5f};
static const motion STILL = {1.5f, 0.0f, 0.6f, 0.0f};
static const motion PUNCH = {0.0f, -1.0f, -0.2f, -0.4f};

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->skeleton = make_skeleton();
    f->walk = make_clip("Walk", 1.0f, WALK);
    f->run = make_clip("Run", 0.5f, RUN);
    f->still = make_clip("Still", 1.0f, STILL);
    f->punch = make_clip("Punch", 1.0f, PUNCH);
    ossa_clip *all[4] = {f->walk, f->run, f->still, f->punch};
    for (int i = 0; i < 4; i++) f->clips[i] = (ossa_graph_clip){all[i]->name, ossa_source_editable(all[i]), NULL};
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    ossa_clip_destroy(f->walk), ossa_clip_destroy(f->run), ossa_clip_destroy(f->still), ossa_clip_destroy(f->punch);
    ossa_skeleton_destroy(f->skeleton);
    free(f);
    return 0;
}

static ossa_graph *graph_of(const fixture *f, const char *json, const ossa_allocator *allocator) {
    ossa_graph_desc *desc = NULL;
    ossa_diagnostic diag = {{0}, {0}};
    ossa_graph_load_options options = {.allocator = allocator};
    ossa_result r = ossa_graph_desc_load_memory(json, strlen(json), &options, &desc, &diag);
    if (r != OSSA_OK) print_error("load: %s\n", diag.message);
    assert_int_equal(r, OSSA_OK);
    ossa_graph *g = NULL;
    r = ossa_graph_create(desc, f->skeleton, f->clips, 4, allocator, &g, &diag);
    if (r != OSSA_OK) print_error("create: %s\n", diag.message);
    assert_int_equal(r, OSSA_OK);
    ossa_graph_desc_destroy(desc);
    return g;
}

/* A sampled editable clip (the reference of the graph's sampling). */
static void sample(const ossa_clip *clip, const ossa_skeleton *sk, float t, bool loop, ossa_transform *out) {
    ossa_clip_sample_job job = {.clip = clip, .time = t, .loop = loop, .reference = sk->rest, .reference_count = NJ,
                                .output = out, .output_count = NJ};
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
}

static float rot_angle_z(ossa_quat q) { return 2.0f * atan2f(q.z, q.w); }

static void assert_joints_near(const ossa_transform *a, const ossa_transform *b, int count, float tol) {
    for (int j = 0; j < count; j++) {
        assert_float_equal(a[j].translation.x, b[j].translation.x, tol);
        assert_float_equal(a[j].translation.y, b[j].translation.y, tol);
        assert_float_equal(a[j].translation.z, b[j].translation.z, tol);
        float d = fabsf(ossa_quat_dot(a[j].rotation, b[j].rotation));
        assert_true(d > 1.0f - tol);
        assert_float_equal(a[j].scale.x, b[j].scale.x, tol);
    }
}

static void assert_pose_near(const ossa_transform *a, const ossa_transform *b, float tol) {
    assert_joints_near(a, b, NJ, tol);
}

static void update(ossa_graph_instance *inst, float dt, ossa_graph_value *p, ossa_transform *pose) {
    ossa_graph_output out = {.pose = pose, .pose_count = NJ};
    assert_int_equal(ossa_graph_update(inst, dt, p, ossa_graph_parameter_count(ossa_graph_instance_graph(inst)), &out),
                     OSSA_OK);
}

static uint32_t active(const ossa_graph_instance *inst, uint32_t layer) {
    ossa_graph_layer_status s;
    assert_int_equal(ossa_graph_instance_layer_status(inst, layer, &s), OSSA_OK);
    return s.state;
}

/* ---- 2-D blend weights ---- */

static void blend2d_weights(void **state) {
    (void)state;
    const float xs[] = {0, 0, 1.5f, -1.5f, 0, 0, 3.5f, -3.5f};
    const float ys[] = {0, 1.4f, 0, 0, -1.2f, 4.0f, 0, 0};
    const uint32_t n = 8;
    float w[8];
    for (uint32_t i = 0; i < n; i++) { /* exact at the samples */
        assert_int_equal(ossa_blend_space_2d(xs, ys, n, xs[i], ys[i], w), OSSA_OK);
        for (uint32_t k = 0; k < n; k++) assert_true(w[k] == (k == i ? 1.0f : 0.0f));
    }
    for (int gx = -20; gx <= 20; gx++)
        for (int gy = -20; gy <= 20; gy++) {
            float x = 0.25f * (float)gx + 0.01f, y = 0.25f * (float)gy;
            assert_int_equal(ossa_blend_space_2d(xs, ys, n, x, y, w), OSSA_OK);
            double sum = 0;
            for (uint32_t k = 0; k < n; k++) {
                assert_true(w[k] >= 0.0f);
                sum += w[k];
            }
            assert_float_equal(sum, 1.0, 1e-5);
        }
    /* halfway along one direction: only the idle and that direction */
    assert_int_equal(ossa_blend_space_2d(xs, ys, n, 0.0f, 0.7f, w), OSSA_OK);
    assert_true(w[0] > 0.3f && w[1] > 0.3f);
    assert_float_equal(w[0] + w[1], 1.0f, 1e-6f);
    assert_int_equal(ossa_blend_space_2d(xs, ys, 0, 0, 0, w), OSSA_ERROR_INVALID_ARGUMENT);
    const float dup[] = {1, 1};
    assert_int_equal(ossa_blend_space_2d(dup, dup, 2, 0, 0, w), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_blend_space_2d(xs, ys, n, NAN, 0, w), OSSA_ERROR_INVALID_ARGUMENT);
}

/* ---- dead blending as a job ---- */

static void dead_blend_validity(void **state) {
    (void)state;
    ossa_transform pose[2] = {ossa_transform_identity(), ossa_transform_identity()};
    ossa_dead_blend_joint s[2];
    ossa_dead_blend_record_job r = {0};
    ot_assert_job(ossa_dead_blend_record_job_validate, &r, OSSA_ERROR_INVALID_ARGUMENT, "previous");
    r.previous = pose, r.previous_count = 2;
    ot_assert_job(ossa_dead_blend_record_job_validate, &r, OSSA_ERROR_INVALID_ARGUMENT, "state");
    r.state = s, r.state_count = 1;
    ot_assert_job(ossa_dead_blend_record_job_validate, &r, OSSA_ERROR_BUFFER_TOO_SMALL, "state_count");
    r.state_count = 2;
    ot_assert_job_ok(ossa_dead_blend_record_job_validate, &r);
    r.before = pose, r.before_count = 2;
    ot_assert_job(ossa_dead_blend_record_job_validate, &r, OSSA_ERROR_INVALID_ARGUMENT, "dt");
    r.dt = 0.1f;
    ot_assert_job_ok(ossa_dead_blend_record_job_validate, &r);
    assert_int_equal(ossa_dead_blend_record_job_run(&r), OSSA_OK);

    ossa_dead_blend_apply_job a = {0};
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "state");
    a.state = s, a.state_count = 2;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "target");
    a.target = pose, a.target_count = 2;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "output");
    a.output = pose, a.output_count = 2;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "duration");
    a.duration = 0.3f, a.time = -1.0f;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "time");
    a.time = 0.0f, a.halflife = NAN;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_INVALID_ARGUMENT, "halflife");
    a.halflife = 0.0f, a.output_count = 1;
    ot_assert_job(ossa_dead_blend_apply_job_validate, &a, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    a.output_count = 2;
    ot_assert_job_ok(ossa_dead_blend_apply_job_validate, &a);
}

/* The old pose moves at a constant velocity; the new one is still. At t = 0 the output is the
 * old pose and its one-sided derivative the old velocity; at T it is the new pose. */
static void dead_blend_continuity(void **state) {
    (void)state;
    const float dt = 1.0f / 60, T = 0.5f, h = 1e-3f;
    ossa_transform before = ossa_transform_identity(), previous, target = ossa_transform_identity();
    previous = before;
    previous.translation = ossa_vec3_make(0.02f, -0.01f, 0.0f); /* 1.2, -0.6 per second */
    previous.rotation = rot_z(0.05f);                           /* 3 rad/s */
    target.translation = ossa_vec3_make(2.0f, 1.0f, 0.5f);
    target.rotation = rot_z(-1.0f);
    ossa_dead_blend_joint s;
    ossa_dead_blend_record_job r = {.previous = &previous, .previous_count = 1, .before = &before, .before_count = 1,
                                    .dt = dt, .state = &s, .state_count = 1};
    assert_int_equal(ossa_dead_blend_record_job_run(&r), OSSA_OK);
    ossa_transform o0, o1, oT;
    ossa_dead_blend_apply_job a = {.state = &s, .state_count = 1, .target = &target, .target_count = 1, .time = 0,
                                   .duration = T, .output = &o0, .output_count = 1};
    assert_int_equal(ossa_dead_blend_apply_job_run(&a), OSSA_OK);
    assert_joints_near(&o0, &previous, 1, 1e-6f);
    a.time = h, a.output = &o1;
    assert_int_equal(ossa_dead_blend_apply_job_run(&a), OSSA_OK);
    /* derivative at 0+: the old velocity, up to the second-order term (alpha = 3u^2: 3 h/T^2 x gap) */
    assert_float_equal((o1.translation.x - o0.translation.x) / h, 1.2f, 0.05f);
    assert_float_equal((o1.translation.y - o0.translation.y) / h, -0.6f, 0.05f);
    assert_float_equal((rot_angle_z(o1.rotation) - rot_angle_z(o0.rotation)) / h, 3.0f, 0.05f);
    a.time = T, a.output = &oT;
    assert_int_equal(ossa_dead_blend_apply_job_run(&a), OSSA_OK);
    assert_memory_equal(&oT, &target, sizeof oT);
}

/* ---- the graph ---- */

static const char *CROSSFADE_JSON =
    "{\"parameters\": {\"go\": \"trigger\"}, \"layers\": [{\"name\": \"base\", \"start\": \"walk\","
    " \"states\": {\"walk\": {\"clip\": \"Walk\"}, \"run\": {\"clip\": \"Run\"}},"
    " \"transitions\": [{\"from\": \"walk\", \"to\": \"run\", \"when\": \"go\", \"duration\": 0.5}]}]}";

/* Frame i (1-based) has walk at i dt; the fade fires on frame F (weight 0) and at frame F + k
 * the weight is k dt / 0.5 and run's clock k dt. */
static void crossfade_equals_blend_job(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, CROSSFADE_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[1];
    assert_int_equal(ossa_graph_parameters_init(g, p, 1), OSSA_OK);
    const float dt = 1.0f / 64;
    const int F = 8;
    ossa_transform pose[NJ], a[NJ], b[NJ], expect[NJ];
    for (int i = 1; i <= F + 40; i++) {
        p[0].flag = i == F;
        update(inst, dt, p, pose);
        if (i < F) continue;
        float w = fminf((float)(i - F) * dt / 0.5f, 1.0f);
        sample(f->walk, f->skeleton, (float)i * dt, true, a);
        sample(f->run, f->skeleton, (float)(i - F) * dt, true, b);
        ossa_blend_layer layers[2] = {{a, NJ, 1.0f - w, NULL, 0}, {b, NJ, w, NULL, 0}};
        ossa_blend_job job = {.layers = layers, .layer_count = 2, .rest = f->skeleton->rest, .rest_count = NJ,
                              .output = expect, .output_count = NJ};
        assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
        assert_pose_near(pose, expect, 1e-5f);
        ossa_graph_layer_status s;
        ossa_graph_instance_layer_status(inst, 0, &s);
        assert_int_equal(s.state, 1);
        assert_int_equal(s.transitioning, w < 1.0f);
        assert_float_equal(s.progress, w, 1e-5f);
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *EXIT_JSON =
    "{\"parameters\": {\"back\": \"trigger\"}, \"layers\": [{\"name\": \"base\","
    " \"states\": {\"a\": {\"clip\": \"Walk\", \"loop\": false}, \"b\": {\"clip\": \"Run\"}},"
    " \"transitions\": [{\"from\": \"a\", \"to\": \"b\", \"exit_time\": 0.5, \"duration\": 0},"
    "                   {\"from\": \"b\", \"to\": \"a\", \"when\": \"back\", \"duration\": 0}]}]}";

/* dt = 1/8: a's normalised time is i/8 on frame i, so exit time 0.5 is crossed on frame 4 (3/8 <
 * 0.5 <= 4/8). The trigger set on frame 6 fires there, is cleared, and a comes back; a's exit
 * time takes it to b again on frame 10, after which the consumed trigger fires nothing. */
static void exit_time_and_trigger_frames(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, EXIT_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[1] = {{.flag = false}};
    ossa_transform pose[NJ];
    ossa_graph_event events[8];
    const uint32_t expected[] = {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    for (int i = 1; i < 16; i++) {
        if (i == 6) p[0].flag = true;
        ossa_graph_output out = {.pose = pose, .pose_count = NJ, .events = events, .event_capacity = 8};
        assert_int_equal(ossa_graph_update(inst, 0.125f, p, 1, &out), OSSA_OK);
        assert_int_equal(active(inst, 0), expected[i]);
        bool fired = expected[i] != expected[i - 1];
        assert_int_equal(out.event_count, fired ? 2 : 0);
        if (fired) {
            assert_int_equal(events[0].kind, OSSA_GRAPH_EVENT_STATE_EXIT);
            assert_int_equal(events[0].state, expected[i - 1]);
            assert_int_equal(events[1].kind, OSSA_GRAPH_EVENT_STATE_ENTER);
            assert_int_equal(events[1].state, expected[i]);
        }
        if (i >= 6) assert_false(p[0].flag); /* consumed once */
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *INERTIAL_JSON =
    "{\"parameters\": {\"stop\": \"trigger\"}, \"layers\": [{\"name\": \"base\","
    " \"states\": {\"walk\": {\"clip\": \"Walk\", \"loop\": false}, \"still\": {\"clip\": \"Still\"}},"
    " \"transitions\": [{\"from\": \"walk\", \"to\": \"still\", \"when\": \"stop\", \"duration\": 1.0,"
    " \"blend\": \"%s\"}]}]}";

/* Channels of a pose: x translation and z rotation angle per joint (the clips move only those). */
static void channels(const ossa_transform *p, float c[2 * NJ]) {
    for (int j = 0; j < NJ; j++) c[2 * j] = p[j].translation.x, c[2 * j + 1] = rot_angle_z(p[j].rotation);
}

/* Through the graph: the transition frame shows the old pose (a second instance that never
 * transitions), the velocity continues (left and right differences agree to O(dt)), the
 * offset from the still pose never leaves [x0, 0] (inertialize: the quintic's bound), and at
 * the duration the pose is the still pose with zero velocity. */
static void transition_continuity(const fixture *f, const char *blend) {
    char json[1024];
    snprintf(json, sizeof json, INERTIAL_JSON, blend);
    ossa_graph *g = graph_of(f, json, NULL);
    ossa_graph_instance *inst = NULL, *ref = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    assert_int_equal(ossa_graph_instance_create(g, NULL, &ref), OSSA_OK);
    const float dt = 1.0f / 500;
    const int F = 100; /* walk at 0.2 s: x = 0.2 + 0.1 j moving at +1/s toward still's 1.5 + 0.1 j */
    ossa_graph_value p[1] = {{.flag = false}}, none[1] = {{.flag = false}};
    ossa_transform pose[NJ], refpose[NJ], still[NJ];
    float c[3][2 * NJ], x0[2 * NJ], cs[2 * NJ];
    sample(f->still, f->skeleton, 0, true, still);
    channels(still, cs);
    for (int i = 1; i <= F + 520; i++) {
        p[0].flag = i == F;
        update(inst, dt, p, pose);
        if (i <= F) update(ref, dt, none, refpose);
        memcpy(c[0], c[1], sizeof c[0]), memcpy(c[1], c[2], sizeof c[0]);
        channels(pose, c[2]);
        if (i == F) {
            assert_pose_near(pose, refpose, 2e-6f);
            for (int k = 0; k < 2 * NJ; k++) x0[k] = c[2][k] - cs[k];
        }
        if (i == F + 1)
            for (int k = 0; k < 2 * NJ; k++) {
                float left = (c[1][k] - c[0][k]) / dt, right = (c[2][k] - c[1][k]) / dt;
                assert_float_equal(left, right, 0.1f);
            }
        if (i > F && i < F + 500 && strcmp(blend, "inertialize") == 0)
            for (int k = 0; k < 2 * NJ; k++) {
                float off = c[2][k] - cs[k];
                assert_true(off * x0[k] >= -1e-6f && fabsf(off) <= fabsf(x0[k]) + 2e-5f);
            }
        if (i >= F + 501) {
            assert_pose_near(pose, still, 1e-6f);
            for (int k = 0; k < 2 * NJ; k++) assert_float_equal(c[2][k], c[1][k], 1e-6f);
        }
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_instance_destroy(ref);
    ossa_graph_destroy(g);
}

static void inertialize_continuity(void **state) { transition_continuity(*state, "inertialize"); }
static void dead_blend_through_graph(void **state) { transition_continuity(*state, "dead_blend"); }

static const char *INTERRUPT_JSON =
    "{\"parameters\": {\"go\": \"trigger\", \"stop\": \"trigger\", \"blend\": 0.0},"
    " \"layers\": [{\"name\": \"base\","
    " \"states\": {\"walk\": {\"clip\": \"Walk\"}, \"run\": {\"clip\": \"Run\"}, \"punch\": {\"clip\": \"Punch\"}},"
    " \"transitions\": [{\"from\": \"walk\", \"to\": \"run\", \"when\": \"go\", \"duration\": 0.4},"
    "   {\"from\": \"run\", \"to\": \"punch\", \"when\": \"stop && blend < 0.5\", \"duration\": 0.3, \"blend\": \"inertialize\"},"
    "   {\"from\": \"run\", \"to\": \"punch\", \"when\": \"stop && blend >= 0.5 && blend < 1.5\", \"duration\": 0.3},"
    "   {\"from\": \"run\", \"to\": \"punch\", \"when\": \"stop\", \"duration\": 0.3, \"blend\": \"dead_blend\"}]}]}";

/* A cross-fade interrupted half-way by each blend: no frame moves a joint further than the
 * clips' speeds and the fades allow (a pop would jump by the gap between poses, ~0.3). */
static void interruption_is_continuous(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, INTERRUPT_JSON, NULL);
    for (int mode = 0; mode < 3; mode++) {
        ossa_graph_instance *inst = NULL;
        assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
        ossa_graph_value p[3] = {{.flag = false}, {.flag = false}, {.number = (float)mode}};
        ossa_transform pose[NJ], last[NJ] = {0};
        const float dt = 1.0f / 100;
        float worst = 0;
        for (int i = 1; i <= 120; i++) {
            p[0].flag = i == 20, p[1].flag = i == 40;
            update(inst, dt, p, pose);
            if (i == 41) {
                ossa_graph_layer_status s;
                ossa_graph_instance_layer_status(inst, 0, &s);
                assert_int_equal(s.state, 2);
                assert_true(s.transitioning);
                assert_int_equal(s.from_state, 1);
            }
            if (i > 1)
                for (int j = 0; j < NJ; j++) {
                    float step = fabsf(pose[j].translation.x - last[j].translation.x);
                    if (step > worst) worst = step;
                }
            memcpy(last, pose, sizeof last);
        }
        assert_true(worst < 0.06f);
        ossa_graph_instance_destroy(inst);
    }
    ossa_graph_destroy(g);
}

static const char *SYNC_JSON =
    "{\"parameters\": {\"speed\": 0.5}, \"layers\": [{\"name\": \"base\","
    " \"states\": {\"move\": {\"blend1d\": {\"parameter\": \"speed\", \"clips\": [[\"Walk\", 0], [\"Walk\", 1]],"
    " \"sync\": true}}}}]}";

static void synced_self_blend_is_the_clip(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, SYNC_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[1];
    ossa_graph_parameters_init(g, p, 1);
    ossa_transform pose[NJ], expect[NJ];
    const float dt = 1.0f / 32;
    for (int i = 1; i <= 80; i++) {
        p[0].number = 0.5f + 0.4f * sinf((float)i);
        update(inst, dt, p, pose);
        sample(f->walk, f->skeleton, fmodf((float)i * dt, 1.0f), true, expect);
        assert_pose_near(pose, expect, 2e-6f);
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *LAYERS_JSON =
    "{\"parameters\": {\"armed\": false, \"w\": 1.0},"
    " \"layers\": [{\"name\": \"base\", \"states\": {\"walk\": {\"clip\": \"Walk\"}}},"
    "  {\"name\": \"upper\", \"mask\": \"arm\", \"weight\": \"w\", \"start\": \"none\","
    "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": false}},"
    "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"duration\": 0},"
    "                     {\"from\": \"punch\", \"to\": \"none\", \"exit_time\": 1.0, \"duration\": 0.2}]}],"
    " \"events\": [{\"clip\": \"Walk\", \"time\": 0.25, \"name\": \"step\"}]}";

/* A masked override layer: the arm's subtree (arm, hand) plays the punch, root and spine the
 * walk; an empty state shows the base; weight 0.5 halves the punch; events and overflow. */
static void masked_layer_and_events(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, LAYERS_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[2];
    ossa_graph_parameters_init(g, p, 2);
    ossa_transform pose[NJ], walk[NJ], punch[NJ];
    const float dt = 1.0f / 16;
    ossa_graph_event events[1];
    int steps = 0;
    for (int i = 1; i <= 12; i++) {
        p[0].flag = i == 2;
        p[1].number = i >= 6 ? 0.5f : 1.0f;
        ossa_graph_output out = {.pose = pose, .pose_count = NJ, .events = events, .event_capacity = 1};
        ossa_result r = ossa_graph_update(inst, dt, p, 2, &out);
        assert_int_equal(r, out.event_count > 1 ? OSSA_ERROR_BUFFER_TOO_SMALL : OSSA_OK);
        assert_int_equal(out.events_overflowed, out.event_count > 1);
        if (out.event_count == 1 && events[0].kind == OSSA_GRAPH_EVENT_CLIP) {
            assert_string_equal(events[0].name, "step");
            steps++;
            assert_int_equal(i, 4); /* walk crosses 0.25 s on frame 4 */
        }
        sample(f->walk, f->skeleton, (float)i * dt, true, walk);
        sample(f->punch, f->skeleton, (float)(i - 2) * dt, false, punch);
        float w = i < 2 ? 0.0f : i < 6 ? 1.0f : 0.5f;
        for (int j = 0; j < NJ; j++) {
            float expect = j < 2 ? walk[j].translation.x
                                 : (1 - w) * walk[j].translation.x + w * punch[j].translation.x;
            assert_float_equal(pose[j].translation.x, expect, 1e-5f);
        }
    }
    assert_int_equal(steps, 1);
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *ALLOC_JSON =
    "{\"parameters\": {\"speed\": 0.0, \"jump\": \"trigger\", \"armed\": false},"
    " \"layers\": [{\"name\": \"base\", \"start\": \"move\","
    "  \"states\": {\"move\": {\"blend1d\": {\"parameter\": \"speed\", \"clips\": [[\"Still\", 0.0], [\"Walk\", 1.4],"
    "   [\"Run\", 4.0]], \"sync\": true}}, \"jump\": {\"clip\": \"Punch\", \"loop\": false}},"
    "  \"transitions\": [{\"from\": \"move\", \"to\": \"jump\", \"when\": \"jump\", \"duration\": 0.2, \"blend\": \"inertialize\"},"
    "   {\"from\": \"jump\", \"to\": \"move\", \"exit_time\": 0.9, \"duration\": 0.3},"
    "   {\"from\": \"*\", \"to\": \"move\", \"when\": \"speed > 3.5 && !armed\", \"duration\": 0.25, \"blend\": \"dead_blend\"}]},"
    "  {\"name\": \"upper\", \"mask\": \"spine\", \"start\": \"none\","
    "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": false}},"
    "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"duration\": 0.15, \"blend\": \"inertialize\"},"
    "    {\"from\": \"punch\", \"to\": \"none\", \"exit_time\": 1.0, \"duration\": 0.2}]}]}";

/* The example graph (on these clips), with built clips for half of them: the update
 * never calls the allocator, and every pose is finite. */
static void update_allocates_nothing(void **state) {
    fixture *f = *state;
    ot_counting k = {0, 0, 0, 0};
    ossa_allocator a = ot_counting_allocator(&k);
    ossa_built_clip *built[2] = {NULL, NULL};
    ossa_clip_build_options lossless = {.lossless = true};
    assert_int_equal(ossa_clip_build(f->walk, f->skeleton, &lossless, NULL, &built[0], NULL), OSSA_OK);
    assert_int_equal(ossa_clip_build(f->punch, f->skeleton, &lossless, NULL, &built[1], NULL), OSSA_OK);
    ossa_graph_clip saved[4];
    memcpy(saved, f->clips, sizeof saved);
    f->clips[0].source = ossa_source_built(built[0]);
    f->clips[3].source = ossa_source_built(built[1]);
    ossa_graph *g = graph_of(f, ALLOC_JSON, &a);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, &a, &inst), OSSA_OK);
    assert_true(ossa_graph_instance_size(g) > 0);
    int before = k.allocs;
    ossa_graph_value p[3];
    ossa_graph_parameters_init(g, p, 3);
    ossa_transform pose[NJ];
    for (int i = 0; i < 400; i++) {
        p[0].number = 2.0f + 2.0f * sinf(0.02f * (float)i);
        p[1].flag = i % 97 == 5;
        p[2].flag = (i / 50) % 2 == 1;
        update(inst, 1.0f / 60, p, pose);
        for (int j = 0; j < NJ; j++) assert_true(isfinite(pose[j].translation.x) && isfinite(pose[j].rotation.w));
    }
    assert_int_equal(k.allocs, before);
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
    assert_int_equal(k.allocs, k.frees);
    memcpy(f->clips, saved, sizeof saved);
    ossa_built_clip_destroy(built[0]);
    ossa_built_clip_destroy(built[1]);
}

/* A hand-filled description (no JSON) and the paths of its faults. */
static void hand_filled_description(void **state) {
    fixture *f = *state;
    ossa_graph_parameter_desc params[1] = {{"go", OSSA_GRAPH_PARAMETER_TRIGGER, {.flag = false}}};
    ossa_graph_state_desc states[2] = {{.name = "a", .kind = OSSA_GRAPH_STATE_CLIP, .clip = "Walk", .loop = true},
                                       {.name = "b", .kind = OSSA_GRAPH_STATE_CLIP, .clip = "Run", .loop = true}};
    ossa_graph_instruction code[1] = {{.op = OSSA_GRAPH_OP_FLAG, .parameter = 0}};
    ossa_graph_transition_desc tr[1] = {{.from = 0, .to = 1, .condition = code, .condition_count = 1,
                                         .duration = 0.1f}};
    ossa_graph_layer_desc layer = {.name = "base", .weight = 1, .weight_parameter = OSSA_GRAPH_NONE,
                                   .states = states, .state_count = 2, .transitions = tr, .transition_count = 1};
    ossa_graph_desc d = {.parameters = params, .parameter_count = 1, .layers = &layer, .layer_count = 1};
    ossa_diagnostic diag;
    assert_int_equal(ossa_graph_desc_validate(&d, &diag), OSSA_OK);
    ossa_graph *g = NULL;
    assert_int_equal(ossa_graph_create(&d, f->skeleton, f->clips, 4, NULL, &g, &diag), OSSA_OK);
    assert_int_equal(ossa_graph_find_state(g, 0, "b"), 1);
    assert_int_equal(ossa_graph_find_parameter(g, "go"), 0);
    ossa_graph_destroy(g);

    tr[0].to = 7;
    assert_int_equal(ossa_graph_desc_validate(&d, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "/layers/0/transitions/0/to");
    tr[0].to = 1;
    code[0].op = OSSA_GRAPH_OP_AND;
    assert_int_equal(ossa_graph_desc_validate(&d, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "/layers/0/transitions/0/when");
    code[0].op = OSSA_GRAPH_OP_FLAG;
    states[1].clip = "Runn";
    assert_int_equal(ossa_graph_create(&d, f->skeleton, f->clips, 4, NULL, &g, &diag), OSSA_ERROR_INVALID_DATA);
    assert_null(g);
    assert_string_equal(diag.path, "/layers/0/states/b/clip");
    assert_non_null(strstr(diag.message, "no clip \"Runn\""));
    states[1].clip = "Run";
    layer.mask_joint = "Spin";
    assert_int_equal(ossa_graph_create(&d, f->skeleton, f->clips, 4, NULL, &g, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "/layers/0/mask");
    ossa_graph_desc zero = {0};
    assert_int_equal(ossa_graph_desc_validate(&zero, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "/layers");
}

static const char *BLEND2D_JSON =
    "{\"parameters\": {\"vx\": 0.0, \"vz\": 1.4}, \"layers\": [{\"name\": \"base\","
    " \"states\": {\"move\": {\"blend2d\": {\"parameters\": [\"vx\", \"vz\"], \"clips\": [[\"Still\", 0, 0],"
    " [\"Walk\", 0, 1.4], [\"Run\", 0, 4.0], [\"Punch\", 1.5, 0]]}}}}]}";

/* A 2-D blend space at a sample point plays that clip alone (exact weights); between points
 * the pose is the blend job over the clips at ossa_blend_space_2d's weights. Bad calls change
 * nothing. */
static void blend2d_state_and_bad_calls(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, BLEND2D_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[2];
    ossa_graph_parameters_init(g, p, 2);
    ossa_transform pose[NJ], expect[NJ], clip[4][NJ];
    const float dt = 1.0f / 16;
    update(inst, dt, p, pose);
    sample(f->walk, f->skeleton, dt, true, expect);
    assert_pose_near(pose, expect, 1e-6f);
    p[0].number = 0.6f, p[1].number = 0.9f;
    update(inst, dt, p, pose); /* unsynced: every clip at 2 dt */
    const float xs[4] = {0, 0, 0, 1.5f}, ys[4] = {0, 1.4f, 4.0f, 0};
    float w[4];
    assert_int_equal(ossa_blend_space_2d(xs, ys, 4, 0.6f, 0.9f, w), OSSA_OK);
    const ossa_clip *clips[4] = {f->still, f->walk, f->run, f->punch};
    ossa_blend_layer layers[4];
    uint32_t k = 0;
    for (int i = 0; i < 4; i++) {
        if (!(w[i] > 0)) continue;
        sample(clips[i], f->skeleton, 2 * dt, true, clip[k]);
        layers[k] = (ossa_blend_layer){clip[k], NJ, w[i], NULL, 0};
        k++;
    }
    ossa_blend_job job = {.layers = layers, .layer_count = k, .rest = f->skeleton->rest, .rest_count = NJ,
                          .output = expect, .output_count = NJ};
    assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
    assert_true(k >= 2);
    assert_pose_near(pose, expect, 1e-6f);

    ossa_graph_output zero = {0};
    assert_int_equal(ossa_graph_update(inst, dt, p, 2, &zero), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_graph_output out = {.pose = pose, .pose_count = NJ};
    assert_int_equal(ossa_graph_update(inst, -dt, p, 2, &out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_graph_update(inst, NAN, p, 2, &out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_graph_update(inst, dt, p, 1, &out), OSSA_ERROR_INVALID_ARGUMENT);
    p[0].number = INFINITY;
    assert_int_equal(ossa_graph_update(inst, dt, p, 2, &out), OSSA_ERROR_INVALID_ARGUMENT);
    out.pose_count = NJ - 1, p[0].number = 0;
    assert_int_equal(ossa_graph_update(inst, dt, p, 2, &out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_graph_update(NULL, dt, p, 2, &out), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_graph_layer_status s;
    assert_int_equal(ossa_graph_instance_layer_status(inst, 1, &s), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_graph_instance_layer_status(inst, 0, &s), OSSA_OK);
    assert_float_equal(s.state_time, 2 * dt, 1e-7f); /* the bad calls did not advance it */
    assert_null(ossa_graph_state_name(g, 0, 1));
    assert_int_equal(ossa_graph_find_state(g, 3, "move"), -1);
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

/* Root motion: Walk moves 1 unit/s along x (a hand-made motion track), Run none. Steady walking
 * gives dt per frame; during the cross-fade to Run the delta is weighted (1 - w) dt. */
static void root_motion_of_playing_states(void **state) {
    fixture *f = *state;
    static const float times[2] = {0, 1}, yaws[2] = {0, 0};
    static const ossa_vec3 positions[2] = {{0, 0, 0}, {1, 0, 0}};
    ossa_root_motion motion = {.start = 0, .end = 1, .key_count = 2, .times = times, .positions = positions,
                               .yaws = yaws, .joint = 0};
    f->clips[0].root_motion = &motion;
    ossa_graph *g = graph_of(f, CROSSFADE_JSON, NULL);
    f->clips[0].root_motion = NULL;
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[1] = {{.flag = false}};
    ossa_transform pose[NJ];
    const float dt = 1.0f / 64;
    const int F = 8;
    for (int i = 1; i <= F + 40; i++) {
        p[0].flag = i == F;
        ossa_graph_output out = {.pose = pose, .pose_count = NJ};
        assert_int_equal(ossa_graph_update(inst, dt, p, 1, &out), OSSA_OK);
        float w = i <= F ? 0.0f : fminf((float)(i - F) * dt / 0.5f, 1.0f);
        assert_float_equal(out.root_delta.translation.x, (1.0f - w) * dt, 1e-6f);
        assert_float_equal(out.root_delta.translation.z, 0.0f, 1e-7f);
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *SYNCED_FADE_JSON =
    "{\"parameters\": {\"p\": 0.0, \"go\": \"trigger\"}, \"layers\": [{\"name\": \"base\","
    " \"states\": {\"slow\": {\"blend1d\": {\"parameter\": \"p\", \"clips\": [[\"Walk\", 0], [\"Run\", 1]], \"sync\": true}},"
    "  \"fast\": {\"blend1d\": {\"parameter\": \"p\", \"clips\": [[\"Run\", 0], [\"Walk\", 1]], \"sync\": true}}},"
    " \"transitions\": [{\"from\": \"slow\", \"to\": \"fast\", \"when\": \"go\", \"duration\": 0.5}]}]}";

/* A cross-fade between two synced blend spaces (Walk alone, 1 s; Run alone, 0.5 s): the new one
 * starts at the old one's phase and both advance by dt / D with D = (1 - w) 1 + w 0.5, w the fade
 * weight at the start of the step (docs/graphs.md); the pose is the blend of Walk at phase x 1 s
 * and Run at phase x 0.5 s. */
static void synced_crossfade_shares_the_phase(void **state) {
    fixture *f = *state;
    ossa_graph *g = graph_of(f, SYNCED_FADE_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[2] = {{.number = 0.0f}, {.flag = false}};
    ossa_transform pose[NJ], a[NJ], b[NJ], expect[NJ];
    const float dt = 1.0f / 64;
    const int F = 20;
    double phase = 0.0, elapsed = 0.0;
    for (int i = 1; i <= F + 40; i++) {
        p[1].flag = i == F;
        update(inst, dt, p, pose);
        double w0 = i > F ? fmin(elapsed / 0.5, 1.0) : 0.0;
        double cycle = (1.0 - w0) * 1.0 + w0 * 0.5;
        phase = fmod(phase + dt / cycle, 1.0);
        if (i > F) elapsed += dt;
        float w = (float)fmin(elapsed / 0.5, 1.0);
        sample(f->walk, f->skeleton, (float)(phase * 1.0), true, a);
        sample(f->run, f->skeleton, (float)(phase * 0.5), true, b);
        ossa_blend_layer layers[2] = {{a, NJ, 1.0f - w, NULL, 0}, {b, NJ, w, NULL, 0}};
        ossa_blend_job job = {.layers = layers, .layer_count = 2, .rest = f->skeleton->rest, .rest_count = NJ,
                              .output = expect, .output_count = NJ};
        assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
        assert_pose_near(pose, expect, 2e-5f);
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
}

static const char *ADDITIVE_JSON =
    "{\"layers\": [{\"name\": \"base\", \"states\": {\"walk\": {\"clip\": \"Walk\"}}},"
    " {\"name\": \"add\", \"mode\": \"additive\", \"mask\": \"arm\", \"weight\": 0.5,"
    "  \"states\": {\"lean\": {\"additive\": \"Punch\"}}}]}";

/* An additive layer: the walk, then the delta clip (ossa_clip_make_additive) at weight 0.5 on the
 * arm's subtree: the blend job's additive step over the same inputs. An additive state in an
 * override layer is refused with its path. */
static void additive_layer(void **state) {
    fixture *f = *state;
    ossa_clip *delta = NULL;
    assert_int_equal(ossa_clip_make_additive(f->punch, f->skeleton, NULL, NULL, &delta), OSSA_OK);
    ossa_graph_clip saved = f->clips[3];
    f->clips[3].source = ossa_source_editable(delta);
    ossa_graph *g = graph_of(f, ADDITIVE_JSON, NULL);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_transform pose[NJ], walk[NJ], d[NJ], expect[NJ];
    float mask[NJ];
    assert_int_equal(ossa_blend_mask_from_name(f->skeleton, "arm", 1.0f, 0.0f, mask, NJ), OSSA_OK);
    const float dt = 1.0f / 32;
    for (int i = 1; i <= 20; i++) {
        update(inst, dt, NULL, pose);
        sample(f->walk, f->skeleton, (float)i * dt, true, walk);
        sample(delta, f->skeleton, (float)i * dt, true, d);
        ossa_blend_layer base = {walk, NJ, 1.0f, NULL, 0}, add = {d, NJ, 0.5f, mask, NJ};
        ossa_blend_job job = {.layers = &base, .layer_count = 1, .additive_layers = &add, .additive_count = 1,
                              .rest = f->skeleton->rest, .rest_count = NJ, .output = expect, .output_count = NJ};
        assert_int_equal(ossa_blend_job_run(&job), OSSA_OK);
        assert_pose_near(pose, expect, 1e-6f);
    }
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
    f->clips[3] = saved;
    ossa_clip_destroy(delta);
    const char *bad = "{\"layers\": [{\"name\": \"base\", \"states\": {\"x\": {\"additive\": \"Punch\"}}}]}";
    ossa_graph_desc *desc = NULL;
    ossa_diagnostic diag;
    assert_int_equal(ossa_graph_desc_load_memory(bad, strlen(bad), NULL, &desc, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "/layers/0/states/x");
}

/* Woman.gltf with the example graph on its clips: the states follow the parameters. */
static void woman_locomotion(void **state) {
    (void)state;
    ossa_asset *asset = ot_load_asset("Woman/Woman.gltf");
    if (!asset) { skip(); return; }
    const char *json =
        "{\"parameters\": {\"speed\": 0.0, \"jump\": \"trigger\", \"armed\": false},"
        " \"layers\": [{\"name\": \"base\", \"start\": \"move\","
        "  \"states\": {\"move\": {\"blend1d\": {\"parameter\": \"speed\", \"clips\": [[\"Idle\", 0.0], [\"Walking\", 1.4],"
        "   [\"Running\", 4.0]], \"sync\": true}}, \"jump\": {\"clip\": \"Jump\", \"loop\": false}},"
        "  \"transitions\": [{\"from\": \"move\", \"to\": \"jump\", \"when\": \"jump\", \"duration\": 0.2, \"blend\": \"inertialize\"},"
        "   {\"from\": \"jump\", \"to\": \"move\", \"exit_time\": 0.9, \"duration\": 0.3, \"blend\": \"crossfade\"}]},"
        "  {\"name\": \"upper\", \"mask\": \"Spine\", \"start\": \"none\","
        "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": false}},"
        "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"duration\": 0.15, \"blend\": \"inertialize\"},"
        "    {\"from\": \"punch\", \"to\": \"none\", \"exit_time\": 1.0, \"duration\": 0.2, \"blend\": \"crossfade\"}]}]}";
    ossa_graph_desc *desc = NULL;
    assert_int_equal(ossa_graph_desc_load_memory(json, strlen(json), NULL, &desc, NULL), OSSA_OK);
    ossa_graph_clip clips[16];
    uint32_t n = 0;
    assert_int_equal(ossa_graph_clips_from_asset(asset, false, clips, 16, &n), OSSA_OK);
    ossa_graph *g = NULL;
    ossa_diagnostic diag;
    assert_int_equal(ossa_graph_create(desc, asset->skeleton, clips, n, NULL, &g, &diag), OSSA_OK);
    ossa_graph_instance *inst = NULL;
    assert_int_equal(ossa_graph_instance_create(g, NULL, &inst), OSSA_OK);
    ossa_graph_value p[3];
    ossa_graph_parameters_init(g, p, 3);
    uint32_t joints = ossa_graph_joint_count(g);
    ossa_transform *pose = calloc(joints, sizeof *pose);
    bool jumped = false, punched = false;
    for (int i = 0; i < 360; i++) {
        p[0].number = (float)i / 60.0f;
        p[1].flag = i == 60;
        p[2].flag = i >= 120 && i < 130;
        ossa_graph_output out = {.pose = pose, .pose_count = joints};
        assert_int_equal(ossa_graph_update(inst, 1.0f / 60, p, 3, &out), OSSA_OK);
        jumped |= active(inst, 0) == 1;
        punched |= active(inst, 1) == 1;
        for (uint32_t j = 0; j < joints; j++) assert_true(isfinite(pose[j].translation.y));
    }
    assert_true(jumped && punched);
    assert_int_equal(active(inst, 0), 0);
    free(pose);
    ossa_graph_instance_destroy(inst);
    ossa_graph_destroy(g);
    ossa_graph_desc_destroy(desc);
    ossa_asset_destroy(asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blend2d_weights),
        cmocka_unit_test(dead_blend_validity),
        cmocka_unit_test(dead_blend_continuity),
        cmocka_unit_test_setup_teardown(crossfade_equals_blend_job, setup, teardown),
        cmocka_unit_test_setup_teardown(exit_time_and_trigger_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(inertialize_continuity, setup, teardown),
        cmocka_unit_test_setup_teardown(dead_blend_through_graph, setup, teardown),
        cmocka_unit_test_setup_teardown(interruption_is_continuous, setup, teardown),
        cmocka_unit_test_setup_teardown(synced_self_blend_is_the_clip, setup, teardown),
        cmocka_unit_test_setup_teardown(masked_layer_and_events, setup, teardown),
        cmocka_unit_test_setup_teardown(update_allocates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(hand_filled_description, setup, teardown),
        cmocka_unit_test_setup_teardown(blend2d_state_and_bad_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(root_motion_of_playing_states, setup, teardown),
        cmocka_unit_test_setup_teardown(synced_crossfade_shares_the_phase, setup, teardown),
        cmocka_unit_test_setup_teardown(additive_layer, setup, teardown),
        cmocka_unit_test(woman_locomotion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
