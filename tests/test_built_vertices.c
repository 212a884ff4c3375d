/* The built clips' bound on the skin (docs/built-clips.md, "The guarantee"): every skinned vertex
 * of a clip built with its meshes stays within the precision at thousands of random times,
 * checked on the test side (the editable clip through its public sampling job, then a plain
 * double-precision TRS chain and skinning loop written here, not the builder's code); on every
 * shared asset with a skinned mesh and on generated skeletons under tiny (0.01), huge (100) and
 * non-uniform ancestor scales. A clip built without a mesh keeps the model-space shell bound;
 * the scale-aware default precision. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/gltf.h>

/* ---- test-side math: 3 x 4 affine maps in double, rows r at m[r * 4 + c] */

typedef struct aff { double m[12]; } aff;

static aff aff_trs(const ossa_transform *t) {
    double x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    double s[3] = {t->scale.x, t->scale.y, t->scale.z}, tr[3] = {t->translation.x, t->translation.y, t->translation.z};
    aff a;
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 3; c++) a.m[i * 4 + c] = r[i][c] * s[c];
        a.m[i * 4 + 3] = tr[i];
    }
    return a;
}

static aff aff_mul(const aff *a, const aff *b) {
    aff o;
    for (int i = 0; i < 3; i++) {
        for (int c = 0; c < 4; c++) {
            double v = c == 3 ? a->m[i * 4 + 3] : 0.0;
            for (int k = 0; k < 3; k++) v += a->m[i * 4 + k] * b->m[k * 4 + c];
            o.m[i * 4 + c] = v;
        }
    }
    return o;
}

static aff aff_of_mat4(const ossa_mat4 *m) {
    aff a;
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 4; c++) a.m[i * 4 + c] = m->m[c * 4 + i];
    return a;
}

static void aff_apply(const aff *a, const double p[3], double out[3]) {
    for (int i = 0; i < 3; i++) out[i] = a->m[i * 4] * p[0] + a->m[i * 4 + 1] * p[1] + a->m[i * 4 + 2] * p[2] + a->m[i * 4 + 3];
}

/* Model matrices of a local pose (parents first). */
static void chain(const ossa_transform *locals, const int32_t *parents, uint32_t J, aff *out) {
    for (uint32_t j = 0; j < J; j++) {
        aff l = aff_trs(&locals[j]);
        out[j] = parents[j] >= 0 ? aff_mul(&out[parents[j]], &l) : l;
    }
}

/* ---- the check */

typedef struct check_result {
    double max_error;
    uint32_t times, vertices;
} check_result;

/* Per skeleton joint, the inverse bind matrix of mesh m's skin (identity elsewhere). */
static void skin_ibms(const ossa_skeleton *sk, const ossa_mesh *m, aff *ibm) {
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        memset(&ibm[j], 0, sizeof ibm[j]);
        ibm[j].m[0] = ibm[j].m[5] = ibm[j].m[10] = 1.0;
    }
    const ossa_skin *s = &sk->skins[m->skin];
    for (uint32_t k = 0; k < s->joint_count; k++) ibm[s->joints[k]] = aff_of_mat4(&s->inverse_bind[k]);
}

static bool skinned(const ossa_skeleton *sk, const ossa_mesh *m) {
    return m && m->vertex_count && m->joints && m->weights && (m->influences == 4 || m->influences == 8) &&
           m->skin >= 0 && (uint32_t)m->skin < sk->skin_count;
}

/* Skins `vertex_step`-th vertices of every mesh (from a random offset) through the built and the
 * editable clip at `times` random times in [start, end]; the largest distance. */
static check_result check_vertices(const ossa_skeleton *sk, const ossa_mesh *const *meshes, uint32_t mesh_count,
                                   const ossa_clip *clip, const ossa_built_clip *bc, uint32_t times, uint32_t vertex_step,
                                   uint64_t *rng) {
    uint32_t J = sk->joint_count;
    ossa_transform *ex = calloc(J, sizeof *ex), *got = calloc(J, sizeof *got);
    aff *me = calloc(J, sizeof *me), *mb = calloc(J, sizeof *mb), *ibm = calloc(J, sizeof *ibm);
    aff *pe = calloc(J, sizeof *pe), *pb = calloc(J, sizeof *pb);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, ossa_built_clip_weight_count(bc), NULL, &ctx), OSSA_OK);
    float *wbuf = calloc(ossa_built_clip_weight_count(bc) + 1, sizeof(float));
    check_result res = {0};
    for (uint32_t i = 0; i < mesh_count; i++) {
        const ossa_mesh *m = meshes[i];
        if (!skinned(sk, m)) continue;
        skin_ibms(sk, m, ibm);
        for (uint32_t k = 0; k < times; k++) {
            float t = ot_rand_float(rng, clip->start, clip->end);
            ot_clip_sample(clip, t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, ex, sk->joint_count);
            ossa_sample_job job = {.clip = bc, .context = ctx, .time = t, .output = got, .output_count = J,
                                   .weights = wbuf, .weights_count = ossa_built_clip_weight_count(bc),
                                   .reference = sk->rest, .reference_count = J};
            assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
            chain(ex, sk->parents, J, me);
            chain(got, sk->parents, J, mb);
            for (uint32_t j = 0; j < J; j++) pe[j] = aff_mul(&me[j], &ibm[j]), pb[j] = aff_mul(&mb[j], &ibm[j]);
            uint32_t first = (uint32_t)(ot_rand_u64(rng) % vertex_step);
            for (uint32_t v = first; v < m->vertex_count; v += vertex_step) {
                double p[3] = {m->positions[v * 3], m->positions[v * 3 + 1], m->positions[v * 3 + 2]};
                double se[3] = {0, 0, 0}, sb[3] = {0, 0, 0};
                for (uint32_t n = 0; n < m->influences; n++) {
                    double w = m->weights[v * m->influences + n], qe[3], qb[3];
                    uint32_t j = m->joints[v * m->influences + n];
                    if (!(w > 0.0)) continue;
                    aff_apply(&pe[j], p, qe);
                    aff_apply(&pb[j], p, qb);
                    for (int c = 0; c < 3; c++) se[c] += w * qe[c], sb[c] += w * qb[c];
                }
                double d = sqrt((se[0] - sb[0]) * (se[0] - sb[0]) + (se[1] - sb[1]) * (se[1] - sb[1]) +
                                (se[2] - sb[2]) * (se[2] - sb[2]));
                if (d > res.max_error) res.max_error = d;
                res.vertices++;
            }
            res.times++;
        }
    }
    ossa_sampling_context_destroy(ctx);
    free(wbuf), free(ex), free(got), free(me), free(mb), free(ibm), free(pe), free(pb);
    return res;
}

/* The bind-pose height on the test side: the largest extent of the joints' bind origins. */
static double bind_height(const ossa_skeleton *sk) {
    aff *m = calloc(sk->joint_count, sizeof *m);
    chain(sk->bind, sk->parents, sk->joint_count, m);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, h = 0.0;
    for (uint32_t j = 0; j < sk->joint_count; j++)
        for (int r = 0; r < 3; r++) {
            lo[r] = fmin(lo[r], m[j].m[r * 4 + 3]);
            hi[r] = fmax(hi[r], m[j].m[r * 4 + 3]);
        }
    for (int r = 0; r < 3; r++) h = fmax(h, hi[r] - lo[r]);
    free(m);
    return h > 0.0 ? h : 1.8;
}

/* The default precision from built_clip.h's contract, on the test side (double): 1e-4 x h / 1.8;
 * with a declared unit m, min(1e-4 / m, that) but at least 1e-5 x h. */
static double contract_precision(double h, double m) {
    double relative = 1e-4 * h / 1.8;
    return m > 0 ? fmax(fmin(1e-4 / m, relative), 1e-5 * h) : relative;
}

/* Builds every clip of `asset` with its meshes at the default precision and checks the vertices
 * (clips: every `clip_step`-th). */
static void check_asset(const char *path, uint32_t clip_step, uint32_t times, uint32_t vertex_step) {
    ossa_asset *a = ot_load_asset(path);
    if (!a) return;
    const ossa_skeleton *sk = a->skeleton;
    uint32_t skinned_meshes = 0;
    for (uint32_t i = 0; i < a->mesh_count; i++) skinned_meshes += skinned(sk, a->meshes[i]);
    assert_true(skinned_meshes > 0);
    double h = bind_height(sk), precision = contract_precision(h, sk->metres_per_unit);
    ot_assert_near(ossa_clip_build_default_precision(sk), precision, precision * 1e-5);
    /* for the benchmark figures (docs/performance.md): OSSA_VERTEX_FULL=1 checks every clip and
     * vertex at 500 times, OSSA_VERTEX_PRECISION=P builds at an absolute precision */
    const char *full = getenv("OSSA_VERTEX_FULL"), *given = getenv("OSSA_VERTEX_PRECISION");
    if (full && *full == '1') clip_step = 1, times = 500, vertex_step = 1;
    else if (ot_under_valgrind()) clip_step *= 4, times = times / 4 + 1; /* a subset under memcheck */
    if (given && *given) precision = (float)atof(given);
    uint64_t rng = 0x5eed0bd5u;
    for (uint32_t c = 0; c < a->clip_count; c += clip_step) {
        ossa_clip_build_options opt = {0};
        opt.precision = given && *given ? (float)precision : 0.0f;
        opt.meshes = (const ossa_mesh *const *)a->meshes;
        opt.mesh_count = a->mesh_count;
        ossa_built_clip *bc = NULL;
        ossa_clip_build_stats st;
        assert_int_equal(ossa_clip_build(a->clips[c], sk, &opt, NULL, &bc, &st), OSSA_OK);
        ot_assert_near(ossa_built_clip_options(bc).precision, precision, precision * 1e-5);
        assert_int_equal(st.vertex_meshes, skinned_meshes);
        assert_true(st.max_vertex_error <= (float)precision);
        check_result r = check_vertices(sk, opt.meshes, opt.mesh_count, a->clips[c], bc, times, vertex_step, &rng);
        printf("%s clip %u '%s': %zu B, vertex error %.3g (builder %.3g at %u grid times, %u unchecked), "
               "test %.3g over %u times x %u vertices, precision %.3g\n",
               path, c, a->clips[c]->name, st.bytes, (double)st.max_vertex_error, (double)st.max_vertex_error,
               st.vertex_times, st.vertex_times_unchecked, r.max_error, r.times, r.vertices, precision);
        assert_true(r.times > 0 && r.vertices > 0);
        assert_true(r.max_error <= precision);
        ossa_built_clip_destroy(bc);
    }
    ossa_asset_destroy(a);
}

static void test_woman_vertices(void **state) {
    (void)state;
    /* every other clip (5 of 10: the ASan budget), 300 random times each, every 7th vertex
     * (~800 of 5,718) from a random offset at each time */
    check_asset("Woman/Woman.gltf", 2, 300, 7);
}

static void test_small_skinned_assets(void **state) {
    (void)state;
    static const char *const paths[] = {
        "rigged_simple/rigged_simple.gltf", "simple_skin/simple_skin.gltf",
        "glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf",
        "glTF-Asset-Generator/Positive/Animation_SkinType/Animation_SkinType_00.gltf"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) check_asset(paths[i], 1, 1000, 1);
}

/* ---- generated skeletons under scaled ancestors */

#define GEN_JOINTS 8
#define GEN_VERTICES 400
#define GEN_KEYS 31

typedef struct generated {
    ossa_skeleton *skeleton;
    ossa_mesh *mesh;
    ossa_clip *clip;
} generated;

static void quat_of_axis_angle(double ax, double ay, double az, double angle, float *q) {
    double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
    q[0] = (float)(ax * s), q[1] = (float)(ay * s), q[2] = (float)(az * s), q[3] = (float)cos(angle / 2);
}

/* A root node scaled `root_scale` (an importer's unit node), a chain of GEN_JOINTS joints whose
 * local translations are `bone / root_scale` (so the model is human sized), a mesh of vertices
 * around the chain weighted to up to 4 neighbouring joints, and a 1 s LINEAR clip of random
 * rotations on every joint. */
static generated generate(ossa_vec3 root_scale, double bone, uint64_t seed) {
    uint64_t rng = seed;
    uint32_t J = GEN_JOINTS + 1;
    int32_t parents[GEN_JOINTS + 1];
    ossa_transform rest[GEN_JOINTS + 1];
    for (uint32_t j = 0; j < J; j++) {
        parents[j] = (int32_t)j - 1;
        memset(&rest[j], 0, sizeof rest[j]);
        rest[j].rotation.w = 1.0f;
        rest[j].scale = (ossa_vec3){1.0f, 1.0f, 1.0f};
        if (j > 1) rest[j].translation.y = (float)(bone / root_scale.y);
        if (j > 1) rest[j].translation.x = (float)(0.3 * bone / root_scale.x);
    }
    rest[0].scale = root_scale;
    quat_of_axis_angle(0, 0, 1, 0.3, &rest[2].rotation.x);
    aff model[GEN_JOINTS + 1];
    chain(rest, parents, J, model);
    ossa_mat4 ibm[GEN_JOINTS + 1];
    uint32_t skin_joints[GEN_JOINTS + 1];
    for (uint32_t j = 0; j < J; j++) {
        ossa_mat4 m;
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 4; c++) m.m[c * 4 + i] = (float)model[j].m[i * 4 + c];
        m.m[3] = m.m[7] = m.m[11] = 0.0f, m.m[15] = 1.0f;
        assert_true(ossa_mat4_inverse(&m, &ibm[j]));
        skin_joints[j] = j;
    }
    ossa_skin_desc skin = {"skin", J, skin_joints, ibm, 0};
    ossa_skeleton_desc sd = {J, parents, rest, NULL, 1, &skin, 0.0f};
    generated g = {0};
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &g.skeleton), OSSA_OK);
    /* the mesh: each vertex near joint k (model space), weights on k-1 .. k+2 */
    static float positions[GEN_VERTICES * 3], weights[GEN_VERTICES * 4];
    static uint16_t joints[GEN_VERTICES * 4];
    for (uint32_t v = 0; v < GEN_VERTICES; v++) {
        uint32_t k = 1 + (uint32_t)(ot_rand_u64(&rng) % GEN_JOINTS);
        double r = ot_rand_float(&rng, 0.0f, (float)(0.6 * bone));
        ossa_quat dir = ot_rand_quat(&rng);
        double d[3] = {dir.x, dir.y, dir.z}, dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-9;
        for (uint32_t c = 0; c < 3; c++) positions[v * 3 + c] = (float)(model[k].m[c * 4 + 3] + r * d[c] / dn);
        float sum = 0.0f;
        for (uint32_t n = 0; n < 4; n++) {
            uint32_t j = k + n >= 1 ? k + n - 1 : 0;
            if (j >= J) j = J - 1;
            joints[v * 4 + n] = (uint16_t)j;
            weights[v * 4 + n] = ot_rand_float(&rng, 0.0f, 1.0f);
            sum += weights[v * 4 + n];
        }
        for (uint32_t n = 0; n < 4; n++) weights[v * 4 + n] /= sum;
    }
    ossa_mesh md = {0};
    md.name = "generated";
    md.vertex_count = GEN_VERTICES;
    md.positions = positions;
    md.influences = 4;
    md.joints = joints;
    md.weights = weights;
    md.skin = 0;
    md.node = -1;
    md.material = -1;
    assert_int_equal(ossa_mesh_create(&md, NULL, &g.mesh), OSSA_OK);
    /* the clip: random rotations of every chain joint, 30 Hz */
    static float times[GEN_KEYS], values[GEN_JOINTS][GEN_KEYS * 4];
    ossa_transform_track tracks[GEN_JOINTS];
    memset(tracks, 0, sizeof tracks);
    for (uint32_t k = 0; k < GEN_KEYS; k++) times[k] = (float)k / 30.0f;
    for (uint32_t j = 0; j < GEN_JOINTS; j++) {
        double ax = ot_rand_float(&rng, -1, 1), ay = ot_rand_float(&rng, -1, 1), az = ot_rand_float(&rng, -1, 1);
        double phase = ot_rand_float(&rng, 0, 6.28f), amp = ot_rand_float(&rng, 0.2f, 1.0f);
        for (uint32_t k = 0; k < GEN_KEYS; k++)
            quat_of_axis_angle(ax, ay, az + 0.3 * sin(k * 0.4), amp * sin(phase + k * 0.21), &values[j][k * 4]);
        tracks[j].joint = j + 1;
        tracks[j].rotation = (ossa_track){.kind = OSSA_TRACK_ROTATION, .interp = OSSA_INTERP_LINEAR, .components = 4,
                                          .key_count = GEN_KEYS, .times = times, .values = values[j]};
    }
    ossa_clip_desc cd = {.name = "generated", .track_count = GEN_JOINTS, .tracks = tracks};
    assert_int_equal(ossa_clip_create(&cd, NULL, &g.clip), OSSA_OK);
    return g;
}

static void generated_free(generated *g) {
    ossa_clip_destroy(g->clip);
    ossa_mesh_destroy(g->mesh);
    ossa_skeleton_destroy(g->skeleton);
}

static void test_generated_scales(void **state) {
    (void)state;
    static const struct { ossa_vec3 scale; double bone; } cases[] = {
        {{0.01f, 0.01f, 0.01f}, 0.25}, /* a Mixamo-style unit node: centimetre joints, metre skin */
        {{100.0f, 100.0f, 100.0f}, 0.25},
        {{0.5f, 2.0f, 1.0f}, 0.25},    /* non-uniform */
        {{1.0f, 1.0f, 1.0f}, 40.0},    /* a 300-unit creature: the default precision scales up */
        {{0.01f, 0.01f, 0.01f}, 0.002} /* a 1.5 cm one */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        generated g = generate(cases[i].scale, cases[i].bone, 1000 + i);
        double precision = 1e-4 * bind_height(g.skeleton) / 1.8;
        const ossa_mesh *meshes[1] = {g.mesh};
        ossa_clip_build_options opt = {0};
        opt.meshes = meshes;
        opt.mesh_count = 1;
        ossa_built_clip *bc = NULL;
        ossa_clip_build_stats st;
        assert_int_equal(ossa_clip_build(g.clip, g.skeleton, &opt, NULL, &bc, &st), OSSA_OK);
        ot_assert_near(ossa_built_clip_options(bc).precision, precision, precision * 1e-5);
        assert_int_equal(st.vertex_meshes, 1);
        uint64_t rng = 77 + i;
        check_result r = check_vertices(g.skeleton, meshes, 1, g.clip, bc, 1000, 3, &rng);
        printf("scale (%g %g %g) bone %g: %zu B, precision %.3g, builder vertex error %.3g, test %.3g over %u x %u\n",
               (double)cases[i].scale.x, (double)cases[i].scale.y, (double)cases[i].scale.z, cases[i].bone, st.bytes,
               precision, (double)st.max_vertex_error, r.max_error, r.times, r.vertices);
        assert_true(r.max_error <= precision);
        ossa_built_clip_destroy(bc);
        generated_free(&g);
    }
}

/* Without a mesh: every joint's shell is the default (0.03 x height / 1.8 model units at the bind
 * pose), checked on the test side with virtual vertices placed at that model distance along each
 * joint's bind axes; the stats say no mesh was checked. */
static void test_meshless_shell(void **state) {
    (void)state;
    generated g = generate((ossa_vec3){0.01f, 0.01f, 0.01f}, 0.25, 99);
    const ossa_skeleton *sk = g.skeleton;
    uint32_t J = sk->joint_count;
    double h = bind_height(sk), precision = 1e-4 * h / 1.8, shell = 0.03 * h / 1.8;
    ossa_built_clip *bc = NULL;
    ossa_clip_build_stats st;
    assert_int_equal(ossa_clip_build(g.clip, sk, NULL, NULL, &bc, &st), OSSA_OK);
    assert_int_equal(st.vertex_meshes, 0);
    assert_true(st.max_vertex_error == 0.0f);
    aff *bind = calloc(J, sizeof *bind), *me = calloc(J, sizeof *me), *mb = calloc(J, sizeof *mb);
    ossa_transform *ex = calloc(J, sizeof *ex), *got = calloc(J, sizeof *got);
    chain(sk->bind, sk->parents, J, bind);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, 0, NULL, &ctx), OSSA_OK);
    uint64_t rng = 4242;
    double worst = 0.0;
    for (int k = 0; k < 3000; k++) {
        float t = ot_rand_float(&rng, g.clip->start, g.clip->end);
        ot_clip_sample(g.clip, t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, ex, sk->joint_count);
        ossa_sample_job job = {.clip = bc, .context = ctx, .time = t, .output = got, .output_count = J,
                               .reference = sk->rest, .reference_count = J};
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        chain(ex, sk->parents, J, me);
        chain(got, sk->parents, J, mb);
        for (uint32_t j = 0; j < J; j++)
            for (int p = 0; p < 4; p++) {
                double u[3] = {0, 0, 0}, a[3], b[3];
                if (p) { /* shell model units along bind axis p - 1, in joint-local units */
                    double n = sqrt(bind[j].m[p - 1] * bind[j].m[p - 1] + bind[j].m[4 + p - 1] * bind[j].m[4 + p - 1] +
                                    bind[j].m[8 + p - 1] * bind[j].m[8 + p - 1]);
                    u[p - 1] = shell / n;
                }
                aff_apply(&me[j], u, a);
                aff_apply(&mb[j], u, b);
                double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
                worst = fmax(worst, d);
            }
    }
    printf("mesh-less under a 0.01 node: shell %.3g, precision %.3g, test %.3g, builder %.3g\n", shell, precision, worst,
           (double)st.max_error);
    assert_true(worst <= precision);
    assert_true(worst > 0.0); /* something was compressed */
    ossa_clip_error e;
    assert_int_equal(ossa_built_clip_measure(bc, g.clip, sk, 0.0f, NULL, &e), OSSA_OK);
    assert_true(e.max_error == st.max_error); /* the public measurement uses the same model-space shell */
    ossa_sampling_context_destroy(ctx);
    free(bind), free(me), free(mb), free(ex), free(got);
    ossa_built_clip_destroy(bc);
    generated_free(&g);
}

/* Misuse: mesh_count without meshes; a rigid mesh (no influences) is not checked; NULLs. */
static void test_mesh_options(void **state) {
    (void)state;
    generated g = generate((ossa_vec3){1.0f, 1.0f, 1.0f}, 0.25, 5);
    ossa_clip_build_options opt = {0};
    opt.mesh_count = 1;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(g.clip, g.skeleton, &opt, NULL, &bc, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(bc);
    ossa_diagnostic d;
    assert_int_equal(ossa_clip_build_check(g.clip, g.skeleton, &opt, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(d.path, "options");
    /* the same mesh without influences: rigid, nothing to skin, said so */
    ossa_mesh rigid = *g.mesh;
    rigid.influences = 0;
    rigid.joints = NULL;
    rigid.weights = NULL;
    const ossa_mesh *meshes[1] = {&rigid};
    opt.meshes = meshes;
    ossa_clip_build_stats st;
    assert_int_equal(ossa_clip_build(g.clip, g.skeleton, &opt, NULL, &bc, &st), OSSA_OK);
    assert_int_equal(st.vertex_meshes, 0);
    ot_assert_near(st.character_height, bind_height(g.skeleton), 1e-5 * bind_height(g.skeleton));
    ossa_built_clip_destroy(bc);
    assert_true(ossa_skeleton_bind_height(NULL) == 0.0f);
    assert_true(ossa_clip_build_default_precision(NULL) == 0.0f);
    generated_free(&g);
}

/* Two joints, the second `height` above the first: a skeleton of that bind-pose height. */
static ossa_skeleton *upright(float height, float metres_per_unit) {
    int32_t parents[2] = {-1, 0};
    ossa_transform rest[2] = {ossa_transform_identity(), ossa_transform_identity()};
    rest[1].translation.y = height;
    ossa_skeleton_desc sd = {.joint_count = 2, .parents = parents, .rest = rest, .metres_per_unit = metres_per_unit};
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&sd, NULL, &sk), OSSA_OK);
    return sk;
}

/* The default precision by hand: the height rule where no unit is declared, 0.1 mm in the
 * declared unit when that is tighter, the float-rounding floor for very tall glTF models; and the
 * glTF importer declares metres, so Woman (5.27 m) builds at 0.1 mm by default. */
static void test_default_precision(void **state) {
    (void)state;
    static const struct { float height, metres_per_unit; double precision; } cases[] = {
        {1.8f, 0.0f, 1e-4},           /* no unit: 1e-4 x 1.8 / 1.8 */
        {5.27f, 0.0f, 2.92778e-4},    /* no unit: 1e-4 x 5.27 / 1.8 */
        {5.27f, 1.0f, 1e-4},          /* metres: 0.1 mm is tighter than 2.93e-4 */
        {0.9f, 1.0f, 5e-5},           /* a 0.9 m character: the height rule is tighter */
        {50.0f, 1.0f, 5e-4},          /* 50 m: 0.1 mm would be 2e-6 of the height; floor 1e-5 x 50 */
        {170.0f, 0.01f, 9.44444e-3},  /* centimetres, 1.7 m: 1e-4 x 170 / 1.8 below 0.01 cm */
        {250.0f, 0.01f, 1e-2},        /* centimetres, 2.5 m: 0.1 mm = 0.01 cm */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ossa_skeleton *sk = upright(cases[i].height, cases[i].metres_per_unit);
        ot_assert_near(ossa_clip_build_default_precision(sk), cases[i].precision, cases[i].precision * 1e-5);
        ossa_skeleton_destroy(sk);
    }
    ossa_asset *a = ot_load_asset("Woman/Woman.gltf");
    if (!a) return;
    assert_true(a->skeleton->metres_per_unit == 1.0f);
    ot_assert_near(ossa_clip_build_default_precision(a->skeleton), 1e-4, 1e-9);
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(a->clips[0], a->skeleton, NULL, NULL, &bc, NULL), OSSA_OK);
    ot_assert_near(ossa_built_clip_options(bc).precision, 1e-4, 1e-9);
    ossa_built_clip_destroy(bc);
    ossa_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_precision),
        cmocka_unit_test(test_woman_vertices),
        cmocka_unit_test(test_small_skinned_assets),
        cmocka_unit_test(test_generated_scales),
        cmocka_unit_test(test_meshless_shell),
        cmocka_unit_test(test_mesh_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
