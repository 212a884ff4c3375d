/* The sampling job (src/anim/sample_job.c, sample_*.c): validation field by field, short
 * spans are errors that write nothing, context capacity, forward / backward / random access
 * and clip switches agree bit for bit with a fresh context, and the SIMD lerp kernels agree
 * with the scalar one bit for bit. Runs again with OSSA_SIMD capped (CMakeLists). */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/built_clip_internal.h"
#include "anim/sample_internal.h"
#include "math/fast.h"
#include "clip_gen.h"

/* The kernel tables below list the scalar kernel first, then the SIMD kernels the CPU has (a
 * scalar-only build compiles none of them). The scalar row checks what the reference run cannot:
 * nothing written outside [begin, end), the same bits on a second run. */
#define OT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct fixture {
    ossa_skeleton *sk;
    ossa_clip *clip;
    ossa_built_clip *built[2]; /* compressed, lossless */
} fixture;

static fixture make_fixture_keys(uint64_t seed, uint32_t joints, uint32_t weight_tracks, uint32_t max_keys) {
    fixture f;
    uint64_t s = seed;
    ot_gen_options o = {0};
    o.joints = joints;
    o.max_keys = max_keys;
    o.weight_tracks = weight_tracks;
    f.sk = ot_gen_skeleton(&s, &o);
    f.clip = ot_gen_clip(&s, f.sk, &o);
    for (int m = 0; m < 2; m++) {
        ossa_clip_build_options opt = {0};
        opt.lossless = m == 1;
        opt.precision = 1e-3f;
        assert_int_equal(ossa_clip_build(f.clip, f.sk, &opt, NULL, &f.built[m], NULL), OSSA_OK);
    }
    return f;
}

static fixture make_fixture(uint64_t seed, uint32_t joints, uint32_t weight_tracks) {
    return make_fixture_keys(seed, joints, weight_tracks, 12);
}

static void free_fixture(fixture *f) {
    for (int m = 0; m < 2; m++) ossa_built_clip_destroy(f->built[m]);
    ossa_clip_destroy(f->clip);
    ossa_skeleton_destroy(f->sk);
}

static void test_validate_fields(void **state) {
    (void)state;
    fixture f = make_fixture(1, 6, 1);
    uint32_t J = 6, W = ossa_built_clip_weight_count(f.built[0]);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, W, NULL, &ctx), OSSA_OK);
    ossa_transform out[7];
    float w[64];
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_sample_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "clip");
    assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    job.clip = f.built[0];
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "context");
    job.context = ctx;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "reference"); /* no reference */
    job.reference = f.sk->rest;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    job.output_count = J;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "reference_count"); /* reference_count */
    job.reference_count = J - 1;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "reference_count");
    job.reference_count = J;
    ot_assert_job_ok(ossa_sample_job_validate, &job); /* weights are optional */
    job.weights = w;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "weights_count");
    job.weights_count = W;
    ot_assert_job_ok(ossa_sample_job_validate, &job);
    job.weights = NULL;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "weights"); /* a count without a buffer */
    job.weights = w;
    job.time = NAN;
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "time");
    job.time = INFINITY;
    assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
    assert_true(job.sampled_time == ossa_built_clip_end(f.built[0]));

    /* a short output span is an error and writes nothing */
    memset(out, 0xAB, sizeof out);
    job.output_count = J - 1;
    assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t i = 0; i < sizeof out; i++) assert_int_equal(((unsigned char *)out)[i], 0xAB);
    job.output_count = J;
    memset(out, 0xAB, sizeof out);
    job.reference_count = J - 1;
    assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t i = 0; i < sizeof out; i++) assert_int_equal(((unsigned char *)out)[i], 0xAB);
    job.reference_count = J;
    if (W) {
        memset(w, 0xCD, sizeof w);
        job.weights_count = W - 1;
        assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
        for (size_t i = 0; i < sizeof w; i++) assert_int_equal(((unsigned char *)w)[i], 0xCD);
        job.weights_count = W;
    }
    /* a context too small for the clip (one for no joints: no slots, no key room) */
    ossa_sampling_context *small = NULL;
    assert_int_equal(ossa_sampling_context_create(0, 0, NULL, &small), OSSA_OK);
    job.context = small;
    assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "context");
    ossa_sampling_context_destroy(small);
    assert_true(ossa_sampling_context_size(ctx) > 0);
    assert_int_equal(ossa_sampling_context_size(NULL), 0);
    assert_int_equal(ossa_sampling_context_create(1, 1, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_sampling_context_reset(NULL);
    ossa_sampling_context_destroy(NULL);
    ossa_sampling_context_destroy(ctx);
    free_fixture(&f);
}

/* The context's size as sample.h states it: 104 bytes a joint, 8 a weight and about 210
 * more, counted by hand from its parts (slots 3 J + W of 8 B; keys 20 J + 22 floats; each
 * part 16-byte aligned after the header), 4,680 B for 43 joints (ozz 0.16's context for them:
 * 5,110 B; a context sized for the clips it plays is smaller: test_sample_context). */
static void test_context_size(void **state) {
    (void)state;
    const uint32_t joints[] = {1, 17, 43, 100, 1000}, weights[] = {0, 0, 0, 8, 64};
    for (int k = 0; k < 5; k++) {
        ossa_sampling_context *ctx = NULL;
        uint32_t J = joints[k], W = weights[k];
        assert_int_equal(ossa_sampling_context_create(J, W, NULL, &ctx), OSSA_OK);
        size_t size = ossa_sampling_context_size(ctx), parts = 104u * (size_t)J + 8u * W; /* sample.h's contract */
        printf("%u joints, %u weights: %zu B\n", J, W, size);
        assert_true(size >= parts + 22u * 4u);
        assert_true(size <= parts + 250u);
        if (J == 43 && sizeof(void *) == 8) assert_int_equal(size, 4680); /* <= 5,110 B: ozz 0.16's context for Woman */
        ossa_sampling_context_destroy(ctx);
    }
}

/* Samples `bc` at t with a fresh context (the reference for every cached path). */
static void sample_fresh(const ossa_built_clip *bc, const ossa_transform *ref, float t, bool loop, ossa_transform *out,
                         float *w) {
    uint32_t J = ossa_built_clip_joint_count(bc), W = ossa_built_clip_weight_count(bc);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, W, NULL, &ctx), OSSA_OK);
    ossa_sample_job job = {bc, ctx, t, loop, out, J, W ? w : NULL, W, ref, J, 0};
    assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
    ossa_sampling_context_destroy(ctx);
}

/* Forward, backward, random order and switching between four clips (two compressed, two
 * lossless: the context's slots change hands between packed and raw channels) on one context,
 * larger than the clips need, all give what a fresh context gives, bit for bit. */
static void test_context_paths_agree(void **state) {
    (void)state;
    fixture f = make_fixture(2, 9, 2), g = make_fixture(3, 9, 2);
    uint32_t J = 9, W = 64;
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J + 4, W, NULL, &ctx), OSSA_OK);
    ossa_transform a[9], b[9];
    float wa[64], wb[64];
    uint64_t s = 5;
    for (int m = 0; m < 2; m++) {
        const ossa_built_clip *clips[4] = {f.built[m], g.built[m], f.built[1 - m], g.built[1 - m]};
        float lo = ossa_built_clip_start(clips[0]) - 0.3f, hi = ossa_built_clip_end(clips[0]) + 0.3f;
        float prev = lo;
        for (int k = 0; k < 1200; k++) {
            int phase = k / 300; /* forward 60 Hz, backward, random with clip switches, random jumps on one clip */
            const ossa_built_clip *bc = phase == 2 ? clips[ot_rand_u64(&s) % 4] : clips[0];
            float t = phase == 0   ? lo + (float)k / 60.0f
                      : phase == 1 ? hi - (float)(k - 300) / 97.0f
                      : phase == 2 ? ot_rand_float(&s, lo, hi)
                                   : prev + ot_rand_float(&s, -0.05f, 0.6f); /* mostly a few keys ahead */
            if (phase == 3 && t > hi) t = lo + ot_rand_float(&s, 0.0f, 0.2f);
            prev = t;
            bool loop = phase == 2 && (k & 1);
            uint32_t Wc = ossa_built_clip_weight_count(bc);
            const ossa_transform *ref = bc == f.built[0] || bc == f.built[1] ? f.sk->rest : g.sk->rest;
            ossa_sample_job job = {bc, ctx, t, loop, a, J, wa, Wc, ref, J, 0};
            assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
            sample_fresh(bc, ref, t, loop, b, wb);
            assert_memory_equal(a, b, sizeof a);
            if (Wc) assert_memory_equal(wa, wb, Wc * sizeof(float));
            if (k == 450) ossa_sampling_context_reset(ctx);
        }
    }
    ossa_sampling_context_destroy(ctx);
    free_fixture(&f);
    free_fixture(&g);
}

/* A lossless clip of several shared clocks (two of 12 channels each: the kernel runs of a
 * clock among others; one of 3 channels: the inline runs; STEP and LINEAR mixed) samples to the editable path's bits, forward, backward and at random times, and
 * agrees with a fresh context. */
static void test_lossless_clocks_agree(void **state) {
    (void)state;
    enum { J = 26, NA = 9, NB = 6 };
    uint64_t s = 41;
    ot_gen_options o = {0};
    o.joints = J;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    float ta[NA], tb[NB], tc[2] = {0.3f, 0.45f}, va[J][NA * 4], vb[J][NB * 4], vc[J][8];
    for (int k = 0; k < NA; k++) ta[k] = 0.1f * (float)k;
    for (int k = 0; k < NB; k++) tb[k] = 0.05f + 0.17f * (float)k;
    ossa_transform_track tr[J];
    memset(tr, 0, sizeof tr);
    for (uint32_t j = 0; j < J; j++) {
        tr[j].joint = j;
        int group = j < 12 ? 0 : j < 24 ? 1 : 2; /* clocks A (9 keys), B (6 keys), C (2 keys, 3 channels) */
        uint32_t n = group == 0 ? NA : group == 1 ? NB : 2;
        float *v = group == 0 ? va[j] : group == 1 ? vb[j] : vc[j];
        for (uint32_t k = 0; k < n; k++) {
            ossa_quat q = ot_rand_quat(&s);
            float f[4] = {q.x, q.y, q.z, q.w};
            memcpy(v + 4 * k, f, sizeof f);
        }
        ossa_track *rt = &tr[j].rotation, *vt = j % 2 ? &tr[j].translation : &tr[j].scale;
        rt->kind = OSSA_TRACK_ROTATION;
        rt->components = 4;
        rt->key_count = n;
        rt->times = group == 0 ? ta : group == 1 ? tb : tc;
        rt->values = v;
        rt->interp = j % 5 == 3 ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
        *vt = *rt; /* a vector track on the same keys: the first 3 n of the rotation's floats */
        vt->kind = OSSA_TRACK_VECTOR;
        vt->components = 3;
        vt->interp = j % 7 == 2 ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
        if (j == 25) vt->key_count = 0; /* clock C: 2 rotations + 1 vector */
    }
    ossa_clip_desc d = {0};
    d.track_count = J;
    d.tracks = tr;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    ossa_clip_build_options opt = {0};
    opt.lossless = true;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(clip, sk, &opt, NULL, &bc, NULL), OSSA_OK);
    assert_int_equal(bc->h->clock_count, 3);
    assert_int_equal(bc->h->raw_count, 2 * 24 + 3);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, 0, NULL, &ctx), OSSA_OK);
    ossa_transform a[J], b[J], ex[J];
    float lo = ossa_built_clip_start(bc) - 0.2f, hi = ossa_built_clip_end(bc) + 0.2f;
    int same = 0;
    for (int k = 0; k < 600; k++) {
        int phase = k / 200; /* forward 60 Hz, backward, random */
        float t = phase == 0 ? lo + (float)k / 60.0f : phase == 1 ? hi - (float)(k - 200) / 97.0f : ot_rand_float(&s, lo, hi);
        ossa_sample_job job = {bc, ctx, t, false, a, J, NULL, 0, sk->rest, J, 0};
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        sample_fresh(bc, sk->rest, t, false, b, NULL);
        assert_memory_equal(a, b, sizeof a);
        ossa__clip_sample_exact(clip, t, false, sk->rest, ex, J);
        assert_memory_equal(a, ex, sizeof a);
        same++;
    }
    printf("lossless, 3 clocks: %d poses bit-identical to the editable path\n", same);
    ossa_sampling_context_destroy(ctx);
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* The jump seeks on masks of one window (<= 57 grid times), of a few words and past
 * OSSA__MASK_SEEK_WORDS words give what forward steps and fresh contexts give: compressed clips
 * of many keys, forward at 60 Hz (steps, wrap-around seeks) then random times (every frame a
 * jump), each frame against a fresh context, bit for bit. */
static void test_jump_seeks_agree(void **state) {
    (void)state;
    static const uint32_t keys[] = {6, 60, 200, 3000};
    uint32_t J = 6, grids[4];
    for (int v = 0; v < 4; v++) {
        fixture f = make_fixture_keys(30 + (uint64_t)v, J, 0, keys[v]);
        const ossa_built_clip *bc = f.built[0];
        grids[v] = bc->h->grid_count;
        ossa_sampling_context *ctx = NULL;
        assert_int_equal(ossa_sampling_context_create(J, 0, NULL, &ctx), OSSA_OK);
        ossa_transform a[6], b[6];
        float lo = ossa_built_clip_start(bc), span = ossa_built_clip_end(bc) - lo;
        uint64_t s = 11;
        for (int k = 0; k < 1500; k++) {
            float t = k < 900 ? lo + (float)k * span / 250.0f : lo + ot_rand_float(&s, -0.1f, 1.1f) * span;
            bool loop = k < 900 || (k & 1);
            ossa_sample_job job = {bc, ctx, t, loop, a, J, NULL, 0, f.sk->rest, J, 0};
            assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
            sample_fresh(bc, f.sk->rest, t, loop, b, NULL);
            assert_memory_equal(a, b, sizeof a);
        }
        ossa_sampling_context_destroy(ctx);
        free_fixture(&f);
    }
    printf("grid times %u %u %u %u\n", grids[0], grids[1], grids[2], grids[3]);
    assert_true(grids[0] <= 57u);
    assert_true(grids[1] > 57u && grids[1] <= 64u * OSSA__MASK_SEEK_WORDS);
    assert_true(grids[3] > 64u * OSSA__MASK_SEEK_WORDS);
}

/* Rotations written into a pose (ossa__lerp_soa.pose) by the scalar kernel and by `fn`:
 * channel i's quaternion at a shuffled place, its stored components around the rebuilt one
 * at drop[i], as `ref`'s SoA output (computed before) puts them by hand; nothing else of the
 * pose written (channels outside [begin, end), the gaps between them). Returns 2. */
enum { PLACED_N = 45 + OSSA__LERP_SLACK };
static int placed_agree(const ossa__lerp_soa *ref, const ossa__lerp_soa *got, ossa__lerp_kernel fn, float t,
                        uint32_t begin, uint32_t end, uint64_t *seed) {
    uint32_t dst[PLACED_N];
    float drop[PLACED_N], want[PLACED_N * 5], pose[PLACED_N * 5];
    for (uint32_t i = 0; i < PLACED_N; i++) { /* slot i of 5 floats a channel, in a random order */
        dst[i] = i;
        drop[i] = (float)(ot_rand_u64(seed) % 4u);
    }
    for (uint32_t i = PLACED_N - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(ot_rand_u64(seed) % (i + 1u)), x = dst[i];
        dst[i] = dst[j], dst[j] = x;
    }
    for (uint32_t i = 0; i < PLACED_N; i++) dst[i] = dst[i] * 5u + (uint32_t)(ot_rand_u64(seed) % 2u);
    for (uint32_t i = 0; i < PLACED_N * 5; i++) want[i] = -7.0f; /* untouched */
    for (uint32_t i = begin; i < end; i++) {
        uint32_t d = (uint32_t)drop[i], c = 0;
        for (uint32_t k = 0; k < 4; k++) want[dst[i] + k] = k == d ? ref->o[3][i] : ref->o[c++][i];
    }
    ossa__lerp_kernel fns[2] = {ossa__lerp_scalar, fn};
    for (int f = 0; f < 2; f++) {
        ossa__lerp_soa p = *got;
        p.pose = pose, p.dst = dst, p.drop = drop;
        for (uint32_t i = 0; i < PLACED_N * 5; i++) pose[i] = -7.0f;
        fns[f](&p, t, begin, end, true);
        assert_memory_equal(pose, want, sizeof pose);
    }
    return 2;
}

/* Every SIMD decode + lerp kernel the CPU has gives the scalar kernel's bits (same
 * operations, no FMA), on keys of random bit widths and ranges (rotations: stored components
 * within +-1, so the rebuilt one goes through 0 and the shorter-arc flip both ways), held keys
 * and STEP segments (dt +Inf); rotations also placed into a pose (placed_agree). */
static void test_kernels_agree(void **state) {
    (void)state;
    enum { N = 45, M = N + OSSA__LERP_SLACK };
    float t0[M] = {0}, dt[M] = {0}, mn[3][M] = {{0}}, st[3][M] = {{0}};
    float keys[3 * 2 * N + 1] = {0}; /* the keys 3 floats apart, as in the decoded blocks, in a shuffled order */
    uint32_t ka[M] = {0}, kb[M] = {0}, slot[2 * N];
    float o[4][M], r[4][M];
    uint64_t s = 11;
    for (uint32_t j = 0; j < 2 * N; j++) slot[j] = j;
    for (uint32_t j = 2 * N - 1; j > 0; j--) {
        uint32_t x = (uint32_t)(ot_rand_u64(&s) % (j + 1u)), y = slot[j];
        slot[j] = slot[x], slot[x] = y;
    }
    for (int i = 0; i < N; i++) {
        t0[i] = ot_rand_float(&s, 0, 1);
        dt[i] = i % 7 == 0 ? INFINITY : ot_rand_float(&s, 1.0f / 30, 2);
        ka[i] = 3u * slot[2 * i];
        kb[i] = i % 5 == 0 ? ka[i] : 3u * slot[2 * i + 1]; /* one key held: both at one place */
        for (int c = 0; c < 3; c++) {
            uint32_t bits = 1 + (uint32_t)(ot_rand_u64(&s) % OSSA__BC_MAX_BITS), top = (1u << bits) - 1u;
            mn[c][i] = ot_rand_float(&s, -1.0f, 0.0f);
            st[c][i] = ot_rand_float(&s, 0.0f, 1.0f) / (float)top;
            keys[ka[i] + (uint32_t)c] = (float)(uint32_t)(ot_rand_u64(&s) % (top + 1u));
            if (kb[i] != ka[i]) keys[kb[i] + (uint32_t)c] = (float)(uint32_t)(ot_rand_u64(&s) % (top + 1u));
        }
    }
    ossa__lerp_soa ref = {t0, dt, keys, ka, kb, {mn[0], mn[1], mn[2]}, {st[0], st[1], st[2]}, {r[0], r[1], r[2], r[3]},
                          NULL, NULL, NULL};
    ossa__lerp_soa got = ref;
    for (int c = 0; c < 4; c++) got.o[c] = o[c];
    struct {
        ossa__lerp_kernel fn;
        const char *name;
        bool ok;
    } kernels[] = {
        {ossa__lerp_scalar, "scalar", true},
#if !defined(OSSA_SCALAR_ONLY)
        {ossa__lerp_sse, "sse", ossa__simd_cpu() >= OSSA__SIMD_SSE4},
        {ossa__lerp_avx2, "avx2", ossa__simd_cpu() >= OSSA__SIMD_AVX2},
        {ossa__lerp_avx512, "avx512", ossa__simd_cpu() >= OSSA__SIMD_AVX512},
#endif
    };
    int ran = 0;
    for (int rot = 0; rot < 2; rot++)
        for (size_t k = 0; k < OT_COUNT(kernels); k++) {
            if (!kernels[k].ok) continue;
            for (float t = -0.2f; t < 1.3f; t += 0.137f) {
                uint32_t begin = (uint32_t)(ot_rand_u64(&s) % 5), end = N - (uint32_t)(ot_rand_u64(&s) % 9);
                memset(r, 0, sizeof r);
                memset(o, 0, sizeof o);
                ossa__lerp_scalar(&ref, t, begin, end, rot);
                kernels[k].fn(&got, t, begin, end, rot);
                for (int c = 0; c < (rot ? 4 : 3); c++) assert_memory_equal(o[c] + begin, r[c] + begin, (end - begin) * sizeof(float));
                ran++;
                if (rot) ran += placed_agree(&ref, &got, kernels[k].fn, t, begin, end, &s);
            }
        }
    printf("%d kernel comparisons\n", ran);
}

/* The compressed rotations' nlerp time correction (ossa__slerp_fit / ossa__slerp_time, in
 * float as every kernel computes it) against slerp worked out here in double: for keys of dot
 * d, nlerp at the corrected s' must lie at the rotation angle slerp reaches at s,
 * 2 s acos(d) from key a. Bounds (the contract in built_clip_internal.h, float rounding
 * included): 2.5e-7 rad for d >= 0.7, 4e-6 from 0.5, 1e-3 anywhere in [0, 1]; exact at
 * s = 0 and 1. Zeux's correction (format 6) misses the first by 100 x: 1.2e-5 at d = 0.998,
 * the dot of two of Woman's 30 Hz wrist keys 1/120 s apart. */
static void test_nlerp_correction_tracks_slerp(void **state) {
    (void)state;
    double worst[3] = {0, 0, 0};
    int checked = 0;
    for (int i = 0; i <= 400; i++) {
        double dd = i < 200 ? i / 200.0 : 1.0 - pow(10.0, -1.0 - 5.0 * (i - 200) / 200.0); /* [0, 1), dense near 1 */
        float d = (float)dd, q[3];
        ossa__slerp_fit(d, q);
        double w = acos((double)d);
        for (int j = 0; j <= 128; j++) {
            float s = (float)j / 128.0f, sp = ossa__slerp_time(s, q);
            if (j == 0 || j == 128) assert_true(sp == s);
            double along = atan2((double)sp * sin(w), (1.0 - (double)sp) + (double)sp * cos(w));
            double err = 2.0 * fabs(along - (double)s * w);
            int band = d >= 0.7f ? 0 : d >= 0.5f ? 1 : 2;
            if (err > worst[band]) worst[band] = err;
            checked++;
        }
    }
    printf("nlerp correction vs slerp, %d points: max %.3g rad (dot >= 0.7), %.3g (>= 0.5), %.3g (below)\n", checked,
           worst[0], worst[1], worst[2]);
    assert_true(worst[0] <= 2.5e-7);
    assert_true(worst[1] <= 4e-6);
    assert_true(worst[2] <= 1e-3);
}

/* Every SIMD slerp kernel the CPU has gives ossa__slerp4's bits (the editable path) wherever it
 * does not ask for the scalar fallback, and asks for it only outside the series' range: key
 * pairs from nearly equal (4 series terms) to far apart (acos path), both signs of the dot. */
static void test_slerp_kernels_agree(void **state) {
    (void)state;
    enum { N = 77, M = N + OSSA__LERP_SLACK };
    float a[4][M] = {{0}}, b[4][M] = {{0}}, s[M] = {0}, o[4][M], r[4][M];
    uint8_t fb[M], fr[M];
    uint64_t seed = 5;
    for (int i = 0; i < N; i++) {
        ossa_quat qa = ot_rand_quat(&seed), qd = ot_rand_quat(&seed);
        float fa[4] = {qa.x, qa.y, qa.z, qa.w}, f[4] = {qd.x, qd.y, qd.z, qd.w};
        float spread = i % 4 == 0 ? 1.0f : i % 4 == 1 ? 0.3f : i % 4 == 2 ? 0.05f : 0.002f, n = 0.0f;
        for (int c = 0; c < 4; c++) { /* b = a nudged towards a random direction, renormalised */
            f[c] = fa[c] + spread * f[c];
            n += f[c] * f[c];
        }
        for (int c = 0; c < 4; c++) {
            a[c][i] = fa[c];
            b[c][i] = (i % 3 == 0 ? -1.0f : 1.0f) * f[c] / sqrtf(n);
        }
        s[i] = i % 11 == 0 ? 0.0f : i % 13 == 0 ? 1.0f : ot_rand_float(&seed, 0, 1);
    }
    ossa__slerp_soa ref = {{a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, s, {r[0], r[1], r[2], r[3]}, fr, NULL, NULL};
    ossa__slerp_soa got = {{a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, s, {o[0], o[1], o[2], o[3]}, fb, NULL, NULL};
    /* the pose output: channel i at float 5 (N - 1 - i) + (i & 1) of a pose that is otherwise left alone */
    uint32_t dst[M];
    float pose[5 * M];
    for (uint32_t i = 0; i < M; i++) dst[i] = 5u * (M - 1u - i) + (i & 1u);
    ossa__slerp_soa placed = got;
    placed.pose = pose, placed.dst = dst;
    ossa__slerp_scalar(&ref, 0, N);
    for (int i = 0; i < N; i++) { /* the scalar kernel is ossa__slerp4 itself */
        float qa[4] = {a[0][i], a[1][i], a[2][i], a[3][i]}, qb[4] = {b[0][i], b[1][i], b[2][i], b[3][i]}, q[4];
        ossa__slerp4(qa, qb, s[i], q);
        for (int c = 0; c < 4; c++) assert_memory_equal(&q[c], &r[c][i], sizeof(float));
        assert_int_equal(fr[i], 0);
    }
    struct {
        ossa__slerp_kernel fn;
        bool ok;
    } kernels[] = {
        {ossa__slerp_scalar, true},
#if !defined(OSSA_SCALAR_ONLY)
        {ossa__slerp_sse, ossa__simd_cpu() >= OSSA__SIMD_SSE4},
        {ossa__slerp_avx2, ossa__simd_cpu() >= OSSA__SIMD_AVX2},
        {ossa__slerp_avx512, ossa__simd_cpu() >= OSSA__SIMD_AVX512},
#endif
    };
    int same = 0, fallback = 0;
    for (size_t k = 0; k < OT_COUNT(kernels); k++) {
        if (!kernels[k].ok) continue;
        for (uint32_t begin = 0; begin < 3; begin++) {
            uint32_t end = N - begin * 2;
            memset(fb, 0, sizeof fb);
            kernels[k].fn(&got, begin, end);
            for (uint32_t i = 0; i < 5 * M; i++) pose[i] = -7.0f;
            kernels[k].fn(&placed, begin, end);
            for (uint32_t i = 0; i < M; i++) {
                bool in = i >= begin && i < end;
                assert_true(pose[5u * (M - 1u - i) + ((i & 1u) ? 0u : 4u)] == -7.0f); /* the gap in its slot */
                float d = fabsf(a[0][i] * b[0][i] + a[1][i] * b[1][i] + a[2][i] * b[2][i] + a[3][i] * b[3][i]);
                if (in && fb[i]) {
                    assert_true(d < 0.7f);
                    fallback++;
                    continue;
                }
                for (int c = 0; c < 4; c++) {
                    if (in) assert_memory_equal(&o[c][i], &r[c][i], sizeof(float));
                    assert_memory_equal(&pose[dst[i] + (uint32_t)c], in ? &r[c][i] : &(float){-7.0f}, sizeof(float));
                }
                same += in;
            }
        }
    }
    printf("slerp kernels: %d lanes bit-identical, %d scalar fallbacks\n", same, fallback);
}

/* The unpack kernels: the scalar one decodes what ossa__bits_read + ossa__float_ord give lane
 * by lane (an independent reading), and every SIMD one the CPU has gives its bits for every
 * [begin, end) without writing outside it: random channels of 3 or 4 lanes of 0..32 bits on
 * random streams, every key. The table arrays are exactly sized (ASan sees an over-read). */
static void test_unpack_kernels_agree(void **state) {
    (void)state;
    enum { LANES = 61, KEYS = 9, BYTES = 4096 };
    unsigned char *block = malloc(BYTES + 8);
    uint32_t *off = malloc(LANES * 4), *pos = malloc(LANES * 4), *base = malloc(LANES * 4);
    uint32_t bit[LANES], per[LANES], nbits[LANES]; /* what pos packs, for the reference reading */
    assert_non_null(block);
    assert_non_null(off);
    assert_non_null(pos);
    assert_non_null(base);
    uint64_t seed = 17;
    for (int i = 0; i < BYTES + 8; i++) block[i] = (unsigned char)(uint32_t)ot_rand_u64(&seed);
    for (uint32_t j = 0; j < LANES;) { /* one channel: its lanes consecutive in the table */
        uint32_t lanes = j + 4 <= LANES && (uint32_t)ot_rand_u64(&seed) % 2 ? 4u : 3u, b[4], sum = 0, o;
        if (j + lanes > LANES) lanes = LANES - j;
        for (uint32_t q = 0; q < lanes; q++) {
            uint32_t r = (uint32_t)ot_rand_u64(&seed) % 10u;
            b[q] = r == 0 ? 0u : r == 1 ? 32u : (uint32_t)ot_rand_u64(&seed) % 33u;
            sum += b[q];
        }
        o = (uint32_t)ot_rand_u64(&seed) % (BYTES - (KEYS * 128u) / 8u - 1u); /* KEYS keys of <= 128 bits fit */
        for (uint32_t q = 0, at = 0; q < lanes; q++, j++) {
            off[j] = o;
            bit[j] = at;
            per[j] = sum;
            nbits[j] = b[q];
            pos[j] = OSSA__UNPACK_POS(at, sum, b[q]);
            base[j] = (uint32_t)ot_rand_u64(&seed) % 4u == 0 ? 0x80000000u : (uint32_t)ot_rand_u64(&seed);
            at += b[q];
        }
    }
    ossa__unpack_table tab = {off, pos, base};
    struct {
        ossa__unpack_kernel fn;
        bool ok;
    } kernels[] = {
        {ossa__unpack_scalar, true},
#if !defined(OSSA_SCALAR_ONLY)
        {ossa__unpack_avx2, ossa__simd_cpu() >= OSSA__SIMD_AVX2},
        {ossa__unpack_avx512, ossa__simd_cpu() >= OSSA__SIMD_AVX512},
#endif
    };
    int same = 0;
    for (uint32_t k = 0; k < KEYS; k++) {
        float ref[LANES], got[LANES + 2];
        ossa__unpack_scalar(&tab, block, k, 0, LANES, ref);
        for (uint32_t j = 0; j < LANES; j++) {
            float want = ossa__ord_float(base[j] + ossa__bits_read(block + off[j], (uint64_t)k * per[j] + bit[j], nbits[j]));
            assert_memory_equal(&want, &ref[j], sizeof(float));
        }
        for (size_t n = 0; n < OT_COUNT(kernels); n++) {
            if (!kernels[n].ok) continue;
            for (uint32_t begin = 0; begin < 10; begin += 3) {
                for (uint32_t end = begin; end <= LANES; end += end < 20 ? 1 : 7) {
                    const float sentinel = -1234.5f;
                    for (uint32_t j = 0; j < LANES + 2; j++) got[j] = sentinel;
                    kernels[n].fn(&tab, block, k, begin, end, got + 1);
                    assert_memory_equal(&got[0], &sentinel, sizeof(float));
                    for (uint32_t j = 0; j < LANES; j++) {
                        if (j >= begin && j < end) {
                            assert_memory_equal(&got[1 + j], &ref[j], sizeof(float));
                            same++;
                        } else {
                            assert_memory_equal(&got[1 + j], &sentinel, sizeof(float));
                        }
                    }
                    assert_memory_equal(&got[LANES + 1], &sentinel, sizeof(float));
                }
            }
        }
    }
    printf("unpack kernels: %d lanes bit-identical\n", same);
    free(block);
    free(off);
    free(pos);
    free(base);
}

/* Lifted blocks: an independent decoder written from the format's spec (docs/built-clips.md,
 * "Lifted value streams": fields read bit by bit, a flagged channel's flags counted one by one,
 * the predictions with signed floor division, sums modulo 2^wa) gives ossa__lift_block's keys:
 * random channels back to back on random bytes (make_lift_channels), the last stream against
 * the end of an exactly sized block, every block. */
static uint32_t spec_bits(const unsigned char *s, uint64_t pos, uint32_t n) {
    uint32_t v = 0;
    for (uint32_t b = 0; b < n; b++) v |= (uint32_t)(((unsigned)s[(pos + b) >> 3] >> ((pos + b) & 7u)) & 1u) << b;
    return v;
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Block m of a stream of M blocks: anchors wa, residual widths w1, w2 (wide) and reductions d1,
 * d2 (all 0: no flags; else M flag bits first, a narrow block's residuals w - d bits). */
static void spec_block(const unsigned char *s, const uint32_t wa[3], const uint32_t ww1[3], const uint32_t ww2[3],
                       const uint32_t d1[3], const uint32_t d2[3], uint32_t M, uint32_t m, uint32_t q[15]) {
    bool flagged = false;
    for (int c = 0; c < 3; c++) flagged = flagged || d1[c] || d2[c];
    uint64_t pos = flagged ? M : 0u;
    for (uint32_t k = 0; k < m; k++) { /* the blocks before m, each narrow or wide */
        bool wide = !flagged || spec_bits(s, k, 1);
        for (int c = 0; c < 3; c++) pos += wa[c] + 2 * (ww1[c] - (wide ? 0 : d1[c])) + (ww2[c] - (wide ? 0 : d2[c]));
    }
    bool wide = !flagged || spec_bits(s, m, 1);
    uint32_t w1[3], w2[3];
    for (int c = 0; c < 3; c++) {
        w1[c] = ww1[c] - (wide ? 0 : d1[c]);
        w2[c] = ww2[c] - (wide ? 0 : d2[c]);
    }
    uint32_t A = wa[0] + wa[1] + wa[2], R1 = w1[0] + w1[1] + w1[2], R2 = w2[0] + w2[1] + w2[2];
    uint64_t at[5] = {pos, pos + A, pos + A + R1, pos + A + R1 + R2, pos + A + 2 * R1 + R2};
    const uint32_t *width[5] = {wa, w1, w2, w1, wa};
    uint32_t f[5][3];
    for (int item = 0; item < 5; item++)
        for (int c = 0; c < 3; c++) {
            f[item][c] = spec_bits(s, at[item], width[item][c]);
            at[item] += width[item][c];
        }
    for (int c = 0; c < 3; c++) {
        int64_t mod = (int64_t)1 << wa[c], a0 = f[0][c], a4 = f[4][c];
        int64_t b1 = w1[c] ? (int64_t)1 << (w1[c] - 1) : 0, b2 = w2[c] ? (int64_t)1 << (w2[c] - 1) : 0;
        int64_t q2 = ((floor_div(a0 + a4, 2) + f[2][c] - b2) % mod + mod) % mod;
        int64_t q1 = ((floor_div(3 * a0 + 6 * q2 - a4, 8) + f[1][c] - b1) % mod + mod) % mod;
        int64_t q3 = ((floor_div(3 * a4 + 6 * q2 - a0, 8) + f[3][c] - b1) % mod + mod) % mod;
        uint32_t v[5] = {(uint32_t)a0, (uint32_t)q1, (uint32_t)q2, (uint32_t)q3, (uint32_t)a4};
        for (int j = 0; j < 5; j++) q[j * 3 + c] = v[j];
    }
}

/* Random lifted channels back to back on random bytes: CH of them (0..22 anchor bits, residuals
 * 0..wa bits, two of three flagged with random reductions and random flags, 1..23 keys, every
 * seventh 250..299 keys (flags past one 64-bit word); every eighth with wide blocks: its last
 * field 196 .. 280 bits in), the block sized exactly plus OSSA__BC_READ_SLACK (as after a
 * built clip's block in memory), their field tables (narrow, wide), narrow block bits and the
 * flagged ones' block tables (ossa__lift_soa: bto, blk; each block at M + m N + rank(m) (W - N)
 * with its flag, the rank counted here bit by bit); maxm = the most blocks of one. */
enum { LIFT_CH = 48, LIFT_MAXM = 75 };
typedef struct lift_channels {
    ossa__bc_packed pk[LIFT_CH];
    uint32_t keys[LIFT_CH], wa[LIFT_CH][3], w1[LIFT_CH][3], w2[LIFT_CH][3], d1[LIFT_CH][3], d2[LIFT_CH][3];
    uint32_t poff[LIFT_CH], bk[LIFT_CH], bx[LIFT_CH], bto[LIFT_CH], blk[LIFT_CH * LIFT_MAXM], maxm;
    uint32_t fo[LIFT_CH * 32], fm[LIFT_CH * 32];
    unsigned char *block;
} lift_channels;

static void make_lift_channels(lift_channels *L, uint64_t *seed) {
    uint64_t bytes = 0;
    memset(L, 0, sizeof *L);
    size_t cap = (size_t)LIFT_CH * 4096u; /* past any channel's stream (<= 75 blocks of <= 300 bits, flags, anchors) */
    unsigned char *random = malloc(cap);
    assert_non_null(random);
    for (size_t b = 0; b < cap; b++) random[b] = (unsigned char)ot_rand_u64(seed);
    for (uint32_t i = 0; i < LIFT_CH; i++) {
        for (int c = 0; c < 3; c++) {
            uint32_t r = (uint32_t)ot_rand_u64(seed) % 8u, wa;
            wa = L->wa[i][c] = r == 0 ? 0u : r == 1 ? OSSA__BC_MAX_BITS : (uint32_t)ot_rand_u64(seed) % (OSSA__BC_MAX_BITS + 1u);
            L->w1[i][c] = (uint32_t)ot_rand_u64(seed) % (wa + 1u);
            L->w2[i][c] = i % 5 == 0 ? wa : (uint32_t)ot_rand_u64(seed) % (wa + 1u);
            if (i % 8 == 3) { /* wide blocks, around the AVX2 single-key kernel's bound */
                wa = L->wa[i][c] = OSSA__BC_MAX_BITS;
                L->w1[i][c] = wa - (uint32_t)ot_rand_u64(seed) % 12u;
                L->w2[i][c] = wa - (uint32_t)ot_rand_u64(seed) % 4u;
            }
            if (i % 3 != 0) { /* flagged (when a reduction comes out non-zero) */
                uint32_t t1 = L->w1[i][c] < 7u ? L->w1[i][c] : 7u, t2 = L->w2[i][c] < 3u ? L->w2[i][c] : 3u;
                L->d1[i][c] = (uint32_t)ot_rand_u64(seed) % (t1 + 1u);
                L->d2[i][c] = (uint32_t)ot_rand_u64(seed) % (t2 + 1u);
            }
            L->pk[i].widths |= wa << (5 * c) | (L->d1[i][c] | L->d2[i][c] << 3) << (15 + 5 * c);
            L->pk[i].resid |= L->w1[i][c] << (5 * c) | L->w2[i][c] << (15 + 5 * c);
        }
        L->keys[i] = i % 7 == 6 ? 250u + (uint32_t)ot_rand_u64(seed) % 50u : 1u + (uint32_t)ot_rand_u64(seed) % 23u;
        uint32_t M = ossa__lift_blocks(L->keys[i]);
        if (M > L->maxm) L->maxm = M;
        L->poff[i] = (uint32_t)bytes;
        bytes += (ossa__lift_stream_bits(&L->pk[i], L->keys[i], random + bytes) + 7) / 8;
        assert_true(bytes + OSSA__BC_READ_SLACK <= cap);
        uint32_t narrow = ossa__lift_table(&L->pk[i], 0, L->fo + 32 * i, L->fm + 32 * i);
        uint32_t wide = ossa__lift_table(&L->pk[i], 1, L->fo + 32 * i + 16, L->fm + 32 * i + 16);
        uint32_t A = 0, N = 0, W = 0;
        for (int c = 0; c < 3; c++) {
            A += L->wa[i][c];
            W += 2 * L->w1[i][c] + L->w2[i][c];
            N += 2 * (L->w1[i][c] - L->d1[i][c]) + L->w2[i][c] - L->d2[i][c];
        }
        assert_int_equal(narrow, A + N);
        assert_int_equal(wide, A + W);
        L->bk[i] = narrow;
        L->bx[i] = wide - narrow;
        L->bto[i] = ossa__pk_flagged(&L->pk[i]) ? i * LIFT_MAXM : OSSA__LIFT_COMPUTED;
        assert_true(M <= LIFT_MAXM);
    }
    size_t size = (size_t)bytes + OSSA__BC_READ_SLACK;
    L->block = malloc(size);
    assert_non_null(L->block);
    memcpy(L->block, random, size);
    free(random);
    for (uint32_t i = 0; i < LIFT_CH; i++) { /* a flagged channel's block table */
        uint32_t M = ossa__lift_blocks(L->keys[i]), rank = 0;
        for (uint32_t k = 0; L->bto[i] != OSSA__LIFT_COMPUTED && k < M; k++) {
            uint32_t flag = spec_bits(L->block + L->poff[i], k, 1);
            L->blk[L->bto[i] + k] = (M + k * L->bk[i] + rank * L->bx[i]) | flag << 31;
            rank += flag;
        }
    }
}

static void test_lift_block_spec(void **state) {
    (void)state;
    uint64_t seed = 29;
    static lift_channels L;
    make_lift_channels(&L, &seed);
    int same = 0;
    for (uint32_t m = 0; m < L.maxm; m++)
        for (uint32_t i = 0; i < LIFT_CH; i++) {
            if (m >= ossa__lift_blocks(L.keys[i])) continue;
            uint32_t want[15], lib[15];
            uint32_t M = ossa__lift_blocks(L.keys[i]);
            spec_block(L.block + L.poff[i], L.wa[i], L.w1[i], L.w2[i], L.d1[i], L.d2[i], M, m, want);
            ossa__lift_block(L.block + L.poff[i], &L.pk[i], M, m, lib);
            assert_memory_equal(want, lib, sizeof want);
            same += 15;
        }
    printf("lifted blocks: %d keys' fields as the spec decodes them\n", same);
    free(L.block);
}

/* The single-key kernels (a key mask's forward step or seek): for every block of the random
 * channels of make_lift_channels, every key jb 0 .. 4 and ja a step (key b moved to key a) or
 * any key 0 .. 4, over a channel range of a channel list whose keys sit 6 floats apart in a pool
 * in another order, the scalar kernel gives ossa__lift_block's keys (checked against the spec
 * above) as floats, and every SIMD kernel the CPU has gives the scalar one's bits and writes
 * nothing outside its channels' 6 floats. Blocks whose last field starts past bit 229 take the
 * AVX2 kernel's scalar fallback. */
static void check_key_range(const lift_channels *L, const uint32_t *list, uint32_t count, const uint32_t *pool, uint32_t m,
                            uint32_t begin, uint32_t end, uint32_t ja, uint32_t jb, const float *init, const float *ref) {
    for (uint32_t g = 0; g < count; g++) {
        uint32_t i = list[g], q[15];
        ossa__lift_block(L->block + L->poff[i], &L->pk[i], ossa__lift_blocks(L->keys[i]), m, q);
        const float *d = ref + 6 * pool[g], *was = init + 6 * pool[g];
        bool in = g >= begin && g < end;
        for (uint32_t c = 0; c < 3; c++) {
            float a = ja == OSSA__KEY_STEP ? was[3 + c] : (float)q[3 * ja + c];
            assert_true(d[c] == (in ? a : was[c]));
            assert_true(d[3 + c] == (in ? (float)q[3 * jb + c] : was[3 + c]));
        }
    }
}

static void test_key_kernels_agree(void **state) {
    (void)state;
    enum { CH = LIFT_CH, POOL = 6 * CH + 8 };
    uint64_t seed = 31;
    static lift_channels L;
    make_lift_channels(&L, &seed);
    uint32_t chan[CH];
    float ref[POOL], got[POOL], init[POOL];
    for (uint32_t i = 0; i < CH; i++) chan[i] = i;
    for (uint32_t i = CH - 1; i > 0; i--) { /* the pool's order is not the channels' */
        uint32_t r = (uint32_t)(ot_rand_u64(&seed) % (i + 1u)), t = chan[i];
        chan[i] = chan[r];
        chan[r] = t;
    }
    struct {
        ossa__key_kernel fn;
        const char *name;
        bool ok;
    } kernels[] = {
        {ossa__key_scalar, "scalar", true},
#if !defined(OSSA_SCALAR_ONLY)
        {ossa__key_sse, "sse4", ossa__simd_cpu() >= OSSA__SIMD_SSE4},
        {ossa__key_avx2, "avx2", ossa__simd_cpu() >= OSSA__SIMD_AVX2},
        {ossa__key_avx512, "avx512", ossa__simd_cpu() >= OSSA__SIMD_AVX512},
#endif
    };
    for (size_t n = 0; n < OT_COUNT(kernels); n++)
        if (!kernels[n].ok) ot_skip_part("key kernel %s: the CPU lacks it (or a scalar-only build)", kernels[n].name);
    int same = 0, wide = 0;
    for (uint32_t i = 0; i < CH; i++) wide += L.fo[32 * i + 14] > 229u || L.fo[32 * i + 30] > 229u;
    for (uint32_t m = 0; m < L.maxm; m++) {
        uint32_t list[CH], count = 0; /* the channels that have block m, in the kernels' grouped order */
        for (uint32_t i = 0; i < CH; i++)
            if (m < ossa__lift_blocks(L.keys[i])) list[count++] = i;
        uint32_t poff[CH], bk[CH], bto[CH], fo[CH * 32], fm[CH * 32], pool[CH];
        for (uint32_t g = 0; g < count; g++) {
            uint32_t i = list[g];
            poff[g] = L.poff[i];
            bk[g] = L.bk[i];
            bto[g] = L.bto[i];
            memcpy(fo + 32 * g, L.fo + 32 * i, 32 * sizeof(uint32_t));
            memcpy(fm + 32 * g, L.fm + 32 * i, 32 * sizeof(uint32_t));
            pool[g] = chan[i];
        }
        uint32_t begin = count > 2 ? m % 3u : 0u, end = count > 2 ? count - (m % 2u) : count;
        for (uint32_t ja = 0; ja <= 5; ja++)
            for (uint32_t jb = 0; jb <= 4; jb++) {
                uint32_t a = ja == 5 ? OSSA__KEY_STEP : ja;
                for (uint32_t l = 0; l < POOL; l++) init[l] = (float)(ot_rand_u64(&seed) % 1000u);
                memcpy(ref, init, sizeof ref);
                ossa__lift_soa soa = {L.block, poff, bk, bto, L.blk, fo, fm, ref};
                ossa__key_scalar(&soa, pool, begin, end, m, a, jb);
                check_key_range(&L, list, count, pool, m, begin, end, a, jb, init, ref);
                for (size_t n = 0; n < OT_COUNT(kernels); n++) {
                    if (!kernels[n].ok) continue;
                    memcpy(got, init, sizeof got);
                    soa.kq = got;
                    kernels[n].fn(&soa, pool, begin, end, m, a, jb);
                    assert_memory_equal(got, ref, sizeof got);
                    same += (int)(end - begin) * 6;
                }
            }
    }
    printf("key kernels: %d keys' fields bit-identical to the scalar kernel (%d of %d channels' last field past bit 229)\n", same,
           wide, CH);
    free(L.block);
}

/* The sampling plan's block tables (built once at load, ossa__lift_soa) against the format's
 * rule for every block of every packed channel of a generated clip (up to 300 keys: flags past
 * one 64-bit word): a flagged channel's entry is ossa__lift_locate's first bit (the flags'
 * popcount) and flag; an unflagged one has none (its blocks at m x its block bits). */
static void test_plan_block_tables(void **state) {
    (void)state;
    uint32_t flagged = 0, blocks = 0, unflagged = 0, long_flagged = 0;
    for (uint64_t seed = 40; seed < 41; seed++) {
        fixture f = make_fixture_keys(seed, 8, 0, 400);
        const ossa_built_clip *bc = f.built[0];
        const ossa__sample_plan *pl = bc->plan;
        for (uint32_t g = 0; g < bc->h->packed_count; g++) {
            const ossa__bc_packed *p = &bc->packed[pl->mch[g]];
            const unsigned char *s = bc->base + pl->poff[g];
            uint32_t M = ossa__lift_blocks(bc->mask_keys[p->mask]);
            if (!ossa__pk_flagged(p)) {
                assert_int_equal(pl->lto[g], OSSA__LIFT_COMPUTED);
                unflagged++;
                continue;
            }
            assert_true(pl->lto[g] != OSSA__LIFT_COMPUTED);
            flagged++;
            long_flagged += M > 64u;
            for (uint32_t m = 0; m < M; m++, blocks++) {
                uint32_t wide, e = pl->lbt[pl->lto[g] + m];
                uint64_t pos = ossa__lift_locate(p, s, M, m, &wide);
                assert_int_equal(e & ~OSSA__LIFT_WIDE, pos);
                assert_int_equal(e >> 31, wide);
            }
        }
        free_fixture(&f);
    }
    printf("plan block tables: %u blocks of %u flagged channels (%u of more than 64 blocks) as the flags' rank places them "
           "(%u unflagged)\n", blocks, flagged, long_flagged, unflagged);
    assert_true(long_flagged > 0 && unflagged > 0);
}

/* The key rank counts what a bit-by-bit count finds, at every end of random masks. */
static void test_mask_rank_agree(void **state) {
    (void)state;
    unsigned char mask[64 + 8];
    uint64_t seed = 3;
    int checked = 0;
    for (int round = 0; round < 20; round++) {
        uint32_t density = (uint32_t)(ot_rand_u64(&seed) % 100);
        memset(mask, 0, sizeof mask);
        for (uint32_t b = 0; b < 64 * 8; b++)
            if (ot_rand_u64(&seed) % 100 < density) mask[b / 8] |= (unsigned char)(1u << (b % 8));
        for (uint32_t end = 0; end <= 64 * 8; end++) {
            uint32_t slow = 0;
            for (uint32_t b = 0; b < end; b++) slow += ((unsigned)mask[b / 8] >> (b % 8)) & 1u;
            assert_int_equal(ossa__mask_rank(mask, end), slow);
            checked++;
        }
    }
    printf("%d mask ranks\n", checked);
}

/* The 57-bit-window mask steps and the one-pass seek find what a bit-by-bit scan finds: the
 * next set bit at or after every position (n = none), the last one at or before it and its rank, over random masks of every
 * density (bit 0 set, as in a built clip) and every length. */
static void test_mask_steps_agree(void **state) {
    (void)state;
    unsigned char mask[64 + 8];
    uint64_t seed = 5;
    int checked = 0;
    for (int round = 0; round < 40; round++) {
        uint32_t density = (uint32_t)(ot_rand_u64(&seed) % 100), n = 1 + (uint32_t)(ot_rand_u64(&seed) % (64 * 8));
        memset(mask, 0, sizeof mask);
        for (uint32_t b = 0; b < 64 * 8; b++) /* bits past n set too: the key fields follow the mask */
            if (b == 0 || ot_rand_u64(&seed) % 100 < density) mask[b / 8] |= (unsigned char)(1u << (b % 8));
        for (uint32_t at = 0; at < n; at++) {
            uint32_t next = at, prev = at;
            while (next < n && !(((unsigned)mask[next / 8] >> (next % 8)) & 1u)) next++;
            while (!(((unsigned)mask[prev / 8] >> (prev % 8)) & 1u)) prev--;
            assert_int_equal(ossa__mask_next(mask, at, n), next);
            assert_int_equal(ossa__mask_prev(mask, at), prev);
            uint32_t rank = 0, after = at + 1, k[3], kp[3];
            for (uint32_t b = 0; b < prev; b++) rank += ((unsigned)mask[b / 8] >> (b % 8)) & 1u;
            while (after < n && !(((unsigned)mask[after / 8] >> (after % 8)) & 1u)) after++;
            ossa__mask_seek(mask, n, at, k); /* the jump's one-pass seek */
            assert_int_equal(k[0], prev);
            assert_int_equal(k[1], rank);
            assert_int_equal(k[2], after);
            if (__builtin_cpu_supports("popcnt")) {
                ossa__mask_seek_popcnt(mask, n, at, kp);
                assert_memory_equal(k, kp, sizeof k);
            }
            checked++;
        }
        assert_int_equal(ossa__mask_next(mask, n, n), n);
    }
    printf("%d mask steps\n", checked);
}

/* A clip whose tracks share two key-time arrays (noisy values, so the builder keeps every key
 * and channels share key masks), STEP and LINEAR tracks mixed on each. */
static ossa_clip *shared_clock_clip(uint64_t *s, uint32_t J) {
    static float ta[24], tb[9];
    for (int k = 0; k < 24; k++) ta[k] = 0.25f + (float)k * 0.0625f + (k % 3 ? 0.0f : 0.01f);
    for (int k = 0; k < 9; k++) tb[k] = ta[k < 8 ? 3 * k : 23]; /* every third key, and the last */
    ossa_transform_track tr[8];
    float *vals = malloc(sizeof(float) * 8 * 3 * 24 * 4);
    assert_non_null(vals);
    memset(tr, 0, sizeof tr);
    float *v = vals;
    for (uint32_t j = 0; j < J && j < 8; j++) {
        tr[j].joint = j;
        ossa_track *ch[3] = {&tr[j].translation, &tr[j].rotation, &tr[j].scale};
        for (int c = 0; c < 3; c++) {
            bool b = (j + (uint32_t)c) % 3 == 0;
            uint32_t n = b ? 9 : 24, comps = c == 1 ? 4 : 3;
            ch[c]->kind = c == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
            ch[c]->interp = (j + (uint32_t)c) % 4 == 1 ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
            ch[c]->components = comps;
            ch[c]->key_count = n;
            ch[c]->times = b ? tb : ta;
            ch[c]->values = v;
            for (uint32_t k = 0; k < n; k++, v += comps) {
                if (c == 1) { /* a random unit quaternion, w >= 0.3 */
                    float x = ot_rand_float(s, -0.6f, 0.6f), y = ot_rand_float(s, -0.6f, 0.6f), z = ot_rand_float(s, -0.6f, 0.6f);
                    float w = 0.3f + ot_rand_float(s, 0.0f, 0.7f), n2 = sqrtf(x * x + y * y + z * z + w * w);
                    v[0] = x / n2;
                    v[1] = y / n2;
                    v[2] = z / n2;
                    v[3] = w / n2;
                } else {
                    for (uint32_t q = 0; q < 3; q++) v[q] = c == 2 ? ot_rand_float(s, 0.5f, 1.5f) : ot_rand_float(s, -1.0f, 1.0f);
                }
            }
        }
    }
    ossa_clip_desc d = {0};
    d.track_count = J < 8 ? J : 8;
    d.tracks = tr;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    free(vals);
    return clip;
}

/* Packed channel p of `bc` at clip time t, the slow way: its own key search (a bit-by-bit scan
 * of its mask), the fields of its two keys, the scalar kernel on one entry; into pose floats. */
/* Byte offset of packed channel p's value stream: the streams are back to back from stream_off. */
static uint32_t stream_offset(const ossa_built_clip *bc, const ossa__bc_packed *p) {
    uint64_t off = bc->h->stream_off;
    for (const ossa__bc_packed *q = bc->packed; q < p; q++)
        off += (ossa__lift_stream_bits(q, bc->mask_keys[q->mask], bc->base + off) + 7) / 8;
    return (uint32_t)off;
}

static void packed_reference(const ossa_built_clip *bc, const ossa__bc_packed *p, float t, float *pose) {
    const unsigned char *mask = ossa__packed_mask(bc, p);
    uint32_t G = bc->h->grid_count, a = 0, rank = 0, n = G;
    for (uint32_t g = 1; g < G; g++) {
        if (!(((unsigned)mask[g / 8] >> (g % 8)) & 1u)) continue;
        if (bc->grid[g] <= t) {
            a = g;
            rank++;
        } else {
            n = g;
            break;
        }
    }
    uint32_t qa[3], qb[3];
    ossa__packed_fields(bc->base + stream_offset(bc, p), p, bc->mask_keys[p->mask], rank, qa, n < G ? qb : NULL);
    if (n >= G) memcpy(qb, qa, sizeof qb);
    float t0 = bc->grid[a], dt = n >= G || p->interp == OSSA_INTERP_STEP ? INFINITY : bc->grid[n] - bc->grid[a];
    float keys[8] = {0}, mn[3], st[3], o[4]; /* key a at 0, key b at 4 */
    uint32_t ka = 0, kb = 4;
    for (int c = 0; c < 3; c++) {
        keys[c] = (float)qa[c];
        keys[4 + c] = (float)qb[c];
        mn[c] = p->min[c];
        st[c] = ossa__step_float(p->step[c]);
    }
    ossa__lerp_soa soa = {&t0, &dt, keys, &ka, &kb, {mn, mn + 1, mn + 2}, {st, st + 1, st + 2}, {o, o + 1, o + 2, o + 3},
                          NULL, NULL, NULL};
    ossa__lerp_scalar(&soa, t, 0, 1, p->kind == OSSA__CH_R);
    float *d = pose + p->joint * 10u + ossa__field_offset(p->kind);
    if (p->kind != OSSA__CH_R) {
        memcpy(d, o, 3 * sizeof(float));
        return;
    }
    uint32_t drop = ossa__pk_drop(p), c = 0;
    for (uint32_t q = 0; q < 4; q++) d[q] = q == drop ? o[3] : o[c++];
}

/* The shared key clock (the context keeps one segment per key mask; sample_job.c) gives every
 * packed channel what its own key search gives: a clip whose channels share masks (STEP and
 * LINEAR on one mask), forward at 60 and 240 Hz, backward, random, every frame each channel
 * against packed_reference bit for bit (the other fields: the fresh-context tests). */
static void test_shared_key_clock(void **state) {
    (void)state;
    uint64_t s = 21;
    ot_gen_options o = {0};
    o.joints = 8;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    ossa_clip *clip = shared_clock_clip(&s, 8);
    ossa_clip_build_options opt = {0};
    opt.precision = 1e-3f;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(clip, sk, &opt, NULL, &bc, NULL), OSSA_OK);
    const ossa__bc_header *h = bc->h;
    uint32_t mixed = 0; /* masks shared by a STEP and a LINEAR channel */
    for (uint32_t m = 0; m < h->mask_count; m++) {
        uint32_t kinds = 0;
        for (uint32_t i = 0; i < h->packed_count; i++)
            if (bc->packed[i].mask == m) kinds |= bc->packed[i].interp == OSSA_INTERP_STEP ? 1u : 2u;
        mixed += kinds == 3u;
    }
    printf("%u packed channels, %u key masks (%u with STEP and LINEAR), %u grid times\n", h->packed_count, h->mask_count,
           mixed, h->grid_count);
    assert_true(h->packed_count >= 16 && h->mask_count * 3u <= h->packed_count && mixed > 0);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(8, 0, NULL, &ctx), OSSA_OK);
    ossa_transform got[8], want[8];
    float lo = ossa_built_clip_start(bc), hi = ossa_built_clip_end(bc);
    for (int k = 0; k < 2000; k++) {
        float t = k < 200    ? lo + (float)k / 60.0f
                  : k < 800  ? lo + (float)(k - 200) / 240.0f
                  : k < 1100 ? hi - (float)(k - 800) / 120.0f
                             : ot_rand_float(&s, lo - 0.1f, hi + 0.1f);
        bool loop = k < 800 || (k & 1);
        ossa_sample_job job = {bc, ctx, t, loop, got, 8, NULL, 0, sk->rest, 8, 0};
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        memcpy(want, got, sizeof want);
        for (uint32_t i = 0; i < h->packed_count; i++) packed_reference(bc, &bc->packed[i], job.sampled_time, (float *)(void *)want);
        assert_memory_equal(got, want, sizeof got);
    }
    ossa_sampling_context_destroy(ctx);
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* One clock time against ossa__adjust_time's bits, with the caller's quotient hint. */
static void check_sample_time(float start, float end, float t, int loop, double *quotient) {
    float a = ossa__sample_time(start, end, t, loop, quotient), b = ossa__adjust_time(start, end, t, loop);
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    if (ua != ub)
        fail_msg("start %.9g end %.9g t %.9g loop %d: %.9g vs %.9g", (double)start, (double)end, (double)t, loop, (double)a,
                 (double)b);
}

/* The job's looping clock (ossa__sample_time: fmod's remainder without the libm call where it
 * is provably the same) gives ossa__adjust_time's bits: random and round clip ranges, times just
 * around multiples of the duration, huge (the fmod path), negative and non-finite times; with a
 * fresh quotient hint, with the hint the previous (unrelated) time left, and along forward
 * playback at 60 Hz where the hint is right for whole loops and then one short. */
static void test_sample_time_agree(void **state) {
    (void)state;
    uint64_t seed = 9;
    int checked = 0;
    for (int round = 0; round < 4000; round++) {
        double carried = 0.0;
        float start = round % 3 == 0 ? 0.0f : ot_rand_float(&seed, -5.0f, 5.0f);
        float end = round % 5 == 0 ? start + 0.7f : round % 7 == 0 ? start : start + ot_rand_float(&seed, 1e-3f, 10.0f);
        if (round % 11 == 0) end = start + 1e-6f;
        for (int k = 0; k < 40; k++) {
            float t;
            switch (k % 8) {
            case 0: t = ot_rand_float(&seed, start - 100.0f, start + 100.0f); break;
            case 1: t = start + (end - start) * (float)(ot_rand_u64(&seed) % 5000); break; /* about a seam */
            case 2: t = nextafterf(start + (end - start) * (float)(ot_rand_u64(&seed) % 5000), INFINITY); break;
            case 3: t = nextafterf(start + (end - start) * (float)(ot_rand_u64(&seed) % 5000), -INFINITY); break;
            case 4: t = ot_rand_float(&seed, 1e6f, 1e9f); break;
            case 5: t = (float)k / 60.0f + (float)(ot_rand_u64(&seed) % 100000) / 60.0f; break;
            case 6: t = k & 8 ? INFINITY : k & 16 ? -INFINITY : NAN; break;
            default: t = end; break;
            }
            for (int loop = 0; loop < 2; loop++) {
                double fresh = 0.0;
                check_sample_time(start, end, t, loop, &fresh);
                check_sample_time(start, end, t, loop, &carried);
                checked += 2;
            }
        }
        if (round % 8 == 0) { /* forward playback from a random point, the hint carried */
            float t0 = ot_rand_float(&seed, start, start + 1000.0f);
            for (int f = 0; f < 600; f++, checked++) check_sample_time(start, end, t0 + (float)f / 60.0f, 1, &carried);
        }
    }
    printf("%d clock times\n", checked);
}

/* The reference must be the rest pose the clip was built with: another pose (one float
 * changed, or another skeleton's rest) is INVALID_ARGUMENT and writes nothing; a copy of the
 * right one at another address passes (hashed again); switching back and forth between two
 * clips and their references on one context passes, and ossa_built_clip_matches agrees. */
static void test_reference_hash(void **state) {
    (void)state;
    fixture f = make_fixture(4, 7, 0), g = make_fixture(5, 7, 0);
    uint32_t J = 7;
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, 0, NULL, &ctx), OSSA_OK);
    ossa_transform out[7], ref[7];
    memcpy(ref, f.sk->rest, sizeof ref);
    for (int m = 0; m < 2; m++) {
        const ossa_built_clip *bc = f.built[m];
        assert_true(ossa_built_clip_matches(bc, f.sk->rest, J));
        assert_false(ossa_built_clip_matches(bc, f.sk->rest, J - 1));
        assert_false(ossa_built_clip_matches(bc, NULL, J));
        assert_false(ossa_built_clip_matches(NULL, f.sk->rest, J));
        assert_false(ossa_built_clip_matches(bc, g.sk->rest, J));
        ossa_sample_job job = {bc, ctx, 0.1f, false, out, J, NULL, 0, f.sk->rest, J, 0};
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        job.reference = g.sk->rest; /* the same counts, another rest pose */
        memset(out, 0xAB, sizeof out);
        ot_assert_job_ok(ossa_sample_job_validate, &job); /* validate is cheap: no hash */
        assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
        for (size_t i = 0; i < sizeof out; i++) assert_int_equal(((unsigned char *)out)[i], 0xAB);
        ref[J - 1].translation.y = nextafterf(ref[J - 1].translation.y, INFINITY); /* one ulp of the last joint */
        job.reference = ref;
        assert_false(ossa_built_clip_matches(bc, ref, J));
        assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
        memcpy(ref, f.sk->rest, sizeof ref); /* an equal copy at another address */
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        for (int k = 0; k < 6; k++) { /* clip and reference switches on one context */
            bool other = k & 1;
            ossa_sample_job j2 = {other ? g.built[m] : bc, ctx, 0.05f * (float)k, true, out, J, NULL, 0,
                                  other ? g.sk->rest : f.sk->rest, J, 0};
            assert_int_equal(ossa_sample_job_run(&j2), OSSA_OK);
            j2.reference = other ? f.sk->rest : g.sk->rest;
            assert_int_equal(ossa_sample_job_run(&j2), OSSA_ERROR_INVALID_ARGUMENT);
        }
    }
    ossa_sampling_context_destroy(ctx);
    free_fixture(&f);
    free_fixture(&g);
}

/* The sampling plan's key grid and rank directories of bc against its block: the grid's times
 * as the block stores them (ticked: decoded again here; else the block's floats), then +Inf at
 * grid_count (a held key's end) and grid_count + 1 (no key); per key mask and 64-bit word the
 * keys before it, as a bit-by-bit count finds them, and every key's rank (its word's entry plus
 * the popcount below it in the word, as the job computes it) equal to its bit-by-bit rank.
 * counts: ticked grids, directory entries, ranks. */
static void check_plan_grid(const ossa_built_clip *bc, uint32_t counts[3]) {
    const ossa__sample_plan *pl = bc->plan;
    uint32_t G = bc->h->grid_count, W = (G + 63u) / 64u;
    assert_ptr_equal(bc->grid, pl->grid);
    float *want = malloc(((size_t)G + 1u) * sizeof(float));
    if (bc->h->flags & OSSA__BC_FLAG_GRID_TICKS) {
        assert_true(ossa__grid_decode(bc->h, bc->base, want));
        counts[0]++;
    } else {
        memcpy(want, bc->base + bc->h->grid_off, (size_t)G * sizeof(float));
    }
    assert_memory_equal(pl->grid, want, (size_t)G * sizeof(float));
    free(want);
    assert_true(pl->grid[G] == INFINITY);
    assert_int_equal(pl->rdir_words, W);
    for (uint32_t m = 0; m < bc->h->mask_count; m++) {
        const unsigned char *mask = bc->masks + (size_t)m * bc->mask_bytes;
        uint32_t slow = 0;
        for (uint32_t g = 0; g < G; g++) {
            uint32_t bit = ((unsigned)mask[g / 8] >> (g % 8)) & 1u;
            if (g % 64u == 0) {
                assert_int_equal(pl->rdir[(size_t)m * W + g / 64u], slow);
                counts[1]++;
            }
            if (bit) {
                uint64_t w;
                memcpy(&w, mask + 8u * (g / 64u), 8);
                w &= (1ull << (g % 64u)) - 1u;
                assert_int_equal(pl->rdir[(size_t)m * W + g / 64u] + (uint32_t)__builtin_popcountll(w), slow);
                counts[2]++;
            }
            slow += bit;
        }
        assert_int_equal(slow, bc->mask_keys[m]);
    }
}

/* check_plan_grid on generated clips of one word and of several words of grid times
 * (compressed and lossless), and on a compressed clip whose keys lie on a lattice (a ticked
 * grid). */
static void test_plan_grid_and_rank_directory(void **state) {
    (void)state;
    static const uint32_t keys[] = {6, 150};
    uint32_t counts[3] = {0, 0, 0};
    for (int v = 0; v < 2; v++) {
        fixture f = make_fixture_keys(50 + (uint64_t)v, 5, 0, keys[v]);
        for (int b = 0; b < 2; b++) check_plan_grid(f.built[b], counts);
        if (v == 1) assert_true(f.built[0]->h->grid_count > 128u); /* masks of three words or more */
        free_fixture(&f);
    }
    uint64_t s = 9;
    ot_gen_options o = {0};
    o.joints = 8;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    ossa_clip *clip = shared_clock_clip(&s, 8);
    ossa_clip_build_options opt = {0};
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(clip, sk, &opt, NULL, &bc, NULL), OSSA_OK);
    check_plan_grid(bc, counts);
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
    printf("plan grids (%u ticked), %u rank directory entries, %u key ranks\n", counts[0], counts[1], counts[2]);
    assert_true(counts[2] > 0 && counts[1] > counts[2] / 64u);
}

/* A clip of J joints (J <= 127) whose translation and scale tracks each have their own key
 * times: a lattice of 10 times without the inner ones that track number + 1 has bits for
 * (noisy values, so the builder keeps every key and every track has its own key mask). */
static ossa_clip *distinct_masks_clip(uint64_t *s, uint32_t J) {
    enum { N = 10 };
    ossa_transform_track *tr = calloc(J, sizeof *tr);
    float *times = malloc(sizeof(float) * 2 * J * N), *vals = malloc(sizeof(float) * 2 * J * N * 3);
    assert_true(tr && times && vals);
    for (uint32_t j = 0; j < J; j++) {
        tr[j].joint = j;
        for (uint32_t c = 0; c < 2; c++) {
            ossa_track *t = c ? &tr[j].scale : &tr[j].translation;
            float *tt = times + (size_t)(2 * j + c) * N, *v = vals + (size_t)(2 * j + c) * N * 3;
            uint32_t drop = 2 * j + c + 1, n = 0; /* < 256: bit i drops time i + 1 */
            for (uint32_t k = 0; k < N; k++)
                if (k == 0 || k == N - 1 || !((drop >> (k - 1)) & 1u)) tt[n++] = 0.05f * (float)k;
            for (uint32_t k = 0; k < 3 * n; k++) v[k] = c ? ot_rand_float(s, 0.5f, 1.5f) : ot_rand_float(s, -1.0f, 1.0f);
            t->kind = OSSA_TRACK_VECTOR;
            t->interp = OSSA_INTERP_LINEAR;
            t->components = 3;
            t->key_count = n;
            t->times = tt;
            t->values = v;
        }
    }
    ossa_clip_desc d = {0};
    d.track_count = J;
    d.tracks = tr;
    ossa_clip *clip = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &clip), OSSA_OK);
    free(tr);
    free(times);
    free(vals);
    return clip;
}

/* A compressed clip of more key masks than the job keeps segment times for on its stack
 * (OSSA__MASK_TIMES: its channels look their masks' times up instead) samples forward at 60 Hz,
 * backward and at random times as a fresh context does, bit for bit. */
static void test_many_masks_agree(void **state) {
    (void)state;
    enum { J = 66 };
    uint64_t seed = 61;
    ot_gen_options o = {0};
    o.joints = J;
    ossa_skeleton *sk = ot_gen_skeleton(&seed, &o);
    ossa_clip *clip = distinct_masks_clip(&seed, J);
    ossa_clip_build_options opt = {0};
    opt.precision = 1e-3f;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(clip, sk, &opt, NULL, &bc, NULL), OSSA_OK);
    printf("%u key masks (stack times for up to %u)\n", bc->h->mask_count, OSSA__MASK_TIMES);
    assert_true(bc->h->mask_count > OSSA__MASK_TIMES);
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create(J, 0, NULL, &ctx), OSSA_OK);
    ossa_transform a[J], b[J];
    float lo = ossa_built_clip_start(bc), hi = ossa_built_clip_end(bc);
    uint64_t s = 3;
    for (int k = 0; k < 300; k++) {
        float t = k < 100 ? lo + (float)k / 220.0f : k < 200 ? hi - (float)(k - 100) / 220.0f : ot_rand_float(&s, lo, hi);
        ossa_sample_job job = {bc, ctx, t, false, a, J, NULL, 0, sk->rest, J, 0};
        assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
        sample_fresh(bc, sk->rest, t, false, b, NULL);
        assert_memory_equal(a, b, sizeof a);
    }
    ossa_sampling_context_destroy(ctx);
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_fields),
        cmocka_unit_test(test_reference_hash),
        cmocka_unit_test(test_context_size),
        cmocka_unit_test(test_context_paths_agree),
        cmocka_unit_test(test_jump_seeks_agree),
        cmocka_unit_test(test_many_masks_agree),
        cmocka_unit_test(test_shared_key_clock),
        cmocka_unit_test(test_kernels_agree),
        cmocka_unit_test(test_nlerp_correction_tracks_slerp),
        cmocka_unit_test(test_slerp_kernels_agree),
        cmocka_unit_test(test_unpack_kernels_agree),
        cmocka_unit_test(test_lift_block_spec),
        cmocka_unit_test(test_key_kernels_agree),
        cmocka_unit_test(test_plan_block_tables),
        cmocka_unit_test(test_plan_grid_and_rank_directory),
        cmocka_unit_test(test_lossless_clocks_agree),
        cmocka_unit_test(test_mask_rank_agree),
        cmocka_unit_test(test_mask_steps_agree),
        cmocka_unit_test(test_sample_time_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
