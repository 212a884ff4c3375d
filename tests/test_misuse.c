/* API misuse (issue #6): NULL pointers, zero sizes, out-of-range enums, a clip whose
 * tracks name joints the skeleton lacks, poses and palettes of the wrong size. Each call
 * returns the defined error its header documents (or, for the void/float hot-path calls,
 * does nothing harmful: outputs untouched, documented neutral value), and never writes
 * past a buffer (run under ASan/UBSan in CI, under valgrind by scripts/valgrind.sh). */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const float TIMES[] = {0, 1};
static const float TRANS[] = {0, 0, 0, 2, 4, 6};

static ossa_track vec3_track(void) {
    ossa_track t;
    memset(&t, 0, sizeof t);
    t.kind = OSSA_TRACK_VECTOR;
    t.interp = OSSA_INTERP_LINEAR;
    t.components = 3;
    t.key_count = 2;
    t.times = TIMES;
    t.values = TRANS;
    return t;
}

/* A clip with one translation track on `joint`. */
static ossa_clip *clip_on(uint32_t joint) {
    ossa_transform_track tt;
    memset(&tt, 0, sizeof tt);
    tt.joint = joint;
    tt.translation = vec3_track();
    tt.rotation.kind = OSSA_TRACK_ROTATION;
    tt.rotation.components = 4;
    tt.scale.components = 3;
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.track_count = 1;
    d.tracks = &tt;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    return c;
}

/* Two joints (0 root, 1 child) and one skin over both. */
static ossa_skeleton *two_joints(void) {
    const int32_t parents[] = {-1, 0};
    const uint32_t joints[] = {0, 1};
    ossa_skin_desc s;
    memset(&s, 0, sizeof s);
    s.joint_count = 2;
    s.joints = joints;
    s.root = -1;
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = 2;
    d.parents = parents;
    d.skin_count = 1;
    d.skins = &s;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

static void loader_misuse(void **state) {
    (void)state;
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_diagnostic d;
    const char doc[] = "{\"asset\":{\"version\":\"2.0\"}}";
    assert_int_equal(ossa_gltf_load_memory(NULL, 10, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    a = (ossa_asset *)(uintptr_t)1;
    assert_int_equal(ossa_gltf_load_memory(doc, 0, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_gltf_load_memory(doc, sizeof doc - 1, NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gltf_load_memory(doc, sizeof doc - 1, NULL, &a, NULL), OSSA_OK); /* diag optional */
    ossa_asset_destroy(a);
    assert_int_equal(ossa_gltf_load_file(NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_gltf_load_file("x.gltf", NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gltf_load_file(ot_tmp("misuse-does-not-exist.gltf"), NULL, &a, &d), OSSA_ERROR_IO);
    assert_null(a);
    assert_non_null(strstr(d.message, "cannot open"));
    /* a directory opens on Linux and ftell gave a huge "size": was LIMIT, now IO */
    assert_int_equal(ossa_gltf_load_file(ot_tmp(""), NULL, &a, &d), OSSA_ERROR_IO);
    assert_null(a);
    assert_non_null(strstr(d.message, "is not a regular file"));
    ossa_skeleton *sk = two_joints();
    assert_int_equal(ossa_gltf_load_clips(NULL, sk, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gltf_load_clips("x.gltf", NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gltf_load_clips("x.gltf", sk, NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_skeleton_destroy(sk);
    ossa_asset_destroy(NULL);
    assert_int_equal(ossa_asset_find_clip(NULL, "x"), -1);
    ossa_asset empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(ossa_asset_find_clip(&empty, NULL), -1);
    assert_string_equal(ossa_result_string((ossa_result)1000), "OSSA_RESULT_UNKNOWN");
    assert_string_equal(ossa_result_string(OSSA_RESULT_COUNT), "OSSA_RESULT_UNKNOWN");
}

/* Load options out of range: table_rate NaN is INVALID_ARGUMENT (from the clip), huge or
 * negative rates load (tables capped / no tables) and sample the same. */
static void load_options_misuse(void **state) {
    (void)state;
    const char doc[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,"
        "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":32}],\"buffers\":[{\"byteLength\":32,"
        "\"uri\":\"data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAQAAAQEA=\"}]}";
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    o.table_rate = NAN;
    assert_int_equal(ossa_gltf_load_memory(doc, sizeof doc - 1, &o, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_string_equal(d.path, "/animations/0");
    const float rates[] = {0, -1, 1e30f, INFINITY, 1e-30f};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        o.table_rate = rates[i];
        assert_int_equal(ossa_gltf_load_memory(doc, sizeof doc - 1, &o, &a, &d), OSSA_OK);
        ossa_transform out;
        for (int lk = OSSA_LOOKUP_DEFAULT; lk <= OSSA_LOOKUP_TABLE; lk++) {
            ot_clip_sample(a->clips[0], 0.5f, false, (ossa_lookup)lk, NULL, NULL, &out, 1);
            ot_assert_near(out.translation.z, 1.5f, 1e-6);
        }
        ossa_asset_destroy(a);
    }
}

static void clip_create_misuse(void **state) {
    (void)state;
    ossa_clip *c = (ossa_clip *)(uintptr_t)1;
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(ossa_clip_create(&d, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_clip_create(NULL, NULL, &c), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(c);
    d.track_count = 1; /* tracks NULL */
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_ARGUMENT);
    d.track_count = 0;
    d.weight_track_count = 2; /* weight_tracks NULL */
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_ARGUMENT);
    d.weight_track_count = 0;
    d.table_rate = NAN;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_ARGUMENT);
    d.table_rate = 0;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK); /* an empty clip is valid */
    assert_true(c->start == 0 && c->end == 0);
    ossa_clip_destroy(c);
    ossa_clip_destroy(NULL);

    /* nonsense tracks: INVALID_DATA */
    ossa_transform_track tt;
    memset(&tt, 0, sizeof tt);
    tt.rotation.kind = OSSA_TRACK_ROTATION;
    tt.rotation.components = 4;
    tt.scale.components = 3;
    d.track_count = 1;
    d.tracks = &tt;
    const float bad_times[][2] = {{1, 1}, {1, 0}, {NAN, 1}, {0, INFINITY}};
    for (size_t i = 0; i < 4; i++) {
        tt.translation = vec3_track();
        tt.translation.times = bad_times[i];
        assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
        assert_null(c);
    }
    tt.translation = vec3_track();
    tt.translation.values = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    tt.translation = vec3_track();
    tt.translation.components = 4; /* translation must be 3 */
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    tt.translation = vec3_track();
    tt.translation.components = OSSA_MAX_COMPONENTS + 1;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_track_validate(NULL), OSSA_ERROR_INVALID_ARGUMENT);
}

/* A clip made for a bigger skeleton: tracks whose joint >= joint_count are skipped,
 * the rest comes from the reference pose; nothing is written past joint_count. */
static void clip_skeleton_mismatch(void **state) {
    (void)state;
    ossa_clip *far = clip_on(5), *near = clip_on(1);
    ossa_transform ref[3], out[3];
    for (int i = 0; i < 3; i++) ref[i] = ossa_transform_identity();
    ref[1].translation = ossa_vec3_make(9, 9, 9);
    memset(out, 0xAB, sizeof out);
    ossa_clip_sample_job job = {.clip = far, .time = 0.5f, .reference = ref, .reference_count = 2, .output = out,
                                .output_count = 3};
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    ot_assert_near(job.sampled_time, 0.5f, 0);
    assert_memory_equal(out, ref, 2 * sizeof *out);
    uint8_t canary[sizeof out[2]];
    memset(canary, 0xAB, sizeof canary);
    assert_memory_equal(&out[2], canary, sizeof canary); /* the pose is reference_count joints */
    /* the track that fits is applied; a zero-joint pose writes nothing */
    job.clip = near;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    ot_assert_near(out[1].translation.y, 2.0f, 1e-6);
    memset(out, 0xAB, sizeof out);
    job.reference_count = 0;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    assert_memory_equal(&out[0], canary, sizeof canary);
    /* NULL clip / NULL output: INVALID_ARGUMENT, outputs untouched */
    job.reference_count = 2, job.clip = NULL;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&out[0], canary, sizeof canary);
    job.clip = near, job.output = NULL;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_clip_sample_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    /* CURSOR without cursors, or an out-of-range lookup enum: INVALID_ARGUMENT */
    job.output = out;
    job.lookup = OSSA_LOOKUP_CURSOR;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.lookup = (ossa_lookup)77;
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&out[0], canary, sizeof canary);
    /* NULL reference = identity */
    ossa_transform a[2];
    ot_clip_sample(near, 0.25f, false, OSSA_LOOKUP_BINARY, NULL, NULL, a, 2);
    ot_assert_near(a[0].rotation.w, 1.0f, 0);
    /* weights: index out of range, NULL clip or NULL output → INVALID_ARGUMENT, nothing written */
    float w[4] = {7, 7, 7, 7};
    ossa_clip_weights_job wj = {.clip = near, .time = 0.5f, .output = w, .output_count = 4};
    assert_int_equal(ossa_clip_weights_job_run(&wj), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(w[0] == 7);
    wj.clip = NULL;
    assert_int_equal(ossa_clip_weights_job_run(&wj), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_clip_weights_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(ossa_clip_duration(NULL) == 0.0f);
    assert_int_equal(ossa_clip_cursor_count(NULL), 0);
    assert_int_equal(ossa_clip_remap_joints(NULL, NULL, 0), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_clip_remap_joints(near, NULL, 3), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_clip_destroy(far);
    ossa_clip_destroy(near);
}

static void track_misuse(void **state) {
    (void)state;
    ossa_track t = vec3_track();
    float out[3] = {5, 5, 5};
    assert_true(ossa_track_sample(NULL, 0.5f, false, OSSA_LOOKUP_DEFAULT, NULL, out) == 0.0f);
    assert_true(ossa_track_sample(&t, 0.5f, false, OSSA_LOOKUP_DEFAULT, NULL, NULL) == 0.0f);
    assert_true(out[0] == 5);
    assert_true(ossa_track_start(NULL) == 0.0f && ossa_track_end(NULL) == 0.0f);
    uint32_t keys[4];
    assert_int_equal(ossa_track_build_table(NULL, 10, keys, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, 10, NULL, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, 0, keys, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, NAN, keys, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, INFINITY, keys, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, -5, keys, 4), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, 10, keys, 4), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_true(ossa_track_table_bound(&t, 10) > 4);
    assert_int_equal(ossa_track_table_bound(NULL, 10), 0);
    uint32_t cursor = 0xFFFFFFFFu; /* any start value is valid */
    assert_int_equal(ossa_track_find_key_cursor(&t, 0.5f, &cursor), 0);
    assert_int_equal(ossa_track_find_key_cursor(&t, 0.5f, NULL), 0);
}

static void skeleton_misuse(void **state) {
    (void)state;
    ossa_skeleton *sk = (ossa_skeleton *)(uintptr_t)1;
    ossa_skeleton_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(ossa_skeleton_create(&d, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_skeleton_create(NULL, NULL, &sk), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(sk);
    d.joint_count = 2; /* parents NULL */
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_ARGUMENT);
    const int32_t out_of_range[] = {-1, 2}, cycle[] = {1, 0}, below[] = {-1, -2};
    d.parents = out_of_range;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_DATA);
    d.parents = cycle;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_DATA);
    d.parents = below;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_DATA);
    const int32_t ok[] = {-1, 0};
    d.parents = ok;
    const uint32_t bad_joints[] = {0, 2};
    ossa_skin_desc s;
    memset(&s, 0, sizeof s);
    s.joint_count = 2;
    s.joints = bad_joints;
    s.root = -1;
    d.skin_count = 1; /* skins NULL */
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_ARGUMENT);
    d.skins = &s;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_DATA); /* skin joint 2 of 2 */
    s.joints = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_ARGUMENT);
    const uint32_t good[] = {0, 1};
    s.joints = good;
    s.root = 5;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_ERROR_INVALID_DATA);
    assert_null(sk);
    /* an inverse bind matrix that does not invert (all zeros): created, bind pose finite */
    ossa_mat4 ibm[2];
    memset(ibm, 0, sizeof ibm);
    s.root = -1;
    s.inverse_bind = ibm;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    for (uint32_t j = 0; j < 2; j++) {
        const ossa_transform *b = &sk->bind[j];
        assert_true(isfinite(b->translation.x) && isfinite(b->rotation.w) && isfinite(b->scale.x));
    }
    ossa_skeleton_destroy(sk);
    ossa_skeleton_destroy(NULL);
    assert_int_equal(ossa_skeleton_find_joint(NULL, "a"), -1);
    uint32_t order[2], o2n[2];
    assert_int_equal(ossa_joint_order(NULL, 2, order, o2n), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_joint_order(ok, 2, NULL, o2n), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_joint_order(cycle, 2, order, o2n), OSSA_ERROR_INVALID_DATA);
}

/* Poses of the wrong size: a parent index past joint_count (the pose is shorter than
 * the skeleton it was made for) is INVALID_ARGUMENT, and nothing is read past it. */
static void pose_wrong_size(void **state) {
    (void)state;
    ossa_transform locals[3];
    for (int i = 0; i < 3; i++) locals[i] = ossa_transform_identity();
    const int32_t parents[] = {-1, 0, 1};
    ossa_mat4 model[3];
    ossa_local_to_model_job job = {.parents = parents, .parent_count = 3, .input = locals, .input_count = 3,
                                   .output = model, .output_count = 3};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    const int32_t long_parents[] = {-1, 2, 0}; /* joint 1's parent is joint 2: fine for 3 */
    job.parents = long_parents;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    job.parent_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    const int32_t bad[] = {-1, -7};
    job.parents = bad;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_local_to_model_job ok = job;
    ok.parents = parents, ok.parent_count = 3;
    job = ok, job.input = NULL;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.parents = NULL;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.output = NULL;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.input_count = 2; /* a pose shorter than the hierarchy */
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    /* the reference walk: joint out of range → identity; a cycle stops */
    ossa_mat4 m = ossa_pose_joint_to_model(locals, parents, 3, 3);
    ossa_mat4 id = ossa_mat4_identity();
    assert_memory_equal(&m, &id, sizeof m);
    const int32_t cyc[] = {1, 0};
    m = ossa_pose_joint_to_model(locals, cyc, 2, 0);
    assert_memory_equal(&m, &id, sizeof m);
    job = ok, job.parents = cyc, job.parent_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK); /* identity locals: terminates */
    assert_false(ossa_pose_parents_first(NULL, 2));
    assert_true(ossa_pose_parents_first(NULL, 0));
}

static void skin_job_misuse(void **state) {
    (void)state;
    ossa_skin_job job;
    memset(&job, 0, sizeof job);
    assert_int_equal(ossa_skin_job_validate(&job, NULL), OSSA_ERROR_INVALID_ARGUMENT); /* default job fails */
    assert_int_equal(ossa_skin_job_validate(NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_skin_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    float pos[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0};
    uint16_t joints[8] = {0, 1, 0, 0, 3, 0, 0, 0};
    float weights[8] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    ossa_mat4 palette[2] = {ossa_mat4_identity(), ossa_mat4_identity()};
    ossa_dual_quat dq[2];
    ossa_dual_quat_job to_dq = {.palette = palette, .palette_count = 2, .output = dq, .output_count = 2};
    assert_int_equal(ossa_dual_quat_job_run(&to_dq), OSSA_OK);
    job.influences = 4;
    job.end = 1;
    job.vertex_count = 2;
    job.joints = joints;
    job.weights = weights;
    job.palette = palette;
    job.dual_quats = dq; /* read by DQS only */
    job.palette_count = 2;
    job.positions = pos;
    job.out_positions = out;
    job.kernel = OSSA_SKIN_KERNEL_SCALAR;
    assert_int_equal(ossa_skin_job_validate(&job, NULL), OSSA_OK);
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    assert_true(out[0] == 1 && out[2] == 3);
    /* vertex 1 names joint 3 of a 2-matrix palette: INVALID_DATA, nothing written */
    job.end = 2;
    job.kernel = OSSA_SKIN_KERNEL_AUTO;
    memset(out, 0, sizeof out);
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_DATA);
    assert_true(out[0] == 0 && out[3] == 0);
    job.method = OSSA_SKIN_DQS;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_DATA);
    assert_true(out[0] == 0);
    job.dual_quats = NULL;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.dual_quats = dq;
    job.method = OSSA_SKIN_LBS;
    job.end = 1;
    job.begin = 2; /* begin > end */
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.begin = 1; /* empty range: OK, nothing written */
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    job.begin = 0;
    job.influences = 3;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.influences = 4;
    job.kernel = (ossa_skin_kernel)42;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.kernel = OSSA_SKIN_KERNEL_AUTO;
    job.method = (ossa_skin_method)42;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.method = OSSA_SKIN_LBS;
    job.palette_count = 0;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.palette_count = 2;
    job.normals = pos; /* normals without an output */
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.normals = NULL;
    job.positions_stride = 6; /* smaller than an element */
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.positions_stride = 0;
    job.positions = (const float *)(const void *)((const char *)pos + 1); /* misaligned */
    assert_int_equal(ossa_skin_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(out[0] == 0);
    /* NaN weights and palettes: defined (no crash), not an error of the job */
    job.positions = pos;
    weights[0] = NAN;
    palette[1].m[0] = INFINITY;
    job.kernel = OSSA_SKIN_KERNEL_SCALAR;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    assert_int_equal(ossa_dual_quat_job_run(&to_dq), OSSA_OK);
    job.method = OSSA_SKIN_DQS, job.kernel = OSSA_SKIN_KERNEL_AUTO;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    to_dq.palette = NULL; /* a NULL palette fails, nothing written */
    memset(dq, 0, sizeof dq);
    assert_int_equal(ossa_dual_quat_job_run(&to_dq), OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(dq[0].real.w == 0 && dq[1].real.w == 0);
    assert_false(ossa_skin_kernel_available((ossa_skin_kernel)42));
    assert_string_equal(ossa_skin_kernel_name((ossa_skin_kernel)42), "unknown");
}

static void mesh_and_morph_misuse(void **state) {
    (void)state;
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, delta[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    uint32_t idx[3] = {0, 1, 3};
    ossa_mesh d;
    memset(&d, 0, sizeof d);
    d.vertex_count = 3;
    ossa_mesh *m = (ossa_mesh *)(uintptr_t)1;
    assert_int_equal(ossa_mesh_create(&d, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_mesh_create(NULL, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(m);
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT); /* no positions */
    d.positions = pos;
    d.index_count = 3;
    d.indices = idx; /* index 3 of 3 vertices */
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    idx[2] = 2;
    d.influences = 3;
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    d.influences = 4; /* joints/weights NULL */
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    d.influences = 0;
    d.target_count = 1; /* targets NULL */
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_morph_target t = {delta, NULL, NULL};
    d.targets = &t;
    assert_int_equal(ossa_mesh_create(&d, NULL, &m), OSSA_OK);
    float out[9], w = 2;
    ossa_morph_job ok = {.mesh = m, .weights = &w, .weight_count = 1, .end = 3, .out_positions = out,
                         .out_positions_count = 3};
    ossa_morph_job job = ok;
    job.mesh = NULL;
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.weights = NULL; /* weights needed */
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.end = 4; /* end > vertex_count */
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.begin = 2, job.end = 1; /* begin > end */
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.out_positions = NULL;
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.out_normals = out, job.out_normals_count = 3; /* the mesh has no normals */
    assert_int_equal(ossa_morph_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job = ok, job.begin = 1, job.end = 1;
    assert_int_equal(ossa_morph_job_run(&job), OSSA_OK);
    job = ok;
    assert_int_equal(ossa_morph_job_run(&job), OSSA_OK);
    ot_assert_near(out[3], 3.0f, 0);
    uint32_t map[1] = {0};
    assert_int_equal(ossa_mesh_remap_joints(NULL, map, 1), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_mesh_remap_joints(m, NULL, 1), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_vec3 lo, hi;
    assert_false(ossa_mesh_bounds(NULL, &lo, &hi));
    ossa_mesh_destroy(m);
    ossa_mesh_destroy(NULL);
}

static void player_misuse(void **state) {
    (void)state;
    ossa_skeleton *sk = two_joints();
    ossa_player *p = (ossa_player *)(uintptr_t)1;
    assert_int_equal(ossa_player_create(NULL, NULL, &p), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(p);
    assert_int_equal(ossa_player_create(sk, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_create(sk, NULL, &p), OSSA_OK);
    const ossa_clip_source none = {NULL, NULL};
    assert_int_equal(ossa_player_play(p, none, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_play(NULL, none, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_crossfade(p, none, 1, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_bind_root_motion(p, none, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_mat4 pal[2];
    assert_int_equal(ossa_player_palette(p, 1, pal, 2), OSSA_ERROR_INVALID_ARGUMENT); /* one skin */
    assert_int_equal(ossa_player_palette(p, 0, NULL, 2), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_palette(NULL, 0, pal, 2), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_palette(p, 0, pal, 1), OSSA_ERROR_BUFFER_TOO_SMALL); /* two joints */
    assert_int_equal(ossa_player_model(p, pal, 1), OSSA_ERROR_BUFFER_TOO_SMALL);
    /* a clip for another skeleton (joint 7): plays, that track is skipped, rest pose shown */
    ossa_clip *c = clip_on(7);
    const ossa_clip_source both = {c, (const ossa_built_clip *)(uintptr_t)1}; /* never read: rejected first */
    assert_int_equal(ossa_player_play(p, both, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_layer_play(p, 0, both, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_crossfade(p, both, 1, 1, true), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_bind_root_motion(p, both, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_play(p, ossa_source_editable(c), NAN, true), OSSA_OK);
    ossa_player_update(p, INFINITY);
    ossa_player_update(p, NAN);
    ossa_player_update(p, -1e30f);
    const ossa_transform *pose = ossa_player_pose(p);
    assert_memory_equal(pose, sk->rest, 2 * sizeof *pose);
    assert_true(isfinite(ossa_player_time(p)));
    assert_int_equal(ossa_player_palette(p, 0, pal, 2), OSSA_OK);
    assert_int_equal(ossa_player_model(p, pal, 2), OSSA_OK);
    /* NULL player: no-ops and neutral values */
    ossa_player_update(NULL, 1);
    ossa_player_set_speed(NULL, 1);
    assert_int_equal(ossa_player_model(NULL, pal, 2), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_player_model(p, NULL, 2), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(ossa_player_pose(NULL));
    assert_null(ossa_player_layer_source(NULL, 0).clip);
    assert_null(ossa_player_layer_source(NULL, 0).built);
    assert_true(ossa_player_time(NULL) == 0.0f);
    assert_true(ossa_player_fade_weight(NULL) == 1.0f);
    ossa_player_destroy(p);
    ossa_player_destroy(NULL);
    ossa_clip_destroy(c);
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loader_misuse),
        cmocka_unit_test(load_options_misuse),
        cmocka_unit_test(clip_create_misuse),
        cmocka_unit_test(clip_skeleton_mismatch),
        cmocka_unit_test(track_misuse),
        cmocka_unit_test(skeleton_misuse),
        cmocka_unit_test(pose_wrong_size),
        cmocka_unit_test(skin_job_misuse),
        cmocka_unit_test(mesh_and_morph_misuse),
        cmocka_unit_test(player_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
