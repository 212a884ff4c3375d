/* Sampling contexts sized for the clips they play (ossa_sampling_context_create_for_clips):
 * on every Woman clip (built lossless, and every third built compressed) a clip-sized context,
 * a joint-sized one and one shared by all the clips give the same poses bit for bit, forward
 * at 60 Hz and at random times; one context reused across clips of two skeletons (Woman's 43
 * joints, the demo's 17) against fresh ones; a context too small for a clip fails validation
 * on "context"; and a hostile built clip whose header claims a huge joint count loads with an
 * allocation a few times its size (the regression cd64858 fixed: the plan sized by the joint
 * count alone). */
#include "test_support.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/built_clip_internal.h" /* the header's joint count, for the hostile block */
#include "anim/sample_internal.h"     /* the plan's cached rotations */
#include "clip_gen.h"
#include "demo_character.h" /* support/ */
#include "job_check.h"

/* Samples clip at t with ctx into out (J transforms) and w (its weights, may be NULL). */
static void sample(const ossa_built_clip *clip, ossa_sampling_context *ctx, const ossa_transform *rest, float t,
                   ossa_transform *out, float *w) {
    uint32_t J = ossa_built_clip_joint_count(clip), W = ossa_built_clip_weight_count(clip);
    ossa_sample_job job = {clip, ctx, t, true, out, J, W ? w : NULL, W, rest, J, 0};
    ossa_result r = ossa_sample_job_run(&job);
    if (r != OSSA_OK) fail_msg("sampling '%s' at %g: %s", ossa_built_clip_name(clip), (double)t, ossa_result_string(r));
}

/* Builds every `step`th clip of the asset (lossless or at the default precision) into built
 * (its clip_count entries, NULL where skipped); returns how many were built. */
static uint32_t build_clips(const ossa_asset *a, bool lossless, uint32_t step, ossa_built_clip **built) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->clip_count; i++) {
        built[i] = NULL;
        if (i % step) continue;
        ossa_clip_build_options o;
        memset(&o, 0, sizeof o);
        o.lossless = lossless;
        assert_int_equal(ossa_clip_build(a->clips[i], a->skeleton, &o, NULL, &built[i], NULL), OSSA_OK);
        n++;
    }
    return n;
}

/* The built clips of `built` (count entries, NULLs skipped) packed to the front of out. */
static uint32_t gather(ossa_built_clip *const *built, uint32_t count, const ossa_built_clip **out) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        if (built[i]) out[n++] = built[i];
    return n;
}

/* Each clip through four contexts: its own (sized for it alone), one sized for its skeleton
 * (43 joints: any clip's), one sized for every clip of the set and shared by all of them (each
 * call a clip switch: a re-seek) and a fresh one per call (sized for 43 joints); 120 forward
 * 60 Hz frames (past a wrap) then 60 random times. */
static void check_set(const ossa_asset *a, const ossa_built_clip **clips, uint32_t n, uint64_t *seed) {
    uint32_t J = a->skeleton->joint_count, W = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ossa_built_clip_weight_count(clips[i]) > W) W = ossa_built_clip_weight_count(clips[i]);
    ossa_sampling_context *joint_sized = NULL, *shared = NULL;
    assert_int_equal(ossa_sampling_context_create(J, W, NULL, &joint_sized), OSSA_OK);
    assert_int_equal(ossa_sampling_context_create_for_clips(clips, n, NULL, &shared), OSSA_OK);
    assert_true(ossa_sampling_context_size(shared) < ossa_sampling_context_size(joint_sized));
    if (J == 43 && W == 0 && sizeof(void *) == 8) assert_true(ossa_sampling_context_size(joint_sized) <= 5110u); /* ozz 0.16's */
    printf("%u clips: a context sized for them %zu B, for %u joints %zu B\n", n, ossa_sampling_context_size(shared), J,
           ossa_sampling_context_size(joint_sized));
    ossa_transform *p[4];
    float *w[4];
    for (int k = 0; k < 4; k++) {
        p[k] = malloc(J * sizeof **p);
        w[k] = calloc(W + 1u, sizeof **w);
    }
    for (uint32_t i = 0; i < n; i++) {
        ossa_sampling_context *own = NULL;
        assert_int_equal(ossa_sampling_context_create_for_clips(&clips[i], 1, NULL, &own), OSSA_OK);
        assert_true(ossa_sampling_context_size(own) <= ossa_sampling_context_size(shared));
        float start = ossa_built_clip_start(clips[i]), d = ossa_built_clip_duration(clips[i]);
        for (int f = 0; f < 180; f++) {
            float t = f < 120 ? start + (float)f / 60.0f * (d > 0 ? 1.0f : 0.0f) + 0.25f * d
                              : ot_rand_float(seed, start - 0.1f, start + d + 0.1f);
            sample(clips[i], own, a->skeleton->rest, t, p[0], w[0]);
            sample(clips[i], joint_sized, a->skeleton->rest, t, p[1], w[1]);
            sample(clips[i], shared, a->skeleton->rest, t, p[2], w[2]);
            sample(clips[(i + 1) % n], shared, a->skeleton->rest, t, p[2], w[2]); /* another clip in between */
            sample(clips[i], shared, a->skeleton->rest, t, p[2], w[2]);
            ossa_sampling_context *fresh = NULL;
            assert_int_equal(ossa_sampling_context_create(J, W, NULL, &fresh), OSSA_OK);
            sample(clips[i], fresh, a->skeleton->rest, t, p[3], w[3]);
            ossa_sampling_context_destroy(fresh);
            for (int k = 1; k < 4; k++) {
                if (memcmp(p[0], p[k], J * sizeof **p) || memcmp(w[0], w[k], W * sizeof **w))
                    fail_msg("'%s' at %g: the %s context differs from the clip-sized one", ossa_built_clip_name(clips[i]),
                             (double)t, k == 1 ? "joint-sized" : k == 2 ? "shared" : "fresh");
            }
        }
        ossa_sampling_context_destroy(own);
    }
    for (int k = 0; k < 4; k++) {
        free(p[k]);
        free(w[k]);
    }
    ossa_sampling_context_destroy(joint_sized);
    ossa_sampling_context_destroy(shared);
}

static void woman_clip_sized_contexts_agree(void **state) {
    (void)state;
    ossa_asset *a = ot_load_asset("Woman/Woman.gltf");
    uint32_t C = a->clip_count;
    ossa_built_clip **built = calloc(C, sizeof *built);
    const ossa_built_clip **set = calloc(C, sizeof *set);
    uint64_t seed = 23;
    for (int lossless = 1; lossless >= 0; lossless--) {
        /* compressed builds are the slow part: every third clip (under valgrind every fifth, lossless every other) */
        uint32_t step = lossless ? (ot_under_valgrind() ? 2u : 1u) : (ot_under_valgrind() ? 5u : 3u);
        build_clips(a, lossless, step, built);
        uint32_t n = gather(built, C, set);
        check_set(a, set, n, &seed);
        for (uint32_t i = 0; i < C; i++) ossa_built_clip_destroy(built[i]);
    }
    free(set);
    free(built);
    ossa_asset_destroy(a);
}

/* One context, sized for Woman's lossless clips and the demo's (17 joints) compressed ones,
 * plays them in turn (forward runs, switches, random times) and gives what a fresh context
 * gives each time, bit for bit; so does a context sized for Woman's 43 joints. */
static void context_reused_across_skeletons(void **state) {
    (void)state;
    ossa_asset *a = ot_load_asset("Woman/Woman.gltf"), *demo = demo_character_create();
    assert_non_null(demo);
    uint32_t CA = a->clip_count < 4 ? a->clip_count : 4, CD = demo->clip_count, n = 0;
    ossa_built_clip **built = calloc(CA + CD, sizeof *built);
    const ossa_skeleton **skel = calloc(CA + CD, sizeof *skel);
    for (uint32_t i = 0; i < CA + CD; i++) {
        const ossa_asset *from = i < CA ? a : demo;
        ossa_clip_build_options o;
        memset(&o, 0, sizeof o);
        o.lossless = i < CA;
        assert_int_equal(ossa_clip_build(from->clips[i < CA ? i : i - CA], from->skeleton, &o, NULL, &built[n], NULL), OSSA_OK);
        skel[n++] = from->skeleton;
    }
    ossa_sampling_context *ctx[2] = {NULL, NULL};
    assert_int_equal(ossa_sampling_context_create_for_clips((const ossa_built_clip *const *)built, n, NULL, &ctx[0]), OSSA_OK);
    assert_int_equal(ossa_sampling_context_create(a->skeleton->joint_count, 0, NULL, &ctx[1]), OSSA_OK);
    ossa_transform got[64], want[64];
    float wg[64], ww[64];
    uint64_t seed = 7;
    uint32_t clip = 0;
    float t = 0.0f;
    for (int k = 0; k < 600; k++) {
        if (k % 20 == 0) { /* a switch: another clip, maybe of the other skeleton, at a random time */
            clip = (uint32_t)(ot_rand_u64(&seed) % n);
            t = ossa_built_clip_start(built[clip]) + ot_rand_float(&seed, 0.0f, ossa_built_clip_duration(built[clip]));
        } else {
            t += k % 7 == 0 ? ot_rand_float(&seed, -0.5f, 0.5f) : 1.0f / 60.0f;
        }
        ossa_sampling_context *fresh = NULL;
        assert_int_equal(ossa_sampling_context_create_for_clips((const ossa_built_clip *const *)&built[clip], 1, NULL, &fresh),
                         OSSA_OK);
        sample(built[clip], fresh, skel[clip]->rest, t, want, ww);
        ossa_sampling_context_destroy(fresh);
        uint32_t J = ossa_built_clip_joint_count(built[clip]), W = ossa_built_clip_weight_count(built[clip]);
        assert_true(J <= 64 && W <= 64);
        for (int c = 0; c < 2; c++) {
            sample(built[clip], ctx[c], skel[clip]->rest, t, got, wg);
            if (memcmp(got, want, J * sizeof *got) || memcmp(wg, ww, W * sizeof *wg))
                fail_msg("step %d, clip %u ('%s', %u joints) at %g: the reused %s context differs from a fresh one", k, clip,
                         ossa_built_clip_name(built[clip]), J, (double)t, c ? "joint-sized" : "clip-sized");
        }
    }
    for (int c = 0; c < 2; c++) ossa_sampling_context_destroy(ctx[c]);
    for (uint32_t i = 0; i < n; i++) ossa_built_clip_destroy(built[i]);
    free(built);
    free(skel);
    ossa_asset_destroy(demo);
    ossa_asset_destroy(a);
}

/* A context sized for a small clip fails validation on "context" (BUFFER_TOO_SMALL) for a
 * bigger one, and writes nothing; the create call's argument checks. */
static void too_small_context_names_context(void **state) {
    (void)state;
    uint64_t s = 11;
    ot_gen_options o = {0};
    o.joints = 2;
    o.max_keys = 4;
    ossa_skeleton *small_sk = ot_gen_skeleton(&s, &o);
    ossa_clip *small_clip = ot_gen_clip(&s, small_sk, &o);
    o.joints = 12;
    o.max_keys = 9;
    ossa_skeleton *big_sk = ot_gen_skeleton(&s, &o);
    ossa_clip *big_clip = ot_gen_clip(&s, big_sk, &o);
    ossa_clip_build_options bo = {0};
    bo.lossless = true;
    ossa_built_clip *small = NULL, *big = NULL;
    assert_int_equal(ossa_clip_build(small_clip, small_sk, &bo, NULL, &small, NULL), OSSA_OK);
    assert_int_equal(ossa_clip_build(big_clip, big_sk, &bo, NULL, &big, NULL), OSSA_OK);
    const ossa_built_clip *just_small = small;
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create_for_clips(&just_small, 1, NULL, &ctx), OSSA_OK);
    uint32_t J = big_sk->joint_count;
    ossa_transform *out = malloc(J * sizeof *out);
    memset(out, 0xAB, J * sizeof *out);
    ossa_sample_job job = {big, ctx, 0.5f, false, out, J, NULL, 0, big_sk->rest, J, 0};
    ot_assert_job(ossa_sample_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "context");
    assert_int_equal(ossa_sample_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t i = 0; i < J * sizeof *out; i++) assert_int_equal(((unsigned char *)out)[i], 0xAB);
    job.clip = small; /* the clip it was made for */
    job.output_count = job.reference_count = small_sk->joint_count;
    job.reference = small_sk->rest;
    ot_assert_job_ok(ossa_sample_job_validate, &job);
    assert_int_equal(ossa_sample_job_run(&job), OSSA_OK);
    ossa_sampling_context_destroy(ctx);
    /* arguments */
    ossa_sampling_context *none = NULL;
    const ossa_built_clip *with_null[2] = {small, NULL};
    assert_int_equal(ossa_sampling_context_create_for_clips(&just_small, 1, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_sampling_context_create_for_clips(NULL, 1, NULL, &none), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(none);
    assert_int_equal(ossa_sampling_context_create_for_clips(with_null, 2, NULL, &none), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(none);
    assert_int_equal(ossa_sampling_context_create_for_clips(NULL, 0, NULL, &none), OSSA_OK); /* fits clips with no channel */
    assert_true(ossa_sampling_context_size(none) > 0);
    ossa_sampling_context_destroy(none);
    free(out);
    ossa_built_clip_destroy(small);
    ossa_built_clip_destroy(big);
    ossa_clip_destroy(small_clip);
    ossa_clip_destroy(big_clip);
    ossa_skeleton_destroy(small_sk);
    ossa_skeleton_destroy(big_sk);
}

/* A lossless clip of 150 joints, every track LINEAR (so 150 cached rotations: the slerp pass
 * runs 64 at a time, clocks straddling the passes), sampled through a clip-sized context
 * forward and at random times, equals the editable path (to float rounding: 1e-5). */
static void many_rotations_slerp_in_passes(void **state) {
    (void)state;
    uint64_t s = 31;
    ot_gen_options o = {0};
    o.joints = 150;
    o.max_keys = 7;
    o.interp = OSSA_INTERP_LINEAR;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    ossa_clip *clip = ot_gen_clip(&s, sk, &o);
    ossa_clip_build_options bo = {0};
    bo.lossless = true;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(clip, sk, &bo, NULL, &bc, NULL), OSSA_OK);
    assert_true(bc->plan->nrot > 64); /* more than one pass */
    const ossa_built_clip *just = bc;
    ossa_sampling_context *ctx = NULL;
    assert_int_equal(ossa_sampling_context_create_for_clips(&just, 1, NULL, &ctx), OSSA_OK);
    uint32_t J = sk->joint_count;
    ossa_transform *got = malloc(J * sizeof *got), *want = malloc(J * sizeof *want);
    float start = clip->start, d = clip->end - clip->start;
    for (int f = 0; f < 200; f++) {
        float t = f < 120 ? start + d * (float)f / 120.0f : ot_rand_float(&s, start, start + 0.999f * d); /* below end: sample() loops */
        sample(bc, ctx, sk->rest, t, got, NULL);
        ot_clip_sample(clip, t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, want, J);
        ot_assert_floats_near((const float *)got, (const float *)want, (size_t)J * 10u, 1e-5f);
    }
    free(got);
    free(want);
    ossa_sampling_context_destroy(ctx);
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

/* A small lossless block whose header claims 2^20 joints (its channels' joints stay valid):
 * loading it (which makes its sampling plan) holds at most a few times its bytes, not the
 * hundreds of MB a plan sized by the joint count alone would take; and any block's joint
 * count raised the same way, whether it loads or not. */
static void hostile_joint_count_allocates_little(void **state) {
    (void)state;
    uint64_t s = 5;
    ot_gen_options o = {0};
    o.joints = 6;
    o.max_keys = 6;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    ossa_clip *clip = ot_gen_clip(&s, sk, &o);
    for (int lossless = 1; lossless >= 0; lossless--) {
        ossa_clip_build_options bo = {0};
        bo.lossless = lossless;
        ossa_built_clip *bc = NULL;
        assert_int_equal(ossa_clip_build(clip, sk, &bo, NULL, &bc, NULL), OSSA_OK);
        size_t size = 0;
        const void *data = ossa_built_clip_data(bc, &size);
        unsigned char *copy = malloc(size);
        memcpy(copy, data, size);
        const uint32_t claims[] = {1u << 10, 1u << 16, 1u << 20, 1u << 24, UINT32_MAX};
        for (int k = 0; k < 5; k++) {
            uint32_t J = claims[k];
            memcpy(copy + offsetof(ossa__bc_header, joint_count), &J, sizeof J);
            ot_counting c = {0, 0, 0, 0};
            ossa_allocator al = ot_counting_allocator(&c);
            ossa_built_clip *loaded = NULL;
            ossa_result r = ossa_built_clip_load(copy, size, &al, &loaded, NULL);
            if (c.peak > 8u * size + 4096u)
                fail_msg("%s block of %zu B claiming %u joints: the load held %zu B (%s)", lossless ? "lossless" : "compressed",
                         size, J, c.peak, ossa_result_string(r));
            if (lossless && J == (1u << 20) && r != OSSA_OK)
                fail_msg("the lossless block claiming 2^20 joints no longer loads (%s): the check guards nothing",
                         ossa_result_string(r));
            ossa_built_clip_destroy(loaded);
            assert_int_equal(c.live, 0);
        }
        free(copy);
        ossa_built_clip_destroy(bc);
    }
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(woman_clip_sized_contexts_agree),
        cmocka_unit_test(context_reused_across_skeletons),
        cmocka_unit_test(too_small_context_names_context),
        cmocka_unit_test(many_rotations_slerp_in_passes),
        cmocka_unit_test(hostile_joint_count_allocates_little),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
