/* GPU skinning and drawing (src/gl), on a headless EGL context (Mesa llvmpipe here).
 * Every shader variant is read back through transform feedback and compared with a
 * double-precision scalar reference written here and with ossa's CPU kernels, within
 * 1e-5 of the model's bounding-box diagonal. Skips with a printed reason when no EGL
 * display gives a GL 3.3 core context. */
#include "test_support.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/gl.h>

#define W 64
#define H 64
#define REL_TOL 1e-5

static ossa_gl_headless *g_ctx;
static ossa_gl_renderer *g_renderer;
static char g_no_gl[128]; /* why there is no context, for the skip log */

static int group_setup(void **state) {
    (void)state;
    ossa_result r = ossa_gl_headless_create(W, H, &g_ctx);
    if (r != OSSA_OK) {
        snprintf(g_no_gl, sizeof g_no_gl, "no headless GL 3.3 core context (%s)", ossa_result_string(r));
        ot_skip_reason("%s: GL tests skip", g_no_gl);
        g_ctx = NULL;
        return 0;
    }
    printf("[   INFO   ] GL_RENDERER %s, GL_VERSION %s\n", (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));
    if (ossa_gl_renderer_create(&g_renderer) != OSSA_OK) return -1;
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    ossa_gl_renderer_destroy(g_renderer);
    ossa_gl_headless_destroy(g_ctx);
    return 0;
}

#define NEED_GL()                                                   \
    do {                                                            \
        if (!g_renderer) {                                          \
            ot_skip_reason("%s", g_no_gl);                        \
            skip();                                                 \
        }                                                           \
    } while (0)

/* ---- the CPU jobs the GPU is compared with ---- */

/* ossa_dual_quat_job: count palette matrices into out (count entries). */
static void to_dual_quats(const ossa_mat4 *palette, uint32_t count, ossa_dual_quat *out) {
    ossa_dual_quat_job job = {.palette = palette, .palette_count = count, .output = out, .output_count = count};
    assert_int_equal(ossa_dual_quat_job_run(&job), OSSA_OK);
}

/* ossa_morph_job over all of m into op / on (vertex_count each; on NULL: positions only). */
static void morph_all(const ossa_mesh *m, const float *weights, float *op, float *on) {
    ossa_morph_job job = {.mesh = m, .weights = weights, .weight_count = m->target_count, .end = m->vertex_count,
                          .out_positions = op, .out_positions_count = m->vertex_count, .out_normals = on,
                          .out_normals_count = m->vertex_count};
    assert_int_equal(ossa_morph_job_run(&job), OSSA_OK);
}

/* ---- generated meshes and palettes ---- */

typedef struct gen {
    ossa_mesh mesh;
    ossa_mat4 *palette, *model, *inverse_bind;
    ossa_dual_quat *dq;
    uint32_t joint_count;
    const float *morph_weights; /* mesh.target_count weights, or NULL */
} gen;

static void gen_free(gen *g) {
    for (uint32_t t = 0; t < g->mesh.target_count; t++) {
        free(g->mesh.targets[t].positions);
        free(g->mesh.targets[t].normals);
    }
    free(g->mesh.targets);
    free(g->mesh.positions);
    free(g->mesh.normals);
    free(g->mesh.joints);
    free(g->mesh.weights);
    free(g->mesh.indices);
    free(g->palette);
    free(g->model);
    free(g->inverse_bind);
    free(g->dq);
    memset(g, 0, sizeof *g);
}

static ossa_mat4 rand_matrix(uint64_t *rng, float reach, float scale_spread) {
    ossa_transform t;
    t.translation = ossa_vec3_make(ot_rand_float(rng, -reach, reach), ot_rand_float(rng, -reach, reach),
                                   ot_rand_float(rng, -reach, reach));
    t.rotation = ot_rand_quat(rng);
    float lo = 1.0f / (1.0f + scale_spread), hi = 1.0f + scale_spread;
    t.scale = ossa_vec3_make(ot_rand_float(rng, lo, hi), ot_rand_float(rng, lo, hi), ot_rand_float(rng, lo, hi));
    return ossa_transform_to_mat4(t);
}

/* vertex_count random vertices in a cube of half-size `size`, random unit normals,
 * `influences` random joints < joint_count with random weights summing to 1 (some
 * zero; every 37th vertex fully unweighted), and random palettes (scale_spread 0 =
 * rigid). The largest joint index is always used. */
static void gen_make(gen *g, uint64_t seed, uint32_t vertex_count, uint32_t influences, uint32_t joint_count,
                     float size, float scale_spread) {
    uint64_t rng = seed;
    memset(g, 0, sizeof *g);
    ossa_mesh *m = &g->mesh;
    m->vertex_count = vertex_count;
    m->influences = influences;
    m->skin = 0;
    m->node = -1;
    m->positions = malloc(sizeof(float) * 3 * vertex_count);
    m->normals = malloc(sizeof(float) * 3 * vertex_count);
    m->joints = malloc(sizeof(uint16_t) * influences * vertex_count);
    m->weights = malloc(sizeof(float) * influences * vertex_count);
    assert_true(m->positions && m->normals && m->joints && m->weights);
    for (uint32_t v = 0; v < vertex_count; v++) {
        for (uint32_t c = 0; c < 3; c++) m->positions[v * 3 + c] = ot_rand_float(&rng, -size, size);
        ossa_vec3 n = ossa_vec3_normalize(ossa_quat_rotate(ot_rand_quat(&rng), ossa_vec3_make(0, 0, 1)));
        m->normals[v * 3] = n.x, m->normals[v * 3 + 1] = n.y, m->normals[v * 3 + 2] = n.z;
        float sum = 0;
        for (uint32_t i = 0; i < influences; i++) {
            uint16_t j = (uint16_t)(ot_rand_u64(&rng) % joint_count);
            float w = (ot_rand_u64(&rng) % 5 == 0) ? 0.0f : ot_rand_float(&rng, 0.05f, 1.0f);
            if (v == 0 && i == 0) j = (uint16_t)(joint_count - 1), w = 1.0f;
            m->joints[v * influences + i] = j;
            m->weights[v * influences + i] = w;
            sum += w;
        }
        for (uint32_t i = 0; i < influences; i++) {
            float *w = &m->weights[v * influences + i];
            *w = (v % 37 == 36 || sum == 0) ? 0.0f : *w / sum;
        }
    }
    g->joint_count = joint_count;
    g->palette = malloc(sizeof(ossa_mat4) * joint_count);
    g->model = malloc(sizeof(ossa_mat4) * joint_count);
    g->inverse_bind = malloc(sizeof(ossa_mat4) * joint_count);
    g->dq = malloc(sizeof(ossa_dual_quat) * joint_count);
    assert_true(g->palette && g->model && g->inverse_bind && g->dq);
    for (uint32_t j = 0; j < joint_count; j++) {
        g->model[j] = rand_matrix(&rng, size, scale_spread);
        g->inverse_bind[j] = rand_matrix(&rng, size, scale_spread);
        g->palette[j] = ossa_mat4_mul(&g->model[j], &g->inverse_bind[j]);
    }
    to_dual_quats(g->palette, joint_count, g->dq);
}

/* ---- double-precision references ---- */

/* LBS: p' = Σ w M p, n' = normalize(Σ w M3 n); palette in double from a*b or p. */
static void ref_lbs(const ossa_mesh *m, const ossa_mat4 *pa, const ossa_mat4 *pb, double *out_p, double *out_n) {
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + v * 3, *n = m->normals + v * 3;
        double sp[3] = {0}, sn[3] = {0}, wsum = 0;
        for (uint32_t i = 0; i < m->influences; i++) {
            uint32_t j = m->joints[v * m->influences + i];
            double w = m->weights[v * m->influences + i];
            wsum += w;
            double M[16];
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) {
                    if (pb) {
                        double s = 0;
                        for (int k = 0; k < 4; k++) s += (double)pa[j].m[k * 4 + r] * pb[j].m[c * 4 + k];
                        M[c * 4 + r] = s;
                    } else {
                        M[c * 4 + r] = pa[j].m[c * 4 + r];
                    }
                }
            for (int r = 0; r < 3; r++) {
                sp[r] += w * (M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r]);
                sn[r] += w * (M[r] * n[0] + M[4 + r] * n[1] + M[8 + r] * n[2]);
            }
        }
        if (wsum == 0) {
            for (int r = 0; r < 3; r++) sp[r] = p[r], sn[r] = n[r];
        } else {
            double l = sqrt(sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]);
            for (int r = 0; r < 3; r++) sn[r] /= l;
        }
        memcpy(out_p + v * 3, sp, sizeof sp);
        memcpy(out_n + v * 3, sn, sizeof sn);
    }
}

/* DQS from the dual quaternions: blend with the sign of the first influence's real
 * part, normalise, rotate + translate (t = 2 d r*). */
static void ref_dqs(const ossa_mesh *m, const ossa_dual_quat *dq, double *out_p, double *out_n) {
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + v * 3, *n = m->normals + v * 3;
        double b[8] = {0}, wsum = 0;
        const ossa_quat r0 = dq[m->joints[v * m->influences]].real;
        for (uint32_t i = 0; i < m->influences; i++) {
            const ossa_dual_quat *d = &dq[m->joints[v * m->influences + i]];
            double w = m->weights[v * m->influences + i];
            wsum += w;
            if ((double)r0.x * d->real.x + (double)r0.y * d->real.y + (double)r0.z * d->real.z +
                    (double)r0.w * d->real.w < 0)
                w = -w;
            const float q[8] = {d->real.x, d->real.y, d->real.z, d->real.w, d->dual.x, d->dual.y, d->dual.z, d->dual.w};
            for (int k = 0; k < 8; k++) b[k] += w * q[k];
        }
        if (wsum == 0) {
            for (uint32_t r = 0; r < 3; r++) out_p[v * 3 + r] = p[r], out_n[v * 3 + r] = n[r];
            continue;
        }
        double l = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        for (int k = 0; k < 8; k++) b[k] /= l;
        const double *r = b, *d = b + 4;
        double t[3] = {2 * (r[3] * d[0] - d[3] * r[0] + r[1] * d[2] - r[2] * d[1]),
                       2 * (r[3] * d[1] - d[3] * r[1] + r[2] * d[0] - r[0] * d[2]),
                       2 * (r[3] * d[2] - d[3] * r[2] + r[0] * d[1] - r[1] * d[0])};
        /* rotation matrix of unit quaternion r */
        double x = r[0], y = r[1], z = r[2], w = r[3];
        double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                       2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                       2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
        for (uint32_t i = 0; i < 3; i++) {
            out_p[v * 3 + i] = R[i * 3] * p[0] + R[i * 3 + 1] * p[1] + R[i * 3 + 2] * p[2] + t[i];
            out_n[v * 3 + i] = R[i * 3] * n[0] + R[i * 3 + 1] * n[1] + R[i * 3 + 2] * n[2];
        }
        double nl = sqrt(out_n[v * 3] * out_n[v * 3] + out_n[v * 3 + 1] * out_n[v * 3 + 1] +
                         out_n[v * 3 + 2] * out_n[v * 3 + 2]);
        for (uint32_t i = 0; i < 3; i++) out_n[v * 3 + i] /= nl;
    }
}

static double diagonal_d(const double *p, uint32_t count) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < count; v++)
        for (uint32_t c = 0; c < 3; c++) lo[c] = fmin(lo[c], p[v * 3 + c]), hi[c] = fmax(hi[c], p[v * 3 + c]);
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Max |a - b| over count*3 values. */
static double max_err_fd(const float *a, const double *b, uint32_t count) {
    double e = 0;
    for (size_t i = 0; i < (size_t)count * 3; i++) e = fmax(e, fabs((double)a[i] - b[i]));
    return e;
}

static double max_err_ff(const float *a, const float *b, uint32_t count) {
    double e = 0;
    for (size_t i = 0; i < (size_t)count * 3; i++) e = fmax(e, fabs((double)a[i] - (double)b[i]));
    return e;
}

static const char *variant_name(ossa_gl_skinning s) {
    switch (s) {
    case OSSA_GL_SKIN_NONE: return "none";
    case OSSA_GL_SKIN_POSE_AND_IBM: return "pose+ibm";
    case OSSA_GL_SKIN_PALETTE_UNIFORM: return "palette uniform";
    case OSSA_GL_SKIN_PALETTE_TEXTURE: return "palette texture";
    case OSSA_GL_SKIN_DUAL_QUAT: return "dual quat";
    default: return "default";
    }
}

/* Skins g with variant s on the GPU and checks it against the double reference and
 * ossa's CPU kernel (LBS or DQS), positions within REL_TOL * diagonal. */
static void check_variant(gen *g, ossa_gl_skinning s) {
    const ossa_mesh *src = &g->mesh;
    uint32_t n = src->vertex_count;
    /* With morph weights: the references skin the morphed mesh (morphed here in double,
     * and on the CPU with ossa_morph_job); the GPU morphs in its vertex shader. */
    ossa_mesh morphed = *src, cpu_morphed = *src;
    float *mp = NULL, *mn = NULL, *cmp = NULL, *cmn = NULL;
    if (g->morph_weights) {
        mp = malloc(sizeof(float) * 3 * n), mn = malloc(sizeof(float) * 3 * n);
        cmp = malloc(sizeof(float) * 3 * n), cmn = malloc(sizeof(float) * 3 * n);
        assert_true(mp && mn && cmp && cmn);
        for (size_t i = 0; i < (size_t)n * 3; i++) {
            double p = src->positions[i], q = src->normals[i];
            for (uint32_t t = 0; t < src->target_count; t++) {
                double w = g->morph_weights[t];
                if (src->targets[t].positions) p += w * src->targets[t].positions[i];
                if (src->targets[t].normals) q += w * src->targets[t].normals[i];
            }
            mp[i] = (float)p, mn[i] = (float)q;
        }
        morphed.positions = mp, morphed.normals = mn;
        morph_all(src, g->morph_weights, cmp, cmn);
        cpu_morphed.positions = cmp, cpu_morphed.normals = cmn;
    }
    const ossa_mesh *m = &morphed;
    double *ref_p = malloc(sizeof(double) * 3 * n), *ref_n = malloc(sizeof(double) * 3 * n);
    float *gpu_p = malloc(sizeof(float) * 3 * n), *gpu_n = malloc(sizeof(float) * 3 * n);
    float *cpu_p = malloc(sizeof(float) * 3 * n), *cpu_n = malloc(sizeof(float) * 3 * n);
    assert_true(ref_p && ref_n && gpu_p && gpu_n && cpu_p && cpu_n);
    bool dqs = s == OSSA_GL_SKIN_DUAL_QUAT;
    if (s == OSSA_GL_SKIN_NONE)
        for (size_t i = 0; i < (size_t)n * 3; i++) ref_p[i] = m->positions[i], ref_n[i] = m->normals[i];
    else if (dqs)
        ref_dqs(m, g->dq, ref_p, ref_n);
    else if (s == OSSA_GL_SKIN_POSE_AND_IBM)
        ref_lbs(m, g->model, g->inverse_bind, ref_p, ref_n);
    else
        ref_lbs(m, g->palette, NULL, ref_p, ref_n);

    ossa_skin_job job = {0};
    job.begin = 0, job.end = n, job.vertex_count = n, job.influences = m->influences;
    job.joints = m->joints, job.weights = m->weights;
    job.method = dqs ? OSSA_SKIN_DQS : OSSA_SKIN_LBS;
    job.kernel = dqs ? OSSA_SKIN_KERNEL_AUTO : OSSA_SKIN_KERNEL_SCALAR;
    job.palette = g->palette, job.dual_quats = g->dq, job.palette_count = g->joint_count;
    job.positions = cpu_morphed.positions, job.normals = cpu_morphed.normals;
    job.out_positions = cpu_p, job.out_normals = cpu_n;
    if (s == OSSA_GL_SKIN_NONE) {
        memcpy(cpu_p, cpu_morphed.positions, sizeof(float) * 3 * n);
        memcpy(cpu_n, cpu_morphed.normals, sizeof(float) * 3 * n);
    } else {
        assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    }

    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(src, &gm), OSSA_OK);
    assert_int_equal(ossa_gl_mesh_vertex_count(gm), n);
    ossa_gl_draw_desc d = {0};
    d.skinning = s;
    d.joint_count = g->joint_count;
    d.palette = g->palette;
    d.model = g->model;
    d.inverse_bind = g->inverse_bind;
    d.dual_quats = g->dq;
    d.morph_weights = g->morph_weights;
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, gpu_p, gpu_n), OSSA_OK);
    ossa_gl_mesh_destroy(gm);

    double diag = diagonal_d(ref_p, n);
    double e_ref = max_err_fd(gpu_p, ref_p, n) / diag, e_cpu = max_err_ff(gpu_p, cpu_p, n) / diag;
    double e_nrm = max_err_fd(gpu_n, ref_n, n), e_nrm_cpu = max_err_ff(gpu_n, cpu_n, n);
    printf("[   INFO   ] %-15s %u infl %4u joints %5u verts %2u targets: pos err/diag %.2e (ref) %.2e (cpu), normal err %.2e (ref) "
           "%.2e (cpu)\n",
           variant_name(s), m->influences, g->joint_count, n, g->morph_weights ? src->target_count : 0, e_ref, e_cpu, e_nrm, e_nrm_cpu);
    assert_true(e_ref <= REL_TOL);
    assert_true(e_cpu <= REL_TOL);
    /* Normals are unit vectors (size 1): same relative bound. */
    assert_true(e_nrm <= 1e-4);
    assert_true(e_nrm_cpu <= 1e-4);
    /* Unweighted vertices keep their bind position exactly. */
    for (uint32_t v = 0; v < n && !g->morph_weights; v++) {
        float wsum = 0;
        for (uint32_t i = 0; i < m->influences; i++) wsum += m->weights[v * m->influences + i];
        if (wsum == 0)
            for (uint32_t c = 0; c < 3; c++) assert_true(gpu_p[v * 3 + c] == m->positions[v * 3 + c]);
    }
    free(ref_p), free(ref_n), free(gpu_p), free(gpu_n), free(cpu_p), free(cpu_n);
    free(mp), free(mn), free(cmp), free(cmn);
}

static void run_generated(ossa_gl_skinning s, uint64_t seed, uint32_t vertices, uint32_t influences, uint32_t joints,
                          float scale_spread) {
    gen g;
    gen_make(&g, seed, vertices, influences, joints, 2.5f, scale_spread);
    check_variant(&g, s);
    gen_free(&g);
}

static void palette_uniform_4_and_8(void **state) {
    (void)state;
    NEED_GL();
    run_generated(OSSA_GL_SKIN_PALETTE_UNIFORM, 1, 1500, 4, 100, 0.25f);
    run_generated(OSSA_GL_SKIN_PALETTE_UNIFORM, 2, 1500, 8, OSSA_GL_MAX_UNIFORM_JOINTS, 0.25f);
}

static void pose_and_ibm_4_and_8(void **state) {
    (void)state;
    NEED_GL();
    assert_true(ossa_gl_renderer_max_joints(g_renderer, OSSA_GL_SKIN_POSE_AND_IBM) >= 64);
    run_generated(OSSA_GL_SKIN_POSE_AND_IBM, 3, 1500, 4, 64, 0.25f);
    run_generated(OSSA_GL_SKIN_POSE_AND_IBM, 4, 1500, 8, 64, 0.25f);
}

static void palette_texture_many_joints(void **state) {
    (void)state;
    NEED_GL();
    assert_true(ossa_gl_renderer_max_joints(g_renderer, OSSA_GL_SKIN_PALETTE_TEXTURE) >= 4096);
    /* > 128 (past the uniform limit), > 256 (a full texture row and a partial one). */
    run_generated(OSSA_GL_SKIN_PALETTE_TEXTURE, 5, 2000, 4, 300, 0.25f);
    run_generated(OSSA_GL_SKIN_PALETTE_TEXTURE, 6, 2000, 8, 700, 0.25f);
    /* A smaller palette afterwards reuses the grown texture. */
    run_generated(OSSA_GL_SKIN_DEFAULT, 7, 500, 4, 20, 0.25f);
}

static void dual_quat_4_and_8(void **state) {
    (void)state;
    NEED_GL();
    run_generated(OSSA_GL_SKIN_DUAL_QUAT, 8, 1500, 4, 100, 0.0f);
    run_generated(OSSA_GL_SKIN_DUAL_QUAT, 9, 1500, 8, 128, 0.0f);
}

/* Morph targets in the vertex shader, before skinning: 70 targets (so the texture has
 * several rows), some without position or normal deltas, 40 of them active; then more
 * active targets than OSSA_GL_MAX_ACTIVE_MORPHS is UNSUPPORTED. */
static void morph_targets_then_skinning(void **state) {
    (void)state;
    NEED_GL();
    gen g;
    gen_make(&g, 13, 900, 4, 40, 2.0f, 0.25f);
    uint64_t rng = 99;
    uint32_t nt = 70, n = g.mesh.vertex_count;
    g.mesh.target_count = nt;
    g.mesh.targets = calloc(nt, sizeof(ossa_morph_target));
    float weights[70];
    assert_non_null(g.mesh.targets);
    for (uint32_t t = 0; t < nt; t++) {
        if (t % 7 != 3) g.mesh.targets[t].positions = malloc(sizeof(float) * 3 * n);
        if (t % 5 != 2) g.mesh.targets[t].normals = malloc(sizeof(float) * 3 * n);
        for (size_t i = 0; i < (size_t)n * 3; i++) {
            if (g.mesh.targets[t].positions) g.mesh.targets[t].positions[i] = ot_rand_float(&rng, -0.5f, 0.5f);
            if (g.mesh.targets[t].normals) g.mesh.targets[t].normals[i] = ot_rand_float(&rng, -0.3f, 0.3f);
        }
        weights[t] = (t % 7 < 4) ? ot_rand_float(&rng, -0.5f, 1.0f) : 0.0f;
    }
    g.morph_weights = weights;
    check_variant(&g, OSSA_GL_SKIN_NONE);
    check_variant(&g, OSSA_GL_SKIN_PALETTE_TEXTURE);
    check_variant(&g, OSSA_GL_SKIN_POSE_AND_IBM);
    check_variant(&g, OSSA_GL_SKIN_DUAL_QUAT);
    /* All 70 active: over the limit. */
    for (uint32_t t = 0; t < nt; t++) weights[t] = 0.01f;
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(&g.mesh, &gm), OSSA_OK);
    float *out = malloc(sizeof(float) * 3 * n);
    assert_non_null(out);
    ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_NONE, .morph_weights = weights};
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_ERROR_UNSUPPORTED);
    d.morph_weights = NULL; /* no morphing: the base mesh */
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_OK);
    assert_memory_equal(out, g.mesh.positions, sizeof(float) * 3 * n);
    free(out);
    ossa_gl_mesh_destroy(gm);
    gen_free(&g);
}

/* AnimatedMorphCube: the clip's weight track drives the GPU morph; compared with
 * ossa_morph_job at a few times. */
static void morph_asset(void **state) {
    (void)state;
    NEED_GL();
    ossa_asset *a = ot_load_asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
    assert_true(a->mesh_count >= 1 && a->clip_count >= 1);
    const ossa_mesh *m = a->meshes[0];
    const ossa_clip *clip = a->clips[0];
    assert_true(m->target_count == 2 && clip->weight_track_count == 1);
    assert_int_equal(clip->weight_tracks[0].joint, (uint32_t)m->node);
    uint32_t n = m->vertex_count;
    float *gpu = malloc(sizeof(float) * 12 * n), *gpu_n = gpu + 3 * n, *cpu = gpu + 6 * n, *cpu_n = gpu + 9 * n;
    assert_non_null(gpu);
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(m, &gm), OSSA_OK);
    for (int i = 0; i < 5; i++) {
        float t = clip->start + (clip->end - clip->start) * (float)i / 4.0f, w[2];
        ot_clip_sample_weights(clip, 0, t, false, OSSA_LOOKUP_DEFAULT, NULL, w);
        ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_NONE, .morph_weights = w};
        assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, gpu, m->normals ? gpu_n : NULL), OSSA_OK);
        morph_all(m, w, cpu, m->normals ? cpu_n : NULL);
        ossa_vec3 lo, hi;
        assert_true(ossa_mesh_bounds(m, &lo, &hi));
        double diag_len = ossa_vec3_length(ossa_vec3_sub(hi, lo));
        double e = max_err_ff(gpu, cpu, n) / diag_len;
        printf("[   INFO   ] AnimatedMorphCube t=%.2f weights %.3f %.3f: pos err/diag %.2e\n", (double)t, (double)w[0],
               (double)w[1], e);
        assert_true(e <= REL_TOL);
        if (fabsf(w[0]) + fabsf(w[1]) > 0.1f) assert_true(max_err_ff(gpu, m->positions, n) > 0.01 * diag_len);
        if (m->normals) assert_true(max_err_ff(gpu_n, cpu_n, n) <= 1e-5);
    }
    ossa_gl_mesh_destroy(gm);
    free(gpu);
    ossa_asset_destroy(a);
}

/* q and -q are the same rotation: negating half of the dual quaternions must not
 * change the result (hemisphere correction against the first influence). */
static void dual_quat_hemisphere(void **state) {
    (void)state;
    NEED_GL();
    gen g;
    gen_make(&g, 10, 800, 4, 50, 2.0f, 0.0f);
    uint32_t n = g.mesh.vertex_count;
    float *a = malloc(sizeof(float) * 6 * n), *b = a + 3 * n;
    assert_non_null(a);
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(&g.mesh, &gm), OSSA_OK);
    ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_DUAL_QUAT, .joint_count = g.joint_count, .dual_quats = g.dq};
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, a, NULL), OSSA_OK);
    for (uint32_t j = 0; j < g.joint_count; j += 2) {
        float *q = &g.dq[j].real.x;
        for (int k = 0; k < 8; k++) q[k] = -q[k];
    }
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, b, NULL), OSSA_OK);
    double diag = 0;
    {
        double *tmp = malloc(sizeof(double) * 3 * n);
        assert_non_null(tmp);
        for (uint32_t i = 0; i < 3 * n; i++) tmp[i] = a[i];
        diag = diagonal_d(tmp, n);
        assert_true(max_err_fd(b, tmp, n) / diag <= REL_TOL);
        free(tmp);
    }
    ossa_gl_mesh_destroy(gm);
    free(a);
    gen_free(&g);
}

/* Rigid meshes (influences 0) come out unchanged with any variant; NONE returns what
 * ossa_gl_mesh_update uploaded. */
static void rigid_and_update(void **state) {
    (void)state;
    NEED_GL();
    gen g;
    gen_make(&g, 11, 200, 4, 8, 1.0f, 0.25f);
    uint32_t n = g.mesh.vertex_count;
    ossa_mesh rigid = g.mesh;
    rigid.influences = 0, rigid.joints = NULL, rigid.weights = NULL;
    float *p = malloc(sizeof(float) * 9 * n), *q = p + 3 * n, *nn = p + 6 * n;
    assert_non_null(p);
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(&rigid, &gm), OSSA_OK);
    ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_PALETTE_UNIFORM, .joint_count = 1, .palette = g.palette};
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, p, nn), OSSA_OK);
    assert_memory_equal(p, rigid.positions, sizeof(float) * 3 * n);
    assert_memory_equal(nn, rigid.normals, sizeof(float) * 3 * n);
    for (uint32_t i = 0; i < 3 * n; i++) q[i] = rigid.positions[i] * 2.0f + 1.0f;
    assert_int_equal(ossa_gl_mesh_update(gm, q, NULL), OSSA_OK);
    d.skinning = OSSA_GL_SKIN_NONE;
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, p, NULL), OSSA_OK);
    assert_memory_equal(p, q, sizeof(float) * 3 * n);
    ossa_gl_mesh_destroy(gm);
    free(p);
    gen_free(&g);
}

static void invalid_arguments(void **state) {
    (void)state;
    NEED_GL();
    gen g;
    gen_make(&g, 12, 64, 4, 200, 1.0f, 0.0f);
    float out[64 * 3];
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(NULL, &gm), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(gm);
    ossa_mesh bad = g.mesh;
    bad.influences = 3;
    assert_int_equal(ossa_gl_mesh_create(&bad, &gm), OSSA_ERROR_INVALID_ARGUMENT);
    bad = g.mesh;
    bad.index_count = 3;
    uint32_t idx[3] = {0, 1, 64};
    bad.indices = idx;
    assert_int_equal(ossa_gl_mesh_create(&bad, &gm), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_mesh_create(&g.mesh, &gm), OSSA_OK);
    ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_PALETTE_UNIFORM, .joint_count = 200, .palette = g.palette};
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_ERROR_UNSUPPORTED);
    d.joint_count = 199; /* joint 199 is used: too few */
    d.skinning = OSSA_GL_SKIN_PALETTE_TEXTURE;
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    d.joint_count = 200;
    d.palette = NULL;
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    d.palette = g.palette;
    d.skinning = (ossa_gl_skinning)99;
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    d.skinning = OSSA_GL_SKIN_PALETTE_TEXTURE;
    assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_ERROR_INVALID_ARGUMENT); /* no view_proj */
    assert_int_equal(ossa_gl_draw_lines(g_renderer, out, 3, out, out), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_skin_readback(g_renderer, gm, &d, out, NULL), OSSA_OK);
    assert_int_equal(ossa_gl_renderer_max_joints(g_renderer, OSSA_GL_SKIN_NONE), UINT32_MAX);
    assert_int_equal(ossa_gl_renderer_max_joints(NULL, OSSA_GL_SKIN_NONE), 0);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    ossa_gl_mesh_destroy(gm);
    gen_free(&g);
}

/* The book's character: sample clips at a few times, palette via the local-to-model and
 * palette jobs, every variant against the references. */
static void woman_asset_all_variants(void **state) {
    (void)state;
    NEED_GL();
    ossa_asset *a = ot_load_asset("Woman/Woman.gltf");
    const ossa_skeleton *sk = a->skeleton;
    const ossa_mesh *mesh = NULL;
    for (uint32_t i = 0; i < a->mesh_count && !mesh; i++)
        if (a->meshes[i]->skin >= 0 && a->meshes[i]->influences) mesh = a->meshes[i];
    assert_non_null(mesh);
    assert_non_null(mesh->normals);
    const ossa_skin *skin = &sk->skins[mesh->skin];
    uint32_t n = sk->joint_count;
    ossa_transform *locals = malloc(sizeof *locals * n);
    gen g = {.mesh = *mesh, .joint_count = n};
    g.model = malloc(sizeof(ossa_mat4) * n);
    g.inverse_bind = malloc(sizeof(ossa_mat4) * n);
    g.palette = malloc(sizeof(ossa_mat4) * n);
    g.dq = malloc(sizeof(ossa_dual_quat) * n);
    assert_true(locals && g.model && g.inverse_bind && g.palette && g.dq);
    for (uint32_t j = 0; j < n; j++) g.inverse_bind[j] = ossa_mat4_identity();
    for (uint32_t i = 0; i < skin->joint_count; i++) g.inverse_bind[skin->joints[i]] = skin->inverse_bind[i];
    const char *clips[] = {"Walking", "Jump", "Punch"};
    const float fractions[] = {0.0f, 0.37f, 0.81f};
    for (size_t c = 0; c < 3; c++) {
        int32_t ci = ossa_asset_find_clip(a, clips[c]);
        assert_true(ci >= 0);
        const ossa_clip *clip = a->clips[ci];
        for (size_t f = 0; f < 3; f++) {
            float t = clip->start + fractions[f] * (clip->end - clip->start);
            ot_clip_sample(clip, t, false, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, locals, n);
            ot_local_to_model(locals, sk->parents, n, g.model);
            ot_palette(sk, (uint32_t)mesh->skin, g.model, g.palette);
            to_dual_quats(g.palette, n, g.dq);
            printf("[   INFO   ] Woman %s t=%.3f\n", clips[c], (double)t);
            check_variant(&g, OSSA_GL_SKIN_POSE_AND_IBM);
            check_variant(&g, OSSA_GL_SKIN_PALETTE_UNIFORM);
            check_variant(&g, OSSA_GL_SKIN_PALETTE_TEXTURE);
            check_variant(&g, OSSA_GL_SKIN_DUAL_QUAT);
        }
    }
    free(locals), free(g.model), free(g.inverse_bind), free(g.palette), free(g.dq);
    ossa_asset_destroy(a);
}

/* ---- drawing ---- */

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* Counts coloured pixels inside and outside the rectangle [x0,x1) x [y0,y1) (top-down). */
static void count_pixels(const uint8_t *img, int x0, int x1, int y0, int y1, int *inside, int *outside) {
    *inside = *outside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *px = img + ((size_t)y * W + (size_t)x) * 4;
            bool lit = px[0] || px[1] || px[2];
            bool in = x >= x0 && x < x1 && y >= y0 && y < y1;
            if (lit) (in ? (*inside)++ : (*outside)++);
        }
}

/* A quad over the upper-left quarter of clip space must colour exactly the upper-left
 * 32x32 pixels (top-down rows), with every skinning variant: the quad is uploaded in the
 * lower-right quarter and the palette moves it by (-1, +1). */
static void draw_puts_pixels_where_expected(void **state) {
    (void)state;
    NEED_GL();
    float pos[12] = {0, -1, 0, 1, -1, 0, 1, 0, 0, 0, 0, 0}; /* lower-right quarter */
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint16_t joints[16] = {0};
    float weights[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    ossa_mesh m = {.vertex_count = 4, .positions = pos, .normals = nrm, .influences = 4, .joints = joints,
                   .weights = weights, .index_count = 6, .indices = idx, .skin = 0, .node = -1};
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(&m, &gm), OSSA_OK);
    ossa_transform t = ossa_transform_identity();
    t.translation = ossa_vec3_make(-1, 1, 0);
    ossa_mat4 palette = ossa_transform_to_mat4(t), ident = ossa_mat4_identity();
    ossa_dual_quat dq;
    to_dual_quats(&palette, 1, &dq);
    uint8_t *img = malloc(W * H * 4);
    assert_non_null(img);
    const ossa_gl_skinning variants[] = {OSSA_GL_SKIN_POSE_AND_IBM, OSSA_GL_SKIN_PALETTE_UNIFORM,
                                         OSSA_GL_SKIN_PALETTE_TEXTURE, OSSA_GL_SKIN_DUAL_QUAT, OSSA_GL_SKIN_NONE};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        ossa_gl_draw_desc d = {.skinning = variants[i], .view_proj = identity, .joint_count = 1, .palette = &palette,
                               .model = &palette, .inverse_bind = &ident, .dual_quats = &dq,
                               .color = {1.0f, 0.5f, 0.25f, 1.0f}};
        if (variants[i] == OSSA_GL_SKIN_NONE) { /* NONE draws uploaded positions: upload moved ones */
            float moved[12];
            for (int k = 0; k < 12; k++) moved[k] = pos[k] + (k % 3 == 0 ? -1.0f : k % 3 == 1 ? 1.0f : 0.0f);
            assert_int_equal(ossa_gl_mesh_update(gm, moved, NULL), OSSA_OK);
        }
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_OK);
        assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
        int in = 0, out = 0;
        count_pixels(img, 0, W / 2, 0, H / 2, &in, &out);
        printf("[   INFO   ] draw %-15s: %d of %d pixels lit in the upper-left quarter, %d outside\n",
               variant_name(variants[i]), in, W * H / 4, out);
        assert_int_equal(in, W * H / 4);
        assert_int_equal(out, 0);
        /* Lit by ambient + diffuse: red > green > blue as the base colour, opaque. */
        assert_true(img[0] > img[1] && img[1] > img[2] && img[2] > 0 && img[3] == 255);
        /* A light shining straight at the quad (along -z onto its +z normal) is brighter
         * than one grazing it. */
        uint8_t head_on, grazing;
        d.light_dir[2] = -1;
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_OK);
        assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
        head_on = img[0];
        d.light_dir[0] = 1, d.light_dir[2] = 0;
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_OK);
        assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
        grazing = img[0];
        assert_true(head_on == 255 && grazing > 0 && grazing < head_on);
        d.light_dir[0] = 0;

        /* Wireframe: only the edges of the same quad. */
        d.wireframe = true;
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_OK);
        assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
        count_pixels(img, 0, W / 2 + 1, 0, H / 2 + 1, &in, &out);
        assert_true(in > W / 2 && in < W * H / 8);
        assert_int_equal(out, 0);
        GLint mode[2];
        glGetIntegerv(GL_POLYGON_MODE, mode);
        assert_int_equal(mode[0], GL_FILL); /* restored */
    }
    free(img);
    ossa_gl_mesh_destroy(gm);
    assert_int_equal(glGetError(), GL_NO_ERROR);
}

/* MASK discards alpha < alpha_cutoff, and an explicit cutoff of 0 (glTF alphaCutoff 0)
 * discards nothing: a quad of alpha 0.25 covers the whole upper-left quarter at cutoff 0
 * and 0.25, and nothing at 0.3 or 0.5. */
static void alpha_mask_cutoff_passes_through(void **state) {
    (void)state;
    NEED_GL();
    float pos[12] = {-1, 0, 0, 0, 0, 0, 0, 1, 0, -1, 1, 0}; /* upper-left quarter */
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    ossa_mesh m = {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx,
                   .skin = -1, .node = -1};
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(&m, &gm), OSSA_OK);
    uint8_t *img = malloc(W * H * 4);
    assert_non_null(img);
    const float cutoffs[] = {0.0f, 0.25f, 0.3f, 0.5f};
    const int expect[] = {W * H / 4, W * H / 4, 0, 0};
    for (size_t i = 0; i < 4; i++) {
        ossa_gl_draw_desc d = {.skinning = OSSA_GL_SKIN_NONE, .view_proj = identity,
                               .color = {1.0f, 0.5f, 0.25f, 0.25f}, .alpha_mode = OSSA_ALPHA_MODE_MASK,
                               .alpha_cutoff = cutoffs[i]};
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        assert_int_equal(ossa_gl_draw(g_renderer, gm, &d), OSSA_OK);
        assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
        int in = 0, out = 0;
        count_pixels(img, 0, W / 2, 0, H / 2, &in, &out);
        printf("[   INFO   ] alpha 0.25, cutoff %.2f: %d pixels lit\n", (double)cutoffs[i], in);
        assert_int_equal(in, expect[i]);
        assert_int_equal(out, 0);
    }
    free(img);
    ossa_gl_mesh_destroy(gm);
    assert_int_equal(glGetError(), GL_NO_ERROR);
}

/* A horizontal segment through pixel row 40 (top-down), columns 8..55. */
static void draw_lines_puts_pixels_where_expected(void **state) {
    (void)state;
    NEED_GL();
    double y = 1.0 - (40 + 0.5) / (H / 2.0); /* NDC y of the centre of top-down row 40 */
    float pts[6] = {(float)(8.0 / (W / 2.0) - 1.0), (float)y, 0, (float)(56.0 / (W / 2.0) - 1.0), (float)y, 0};
    const float color[4] = {0, 1, 0, 1};
    uint8_t *img = malloc(W * H * 4);
    assert_non_null(img);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    assert_int_equal(ossa_gl_draw_lines(g_renderer, pts, 2, identity, color), OSSA_OK);
    assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
    int in = 0, out = 0;
    count_pixels(img, 8, 56, 40, 41, &in, &out);
    printf("[   INFO   ] lines: %d of 48 pixels lit on row 40, %d elsewhere\n", in, out);
    assert_true(in >= 47);
    assert_int_equal(out, 0);
    const uint8_t *px = img + ((size_t)40 * W + 20) * 4;
    assert_true(px[0] == 0 && px[1] == 255 && px[2] == 0);
    assert_int_equal(ossa_gl_draw_lines(g_renderer, NULL, 0, identity, color), OSSA_OK);
    free(img);
}

/* Odd application pixel-store state does not disturb uploads and reads, and the state
 * documented as restored is restored. */
static void application_state_is_respected(void **state) {
    (void)state;
    NEED_GL();
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 2);
    glPixelStorei(GL_PACK_ROW_LENGTH, 5);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glDisable(GL_DEPTH_TEST);
    run_generated(OSSA_GL_SKIN_PALETTE_TEXTURE, 14, 300, 8, 400, 0.25f);
    uint8_t *img = malloc(W * H * 4);
    assert_non_null(img);
    const float pts[6] = {-1, 0, 0, 1, 0, 0}, color[4] = {1, 1, 1, 1};
    assert_int_equal(ossa_gl_draw_lines(g_renderer, pts, 2, identity, color), OSSA_OK);
    assert_int_equal(ossa_gl_headless_read(g_ctx, img), OSSA_OK);
    GLint v = 0;
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, &v);
    assert_int_equal(v, 7);
    glGetIntegerv(GL_UNPACK_SKIP_ROWS, &v);
    assert_int_equal(v, 2);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &v);
    assert_int_equal(v, 5);
    glGetIntegerv(GL_PACK_ALIGNMENT, &v);
    assert_int_equal(v, 8);
    assert_false(glIsEnabled(GL_DEPTH_TEST));
    assert_false(glIsEnabled(GL_RASTERIZER_DISCARD));
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    free(img);
}

/* Each EGL platform on its own (OSSA_EGL_PLATFORM): where one gives a context, it
 * renders; the test context is current again afterwards. */
static void headless_platforms(void **state) {
    (void)state;
    NEED_GL();
    const char *platforms[] = {"surfaceless", "device", "default", "bogus"};
    for (size_t i = 0; i < 4; i++) {
        setenv("OSSA_EGL_PLATFORM", platforms[i], 1);
        ossa_gl_headless *h = NULL;
        ossa_result r = ossa_gl_headless_create(8, 4, &h);
        printf("[   INFO   ] EGL platform %-11s: %s\n", platforms[i], ossa_result_string(r));
        if (i == 3) assert_int_equal(r, OSSA_ERROR_UNSUPPORTED);
        assert_true(r == OSSA_OK || r == OSSA_ERROR_UNSUPPORTED);
        if (r == OSSA_OK) {
            uint8_t px[8 * 4 * 4];
            const float color[4] = {0, 0, 1, 1};
            float pts[6] = {-1, 0.25f, 0, 1, 0.25f, 0}; /* centre of top-down row 1 */
            ossa_gl_renderer *rr = NULL;
            assert_int_equal(ossa_gl_renderer_create(&rr), OSSA_OK);
            glClearColor(1, 0, 0, 1);
            glClear(GL_COLOR_BUFFER_BIT);
            assert_int_equal(ossa_gl_draw_lines(rr, pts, 2, identity, color), OSSA_OK);
            assert_int_equal(ossa_gl_headless_read(h, px), OSSA_OK);
            for (int x = 0; x < 8; x++) {
                assert_int_equal(px[(0 * 8 + x) * 4], 255);     /* row 0: clear colour */
                assert_int_equal(px[(1 * 8 + x) * 4 + 2], 255); /* row 1: the line */
                assert_int_equal(px[(1 * 8 + x) * 4], 0);
            }
            ossa_gl_renderer_destroy(rr);
            ossa_gl_headless_destroy(h);
        }
        assert_null(r == OSSA_OK ? NULL : h);
    }
    unsetenv("OSSA_EGL_PLATFORM");
    /* The test's own context stayed current through the destroys. */
    assert_int_equal(ossa_gl_headless_make_current(g_ctx), OSSA_OK);
    assert_int_equal(ossa_gl_headless_make_current(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(glGetError(), GL_NO_ERROR);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(palette_uniform_4_and_8),
        cmocka_unit_test(pose_and_ibm_4_and_8),
        cmocka_unit_test(palette_texture_many_joints),
        cmocka_unit_test(dual_quat_4_and_8),
        cmocka_unit_test(dual_quat_hemisphere),
        cmocka_unit_test(morph_targets_then_skinning),
        cmocka_unit_test(morph_asset),
        cmocka_unit_test(rigid_and_update),
        cmocka_unit_test(invalid_arguments),
        cmocka_unit_test(woman_asset_all_variants),
        cmocka_unit_test(draw_puts_pixels_where_expected),
        cmocka_unit_test(draw_lines_puts_pixels_where_expected),
        cmocka_unit_test(alpha_mask_cutoff_passes_through),
        cmocka_unit_test(application_state_is_respected),
        cmocka_unit_test(headless_platforms),
    };
    if (getenv("OSSA_TEST_FILTER")) cmocka_set_test_filter(getenv("OSSA_TEST_FILTER"));
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
