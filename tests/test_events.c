/* Events and user tracks (src/anim/events.c): each crossing fires exactly once, forwards,
 * backwards and across loop wraps; checked against a brute-force count of sign changes on a
 * fine walk of the unwrapped timeline. */
#include "test_support.h"
#include "job_check.h"

#include <math.h>
#include <string.h>

static ossa_result step(const float *times, uint32_t count, bool loop, float from, float advance, uint32_t *fired,
                        uint32_t cap, uint32_t *n) {
    ossa_event_job job = {times, count, 0.0f, 1.2f, loop, from, advance, fired, cap, 0};
    ossa_result r = ossa_event_job_run(&job);
    *n = job.fired_count;
    return r;
}

/* ozz style: a zeroed job fails (it has no event track and no output), then each field is set
 * in turn until it passes; each failure names the field. */
static void validity(void **state) {
    (void)state;
    ossa_event_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_event_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "times");
    assert_int_equal(ossa_event_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    const float times[2] = {0.31f, 0.9f};
    job.times = times; /* time_count 0: an empty track */
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "fired");
    uint32_t fired[1] = {99};
    job.fired = fired; /* fired_capacity 0: count only */
    ot_assert_job_ok(ossa_event_job_validate, &job); /* no events, empty range: nothing to do */
    job.time_count = 1;
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "times"); /* 0.31 outside [0, 0] */
    job.end = 1.2f;
    ot_assert_job_ok(ossa_event_job_validate, &job);
    job.advance = 0.5f; /* crosses 0.31, counted but not written */
    assert_int_equal(ossa_event_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(job.fired_count, 1);
    assert_int_equal(fired[0], 99);
    job.fired_capacity = 1;
    assert_int_equal(ossa_event_job_run(&job), OSSA_OK);
    assert_int_equal(job.fired_count, 1);
    assert_int_equal(fired[0], 0);
    job.time_count = 2;
    job.advance = 1.0f; /* crosses both: the output is short */
    assert_int_equal(ossa_event_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(job.fired_count, 2);
    assert_int_equal(fired[0], 0);
    job.from = NAN;
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "from");
    job.from = 0;
    job.advance = -INFINITY;
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "advance");
    job.advance = 0;
    job.start = 2.0f; /* end < start */
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "end");
    job.start = NAN;
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "start");
    job.start = 0;
    const float unsorted[2] = {0.9f, 0.31f};
    job.times = unsorted;
    ot_assert_job(ossa_event_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "times");
}

static void footstep_once_per_crossing(void **state) {
    (void)state;
    const float times[1] = {0.31f};
    uint32_t fired[8], n;
    /* Forward in small steps through 0.31: exactly one frame fires it. */
    int total = 0;
    for (float t = 0.0f; t < 1.0f; t += 0.05f) {
        assert_int_equal(step(times, 1, false, t, 0.05f, fired, 8, &n), OSSA_OK);
        total += (int)n;
    }
    assert_int_equal(total, 1);
    /* Landing exactly on the event fires it; leaving it forwards does not fire again. */
    assert_int_equal(step(times, 1, false, 0.21f, 0.1f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(step(times, 1, false, 0.31f, 0.1f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 0);
    /* Backwards across it fires once; back and forth twice fires four times. */
    assert_int_equal(step(times, 1, false, 0.5f, -0.3f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(step(times, 1, false, 0.31f, -0.01f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 1); /* stood on it (after), stepped before it: a crossing */
    /* Zero step: nothing. */
    assert_int_equal(step(times, 1, false, 0.31f, 0.0f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 0);
    /* Clamped clip: stepping past the end does not wrap. */
    assert_int_equal(step(times, 1, false, 1.0f, 5.0f, fired, 8, &n), OSSA_OK);
    assert_int_equal(n, 0);
}

static void across_loop_wraps_in_order(void **state) {
    (void)state;
    const float times[3] = {0.1f, 0.31f, 1.1f};
    uint32_t fired[16], n;
    /* Forward from 1.0 by 0.5 (D = 1.2): 1.1, wrap, 0.1 (at 1.3). */
    assert_int_equal(step(times, 3, true, 1.0f, 0.5f, fired, 16, &n), OSSA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(fired[0], 2);
    assert_int_equal(fired[1], 0);
    /* Backward from 0.2 by -0.5: 0.1, wrap, 1.1 (at -0.1). */
    assert_int_equal(step(times, 3, true, 0.2f, -0.5f, fired, 16, &n), OSSA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(fired[0], 0);
    assert_int_equal(fired[1], 2);
    /* Two and a half cycles forward from 0: 0.1 0.31 1.1 0.1 0.31 1.1 0.1 0.31 (3.0 = 0.6 in cycle 3). */
    assert_int_equal(step(times, 3, true, 0.0f, 3.0f, fired, 16, &n), OSSA_OK);
    assert_int_equal(n, 8);
    const uint32_t want[8] = {0, 1, 2, 0, 1, 2, 0, 1};
    for (int i = 0; i < 8; i++) assert_int_equal(fired[i], want[i]);
    /* A short output: the first ones, and the total. */
    assert_int_equal(step(times, 3, true, 0.0f, 3.0f, fired, 3, &n), OSSA_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(n, 8);
    for (int i = 0; i < 3; i++) assert_int_equal(fired[i], want[i]);
}

/* Brute force: walk the unwrapped timeline in tiny steps and count events whose side changes. */
static void random_steps_match_brute_force(void **state) {
    (void)state;
    uint64_t s = 31;
    for (int iter = 0; iter < 400; iter++) {
        bool loop = iter % 4 != 0;
        /* From and advance on a 1/64 grid and events off it, so no step ends exactly on one. */
        float from = (float)(int)(ot_rand_float(&s, -3, 3) * 64) / 64.0f;
        float adv = (float)(int)(ot_rand_float(&s, -3, 3) * 64) / 64.0f;
        const float ev[4] = {0.013f, 0.31f, 0.6f, 1.05f};
        uint32_t fired[64], n;
        if (!loop) from = fminf(fmaxf(from, 0.0f), 1.2f);
        assert_int_equal(step(ev, 4, loop, from, adv, fired, 64, &n), OSSA_OK);
        uint32_t count[4] = {0}, want_total = 0;
        double a = from, b = (float)(from + adv);
        if (!loop) {
            a = fmin(fmax(a, 0), 1.2f);
            b = fmin(fmax(b, 0), 1.2f);
        }
        double lo = fmin(a, b), hi = fmax(a, b);
        for (int i = 0; i < 4; i++) {
            /* Repetitions e + k·1.2 in (lo, hi]. */
            for (int k = loop ? -10 : 0; k <= (loop ? 10 : 0); k++) {
                double x = ev[i] + k * (double)1.2f;
                if (x > lo && x <= hi) count[i]++, want_total++;
            }
        }
        if (n != want_total) print_message("loop %d from %.9g adv %.9g n %u want %u\n", loop, from, adv, n, want_total);
        assert_int_equal(n, want_total);
        uint32_t got[4] = {0};
        /* Crossing order: each event's next repetition in the step's direction, in turn, stays
         * inside the step (so the list is the crossings sorted along the step). */
        double D = loop ? (double)1.2f : 1e6, cur = adv >= 0 ? lo : hi;
        for (uint32_t k = 0; k < n; k++) {
            got[fired[k]]++;
            double x = ev[fired[k]];
            if (adv >= 0) {
                while (x <= cur) x += D;
                while (x - D > cur) x -= D;
                assert_true(x <= hi);
                cur = x;
            } else {
                while (x > cur) x -= D;
                while (x + D <= cur) x += D;
                assert_true(x > lo);
                cur = x - 1e-9;
            }
        }
        for (int i = 0; i < 4; i++) assert_int_equal(got[i], count[i]);
    }
}

static void user_track(void **state) {
    (void)state;
    static const float times[3] = {0, 0.5f, 1.0f};
    static const float values[6] = {0, 10, 1, 20, 0, 30};
    ossa_track t = {OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 2, 3, times, values, {0, 0, 0, NULL}};
    ossa_user_track_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_user_track_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "track");
    job.track = &t;
    ot_assert_job(ossa_user_track_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output"); /* no output */
    float out[2];
    job.output = out;
    ot_assert_job(ossa_user_track_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    job.output_count = 2;
    job.time = 0.25f;
    assert_int_equal(ossa_user_track_job_run(&job), OSSA_OK);
    ot_assert_near(out[0], 0.5, 1e-6);
    ot_assert_near(out[1], 15, 1e-5);
    uint32_t cursor = 0;
    job.cursor = &cursor;
    for (float x = 0; x <= 1.0f; x += 0.125f) {
        job.time = x;
        assert_int_equal(ossa_user_track_job_run(&job), OSSA_OK);
        ot_assert_near(out[0], x <= 0.5f ? 2 * x : 2 * (1 - x), 1e-6);
        ot_assert_near(out[1], 10 + 20 * x, 1e-5);
    }
    job.time = 7.0f; /* held after the last key */
    assert_int_equal(ossa_user_track_job_run(&job), OSSA_OK);
    ot_assert_near(out[1], 30, 0);
    job.time = NAN;
    assert_int_equal(ossa_user_track_job_run(&job), OSSA_ERROR_INVALID_ARGUMENT);
    ot_assert_job(ossa_user_track_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "time");
    job.time = 0;
    ossa_track keyless = t;
    keyless.key_count = 0;
    job.track = &keyless;
    ot_assert_job(ossa_user_track_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "track");
    ot_assert_job(ossa_user_track_job_validate, NULL, OSSA_ERROR_INVALID_ARGUMENT, "job");
}

/* Property: random tracks (1-4 components, STEP / LINEAR / CUBIC) and times: the user-track
 * job equals ossa_track_sample with the clip's clock (held at the ends), with and without a cursor. */
static void user_track_property(void **state) {
    (void)state;
    uint64_t s = 5;
    for (int iter = 0; iter < 100; iter++) {
        static float times[8], values[8 * 4 * 3];
        uint32_t keys = 1 + (uint32_t)(ot_rand_u64(&s) % 8), comps = 1 + (uint32_t)(ot_rand_u64(&s) % 4);
        ossa_interp interp = (ossa_interp)(1 + ot_rand_u64(&s) % 3);
        float t = ot_rand_float(&s, -1, 1);
        for (uint32_t k = 0; k < keys; k++) times[k] = t += ot_rand_float(&s, 0.05f, 0.5f);
        for (uint32_t i = 0; i < keys * comps * 3; i++) values[i] = ot_rand_float(&s, -5, 5);
        ossa_track tr = {OSSA_TRACK_VECTOR, interp, comps, keys, times, values, {0, 0, 0, NULL}};
        uint32_t cursor = 0;
        for (int q = 0; q < 20; q++) {
            float at = ot_rand_float(&s, times[0] - 1, times[keys - 1] + 1), got[4], want[4];
            ossa_user_track_job job = {&tr, at, q % 2 ? &cursor : NULL, got, 4};
            assert_int_equal(ossa_user_track_job_run(&job), OSSA_OK);
            ossa_track_sample(&tr, at, false, OSSA_LOOKUP_LINEAR, NULL, want);
            ot_assert_floats_near(got, want, comps, 1e-6f);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validity),
        cmocka_unit_test(footstep_once_per_crossing),
        cmocka_unit_test(across_loop_wraps_in_order),
        cmocka_unit_test(random_steps_match_brute_force),
        cmocka_unit_test(user_track),
        cmocka_unit_test(user_track_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
