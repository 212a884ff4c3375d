/* Event and user-track jobs (see ossa/events.h for the crossing rule). */
#include <ossa/events.h>

#include <math.h>

#include "core/job.h"

ossa_result ossa_event_job_validate(const ossa_event_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->times) return ossa__job_fail(diag, bad, "times", "NULL (an empty track still needs a pointer)");
    if (!job->fired) return ossa__job_fail(diag, bad, "fired", "NULL (a count-only run still needs a pointer)");
    if (!isfinite(job->start)) return ossa__job_fail(diag, bad, "start", "not finite");
    if (!isfinite(job->end) || job->end < job->start)
        return ossa__job_fail(diag, bad, "end", "%g not finite or below start %g", (double)job->end, (double)job->start);
    if (!isfinite(job->from)) return ossa__job_fail(diag, bad, "from", "not finite");
    if (!isfinite(job->advance)) return ossa__job_fail(diag, bad, "advance", "not finite");
    for (uint32_t i = 0; i < job->time_count; i++) {
        float t = job->times[i];
        if (!isfinite(t) || t < job->start || t > job->end)
            return ossa__job_fail(diag, bad, "times", "times[%u] = %g outside [start, end]", i, (double)t);
        if (i && t < job->times[i - 1])
            return ossa__job_fail(diag, bad, "times", "times[%u] = %g decreases", i, (double)t);
    }
    return OSSA_OK;
}

/* Records event i as crossed. */
static void emit(ossa_event_job *job, uint32_t i) {
    if (job->fired_count < job->fired_capacity) job->fired[job->fired_count] = i;
    job->fired_count++;
}

/* Crossings of x in the half-open step: forwards a < x <= b, backwards b < x <= a. */
static bool crossed(double x, double a, double b) { return a <= b ? (a < x && x <= b) : (b < x && x <= a); }
/* (Looping uses the same rule on the repetitions x = t + c·d: lo < x <= hi with lo, hi the
 * step's ends in increasing order, i.e. floor((lo - t) / d) < c <= floor((hi - t) / d).) */

ossa_result ossa_event_job_run(ossa_event_job *job) {
    ossa_result r = ossa_event_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    job->fired_count = 0;
    const uint32_t n = job->time_count;
    double s = job->start, e = job->end, d = e - s;
    double a = job->from, b = (float)(job->from + job->advance); /* in float, like the caller's next `from` */
    const bool forward = job->advance >= 0.0f;
    if (!job->loop || !(d > 0.0)) {
        a = a < s ? s : (a > e ? e : a);
        b = b < s ? s : (b > e ? e : b);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = forward ? k : n - 1 - k;
            if (crossed(job->times[i], a, b)) emit(job, i);
        }
    } else if (n) {
        /* Repetitions x = times[i] + c·d; the cycles c that can hold a crossing. */
        double lo = forward ? a : b, hi = forward ? b : a;
        double c0 = floor((lo - e) / d), c1 = floor((hi - s) / d) + 1.0;
        /* Total count first (arithmetic, bounded work), then the crossings in order until the
         * output is full. */
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++) {
            double t = job->times[i];
            double k = floor((hi - t) / d) - floor((lo - t) / d); /* lo < t + c·d <= hi */
            total += k > 0 ? (uint64_t)k : 0u;
        }
        for (double c = forward ? c0 : c1; forward ? c <= c1 : c >= c0; c += forward ? 1.0 : -1.0) {
            if (job->fired_count >= job->fired_capacity) break;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t i = forward ? k : n - 1 - k;
                double t = job->times[i];
                if (c > floor((lo - t) / d) && c <= floor((hi - t) / d)) emit(job, i);
            }
        }
        job->fired_count = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    }
    return job->fired_count > job->fired_capacity ? OSSA_ERROR_BUFFER_TOO_SMALL : OSSA_OK;
}

ossa_result ossa_user_track_job_validate(const ossa_user_track_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    const ossa_track *t = job->track;
    if (!t) return ossa__job_fail(diag, bad, "track", "NULL");
    if (t->key_count == 0 || !t->times || !t->values || t->components == 0 || t->components > OSSA_MAX_COMPONENTS)
        return ossa__job_fail(diag, bad, "track", "no keys, no values or %u components", t->components);
    if (!isfinite(job->time)) return ossa__job_fail(diag, bad, "time", "not finite");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    if (job->output_count < t->components)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < %u components",
                              job->output_count, t->components);
    return OSSA_OK;
}

ossa_result ossa_user_track_job_run(ossa_user_track_job *job) {
    ossa_result r = ossa_user_track_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    ossa_track_sample(job->track, job->time, false, job->cursor ? OSSA_LOOKUP_CURSOR : OSSA_LOOKUP_BINARY, job->cursor,
                      job->output);
    return OSSA_OK;
}
