/* Crowds: support/crowd.c (threaded-style sampling into instance-major palettes) against
 * an independent per-instance reference (linear-scan sampling, chain-walk model space,
 * placement as a matrix); every instance's own state (context or cursors) against a fresh
 * and a shared one, bit for bit; one context reused across clips and skeletons against a
 * fresh one; and the GPU crowd path of ossa_gl (one palette texture, an
 * instanced draw; transform-feedback readback per instance) against CPU skinning with
 * the same palettes. Runs on the built-in demo character (no shared assets needed). */
#include "test_support.h"
#include "crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/gl.h>
#include <ossa/import.h>

#include "clip_gen.h"
#include "demo_character.h" /* support/ */
#include "thread_pool.h"      /* support/ */

#include <stdint.h>

enum { N = 7, SLOTS = 3 };

/* Reference palette of instance i at crowd time t, computed without the crowd's code path. */
static void reference_palette(const crowd *c, uint32_t i, float t, ossa_mat4 *out) {
    const ossa_skeleton *sk = c->asset->skeleton;
    uint32_t jc = sk->joint_count;
    ossa_transform *locals = malloc(sizeof *locals * jc);
    const crowd_instance *in = &c->instances[i];
    const ossa_clip *clip = c->asset->clips[in->clip];
    /* the instance's clip time, from its phase and speed, in double */
    double d = (double)clip->end - clip->start, x = fmod((double)in->phase + (double)in->speed * t, d);
    float time = clip->start + (float)(x < 0 ? x + d : x);
    ossa_clip_sample_job sj = {.clip = clip, .time = time, .loop = true, .lookup = OSSA_LOOKUP_LINEAR,
                               .reference = sk->rest, .reference_count = jc, .output = locals, .output_count = jc};
    assert_int_equal(ossa_clip_sample_job_run(&sj), OSSA_OK);
    ossa_mat4 place = ossa_transform_to_mat4(in->place);
    for (uint32_t j = 0; j < jc; j++) out[j] = ossa_mat4_identity();
    const ossa_skin *skin = &sk->skins[c->skin];
    for (uint32_t k = 0; k < skin->joint_count; k++) {
        uint32_t j = skin->joints[k];
        ossa_mat4 world = ossa_pose_joint_to_model(locals, sk->parents, jc, j);
        ossa_mat4 placed = ossa_mat4_mul(&place, &world);
        out[j] = ossa_mat4_mul(&placed, &skin->inverse_bind[k]);
    }
    free(locals);
}

static void assert_mats_near(const ossa_mat4 *a, const ossa_mat4 *b, uint32_t count, double tol) {
    for (uint32_t j = 0; j < count; j++)
        for (int k = 0; k < 16; k++) {
            double e = fabs((double)a[j].m[k] - (double)b[j].m[k]);
            if (e > tol * (1 + fabs((double)b[j].m[k])))
                fail_msg("matrix %u element %d: %.9g vs reference %.9g", j, k, (double)a[j].m[k], (double)b[j].m[k]);
        }
}

/* The built-clip guarantee in palette terms: for every skinned joint, its model matrix
 * (palette x inverse(IBM)) moves the joint origin and the points 3 cm along its axes by at
 * most `bound` from where the reference puts them (docs/built-clips.md, "The guarantee"). */
static void assert_shell_near(const crowd *c, const ossa_mat4 *pal, const ossa_mat4 *ref, double bound) {
    const ossa_skin *skin = &c->asset->skeleton->skins[c->skin];
    for (uint32_t k = 0; k < skin->joint_count; k++) {
        uint32_t j = skin->joints[k];
        ossa_mat4 bind, a, b;
        assert_true(ossa_mat4_inverse(&skin->inverse_bind[k], &bind));
        a = ossa_mat4_mul(&pal[j], &bind);
        b = ossa_mat4_mul(&ref[j], &bind);
        for (int axis = 0; axis < 4; axis++) {
            ossa_vec3 p = {axis == 1 ? 0.03f : 0, axis == 2 ? 0.03f : 0, axis == 3 ? 0.03f : 0};
            ossa_vec3 pa = ossa_mat4_transform_point(&a, p), pb = ossa_mat4_transform_point(&b, p);
            double e = sqrt((double)(pa.x - pb.x) * (pa.x - pb.x) + (double)(pa.y - pb.y) * (pa.y - pb.y) +
                            (double)(pa.z - pb.z) * (pa.z - pb.z));
            if (e > bound) fail_msg("joint %u, shell point %d: %.3g m from the reference (bound %.3g)", j, axis, e, bound);
        }
    }
}

static ossa_asset *g_demo;

static int setup(void **state) {
    (void)state;
    g_demo = demo_character_create();
    return g_demo ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ossa_asset_destroy(g_demo);
    return 0;
}

/* Every sampling mode against the reference: the editable clips with cursors and clips
 * built lossless within 1e-5 per palette element, clips built compressed within their
 * 0.1 mm model-space bound (plus float rounding of the placed grid). */
/* crowd_order_by_time: a permutation of the instances that keeps the clip groups where they
 * were and, within each, the clip times' bins (computed here from crowd_instance_time)
 * non-decreasing, at times across several wraps of the clips. */
static void crowd_order_follows_time(void **state) {
    (void)state;
    enum { M = 300 };
    crowd c;
    char err[256];
    crowd_desc d = {.asset = g_demo, .count = M, .seed = 5};
    assert_true(crowd_create(&c, &d, err, sizeof err));
    uint32_t *group = malloc(M * sizeof *group);
    for (uint32_t k = 0; k < M; k++) group[k] = c.instances[c.order[k]].clip;
    int descents = 0;
    for (float t = 0; t < 9.0f; t += 0.37f) {
        crowd_order_by_time(&c, t);
        uint8_t seen[M] = {0};
        for (uint32_t k = 0; k < M; k++) {
            uint32_t i = c.order[k];
            assert_true(i < M && !seen[i]);
            seen[i] = 1;
            assert_int_equal(c.instances[i].clip, group[k]);
            if (k == 0 || group[k - 1] != group[k]) continue;
            float ta = crowd_instance_time(&c, c.order[k - 1], t), tb = crowd_instance_time(&c, i, t);
            float start = ossa_built_clip_start(c.built[group[k]]), dur = ossa_built_clip_duration(c.built[group[k]]);
            int ba = (int)((ta - start) / dur * CROWD_TIME_BINS), bb = (int)((tb - start) / dur * CROWD_TIME_BINS);
            ba = ba < CROWD_TIME_BINS ? ba : CROWD_TIME_BINS - 1; /* a time rounded onto the end: the last bin */
            bb = bb < CROWD_TIME_BINS ? bb : CROWD_TIME_BINS - 1;
            assert_true(ba <= bb);
            descents += tb < ta; /* within one bin the order is the previous one's (stable) */
        }
    }
    printf("crowd order: %d instances of %u clips ordered by time at 25 times (%d in-bin descents)\n", M, c.clip_count,
           descents);
    free(group);
    crowd_destroy(&c);
}

static void crowd_palettes_match_the_reference(void **state) {
    (void)state;
    static const crowd_sampling modes[3] = {CROWD_SAMPLING_EDITABLE, CROWD_SAMPLING_LOSSLESS, CROWD_SAMPLING_BUILT};
    for (int mode = 0; mode < 3; mode++) {
        crowd c;
        char err[256];
        crowd_desc d = {.asset = g_demo, .count = N, .seed = 42, .scratch_slots = SLOTS, .sampling = modes[mode]};
        assert_true(crowd_create(&c, &d, err, sizeof err));
        assert_true((c.built != NULL) == (modes[mode] != CROWD_SAMPLING_EDITABLE));
        assert_int_equal(c.count, N);
        uint32_t jc = c.joint_count;
        ossa_mat4 *ref = malloc(sizeof *ref * jc);
        /* forward playback at 60 Hz for 3 s (every clip wraps at least once), instances split
         * over the scratch slots as threads would; cursors / contexts against the linear reference */
        bool clips_seen[8] = {false};
        for (int f = 0; f < 180; f += 7) {
            float t = (float)f / 60;
            if (f % 2) crowd_order_by_time(&c, t); /* the order changes what a context serves next, never a palette */
            crowd_update_range(&c, 0, 3, 0, t);
            crowd_update_range(&c, 3, 5, 1, t);
            crowd_update_range(&c, 5, N, 2, t);
            for (uint32_t i = 0; i < N; i++) {
                reference_palette(&c, i, t, ref);
                if (modes[mode] == CROWD_SAMPLING_BUILT)
                    assert_shell_near(&c, c.palettes + (size_t)i * jc, ref, 1.05e-4);
                else
                    assert_mats_near(c.palettes + (size_t)i * jc, ref, jc, 1e-5);
                if (c.instances[i].clip < 8) clips_seen[c.instances[i].clip] = true;
            }
        }
        /* instances differ: own clips (both demo clips used), phases and places */
        assert_true(clips_seen[0] && clips_seen[1]);
        for (uint32_t i = 1; i < N; i++) {
            assert_true(c.instances[i].phase != c.instances[0].phase);
            assert_true(c.instances[i].speed >= 0.8f && c.instances[i].speed <= 1.2f);
        }
        /* a range beyond count writes nothing past the array (ASan watches) */
        crowd_update_range(&c, N - 1, N + 5, 0, 0.5f);
        free(ref);
        crowd_destroy(&c);
    }
    crowd c;
    char err[256];
    /* explicit clip list */
    uint32_t only[1] = {1};
    crowd_desc d1 = {.asset = g_demo, .count = 3, .clips = only, .clip_count = 1, .spacing = 1.5f};
    assert_true(crowd_create(&c, &d1, err, sizeof err));
    for (uint32_t i = 0; i < 3; i++) assert_int_equal(c.instances[i].clip, 1);
    ot_assert_near(c.instances[1].place.translation.x - c.instances[0].place.translation.x, 1.5, 0.2);
    crowd_destroy(&c);
    uint32_t bad[1] = {9};
    crowd_desc d2 = {.asset = g_demo, .count = 3, .clips = bad, .clip_count = 1};
    assert_false(crowd_create(&c, &d2, err, sizeof err));
    assert_non_null(strstr(err, "clip 9 does not exist"));
}

/* Instance i's palette at crowd time t through the crowd's jobs, with the given state: a
 * sampling context (built clips) or cursors (editable clips, cursor_stride of them). */
static void palette_with_state(const crowd *c, uint32_t i, float t, ossa_sampling_context *ctx, uint32_t *cursors,
                               ossa_mat4 *out) {
    const ossa_skeleton *sk = c->asset->skeleton;
    uint32_t jc = c->joint_count;
    ossa_transform *locals = malloc(sizeof *locals * jc);
    ossa_mat4 *model = malloc(sizeof *model * jc);
    const crowd_instance *in = &c->instances[i];
    float time = crowd_instance_time(c, i, t);
    if (c->built) {
        ossa_sample_job sj = {.clip = c->built[in->clip], .context = ctx, .time = time, .loop = true, .output = locals,
                              .output_count = jc, .reference = sk->rest, .reference_count = jc};
        assert_int_equal(ossa_sample_job_run(&sj), OSSA_OK);
    } else {
        ossa_clip_sample_job sj = {.clip = c->asset->clips[in->clip], .time = time, .loop = true,
                                   .lookup = OSSA_LOOKUP_CURSOR, .cursors = cursors, .cursor_count = c->cursor_stride,
                                   .reference = sk->rest, .reference_count = jc, .output = locals, .output_count = jc};
        assert_int_equal(ossa_clip_sample_job_run(&sj), OSSA_OK);
    }
    for (uint32_t j = 0; j < jc; j++)
        if (sk->parents[j] < 0) locals[j] = ossa_transform_combine(in->place, locals[j]);
    ossa_local_to_model_job lm = {.skeleton = sk, .input = locals, .input_count = jc, .output = model, .output_count = jc};
    assert_int_equal(ossa_local_to_model_job_run(&lm), OSSA_OK);
    ossa_palette_job pj = {.skeleton = sk, .skin = c->skin, .model = model, .model_count = jc, .output = out,
                           .output_count = jc};
    assert_int_equal(ossa_palette_job_run(&pj), OSSA_OK);
    free(model);
    free(locals);
}

/* Every instance owns its state: built clips a context each (distinct, context_bytes =
 * ossa_sampling_context_size, sized for the crowd's clips), editable clips cursors each. Played forward at 60 Hz over
 * several wraps, split over scratch slots and reordered by time, every instance's palette
 * equals bit for bit the one a fresh state gives at that time (a fresh context, or zeroed
 * cursors) and the one a single state shared by all instances gives (the old scheme). */
static void crowd_instances_own_their_state(void **state) {
    (void)state;
    enum { M = 40 };
    for (int mode = 0; mode < 2; mode++) {
        crowd c;
        char err[256];
        crowd_desc d = {.asset = g_demo, .count = M, .seed = 9, .scratch_slots = 2,
                        .sampling = mode ? CROWD_SAMPLING_BUILT : CROWD_SAMPLING_EDITABLE};
        assert_true(crowd_create(&c, &d, err, sizeof err));
        uint32_t jc = c.joint_count;
        ossa_sampling_context *shared = NULL;
        if (mode) {
            assert_true(c.context_bytes > 0);
            ossa_sampling_context *sized = NULL; /* sized for every clip the crowd plays (it plays them all) */
            assert_int_equal(ossa_sampling_context_create_for_clips((const ossa_built_clip *const *)c.built, c.clip_count, NULL,
                                                                    &sized), OSSA_OK);
            assert_int_equal(ossa_sampling_context_size(sized), c.context_bytes);
            ossa_sampling_context_destroy(sized);
            for (uint32_t i = 0; i < M; i++) {
                assert_int_equal(ossa_sampling_context_size(c.contexts[i]), c.context_bytes);
                for (uint32_t k = 0; k < i; k++) assert_true(c.contexts[k] != c.contexts[i]);
            }
            assert_int_equal(ossa_sampling_context_create(jc, 0, NULL, &shared), OSSA_OK);
        } else {
            assert_null(c.contexts);
            assert_int_equal(c.context_bytes, 0);
        }
        uint32_t *shared_cursors = calloc(c.cursor_stride, sizeof *shared_cursors);
        uint32_t *fresh_cursors = calloc(c.cursor_stride, sizeof *fresh_cursors);
        ossa_mat4 *fresh = malloc(sizeof *fresh * jc), *one = malloc(sizeof *one * jc);
        uint32_t compared = 0;
        for (int f = 0; f < 240; f += 3) {
            float t = (float)f / 60;
            if (f % 2) crowd_order_by_time(&c, t);
            crowd_update_range(&c, 0, M / 2, 1, t);
            crowd_update_range(&c, M / 2, M, 0, t);
            for (uint32_t k = 0; k < M; k++) {
                uint32_t i = c.order[k];
                ossa_sampling_context *ctx = NULL;
                if (mode) assert_int_equal(ossa_sampling_context_create(jc, 0, NULL, &ctx), OSSA_OK);
                memset(fresh_cursors, 0, c.cursor_stride * sizeof *fresh_cursors);
                palette_with_state(&c, i, t, ctx, fresh_cursors, fresh);
                palette_with_state(&c, i, t, shared, shared_cursors, one);
                ossa_sampling_context_destroy(ctx);
                assert_memory_equal(c.palettes + (size_t)i * jc, fresh, sizeof *fresh * jc);
                assert_memory_equal(c.palettes + (size_t)i * jc, one, sizeof *one * jc);
                compared++;
            }
        }
        printf("[   INFO   ] %s: %u instance-frames equal a fresh and a shared state bit for bit (%zu B of "
               "context per instance)\n", mode ? "built clips" : "editable clips", compared, c.context_bytes);
        free(fresh), free(one), free(shared_cursors), free(fresh_cursors);
        ossa_sampling_context_destroy(shared);
        crowd_destroy(&c);
    }
}

/* Built clips of the demo (17 joints) and of a generated 30-joint skeleton with morph weights,
 * each built once. */
typedef struct two_skeletons {
    ossa_skeleton *sk;
    ossa_clip *clip;
    ossa_built_clip *built[3]; /* demo walk, demo wave, the generated clip */
    const ossa_transform *rest[3];
} two_skeletons;

static two_skeletons make_two_skeletons(void) {
    two_skeletons x;
    uint64_t s = 77;
    ot_gen_options o = {.joints = 30, .max_keys = 12, .weight_tracks = 2};
    x.sk = ot_gen_skeleton(&s, &o);
    x.clip = ot_gen_clip(&s, x.sk, &o);
    ossa_clip_build_options opt = {0};
    for (int k = 0; k < 3; k++) {
        const ossa_clip *clip = k < 2 ? g_demo->clips[k] : x.clip;
        const ossa_skeleton *sk = k < 2 ? g_demo->skeleton : x.sk;
        assert_int_equal(ossa_clip_build(clip, sk, &opt, NULL, &x.built[k], NULL), OSSA_OK);
        x.rest[k] = sk->rest;
    }
    return x;
}

/* Samples built clip k of x at t with ctx into out (and weights). */
static void sample_built(const two_skeletons *x, int k, ossa_sampling_context *ctx, float t, ossa_transform *out,
                         float *w) {
    const ossa_built_clip *bc = x->built[k];
    uint32_t J = ossa_built_clip_joint_count(bc), W = ossa_built_clip_weight_count(bc);
    ossa_sample_job job = {.clip = bc, .context = ctx, .time = t, .loop = true, .output = out, .output_count = J,
                           .weights = W ? w : NULL, .weights_count = W, .reference = x->rest[k], .reference_count = J};
    assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
}

/* One context (sized for the larger skeleton) played forward on clip A, switched to clip B of
 * the same skeleton, then to a clip of a second skeleton (more joints, morph weights), then
 * back: after every switch and every step, its pose and weights equal bit for bit what a
 * fresh context gives for the clip it now plays. */
static void context_reused_across_clips_and_skeletons(void **state) {
    (void)state;
    two_skeletons x = make_two_skeletons();
    assert_int_equal(ossa_built_clip_joint_count(x.built[2]), 30);
    assert_true(ossa_built_clip_weight_count(x.built[2]) >= 2);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(30, ossa_built_clip_weight_count(x.built[2]), NULL, &ctx), OSSA_OK);
    ossa_transform a[30], b[30];
    float wa[64] = {0}, wb[64] = {0};
    static const int order[] = {0, 1, 2, 0, 2, 1, 0};
    uint32_t switches = 0, samples = 0;
    for (size_t n = 0; n < sizeof order / sizeof order[0]; n++, switches++) {
        int k = order[n];
        float start = ossa_built_clip_start(x.built[k]), d = ossa_built_clip_duration(x.built[k]);
        for (int f = 0; f < 40; f++, samples++) { /* from a different place each visit, over a wrap */
            float t = start + d * (0.37f * (float)n) + (float)f / 60;
            ossa_sampling_context *fresh = NULL;
            assert_int_equal(ossa_sampling_context_create(30, 8, NULL, &fresh), OSSA_OK);
            sample_built(&x, k, ctx, t, a, wa);
            sample_built(&x, k, fresh, t, b, wb);
            ossa_sampling_context_destroy(fresh);
            uint32_t J = ossa_built_clip_joint_count(x.built[k]);
            assert_memory_equal(a, b, J * sizeof *a);
            assert_memory_equal(wa, wb, ossa_built_clip_weight_count(x.built[k]) * sizeof *wa);
        }
    }
    printf("[   INFO   ] one context over %u clip switches (17- and 30-joint skeletons), %u samples: equal to "
           "fresh contexts bit for bit\n", switches, samples);
    ossa_sampling_context_destroy(ctx);
    for (int k = 0; k < 3; k++) ossa_built_clip_destroy(x.built[k]);
    ossa_clip_destroy(x.clip);
    ossa_skeleton_destroy(x.sk);
}

static void gpu_crowd_matches_cpu_skinning(void **state) {
    (void)state;
    ossa_gl_headless *ctx = NULL;
    if (ossa_gl_headless_create(32, 32, &ctx) != OSSA_OK) {
        ot_skip_reason("no offscreen OpenGL context");
        skip();
    }
    ossa_gl_renderer *r = NULL;
    assert_int_equal(ossa_gl_renderer_create(&r), OSSA_OK);
    crowd c;
    char err[256];
    crowd_desc d = {.asset = g_demo, .count = N, .seed = 7};
    assert_true(crowd_create(&c, &d, err, sizeof err));
    crowd_update_range(&c, 0, N, 0, 1.3f);
    const ossa_mesh *m = NULL;
    for (uint32_t i = 0; i < g_demo->mesh_count && !m; i++)
        if (g_demo->meshes[i]->influences) m = g_demo->meshes[i];
    assert_non_null(m);
    ossa_gl_mesh *gm = NULL;
    assert_int_equal(ossa_gl_mesh_create(m, &gm), OSSA_OK);
    uint32_t jc = c.joint_count, nv = m->vertex_count;
    float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    ossa_gl_draw_desc dd = {.view_proj = identity, .joint_count = jc};
    /* before any upload, and with bad arguments: errors, not draws */
    assert_int_equal(ossa_gl_crowd_draw(r, gm, &dd, N), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_crowd_upload(r, NULL, N, jc), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_crowd_upload(r, c.palettes, 0, jc), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_crowd_upload(r, c.palettes, N, jc), OSSA_OK);
    assert_int_equal(ossa_gl_crowd_draw(r, gm, &dd, N + 1), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_gl_draw_desc wrong = dd;
    wrong.joint_count = jc + 1;
    assert_int_equal(ossa_gl_crowd_draw(r, gm, &wrong, N), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_gl_crowd_draw(r, gm, &dd, 0), OSSA_OK);
    assert_int_equal(ossa_gl_crowd_draw(r, gm, &dd, N), OSSA_OK);
    float *gpu = malloc(sizeof(float) * 3 * nv), *gpu_n = malloc(sizeof(float) * 3 * nv);
    float *cpu = malloc(sizeof(float) * 3 * nv), *cpu_n = malloc(sizeof(float) * 3 * nv);
    double worst = 0, worst_n = 0;
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(ossa_gl_crowd_readback(r, gm, &dd, i, gpu, m->normals ? gpu_n : NULL), OSSA_OK);
        ossa_skin_job job = {.end = nv, .vertex_count = nv, .influences = m->influences, .joints = m->joints, .weights = m->weights,
                             .palette = c.palettes + (size_t)i * jc, .palette_count = jc,
                             .positions = m->positions, .out_positions = cpu, .kernel = OSSA_SKIN_KERNEL_SCALAR};
        if (m->normals) job.normals = m->normals, job.out_normals = cpu_n;
        assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
        for (uint32_t k = 0; k < nv * 3; k++) {
            double e = fabs((double)gpu[k] - cpu[k]) / (1 + fabs((double)cpu[k]));
            if (e > worst) worst = e;
            if (m->normals && fabs((double)gpu_n[k] - cpu_n[k]) > worst_n) worst_n = fabs((double)gpu_n[k] - cpu_n[k]);
        }
    }
    printf("[   INFO   ] GPU crowd vs CPU skinning, %u instances x %u vertices: positions %.2e (relative), "
           "normals %.2e\n", N, nv, worst, worst_n);
    assert_true(worst < 1e-5);
    assert_true(worst_n < 1e-5);
    assert_int_equal(ossa_gl_crowd_readback(r, gm, &dd, N, gpu, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    /* textures: argument checks */
    ossa_gl_texture *tex = NULL;
    ossa_gl_texture_desc td = {0};
    assert_int_equal(ossa_gl_texture_create(&td, &tex), OSSA_ERROR_INVALID_ARGUMENT);
    const uint8_t px[4] = {255, 0, 0, 255};
    td = (ossa_gl_texture_desc){1, 1, px, OSSA_WRAP_CLAMP_TO_EDGE, 12345, OSSA_FILTER_NEAREST, 0};
    assert_int_equal(ossa_gl_texture_create(&td, &tex), OSSA_OK);
    ossa_gl_texture_destroy(tex);
    ossa_gl_texture_destroy(NULL);
    free(gpu), free(gpu_n), free(cpu), free(cpu_n);
    ossa_gl_mesh_destroy(gm);
    crowd_destroy(&c);
    ossa_gl_renderer_destroy(r);
    ossa_gl_headless_destroy(ctx);
}

/* The layout for threads: palettes and each slot's pose scratch on cache lines of their own,
 * every context line-aligned inside the arena, none overlapping, each slot's contexts in its
 * own contiguous part of the arena; the slots a partition of the instances that ordering by
 * time never changes (so each instance is updated exactly once a frame, by the same slot). */
static void crowd_layout_gives_each_slot_its_lines(void **state) {
    (void)state;
    enum { M = 50, S = 3 };
    crowd c;
    char err[256];
    crowd_desc d = {.asset = g_demo, .count = M, .seed = 3, .scratch_slots = S};
    assert_true(crowd_create(&c, &d, err, sizeof err));
    size_t jc = c.joint_count, line = CROWD_LINE;
    assert_int_equal((uintptr_t)c.palettes % line, 0);
    assert_int_equal((uintptr_t)c.locals % line, 0);
    assert_int_equal((uintptr_t)c.batch % line, 0);
    assert_true(c.locals_stride % line == 0 && c.locals_stride >= jc * sizeof(ossa_transform));
    assert_true(c.batch_stride % line == 0 &&
                c.batch_stride >= ossa_palette_batch_scratch_count(g_demo->skeleton) * sizeof(float));
    size_t stride = (c.context_bytes + line - 1) / line * line;
    assert_true(c.context_bytes > 0 && c.context_arena.capacity == M * stride);
    assert_int_equal(c.slot_begin[0], 0);
    assert_int_equal(c.slot_begin[S], M);
    uint32_t slot_of[M];
    for (uint32_t s = 0; s < S; s++) {
        assert_true(c.slot_begin[s] <= c.slot_begin[s + 1]);
        for (uint32_t k = c.slot_begin[s]; k < c.slot_begin[s + 1]; k++) slot_of[c.order[k]] = s;
    }
    for (float t = 0; t < 4.0f; t += 0.45f) {
        crowd_order_by_time(&c, t);
        uint8_t seen[M] = {0};
        for (uint32_t s = 0; s < S; s++)
            for (uint32_t k = c.slot_begin[s]; k < c.slot_begin[s + 1]; k++) {
                uint32_t i = c.order[k];
                assert_true(i < M && !seen[i]); /* once */
                seen[i] = 1;
                assert_int_equal(slot_of[i], s); /* by the same slot as at creation */
                /* its context: line-aligned, in its slot's part of the arena */
                size_t at = (size_t)((unsigned char *)c.contexts[i] - c.context_arena.base);
                assert_int_equal(at % line, 0);
                assert_true(at >= c.slot_begin[s] * stride && at + c.context_bytes <= c.slot_begin[s + 1] * stride);
            }
    }
    /* no two contexts overlap: distinct line-rounded offsets (stride apart at least) */
    uint8_t taken[M] = {0};
    for (uint32_t i = 0; i < M; i++) {
        size_t at = (size_t)((unsigned char *)c.contexts[i] - c.context_arena.base);
        assert_int_equal(at % stride, 0);
        assert_false(taken[at / stride]);
        taken[at / stride] = 1;
    }
    crowd_destroy(&c);
}

/* The crowd updated as the tool does (pool threads claim the slots; each orders and updates
 * its slot) gives bit for bit the palettes of one crowd updated in one call on one slot, frame
 * after frame (forward play through wraps, then a jump back). */
typedef struct slot_frame {
    crowd *c;
    float t;
} slot_frame;

static void order_and_update_slots(uint32_t begin, uint32_t end, void *user) {
    slot_frame *f = user;
    for (uint32_t slot = begin; slot < end; slot++) {
        crowd_order_slot_by_time(f->c, slot, f->t);
        crowd_update_slot(f->c, slot, f->t);
    }
}

static void crowd_slots_on_threads_match_one_thread(void **state) {
    (void)state;
    enum { M = 40, S = 3 };
    crowd one, split;
    char err[256];
    crowd_desc d = {.asset = g_demo, .count = M, .seed = 11, .scratch_slots = 1};
    assert_true(crowd_create(&one, &d, err, sizeof err));
    d.scratch_slots = S;
    assert_true(crowd_create(&split, &d, err, sizeof err));
    thread_pool *pool = thread_pool_create(S);
    assert_non_null(pool);
    size_t bytes = (size_t)M * one.joint_count * sizeof(ossa_mat4);
    for (int f = 0; f < 200; f += 3) {
        float t = f < 190 ? (float)f / 60 : 0.25f;
        slot_frame sf = {&split, t};
        memset(split.palettes, 0xff, bytes); /* NaN: an instance not updated would show */
        thread_pool_parallel_for(pool, 0, S, 1, order_and_update_slots, &sf);
        crowd_update_range(&one, 0, M, 0, t);
        assert_memory_equal(split.palettes, one.palettes, bytes);
    }
    thread_pool_destroy(pool);
    crowd_destroy(&one);
    crowd_destroy(&split);
}

/* The crowd's spacing and camera bounds come from its meshes skinned at the rest pose, not from
 * the vertices as stored: Assimp's HL1 man.mdl (Debian's assimp-testmodels, read in place) binds
 * its meshes in other axes than its skeleton's (model x inverse bind is a rotation), so the two
 * differ. The crowd's vertical bounds must equal the skinned ones computed here in double (model
 * matrices by walking the parents, each vertex's weighted sum of model x inverse bind). */
static void crowd_bounds_are_the_skinned_rest_pose(void **state) {
    (void)state;
    const char *path = ot_assimp_model("MDL/MDL (HL1)/man.mdl");
    if (!path) skip();
    ossa_asset *a = NULL;
    ossa_diagnostic diag;
    if (ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &a, &diag) != OSSA_OK) {
        ot_skip_reason("%s: cannot import (%s: built without Assimp?)", path, diag.message);
        skip();
    }
    crowd c;
    char err[256];
    crowd_desc d = {.asset = a, .count = 4, .seed = 3};
    if (!crowd_create(&c, &d, err, sizeof err)) fail_msg("crowd_create: %s", err);
    const ossa_skeleton *sk = a->skeleton;
    uint32_t J = sk->joint_count;
    ossa_mat4 *model = calloc(J, sizeof *model), *ibm = calloc(J, sizeof *ibm);
    for (uint32_t j = 0; j < J; j++) { /* parents come first */
        ossa_mat4 local = ossa_transform_to_mat4(sk->rest[j]);
        model[j] = sk->parents[j] < 0 ? local : ossa_mat4_mul(&model[sk->parents[j]], &local);
        ibm[j] = ossa_mat4_identity();
    }
    const ossa_skin *skin = &sk->skins[c.skin];
    for (uint32_t k = 0; k < skin->joint_count; k++) ibm[skin->joints[k]] = skin->inverse_bind[k];
    double lo = INFINITY, hi = -INFINITY, raw_lo = INFINITY, raw_hi = -INFINITY;
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        if (m->skin != (int32_t)c.skin || !m->influences) continue;
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            const float *p = m->positions + 3 * v;
            double y = 0;
            for (uint32_t k = 0; k < m->influences; k++) {
                uint32_t j = m->joints[v * m->influences + k];
                ossa_mat4 pal = ossa_mat4_mul(&model[j], &ibm[j]);
                double py = (double)pal.m[1] * p[0] + (double)pal.m[5] * p[1] + (double)pal.m[9] * p[2] + pal.m[13];
                y += m->weights[v * m->influences + k] * py;
            }
            lo = fmin(lo, y), hi = fmax(hi, y), raw_lo = fmin(raw_lo, p[1]), raw_hi = fmax(raw_hi, p[1]);
        }
    }
    double height = hi - lo;
    printf("crowd bounds: man.mdl skinned rest height %.3f, stored vertices' y range %.3f\n", height, raw_hi - raw_lo);
    assert_true(height > 0 && fabs((raw_hi - raw_lo) - height) > 0.1 * height); /* the file is the case it tests */
    ot_assert_near(c.lo[1], lo, 1e-4 * height);
    ot_assert_near(c.hi[1], hi, 1e-4 * height);
    crowd_destroy(&c);
    free(model);
    free(ibm);
    ossa_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crowd_layout_gives_each_slot_its_lines),
        cmocka_unit_test(crowd_slots_on_threads_match_one_thread),
        cmocka_unit_test(crowd_order_follows_time),
        cmocka_unit_test(crowd_palettes_match_the_reference),
        cmocka_unit_test(crowd_instances_own_their_state),
        cmocka_unit_test(context_reused_across_clips_and_skeletons),
        cmocka_unit_test(gpu_crowd_matches_cpu_skinning),
        cmocka_unit_test(crowd_bounds_are_the_skinned_rest_pose),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
