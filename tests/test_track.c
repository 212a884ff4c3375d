/* Tracks (src/anim/track.c): hand-worked STEP / LINEAR / CUBICSPLINE values, time
 * adjustment, and the four key lookups agreeing exactly over thousands of random tracks. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ossa_track make_track(ossa_track_kind kind, ossa_interp interp, uint32_t comps, uint32_t n, const float *times,
                             const float *values) {
    ossa_track t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.interp = interp;
    t.components = comps;
    t.key_count = n;
    t.times = times;
    t.values = values;
    return t;
}

/* The obvious reference: largest k in [0, n-2] with times[k] <= t, else 0. */
static uint32_t reference_key(const float *times, uint32_t n, float t) {
    uint32_t k = 0;
    for (uint32_t i = 0; n >= 2 && i <= n - 2; i++)
        if (times[i] <= t) k = i;
    return k;
}

static void find_key_hand_values(void **state) {
    (void)state;
    const float times[] = {0, 1, 2, 4};
    const float values[] = {0, 10, 20, 40};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 4, times, values);
    const float probe[] = {-1, 0, 0.5f, 1, 1.5f, 2, 3.99f, 4, 10, NAN};
    const uint32_t expect[] = {0, 0, 0, 1, 1, 2, 2, 2, 2, 0};
    uint32_t keys[64];
    assert_int_equal(ossa_track_build_table(&t, 2.0f, keys, 64), OSSA_OK);
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        uint32_t cursor = 1;
        assert_int_equal(ossa_track_find_key_linear(&t, probe[i]), expect[i]);
        assert_int_equal(ossa_track_find_key_binary(&t, probe[i]), expect[i]);
        assert_int_equal(ossa_track_find_key_table(&t, probe[i]), expect[i]);
        assert_int_equal(ossa_track_find_key_cursor(&t, probe[i], &cursor), expect[i]);
        assert_int_equal(cursor, expect[i]);
    }
    /* Degenerate sizes: 0 and 1 key give key 0. */
    ossa_track one = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 1, times, values);
    assert_int_equal(ossa_track_find_key_linear(&one, 5), 0);
    assert_int_equal(ossa_track_find_key_binary(&one, 5), 0);
    uint32_t cur = 77;
    assert_int_equal(ossa_track_find_key_cursor(&one, 5, &cur), 0);
    /* A garbage cursor is reset. */
    cur = 1000;
    assert_int_equal(ossa_track_find_key_cursor(&t, 1.5f, &cur), 1);
}

static void table_layout(void **state) {
    (void)state;
    const float times[] = {1, 1.25f, 2, 3};
    const float values[] = {0, 0, 0, 0};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 4, times, values);
    /* span 2 s at 4 entries/s: floor(8) + 2 = 10 entries covering 1.0 .. 3.25. */
    assert_int_equal(ossa_track_table_bound(&t, 4.0f), 10);
    uint32_t keys[10];
    assert_int_equal(ossa_track_build_table(&t, 4.0f, keys, 9), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(ossa_track_build_table(&t, 0.0f, keys, 10), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_track_build_table(&t, 4.0f, keys, 10), OSSA_OK);
    /* Entry i is the key for time 1 + i/4: 1.0 1.25 1.5 1.75 2.0 2.25 2.5 2.75 3.0 3.25 */
    const uint32_t expect[10] = {0, 1, 1, 1, 2, 2, 2, 2, 2, 2};
    for (int i = 0; i < 10; i++) assert_int_equal(keys[i], expect[i]);
    assert_true(t.table.keys == keys);
    assert_float_equal(t.table.start, 1.0f, 0);
    assert_int_equal(t.table.count, 10);
    assert_int_equal(ossa_track_validate(&t), OSSA_OK);
}

static void step_linear_and_ends(void **state) {
    (void)state;
    const float times[] = {1, 2, 4};
    const float values[] = {0, 10, 100, /* key 1 */ 1, 20, 300, /* key 2 */ 3, 40, 700};
    ossa_track lin = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 3, times, values);
    ossa_track step = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_STEP, 3, 3, times, values);
    float out[3];
    ossa_track_sample(&lin, 1.5f, false, OSSA_LOOKUP_LINEAR, NULL, out);
    assert_float_equal(out[0], 0.5f, 1e-6);
    assert_float_equal(out[1], 15.0f, 1e-5);
    assert_float_equal(out[2], 200.0f, 1e-4);
    ossa_track_sample(&lin, 3.0f, false, OSSA_LOOKUP_BINARY, NULL, out);
    assert_float_equal(out[0], 2.0f, 1e-6);
    assert_float_equal(out[2], 500.0f, 1e-4);
    ossa_track_sample(&step, 3.9f, false, OSSA_LOOKUP_BINARY, NULL, out);
    assert_memory_equal(out, values + 3, sizeof out);
    ossa_track_sample(&step, 1.99f, false, OSSA_LOOKUP_BINARY, NULL, out);
    assert_memory_equal(out, values, sizeof out);
    /* At and after the last key: exactly the last value; before the first: the first. */
    for (int i = 0; i < 2; i++) {
        ossa_track *t = i ? &step : &lin;
        assert_float_equal(ossa_track_sample(t, 4.0f, false, OSSA_LOOKUP_LINEAR, NULL, out), 4.0f, 0);
        assert_memory_equal(out, values + 6, sizeof out);
        ossa_track_sample(t, 50.0f, false, OSSA_LOOKUP_LINEAR, NULL, out);
        assert_memory_equal(out, values + 6, sizeof out);
        assert_float_equal(ossa_track_sample(t, -3.0f, false, OSSA_LOOKUP_LINEAR, NULL, out), 1.0f, 0);
        assert_memory_equal(out, values, sizeof out);
        ossa_track_sample(t, 2.0f, false, OSSA_LOOKUP_LINEAR, NULL, out); /* exact key time */
        assert_memory_equal(out, values + 3, sizeof out);
    }
    /* One key is constant. */
    ossa_track one = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 1, times, values);
    ossa_track_sample(&one, 123.0f, true, OSSA_LOOKUP_DEFAULT, NULL, out);
    assert_memory_equal(out, values, sizeof out);
}

static void rotation_slerp_shorter_arc(void **state) {
    (void)state;
    const float times[] = {0, 1};
    const float s45 = 0.70710678f;
    /* identity to 90 degrees about z; then the same with the second key negated. */
    const float values[] = {0, 0, 0, 1, 0, 0, s45, s45};
    const float negated[] = {0, 0, 0, 1, 0, 0, -s45, -s45};
    ossa_track a = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, times, values);
    ossa_track b = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, times, negated);
    float oa[4], ob[4];
    ossa_track_sample(&a, 1.0f / 3, false, OSSA_LOOKUP_DEFAULT, NULL, oa);
    ossa_track_sample(&b, 1.0f / 3, false, OSSA_LOOKUP_DEFAULT, NULL, ob);
    /* 30 degrees about z: (0, 0, sin 15, cos 15), along the shorter arc for both. */
    ot_assert_near(oa[2], 0.25881905f, 1e-6);
    ot_assert_near(oa[3], 0.96592583f, 1e-6);
    ot_assert_floats_near(oa, ob, 4, 1e-6f);
    /* The last key itself is returned exactly, not re-slerped or sign-flipped. */
    ossa_track_sample(&b, 1.0f, false, OSSA_LOOKUP_DEFAULT, NULL, ob);
    assert_memory_equal(ob, negated + 4, sizeof ob);
}

static void cubic_gltf_formula(void **state) {
    (void)state;
    /* Scalar keys stored (in-tangent a, value v, out-tangent b) per key, glTF order. */
    const float times[] = {0, 2, 3};
    const float values[] = {9, 1, 3, /* key 1 */ -1, 5, 9, /* key 2 */ 2, 0, 7};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_CUBIC, 1, 3, times, values);
    float out;
    /* td = 2, s = 0.5: 0.5*1 + 0.125*2*3 + 0.5*5 + (-0.125)*2*(-1) = 4.0 */
    ossa_track_sample(&t, 1.0f, false, OSSA_LOOKUP_LINEAR, NULL, &out);
    ot_assert_near(out, 4.0, 1e-6);
    /* s = 0.25: 0.84375*1 + 0.140625*2*3 + 0.15625*5 + (-0.046875)*2*(-1) = 2.5625 */
    ossa_track_sample(&t, 0.5f, false, OSSA_LOOKUP_LINEAR, NULL, &out);
    ot_assert_near(out, 2.5625, 1e-6);
    /* Second segment, td = 1, s = 0.5: 0.5*5 + 0.125*9 + 0.5*0 + (-0.125)*2 = 3.375 */
    ossa_track_sample(&t, 2.5f, false, OSSA_LOOKUP_BINARY, NULL, &out);
    ot_assert_near(out, 3.375, 1e-6);
    /* Keys are hit exactly; the in-tangent of key 0 and out-tangent of the last key are unused. */
    ossa_track_sample(&t, 2.0f, false, OSSA_LOOKUP_BINARY, NULL, &out);
    assert_float_equal(out, 5.0f, 0);
    ossa_track_sample(&t, 3.0f, false, OSSA_LOOKUP_BINARY, NULL, &out);
    assert_float_equal(out, 0.0f, 0);
    ossa_track_sample(&t, -1.0f, false, OSSA_LOOKUP_BINARY, NULL, &out);
    assert_float_equal(out, 1.0f, 0);
    /* Compared with the public Hermite basis (tangents pre-scaled by td). */
    for (int i = 0; i <= 20; i++) {
        float tt = 2.0f * (float)i / 20;
        ossa_track_sample(&t, tt, false, OSSA_LOOKUP_LINEAR, NULL, &out);
        float expect = i == 20 ? 5.0f : ossa_hermite(tt / 2, 1, 3 * 2, 5, -1 * 2);
        ot_assert_near(out, expect, 1e-5);
    }
}

/* vec3 CUBICSPLINE: every component's tangents are scaled by the key interval (the bug
 * raylib's vec3 path has); checked against the Hermite basis with tangents times td. */
static void cubic_vec3_scales_tangents(void **state) {
    (void)state;
    const float times[] = {1, 1.5f};
    /* key 0: a (unused), v = (1,2,3), b = (4,-2,0); key 1: a = (2,2,2), v = (0,0,1), b (unused) */
    const float values[] = {9, 9, 9, 1, 2, 3, 4, -2, 0, 2, 2, 2, 0, 0, 1, 9, 9, 9};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_CUBIC, 3, 2, times, values);
    float out[3];
    ossa_track_sample(&t, 1.25f, false, OSSA_LOOKUP_DEFAULT, NULL, out);
    /* s = 0.5, td = 0.5: 0.5 v0 + 0.125 * 0.5 * b0 + 0.5 v1 - 0.125 * 0.5 * a1 */
    ot_assert_near(out[0], 0.5 * 1 + 0.0625 * 4 + 0.5 * 0 - 0.0625 * 2, 1e-6);
    ot_assert_near(out[1], 0.5 * 2 + 0.0625 * -2 + 0.5 * 0 - 0.0625 * 2, 1e-6);
    ot_assert_near(out[2], 0.5 * 3 + 0.0625 * 0 + 0.5 * 1 - 0.0625 * 2, 1e-6);
    for (int c = 0; c < 3; c++) {
        ossa_track_sample(&t, 1.1f, false, OSSA_LOOKUP_LINEAR, NULL, out);
        float s = (1.1f - 1) / 0.5f;
        ot_assert_near(out[c], ossa_hermite(s, values[3 + c], values[6 + c] * 0.5f, values[12 + c], values[9 + c] * 0.5f),
                       1e-6);
    }
}

static void cubic_rotation_is_normalised(void **state) {
    (void)state;
    uint64_t s = 21;
    for (int iter = 0; iter < 2000; iter++) {
        float times[2] = {0, ot_rand_float(&s, 0.1f, 3)};
        float values[24];
        for (int k = 0; k < 2; k++) {
            ossa_quat q = ot_rand_quat(&s);
            for (int c = 0; c < 4; c++) {
                values[k * 12 + c] = ot_rand_float(&s, -2, 2);
                values[k * 12 + 8 + c] = ot_rand_float(&s, -2, 2);
            }
            values[k * 12 + 4] = q.x; values[k * 12 + 5] = q.y; values[k * 12 + 6] = q.z; values[k * 12 + 7] = q.w;
        }
        ossa_track t = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_CUBIC, 4, 2, times, values);
        float out[4];
        float tt = ot_rand_float(&s, 0, times[1]);
        ossa_track_sample(&t, tt, false, OSSA_LOOKUP_DEFAULT, NULL, out);
        float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        ot_assert_near(len, 1.0, 1e-5);
    }
}

static void adjust_time_semantics(void **state) {
    (void)state;
    const float times[] = {1, 3};
    const float values[] = {0, 1};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 2, times, values);
    /* clamp */
    assert_float_equal(ossa_track_adjust_time(&t, 0.5f, false), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, 2.5f, false), 2.5f, 0);
    assert_float_equal(ossa_track_adjust_time(&t, 7, false), 3, 0);
    assert_float_equal(ossa_track_adjust_time(&t, NAN, false), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, -INFINITY, false), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, INFINITY, false), 3, 0);
    /* loop: [1, 3) */
    assert_float_equal(ossa_track_adjust_time(&t, 3, true), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, 8, true), 2, 0);      /* 1 + fmod(7, 2) */
    assert_float_equal(ossa_track_adjust_time(&t, -0.5f, true), 1.5f, 0); /* 1 + (fmod(-1.5, 2) + 2) */
    assert_float_equal(ossa_track_adjust_time(&t, -3, true), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, NAN, true), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, INFINITY, true), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&t, -INFINITY, true), 1, 0);
    /* huge times: computed in double, like this reference */
    const float huge[] = {1e7f + 0.25f, 123456789.0f, -98765432.0f, 3.4e38f, -3.4e38f};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        double r = fmod((double)huge[i] - 1.0, 2.0);
        if (r < 0) r += 2.0;
        float expect = (float)(1.0 + r);
        if (expect >= 3.0f) expect = 1.0f;
        float got = ossa_track_adjust_time(&t, huge[i], true);
        assert_float_equal(got, expect, 0);
        assert_true(got >= 1.0f && got < 3.0f);
    }
    /* one key: duration 0 maps everything to start */
    ossa_track one = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 1, times, values);
    assert_float_equal(ossa_track_adjust_time(&one, 42, true), 1, 0);
    assert_float_equal(ossa_track_adjust_time(&one, 42, false), 1, 0);
    assert_float_equal(ossa_track_start(&t), 1, 0);
    assert_float_equal(ossa_track_end(&t), 3, 0);
    ossa_track empty = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 0, NULL, NULL);
    assert_float_equal(ossa_track_start(&empty), 0, 0);
    assert_float_equal(ossa_track_end(&empty), 0, 0);
}

static void validate_rejects_bad_tracks(void **state) {
    (void)state;
    const float times[] = {0, 1, 1, 2};
    const float nan_times[] = {0, NAN};
    const float values[16] = {0};
    ossa_track ok = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 2, times, values);
    assert_int_equal(ossa_track_validate(&ok), OSSA_OK);
    ossa_track dup = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 3, times, values);
    assert_int_equal(ossa_track_validate(&dup), OSSA_ERROR_INVALID_DATA);
    ossa_track nan = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 2, nan_times, values);
    assert_int_equal(ossa_track_validate(&nan), OSSA_ERROR_INVALID_DATA);
    ossa_track rot3 = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 3, 2, times, values);
    assert_int_equal(ossa_track_validate(&rot3), OSSA_ERROR_INVALID_DATA);
    ossa_track zero = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 0, 2, times, values);
    assert_int_equal(ossa_track_validate(&zero), OSSA_ERROR_INVALID_DATA);
    ossa_track big = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, OSSA_MAX_COMPONENTS + 1, 2, times, values);
    assert_int_equal(ossa_track_validate(&big), OSSA_ERROR_INVALID_DATA);
    ossa_track nulls = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 2, NULL, values);
    assert_int_equal(ossa_track_validate(&nulls), OSSA_ERROR_INVALID_DATA);
    ossa_track interp = make_track(OSSA_TRACK_VECTOR, (ossa_interp)9, 1, 2, times, values);
    assert_int_equal(ossa_track_validate(&interp), OSSA_ERROR_INVALID_DATA);
    ossa_track kind = make_track((ossa_track_kind)5, OSSA_INTERP_LINEAR, 1, 2, times, values);
    assert_int_equal(ossa_track_validate(&kind), OSSA_ERROR_INVALID_DATA);
    const uint32_t bad_keys[] = {0, 7};
    ok.table = (ossa_key_table){0, 1, 2, bad_keys};
    assert_int_equal(ossa_track_validate(&ok), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_track_validate(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    /* A zeroed track (no components) is invalid; an absent track with components is valid. */
    ossa_track zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    assert_int_equal(ossa_track_validate(&zeroed), OSSA_ERROR_INVALID_DATA);
    zeroed.components = 3;
    assert_int_equal(ossa_track_validate(&zeroed), OSSA_OK);
}

/* Random strictly increasing times, sometimes negative, sometimes dense, sometimes sparse. */
static uint32_t random_times(uint64_t *s, float *times, uint32_t max) {
    uint32_t n = 1 + (uint32_t)(ot_rand_u64(s) % max);
    float t = ot_rand_float(s, -50, 50);
    int mode = (int)(ot_rand_u64(s) % 3);
    for (uint32_t i = 0; i < n; i++) {
        times[i] = t;
        float step = mode == 0 ? ot_rand_float(s, 0.001f, 0.05f) : mode == 1 ? ot_rand_float(s, 0.01f, 1) : ot_rand_float(s, 0.5f, 20);
        float next = t + step;
        if (!(next > t)) next = nextafterf(t, INFINITY);
        t = next;
    }
    return n;
}

static float random_probe(uint64_t *s, const float *times, uint32_t n) {
    switch (ot_rand_u64(s) % 6) {
    case 0: return times[ot_rand_u64(s) % n];                                          /* exact key */
    case 1: return nextafterf(times[ot_rand_u64(s) % n], -INFINITY);                    /* just before */
    case 2: return times[0] - ot_rand_float(s, 0, 10);                                 /* before */
    case 3: return times[n - 1] + ot_rand_float(s, 0, 10);                             /* after */
    default: return ot_rand_float(s, times[0], times[n - 1]);
    }
}

static void lookups_agree_on_random_tracks(void **state) {
    (void)state;
    uint64_t s = 1234;
    enum { MAXK = 200 };
    float times[MAXK], values[MAXK * 12];
    uint32_t *table = malloc(sizeof(uint32_t) * 200000);
    assert_non_null(table);
    const float rates[] = {0.3f, 1, 7.5f, 60, 240};
    for (int iter = 0; iter < 3000; iter++) {
        uint32_t n = random_times(&s, times, MAXK);
        int kind = (int)(ot_rand_u64(&s) % 3);
        ossa_interp interp = (ossa_interp)(1 + ot_rand_u64(&s) % 3);
        uint32_t comps = kind == 2 ? 4 : (kind == 1 ? 1 : 3);
        for (uint32_t i = 0; i < n * comps * 3; i++) values[i] = ot_rand_float(&s, -5, 5);
        if (kind == 2)
            for (uint32_t k = 0; k < n * (interp == OSSA_INTERP_CUBIC ? 3 : 1); k++) {
                ossa_quat q = ot_rand_quat(&s);
                memcpy(values + k * 4, &q, sizeof q);
            }
        ossa_track t = make_track(kind == 2 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR, interp, comps, n, times, values);
        assert_int_equal(ossa_track_validate(&t), OSSA_OK);
        float rate = rates[ot_rand_u64(&s) % 5];
        uint32_t bound = ossa_track_table_bound(&t, rate);
        bool with_table = bound <= 200000;
        if (with_table) assert_int_equal(ossa_track_build_table(&t, rate, table, bound), OSSA_OK);
        uint32_t cursor = (uint32_t)(ot_rand_u64(&s) % (n + 3));
        /* Forward sweep (cursor's best case) then random probes. */
        float sweep = times[0] - 1;
        for (int p = 0; p < 40; p++) {
            float x;
            if (p < 20) {
                sweep += ot_rand_float(&s, 0, (times[n - 1] - times[0] + 2) / 10);
                x = sweep;
            } else {
                x = random_probe(&s, times, n);
            }
            uint32_t ref = reference_key(times, n, x);
            assert_int_equal(ossa_track_find_key_linear(&t, x), ref);
            assert_int_equal(ossa_track_find_key_binary(&t, x), ref);
            assert_int_equal(ossa_track_find_key_table(&t, x), ref);
            assert_int_equal(ossa_track_find_key_cursor(&t, x, &cursor), ref);
            /* Values agree bit for bit, every strategy, clamped and looping. */
            bool loop = p & 1;
            float a[12], b[12], c[12], d[12];
            uint32_t cur2 = cursor;
            float ta = ossa_track_sample(&t, x, loop, OSSA_LOOKUP_LINEAR, NULL, a);
            float tb = ossa_track_sample(&t, x, loop, OSSA_LOOKUP_BINARY, NULL, b);
            float tc = ossa_track_sample(&t, x, loop, OSSA_LOOKUP_TABLE, NULL, c);
            float td = ossa_track_sample(&t, x, loop, OSSA_LOOKUP_CURSOR, &cur2, d);
            assert_true(ta == tb && tb == tc && tc == td);
            assert_memory_equal(a, b, comps * sizeof(float));
            assert_memory_equal(a, c, comps * sizeof(float));
            assert_memory_equal(a, d, comps * sizeof(float));
            if (kind == 2) {
                float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
                if (interp != OSSA_INTERP_STEP) ot_assert_near(len, 1.0, 1e-5);
            }
        }
    }
    free(table);
}

static void sample_with_missing_cursor_and_empty_track(void **state) {
    (void)state;
    const float times[] = {0, 1};
    const float values[] = {0, 2};
    ossa_track t = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 2, times, values);
    float out = -1;
    ossa_track_sample(&t, 0.25f, false, OSSA_LOOKUP_CURSOR, NULL, &out);
    assert_float_equal(out, 0.5f, 1e-7);
    ossa_track empty = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 1, 0, NULL, NULL);
    out = -1;
    ossa_track_sample(&empty, 0.25f, false, OSSA_LOOKUP_DEFAULT, NULL, &out);
    assert_float_equal(out, 0.0f, 0);
}

/* ---- extreme key times: intervals past FLT_MAX ---- */

/* Slerp of unit quaternions a, b at s in double, by hand (the shorter arc). */
static void ref_slerp(const float *a, const float *b, double s, double *out) {
    double d = 0, bb[4];
    for (int i = 0; i < 4; i++) d += (double)a[i] * b[i];
    for (int i = 0; i < 4; i++) bb[i] = d < 0 ? -(double)b[i] : (double)b[i];
    d = fabs(d);
    double th = acos(d < 1 ? d : 1), wa = sin((1 - s) * th) / sin(th), wb = sin(s * th) / sin(th);
    for (int i = 0; i < 4; i++) out[i] = wa * a[i] + wb * bb[i];
}

/* Samples track t at time x with every lookup (a table at `rate`, a cursor walked from key
 * `from`) and checks each against expect (c floats) within tol. */
static void expect_all_lookups(ossa_track *t, float rate, float x, uint32_t from, const double *expect, uint32_t c,
                               double tol) {
    uint32_t keys[256];
    uint32_t need = ossa_track_table_bound(t, rate);
    assert_true(need > 0 && need <= 256); /* the table at this rate stays small */
    assert_int_equal(ossa_track_build_table(t, rate, keys, 256), OSSA_OK);
    const ossa_lookup modes[] = {OSSA_LOOKUP_LINEAR, OSSA_LOOKUP_BINARY, OSSA_LOOKUP_TABLE, OSSA_LOOKUP_CURSOR,
                                 OSSA_LOOKUP_DEFAULT};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        float out[4] = {NAN, NAN, NAN, NAN};
        uint32_t cursor = from;
        assert_float_equal(ossa_track_sample(t, x, false, modes[m], &cursor, out), x, 0);
        for (uint32_t i = 0; i < c; i++) {
            if (!(fabs((double)out[i] - expect[i]) <= tol))
                fail_msg("lookup %d at t=%g: component %u is %.9g, expected %.9g", (int)modes[m], (double)x, i,
                         (double)out[i], expect[i]);
        }
    }
    memset(&t->table, 0, sizeof t->table);
}

/* Keys at -3e38 and 3e38: t1 - t0 = 6e38 is past FLT_MAX (it used to overflow to +inf in
 * float, the parameter to 0: key 0 everywhere). The parameter in double: at 0 the halfway
 * slerp / lerp; at 1e38 two thirds; and a third key one ulp after 3e38 (an interval of ~2e31
 * with no float inside) gives its keys exactly. Every lookup, cursors coming from either side. */
static void extreme_key_times_linear(void **state) {
    (void)state;
    const float big = 3e38f, ulp_after = nextafterf(3e38f, INFINITY);
    const float times[3] = {-big, big, ulp_after};
    const float s45 = 0.70710678f;
    /* identity, 90 deg about z, then 120 deg about (1,1,1) / sqrt 3 */
    const float rot[12] = {0, 0, 0, 1, 0, 0, s45, s45, 0.5f, 0.5f, 0.5f, 0.5f};
    const float vec[9] = {-2, 4, 10, 6, -4, 30, 1, 2, 3};
    ossa_track r = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 3, times, rot);
    ossa_track v = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 3, times, vec);
    const float rate = 1e-37f; /* 6e38 s x 1e-37 /s: a table of 62 entries */
    const float probes[3] = {0.0f, 1e38f, -1.5e38f};
    for (int p = 0; p < 3; p++) {
        double s = ((double)probes[p] - (double)times[0]) / ((double)times[1] - (double)times[0]);
        double q[4], x[3];
        ref_slerp(rot, rot + 4, s, q);
        for (int i = 0; i < 3; i++) x[i] = (double)vec[i] + ((double)vec[3 + i] - (double)vec[i]) * s;
        for (uint32_t from = 0; from < 2; from++) {
            expect_all_lookups(&r, rate, probes[p], from, q, 4, 2e-7);
            expect_all_lookups(&v, rate, probes[p], from, x, 3, 4e-6);
        }
    }
    /* at the ulp-wide interval's ends: its keys exactly */
    double k1[4] = {0, 0, s45, s45}, k2[4] = {0.5, 0.5, 0.5, 0.5};
    expect_all_lookups(&r, rate, big, 0, k1, 4, 0);
    expect_all_lookups(&r, rate, ulp_after, 0, k2, 4, 0);
    /* the halfway slerp of 90 degrees about z is 45 degrees: a hand value too */
    float out[4];
    ossa_track_sample(&r, 0.0f, false, OSSA_LOOKUP_BINARY, NULL, out);
    ot_assert_near(out[2], sin(3.14159265358979323846 / 8), 2e-7);
    ot_assert_near(out[3], cos(3.14159265358979323846 / 8), 2e-7);
}

/* Keys at -1e38 and 1e38 (interval 2e38, a float): the same halfway values, and looping wraps
 * a time past the end by the 2e38 s duration. */
static void extreme_key_times_within_float(void **state) {
    (void)state;
    const float times[2] = {-1e38f, 1e38f};
    const float rot[8] = {0, 0, 0, 1, 0, 0.70710678f, 0, 0.70710678f};
    ossa_track r = make_track(OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, times, rot);
    double q[4];
    ref_slerp(rot, rot + 4, 0.5, q);
    expect_all_lookups(&r, 1e-36f, 0.0f, 0, q, 4, 2e-7);
    float out[4];
    /* 2.5e38 wraps to 2.5e38 - 2e38 = 0.5e38: three quarters of the way */
    assert_float_equal(ossa_track_sample(&r, 2.5e38f, true, OSSA_LOOKUP_BINARY, NULL, out), 0.5e38f, 1e32);
    ref_slerp(rot, rot + 4, ((double)0.5e38f + 1e38) / 2e38, q);
    for (int i = 0; i < 4; i++) ot_assert_near(out[i], q[i], 2e-7);
}

/* CUBICSPLINE over -3e38 .. 3e38: the tangents are multiplied by the interval (6e38, not a
 * float): v = h00 v0 + h10 dt b0 + h01 v1 + h11 dt a1. With tangents ~1e-38 units/s the
 * products are ordinary numbers; |h10|, |h11| <= 4/27, so the scaled weights (<= 1e38) are
 * finite floats for any finite key times. Expected values in double by hand. */
static void extreme_key_times_cubic(void **state) {
    (void)state;
    const float times[2] = {-3e38f, 3e38f};
    /* per key: in-tangent, value, out-tangent (3 components each) */
    const float vals[18] = {0, 0, 0, /* v0 */ 1, 2, 3, /* b0 */ 1e-38f, -2e-38f, 0,
                            /* a1 */ -3e-38f, 0, 2e-38f, /* v1 */ 5, -2, 7, 0, 0, 0};
    ossa_track c = make_track(OSSA_TRACK_VECTOR, OSSA_INTERP_CUBIC, 3, 2, times, vals);
    const float probes[2] = {0.0f, 2e38f};
    for (int p = 0; p < 2; p++) {
        double dt = (double)times[1] - (double)times[0], s = ((double)probes[p] - (double)times[0]) / dt;
        double s2 = s * s, s3 = s2 * s, x[3];
        for (int i = 0; i < 3; i++)
            x[i] = (2 * s3 - 3 * s2 + 1) * vals[3 + i] + (s3 - 2 * s2 + s) * dt * vals[6 + i] +
                   (-2 * s3 + 3 * s2) * vals[12 + i] + (s3 - s2) * dt * vals[9 + i];
        expect_all_lookups(&c, 1e-37f, probes[p], 0, x, 3, 2e-5);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(find_key_hand_values),
        cmocka_unit_test(table_layout),
        cmocka_unit_test(step_linear_and_ends),
        cmocka_unit_test(rotation_slerp_shorter_arc),
        cmocka_unit_test(cubic_gltf_formula),
        cmocka_unit_test(cubic_vec3_scales_tangents),
        cmocka_unit_test(cubic_rotation_is_normalised),
        cmocka_unit_test(adjust_time_semantics),
        cmocka_unit_test(validate_rejects_bad_tracks),
        cmocka_unit_test(lookups_agree_on_random_tracks),
        cmocka_unit_test(sample_with_missing_cursor_and_empty_track),
        cmocka_unit_test(extreme_key_times_linear),
        cmocka_unit_test(extreme_key_times_within_float),
        cmocka_unit_test(extreme_key_times_cubic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
