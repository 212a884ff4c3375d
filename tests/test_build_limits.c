/* The clip builder's caps and progress (ossa/built_clip.h, docs/built-clips.md, "Caps and progress"):
 *   - the progress callback: called with the caller's clip index and count, fractions in [0, 1]
 *     that never decrease, the last exactly 1 on success (compressed and lossless), never 1 after
 *     a failure;
 *   - the scratch cap: a 2-joint, 10,000 s clip (keys at 30 Hz) is refused under the default
 *     cap, and ossa_clip_build_check names the cap ("max_scratch_bytes") with the grid, the bytes
 *     needed and the bytes to raise it to; raising max_scratch_bytes to that number passes the
 *     check (without building: the build needs GBs); on a short clip, the same message's number
 *     lets the real build through and one byte less does not;
 *   - the format cap the check predicts: a compressed track on a joint past 65,535. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip_gen.h"

/* ---- progress */

typedef struct progress_log {
    uint32_t calls, clip_index, clip_count;
    float first, last;
    bool decreased, out_of_range, other_clip;
} progress_log;

static void record_progress(void *user, uint32_t clip_index, uint32_t clip_count, float fraction) {
    progress_log *p = user;
    if (p->calls == 0) p->first = fraction;
    else if (fraction < p->last) p->decreased = true;
    if (!(fraction >= 0.0f && fraction <= 1.0f)) p->out_of_range = true;
    if (clip_index != p->clip_index || clip_count != p->clip_count) p->other_clip = true;
    p->last = fraction;
    p->calls++;
}

static void build_with_progress(const ossa_clip *c, const ossa_skeleton *sk, bool lossless, size_t cap,
                                ossa_result expect, progress_log *log) {
    memset(log, 0, sizeof *log);
    log->clip_index = 3;
    log->clip_count = 7;
    ossa_clip_build_options o = {0};
    o.lossless = lossless;
    o.max_scratch_bytes = cap;
    o.progress = record_progress;
    o.progress_user = log;
    o.progress_clip_index = 3;
    o.progress_clip_count = 7;
    ossa_built_clip *bc = NULL;
    assert_int_equal(ossa_clip_build(c, sk, &o, NULL, &bc, NULL), expect);
    ossa_built_clip_destroy(bc);
    assert_false(log->decreased);
    assert_false(log->out_of_range);
    assert_false(log->other_clip);
}

static void test_progress_monotonic_ends_at_one(void **state) {
    (void)state;
    uint64_t s = 5;
    ot_gen_options o = {0};
    o.joints = 5; /* small: the file also runs under valgrind */
    o.max_keys = 12;
    o.weight_tracks = 1;
    ossa_skeleton *sk = ot_gen_skeleton(&s, &o);
    ossa_clip *c = ot_gen_clip(&s, sk, &o);
    for (int lossless = 0; lossless < 2; lossless++) {
        progress_log log;
        build_with_progress(c, sk, lossless, 0, OSSA_OK, &log);
        assert_true(log.calls >= 3); /* the grid, the exact poses, the end at least */
        assert_true(log.first < 1.0f);
        assert_true(log.last == 1.0f);
    }
    /* a refused build (1 byte of scratch) never reports 1 */
    progress_log log;
    build_with_progress(c, sk, false, 1, OSSA_ERROR_LIMIT, &log);
    assert_true(log.calls == 0 || log.last < 1.0f);
    /* no callback: the same clip builds the same bytes */
    ossa_built_clip *a = NULL, *b = NULL;
    ossa_clip_build_options with = {0};
    with.progress = record_progress;
    with.progress_user = &log;
    memset(&log, 0, sizeof log);
    assert_int_equal(ossa_clip_build(c, sk, NULL, NULL, &a, NULL), OSSA_OK);
    assert_int_equal(ossa_clip_build(c, sk, &with, NULL, &b, NULL), OSSA_OK);
    size_t na, nb;
    const void *da = ossa_built_clip_data(a, &na), *db = ossa_built_clip_data(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(da, db, na);
    ossa_built_clip_destroy(a);
    ossa_built_clip_destroy(b);
    ossa_clip_destroy(c);
    ossa_skeleton_destroy(sk);
}

/* ---- the scratch cap */

/* root ─ tip, 1 unit apart. */
static ossa_skeleton *two_joints(void) {
    const int32_t parents[2] = {-1, 0};
    ossa_transform rest[2] = {ossa_transform_identity(), ossa_transform_identity()};
    rest[1].translation.y = 1.0f;
    ossa_skeleton_desc d = {0};
    d.joint_count = 2;
    d.parents = parents;
    d.rest = rest;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    return sk;
}

/* `seconds` of keys at 30 Hz: the root sways in x, the tip turns about z. */
static ossa_clip *long_clip(float seconds) {
    uint32_t n = (uint32_t)(seconds * 30.0f) + 1;
    float *times = malloc(sizeof(float) * n), *tv = malloc(sizeof(float) * 3 * n), *rv = malloc(sizeof(float) * 4 * n);
    assert_non_null(times);
    assert_non_null(tv);
    assert_non_null(rv);
    for (uint32_t k = 0; k < n; k++) {
        double t = k / 30.0, a = 0.5 * sin(t * 1.3);
        times[k] = (float)t;
        tv[3 * k] = (float)(0.1 * sin(t * 0.7)), tv[3 * k + 1] = 0.0f, tv[3 * k + 2] = 0.0f;
        rv[4 * k] = 0.0f, rv[4 * k + 1] = 0.0f, rv[4 * k + 2] = (float)sin(a / 2), rv[4 * k + 3] = (float)cos(a / 2);
    }
    ossa_transform_track tr[2];
    memset(tr, 0, sizeof tr);
    tr[0].joint = 0;
    tr[0].translation = (ossa_track){.kind = OSSA_TRACK_VECTOR, .interp = OSSA_INTERP_LINEAR, .components = 3,
                                     .key_count = n, .times = times, .values = tv};
    tr[1].joint = 1;
    tr[1].rotation = (ossa_track){.kind = OSSA_TRACK_ROTATION, .interp = OSSA_INTERP_LINEAR, .components = 4,
                                  .key_count = n, .times = times, .values = rv};
    ossa_clip_desc d = {0};
    d.name = "long";
    d.tracks = tr;
    d.track_count = 2;
    ossa_clip *c = NULL;
    assert_int_equal(ossa_clip_create(&d, NULL, &c), OSSA_OK);
    free(times);
    free(tv);
    free(rv);
    return c;
}

/* The check's scratch diagnostic: names the cap, and gives the grid and the bytes to raise it to. */
static double check_names_scratch_cap(const ossa_clip *c, const ossa_skeleton *sk, const ossa_clip_build_options *o,
                                      uint32_t *grid) {
    ossa_diagnostic d;
    assert_int_equal(ossa_clip_build_check(c, sk, o, &d), OSSA_ERROR_LIMIT);
    assert_string_equal(d.path, "max_scratch_bytes");
    if (!strstr(d.message, "clip 'long': max_scratch_bytes:") || !strstr(d.message, "raise options.max_scratch_bytes"))
        fail_msg("the message does not name the cap: %s", d.message);
    const char *g = strstr(d.message, "max_scratch_bytes: ");
    assert_int_equal(sscanf(g, "max_scratch_bytes: %u grid times", grid), 1);
    assert_non_null(strstr(d.message, "x 2 joints"));
    const char *to = strstr(d.message, "to >= ");
    assert_non_null(to);
    double need = 0;
    assert_int_equal(sscanf(to, "to >= %lf bytes", &need), 1);
    return need;
}

static void test_scratch_cap_names_itself(void **state) {
    (void)state;
    ossa_skeleton *sk = two_joints();
    ossa_clip *c = long_clip(10000.0f);
    assert_true(c->end > 9999.0f);
    ossa_clip_build_options o = {0};
    ossa_built_clip *bc = NULL;
    /* the default cap (1 GiB) refuses it (ossa_clip_build returns the check's result: the tool's
     * test, test_tool_build, runs that build) */
    uint32_t grid = 0;
    double need = check_names_scratch_cap(c, sk, &o, &grid);
    /* at least 480 grid times per second of the clip; the documented formula (built_clip.h)
     * with 2 joints and 2 tracks (6 channels) */
    assert_true(grid >= 4800000u);
    double formula = (double)grid * (2 * 88 + 36) + (double)grid * (6 * 16 + 2 * 48 + 32);
    ot_assert_near(need, formula, 1.0);
    assert_true(need > (double)OSSA_CLIP_BUILD_SCRATCH_CAP);
    o.max_scratch_bytes = (size_t)need; /* (the build itself needs GBs: only the check here) */
    assert_int_equal(ossa_clip_build_check(c, sk, &o, NULL), OSSA_OK);
    ossa_clip_destroy(c);
    /* a short clip under a small cap: the number the message gives lets the build through */
    c = long_clip(20.0f);
    o.max_scratch_bytes = 100000;
    assert_int_equal(ossa_clip_build(c, sk, &o, NULL, &bc, NULL), OSSA_ERROR_LIMIT);
    need = check_names_scratch_cap(c, sk, &o, &grid);
    o.max_scratch_bytes = (size_t)need - 1;
    assert_int_equal(ossa_clip_build(c, sk, &o, NULL, &bc, NULL), OSSA_ERROR_LIMIT);
    o.max_scratch_bytes = (size_t)need;
    assert_int_equal(ossa_clip_build(c, sk, &o, NULL, &bc, NULL), OSSA_OK);
    ossa_clip_error e;
    assert_int_equal(ossa_built_clip_measure(bc, c, sk, 0, NULL, &e), OSSA_OK);
    assert_int_equal(e.sample_count, grid); /* the grid the message counted is the one measured */
    ossa_built_clip_destroy(bc);
    ossa_clip_destroy(c);
    ossa_skeleton_destroy(sk);
}

/* A compressed track on joint 65,536 cannot be stored (16-bit joint index): the check names
 * the cap; lossless stores it. */
static void test_joint_index_cap(void **state) {
    (void)state;
    enum { N = 65537 };
    int32_t *parents = malloc(sizeof(int32_t) * N);
    assert_non_null(parents);
    for (uint32_t i = 0; i < N; i++) parents[i] = i ? 0 : -1;
    ossa_skeleton_desc d = {0};
    d.joint_count = N;
    d.parents = parents;
    ossa_skeleton *sk = NULL;
    assert_int_equal(ossa_skeleton_create(&d, NULL, &sk), OSSA_OK);
    free(parents);
    const float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 0, 0};
    ossa_clip *c = ot_translation_clip(N - 1, times, values);
    ossa_diagnostic diag;
    assert_int_equal(ossa_clip_build_check(c, sk, NULL, &diag), OSSA_ERROR_LIMIT);
    assert_string_equal(diag.path, "joint_index_bits");
    assert_non_null(strstr(diag.message, "65,535"));
    ossa_clip_build_options o = {0};
    o.lossless = true;
    o.max_scratch_bytes = (size_t)1 << 40; /* 65,537 joints x ~500 grid times: past the default cap */
    assert_int_equal(ossa_clip_build_check(c, sk, &o, NULL), OSSA_OK);
    ossa_clip_destroy(c);
    ossa_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_monotonic_ends_at_one),
        cmocka_unit_test(test_scratch_cap_names_itself),
        cmocka_unit_test(test_joint_index_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
