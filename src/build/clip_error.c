/* The model-space error of a built clip against its editable source (ACL's virtual-vertex
 * metric, docs/built-clips.md, "The error metric"): the measurement grid, the virtual vertices of a pose,
 * and ossa_built_clip_measure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/built_clip_internal.h"
#include "core/alloc.h"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

uint32_t ossa__clip_grid_substeps(const ossa_clip *clip) {
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if ((t->translation.key_count && t->translation.interp == OSSA_INTERP_CUBIC) ||
            (t->rotation.key_count && t->rotation.interp == OSSA_INTERP_CUBIC) ||
            (t->scale.key_count && t->scale.interp == OSSA_INTERP_CUBIC))
            return 16;
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++)
        if (clip->weight_tracks[i].weights.interp == OSSA_INTERP_CUBIC) return 16;
    return 8;
}

/* Substeps of the interval [a, b]: a multiple of `substeps`, at least OSSA__GRID_RATE per second. */
static uint32_t interval_steps(double a, double b, uint32_t substeps) {
    double n = ceil((b - a) * OSSA__GRID_RATE / substeps);
    if (!(n >= 1.0)) n = 1.0;
    if (n > OSSA__GRID_MAX_STEPS / substeps) n = OSSA__GRID_MAX_STEPS / substeps;
    return (uint32_t)n * substeps;
}

ossa_result ossa__clip_grid(const ossa_clip *clip, uint32_t joint_count, uint32_t substeps, uint32_t key_div,
                            const ossa_allocator *allocator, float **out, uint32_t *count, uint8_t **candidate) {
    *out = NULL;
    if (candidate) *candidate = NULL;
    *count = 0;
    size_t n = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= joint_count) continue;
        n += (size_t)t->translation.key_count + t->rotation.key_count + t->scale.key_count;
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) n += clip->weight_tracks[i].weights.key_count;
    float *u = ossa__alloc_array(allocator, n + 1, sizeof(float));
    if (!u) return OSSA_ERROR_OUT_OF_MEMORY;
    size_t m = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= joint_count) continue;
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        for (int c = 0; c < 3; c++)
            for (uint32_t k = 0; k < tr[c]->key_count; k++) u[m++] = tr[c]->times[k];
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++)
        for (uint32_t k = 0; k < clip->weight_tracks[i].weights.key_count; k++) u[m++] = clip->weight_tracks[i].weights.times[k];
    if (m == 0) u[m++] = clip->start;
    qsort(u, m, sizeof(float), cmp_float);
    size_t uniq = 1;
    for (size_t i = 1; i < m; i++)
        if (u[i] != u[uniq - 1]) u[uniq++] = u[i];
    size_t total = 1;
    for (size_t i = 0; i + 1 < uniq; i++) total += interval_steps(u[i], u[i + 1], substeps);
    if (total > UINT32_MAX / 8) {
        ossa__free(allocator, u);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    float *g = ossa__alloc_array(allocator, total, sizeof(float) + 1);
    uint8_t *cand = (uint8_t *)(g + total);
    if (!g) {
        ossa__free(allocator, u);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    size_t k = 0;
    for (size_t i = 0; i < uniq; i++) {
        cand[k] = 2; /* a key time (2) rather than a substep (1) */
        g[k++] = u[i];
        if (i + 1 == uniq) break;
        double a = u[i], b = u[i + 1];
        uint32_t steps = interval_steps(a, b, substeps), every = steps / key_div;
        for (uint32_t s = 1; s < steps; s++) {
            float t = (float)(a + (b - a) * (double)s / (double)steps);
            if (t > g[k - 1] && t < u[i + 1]) {
                cand[k] = s % every == 0;
                g[k++] = t;
            }
        }
    }
    ossa__free(allocator, u);
    *out = g;
    *count = (uint32_t)k;
    if (candidate) *candidate = cand;
    return OSSA_OK;
}

void ossa__clip_sample_exact(const ossa_clip *clip, float t, bool loop, const ossa_transform *rest, ossa_transform *out,
                             uint32_t joint_count) {
    ossa_clip_sample_job job = {0};
    job.clip = clip;
    job.time = t;
    job.loop = loop;
    job.lookup = OSSA_LOOKUP_BINARY;
    job.reference = rest;
    job.reference_count = joint_count;
    job.output = out;
    job.output_count = joint_count;
    ossa_clip_sample_job_run(&job);
}

void ossa__clip_weights_exact(const ossa_clip *clip, uint32_t track, float t, bool loop, float *out, uint32_t count) {
    ossa_clip_weights_job job = {0};
    job.clip = clip;
    job.track = track;
    job.time = t;
    job.loop = loop;
    job.lookup = OSSA_LOOKUP_BINARY;
    job.output = out;
    job.output_count = count;
    ossa_clip_weights_job_run(&job);
}

void ossa__bind_model(const ossa_skeleton *skeleton, ossa_mat4 *model) {
    ossa_local_to_model_job job = {0};
    job.parents = skeleton->parents;
    job.parent_count = skeleton->joint_count;
    job.input = skeleton->bind;
    job.input_count = skeleton->joint_count;
    job.output = model;
    job.output_count = skeleton->joint_count;
    ossa_local_to_model_job_run(&job);
}

void ossa__axis_shells(const ossa_mat4 *bind_model, const float *shell, uint32_t joint_count, float *axis_shell) {
    for (uint32_t j = 0; j < joint_count; j++)
        for (int a = 0; a < 3; a++) {
            const float *c = bind_model[j].m + a * 4;
            double n = sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2]);
            float s = n > 0.0 && isfinite(n) ? (float)(shell[j] / n) : 0.0f;
            axis_shell[(size_t)j * 3 + (size_t)a] = isfinite(s) ? s : 0.0f;
        }
}

void ossa__pose_points(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                       const float *axis_shell, ossa_mat4 *model, float *out) {
    ossa_local_to_model_job job = {0};
    job.parents = parents;
    job.parent_count = joint_count;
    job.input = locals;
    job.input_count = joint_count;
    job.output = model;
    job.output_count = joint_count;
    ossa_local_to_model_job_run(&job);
    for (uint32_t j = 0; j < joint_count; j++) {
        const float *m = model[j].m;
        float *p = out + (size_t)j * 12;
        for (int r = 0; r < 3; r++) {
            p[r] = m[12 + r];
            for (int a = 0; a < 3; a++) p[3 + a * 3 + r] = m[12 + r] + m[a * 4 + r] * axis_shell[(size_t)j * 3 + (size_t)a];
        }
    }
}

float ossa__points_error(const float *a, const float *b, uint32_t joint_count, uint32_t *worst_joint, float *per_joint) {
    float worst = 0.0f;
    for (uint32_t j = 0; j < joint_count; j++) {
        /* the largest square, then one root: sqrt and the rounding to float are monotonic, so
         * this is the largest (float) root, and a NaN takes the same place in either order */
        double e2 = 0.0;
        for (int p = 0; p < 4; p++) {
            const float *x = a + (size_t)j * 12 + p * 3, *y = b + (size_t)j * 12 + p * 3;
            double dx = (double)x[0] - y[0], dy = (double)x[1] - y[1], dz = (double)x[2] - y[2];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (!(d2 <= e2)) e2 = d2; /* NaN counts as worst */
        }
        float e = (float)sqrt(e2);
        if (per_joint && !(e <= per_joint[j])) per_joint[j] = e;
        if (!(e <= worst)) {
            worst = e;
            if (worst_joint) *worst_joint = j;
        }
    }
    return worst;
}

ossa_result ossa_built_clip_measure(const ossa_built_clip *built, const ossa_clip *reference,
                                    const ossa_skeleton *skeleton, float shell_distance,
                                    const ossa_allocator *allocator, ossa_clip_error *out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!built || !reference || !skeleton || isnan(shell_distance) || shell_distance < 0.0f)
        return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t J = skeleton->joint_count;
    if (ossa_built_clip_joint_count(built) != J ||
        ossa_built_clip_weight_track_count(built) != reference->weight_track_count)
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (shell_distance == 0.0f) shell_distance = 0.03f * ossa_skeleton_bind_height(skeleton) / 1.8f;
    float *grid = NULL;
    uint32_t G = 0;
    ossa_result r = ossa__clip_grid(reference, J, ossa__clip_grid_substeps(reference), 1, allocator, &grid, &G, NULL);
    if (r) return r;
    uint32_t W = ossa_built_clip_weight_count(built), Wmax = 0;
    for (uint32_t i = 0; i < reference->weight_track_count; i++)
        if (reference->weight_tracks[i].weights.components > Wmax) Wmax = reference->weight_tracks[i].weights.components;
    ossa_sampling_context *ctx = NULL;
    size_t per = (size_t)J * (2 * sizeof(ossa_transform) + sizeof(ossa_mat4) + 29 * sizeof(float));
    unsigned char *scratch = ossa__alloc_array(allocator, 1, per + ((size_t)W + Wmax) * sizeof(float) + 16);
    r = scratch ? ossa_sampling_context_create(J, W, allocator, &ctx) : OSSA_ERROR_OUT_OF_MEMORY;
    if (r == OSSA_OK) {
        ossa_transform *exact = (ossa_transform *)scratch, *got = exact + J;
        ossa_mat4 *model = (ossa_mat4 *)(got + J);
        float *pe = (float *)(model + J), *pg = pe + (size_t)J * 12, *axis = pg + (size_t)J * 12, *wb = axis + (size_t)J * 3;
        float *we = wb + W, *shells = we + Wmax;
        /* the shell in model units at the bind pose: local offsets per axis */
        ossa__bind_model(skeleton, model);
        for (uint32_t j = 0; j < J; j++) shells[j] = shell_distance;
        ossa__axis_shells(model, shells, J, axis);
        ossa_sample_job job = {.clip = built, .context = ctx, .output = got, .output_count = J, .weights = W ? wb : NULL,
                               .weights_count = W, .reference = skeleton->rest, .reference_count = J};
        for (uint32_t g = 0; g < G && r == OSSA_OK; g++) {
            ossa__clip_sample_exact(reference, grid[g], false, skeleton->rest, exact, J);
            job.time = grid[g];
            r = ossa_sample_job_run(&job);
            if (r) break;
            ossa__pose_points(exact, skeleton->parents, J, axis, model, pe);
            ossa__pose_points(got, skeleton->parents, J, axis, model, pg);
            uint32_t wj = 0;
            float e = ossa__points_error(pg, pe, J, &wj, NULL);
            if (!(e <= out->max_error)) {
                out->max_error = e;
                out->worst_joint = wj;
                out->worst_time = grid[g];
            }
            for (uint32_t i = 0; i < reference->weight_track_count; i++) {
                const ossa_weight_track *w = &reference->weight_tracks[i];
                ossa__clip_weights_exact(reference, i, grid[g], false, we, w->weights.components);
                uint32_t off = built->wtracks[i].offset;
                for (uint32_t c = 0; c < w->weights.components && c < built->wtracks[i].components; c++) {
                    float d = fabsf(we[c] - wb[off + c]);
                    if (!(d <= out->max_weight_error)) out->max_weight_error = d;
                }
            }
        }
        out->sample_count = G;
    }
    ossa_sampling_context_destroy(ctx);
    ossa__free(allocator, scratch);
    ossa__free(allocator, grid);
    return r;
}
