/* The blend job, subtree masks and 1-D synced blending (see ossa/blend.h for the formula).
 * The job allocates nothing: it accumulates straight into the output span. */
#include <ossa/blend.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "math/fast.h"

static bool finite_nonneg(float v) { return isfinite(v) && v >= 0.0f; }

/* The first fault of one layer: its field's name and why in *field, *why (OSSA_OK: none). */
static ossa_result layer_fault(const ossa_blend_layer *l, uint32_t n, bool additive, const char **field,
                               const char **why) {
    *field = "transforms", *why = "NULL";
    if (!l->transforms) return OSSA_ERROR_INVALID_ARGUMENT;
    *field = "weight", *why = additive ? "not finite" : "negative or not finite";
    if (additive ? !isfinite(l->weight) : !finite_nonneg(l->weight)) return OSSA_ERROR_INVALID_ARGUMENT;
    *field = "transform_count", *why = "below rest_count";
    if (l->transform_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (!l->joint_weights) return OSSA_OK;
    *field = "joint_weight_count";
    if (l->joint_weight_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    *field = "joint_weights", *why = "a joint weight is negative or not finite";
    for (uint32_t j = 0; j < n; j++)
        if (!finite_nonneg(l->joint_weights[j])) return OSSA_ERROR_INVALID_ARGUMENT;
    return OSSA_OK;
}

/* Checks one layer array; names the wrong field "<array>[i].<field>" in diag. */
static ossa_result check_layers(const ossa_blend_layer *layers, uint32_t count, uint32_t n, bool additive,
                                ossa_diagnostic *diag) {
    const char *array = additive ? "additive_layers" : "layers";
    if (count && !layers) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, array, "NULL with count %u", count);
    for (uint32_t i = 0; i < count; i++) {
        const char *name, *why;
        ossa_result r = layer_fault(&layers[i], n, additive, &name, &why);
        if (r == OSSA_OK) continue;
        char field[64];
        snprintf(field, sizeof field, "%s[%u].%s", array, i, name);
        return ossa__job_fail(diag, r, field, "%s", why);
    }
    return OSSA_OK;
}

ossa_result ossa_blend_job_validate(const ossa_blend_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    if (!job->rest) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "rest", "NULL");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "NULL");
    if (!finite_nonneg(job->threshold))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "threshold", "negative or not finite");
    uint32_t n = job->rest_count;
    if (job->output_count < n)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < rest_count %u",
                              job->output_count, n);
    ossa_result r = check_layers(job->layers, job->layer_count, n, false, diag);
    if (r != OSSA_OK) return r;
    return check_layers(job->additive_layers, job->additive_count, n, true, diag);
}

static inline float layer_weight(const ossa_blend_layer *l, uint32_t j) {
    return l->joint_weights ? l->weight * l->joint_weights[j] : l->weight;
}

/* acc += w * x, with x's rotation flipped onto the hemisphere of the rotation sum so far. */
static inline void accumulate(ossa_transform *acc, const ossa_transform *x, float w) {
    ossa_quat q = x->rotation;
    float dot = acc->rotation.x * q.x + acc->rotation.y * q.y + acc->rotation.z * q.z + acc->rotation.w * q.w;
    float wq = dot < 0.0f ? -w : w; /* q on the sum's hemisphere */
    acc->rotation.x += wq * q.x;
    acc->rotation.y += wq * q.y;
    acc->rotation.z += wq * q.z;
    acc->rotation.w += wq * q.w;
    acc->translation.x += w * x->translation.x;
    acc->translation.y += w * x->translation.y;
    acc->translation.z += w * x->translation.z;
    acc->scale.x += w * x->scale.x;
    acc->scale.y += w * x->scale.y;
    acc->scale.z += w * x->scale.z;
}

static inline ossa_quat normalize_or_identity(ossa_quat q) {
    float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(len2 > 1e-30f) || !isfinite(len2)) return ossa_quat_identity();
    float inv = 1.0f / sqrtf(len2);
    return (ossa_quat){q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

/* out = out (+) a * delta: the additive step of the formula. */
static inline void apply_additive(ossa_transform *out, const ossa_transform *d, float a) {
    ossa_quat dq = d->rotation;
    float aa = a;
    if (a < 0.0f) {
        dq.x = -dq.x, dq.y = -dq.y, dq.z = -dq.z; /* conjugate: subtracts */
        aa = -a;
    }
    if (dq.w < 0.0f) dq = (ossa_quat){-dq.x, -dq.y, -dq.z, -dq.w}; /* identity's hemisphere */
    ossa_quat r = normalize_or_identity((ossa_quat){aa * dq.x, aa * dq.y, aa * dq.z, 1.0f - aa + aa * dq.w});
    out->rotation = normalize_or_identity(ossa__quat_mul(out->rotation, r));
    out->translation.x += a * d->translation.x;
    out->translation.y += a * d->translation.y;
    out->translation.z += a * d->translation.z;
    out->scale.x *= 1.0f + a * (d->scale.x - 1.0f);
    out->scale.y *= 1.0f + a * (d->scale.y - 1.0f);
    out->scale.z *= 1.0f + a * (d->scale.z - 1.0f);
}

ossa_result ossa_blend_job_run(ossa_blend_job *job) {
    ossa_result r = ossa_blend_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const float threshold = job->threshold > 0.0f ? job->threshold : 0.1f;
    const uint32_t n = job->rest_count;
    ossa_transform *out = job->output;
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform acc;
        memset(&acc, 0, sizeof acc);
        float total = 0.0f;
        uint32_t contributing = 0;
        const ossa_transform *single = NULL;
        for (uint32_t i = 0; i < job->layer_count; i++) {
            const ossa_blend_layer *l = &job->layers[i];
            float w = layer_weight(l, j);
            if (w > 0.0f) {
                accumulate(&acc, &l->transforms[j], w);
                total += w;
                contributing++;
                single = &l->transforms[j];
            }
        }
        if (total < threshold) {
            accumulate(&acc, &job->rest[j], threshold - total);
            total = threshold;
            contributing++;
        }
        if (contributing == 1) {
            acc = single ? *single : job->rest[j]; /* one source: copied exactly */
        } else {
            float inv = 1.0f / total;
            acc.translation.x *= inv, acc.translation.y *= inv, acc.translation.z *= inv;
            acc.scale.x *= inv, acc.scale.y *= inv, acc.scale.z *= inv;
            acc.rotation = normalize_or_identity(acc.rotation);
        }
        for (uint32_t k = 0; k < job->additive_count; k++) {
            const ossa_blend_layer *l = &job->additive_layers[k];
            float a = layer_weight(l, j);
            if (a != 0.0f) apply_additive(&acc, &l->transforms[j], a);
        }
        out[j] = acc;
    }
    return OSSA_OK;
}

ossa_result ossa_blend_mask_subtree(const ossa_skeleton *skeleton, uint32_t joint, float inside, float outside,
                                    float *mask, uint32_t mask_count) {
    if (!skeleton || !mask || joint >= skeleton->joint_count) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t n = skeleton->joint_count;
    if (mask_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    /* Parents come first: a joint is inside when it is `joint` or its parent is inside
     * (marked 1 / 0 in a first pass, mapped to inside / outside in a second). */
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = skeleton->parents[j];
        bool in = j == joint || (j > joint && p >= 0 && mask[p] == 1.0f);
        mask[j] = in ? 1.0f : 0.0f;
    }
    for (uint32_t j = 0; j < n; j++) mask[j] = mask[j] == 1.0f ? inside : outside;
    return OSSA_OK;
}

ossa_result ossa_blend_mask_from_name(const ossa_skeleton *skeleton, const char *joint_name, float inside,
                                      float outside, float *mask, uint32_t mask_count) {
    if (!skeleton || !joint_name) return OSSA_ERROR_INVALID_ARGUMENT;
    int32_t j = ossa_skeleton_find_joint(skeleton, joint_name);
    if (j < 0) return OSSA_ERROR_INVALID_ARGUMENT;
    return ossa_blend_mask_subtree(skeleton, (uint32_t)j, inside, outside, mask, mask_count);
}

ossa_result ossa_blend_space_1d(const float *positions, uint32_t count, float x, float *weights) {
    if (!positions || !weights || count == 0 || isnan(x)) return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; i++) {
        if (!isfinite(positions[i]) || (i && !(positions[i] > positions[i - 1]))) return OSSA_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < count; i++) weights[i] = 0.0f;
    if (x <= positions[0]) {
        weights[0] = 1.0f;
    } else if (x >= positions[count - 1]) {
        weights[count - 1] = 1.0f;
    } else {
        uint32_t i = 0;
        while (!(x < positions[i + 1])) i++;
        float u = (x - positions[i]) / (positions[i + 1] - positions[i]);
        weights[i] = 1.0f - u;
        weights[i + 1] = u;
    }
    return OSSA_OK;
}

float ossa_sync_duration(const float *durations, const float *weights, uint32_t count) {
    if (!durations || !weights) return 0.0f;
    double sum = 0.0, wsum = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        sum += (double)weights[i] * durations[i];
        wsum += weights[i];
    }
    return wsum > 0.0 ? (float)(sum / wsum) : 0.0f;
}

float ossa_sync_advance(float phase, float dt, float duration) {
    double p = phase;
    if (duration > 0.0f && isfinite(dt)) p += (double)dt / duration;
    if (!isfinite(p)) return 0.0f;
    p -= floor(p);
    float f = (float)p;
    return f >= 1.0f ? 0.0f : f;
}
